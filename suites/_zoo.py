"""The model zoo of the model conformance suite, built with :mod:`ovconform.opset`.

Each :class:`ZooModel` has a builder (a fresh :class:`~ovconform.ir.Model` per call, weights from
a fixed seed) and a step maker (the inputs of each inference: several for a stateful model, two
batch sizes for the dynamic-batch model). Ops are named so that triage messages read well
(``Softmax 'attn_softmax'``). Models whose ops the opset does not have yet carry a ``skip``
reason. :func:`zoo` adds the models contributed through the ``ovconform_add_models`` hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ovconform import opset as ops
from ovconform.ir import Model, Node, Type

__all__ = ["ZooModel", "builtin", "contributed", "default_steps"]

F32 = Type.f32
Steps = list[dict[str, np.ndarray]]


@dataclass(frozen=True)
class ZooModel:
    name: str
    build: Callable[[], Model]
    steps: Callable[[Model], Steps] | None = None
    skip: str = ""
    source: str = "builtin"

    def make_steps(self, model: Model) -> Steps:
        return (self.steps or default_steps)(model)


def default_steps(model: Model, batch: int = 2, seed: int = 0) -> Steps:
    """One step: uniform [-1, 1) values for every Parameter (dynamic dims become ``batch``)."""
    rng = np.random.default_rng(seed)
    feed = {}
    for p in model.get_parameters():
        ps = p.get_output_partial_shape(0)
        shape = [d.get_length() if d.is_static else batch for d in ps] if ps.rank.is_static else [batch]
        et = p.get_output_element_type(0)
        if et.is_real():
            feed[p.friendly_name] = rng.uniform(-1, 1, shape).astype(et.to_dtype())
        else:
            feed[p.friendly_name] = rng.integers(0, 4, shape).astype(et.to_dtype())
    return [feed]


# -- building blocks ----------------------------------------------------------------------------

class _W:
    """Seeded weights."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape: int, scale: float = 0.5, name: str | None = None) -> Node:
        return ops.constant(self.rng.uniform(-scale, scale, shape).astype(np.float32), F32, name=name)


def _conv(x: Any, w: Node, pad: int, name: str) -> Node:
    return ops.convolution(x, w, [1, 1], [pad, pad], [pad, pad], [1, 1], name=name)


def _layer_norm(x: Any, prefix: str, eps: float = 1e-5) -> Node:
    """LayerNorm over the last axis: MVN-6 (inside_sqrt), then scale and shift."""
    norm = ops.mvn(x, ops.constant(np.array([-1], np.int64), Type.i64), True, eps, "inside_sqrt", name=f"{prefix}_mvn")
    scaled = ops.multiply(norm, ops.constant(np.linspace(0.5, 1.5, 8, dtype=np.float32), F32), name=f"{prefix}_scale")
    return ops.add(scaled, ops.constant(np.linspace(-0.1, 0.1, 8, dtype=np.float32), F32), name=f"{prefix}_shift")


# -- the models ---------------------------------------------------------------------------------

def mlp() -> Model:
    w = _W(1)
    x = ops.parameter([2, 16], F32, name="x")
    h = ops.relu(ops.add(ops.matmul(x, w(16, 32), False, False, name="fc1"), w(32), name="fc1_bias"), name="relu1")
    y = ops.add(ops.matmul(h, w(32, 10), False, False, name="fc2"), w(10), name="fc2_bias")
    return Model([ops.softmax(y, -1, name="probs")], [x], "mlp")


def lenet() -> Model:
    w = _W(2)
    x = ops.parameter([1, 1, 12, 12], F32, name="image")
    c1 = ops.relu(ops.add(_conv(x, w(4, 1, 3, 3), 0, "conv1"), w(1, 4, 1, 1), name="conv1_bias"), name="relu1")
    p1 = ops.max_pool(c1, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], name="pool1").output(0)
    c2 = ops.relu(_conv(p1, w(8, 4, 3, 3), 0, "conv2"), name="relu2")
    p2 = ops.avg_pool(c2, [1, 1], [0, 0], [0, 0], [2, 2], True, name="pool2")
    flat = ops.reshape(p2, ops.constant(np.array([1, -1], np.int64)), False, name="flatten")
    logits = ops.matmul(flat, w(8 * 2 * 2, 10), False, False, name="fc")
    return Model([ops.softmax(logits, 1, name="probs")], [x], "lenet")


def resnet_block() -> Model:
    w = _W(3)
    x = ops.parameter([1, 4, 8, 8], F32, name="x")
    h = ops.relu(_conv(x, w(4, 4, 3, 3, scale=0.3), 1, "conv_a"), name="relu_a")
    h = _conv(h, w(4, 4, 3, 3, scale=0.3), 1, "conv_b")
    return Model([ops.relu(ops.add(h, x, name="skip_add"), name="relu_out")], [x], "resnet_basic_block")


def inverted_residual() -> Model:
    w = _W(4)
    x = ops.parameter([1, 4, 8, 8], F32, name="x")
    e = ops.clamp(_conv(x, w(12, 4, 1, 1), 0, "expand"), 0.0, 6.0, name="relu6_a")
    dw = ops.group_convolution(e, w(12, 1, 1, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1], name="depthwise")
    d = ops.clamp(dw, 0.0, 6.0, name="relu6_b")
    p = _conv(d, w(4, 12, 1, 1, scale=0.3), 0, "project")
    return Model([ops.add(p, x, name="residual_add")], [x], "mobilenet_v2_inverted_residual")


def transformer_encoder() -> Model:
    w, d = _W(5), 8
    x = ops.parameter([1, 6, d], F32, name="tokens")
    q = ops.matmul(x, w(d, d), False, False, name="q_proj")
    k = ops.matmul(x, w(d, d), False, False, name="k_proj")
    v = ops.matmul(x, w(d, d), False, False, name="v_proj")
    scores = ops.multiply(ops.matmul(q, k, False, True, name="qk"), ops.constant(np.float32(1 / np.sqrt(d)), F32),
                          name="scale")
    attn = ops.softmax(scores, -1, name="attn_softmax")
    ctx = ops.matmul(ops.matmul(attn, v, False, False, name="attn_v"), w(d, d), False, False, name="out_proj")
    h = _layer_norm(ops.add(ctx, x, name="residual_1"), "ln1")
    ff = ops.gelu(ops.matmul(h, w(d, 2 * d), False, False, name="ff1"), name="ff_gelu")
    ff = ops.matmul(ff, w(2 * d, d), False, False, name="ff2")
    return Model([_layer_norm(ops.add(ff, h, name="residual_2"), "ln2")], [x], "transformer_encoder_block")


def stateful_accumulator() -> Model:
    x = ops.parameter([1, 4], F32, name="x")
    init = ops.constant(np.zeros((1, 4), np.float32), F32, name="acc_init")
    rv = ops.read_value(init, "acc", F32, [1, 4], name="acc_read")
    total = ops.add(rv, x, name="acc_add")
    assign = ops.assign(total, "acc", name="acc_write")
    out = ops.multiply(total, ops.constant(np.float32(0.5), F32), name="acc_half")
    return Model([out], [assign], [x], "stateful_accumulator")


def _stateful_steps(model: Model) -> Steps:
    return [default_steps(model, seed=s)[0] for s in range(4)]


def dynamic_batch() -> Model:
    w = _W(6)
    x = ops.parameter([-1, 8], F32, name="x")
    h = ops.add(ops.matmul(x, w(8, 4), False, False, name="fc"), w(4), name="fc_bias")
    return Model([ops.sigmoid(h, name="sigmoid")], [x], "dynamic_batch")


def _two_batches(model: Model) -> Steps:
    return [default_steps(model, batch=1, seed=1)[0], default_steps(model, batch=3, seed=2)[0]]


def lstm_model() -> Model:
    """A bidirectional LSTMSequence-5 over 5 steps (batch 2, the second sequence 3 steps long)."""
    w, hidden, dirs = _W(7), 6, 2
    x = ops.parameter([2, 5, 4], F32, name="sequence")
    zeros = ops.constant(np.zeros((2, dirs, hidden), np.float32), F32, name="h0")
    lengths = ops.constant(np.array([5, 3], np.int32), Type.i32, name="lengths")
    lstm = ops.lstm_sequence(x, zeros, ops.constant(np.zeros((2, dirs, hidden), np.float32), F32, name="c0"),
                             lengths, w(dirs, 4 * hidden, 4), w(dirs, 4 * hidden, hidden), w(dirs, 4 * hidden),
                             hidden, "bidirectional", name="lstm")
    head = ops.matmul(lstm.output(1), w(hidden, 3), False, False, name="head")
    return Model([lstm.output(0), head], [x], "lstm_sequence")


def gru_model() -> Model:
    """A forward GRUSequence-5 (linear_before_reset) over 5 steps, then a dense head."""
    w, hidden = _W(8), 6
    x = ops.parameter([2, 5, 4], F32, name="sequence")
    h0 = ops.constant(np.zeros((2, 1, hidden), np.float32), F32, name="h0")
    lengths = ops.constant(np.array([5, 4], np.int64), Type.i64, name="lengths")
    gru = ops.gru_sequence(x, h0, lengths, w(1, 3 * hidden, 4), w(1, 3 * hidden, hidden), w(1, 4 * hidden),
                           hidden, "forward", linear_before_reset=True, name="gru")
    head = ops.matmul(gru.output(1), w(hidden, 3), False, False, name="head")
    return Model([gru.output(0), head], [x], "gru_sequence")


def builtin() -> list[ZooModel]:
    return [
        ZooModel("mlp", mlp), ZooModel("lenet", lenet), ZooModel("resnet_basic_block", resnet_block),
        ZooModel("mobilenet_v2_inverted_residual", inverted_residual),
        ZooModel("transformer_encoder_block", transformer_encoder),
        ZooModel("lstm_sequence", lstm_model), ZooModel("gru_sequence", gru_model),
        ZooModel("stateful_accumulator", stateful_accumulator, _stateful_steps),
        ZooModel("dynamic_batch", dynamic_batch, _two_batches),
    ]


def contributed(device: str) -> list[ZooModel]:
    """Models from the ``ovconform_add_models(device)`` hook (``(name, builder)`` pairs)."""
    from ovconform.suites._op_runner import plugin_manager

    out = []
    for pairs in plugin_manager().hook.ovconform_add_models(device=device):
        for name, builder in pairs or []:
            out.append(ZooModel(f"hook_{name}", builder, source="ovconform_add_models"))
    return out


