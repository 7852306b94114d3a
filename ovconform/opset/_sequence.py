"""Sequence ops (OpenVINO's op-spec folder "sequence"): the recurrent cells and sequences
RNNCell-1, GRUCell-3, LSTMCell-1, LSTMCell-4, RNNSequence-5, GRUSequence-5 and LSTMSequence-5;
CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, CTCLoss-4, OneHot-1/16 and
ScaledDotProductAttention-13.

RNNCell is ``ov::op::v0::RNNCell``, written ``version="opset1"`` in IR, so its version here is 1
(OpenVINO's Python API first exposes it in opset3). LSTMSequence-1 (``v0``) is in no opset of
OpenVINO 2026.4 (``read_model``: "Opset opset1 doesn't contain the operation with type:
LSTMSequence"), so it is not defined.

Cells: ``X [batch, input_size]``, ``initial_hidden_state [batch, hidden_size]`` (LSTM also
``initial_cell_state``), ``W [gates * hidden_size, input_size]``, ``R [gates * hidden_size,
hidden_size]``, ``B [gates * hidden_size]`` with gates 1 (RNN), 3 (GRU, ``zrh``; ``B`` has 4 blocks
with ``linear_before_reset``) or 4 (LSTM, ``fico``). LSTMCell-1 takes optional peepholes
``P [3 * hidden_size]`` and has ``input_forget`` and ``weights_format``. Outputs ``Ho`` (and ``Co``)
``[batch, hidden_size]``. ``B`` is optional in GRUCell-3 and LSTMCell-1 (zero biases when absent).

Sequences: ``X [batch, seq_length, input_size]``, states ``[batch, num_directions, hidden_size]``,
``sequence_lengths [batch]`` (integer), ``W``/``R``/``B`` with a leading ``num_directions`` (2 for
``bidirectional``, else 1). Outputs ``Y [batch, num_directions, seq_length, hidden_size]``, ``Ho``
(and ``Co``) ``[batch, num_directions, hidden_size]``.

``activations`` are 1, 2 or 3 of ``sigmoid``, ``tanh``, ``relu`` (defaults ``tanh``; ``sigmoid, tanh``;
``sigmoid, tanh, tanh``); ``activations_alpha``/``activations_beta`` are kept (none of these
activations uses them); ``clip`` >= 0 (0: no clipping).

CTCGreedyDecoder has ``ctc_merge_repeated``; CTCGreedyDecoderSeqLen ``merge_repeated``,
``classes_index_type``, ``sequence_length_type``. CTCLoss-4: ``logits`` [N, T, C]
(floating-point), ``logit_length`` [N], ``labels`` [N, T], ``label_length`` [N] and optionally
``blank_index`` (a scalar; default C - 1), all of one integer type (i32 or i64); output [N] of the
logits' type; attributes ``preprocess_collapse_repeated``, ``ctc_merge_repeated``, ``unique``.
OneHot-1 has ``axis``, OneHot-16 also ``negative_indices_mode`` (``ignore_negative`` /
``normalize``); its output shape depends on ``depth``: exact when known at build time, dynamic
otherwise. ScaledDotProductAttention-13: query ``[..., L, E]``, key ``[..., S, E]``, value
``[..., S, Ev]`` and optional attention_mask (boolean or the query type, broadcastable to
``[..., L, S]``) and scale (a scalar); output ``[..., L, Ev]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, as_type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, broadcast_shapes, normalize_axis, require
from ovconform.opset._inputs import (
    INDEX_TYPES,
    Infer,
    InferFn,
    _const_ints,
    _integer,
    _scalar_like,
    index_input,
    merge_dim,
    require_integer,
    require_rank,
)

__all__ = [
    "ctc_greedy_decoder", "ctc_greedy_decoder_seq_len", "ctc_loss", "gru_cell", "gru_sequence", "lstm_cell",
    "lstm_sequence", "one_hot", "rnn_cell", "rnn_sequence", "scaled_dot_product_attention",
]

ACTIVATION_NAMES = ("sigmoid", "tanh", "relu")
DIRECTIONS = ("forward", "reverse", "bidirectional")
WEIGHTS_FORMATS = ("fico", "icof", "ifco", "ifoc", "iofc")
DEFAULT_ACTIVATIONS = {"RNN": ["tanh"], "GRU": ["sigmoid", "tanh"], "LSTM": ["sigmoid", "tanh", "tanh"]}
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _common_attrs(kind: str) -> list[AttrSpec]:
    return [AttrSpec("hidden_size", "int"), AttrSpec("activations", "strs", DEFAULT_ACTIVATIONS[kind]),
            AttrSpec("activations_alpha", "floats", []), AttrSpec("activations_beta", "floats", []),
            AttrSpec("clip", "float", 0.0)]


_DIRECTION = AttrSpec("direction", "str", choices=DIRECTIONS)
_LBR = AttrSpec("linear_before_reset", "bool", False)


@dataclass(frozen=True)
class _Layout:
    """Input ports of one op: which holds what, and the expected shape in symbolic dims."""

    kind: str  # RNN, GRU, LSTM
    sequence: bool
    has_cell: bool
    peepholes: bool = False


def _check_attrs(node: Node, kind: str) -> int:
    attrs = node.attrs
    hidden = attrs["hidden_size"]
    require(hidden > 0, f"attribute 'hidden_size'={hidden} must be positive.")
    acts = attrs["activations"]
    want = len(DEFAULT_ACTIVATIONS[kind])
    require(len(acts) == want, f"attribute 'activations'={acts} must list {want} activation(s) for a {kind} cell.")
    bad = [a for a in acts if a not in ACTIVATION_NAMES]
    require(not bad, f"attribute 'activations'={acts} holds {bad}; allowed: {', '.join(ACTIVATION_NAMES)}.")
    require(attrs["clip"] >= 0, f"attribute 'clip'={attrs['clip']} must be >= 0 (0 disables clipping).")
    return hidden


class _Dims:
    """Merges symbolic dimensions (batch, input_size, ...) across the inputs, naming conflicts."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.dims: dict[str, Dimension] = {}

    def fix(self, name: str, value: int) -> None:
        self.dims[name] = Dimension(value)

    def shape(self, port: int, what: str, names: Sequence[str | int]) -> None:
        shape = self.node.get_input_partial_shape(port)
        if not shape.has_rank():
            return
        require(len(shape) == len(names), f"{what} shape {shape} must have rank {len(names)} "
                                          f"([{', '.join(map(str, names))}]).")
        for d, name in zip(shape, names, strict=True):
            key = str(name)
            want = self.dims.get(key, Dimension.dynamic())
            merged = want.merge(d)
            require(merged is not None, f"{what} shape {shape}: dimension {name} is {d}, but other inputs "
                                        f"give {want}.")
            assert merged is not None
            self.dims[key] = merged

    def __getitem__(self, name: str) -> Dimension:
        return self.dims.get(name, Dimension.dynamic())


def _infer(node: Node, layout: _Layout) -> list[tuple[Type, PartialShape]]:
    hidden = _check_attrs(node, layout.kind)
    gates = GATES[layout.kind]
    count = node.get_input_size()
    float_ports = [i for i in range(count) if not (layout.sequence and i == (3 if layout.has_cell else 2))]
    et = node.get_input_element_type(0)
    require(et.is_real(), f"X element type {et} is not allowed; it must be a floating-point type.")
    types = {i: node.get_input_element_type(i) for i in float_ports}
    require(all(t == et for t in types.values()),
            f"X, the states, W, R and B must share one element type; got {[str(t) for t in types.values()]}.")
    d = _Dims(node)
    d.fix("hidden_size", hidden)
    bias_blocks = 4 if layout.kind == "GRU" and node.attrs.get("linear_before_reset") else gates
    d.fix("gates*hidden_size", gates * hidden)
    d.fix("bias_size", bias_blocks * hidden)
    if layout.sequence:
        num_dir = 2 if node.attrs["direction"] == "bidirectional" else 1
        d.fix("num_directions", num_dir)
        d.shape(0, "X", ["batch_size", "seq_length", "input_size"])
        port = 1
        d.shape(port, "initial_hidden_state", ["batch_size", "num_directions", "hidden_size"])
        if layout.has_cell:
            port += 1
            d.shape(port, "initial_cell_state", ["batch_size", "num_directions", "hidden_size"])
        lengths = port + 1
        lt = node.get_input_element_type(lengths)
        require(lt.is_integral_number(), f"sequence_lengths element type {lt} is not allowed; it must be an "
                                         "integer type.")
        d.shape(lengths, "sequence_lengths", ["batch_size"])
        d.shape(lengths + 1, "W", ["num_directions", "gates*hidden_size", "input_size"])
        d.shape(lengths + 2, "R", ["num_directions", "gates*hidden_size", "hidden_size"])
        d.shape(lengths + 3, "B", ["num_directions", "bias_size"])
        state = PartialShape([d["batch_size"], num_dir, hidden])
        y = PartialShape([d["batch_size"], num_dir, d["seq_length"], hidden])
        return [(et, y), (et, state)] + ([(et, state)] if layout.has_cell else [])
    d.shape(0, "X", ["batch_size", "input_size"])
    d.shape(1, "initial_hidden_state", ["batch_size", "hidden_size"])
    port = 2
    if layout.has_cell:
        d.shape(port, "initial_cell_state", ["batch_size", "hidden_size"])
        port += 1
    d.shape(port, "W", ["gates*hidden_size", "input_size"])
    d.shape(port + 1, "R", ["gates*hidden_size", "hidden_size"])
    if count > port + 2:
        d.shape(port + 2, "B", ["bias_size"])
    if layout.peepholes and count > port + 3:
        d.fix("3*hidden_size", 3 * hidden)
        d.shape(port + 3, "P", ["3*hidden_size"])
    state = PartialShape([d["batch_size"], hidden])
    return [(et, state)] + ([(et, state)] if layout.has_cell else [])


def _definer(layout: _Layout) -> InferFn:
    def infer(node: Node) -> list[tuple[Type, PartialShape]]:
        return _infer(node, layout)

    return infer


define_op("RNNCell", 1, inputs=5, attrs=_common_attrs("RNN"))(_definer(_Layout("RNN", False, False)))
define_op("GRUCell", 3, inputs=(4, 5), attrs=[_LBR, *_common_attrs("GRU")])(_definer(_Layout("GRU", False, False)))
define_op("LSTMCell", 1, inputs=(5, 7),
          attrs=[*_common_attrs("LSTM"), AttrSpec("input_forget", "bool", False),
                 AttrSpec("weights_format", "str", "fico", WEIGHTS_FORMATS)])(
    _definer(_Layout("LSTM", False, True, peepholes=True)))
define_op("LSTMCell", 4, inputs=6, attrs=_common_attrs("LSTM"))(_definer(_Layout("LSTM", False, True)))
define_op("RNNSequence", 5, inputs=6, attrs=[_DIRECTION, *_common_attrs("RNN")])(_definer(_Layout("RNN", True, False)))
define_op("GRUSequence", 5, inputs=6, attrs=[_DIRECTION, _LBR, *_common_attrs("GRU")])(
    _definer(_Layout("GRU", True, False)))
define_op("LSTMSequence", 5, inputs=7, attrs=[_DIRECTION, *_common_attrs("LSTM")])(
    _definer(_Layout("LSTM", True, True)))


# -- builders -------------------------------------------------------------------------------------------------

def _attrs(kind: str, hidden_size: int, activations: Sequence[str] | None, alpha: Sequence[float] | None,
           beta: Sequence[float] | None, clip: float) -> dict[str, Any]:
    return {"hidden_size": hidden_size,
            "activations": list(activations) if activations is not None else DEFAULT_ACTIVATIONS[kind],
            "activations_alpha": list(alpha or []), "activations_beta": list(beta or []), "clip": clip}


def _direction(direction: str) -> str:
    return direction.lower() if isinstance(direction, str) else direction


def rnn_cell(X: NodeInput, initial_hidden_state: NodeInput, W: NodeInput, R: NodeInput, B: NodeInput,  # noqa: N803
             hidden_size: int, activations: Sequence[str] | None = None,
             activations_alpha: Sequence[float] | None = None, activations_beta: Sequence[float] | None = None,
             clip: float = 0.0, name: str | None = None) -> Node:
    """RNNCell-1: ``Ho = f(X*W^T + H*R^T + B)`` (``f`` = ``tanh`` by default)."""
    inputs = [as_output(v) for v in (X, initial_hidden_state, W, R, B)]
    return make_node("RNNCell", 1, inputs, _attrs("RNN", hidden_size, activations, activations_alpha,
                                                  activations_beta, clip), name)


def gru_cell(X: NodeInput, initial_hidden_state: NodeInput, W: NodeInput, R: NodeInput,  # noqa: N803
             B: NodeInput | None,  # noqa: N803
             hidden_size: int, activations: Sequence[str] | None = None,
             activations_alpha: Sequence[float] | None = None, activations_beta: Sequence[float] | None = None,
             clip: float = 0.0, linear_before_reset: bool = False, name: str | None = None) -> Node:
    """GRUCell-3 (gates ``zrh``; ``B`` has 4 blocks with ``linear_before_reset``; None: zero biases)."""
    inputs = [as_output(v) for v in (X, initial_hidden_state, W, R, B) if v is not None]
    attrs = {"linear_before_reset": linear_before_reset,
             **_attrs("GRU", hidden_size, activations, activations_alpha, activations_beta, clip)}
    return make_node("GRUCell", 3, inputs, attrs, name)


def lstm_cell(X: NodeInput, initial_hidden_state: NodeInput, initial_cell_state: NodeInput,  # noqa: N803
              W: NodeInput, R: NodeInput, B: NodeInput | None, hidden_size: int,  # noqa: N803
              activations: Sequence[str] | None = None, activations_alpha: Sequence[float] | None = None,
              activations_beta: Sequence[float] | None = None, clip: float = 0.0, name: str | None = None,
              *, P: NodeInput | None = None, input_forget: bool = False, weights_format: str = "fico",  # noqa: N803
              version: int = 4) -> Node:
    """LSTMCell-4 (gates ``fico``); ``version=1`` for LSTMCell-1, whose ``B`` may be None (zero biases)
    and which takes OpenVINO's extensions: peepholes ``P`` (``[3 * hidden_size]``, ``iof``; needs ``B``),
    ``input_forget`` and ``weights_format`` (the LSTMCell-1 spec has none of them)."""
    inputs = [as_output(v) for v in (X, initial_hidden_state, initial_cell_state, W, R)]
    attrs = _attrs("LSTM", hidden_size, activations, activations_alpha, activations_beta, clip)
    why = " when P is given." if version == 1 else " (only LSTMCell-1 may omit it)."
    require(B is not None or (version == 1 and P is None), f"LSTMCell-{version} needs B{why}")
    if B is not None:
        inputs.append(as_output(B))
    if version == 1:
        if P is not None:
            inputs.append(as_output(P))
        attrs.update(input_forget=input_forget, weights_format=weights_format)
    else:
        require(P is None and not input_forget and weights_format == "fico",
                f"LSTMCell-{version} has no peepholes, input_forget or weights_format (use version=1).")
    return make_node("LSTMCell", version, inputs, attrs, name)


def rnn_sequence(X: NodeInput, initial_hidden_state: NodeInput, sequence_lengths: NodeInput,  # noqa: N803
                 W: NodeInput, R: NodeInput, B: NodeInput, hidden_size: int, direction: str,  # noqa: N803
                 activations: Sequence[str] | None = None, activations_alpha: Sequence[float] | None = None,
                 activations_beta: Sequence[float] | None = None, clip: float = 0.0,
                 name: str | None = None) -> Node:
    """RNNSequence-5 over ``X [batch, seq_length, input_size]``; outputs ``Y``, ``Ho``."""
    inputs = [as_output(v) for v in (X, initial_hidden_state, sequence_lengths, W, R, B)]
    attrs = {"direction": _direction(direction),
             **_attrs("RNN", hidden_size, activations, activations_alpha, activations_beta, clip)}
    return make_node("RNNSequence", 5, inputs, attrs, name)


def gru_sequence(X: NodeInput, initial_hidden_state: NodeInput, sequence_lengths: NodeInput,  # noqa: N803
                 W: NodeInput, R: NodeInput, B: NodeInput, hidden_size: int, direction: str,  # noqa: N803
                 activations: Sequence[str] | None = None, activations_alpha: Sequence[float] | None = None,
                 activations_beta: Sequence[float] | None = None, clip: float = 0.0,
                 linear_before_reset: bool = False, name: str | None = None) -> Node:
    """GRUSequence-5; outputs ``Y``, ``Ho``."""
    inputs = [as_output(v) for v in (X, initial_hidden_state, sequence_lengths, W, R, B)]
    attrs = {"direction": _direction(direction), "linear_before_reset": linear_before_reset,
             **_attrs("GRU", hidden_size, activations, activations_alpha, activations_beta, clip)}
    return make_node("GRUSequence", 5, inputs, attrs, name)


def lstm_sequence(X: NodeInput, initial_hidden_state: NodeInput, initial_cell_state: NodeInput,  # noqa: N803
                  sequence_lengths: NodeInput, W: NodeInput, R: NodeInput, B: NodeInput,  # noqa: N803
                  hidden_size: int, direction: str, activations: Sequence[str] | None = None,
                  activations_alpha: Sequence[float] | None = None, activations_beta: Sequence[float] | None = None,
                  clip: float = 0.0, name: str | None = None) -> Node:
    """LSTMSequence-5; outputs ``Y``, ``Ho``, ``Co``."""
    inputs = [as_output(v) for v in (X, initial_hidden_state, initial_cell_state, sequence_lengths, W, R, B)]
    attrs = {"direction": _direction(direction),
             **_attrs("LSTM", hidden_size, activations, activations_alpha, activations_beta, clip)}
    return make_node("LSTMSequence", 5, inputs, attrs, name)


@define_op("CTCGreedyDecoder", 1, inputs=2, attrs=[AttrSpec("ctc_merge_repeated", "bool", True)])
def _infer_ctc_greedy_decoder(node: Node) -> Infer:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data (input 0) has element type {et}; CTCGreedyDecoder needs a floating-point type.")
    mask_et = node.get_input_element_type(1)
    require(mask_et == et, f"seq_indicators (input 1) has element type {mask_et}; it must match data ({et}).")
    data = require_rank(node, 0, 3, "data")
    mask = require_rank(node, 1, 2, "seq_indicators")
    time = merge_dim(data[0], mask[0], f"seq_indicators {mask} must be [T, N] for data {data} ([T, N, C]).")
    batch = merge_dim(data[1], mask[1], f"seq_indicators {mask} must be [T, N] for data {data} ([T, N, C]).")
    return [(et, PartialShape([batch, time, 1, 1]))]


def ctc_greedy_decoder(data: NodeInput, sequence_mask: NodeInput, merge_repeated: bool = True,
                       name: str | None = None) -> Node:
    """CTCGreedyDecoder-1 over ``data`` [T, N, C] and ``sequence_mask`` [T, N]: classes [N, T, 1, 1], -1 padded."""
    return make_node("CTCGreedyDecoder", 1, as_outputs(data, sequence_mask),
                     {"ctc_merge_repeated": merge_repeated}, name)


@define_op("CTCGreedyDecoderSeqLen", 6, inputs=(2, 3), attrs=[
    AttrSpec("merge_repeated", "bool", True), AttrSpec("classes_index_type", "type", Type.i32, INDEX_TYPES),
    AttrSpec("sequence_length_type", "type", Type.i32, INDEX_TYPES)])
def _infer_ctc_greedy_decoder_seq_len(node: Node) -> Infer:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data (input 0) has element type {et}; CTCGreedyDecoderSeqLen needs a floating-point "
                          "type.")
    data = require_rank(node, 0, 3, "data")
    require_integer(node, 1, "sequence_length")
    lengths = require_rank(node, 1, 1, "sequence_length")
    batch = merge_dim(data[0], lengths[0], f"sequence_length {lengths} must have N={data[0]} elements "
                                           f"(data {data} is [N, T, C]).")
    if node.get_input_size() == 3:
        require_integer(node, 2, "blank_index")
        blank = node.get_input_partial_shape(2)
        require(not blank.has_rank() or len(blank) == 0 or (len(blank) == 1 and blank[0].compatible(1)),
                f"blank_index (input 2) has shape {blank}; it must be a scalar or have one element.")
    return [(node.attrs["classes_index_type"], PartialShape([batch, data[1]])),
            (node.attrs["sequence_length_type"], PartialShape([batch]))]


def ctc_greedy_decoder_seq_len(data: NodeInput, sequence_length: NodeInput, blank_index: NodeInput | None = None,
                               merge_repeated: bool = True, classes_index_type: Any = "i32",
                               sequence_length_type: Any = "i32", name: str | None = None) -> Node:
    """CTCGreedyDecoderSeqLen-6 over ``data`` [N, T, C] and ``sequence_length`` [N]; ``blank_index`` (default
    C - 1) is optional. Outputs: the classes [N, T] (-1 padded) and the decoded lengths [N]."""
    inputs = [as_output(data), index_input(sequence_length, "sequence_length")]
    if blank_index is not None:
        inputs.append(index_input(blank_index, "blank_index"))
    attrs = {"merge_repeated": merge_repeated, "classes_index_type": as_type(classes_index_type),
             "sequence_length_type": as_type(sequence_length_type)}
    return make_node("CTCGreedyDecoderSeqLen", 6, inputs, attrs, name)


_NAMES = ("logits", "logit_length", "labels", "label_length", "blank_index")
_RANKS = (3, 1, 2, 1, 0)


def _merge(dims: list[tuple[str, Dimension]]) -> Dimension:
    merged = Dimension.dynamic()
    for what, dim in dims:
        require(merged.compatible(dim), f"{what} is {dim}; it must equal the other inputs' {merged}.")
        if dim.is_static:
            merged = dim
    return merged


@define_op("CTCLoss", 4, inputs=(4, 5), attrs=[
    AttrSpec("preprocess_collapse_repeated", "bool", False), AttrSpec("ctc_merge_repeated", "bool", True),
    AttrSpec("unique", "bool", False)])
def _infer_ctc_loss(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"logits (input 0) have element type {et}; they must be floating-point.")
    shapes = []
    for i in range(node.get_input_size()):
        shape = node.get_input_partial_shape(i)
        if i:
            it = node.get_input_element_type(i)
            require(it in (Type.i32, Type.i64),
                    f"{_NAMES[i]} (input {i}) has element type {it}; it must be i32 or i64.")
        if not shape.has_rank():
            shape = PartialShape.dynamic(_RANKS[i])
        require(len(shape) == _RANKS[i], f"{_NAMES[i]} (input {i}) has shape {shape}; it must have rank {_RANKS[i]}.")
        shapes.append(shape)
    n = _merge([("logits dim 0", shapes[0][0]), ("logit_length dim 0", shapes[1][0]), ("labels dim 0", shapes[2][0]),
                ("label_length dim 0", shapes[3][0])])
    _merge([("logits dim 1 (time)", shapes[0][1]), ("labels dim 1", shapes[2][1])])
    return [(et, PartialShape([n]))]


def ctc_loss(logits: NodeInput, logits_length: NodeInput, labels: NodeInput, labels_length: NodeInput,
             blank_index: NodeInput | None = None, preprocess_collapse_repeated: bool = False,
             ctc_merge_repeated: bool = True, unique: bool = False, name: str | None = None) -> Node:
    """CTCLoss-4 (the arguments of ``openvino.opset4.ctc_loss``; literal lengths/labels become i32)."""
    inputs = [as_output(logits), *(as_output(v, Type.i32) for v in (logits_length, labels, labels_length))]
    if blank_index is not None:
        inputs.append(as_output(blank_index, Type.i32))
    attrs = {"preprocess_collapse_repeated": preprocess_collapse_repeated, "ctc_merge_repeated": ctc_merge_repeated,
             "unique": unique}
    return make_node("CTCLoss", 4, inputs, attrs, name)


NEGATIVE_INDICES_MODES = ("ignore_negative", "normalize")


def _infer_one_hot(node: Node) -> Infer:
    """``indices`` shape with ``depth`` inserted at ``axis``; output of the on/off value type."""
    t = node.get_input_element_type(0)
    require(t.is_integral_number(), f"indices (input 0) has element type {t}; it must be an integer type.")
    _integer(node, 1, "depth")
    _scalar_like(node, 1, "depth")
    on, off = node.get_input_element_type(2), node.get_input_element_type(3)
    require(on == off, f"on_value and off_value must share one element type; got {on} and {off}.")
    for i, what in ((2, "on_value"), (3, "off_value")):
        _scalar_like(node, i, what)
    indices = node.get_input_partial_shape(0)
    axis = node.attrs["axis"]
    depth_value = _const_ints(node, 1)
    if depth_value is None:
        depth = Dimension()
    else:
        require(depth_value[0] >= 0, f"depth is {depth_value[0]}; it must be >= 0.")
        depth = Dimension(depth_value[0])
    if not indices.has_rank():
        return [(on, PartialShape.dynamic())]
    pos = normalize_axis(axis, len(indices) + 1, "attribute 'axis'")
    dims = list(indices.dims)
    dims.insert(pos, depth)
    return [(on, PartialShape(dims))]


define_op("OneHot", 1, inputs=4, attrs=[AttrSpec("axis", "int")])(_infer_one_hot)
define_op("OneHot", 16, inputs=4, attrs=[AttrSpec("axis", "int"), AttrSpec(
    "negative_indices_mode", "str", "ignore_negative", NEGATIVE_INDICES_MODES)])(_infer_one_hot)


def one_hot(indices: NodeInput, depth: NodeInput, on_value: NodeInput, off_value: NodeInput, axis: int,
            negative_indices_mode: str | None = None, name: str | None = None, *, version: int = 16) -> Node:
    """OneHot-16 (``negative_indices_mode`` ignore_negative, the default, or normalize); ``version=1``
    gives OneHot-1 (negative indices select nothing). A negative ``axis`` is stored as ``axis + rank + 1``
    when the indices rank is known, as OpenVINO does."""
    require(version in (1, 16), f"OneHot: version {version} is not defined; allowed: 1, 16.")
    on = as_output(on_value, Type.f32 if isinstance(on_value, float) else None)
    inputs = [index_input(indices, "OneHot indices"), index_input(depth, "OneHot depth"), on,
              as_output(off_value, on.get_element_type())]
    shape = inputs[0].get_partial_shape()
    if isinstance(axis, int) and axis < 0 and shape.has_rank() and axis >= -len(shape) - 1:
        axis += len(shape) + 1  # OpenVINO stores the axis non-negative once the indices rank is known
    attrs: dict[str, Any] = {"axis": axis}
    if version == 16:
        attrs["negative_indices_mode"] = (negative_indices_mode or "ignore_negative").lower()
    else:
        require(negative_indices_mode is None, "OneHot-1 has no negative_indices_mode; use version=16.")
    return make_node("OneHot", version, inputs, attrs, name)


def _batch_dims(shapes: list[PartialShape]) -> PartialShape:
    out = PartialShape([])
    for s in shapes:
        out = broadcast_shapes(out, PartialShape(s.dims[:-2]))
    return out


@define_op("ScaledDotProductAttention", 13, inputs=(3, 5), attrs=[AttrSpec("causal", "bool", False)])
def _infer_sdpa(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"query element type {et} is not allowed; SDPA needs a floating-point type.")
    for i, what in ((1, "key"), (2, "value")):
        t = node.get_input_element_type(i)
        require(t == et, f"{what} element type {t} differs from the query's {et}.")
    q, k, v = (node.get_input_partial_shape(i) for i in range(3))
    if not (q.has_rank() and k.has_rank() and v.has_rank()):
        return [(et, PartialShape.dynamic())]
    for s, what in ((q, "query"), (k, "key"), (v, "value")):
        require(len(s) >= 3, f"{what} shape {s} must have rank >= 3 ([N, ..., rows, features]).")
    require(q[-1].compatible(k[-1]), f"query shape {q} and key shape {k} differ in the feature dim (last).")
    require(k[-2].compatible(v[-2]), f"key shape {k} and value shape {v} differ in the sequence dim (-2).")
    batch = _batch_dims([q, k, v])
    s_len = k[-2].merge(v[-2]) or k[-2]
    if node.get_input_size() > 3:
        _check_mask(node, et, PartialShape([*batch.dims, q[-2], s_len]))
    if node.get_input_size() > 4:
        t, sc = node.get_input_element_type(4), node.get_input_partial_shape(4)
        require(t == et, f"scale element type {t} differs from the query's {et}.")
        require(not sc.has_rank() or len(sc) == 0 or (len(sc) == 1 and sc[0].compatible(1)),
                f"scale shape {sc} is not allowed; it must be a scalar (or hold one value).")
    return [(et, PartialShape([*batch.dims, q[-2], v[-1]]))]


def _check_mask(node: Node, et: Type, target: PartialShape) -> None:
    t = node.get_input_element_type(3)
    require(t in (Type.boolean, et), f"attention_mask element type {t} is not allowed; allowed: boolean, {et}.")
    mask = node.get_input_partial_shape(3)
    if mask.has_rank():
        require(len(mask) <= len(target), f"attention_mask shape {mask} has more dims than {target}.")
        merged = broadcast_shapes(target, mask)
        require(merged.compatible(target), f"attention_mask shape {mask} does not broadcast to {target}.")


def scaled_dot_product_attention(query: NodeInput, key: NodeInput, value: NodeInput,
                                 attention_mask: NodeInput | None = None, scale: NodeInput | None = None,
                                 causal: bool = False, name: str | None = None) -> Node:
    """ScaledDotProductAttention-13: ``softmax(Q·Kᵀ·scale + mask)·V``. A ``scale`` without a mask is
    given a zero mask of the query type (the inputs are positional)."""
    q, k, v = as_outputs(query, key, value)
    inputs = [q, k, v]
    if attention_mask is not None or scale is not None:
        et = q.get_element_type()
        mask = attention_mask if attention_mask is not None else np.zeros((), et.to_dtype())
        boolean = isinstance(mask, np.ndarray) and mask.dtype == np.bool_
        inputs.append(as_output(mask, None if boolean else et))
    if scale is not None:
        inputs.append(as_output(scale, q.get_element_type()))
    return make_node("ScaledDotProductAttention", 13, inputs, {"causal": causal}, name)
