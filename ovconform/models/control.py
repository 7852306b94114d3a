"""A model with data-dependent control flow, as exported generation models write it (issue #24):
an early-exit encoder (If) and a greedy autoregressive decoding loop (Loop).

``greedy_decoder``: a pooled feature vector (128) goes through one tanh layer; an exit classifier's
confidence (its largest softmax probability over 8 classes) decides, per input, whether the
encoder exits there (If: then branch, confidence above :data:`EXIT_THRESHOLD`) or runs two more
residual layers (else branch), as early-exit networks (BranchyNet, DeeBERT) do. A GRU decoder
then generates tokens greedily inside a Loop, as an exported ``generate()`` does: the trip count
is the maximum length, the body embeds the previous token (a back edge), steps a GRUCell (the
hidden state a back edge), takes the arg-max token (TopK), and computes the condition that stops
the loop — the token is not the end token. Every iteration's
token and logits are concatenated. The end token's logit is raised by a length prior growing with
the step (``i / 32``), so decoding ends before the maximum length (32) for ordinary inputs.
Sizes: hidden 128, embedding 64, vocabulary 96 (:class:`GreedyDecoder`).

Weights are seeded, uniform ±1/√fan_in as PyTorch initialises Linear and GRU layers (the
embedding N(0, 1)). :func:`steps` feeds a confident input (large features: the then branch)
and an ambiguous one (small features: the else branch) on one request, so both branches of the
If and different numbers of Loop iterations run on one compiled model.
"""

from __future__ import annotations

import numpy as np

from ovconform import opset as ops
from ovconform.ir import Model, Node

from ._blocks import F32, I64, Value, Weights, i64

__all__ = ["EXIT_THRESHOLD", "GreedyDecoder", "greedy_decoder", "steps"]

#: The exit classifier's confidence above which the encoder exits after its first layer.
EXIT_THRESHOLD = 0.2


class GreedyDecoder:
    """The sizes of :func:`greedy_decoder`."""

    features = 128
    hidden = 128
    embedding = 64
    vocab = 96
    exit_classes = 8
    max_length = 32
    bos = 0
    eos = 1


def _linear(x: Value, w: Weights, n_in: int, n_out: int, name: str) -> Node:
    """``x·W + b`` with W and b uniform ±1/√n_in (PyTorch's Linear)."""
    r = float(1 / np.sqrt(n_in))
    y = ops.matmul(x, w.uniform(n_in, n_out, low=-r, high=r, name=f"{name}.weight"), False, False, name=name)
    return ops.add(y, w.uniform(n_out, low=-r, high=r, name=f"{name}.bias"), name=f"{name}.add_bias")


def _encoder(x: Node, w: Weights, g: type[GreedyDecoder]) -> Node:
    """The early-exit encoder, an If with outputs context ``[1, features]`` and the exit taken
    (``[1]`` i64: the last layer run, 1 or 3)."""
    d = g.features
    layer1 = ops.tanh(_linear(x, w, d, d, "encoder.layer1"), name="encoder.layer1.tanh")
    probs = ops.softmax(_linear(layer1, w, d, g.exit_classes, "encoder.exit1"), -1, name="encoder.exit1.softmax")
    confidence = ops.reduce_max(probs, i64(-1), False, name="encoder.exit1.confidence")
    confident = ops.greater(ops.squeeze(confidence, i64(0), name="encoder.exit1.squeeze"),
                            ops.constant(np.float32(EXIT_THRESHOLD), F32), name="encoder.exit1.confident")
    # then: exit after layer 1
    t_in = ops.parameter([1, d], F32, "encoder.exit.context")
    then_body = Model([t_in, i64(1, name="encoder.exit.layer")], [t_in], "early_exit")
    # else: two more residual layers
    e_in = ops.parameter([1, d], F32, "encoder.deep.context")
    h: Node = e_in
    for k in (2, 3):
        h = ops.add(h, ops.tanh(_linear(h, w, d, d, f"encoder.layer{k}"), name=f"encoder.layer{k}.tanh"),
                    name=f"encoder.layer{k}.residual")
    else_body = Model([h, i64(3, name="encoder.deep.layer")], [e_in], "deep")
    t, e = then_body.get_results(), else_body.get_results()
    return ops.if_op(confident, then_body, else_body, [(layer1, t_in, e_in)], [(t[0], e[0]), (t[1], e[1])],
                     name="encoder.early_exit")


def _decode_body(w: Weights, g: type[GreedyDecoder]) -> tuple[Model, Node, Node, Node]:
    """The Loop body: (body, current-iteration Parameter, hidden Parameter, token Parameter); Results
    ``[h', token', go, token'[1, 1], logits[1, 1, vocab]]``."""
    it = ops.parameter([], I64, "decoder.step")
    h = ops.parameter([1, g.hidden], F32, "decoder.hidden")
    token = ops.parameter([1], I64, "decoder.token")
    table = w.normal(g.vocab, g.embedding, std=1.0, name="decoder.embedding.weight")
    x = ops.gather(table, token, i64(0), name="decoder.embedding")
    r = float(1 / np.sqrt(g.hidden))
    cell = ops.gru_cell(x, h, w.uniform(3 * g.hidden, g.embedding, low=-r, high=r, name="decoder.gru.weight_ih"),
                        w.uniform(3 * g.hidden, g.hidden, low=-r, high=r, name="decoder.gru.weight_hh"),
                        w.uniform(4 * g.hidden, low=-r, high=r, name="decoder.gru.bias"), g.hidden,
                        linear_before_reset=True, name="decoder.gru")
    logits = _linear(cell, w, g.hidden, g.vocab, "decoder.lm_head")
    prior = np.zeros(g.vocab, np.float32)
    prior[g.eos] = 1 / 32
    step_f = ops.convert(it, F32, name="decoder.step.f32")
    logits = ops.add(logits, ops.multiply(step_f, ops.constant(prior, F32), name="decoder.length_prior"),
                     name="decoder.add_length_prior")
    best = ops.topk(logits, ops.constant(np.int64(1), I64), -1, "max", "value", I64, name="decoder.argmax")
    next_token = ops.squeeze(best.output(1), i64(0), name="decoder.next_token")  # [1, 1] -> [1]
    go = ops.not_equal(next_token, i64(g.eos), name="decoder.not_eos")
    body = Model([cell, next_token, go, best.output(1), ops.unsqueeze(logits, i64(1), name="decoder.scores")],
                 [it, h, token], "greedy_step")
    return body, it, h, token


def greedy_decoder(g: type[GreedyDecoder] = GreedyDecoder) -> Model:
    """The early-exit encoder and greedy GRU decoding Loop (see the module docstring)."""
    w = Weights(24)
    features = ops.parameter([1, g.features], F32, "features")
    encoded = _encoder(features, w, g)
    h0 = ops.tanh(_linear(encoded.output(0), w, g.features, g.hidden, "decoder.init"), name="decoder.init.tanh")
    body, it, h, token = _decode_body(w, g)
    r = body.get_results()
    loop = ops.loop(ops.constant(np.int64(g.max_length), I64, name="max_length"), ops.constant(True), body,
                    [ops.merged_input(h, h0, r[0]),
                     ops.merged_input(token, ops.constant(np.array([g.bos], np.int64), I64, name="bos"), r[1])],
                    [ops.concatenated_slices(r[3], 0, 1, 1, -1, 1), ops.concatenated_slices(r[4], 0, 1, 1, -1, 1),
                     ops.iter_value(r[0])],
                    current_iteration=it, body_condition=r[2], name="decoder.generate")
    outs = [loop.output(0), loop.output(1), loop.output(2), encoded.output(1)]
    for out, name in zip(outs, ("tokens", "scores", "last_hidden", "exit_layer"), strict=True):
        out.set_names({name})
    return Model(outs, [features], "greedy_decoder")


def steps(model: Model, seed: int = 5) -> list[dict[str, np.ndarray]]:
    """Two inferences on one request: a confident input (features N(0, 4²): the encoder exits early)
    and an ambiguous one (N(0, 0.05²): the deep branch)."""
    del model
    rng = np.random.default_rng(seed)
    shape = (1, GreedyDecoder.features)
    return [{"features": (4.0 * rng.standard_normal(shape)).astype(np.float32)},
            {"features": (0.05 * rng.standard_normal(shape)).astype(np.float32)}]

