"""Case strategies of the sequence ops (OpenVINO's op-spec folder "sequence"): RNNCell-1,
GRUCell-3, LSTMCell-1, LSTMCell-4, RNNSequence-5, GRUSequence-5, LSTMSequence-5,
CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, CTCLoss-4, OneHot-1/16 and
ScaledDotProductAttention-13.

Recurrent cells and sequences: sizes stay small (batch 1..3, input_size 1..4, hidden_size 1..4,
seq_length 1..4), so K (the terms of a gate's sums) stays below the accumulating tolerance's
default 64. Data and states are in [-2, 2], weights and biases in [-1, 1]; activations are the
defaults half of the time, otherwise any of sigmoid/tanh/relu per slot; ``clip`` is 0 (off) or in
[0.5, 3]. GRU draws ``linear_before_reset``. GRUCell-3 and LSTMCell-1 always have ``B`` (optional
in their specs, but OpenVINO's read_model adds a zero ``B`` Constant where it is absent, so the IR
round trip would differ; REFERENCE's zero default is unit-tested). LSTMCell-1 keeps OpenVINO's
extensions beyond its spec at their defaults (no peepholes ``P``, ``input_forget`` false,
``weights_format`` fico): the spec does not define them and OpenVINO CPU ignores them. Sequences
draw every direction and lengths in [1, seq_length] per batch element (a length of 0 is left out:
the spec's "last output value of hidden state" does not exist then; OpenVINO CPU returns zeros,
REFERENCE the initial state). X and the states are Parameters; W, R, B and the sequence lengths
are Constants about half of the time.

CTC decoders: scores all different (so the arg-max has no ties), sequence masks a run of ones
followed by zeros, sequence lengths in [1, T], ``blank_index`` in [0, C). CTCLoss: logits [N, T,
C] (N 1..3, T 1..6, C 2..5) of f32 or f16 in [-3, 3]; lengths, labels and the optional blank index
(a Constant; absent means C - 1) share one integer type (i32/i64). Every logit length is in [1, T]
and every label length in [1, logit length] (OpenVINO CPU crashes on a label length of 0); labels
avoid the blank class (the spec does not say what a blank label means). The three flags are drawn
freely; label sequences that no alignment fits give +inf.

OneHot on/off values are Constants; depth is a Constant or (sometimes) a Parameter — never with
scalar indices, where OpenVINO CPU cannot compile a Parameter depth.

ScaledDotProductAttention: every row of a boolean mask keeps at least one True (a row masked
everywhere is 0/0); float masks are finite.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import AXES_TYPES, FLOATS, CaseBuilder, Draw, draw_seed, draw_shape
from ovconform.opset._sequence import ACTIVATION_NAMES, DEFAULT_ACTIVATIONS, DIRECTIONS, GATES

NOTE = ('Sizes stay small (batch 1..3, input_size 1..4, hidden_size 1..4, seq_length 1..4), so K (the '
        "terms\nof a gate's sums) stays below the accumulating tolerance's default 64. Data and states are "
        'in\n[-2, 2], weights and biases in [-1, 1]; activations are the defaults half of the time, '
        'otherwise\nany of sigmoid/tanh/relu per slot; ``clip`` is 0 (off) or in [0.5, 3]. GRU draws\n'
        '``linear_before_reset``. GRUCell-3 and LSTMCell-1 always have ``B`` (optional in their specs, '
        "but\nOpenVINO's read_model adds a zero ``B`` Constant where it is absent, so the IR round trip "
        "would\ndiffer; REFERENCE's zero default is unit-tested). LSTMCell-1 keeps OpenVINO's extensions "
        'beyond its spec at their\ndefaults (no peepholes ``P``, ``input_forget`` false, '
        '``weights_format`` fico): the spec does not\ndefine them and OpenVINO CPU ignores them. Sequences '
        'draw every direction and lengths in [1, seq_length] per batch element (a length of 0\nis left '
        'out: the spec\'s "last output value of hidden state" does not exist then; OpenVINO CPU\nreturns '
        'zeros, REFERENCE the initial state). X and the states are Parameters; W, R, B and the\nsequence '
        'lengths are Constants about half of the time.\n')


class _Draws:
    """The structure of one case: type, sizes and attributes, drawn once."""

    def __init__(self, draw: Draw[Any], kind: str, sequence: bool) -> None:
        self.draw = draw
        self.kind = kind
        self.sequence = sequence
        self.et: Type = draw(st.sampled_from(FLOATS))
        self.batch = draw(st.integers(1, 3))
        self.input_size = draw(st.integers(1, 4))
        self.hidden = draw(st.integers(1, 4))
        self.steps = draw(st.integers(1, 4)) if sequence else 1
        self.direction = draw(st.sampled_from(DIRECTIONS)) if sequence else "forward"
        self.num_dir = 2 if self.direction == "bidirectional" else 1
        defaults = DEFAULT_ACTIVATIONS[kind]
        self.activations = defaults if draw(st.booleans()) else [
            draw(st.sampled_from(ACTIVATION_NAMES)) for _ in defaults]
        self.clip = 0.0 if draw(st.booleans()) else draw(st.sampled_from((0.5, 1.0, 1.5, 3.0)))
        self.lbr = kind == "GRU" and draw(st.booleans())
        self.b = CaseBuilder(draw_seed(draw))

    def weight(self, name: str, shape: list[int]) -> Node:
        return self.b.input(name, self.b.uniform(shape, self.et, -1, 1), self.draw(st.booleans()))

    def weights(self) -> tuple[Node, Node, Node]:
        """``W``, ``R`` and ``B``, drawn in that order."""
        gates = GATES[self.kind] * self.hidden
        bias = (4 if self.lbr else GATES[self.kind]) * self.hidden
        lead = [self.num_dir] if self.sequence else []
        return (self.weight("W", [*lead, gates, self.input_size]), self.weight("R", [*lead, gates, self.hidden]),
                self.weight("B", [*lead, bias]))

    def data(self, name: str, shape: list[int]) -> Node:
        return self.b.param(name, self.b.uniform(shape, self.et, -2, 2))

    def attrs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"activations": self.activations, "clip": self.clip}
        if self.kind == "GRU":
            out["linear_before_reset"] = self.lbr
        return out


def _cell(draw: Draw[Any], kind: str) -> tuple[_Draws, list[Node], tuple[Node, Node, Node]]:
    """The draws, the data inputs ``X``, ``H`` (and ``C`` for LSTM) and the weights ``W``, ``R``, ``B``."""
    d = _Draws(draw, kind, sequence=False)
    states = [d.data("X", [d.batch, d.input_size]), d.data("H", [d.batch, d.hidden])]
    if kind == "LSTM":
        states.append(d.data("C", [d.batch, d.hidden]))
    return d, states, d.weights()


@register_case("RNNCell", 1)
def case_rnn_cell(draw: Draw[Any]) -> OpCase:
    d, (x, h), (w, r, bias) = _cell(draw, "RNN")
    return d.b.finish("RNNCell", 1, opset.rnn_cell(x, h, w, r, bias, d.hidden, **d.attrs()), NOTE)


@register_case("GRUCell", 3)
def case_gru_cell(draw: Draw[Any]) -> OpCase:
    d, (x, h), (w, r, bias) = _cell(draw, "GRU")
    return d.b.finish("GRUCell", 3, opset.gru_cell(x, h, w, r, bias, d.hidden, **d.attrs()), NOTE)


@register_case("LSTMCell", 4)
def case_lstm_cell_4(draw: Draw[Any]) -> OpCase:
    d, (x, h, c), (w, r, bias) = _cell(draw, "LSTM")
    return d.b.finish("LSTMCell", 4, opset.lstm_cell(x, h, c, w, r, bias, d.hidden, **d.attrs()), NOTE)


@register_case("LSTMCell", 1)
def case_lstm_cell_1(draw: Draw[Any]) -> OpCase:
    d, (x, h, c), (w, r, bias) = _cell(draw, "LSTM")
    node = opset.lstm_cell(x, h, c, w, r, bias, d.hidden, **d.attrs(), version=1)
    return d.b.finish("LSTMCell", 1, node, NOTE)


def _sequence(draw: Draw[Any], kind: str) -> tuple[_Draws, list[Node], Node, tuple[Node, Node, Node]]:
    """The draws, the data inputs ``X``, ``H`` (and ``C`` for LSTM), ``sequence_lengths`` and the
    weights ``W``, ``R``, ``B``."""
    d = _Draws(draw, kind, sequence=True)
    states = [d.data("X", [d.batch, d.steps, d.input_size]), d.data("H", [d.batch, d.num_dir, d.hidden])]
    if kind == "LSTM":
        states.append(d.data("C", [d.batch, d.num_dir, d.hidden]))
    lengths_type = draw(st.sampled_from((Type.i32, Type.i64)))
    lengths = d.b.integers([d.batch], lengths_type, 1, d.steps)
    seq_lengths = d.b.input("sequence_lengths", lengths, draw(st.booleans()))
    return d, states, seq_lengths, d.weights()


@register_case("RNNSequence", 5)
def case_rnn_sequence(draw: Draw[Any]) -> OpCase:
    d, (x, h), lengths, (w, r, bias) = _sequence(draw, "RNN")
    node = opset.rnn_sequence(x, h, lengths, w, r, bias, d.hidden, d.direction, **d.attrs())
    return d.b.finish("RNNSequence", 5, node, NOTE)


@register_case("GRUSequence", 5)
def case_gru_sequence(draw: Draw[Any]) -> OpCase:
    d, (x, h), lengths, (w, r, bias) = _sequence(draw, "GRU")
    node = opset.gru_sequence(x, h, lengths, w, r, bias, d.hidden, d.direction, **d.attrs())
    return d.b.finish("GRUSequence", 5, node, NOTE)


@register_case("LSTMSequence", 5)
def case_lstm_sequence(draw: Draw[Any]) -> OpCase:
    d, (x, h, c), lengths, (w, r, bias) = _sequence(draw, "LSTM")
    node = opset.lstm_sequence(x, h, c, lengths, w, r, bias, d.hidden, d.direction, **d.attrs())
    return d.b.finish("LSTMSequence", 5, node, NOTE)


def _scores(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    return b.distinct(shape, et, 1 / 64)  # multiples of 1/64 up to +-4: exact and all different in f16


@register_case("CTCGreedyDecoder", 1)
def case_ctc_greedy_decoder(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    time, batch, classes = draw(st.integers(1, 6)), draw(st.integers(1, 3)), draw(st.integers(2, 5))
    lengths = draw(st.lists(st.integers(1, time), min_size=batch, max_size=batch))
    mask = (np.arange(time)[:, None] < np.array(lengths)[None, :]).astype(et.to_dtype())
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", _scores(b, (time, batch, classes), et))
    seq = b.param("seq_indicators", mask)
    return b.finish("CTCGreedyDecoder", 1, opset.ctc_greedy_decoder(data, seq, draw(st.booleans())))


@register_case("CTCGreedyDecoderSeqLen", 6)
def case_ctc_greedy_decoder_seq_len(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    it = draw(st.sampled_from((Type.i32, Type.i64)))
    batch, time, classes = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(2, 5))
    lengths = np.array(draw(st.lists(st.integers(1, time), min_size=batch, max_size=batch)))
    blank = draw(st.one_of(st.none(), st.integers(0, classes - 1)))
    attrs = {"merge_repeated": draw(st.booleans()), "classes_index_type": draw(st.sampled_from(("i32", "i64"))),
             "sequence_length_type": draw(st.sampled_from(("i32", "i64")))}
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", _scores(b, (batch, time, classes), et))
    seq = b.param("sequence_length", lengths.astype(it.to_dtype()))
    blank_node = None
    if blank is not None:
        blank_node = b.const(np.array(blank if draw(st.booleans()) else [blank]), it)
    node = opset.ctc_greedy_decoder_seq_len(data, seq, blank_node, **attrs)
    return b.finish("CTCGreedyDecoderSeqLen", 6, node)


@register_case("CTCLoss", 4)
def case_ctc_loss(draw: Draw[Any]) -> OpCase:
    et, it = draw(st.sampled_from(FLOATS)), draw(st.sampled_from((Type.i32, Type.i64)))
    n, t, c = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(2, 5))
    explicit_blank = draw(st.booleans())
    blank = draw(st.integers(0, c - 1)) if explicit_blank else c - 1
    flags = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    dtype = it.to_dtype()
    logit_length = b.rng.integers(1, t + 1, n)
    label_length = np.array([b.rng.integers(1, length + 1) for length in logit_length])
    classes = np.array([k for k in range(c) if k != blank])
    labels = classes[b.rng.integers(0, classes.size, (n, t))]
    logits = b.param("logits", b.uniform((n, t, c), et, -3, 3))
    logit_node, labels_node, label_node = [b.param(name, value.astype(dtype)) for name, value in
                                           (("logit_length", logit_length), ("labels", labels),
                                            ("label_length", label_length))]
    blank_node = b.const(np.array(blank, dtype)) if explicit_blank else None
    return b.finish("CTCLoss", 4, opset.ctc_loss(logits, logit_node, labels_node, label_node, blank_node, *flags))


ONE_HOT_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.i8, Type.u8)


def _one_hot(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        shape = draw_shape(draw, min_rank=0, max_rank=3)
        depth = draw(st.integers(1, 5))
        axis = draw(st.integers(-len(shape) - 1, len(shape)))
        idx_t, out_t = draw(st.sampled_from(AXES_TYPES)), draw(st.sampled_from(ONE_HOT_TYPES))
        mode = draw(st.sampled_from(("ignore_negative", "normalize"))) if version == 16 else None
        depth_param = bool(shape) and draw(st.integers(0, 3)) == 0  # CPU: no Parameter depth for scalar indices
        b = CaseBuilder(draw_seed(draw))
        indices = b.param("indices", b.integers(shape, idx_t, -depth - 1, depth))
        depth_node = b.input("depth", np.array(depth, draw(st.sampled_from(AXES_TYPES)).to_dtype()), not depth_param)
        on = b.const(np.array(draw(st.integers(-5, 9)), out_t.to_dtype()) if out_t != Type.u8
                     else np.array(7, np.uint8))
        off = b.const(np.array(draw(st.integers(0, 3)), out_t.to_dtype()))
        node = opset.one_hot(indices, depth_node, on, off, axis, mode, version=version)
        return b.finish("OneHot", version, node)

    build.__name__ = f"case_one_hot_{version}"
    register_case("OneHot", version)(build)


for _v in (1, 16):
    _one_hot(_v)


def _mask_shape(draw: Draw[Any], batch: tuple[int, ...], length: int, s_len: int) -> tuple[int, ...]:
    kind = draw(st.sampled_from(("2d", "full", "broadcast")))
    if kind == "2d":
        return (length, s_len)
    if kind == "full":
        return (*batch, length, s_len)
    return (*(1 if draw(st.booleans()) else d for d in batch), 1 if draw(st.integers(0, 3)) == 0 else length, s_len)


@register_case("ScaledDotProductAttention", 13)
def case_sdpa(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    batch = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(1, 2))))
    length, s_len, e, ev = (draw(st.integers(1, 5)) for _ in range(4))
    causal = draw(st.booleans())
    mask_kind = draw(st.sampled_from(("none", "boolean", "float")))
    scale_kind = draw(st.sampled_from(("none", "param", "const")))
    qb, kb, vb = (tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in batch) for _ in range(3))
    batch = tuple(np.broadcast_shapes(qb, kb, vb))  # query, key and value batch dims broadcast
    b = CaseBuilder(draw_seed(draw))
    q = b.param("query", b.uniform((*qb, length, e), et, -2, 2))
    k = b.param("key", b.uniform((*kb, s_len, e), et, -2, 2))
    v = b.param("value", b.uniform((*vb, s_len, ev), et, -2, 2))
    mask = None
    if mask_kind != "none" or scale_kind != "none":
        shape = _mask_shape(draw, batch, length, s_len)
        if mask_kind == "boolean":
            m = b.rng.random(shape) < 0.6
            m[..., b.rng.integers(0, s_len)] = True  # every row keeps at least one position
            mask = b.param("attention_mask", m)
        else:
            mask = b.param("attention_mask", b.uniform(shape, et, -2, 2) if mask_kind == "float"
                           else np.zeros(shape, et.to_dtype()))
    scale = None
    if scale_kind != "none":
        value = b.uniform((), et, 0.1, 1.5)
        scale = b.input("scale", value, scale_kind == "const")
    node = opset.scaled_dot_product_attention(q, k, v, mask, scale, causal)
    return b.finish("ScaledDotProductAttention", 13, node, "boolean masks keep one True per row.")
