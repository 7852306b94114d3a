"""Cell math shared by the recurrent kernels (RNNCell, GRUCell, LSTMCell and their Sequence forms).

Notation of the specs: ``*`` is a matrix product, ``(.)`` elementwise; ``f``, ``g``, ``h`` are the
``activations`` (``sigmoid``, ``tanh`` or ``relu``). With ``clip > 0`` every gate's pre-activation is
clipped to ``[-clip, clip]`` before its activation (the cell state is not). Gate orders:

* RNN:  ``Ht = f(Xt*W^T + Ht-1*R^T + B)``.
* GRU (``zrh``): ``zt = f(Xt*Wz^T + Ht-1*Rz^T + Wbz + Rbz)``, ``rt`` likewise; without
  ``linear_before_reset`` ``ht = g(Xt*Wh^T + (rt (.) Ht-1)*Rh^T + Rbh + Wbh)``, with it
  ``ht = g(Xt*Wh^T + rt (.) (Ht-1*Rh^T + Rbh) + Wbh)`` (``B`` then holds 4 blocks: z, r, Wbh, Rbh);
  ``Ht = (1 - zt) (.) ht + zt (.) Ht-1``.
* LSTM (``fico``): ``ft = f(..)``, ``it = f(..)``, ``ct = g(..)``, ``ot = f(..)``,
  ``Ct = ft (.) Ct-1 + it (.) ct``, ``Ht = ot (.) h(Ct)``; LSTMCell-1 adds peepholes
  ``P = [Pi, Po, Pf]`` (``it`` and ``ft`` see ``P (.) Ct-1``, ``ot`` sees ``Po (.) Ct``) and
  ``input_forget`` (``ft = 1 - it``).

Everything computes in float64 and the kernels round once to the output type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node, Type
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute

Activation = Callable[[np.ndarray], np.ndarray]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # stable for any x


ACTIVATIONS: dict[str, Activation] = {"sigmoid": _sigmoid, "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


def activation(name: str) -> Activation:
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise InferError(f"activation {name!r} is not supported; allowed: {', '.join(ACTIVATIONS)}.") from None


@dataclass(frozen=True)
class CellSpec:
    """What one cell type needs besides its weights: activations, clip and the GRU/LSTM options."""

    acts: tuple[Activation, ...]
    clip: float
    linear_before_reset: bool = False
    input_forget: bool = False

    def gate(self, pre: np.ndarray, index: int) -> np.ndarray:
        if self.clip > 0:
            pre = np.clip(pre, -self.clip, self.clip)
        return self.acts[index](pre)


def _split(a: np.ndarray, n: int) -> list[np.ndarray]:
    return np.split(a, n, axis=-1)


def rnn_step(spec: CellSpec, x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray,
             b: np.ndarray) -> np.ndarray:
    """One RNN step over a batch: ``x [N, I]``, ``h [N, H]``, ``w [H, I]``, ``r [H, H]``, ``b [H]``."""
    return spec.gate(x @ w.T + h @ r.T + b, 0)


def gru_step(spec: CellSpec, x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray,
             b: np.ndarray) -> np.ndarray:
    """One GRU step: ``w [3H, I]``, ``r [3H, H]``, ``b [3H]`` (``[4H]`` with linear_before_reset)."""
    xw = x @ w.T
    wz, wr, wh = _split(xw, 3)
    rz, rr, rh = np.split(r, 3, axis=0)
    if spec.linear_before_reset:
        bz, br, bwh, brh = _split(b, 4)
        rt = spec.gate(wr + h @ rr.T + br, 0)
        cand = spec.gate(wh + rt * (h @ rh.T + brh) + bwh, 1)
    else:
        bz, br, bh = _split(b, 3)
        rt = spec.gate(wr + h @ rr.T + br, 0)
        cand = spec.gate(wh + (rt * h) @ rh.T + bh, 1)
    z = spec.gate(wz + h @ rz.T + bz, 0)
    return (1.0 - z) * cand + z * h


def lstm_step(spec: CellSpec, x: np.ndarray, h: np.ndarray, c: np.ndarray, w: np.ndarray, r: np.ndarray,
              b: np.ndarray, p: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One LSTM step with ``fico`` weights ``w [4H, I]``, ``r [4H, H]``, ``b [4H]``; peepholes
    ``p [3H]`` (``iof``) or None."""
    pre_f, pre_i, pre_c, pre_o = _split(x @ w.T + h @ r.T + b, 4)
    pi, po, pf = _split(p, 3) if p is not None else (0.0, 0.0, 0.0)
    i = spec.gate(pre_i + pi * c, 0)
    f = 1.0 - i if spec.input_forget else spec.gate(pre_f + pf * c, 0)
    c_new = f * c + i * spec.gate(pre_c, 1)
    o = spec.gate(pre_o + po * c_new, 0)
    return o * spec.acts[2](c_new), c_new


#: A step over a batch: (x, h, c, w, r, b) -> (h, c); c is None for RNN/GRU.
Step = Callable[[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray],
                tuple[np.ndarray, np.ndarray | None]]


def run_direction(step: Step, x: np.ndarray, h0: np.ndarray, c0: np.ndarray | None, lengths: np.ndarray,
                  w: np.ndarray, r: np.ndarray, b: np.ndarray,
                  reverse: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One direction of a Sequence op: ``x [N, T, I]``, ``h0``/``c0 [N, H]``, ``lengths [N]``.

    Batch element ``n`` runs ``lengths[n]`` steps (forward: ``t = 0 .. L-1``; reverse: ``t = L-1 .. 0``);
    ``Y[n, t]`` is the hidden state computed at time ``t`` and 0 for ``t >= L``; the final states are
    those after the last step (the initial ones when ``L = 0``).
    """
    n, steps = x.shape[0], x.shape[1]
    hidden = h0.shape[-1]
    y = np.zeros((n, steps, hidden))
    h, c = h0, c0
    rows = np.arange(n)
    for s in range(steps):
        active = s < lengths
        t = np.where(active, lengths - 1 - s, 0) if reverse else np.full(n, s)
        h_new, c_new = step(x[rows, t], h, c, w, r, b)
        h = np.where(active[:, None], h_new, h)
        if c is not None and c_new is not None:
            c = np.where(active[:, None], c_new, c)
        y[rows[active], t[active]] = h[active]
    return y, h, c


def sequence_lengths(values: np.ndarray, batch: int, steps: int) -> np.ndarray:
    """The ``sequence_lengths`` input as int64, each in ``[0, steps]`` (InferError otherwise)."""
    lengths = np.asarray(values).astype(np.int64).reshape(-1)
    if lengths.shape != (batch,):
        raise InferError(f"sequence_lengths has shape {list(np.shape(values))}; expected [{batch}] (the batch).")
    bad = lengths[(lengths < 0) | (lengths > steps)]
    if bad.size:
        raise InferError(f"sequence_lengths holds {bad.tolist()}; each length must be in [0, {steps}] "
                         f"(the sequence length).")
    return lengths


def directions(direction: str) -> Sequence[bool]:
    """``reverse`` flags of the directions, in output order."""
    return {"forward": (False,), "reverse": (True,), "bidirectional": (False, True)}[direction]


# -- the kernel base ---------------------------------------------------------------------------------------------

class RecurrentOp(OpRun):
    """Reads the attributes every recurrent op has; converts inputs to float64 and outputs back."""

    kind = "RNN"

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t: Type = self.in_types[0]
        self.hidden: int = self.attr("hidden_size")
        names = self.attr("activations")
        self.spec = CellSpec(tuple(activation(n) for n in names), float(self.attr("clip")),
                             bool(node.attrs.get("linear_before_reset", False)),
                             bool(node.attrs.get("input_forget", False)))

    def f64(self, arr: np.ndarray) -> np.ndarray:
        return to_compute(arr, self.t).astype(np.float64)

    def out(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        return tuple(from_compute(a, self.out_types[i]) for i, a in enumerate(arrays))

    def step(self) -> Step:
        """The cell step of this op as a :data:`Step`."""
        spec = self.spec
        if self.kind == "LSTM":
            return lambda x, h, c, w, r, b: lstm_step(spec, x, h, c, w, r, b)  # type: ignore[arg-type]
        fn = rnn_step if self.kind == "RNN" else gru_step
        return lambda x, h, c, w, r, b: (fn(spec, x, h, w, r, b), None)


class SequenceOp(RecurrentOp):
    """RNNSequence-5, GRUSequence-5, LSTMSequence-5: each direction runs :func:`run_direction`."""

    def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        has_cell = self.kind == "LSTM"
        x, h0 = self.f64(inputs[0]), self.f64(inputs[1])
        c0 = self.f64(inputs[2]) if has_cell else None
        rest = inputs[3:] if has_cell else inputs[2:]
        lengths = sequence_lengths(rest[0], x.shape[0], x.shape[1])
        w, r, b = (self.f64(a) for a in rest[1:])
        ys, hs, cs = [], [], []
        for d, reverse in enumerate(directions(self.attr("direction"))):
            y, h, c = run_direction(self.step(), x, h0[:, d], None if c0 is None else c0[:, d], lengths,
                                    w[d], r[d], b[d], reverse)
            ys.append(y)
            hs.append(h)
            cs.append(c)
        outs = [np.stack(ys, axis=1), np.stack(hs, axis=1)]
        if has_cell:
            outs.append(np.stack(cs, axis=1))  # type: ignore[arg-type]
        return self.out(*outs)
