"""Stimulus cases of the recurrent cells and sequences (RNNCell-1, GRUCell-3, LSTMCell-1/4,
RNNSequence-5, GRUSequence-5, LSTMSequence-5) and the DFT family (DFT-7, IDFT-7, RDFT-9,
IRDFT-9), which had none (issue #20 gap).

Recurrent ops are gate matrix products: a hidden size of remainder length makes the gate blocks
(``gates * hidden`` rows) end off a vector width, an input size of remainder length the K of the
product; sequences of 65 and 257 steps carry rounding across steps, shorter ``sequence_lengths``
per batch row check the zeros past a row's end (the spec's output there), both directions and
``reverse`` walk the steps backwards. Weights are Constants scaled by 1/sqrt(fan-in), so the gates
work off their saturation. The dynamic case changes the batch (the product's M) or the steps.

DFT kernels pick a radix by the transformed length: lengths of remainder size are odd or prime
(7, 17, 129 = 3·43), 64 and 128 powers of two, 4096 long (a large, long-reduction case); 2-D
transforms and ``signal_size`` that crops and zero-pads. IRDFT's input is the RDFT of a real
signal (Hermitian), so the inverse has the value the spec's formula gives either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases.depth import Depth

Make = SR.MakeAt
F32 = Type.f32
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
REAL = (Type.f16, Type.bf16, Type.f64)


def stim(op: str, version: int, label: str, make: Make, shape: tuple[int, ...], *, size: str = "remainder",
         values: str = "ordinary", et: Type = F32, depth: Depth = Depth.STANDARD,
         shapes: tuple[tuple[int, ...], ...] = ()) -> S.Stimulus:
    return S.Stimulus(op, version, label, size, values, et, SR.node_case(op, version, label, make, shape, shapes),
                      depth, dynamic=bool(shapes))


def type_depth(et: Type) -> Depth:
    return Depth.STANDARD if et in (Type.f16, Type.bf16) else Depth.EXHAUSTIVE


def weights(op: str, version: int, label: str, kind: str, hidden: int, inputs: int, et: Type, lbr: bool = False,
            dirs: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W, R, B of ``kind`` (a leading ``dirs`` axis for sequences), from the case's own seed."""
    rng = np.random.default_rng(S.seed_of(op, version, label + "/weights"))
    rows = GATES[kind] * hidden
    lead = (dirs,) if dirs else ()
    scale = 1.0 / np.sqrt(inputs + hidden)
    w = S.cast(rng.uniform(-2, 2, (*lead, rows, inputs)) * scale, et)
    r = S.cast(rng.uniform(-2, 2, (*lead, rows, hidden)) * scale, et)
    b = S.cast(rng.uniform(-0.5, 0.5, (*lead, rows + (hidden if lbr else 0))), et)
    return w, r, b


# -- cells ----------------------------------------------------------------------------------------------------

CELLS = (("RNNCell", 1, "RNN"), ("GRUCell", 3, "GRU"), ("LSTMCell", 1, "LSTM"), ("LSTMCell", 4, "LSTM"))


def cell_make(op: str, version: int, kind: str, label: str, hidden: int, inputs: int, et: Type = F32,
              lbr: bool = False, clip: float = 0.0) -> Make:
    """The case's shape is ``(batch,)``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        batch = shape[0]
        w, r, bias = (b.const(v, et) for v in weights(op, version, label, kind, hidden, inputs, et, lbr))
        x = b.param("X", b.uniform((batch, inputs), et, -1, 1), et)
        h = b.param("H", b.uniform((batch, hidden), et, -1, 1), et)
        if kind == "RNN":
            return opset.rnn_cell(x, h, w, r, bias, hidden, clip=clip)
        if kind == "GRU":
            return opset.gru_cell(x, h, w, r, bias, hidden, clip=clip, linear_before_reset=lbr)
        c = b.param("C", b.uniform((batch, hidden), et, -1, 1), et)
        return opset.lstm_cell(x, h, c, w, r, bias, hidden, clip=clip, version=version)

    return make


def cell_recipe(op: str, version: int, kind: str) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:  # hidden size: the gate blocks' rows
            label = f"h{n}"
            yield stim(op, version, label, cell_make(op, version, kind, label, n, 33), (3,),
                       depth=S.remainder_depth(n))
        yield stim(op, version, "i129-h17", cell_make(op, version, kind, "i129-h17", 17, 129), (3,))
        yield stim(op, version, "clip-h65", cell_make(op, version, kind, "clip-h65", 65, 33, clip=0.75), (3,))
        if kind == "GRU":
            yield stim(op, version, "lbr-h65", cell_make(op, version, kind, "lbr-h65", 65, 33, lbr=True), (3,))
        yield stim(op, version, "h256-large", cell_make(op, version, kind, "h256-large", 256, 256), (4,),
                   size="large")
        for et in REAL:
            label = f"{et.name}-h65"
            yield stim(op, version, label, cell_make(op, version, kind, label, 65, 33, et), (3,), et=et,
                       depth=type_depth(et))
        yield stim(op, version, "dynamic", cell_make(op, version, kind, "dynamic", 33, 17), (1,),
                   shapes=((1,), (3,), (65,)))

    return recipe


# -- sequences ----------------------------------------------------------------------------------------------

SEQUENCES = (("RNNSequence", "RNN"), ("GRUSequence", "GRU"), ("LSTMSequence", "LSTM"))


def sequence_make(op: str, kind: str, label: str, hidden: int, inputs: int, direction: str = "forward",
                  et: Type = F32, batch: int = 2, short: int = 3) -> Make:
    """The case's shape is ``(steps,)``; batch row 1 is ``short`` steps shorter (its outputs past
    its end are zeros); ``sequence_lengths`` is a Parameter, so a dynamic case fits every length."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        steps = shape[0]
        dirs = 2 if direction == "bidirectional" else 1
        w, r, bias = (b.const(v, et) for v in weights(op, 5, label, kind, hidden, inputs, et, dirs=dirs))
        x = b.param("X", b.uniform((batch, steps, inputs), et, -1, 1), et)
        h = b.param("H", b.uniform((batch, dirs, hidden), et, -1, 1), et)
        lengths = np.array([steps] + [max(1, steps - short)] * (batch - 1), np.int32)
        seq = b.param("sequence_lengths", lengths)
        if kind == "RNN":
            return opset.rnn_sequence(x, h, seq, w, r, bias, hidden, direction)
        if kind == "GRU":
            return opset.gru_sequence(x, h, seq, w, r, bias, hidden, direction)
        c = b.param("C", b.uniform((batch, dirs, hidden), et, -1, 1), et)
        return opset.lstm_sequence(x, h, c, seq, w, r, bias, hidden, direction)

    return make


def sequence_recipe(op: str, kind: str) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:  # steps
            label = f"t{n}"
            yield stim(op, 5, label, sequence_make(op, kind, label, 17, 9), (n,), depth=S.remainder_depth(n))
        yield stim(op, 5, "h65-i33", sequence_make(op, kind, "h65-i33", 65, 33), (9,))
        yield stim(op, 5, "bidirectional-t17", sequence_make(op, kind, "bidirectional-t17", 33, 9, "bidirectional"),
                   (17,))
        yield stim(op, 5, "reverse-t17", sequence_make(op, kind, "reverse-t17", 33, 9, "reverse"), (17,))
        yield stim(op, 5, "t257", sequence_make(op, kind, "t257", 17, 9, short=100), (257,), values="long-reduction")
        yield stim(op, 5, "h256-large", sequence_make(op, kind, "h256-large", 256, 128), (17,), size="large")
        for et in REAL:
            label = f"{et.name}-t17"
            yield stim(op, 5, label, sequence_make(op, kind, label, 33, 9, et=et), (17,), et=et, depth=type_depth(et))
        yield stim(op, 5, "dynamic", sequence_make(op, kind, "dynamic", 17, 9), (7,), shapes=((7,), (17,), (65,)))

    return recipe


# -- DFT family ---------------------------------------------------------------------------------------------

def dft_make(op: str, axes: list[int], et: Type = F32, signal: list[int] | None = None, rows: int = 3) -> Make:
    """The case's shape is the transformed lengths (one per axis, after ``rows`` leading rows).
    DFT/IDFT take complex ``[..., 2]`` data, RDFT real data, IRDFT the RDFT of real data."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        full = (rows, *shape)
        axes_node = b.const(np.array(axes, np.int64))
        size = b.const(np.array(signal, np.int64)) if signal else None
        if op == "IRDFT":
            real = b.rng.uniform(-1, 1, full)
            spectrum = np.fft.rfftn(real, axes=axes) / np.sqrt(np.prod([full[a] for a in axes]))
            value = S.cast(np.stack([spectrum.real, spectrum.imag], axis=-1), et)
        elif op == "RDFT":
            value = b.uniform(full, et, -1, 1)
        else:
            value = b.uniform((*full, 2), et, -1, 1)
        builder = {"DFT": opset.dft, "IDFT": opset.idft, "RDFT": opset.rdft, "IRDFT": opset.irdft}[op]
        return builder(b.param("data", value, et), axes_node, size)

    return make


def dft_recipe(op: str, version: int) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        for n in (*S.REMAINDERS, 64, 128):
            depth = S.remainder_depth(n) if n in S.REMAINDERS else Depth.STANDARD
            signal = [n] if op == "IRDFT" and n % 2 else None  # an odd inverse length is stated
            yield stim(op, version, f"n{n}", dft_make(op, [1], signal=signal), (n,), depth=depth)
        yield stim(op, version, "2d-17x65", dft_make(op, [1, 2], signal=[17, 65] if op == "IRDFT" else None),
                   (17, 65))
        if op != "IRDFT":
            yield stim(op, version, "pad-n65-to72", dft_make(op, [1], signal=[72]), (65,))
            yield stim(op, version, "crop-n65-to33", dft_make(op, [1], signal=[33]), (65,))
        yield stim(op, version, "n4096", dft_make(op, [1], rows=16), (4096,), size="large", values="long-reduction")
        for et in (Type.f16, Type.bf16, Type.f64):
            signal = [65] if op == "IRDFT" else None
            yield stim(op, version, f"{et.name}-n65", dft_make(op, [1], et, signal), (65,), et=et,
                       depth=type_depth(et))
        if op != "IRDFT":  # IRDFT's output length follows its input's only for even lengths
            yield stim(op, version, "dynamic", dft_make(op, [1]), (7,), shapes=((7,), (65,), (129,)))
        else:
            yield stim(op, version, "dynamic", dft_make(op, [1]), (8,), shapes=((8,), (64,), (130,)))

    return recipe


for _op, _version, _kind in CELLS:
    S.register_stimuli(_op, _version)(cell_recipe(_op, _version, _kind))
for _op, _kind in SEQUENCES:
    S.register_stimuli(_op, 5)(sequence_recipe(_op, _kind))
for _op, _version in (("DFT", 7), ("IDFT", 7), ("RDFT", 9), ("IRDFT", 9)):
    S.register_stimuli(_op, _version)(dft_recipe(_op, _version))
