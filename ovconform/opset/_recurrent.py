"""Builders of the "recurrent" family: RNNCell-1, GRUCell-3, LSTMCell-1, LSTMCell-4, RNNSequence-5,
GRUSequence-5 and LSTMSequence-5.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["gru_cell", "gru_sequence", "lstm_cell", "lstm_sequence", "rnn_cell", "rnn_sequence"]

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


def _definer(layout: _Layout):  # noqa: ANN202 - inference factory
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
