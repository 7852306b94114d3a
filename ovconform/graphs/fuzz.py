"""Random valid multi-op graphs for the graph fuzz: :func:`graphs`, a hypothesis strategy.

A graph starts from one or two Parameters of one layout — ``nchw`` (images) or ``bsc``
(sequences) — static or dynamic (the spatial or batch/sequence dimensions unknown, two shapes on
one compiled model), and grows op by op from a pool of values. Every op keeps the non-channel
dimensions of its layout, so any two values of the pool can meet: joins (Add, Multiply, Maximum,
Concat on channels, a ReduceMean broadcast back) make branches; one to three values become
outputs. Channel counts come from a short list that reaches the sizes where kernels block
(64, 67, 72) and remainders.

Biased towards what compilers fuse: besides single ops (activations, bias Add, scale Multiply,
Convolution, MatMul, Softmax, Transpose and Reshape round trips, FakeQuantize of an input) the
draw picks whole patterns of the catalogue: Convolution + bias + activation, MatMul + bias +
Gelu, LayerNorm written out, causal self-attention written out, u8 weight decompression +
MatMul. Simpler choices come first, so hypothesis shrinks a failure towards few, plain ops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from ovconform import opset as ops
from ovconform.graphs._case import GraphCase
from ovconform.ir import Model, Node, Output, Type

__all__ = ["CHANNELS", "MAX_OPS", "graphs"]

F32 = Type.f32
#: Channel counts a value may get (few, blocked, remainders).
CHANNELS = (3, 8, 17, 64, 67, 72)
#: Most ops (single ops or patterns) one graph grows by.
MAX_OPS = 8
Draw = st.DrawFn


@dataclass
class _Value:
    out: Output
    channels: int


@dataclass
class _State:
    layout: str  # "nchw" or "bsc"
    rng: np.random.Generator
    pool: list[_Value] = field(default_factory=list)
    count: int = 0

    @property
    def axis(self) -> int:
        return 1 if self.layout == "nchw" else -1

    def name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def add(self, node: Node | Output, channels: int) -> None:
        out = node if isinstance(node, Output) else node.output(0)
        self.pool.append(_Value(out, channels))

    def per_channel(self, channels: int, scale: float = 0.5, offset: float = 0.0) -> Node:
        shape = [1, channels, 1, 1] if self.layout == "nchw" else [channels]
        return ops.constant((offset + scale * self.rng.standard_normal(shape)).astype(np.float32), F32,
                            name=self.name("c"))

    def weight(self, shape: list[int], fan_in: int) -> Node:
        return ops.constant((self.rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32), F32,
                            name=self.name("w"))


def _i64(values: list[int] | int, name: str) -> Node:
    return ops.constant(np.array(values, np.int64), Type.i64, name=name)


_UNARY: dict[str, Callable[[Output, str], Node]] = {
    "Relu": lambda x, n: ops.relu(x, name=n),
    "Sigmoid": lambda x, n: ops.sigmoid(x, name=n),
    "Tanh": lambda x, n: ops.tanh(x, name=n),
    "Clamp": lambda x, n: ops.clamp(x, -1.0, 6.0, name=n),
    "Swish": lambda x, n: ops.swish(x, name=n),
    "HSwish": lambda x, n: ops.hswish(x, name=n),
    "Mish": lambda x, n: ops.mish(x, name=n),
    "Gelu": lambda x, n: ops.gelu(x, "erf", name=n),
    "Abs": lambda x, n: ops.abs(x, name=n),
}


def _pick(draw: Draw, s: _State) -> _Value:
    return s.pool[draw(st.integers(0, len(s.pool) - 1))]


def _unary(draw: Draw, s: _State) -> None:
    v = _pick(draw, s)
    kind = draw(st.sampled_from(list(_UNARY)))
    s.add(_UNARY[kind](v.out, s.name(kind.lower())), v.channels)


def _bias(draw: Draw, s: _State) -> None:
    v = _pick(draw, s)
    op = draw(st.sampled_from([ops.add, ops.multiply]))
    s.add(op(v.out, s.per_channel(v.channels, offset=0.0 if op is ops.add else 1.0),
             name=s.name("bias" if op is ops.add else "scale")), v.channels)


def _join(draw: Draw, s: _State) -> None:
    a = _pick(draw, s)
    same = [v for v in s.pool if v.channels == a.channels]
    b = same[draw(st.integers(0, len(same) - 1))]
    kind = draw(st.sampled_from(["add", "multiply", "maximum", "concat", "mean_broadcast"]))
    if kind == "concat":
        s.add(ops.concat([a.out, b.out], s.axis, name=s.name("concat")), a.channels + b.channels)
    elif kind == "mean_broadcast":
        other = _pick(draw, s)
        mean = ops.reduce_mean(other.out, _i64([s.axis], s.name("axes")), True, name=s.name("mean"))
        s.add(ops.add(a.out, mean, name=s.name("add_mean")), a.channels)
    else:
        fn = {"add": ops.add, "multiply": ops.multiply, "maximum": ops.maximum}[kind]
        s.add(fn(a.out, b.out, name=s.name(kind)), a.channels)


def _linear(draw: Draw, s: _State, v: _Value, cout: int) -> Node:
    """Convolution (nchw; 1×1 or 3×3, same size) or MatMul (bsc) from ``v.channels`` to ``cout``."""
    if s.layout == "nchw":
        k = draw(st.sampled_from([1, 3]))
        w = s.weight([cout, v.channels, k, k], v.channels * k * k)
        pad = k // 2
        return ops.convolution(v.out, w, [1, 1], [pad, pad], [pad, pad], [1, 1], name=s.name("conv"))
    transpose_b = draw(st.booleans())
    shape = [cout, v.channels] if transpose_b else [v.channels, cout]
    return ops.matmul(v.out, s.weight(shape, v.channels), False, bool(transpose_b), name=s.name("matmul"))


def _linear_op(draw: Draw, s: _State) -> None:
    v = _pick(draw, s)
    cout = int(draw(st.sampled_from(CHANNELS)))
    s.add(_linear(draw, s, v, cout), cout)


def _softmax(draw: Draw, s: _State) -> None:
    v = _pick(draw, s)
    s.add(ops.softmax(v.out, s.axis, name=s.name("softmax")), v.channels)


def _round_trip(draw: Draw, s: _State) -> None:
    """A Transpose and its inverse, or a Reshape that flattens and its inverse, around a Relu."""
    v = _pick(draw, s)
    rank = 4 if s.layout == "nchw" else 3
    if draw(st.booleans()):
        perm = list(draw(st.permutations(list(range(rank)))))
        inverse = list(np.argsort(perm))
        t = ops.transpose(v.out, _i64(perm, s.name("perm")), name=s.name("transpose"))
        t = ops.relu(t, name=s.name("relu"))
        s.add(ops.transpose(t, _i64(inverse, s.name("perm")), name=s.name("transpose")), v.channels)
        return
    flat = [0, v.channels, -1] if s.layout == "nchw" else [-1, v.channels]
    r = ops.reshape(v.out, _i64(flat, s.name("shape")), True, name=s.name("reshape"))
    r = ops.relu(r, name=s.name("relu"))
    s.add(ops.reshape(r, ops.shape_of(v.out, name=s.name("shape_of")), False, name=s.name("reshape")), v.channels)


def _conv_bias_act(draw: Draw, s: _State) -> None:
    v = _pick(draw, s)
    cout = int(draw(st.sampled_from((64, 67, 72, *CHANNELS))))
    y = ops.add(_linear(draw, s, v, cout), s.per_channel(cout), name=s.name("bias"))
    kind = draw(st.sampled_from(["Relu", "Clamp", "Swish", "HSwish", "Mish", "Gelu"]))
    s.add(_UNARY[kind](y.output(0), s.name(kind.lower())), cout)


def _layer_norm(draw: Draw, s: _State) -> None:
    v = _pick(draw, s)
    axes = _i64([s.axis], s.name("axes"))
    mean = ops.reduce_mean(v.out, axes, True, name=s.name("ln_mean"))
    d = ops.subtract(v.out, mean, name=s.name("ln_centred"))
    var = ops.reduce_mean(ops.multiply(d, d, name=s.name("ln_sq")), axes, True, name=s.name("ln_var"))
    eps = ops.constant(np.array(1e-5, np.float32), F32, name=s.name("eps"))
    std = ops.sqrt(ops.add(var, eps, name=s.name("ln_var_eps")), name=s.name("ln_std"))
    y = ops.divide(d, std, name=s.name("ln_normed"))
    s.add(ops.add(ops.multiply(y, s.per_channel(v.channels, 0.2, 1.0), name=s.name("ln_scale")),
                  s.per_channel(v.channels), name=s.name("ln_shift")), v.channels)


def _attention(draw: Draw, s: _State) -> None:
    """Causal self-attention written out over a bsc value (one head; the mask built from the
    sequence length, so it works for dynamic shapes)."""
    if s.layout != "bsc":
        _conv_bias_act(draw, s)
        return
    v = _pick(draw, s)
    head = int(draw(st.sampled_from((8, 17, 64))))
    q, k, val = (ops.matmul(v.out, s.weight([v.channels, head], v.channels), False, False, name=s.name(n))
                 for n in ("q", "k", "v"))
    scale = ops.constant(np.array(1 / np.sqrt(head), np.float32), F32, name=s.name("scale"))
    qs = ops.multiply(q, scale, name=s.name("q_scaled"))
    scores = ops.matmul(qs, k, False, True, name=s.name("qk"))
    seq = ops.gather(ops.shape_of(v.out, name=s.name("shape_of")), _i64(1, s.name("seq_axis")),
                     _i64(0, s.name("axis0")), name=s.name("seq_len"))
    pos = ops.range(_i64(0, s.name("start")), seq, _i64(1, s.name("step")), Type.i64, name=s.name("pos"))
    future = ops.greater(ops.unsqueeze(pos, _i64([0], s.name("ax")), name=s.name("cols")),
                         ops.unsqueeze(pos, _i64([1], s.name("ax")), name=s.name("rows")), name=s.name("future"))
    mask = ops.select(future, ops.constant(np.array(-1e9, np.float32), F32, name=s.name("masked")),
                      ops.constant(np.array(0, np.float32), F32, name=s.name("visible")), name=s.name("mask"))
    probs = ops.softmax(ops.add(scores, mask, name=s.name("masked_scores")), -1, name=s.name("probs"))
    s.add(ops.matmul(probs, val, False, False, name=s.name("attn")), head)


def _decompressed_matmul(draw: Draw, s: _State) -> None:
    """u8 weights with a zero point and per-group scales, decompressed before MatMul (bsc)."""
    if s.layout != "bsc":
        _conv_bias_act(draw, s)
        return
    v = _pick(draw, s)
    n = int(draw(st.sampled_from(CHANNELS)))
    groups = next(g for g in (4, 2, 1) if v.channels % g == 0)
    size = v.channels // groups
    wq = ops.constant(s.rng.integers(0, 256, [n, groups, size]).astype(np.uint8), Type.u8, name=s.name("wq"))
    zp = ops.constant(s.rng.integers(96, 160, [n, groups, 1]).astype(np.uint8), Type.u8, name=s.name("zp"))
    w = ops.subtract(ops.convert(wq, F32, name=s.name("w_f32")), ops.convert(zp, F32, name=s.name("zp_f32")),
                     name=s.name("w_zp"))
    scale = (s.rng.uniform(0.5, 1.5, [n, groups, 1]) / 255 / np.sqrt(v.channels)).astype(np.float32)
    w = ops.multiply(w, ops.constant(scale, F32, name=s.name("w_scale")), name=s.name("w_scaled"))
    w = ops.reshape(w, _i64([n, v.channels], s.name("w_shape")), False, name=s.name("w_2d"))
    s.add(ops.matmul(v.out, w, False, True, name=s.name("fc")), n)


def _matmul_bias_gelu(draw: Draw, s: _State) -> None:
    v = _pick(draw, s)
    cout = int(draw(st.sampled_from(CHANNELS)))
    y = ops.add(_linear(draw, s, v, cout), s.per_channel(cout), name=s.name("bias"))
    s.add(ops.gelu(y, "erf", name=s.name("gelu")), cout)


#: The growth steps, simplest first (hypothesis shrinks towards the front).
STEPS: tuple[Callable[[Draw, _State], None], ...] = (
    _unary, _bias, _join, _linear_op, _softmax, _round_trip, _conv_bias_act, _matmul_bias_gelu, _layer_norm,
    _attention, _decompressed_matmul)


def _shape(draw: Draw, layout: str, channels: int) -> list[int]:
    if layout == "nchw":
        return [int(draw(st.integers(1, 2))), channels, int(draw(st.integers(1, 9))),
                int(draw(st.integers(1, 9)))]
    return [int(draw(st.integers(1, 2))), int(draw(st.sampled_from([1, 5, 17, 33]))), channels]


#: The range and levels of a FakeQuantize on an input.
FQ_RANGE, FQ_LEVELS = (-2.0, 2.0), 256


def _feed(rng: np.random.Generator, shape: list[int], on_grid: bool) -> np.ndarray:
    """Uniform inputs in the FakeQuantize range; on its grid for an input that is quantised, so a
    device's different but right rounding of ``(x - low) / step`` cannot flip a level."""
    lo, hi = FQ_RANGE
    if not on_grid:
        return rng.uniform(lo, hi, shape).astype(np.float32)
    return (lo + rng.integers(0, FQ_LEVELS, shape) * ((hi - lo) / (FQ_LEVELS - 1))).astype(np.float32)


@st.composite
def graphs(draw: Draw) -> GraphCase:
    """One random graph with its inputs (see the module docstring)."""
    layout = str(draw(st.sampled_from(["bsc", "nchw"])))
    dynamic = bool(draw(st.booleans()))
    s = _State(layout, np.random.default_rng(int(draw(st.integers(0, 2 ** 16)))))
    dyn_axes = (2, 3) if layout == "nchw" else (0, 1)
    first, redraw = _shape(draw, layout, 0), _shape(draw, layout, 0)
    second = [redraw[j] if j in dyn_axes else d for j, d in enumerate(first)]  # the second step's shape
    params, shapes, on_grid = [], {}, set()
    for i in range(int(draw(st.integers(1, 2)))):
        channels = int(draw(st.sampled_from(CHANNELS)))
        name = f"x{i}"
        static = [channels if j == (1 if layout == "nchw" else 2) else d for j, d in enumerate(first)]
        other = [channels if j == (1 if layout == "nchw" else 2) else d for j, d in enumerate(second)]
        declared = [-1 if dynamic and j in dyn_axes else d for j, d in enumerate(static)]
        p = ops.parameter(declared, F32, name=name)
        p.output(0).set_names({name})
        params.append(p)
        shapes[name] = [static, other] if dynamic else [static]
        if draw(st.booleans()):  # FakeQuantize an input (never a computed value: its steps would flip)
            lo, hi = (ops.constant(np.array(b, np.float32), F32, name=s.name("fq")) for b in FQ_RANGE)
            s.add(ops.fake_quantize(p, lo, hi, lo, hi, FQ_LEVELS, name=s.name("fq")), channels)
            on_grid.add(name)
        else:
            s.add(p, channels)
    for _ in range(int(draw(st.integers(1, MAX_OPS)))):
        step = draw(st.sampled_from(STEPS))
        step(draw, s)
    computed = [v for v in s.pool if v.out.node.type_name != "Parameter"]
    outputs = [computed[-1].out]
    for _ in range(int(draw(st.integers(0, 2)))):
        extra = computed[int(draw(st.integers(0, len(computed) - 1)))].out
        if extra not in outputs:
            outputs.append(extra)
    model = Model(outputs, params, "graphfuzz")
    steps = [{n: _feed(s.rng, shapes[n][k], n in on_grid) for n in shapes} for k in range(2 if dynamic else 1)]
    return GraphCase("graphfuzz", model, steps, "random graph", dynamic)
