"""Case strategies of the "recurrent" family: RNNCell-1, GRUCell-3, LSTMCell-1, LSTMCell-4, RNNSequence-5,
GRUSequence-5, LSTMSequence-5.

Sizes stay small (batch 1..3, input_size 1..4, hidden_size 1..4, seq_length 1..4), so K (the terms
of a gate's sums) stays below the accumulating tolerance's default 64. Data and states are in
[-2, 2], weights and biases in [-1, 1]; activations are the defaults half of the time, otherwise
any of sigmoid/tanh/relu per slot; ``clip`` is 0 (off) or in [0.5, 3]. GRU draws
``linear_before_reset``. GRUCell-3 and LSTMCell-1 always have ``B`` (optional in their specs, but
OpenVINO's read_model adds a zero ``B`` Constant where it is absent, so the IR round trip would
differ; REFERENCE's zero default is unit-tested). LSTMCell-1 keeps OpenVINO's extensions beyond its spec at their
defaults (no peepholes ``P``, ``input_forget`` false, ``weights_format`` fico): the spec does not
define them and OpenVINO CPU ignores them.

Sequences draw every direction and lengths in [1, seq_length] per batch element (a length of 0
is left out: the spec's "last output value of hidden state" does not exist then; OpenVINO CPU
returns zeros, REFERENCE the initial state). X and the states are Parameters; W, R, B and the
sequence lengths are Constants about half of the time.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._sequence import ACTIVATION_NAMES, DEFAULT_ACTIVATIONS, DIRECTIONS, GATES

NOTE = " ".join(__doc__.split("\n\n")[1:3])


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

    def weights(self) -> list[Node]:
        gates = GATES[self.kind] * self.hidden
        bias = (4 if self.lbr else GATES[self.kind]) * self.hidden
        lead = [self.num_dir] if self.sequence else []
        return [self.weight("W", [*lead, gates, self.input_size]), self.weight("R", [*lead, gates, self.hidden]),
                self.weight("B", [*lead, bias])]

    def data(self, name: str, shape: list[int]) -> Node:
        return self.b.param(name, self.b.uniform(shape, self.et, -2, 2))

    def attrs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"activations": self.activations, "clip": self.clip}
        if self.kind == "GRU":
            out["linear_before_reset"] = self.lbr
        return out


def _cell(draw: Draw[Any], kind: str) -> tuple[_Draws, list[Node]]:
    d = _Draws(draw, kind, sequence=False)
    states = [d.data("X", [d.batch, d.input_size]), d.data("H", [d.batch, d.hidden])]
    if kind == "LSTM":
        states.append(d.data("C", [d.batch, d.hidden]))
    return d, states + d.weights()


@register_case("RNNCell", 1)
def case_rnn_cell(draw: Draw[Any]) -> OpCase:
    d, inputs = _cell(draw, "RNN")
    return d.b.finish("RNNCell", 1, opset.rnn_cell(*inputs, d.hidden, **d.attrs()), NOTE)


@register_case("GRUCell", 3)
def case_gru_cell(draw: Draw[Any]) -> OpCase:
    d, inputs = _cell(draw, "GRU")
    return d.b.finish("GRUCell", 3, opset.gru_cell(*inputs, d.hidden, **d.attrs()), NOTE)


@register_case("LSTMCell", 4)
def case_lstm_cell_4(draw: Draw[Any]) -> OpCase:
    d, inputs = _cell(draw, "LSTM")
    return d.b.finish("LSTMCell", 4, opset.lstm_cell(*inputs, d.hidden, **d.attrs()), NOTE)


@register_case("LSTMCell", 1)
def case_lstm_cell_1(draw: Draw[Any]) -> OpCase:
    d, inputs = _cell(draw, "LSTM")
    node = opset.lstm_cell(*inputs, d.hidden, **d.attrs(), version=1)
    return d.b.finish("LSTMCell", 1, node, NOTE)


def _sequence(draw: Draw[Any], kind: str) -> tuple[_Draws, list[Node]]:
    d = _Draws(draw, kind, sequence=True)
    inputs = [d.data("X", [d.batch, d.steps, d.input_size]), d.data("H", [d.batch, d.num_dir, d.hidden])]
    if kind == "LSTM":
        inputs.append(d.data("C", [d.batch, d.num_dir, d.hidden]))
    lengths_type = draw(st.sampled_from((Type.i32, Type.i64)))
    lengths = d.b.integers([d.batch], lengths_type, 1, d.steps)
    inputs.append(d.b.input("sequence_lengths", lengths, draw(st.booleans())))
    return d, inputs + d.weights()


@register_case("RNNSequence", 5)
def case_rnn_sequence(draw: Draw[Any]) -> OpCase:
    d, inputs = _sequence(draw, "RNN")
    node = opset.rnn_sequence(*inputs, d.hidden, d.direction, **d.attrs())
    return d.b.finish("RNNSequence", 5, node, NOTE)


@register_case("GRUSequence", 5)
def case_gru_sequence(draw: Draw[Any]) -> OpCase:
    d, inputs = _sequence(draw, "GRU")
    node = opset.gru_sequence(*inputs, d.hidden, d.direction, **d.attrs())
    return d.b.finish("GRUSequence", 5, node, NOTE)


@register_case("LSTMSequence", 5)
def case_lstm_sequence(draw: Draw[Any]) -> OpCase:
    d, inputs = _sequence(draw, "LSTM")
    node = opset.lstm_sequence(*inputs, d.hidden, d.direction, **d.attrs())
    return d.b.finish("LSTMSequence", 5, node, NOTE)
