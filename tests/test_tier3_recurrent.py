"""Tier-3 "recurrent" family: RNNCell-1, GRUCell-3, LSTMCell-1/4, RNNSequence-5, GRUSequence-5, LSTMSequence-5 —
IR spelling, builder inference and errors, REFERENCE kernel numerics against literal values and a plain
per-element formula written independently of the kernels, and the case strategies."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcase_checks import check_case_runs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type, get_opdef
from ovconform.opcases import all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter
KEYS = [("RNNCell", 1), ("GRUCell", 3), ("LSTMCell", 1), ("LSTMCell", 4), ("RNNSequence", 5), ("GRUSequence", 5),
        ("LSTMSequence", 5)]
COMMON = ["hidden_size", "activations", "activations_alpha", "activations_beta", "clip"]
RNG = np.random.default_rng(23)


def shapes(node: Node) -> list[str]:
    return [str(o.get_partial_shape()) for o in node.outputs()]


def run(make: Callable[..., Node], *arrays: Any) -> list[np.ndarray]:
    """One op over Parameters holding ``arrays`` (None: the op gets None there); every output on REFERENCE."""
    params, values, args = [], [], []
    for i, a in enumerate(arrays):
        if a is None:
            args.append(None)
            continue
        v = np.asarray(a)
        p = P(list(v.shape), as_type(v.dtype), name=f"in{i}")
        params.append(p)
        values.append(v)
        args.append(p)
    node = make(*args)
    return evaluate(Model(node.outputs(), params), values)


# -- an independent formula: one batch row at a time, scalar activations ------------------------------------------

def sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


ACT = {"sigmoid": sig, "tanh": math.tanh, "relu": lambda x: max(x, 0.0)}


def clipped(v: float, clip: float) -> float:
    return min(max(v, -clip), clip) if clip > 0 else v


def dot(row: np.ndarray, vec: np.ndarray) -> float:
    return float(sum(float(a) * float(b) for a, b in zip(row, vec, strict=True)))


def ref_rnn(x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray, acts: list[str],
            clip: float) -> np.ndarray:
    return np.array([ACT[acts[0]](clipped(dot(w[j], x) + dot(r[j], h) + b[j], clip)) for j in range(len(h))])


def ref_gru(x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray, acts: list[str],
            clip: float, lbr: bool) -> np.ndarray:
    n = len(h)
    f, g = ACT[acts[0]], ACT[acts[1]]
    z = [f(clipped(dot(w[j], x) + dot(r[j], h) + b[j], clip)) for j in range(n)]
    rs = [f(clipped(dot(w[n + j], x) + dot(r[n + j], h) + b[n + j], clip)) for j in range(n)]
    if lbr:
        cand = [g(clipped(dot(w[2 * n + j], x) + rs[j] * (dot(r[2 * n + j], h) + b[3 * n + j]) + b[2 * n + j], clip))
                for j in range(n)]
    else:
        rh = np.array(rs) * h
        cand = [g(clipped(dot(w[2 * n + j], x) + dot(r[2 * n + j], rh) + b[2 * n + j], clip)) for j in range(n)]
    return np.array([(1 - z[j]) * cand[j] + z[j] * h[j] for j in range(n)])


def ref_lstm(x: np.ndarray, h: np.ndarray, c: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray,
             acts: list[str], clip: float, p: np.ndarray | None = None,
             input_forget: bool = False) -> tuple[np.ndarray, np.ndarray]:
    n = len(h)
    f, g, hh = ACT[acts[0]], ACT[acts[1]], ACT[acts[2]]
    pre = [[dot(w[k * n + j], x) + dot(r[k * n + j], h) + b[k * n + j] for j in range(n)] for k in range(4)]
    peep = np.zeros(3 * n) if p is None else p
    ho, co = np.zeros(n), np.zeros(n)
    for j in range(n):
        i = f(clipped(pre[1][j] + peep[j] * c[j], clip))
        ft = 1 - i if input_forget else f(clipped(pre[0][j] + peep[2 * n + j] * c[j], clip))
        co[j] = ft * c[j] + i * g(clipped(pre[2][j], clip))
        o = f(clipped(pre[3][j] + peep[n + j] * co[j], clip))
        ho[j] = o * hh(co[j])
    return ho, co


def ref_sequence(kind: str, x: np.ndarray, h0: np.ndarray, c0: np.ndarray | None, lengths: np.ndarray,
                 w: np.ndarray, r: np.ndarray, b: np.ndarray, direction: str, acts: list[str], clip: float,
                 lbr: bool = False) -> list[np.ndarray]:
    batch, steps, hidden = x.shape[0], x.shape[1], h0.shape[-1]
    dirs = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}[direction]
    y = np.zeros((batch, len(dirs), steps, hidden))
    ho, co = np.zeros((batch, len(dirs), hidden)), np.zeros((batch, len(dirs), hidden))
    for n in range(batch):
        for d, reverse in enumerate(dirs):
            h = h0[n, d].astype(np.float64)
            c = None if c0 is None else c0[n, d].astype(np.float64)
            order = range(int(lengths[n]) - 1, -1, -1) if reverse else range(int(lengths[n]))
            for t in order:
                if kind == "RNN":
                    h = ref_rnn(x[n, t], h, w[d], r[d], b[d], acts, clip)
                elif kind == "GRU":
                    h = ref_gru(x[n, t], h, w[d], r[d], b[d], acts, clip, lbr)
                else:
                    h, c = ref_lstm(x[n, t], h, c, w[d], r[d], b[d], acts, clip)
                y[n, d, t] = h
            ho[n, d] = h
            if c is not None:
                co[n, d] = c
    return [y, ho] + ([co] if kind == "LSTM" else [])


def arr(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.uniform(-1, 1, shape) * scale).astype(np.float32)


# -- op definitions: IR spelling (as openvino.save_model writes them) ---------------------------------------------

@pytest.mark.parametrize(("op", "version", "attrs", "inputs"), [
    ("RNNCell", 1, COMMON, (5, 5)),
    ("GRUCell", 3, ["linear_before_reset", *COMMON], (4, 5)),
    ("LSTMCell", 1, [*COMMON, "input_forget", "weights_format"], (5, 7)),
    ("LSTMCell", 4, COMMON, (6, 6)),
    ("RNNSequence", 5, ["direction", *COMMON], (6, 6)),
    ("GRUSequence", 5, ["direction", "linear_before_reset", *COMMON], (6, 6)),
    ("LSTMSequence", 5, ["direction", *COMMON], (7, 7)),
])
def test_ir_names_attributes_and_arity(op: str, version: int, attrs: list[str], inputs: tuple[int, int]) -> None:
    d = get_opdef(op, version)
    assert d.opset == f"opset{version}" and [a.name for a in d.attrs] == attrs
    assert (d.min_inputs, d.max_inputs) == inputs


def test_defaults_follow_the_spec() -> None:
    x, h, c = P([2, 3]), P([2, 4]), P([2, 4])
    rnn = opset.rnn_cell(x, h, arr(4, 3), arr(4, 4), arr(4), 4)
    gru = opset.gru_cell(x, h, arr(12, 3), arr(12, 4), arr(12), 4)
    lstm = opset.lstm_cell(x, h, c, arr(16, 3), arr(16, 4), arr(16), 4)
    lstm1 = opset.lstm_cell(x, h, c, arr(16, 3), arr(16, 4), arr(16), 4, version=1)
    assert rnn.attrs["activations"] == ["tanh"] and gru.attrs["activations"] == ["sigmoid", "tanh"]
    assert lstm.attrs["activations"] == ["sigmoid", "tanh", "tanh"] and lstm.attrs["clip"] == 0.0
    assert gru.attrs["linear_before_reset"] is False
    assert (lstm1.attrs["input_forget"], lstm1.attrs["weights_format"]) == (False, "fico")
    assert [(n.type_name, n.version) for n in (rnn, gru, lstm1, lstm)] == KEYS[:4]


# -- shape inference ----------------------------------------------------------------------------------------------

def test_cell_shapes() -> None:
    x, h, c = P([-1, 3]), P([2, 4]), P([2, 4])
    assert shapes(opset.rnn_cell(x, h, P([4, 3]), P([4, 4]), P([4]), 4)) == ["[2,4]"]
    assert shapes(opset.gru_cell(P([5, 3], Type.f16), P([5, 2], Type.f16), P([6, 3], Type.f16),
                                 P([6, 2], Type.f16), P([8], Type.f16), 2, linear_before_reset=True)) == ["[5,2]"]
    assert shapes(opset.lstm_cell(x, P([-1, 4]), c, P([16, -1]), P([16, 4]), P([16]), 4)) == ["[2,4]", "[2,4]"]
    assert shapes(opset.lstm_cell(P("..."), P("..."), P("..."), P([16, 3]), P([16, 4]), None, 4,
                                  version=1)) == ["[?,4]", "[?,4]"]
    assert shapes(opset.lstm_cell(x, h, c, P([16, 3]), P([16, 4]), P([16]), 4, P=P([12]), version=1)) == [
        "[2,4]", "[2,4]"]


@pytest.mark.parametrize(("direction", "num_dir"), [("forward", 1), ("REVERSE", 1), ("bidirectional", 2)])
def test_sequence_shapes(direction: str, num_dir: int) -> None:
    x, h, c, lens = P([3, 5, 2]), P([3, num_dir, 4]), P([-1, num_dir, 4]), P([3], Type.i32)
    w = lambda g: P([num_dir, g * 4, 2])  # noqa: E731
    r = lambda g: P([num_dir, g * 4, 4])  # noqa: E731
    b = lambda g: P([num_dir, g * 4])  # noqa: E731
    rnn = opset.rnn_sequence(x, h, lens, w(1), r(1), b(1), 4, direction)
    gru = opset.gru_sequence(x, h, lens, w(3), r(3), b(3), 4, direction)
    lstm = opset.lstm_sequence(x, h, c, lens, w(4), r(4), b(4), 4, direction)
    y, state = f"[3,{num_dir},5,4]", f"[3,{num_dir},4]"
    assert shapes(rnn) == shapes(gru) == [y, state] and shapes(lstm) == [y, state, state]
    assert rnn.attrs["direction"] == direction.lower()
    dyn = opset.rnn_sequence(P([-1, -1, 2]), P("..."), P([-1], Type.i64), w(1), r(1), b(1), 4, direction)
    assert shapes(dyn) == [f"[?,{num_dir},?,4]", f"[?,{num_dir},4]"]


X2, H2 = P([2, 3]), P([2, 4])


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.rnn_cell(X2, H2, P([4, 3]), P([4, 4]), P([4]), 5), r"RNNCell-1 node.*initial_hidden_state shape "
                                                                       r"\[2,4\]: dimension hidden_size is 4"),
    (lambda: opset.rnn_cell(X2, H2, P([4, 3]), P([4, 4]), P([4]), 0), r"'hidden_size'=0 must be positive"),
    (lambda: opset.rnn_cell(X2, H2, P([4, 2]), P([4, 4]), P([4]), 4), r"W shape \[4,2\]: dimension input_size is 2"),
    (lambda: opset.rnn_cell(X2, H2, P([4, 3]), P([4, 4]), P([4]), 4, ["tanh", "tanh"]),
     r"'activations'=\['tanh', 'tanh'\] must list 1 activation\(s\) for a RNN cell"),
    (lambda: opset.gru_cell(X2, H2, P([12, 3]), P([12, 4]), P([12]), 4, ["sigmoid", "elu"]),
     r"GRUCell-3 node.*holds \['elu'\]; allowed: sigmoid, tanh, relu"),
    (lambda: opset.gru_cell(X2, H2, P([12, 3]), P([12, 4]), P([12]), 4, linear_before_reset=True),
     r"B shape \[12\]: dimension bias_size is 12, but other inputs give 16"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, clip=-1.0), r"'clip'=-1.0 must be >= 0"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([12, 3]), P([12, 4]), P([12]), 4), r"LSTMCell-4 node.*W shape \[12,3\]"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, P=P([12])),
     r"LSTMCell-4 has no peepholes, input_forget or weights_format"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), None, 4), r"LSTMCell-4 needs B"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, P=P([16]), version=1),
     r"LSTMCell-1 node.*P shape \[16\]: dimension 3\*hidden_size is 16, but other inputs give 12"),
    (lambda: opset.lstm_cell(X2, H2, H2, P([16, 3]), P([16, 4]), P([16]), 4, weights_format="xyzw", version=1),
     r"'weights_format'='xyzw' is not allowed; allowed: 'fico', 'icof'"),
    (lambda: opset.rnn_cell(P([2, 3], Type.i32), P([2, 4], Type.i32), P([4, 3], Type.i32), P([4, 4], Type.i32),
                            P([4], Type.i32), 4), r"X element type i32 is not allowed"),
    (lambda: opset.rnn_cell(X2, P([2, 4], Type.f16), P([4, 3]), P([4, 4]), P([4]), 4),
     r"must share one element type; got \['f32', 'f16', 'f32', 'f32', 'f32'\]"),
    (lambda: opset.rnn_cell(P([2, 3, 1]), H2, P([4, 3]), P([4, 4]), P([4]), 4),
     r"X shape \[2,3,1\] must have rank 2 \(\[batch_size, input_size\]\)"),
    (lambda: opset.rnn_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2], Type.i32), P([1, 4, 3]), P([1, 4, 4]), P([1, 4]),
                                4, "sideways"), r"'direction'='sideways' is not allowed; allowed: 'forward'"),
    (lambda: opset.rnn_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2], Type.i32), P([1, 4, 3]), P([1, 4, 4]), P([1, 4]),
                                4, "bidirectional"), r"initial_hidden_state shape \[2,1,4\]: dimension "
                                                     r"num_directions is 1, but other inputs give 2"),
    (lambda: opset.gru_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2]), P([1, 12, 3]), P([1, 12, 4]), P([1, 12]), 4,
                                "forward"), r"sequence_lengths element type f32 is not allowed; it must be an integer"),
    (lambda: opset.lstm_sequence(P([2, 5, 3]), P([2, 1, 4]), P([2, 1, 4]), P([3], Type.i64), P([1, 16, 3]),
                                 P([1, 16, 4]), P([1, 16]), 4, "forward"),
     r"LSTMSequence-5 node.*sequence_lengths shape \[3\]: dimension batch_size is 3, but other inputs give 2"),
])
def test_errors_name_the_node_and_the_bad_value(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


# -- kernels: literal values --------------------------------------------------------------------------------------

def test_cell_literals() -> None:
    one = np.ones((1, 1), np.float32)
    (ho,) = run(lambda *a: opset.rnn_cell(*a, 1), one, np.zeros((1, 1), np.float32), one, one, np.zeros(1, np.float32))
    assert ho.tolist() == [[np.float32(math.tanh(1.0))]]
    (relu,) = run(lambda *a: opset.rnn_cell(*a, 1, ["relu"], clip=0.5), one, one, one, one, np.ones(1, np.float32))
    assert relu.tolist() == [[0.5]]  # relu(clip(3)) = 0.5
    # GRU with zero weights: z = r = 0.5, candidate tanh(0) = 0, so Ho = 0.5 * H
    zeros = np.zeros((3, 1), np.float32)
    (gru,) = run(lambda *a: opset.gru_cell(*a, 1), one, 4 * one, zeros, zeros, np.zeros(3, np.float32))
    assert gru.tolist() == [[2.0]]
    # LSTM with zero weights: every gate 0.5 and c = tanh(0) = 0, so Co = 0.5 * C, Ho = 0.5 * tanh(Co)
    w = np.zeros((4, 1), np.float32)
    ho, co = run(lambda *a: opset.lstm_cell(*a, 1), one, one, 2 * one, w, w, np.zeros(4, np.float32))
    assert co.tolist() == [[1.0]] and ho.tolist() == [[np.float32(0.5 * math.tanh(1.0))]]


# -- kernels: against the per-element formula ---------------------------------------------------------------------

ACT_CHOICES = [None, ["relu"], ["sigmoid"]]


@pytest.mark.parametrize("acts", ACT_CHOICES)
@pytest.mark.parametrize("clip", [0.0, 0.7])
def test_rnn_cell_matches_formula(acts: list[str] | None, clip: float) -> None:
    x, h, w, r, b = arr(3, 2, scale=2), arr(3, 4, scale=2), arr(4, 2), arr(4, 4), arr(4)
    (got,) = run(lambda *a: opset.rnn_cell(*a, 4, acts, clip=clip), x, h, w, r, b)
    want = [ref_rnn(x[n], h[n], w, r, b, acts or ["tanh"], clip) for n in range(3)]
    np.testing.assert_allclose(got, np.array(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lbr", [False, True])
@pytest.mark.parametrize(("acts", "clip"), [(None, 0.0), (["relu", "sigmoid"], 0.0), (["tanh", "relu"], 1.2)])
def test_gru_cell_matches_formula(lbr: bool, acts: list[str] | None, clip: float) -> None:
    x, h, w, r, b = arr(2, 3, scale=2), arr(2, 3, scale=2), arr(9, 3), arr(9, 3), arr(12 if lbr else 9)
    (got,) = run(lambda *a: opset.gru_cell(*a, 3, acts, clip=clip, linear_before_reset=lbr), x, h, w, r, b)
    want = [ref_gru(x[n], h[n], w, r, b, acts or ["sigmoid", "tanh"], clip, lbr) for n in range(2)]
    np.testing.assert_allclose(got, np.array(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("version", [1, 4])
@pytest.mark.parametrize(("acts", "clip"), [(None, 0.0), (["relu", "sigmoid", "relu"], 0.0),
                                            (["tanh", "tanh", "sigmoid"], 0.8)])
def test_lstm_cell_matches_formula(version: int, acts: list[str] | None, clip: float) -> None:
    x, h, c = arr(2, 3, scale=2), arr(2, 2, scale=2), arr(2, 2, scale=2)
    w, r, b = arr(8, 3), arr(8, 2), arr(8)
    ho, co = run(lambda *a: opset.lstm_cell(*a, 2, acts, clip=clip, version=version), x, h, c, w, r, b)
    for n in range(2):
        want_h, want_c = ref_lstm(x[n], h[n], c[n], w, r, b, acts or ["sigmoid", "tanh", "tanh"], clip)
        np.testing.assert_allclose(ho[n], want_h, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(co[n], want_c, rtol=1e-5, atol=1e-6)


def test_lstm_cell_1_extensions_beyond_the_spec() -> None:
    """Optional B (zeros), peepholes ``iof``, input_forget and weights_format, as ov::op::v0::LSTMCell documents."""
    x, h, c = arr(2, 3, scale=2), arr(2, 2, scale=2), arr(2, 2, scale=2)
    w, r, b, p = arr(8, 3), arr(8, 2), arr(8), arr(6)
    acts = ["sigmoid", "tanh", "tanh"]
    no_bias = run(lambda *a: opset.lstm_cell(*a, None, 2, version=1), x, h, c, w, r)
    with_zero = run(lambda *a: opset.lstm_cell(*a, 2, version=1), x, h, c, w, r, np.zeros(8, np.float32))
    assert all(np.array_equal(u, v) for u, v in zip(no_bias, with_zero, strict=True))
    ho, co = run(lambda *a: opset.lstm_cell(*a[:6], 2, P=a[6], input_forget=True, version=1), x, h, c, w, r, b, p)
    for n in range(2):
        want_h, want_c = ref_lstm(x[n], h[n], c[n], w, r, b, acts, 0.0, p, input_forget=True)
        np.testing.assert_allclose(ho[n], want_h, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(co[n], want_c, rtol=1e-5, atol=1e-6)
    blocks = dict(zip("fico", np.split(w, 4), strict=True)), dict(zip("fico", np.split(r, 4), strict=True)), \
        dict(zip("fico", np.split(b, 4), strict=True))
    fmt = "iofc"
    reordered = [np.concatenate([d[g] for g in fmt]) for d in blocks]
    plain = run(lambda *a: opset.lstm_cell(*a, 2, version=1), x, h, c, w, r, b)
    other = run(lambda *a: opset.lstm_cell(*a, 2, weights_format=fmt, version=1), x, h, c, *reordered)
    assert all(np.allclose(u, v, rtol=1e-6) for u, v in zip(plain, other, strict=True))


SEQ_BUILDERS = {"RNN": (opset.rnn_sequence, 1), "GRU": (opset.gru_sequence, 3), "LSTM": (opset.lstm_sequence, 4)}


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_sequences_match_formula(kind: str, direction: str) -> None:
    builder, gates = SEQ_BUILDERS[kind]
    nd, hidden = (2 if direction == "bidirectional" else 1), 3
    x, h0, c0 = arr(3, 4, 2, scale=2), arr(3, nd, hidden), arr(3, nd, hidden)
    lengths = np.array([4, 1, 3], np.int32)
    w, r, b = arr(nd, gates * hidden, 2), arr(nd, gates * hidden, hidden), arr(nd, gates * hidden)
    acts = {"RNN": ["relu"], "GRU": ["sigmoid", "tanh"], "LSTM": ["sigmoid", "relu", "tanh"]}[kind]
    states = [x, h0, c0] if kind == "LSTM" else [x, h0]
    got = run(lambda *a: builder(*a, hidden, direction, acts, clip=1.5), *states, lengths, w, r, b)
    want = ref_sequence(kind, x, h0, c0 if kind == "LSTM" else None, lengths, w, r, b, direction, acts, 1.5)
    assert len(got) == len(want)
    for g, v in zip(got, want, strict=True):
        assert g.dtype == np.float32 and g.shape == v.shape
        np.testing.assert_allclose(g, v, rtol=1e-5, atol=1e-6)
    assert np.all(got[0][1, :, 1:] == 0)  # past the length of 1: Y is 0


def test_gru_sequence_linear_before_reset_and_f16() -> None:
    x, h0, lengths = arr(2, 3, 2, scale=2), arr(2, 1, 2), np.array([3, 2], np.int64)
    w, r, b = arr(1, 6, 2), arr(1, 6, 2), arr(1, 8)
    y, ho = run(lambda *a: opset.gru_sequence(*a, 2, "forward", linear_before_reset=True), x, h0, lengths, w, r, b)
    want = ref_sequence("GRU", x, h0, None, lengths, w, r, b, "forward", ["sigmoid", "tanh"], 0.0, lbr=True)
    np.testing.assert_allclose(y, want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ho, want[1], rtol=1e-5, atol=1e-6)
    half = [a.astype(np.float16) for a in (x, h0)]
    y16, _ = run(lambda *a: opset.gru_sequence(*a, 2, "forward", linear_before_reset=True), *half, lengths,
                 *(a.astype(np.float16) for a in (w, r, b)))
    assert y16.dtype == np.float16
    np.testing.assert_allclose(y16, want[0], atol=5e-3)


def test_sequence_lengths_are_checked_at_run_time() -> None:
    x, h0, w, r, b = arr(2, 3, 2), arr(2, 1, 2), arr(1, 2, 2), arr(1, 2, 2), arr(1, 2)
    with pytest.raises(InferError, match=r"RNNSequence-5 node.*sequence_lengths holds \[4\]; each length must be "
                                         r"in \[0, 3\]"):
        run(lambda *a: opset.rnn_sequence(*a, 2, "forward"), x, h0, np.array([1, 4], np.int32), w, r, b)
    y, ho = run(lambda *a: opset.rnn_sequence(*a, 2, "reverse"), x, h0, np.array([0, 3], np.int32), w, r, b)
    assert np.all(y[0] == 0) and np.array_equal(ho[0], h0[0])  # length 0: no step, the initial state


# -- case strategies ----------------------------------------------------------------------------------------------

CASE_SETTINGS = settings(max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())


@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    assert [o.shape for o in outs] == [o.get_partial_shape().to_shape() for o in node.outputs()]
    assert all(np.all(np.isfinite(o)) for o in outs)
    if op == "LSTMCell" and version == 1:  # OpenVINO's extensions beyond the spec stay at their defaults
        assert node.get_input_size() == 6 and not node.attrs["input_forget"] and node.attrs["weights_format"] == "fico"


@pytest.mark.parametrize("lbr", [False, True])
def test_gru_cell_bias_is_optional(lbr: bool) -> None:
    x, h, w, r = arr(2, 3), arr(2, 2), arr(6, 3), arr(6, 2)
    (no_bias,) = run(lambda *a: opset.gru_cell(*a, None, 2, linear_before_reset=lbr), x, h, w, r)
    (zero,) = run(lambda *a: opset.gru_cell(*a, 2, linear_before_reset=lbr), x, h, w, r,
                  np.zeros(8 if lbr else 6, np.float32))
    assert np.array_equal(no_bias, zero)
    assert shapes(opset.gru_cell(P([2, 3]), P([2, 2]), P([6, 3]), P([6, 2]), None, 2)) == ["[2,2]"]
