"""The fusion-pattern catalogue: the subgraphs device compilers fuse, at realistic sizes.

Each pattern is built twice: static, and dynamic (the batch/sequence/spatial dimensions of its
Parameters unknown; two inferences of different shapes on one compiled model). Sizes reach where
kernels tile and vectorise and leave remainders: 67 output channels (4 blocks of 16 and 3),
sequences of 131, inner sizes of 72 and 200.

============================ =====================================================================
pattern                      what a compiler fuses
============================ =====================================================================
conv_bias_{act}              Convolution + per-channel Add + Relu / Clamp / Swish / HSwish / Mish / Gelu
matmul_add_gelu              MatMul + bias Add + Gelu (a fully-connected layer with its activation)
layer_norm                   ReduceMean, Subtract, square, ReduceMean, Add eps, Sqrt, Divide, scale, shift
rms_norm                     Power 2, ReduceMean, Add eps, Sqrt, Divide, Multiply, scale
group_norm                   Reshape to groups, the layer-norm decomposition, Reshape back, scale, shift
attention_causal             scaled Q, MatMul QKᵀ, Add causal mask (built from ShapeOf/Range), Softmax, MatMul V
attention_padding            the same with an additive padding mask fed as an input
sdpa_causal / sdpa_mask      ScaledDotProductAttention (causal; with the padding mask)
rope                         rotary position embedding: positions (Range) × frequencies, Sin/Cos, half rotation
fq_conv / fq_matmul          FakeQuantize on data and weights around Convolution / MatMul
decompress_{u8,i8,u4,i4}     weight decompression: Convert → (Subtract zero point) → Multiply grouped scales
                             → Reshape → MatMul
decompress_u4_scalar_zp      the same with one scalar zero point (u4 8) for the whole tensor
decompress_{f8e4m3,f8e5m2}   f8 weights, half of them subnormal codes (exponent field 0), → Convert → Multiply
                             grouped scales → Reshape → MatMul
residual_add                 two Convolution + bias (+ Relu) and the skip Add, Relu
concat_convs                 three Convolutions (1×1, 3×3, 5×5) + bias, Concat on channels, Relu
transpose_reshape_cancel     Reshape/Transpose chains that cancel, around elementwise ops
squeeze_unsqueeze            Squeeze/Unsqueeze around elementwise ops
strided_slice_views          StridedSlice views (step 2, reversed, channel stride) feeding elementwise ops
conv_add_grid                Convolution / MatMul + Add of a constant that is NOT per-channel: a full
                             [1,C,H,W] table (a positional/grid term), a spatial [1,1,H,W] one, a scalar;
                             the input gets a full table of its own first
conv_scale_grid              the same with Multiply (a scale a compiler must not fold into the weights)
bias_shared_by_activation    Convolution / MatMul + bias Add + activation where the Add's value has a second
                             reader: x·sigmoid(x) written out, a residual of the pre-activation, a model output
convert_round_trip_{f16,i32} Convert f32 → f16 → f32 / f32 → i32 → f32 on run-time values (the rounding and
                             the truncation are the point: a "redundant Convert" pass must keep them)
unused_leading_input         an unused Parameter declared before the used one (inputs bound by index)
input_passthrough            a Parameter that is also a model output (Parameter → Result) beside a computed one
============================ =====================================================================

The static variant infers twice on one request (same shapes, new values): a device that keeps
state from the first inference (an output bound to the first input, a constant overwritten in
place) returns wrong values the second time.

:func:`names` lists the patterns; :func:`build` builds one (``dynamic`` for the dynamic variant).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.graphs._case import GraphCase
from ovconform.ir import Model, Node, Output, Type

__all__ = ["ACTIVATIONS", "DECOMPRESSION_TYPES", "build", "names"]

F32 = Type.f32
NodeLike = Node | Output
#: conv_bias_<name>: the activation after Convolution + bias.
ACTIVATIONS: dict[str, Callable[[NodeLike, str], Node]] = {
    "relu": lambda x, n: ops.relu(x, name=n),
    "clamp": lambda x, n: ops.clamp(x, 0.0, 6.0, name=n),
    "swish": lambda x, n: ops.swish(x, name=n),
    "hswish": lambda x, n: ops.hswish(x, name=n),
    "mish": lambda x, n: ops.mish(x, name=n),
    "gelu": lambda x, n: ops.gelu(x, "erf", name=n),
}
#: decompress_<type>: the element types of the compressed weights (u/i: with/without zero point).
DECOMPRESSION_TYPES = ("u8", "i8", "u4", "i4")
MASKED = -1e9  # an additive mask's "masked" value (finite, so a row of it stays a number)


class _Graph:
    """Builds one pattern: seeded values, Parameters that are dynamic in the dynamic variant,
    and the inputs of each step."""

    def __init__(self, name: str, dynamic: bool, seed: int) -> None:
        self.name, self.dynamic = name, dynamic
        self.rng = np.random.default_rng(seed)
        self.params: list[Node] = []
        self.shapes: dict[str, list[list[int]]] = {}
        self.feeds: dict[str, Callable[[list[int]], np.ndarray]] = {}

    def param(self, name: str, shape: Sequence[int], dynamic_axes: Sequence[int], second: Sequence[int],
              feed: Callable[[list[int]], np.ndarray] | None = None) -> Node:
        """A Parameter of ``shape`` (``-1`` on ``dynamic_axes`` in the dynamic variant); the
        dynamic variant's second step feeds shape ``second``."""
        declared = [-1 if self.dynamic and i in dynamic_axes else d for i, d in enumerate(shape)]
        p = ops.parameter(declared, F32, name=name)
        p.output(0).set_names({name})
        self.params.append(p)
        self.shapes[name] = [list(shape), list(second)] if self.dynamic else [list(shape)]
        self.feeds[name] = feed or (lambda s: self.rng.standard_normal(s).astype(np.float32))
        return p

    def weight(self, shape: Sequence[int], fan_in: int, name: str) -> Node:
        data = (self.rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
        return ops.constant(data, F32, name=name)

    def small(self, shape: Sequence[int], name: str, scale: float = 0.5, offset: float = 0.0) -> Node:
        data = (offset + scale * self.rng.standard_normal(shape)).astype(np.float32)
        return ops.constant(data, F32, name=name)

    def done(self, outputs: Sequence[NodeLike], fuses: str) -> GraphCase:
        model = Model(list(outputs), self.params, f"{self.name}{'_dynamic' if self.dynamic else ''}")
        # static: the same shapes twice (new values); dynamic: two shapes
        steps = [{n: self.feeds[n](self.shapes[n][min(s, len(self.shapes[n]) - 1)]) for n in self.shapes}
                 for s in range(2)]
        return GraphCase(self.name, model, steps, fuses, self.dynamic)


def _scalar(value: float, name: str, et: Type = F32) -> Node:
    return ops.constant(np.array(value, et.to_dtype()), et, name=name)


def _axes(values: Sequence[int], name: str) -> Node:
    return ops.constant(np.array(values, np.int64), Type.i64, name=name)


def _conv(g: _Graph, x: NodeLike, cin: int, cout: int, k: int, name: str) -> Node:
    w = g.weight([cout, cin, k, k], cin * k * k, f"{name}_w")
    return ops.convolution(x, w, [1, 1], [k // 2, k // 2], [k // 2, k // 2], [1, 1], name=name)


def _conv_bias(g: _Graph, x: NodeLike, cin: int, cout: int, k: int, name: str) -> Node:
    conv = _conv(g, x, cin, cout, k, name)
    return ops.add(conv, g.small([1, cout, 1, 1], f"{name}_bias"), name=f"{name}_bias_add")


# -- convolution + bias + activation --------------------------------------------------------------------

def _conv_bias_act(act: str) -> Callable[[bool], GraphCase]:
    def build(dynamic: bool) -> GraphCase:
        g = _Graph(f"conv_bias_{act}", dynamic, 100 + list(ACTIVATIONS).index(act))
        x = g.param("x", [1, 19, 15, 13], (2, 3), [1, 19, 9, 22])
        y = ACTIVATIONS[act](_conv_bias(g, x, 19, 67, 3, "conv"), act)
        return g.done([y], f"Convolution + bias Add + {y.type_name}")
    return build


def _matmul_add_gelu(dynamic: bool) -> GraphCase:
    g = _Graph("matmul_add_gelu", dynamic, 200)
    x = g.param("x", [2, 131, 72], (0, 1), [1, 77, 72])
    mm = ops.matmul(x, g.weight([72, 200], 72, "fc_w"), False, False, name="fc")
    y = ops.gelu(ops.add(mm, g.small([200], "fc_bias"), name="fc_bias_add"), "erf", name="gelu")
    return g.done([y], "MatMul + bias Add + Gelu (fully connected with activation)")


# -- normalisations written out ------------------------------------------------------------------------

def _mean_var_norm(x: NodeLike, axes: Sequence[int], eps: float, name: str) -> Node:
    mean = ops.reduce_mean(x, _axes(axes, f"{name}_axes"), True, name=f"{name}_mean")
    d = ops.subtract(x, mean, name=f"{name}_centred")
    var = ops.reduce_mean(ops.multiply(d, d, name=f"{name}_sq"), _axes(axes, f"{name}_axes2"), True,
                          name=f"{name}_var")
    std = ops.sqrt(ops.add(var, _scalar(eps, f"{name}_eps"), name=f"{name}_var_eps"), name=f"{name}_std")
    return ops.divide(d, std, name=f"{name}_normed")


def _layer_norm(dynamic: bool) -> GraphCase:
    g = _Graph("layer_norm", dynamic, 300)
    x = g.param("x", [2, 131, 200], (0, 1), [3, 70, 200])
    y = _mean_var_norm(x, [-1], 1e-5, "ln")
    y = ops.add(ops.multiply(y, g.small([200], "ln_gamma", 0.2, 1.0), name="ln_scale"), g.small([200], "ln_beta"),
                name="ln_shift")
    return g.done([y], "LayerNorm decomposition (MVN + scale + shift)")


def _rms_norm(dynamic: bool) -> GraphCase:
    g = _Graph("rms_norm", dynamic, 301)
    x = g.param("x", [2, 131, 200], (0, 1), [3, 70, 200])
    ms = ops.reduce_mean(ops.power(x, _scalar(2.0, "two"), name="rms_sq"), _axes([-1], "rms_axes"), True,
                         name="rms_mean")
    inv = ops.divide(_scalar(1.0, "one"), ops.sqrt(ops.add(ms, _scalar(1e-6, "rms_eps"), name="rms_eps_add"),
                                                     name="rms_sqrt"), name="rms_inv")
    y = ops.multiply(ops.multiply(x, inv, name="rms_normed"), g.small([200], "rms_gamma", 0.2, 1.0), name="rms_scale")
    return g.done([y], "RMSNorm decomposition")


def _group_norm(dynamic: bool) -> GraphCase:
    g = _Graph("group_norm", dynamic, 302)
    x = g.param("x", [2, 64, 15, 13], (0, 2, 3), [1, 64, 9, 10])
    grouped = ops.reshape(x, _axes([0, 8, -1], "gn_groups"), True, name="gn_to_groups")
    y = _mean_var_norm(grouped, [2], 1e-5, "gn")
    y = ops.reshape(y, ops.shape_of(x, name="gn_shape"), False, name="gn_back")
    y = ops.add(ops.multiply(y, g.small([1, 64, 1, 1], "gn_gamma", 0.2, 1.0), name="gn_scale"),
                g.small([1, 64, 1, 1], "gn_beta"), name="gn_shift")
    return g.done([y], "GroupNorm decomposition (Reshape, MVN, Reshape, scale, shift)")


# -- attention -------------------------------------------------------------------------------------------

HEAD = 40


def _qkv(g: _Graph) -> tuple[Node, Node, Node]:
    shape, second = [1, 4, 131, HEAD], [2, 4, 70, HEAD]
    return tuple(g.param(n, shape, (0, 2), second) for n in ("q", "k", "v"))  # type: ignore[return-value]


def _padding_mask(shape: list[int]) -> np.ndarray:
    """Additive mask [B, 1, 1, S]: batch b masks its last 7 + 13·b positions."""
    mask = np.zeros(shape, np.float32)
    for b in range(shape[0]):
        mask[b, ..., shape[-1] - min(shape[-1] - 1, 7 + 13 * b):] = MASKED
    return mask


def _causal_mask(q: NodeLike) -> Node:
    """[S, S] additive mask built from q's sequence length: MASKED above the diagonal."""
    seq = ops.gather(ops.shape_of(q, name="q_shape"), _scalar(2, "seq_axis", Type.i64), _scalar(0, "gather_axis",
                                                                                                Type.i64),
                     name="seq_len")
    pos = ops.range(_scalar(0, "pos_start", Type.i64), seq, _scalar(1, "pos_step", Type.i64), Type.i64, name="pos")
    rows = ops.unsqueeze(pos, _axes([1], "rows_axis"), name="rows")
    cols = ops.unsqueeze(pos, _axes([0], "cols_axis"), name="cols")
    future = ops.greater(cols, rows, name="future")
    return ops.select(future, _scalar(MASKED, "masked"), _scalar(0.0, "visible"), name="causal_mask")


def _attention(g: _Graph, q: NodeLike, k: NodeLike, v: NodeLike, mask: NodeLike) -> Node:
    qs = ops.multiply(q, _scalar(1.0 / np.sqrt(HEAD), "scale"), name="q_scaled")
    scores = ops.matmul(qs, k, False, True, name="qk")
    masked = ops.add(scores, mask, name="masked_scores")
    probs = ops.softmax(masked, -1, name="probs")
    return ops.matmul(probs, v, False, False, name="attn")


def _attention_causal(dynamic: bool) -> GraphCase:
    g = _Graph("attention_causal", dynamic, 400)
    q, k, v = _qkv(g)
    return g.done([_attention(g, q, k, v, _causal_mask(q))], "attention written out (causal mask)")


def _attention_padding(dynamic: bool) -> GraphCase:
    g = _Graph("attention_padding", dynamic, 401)
    q, k, v = _qkv(g)
    mask = g.param("mask", [1, 1, 1, 131], (0, 3), [2, 1, 1, 70], _padding_mask)
    return g.done([_attention(g, q, k, v, mask)], "attention written out (padding mask)")


def _sdpa_causal(dynamic: bool) -> GraphCase:
    g = _Graph("sdpa_causal", dynamic, 402)
    q, k, v = _qkv(g)
    return g.done([ops.scaled_dot_product_attention(q, k, v, causal=True, name="sdpa")],
                  "ScaledDotProductAttention (causal)")


def _sdpa_mask(dynamic: bool) -> GraphCase:
    g = _Graph("sdpa_mask", dynamic, 403)
    q, k, v = _qkv(g)
    mask = g.param("mask", [1, 1, 1, 131], (0, 3), [2, 1, 1, 70], _padding_mask)
    return g.done([ops.scaled_dot_product_attention(q, k, v, mask, name="sdpa")],
                  "ScaledDotProductAttention (padding mask)")


def _rope(dynamic: bool) -> GraphCase:
    g = _Graph("rope", dynamic, 500)
    d = 64
    x = g.param("x", [1, 4, 131, d], (0, 2), [2, 4, 70, d])
    seq = ops.gather(ops.shape_of(x, name="x_shape"), _scalar(2, "seq_axis", Type.i64),
                     _scalar(0, "gather_axis", Type.i64), name="seq_len")
    pos = ops.convert(ops.range(_scalar(0, "pos_start", Type.i64), seq, _scalar(1, "pos_step", Type.i64), Type.i64,
                                name="pos"), F32, name="pos_f32")
    inv_freq = (1.0 / 10000 ** (np.arange(0, d, 2, dtype=np.float64) / d)).astype(np.float32).reshape(1, -1)
    freqs = ops.multiply(ops.unsqueeze(pos, _axes([1], "pos_axis"), name="pos_col"),
                         ops.constant(inv_freq, F32, name="inv_freq"), name="freqs")
    emb = ops.concat([freqs, freqs], -1, name="emb")
    cos, sin = ops.cos(emb, name="cos"), ops.sin(emb, name="sin")
    halves = ops.variadic_split(x, _scalar(-1, "split_axis", Type.i64), _axes([d // 2, d // 2], "split_lengths"),
                                name="halves")
    rotated = ops.concat([ops.negative(halves.output(1), name="neg_x2"), halves.output(0)], -1, name="rotated")
    y = ops.add(ops.multiply(x, cos, name="x_cos"), ops.multiply(rotated, sin, name="rot_sin"), name="rope")
    return g.done([y], "rotary position embedding (RoPE)")


# -- quantisation ------------------------------------------------------------------------------------------

def _fq(x: NodeLike, lo: float, hi: float, levels: int, name: str) -> Node:
    return ops.fake_quantize(x, _scalar(lo, f"{name}_il"), _scalar(hi, f"{name}_ih"), _scalar(lo, f"{name}_ol"),
                             _scalar(hi, f"{name}_oh"), levels, name=name)


def _fq_conv(dynamic: bool) -> GraphCase:
    g = _Graph("fq_conv", dynamic, 600)
    x = g.param("x", [1, 32, 15, 13], (2, 3), [1, 32, 9, 22])
    w = _fq(g.weight([67, 32, 3, 3], 288, "conv_w"), -0.25, 0.25, 255, "fq_w")
    conv = ops.convolution(_fq(x, -3.0, 3.0, 256, "fq_x"), w, [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    y = ops.add(conv, g.small([1, 67, 1, 1], "conv_bias"), name="conv_bias_add")
    return g.done([y], "FakeQuantize on data and weights + Convolution + bias (quantised convolution)")


def _fq_matmul(dynamic: bool) -> GraphCase:
    g = _Graph("fq_matmul", dynamic, 601)
    x = g.param("x", [2, 131, 72], (0, 1), [1, 77, 72])
    w = _fq(g.weight([72, 96], 72, "fc_w"), -0.4, 0.4, 255, "fq_w")
    y = ops.matmul(_fq(x, -3.0, 3.0, 256, "fq_x"), w, False, False, name="fc")
    return g.done([y], "FakeQuantize on data and weights + MatMul (quantised fully connected)")


_RANGES = {"u8": (0, 255), "i8": (-128, 127), "u4": (0, 15), "i4": (-8, 7)}


def _decompress(et_name: str) -> Callable[[bool], GraphCase]:
    def build(dynamic: bool) -> GraphCase:
        g = _Graph(f"decompress_{et_name}", dynamic, 700 + DECOMPRESSION_TYPES.index(et_name))
        n, groups, group = 200, 6, 32
        x = g.param("x", [2, 131, groups * group], (0, 1), [1, 77, groups * group])
        et = getattr(Type, et_name)
        lo, hi = _RANGES[et_name]
        dtype = np.uint8 if et_name.startswith("u") else np.int8
        wq = ops.constant(g.rng.integers(lo, hi + 1, [n, groups, group]).astype(dtype), et, name="w_compressed")
        w = ops.convert(wq, F32, name="w_convert")
        if et_name.startswith("u"):
            quarter = (hi - lo) // 4
            zp = ops.constant(g.rng.integers(lo + quarter, hi - quarter + 1, [n, groups, 1]).astype(dtype), et,
                              name="w_zero_point")
            w = ops.subtract(w, ops.convert(zp, F32, name="zp_convert"), name="w_zp")
        scale = (g.rng.uniform(0.5, 1.5, [n, groups, 1]) / (hi - lo) / np.sqrt(groups * group)).astype(np.float32)
        w = ops.multiply(w, ops.constant(scale, F32, name="w_scale"), name="w_scaled")
        w = ops.reshape(w, _axes([n, groups * group], "w_shape"), False, name="w_2d")
        y = ops.matmul(x, w, False, True, name="fc")
        return g.done([y], f"{et_name} weight decompression (grouped scales) + MatMul")
    return build


def _decompress_scalar_zp(dynamic: bool) -> GraphCase:
    """u4 weights with one zero point for the whole tensor (a scalar u4 8: NNCF's older symmetric
    form), grouped scales: a decompression matcher that takes per-group zero points only must keep it."""
    g = _Graph("decompress_u4_scalar_zp", dynamic, 710)
    n, groups, group = 200, 6, 32
    x = g.param("x", [2, 131, groups * group], (0, 1), [1, 77, groups * group])
    wq = ops.constant(g.rng.integers(0, 16, [n, groups, group]).astype(np.uint8), Type.u4, name="w_compressed")
    w = ops.convert(wq, F32, name="w_convert")
    zp = ops.convert(ops.constant(np.array(8, np.uint8), Type.u4, name="w_zero_point"), F32, name="zp_convert")
    w = ops.subtract(w, zp, name="w_zp")
    scale = (g.rng.uniform(0.5, 1.5, [n, groups, 1]) / 15 / np.sqrt(groups * group)).astype(np.float32)
    w = ops.multiply(w, ops.constant(scale, F32, name="w_scale"), name="w_scaled")
    w = ops.reshape(w, _axes([n, groups * group], "w_shape"), False, name="w_2d")
    y = ops.matmul(x, w, False, True, name="fc")
    return g.done([y], "u4 weight decompression with a scalar zero point (grouped scales) + MatMul")


#: decompress_<f8 type>: the mantissa bits of the type (the exponent field starts above them).
_F8_SMALL = {"f8e4m3": 3, "f8e5m2": 2}


def _decompress_f8(et_name: str) -> Callable[[bool], GraphCase]:
    """f8 weights (Constant -> Convert -> Multiply grouped scales -> MatMul) of which about half are
    subnormal codes (exponent field 0), the rest from the two binades above them, so the subnormals
    weigh as much as the normal values in every output."""
    def build(dynamic: bool) -> GraphCase:
        g = _Graph(f"decompress_{et_name}", dynamic, 720 + list(_F8_SMALL).index(et_name))
        n, groups, group = 200, 6, 32
        x = g.param("x", [2, 131, groups * group], (0, 1), [1, 77, groups * group])
        mbits = _F8_SMALL[et_name]
        exponent = np.where(g.rng.random([n, groups, group]) < 0.5, 0, g.rng.integers(1, 3, [n, groups, group]))
        mantissa = g.rng.integers(0, 1 << mbits, [n, groups, group])
        mantissa = np.where(exponent == 0, np.maximum(mantissa, 1), mantissa)  # no zeros among the subnormals
        sign = (g.rng.random([n, groups, group]) < 0.5).astype(np.int64) << 7
        codes = (sign | (exponent << mbits) | mantissa).astype(np.uint8)
        wq = ops.constant(codes, getattr(Type, et_name), name="w_compressed")
        w = ops.convert(wq, F32, name="w_convert")
        smallest_normal = 2.0 ** (-6 if et_name == "f8e4m3" else -14)
        scale = (g.rng.uniform(0.5, 1.5, [n, groups, 1]) / (4 * smallest_normal) / np.sqrt(groups * group))
        w = ops.multiply(w, ops.constant(scale.astype(np.float32), F32, name="w_scale"), name="w_scaled")
        w = ops.reshape(w, _axes([n, groups * group], "w_shape"), False, name="w_2d")
        y = ops.matmul(x, w, False, True, name="fc")
        return g.done([y], f"{et_name} weight decompression (half the codes subnormal, grouped scales) + MatMul")
    return build


# -- structure ---------------------------------------------------------------------------------------------

def _residual_add(dynamic: bool) -> GraphCase:
    g = _Graph("residual_add", dynamic, 800)
    x = g.param("x", [1, 64, 15, 13], (2, 3), [1, 64, 9, 22])
    y = ops.relu(_conv_bias(g, x, 64, 64, 3, "conv1"), name="relu1")
    y = _conv_bias(g, y, 64, 64, 3, "conv2")
    return g.done([ops.relu(ops.add(y, x, name="residual"), name="relu2")], "Convolution + bias + residual Add + Relu")


def _concat_convs(dynamic: bool) -> GraphCase:
    g = _Graph("concat_convs", dynamic, 801)
    x = g.param("x", [1, 19, 15, 13], (2, 3), [1, 19, 9, 22])
    branches = [_conv_bias(g, x, 19, c, k, f"conv{k}x{k}") for c, k in ((24, 1), (40, 3), (17, 5))]
    y = ops.relu(ops.concat(branches, 1, name="concat"), name="relu")
    return g.done([y], "Convolutions concatenated on channels (inception block)")


def _transpose_reshape_cancel(dynamic: bool) -> GraphCase:
    g = _Graph("transpose_reshape_cancel", dynamic, 900)
    x = g.param("x", [2, 131, 72], (0, 1), [1, 77, 72])
    heads = ops.reshape(x, _axes([0, 0, 4, 18], "to_heads"), True, name="to_heads")
    t1 = ops.transpose(heads, _axes([0, 2, 1, 3], "perm1"), name="t1")
    t2 = ops.transpose(ops.relu(t1, name="relu_heads"), _axes([0, 2, 1, 3], "perm2"), name="t2")
    back = ops.reshape(t2, _axes([0, 0, 72], "from_heads"), True, name="from_heads")
    y1 = ops.multiply(back, g.small([72], "scale"), name="scaled")
    tt = ops.transpose(ops.transpose(x, _axes([0, 2, 1], "perm3"), name="t3"), _axes([0, 2, 1], "perm4"), name="t4")
    y2 = ops.add(tt, g.small([72], "shift"), name="shifted")
    return g.done([y1, y2], "Reshape/Transpose chains that cancel (transpose sinking, reshape elimination)")


def _squeeze_unsqueeze(dynamic: bool) -> GraphCase:
    g = _Graph("squeeze_unsqueeze", dynamic, 901)
    x = g.param("x", [2, 1, 131, 72], (0, 2), [3, 1, 70, 72])
    s = ops.squeeze(x, _axes([1], "sq_axis"), name="squeeze")
    y = ops.unsqueeze(ops.add(s, g.small([72], "bias"), name="bias_add"), _axes([1], "unsq_axis"), name="unsqueeze")
    y = ops.relu(ops.multiply(y, g.small([72], "scale"), name="scale_mul"), name="relu")
    u = ops.unsqueeze(ops.sigmoid(x, name="sig"), _axes([0], "unsq0"), name="unsqueeze0")
    y2 = ops.squeeze(ops.multiply(u, _scalar(3.0, "three"), name="triple"), _axes([0, 2], "sq02"), name="squeeze02")
    return g.done([y, y2], "Squeeze/Unsqueeze around elementwise ops")


def _strided_slice_views(dynamic: bool) -> GraphCase:
    g = _Graph("strided_slice_views", dynamic, 902)
    x = g.param("x", [1, 64, 31, 29], (2, 3), [1, 64, 20, 17])
    every_other_reversed = ops.strided_slice(x, _axes([0, 0, 1, 0], "b1"), _axes([0, 0, 0, 0], "e1"),
                                             _axes([1, 1, 2, -1], "s1"), [1, 1, 0, 1], [1, 1, 1, 1], name="ss_rev")
    y1 = ops.relu(ops.add(ops.multiply(every_other_reversed, _scalar(2.0, "two"), name="ss_mul"),
                          _scalar(1.0, "one"), name="ss_add"), name="ss_relu")
    channels = ops.strided_slice(x, _axes([0, 8, 0, 0], "b2"), _axes([0, 40, 0, 0], "e2"), _axes([1, 3, 1, 1], "s2"),
                                 [1, 0, 1, 1], [1, 0, 1, 1], name="ss_channels")
    y2 = ops.add(channels, g.small([1, 11, 1, 1], "ch_bias"), name="ch_bias_add")
    return g.done([y1, y2], "StridedSlice views (step 2, reversed, channel stride) + elementwise")


# -- constants that are not per-channel, shared values, round trips, inputs ----------------------------------

def _grid(kind: str) -> Callable[[bool], GraphCase]:
    """Convolution / MatMul followed by Add or Multiply of a constant that is not per-channel."""
    def build(dynamic: bool) -> GraphCase:
        g = _Graph(f"conv_{kind}_grid", dynamic, 1000 + (kind == "scale"))
        combine = ops.add if kind == "add" else ops.multiply
        offset = 1.0 if kind == "scale" else 0.0
        op = "add" if kind == "add" else "mul"
        c, h, w = 24, 15, 13
        x = g.param("x", [1, 8, h, w], (0,), [2, 8, h, w])
        # the input's own table is input 0 (an in-place planner must not write into a Constant)
        x = combine(g.small([1, 8, h, w], "input_table", 0.5, offset), x, name=f"{op}_input_table")
        full = combine(g.small([1, c, h, w], "full_table", 0.5, offset), _conv(g, x, 8, c, 3, "conv_full"),
                       name=f"{op}_full")
        spatial = combine(_conv(g, x, 8, c, 3, "conv_spatial"), g.small([1, 1, h, w], "spatial_table", 0.5, offset),
                          name=f"{op}_spatial")
        scalar = combine(_conv(g, x, 8, c, 3, "conv_scalar"), _scalar(offset + 0.375, "scalar"), name=f"{op}_scalar")
        t = g.param("t", [2, 31, 40], (0,), [3, 31, 40])
        fc = ops.matmul(t, g.weight([40, 72], 40, "fc_w"), False, False, name="fc")
        table = combine(fc, g.small([31, 72], "fc_table", 0.5, offset), name=f"fc_{op}_table")
        return g.done([full, spatial, scalar, table],
                      f"Convolution / MatMul + {'Add' if kind == 'add' else 'Multiply'} of a full, spatial or scalar "
                      "constant (not a per-channel bias/scale)")
    return build


def _bias_shared_by_activation(dynamic: bool) -> GraphCase:
    g = _Graph("bias_shared_by_activation", dynamic, 1010)
    x = g.param("x", [1, 16, 15, 13], (2, 3), [1, 16, 9, 22])
    pre = _conv_bias(g, x, 16, 40, 3, "conv")
    silu = ops.multiply(pre, ops.sigmoid(pre, name="conv_sigmoid"), name="conv_silu")  # x * sigmoid(x) written out
    pre2 = _conv_bias(g, x, 16, 24, 1, "conv2")
    act2 = ops.relu(pre2, name="conv2_relu")  # its pre-activation is a model output too
    t = g.param("t", [2, 31, 72], (0, 1), [1, 20, 72])
    fc = ops.add(ops.matmul(t, g.weight([72, 72], 72, "fc_w"), False, False, name="fc"), g.small([72], "fc_bias"),
                 name="fc_bias_add")
    skip = ops.add(ops.tanh(fc, name="fc_tanh"), fc, name="fc_skip")  # a residual of the pre-activation
    return g.done([silu, act2, pre2, skip], "Convolution / MatMul + bias + activation, the bias Add read twice")


def _convert_round_trip(through: str) -> Callable[[bool], GraphCase]:
    """Convert f32 -> ``through`` -> f32 between real ops, and what the round trip loses."""
    def build(dynamic: bool) -> GraphCase:
        g = _Graph(f"convert_round_trip_{through}", dynamic, 1020 + (through == "i32"))
        x = g.param("x", [2, 131, 72], (0, 1), [1, 77, 72])
        scaled = ops.multiply(x, g.small([72], "scale", 8.0, 40.0), name="scaled")
        back = ops.convert(ops.convert(scaled, getattr(Type, through), name=f"to_{through}"), F32,
                           name=f"from_{through}")
        lost = ops.subtract(scaled, back, name=f"{through}_lost")  # the f16 rounding / the truncated fraction
        return g.done([lost, ops.relu(back, name="back_relu")],
                      f"Convert round trip f32 -> {through} -> f32 between real ops")
    return build


def _unused_leading_input(dynamic: bool) -> GraphCase:
    g = _Graph("unused_leading_input", dynamic, 1030)
    g.param("unused", [2, 131, 72], (0, 1), [1, 77, 72])  # declared first, read by nothing
    x = g.param("x", [2, 131, 72], (0, 1), [1, 77, 72])
    y = ops.multiply(ops.relu(x, name="relu"), g.small([72], "scale"), name="scaled")
    return g.done([y], "an unused Parameter before the used one (dead-input elimination, binding by index)")


def _input_passthrough(dynamic: bool) -> GraphCase:
    g = _Graph("input_passthrough", dynamic, 1040)
    x = g.param("x", [2, 131, 72], (0, 1), [1, 77, 72])
    y = ops.add(ops.sigmoid(x, name="sig"), g.small([72], "shift"), name="shifted")
    return g.done([y, x], "a Parameter that is also a model output (Parameter -> Result)")


_BUILDERS: dict[str, Callable[[bool], GraphCase]] = {
    **{f"conv_bias_{a}": _conv_bias_act(a) for a in ACTIVATIONS},
    "matmul_add_gelu": _matmul_add_gelu,
    "layer_norm": _layer_norm,
    "rms_norm": _rms_norm,
    "group_norm": _group_norm,
    "attention_causal": _attention_causal,
    "attention_padding": _attention_padding,
    "sdpa_causal": _sdpa_causal,
    "sdpa_mask": _sdpa_mask,
    "rope": _rope,
    "fq_conv": _fq_conv,
    "fq_matmul": _fq_matmul,
    **{f"decompress_{t}": _decompress(t) for t in DECOMPRESSION_TYPES},
    "decompress_u4_scalar_zp": _decompress_scalar_zp,
    **{f"decompress_{t}": _decompress_f8(t) for t in _F8_SMALL},
    "residual_add": _residual_add,
    "concat_convs": _concat_convs,
    "transpose_reshape_cancel": _transpose_reshape_cancel,
    "squeeze_unsqueeze": _squeeze_unsqueeze,
    "strided_slice_views": _strided_slice_views,
    "conv_add_grid": _grid("add"),
    "conv_scale_grid": _grid("scale"),
    "bias_shared_by_activation": _bias_shared_by_activation,
    "convert_round_trip_f16": _convert_round_trip("f16"),
    "convert_round_trip_i32": _convert_round_trip("i32"),
    "unused_leading_input": _unused_leading_input,
    "input_passthrough": _input_passthrough,
}


def names() -> list[str]:
    """The catalogue's pattern names, in catalogue order."""
    return list(_BUILDERS)


def build(name: str, dynamic: bool = False) -> GraphCase:
    """Pattern ``name`` (static, or the ``dynamic`` variant) with its inputs.

    :raises ValidationError: naming the pattern and the patterns there are, for an unknown name.
    """
    try:
        builder = _BUILDERS[name]
    except KeyError:
        raise ValidationError(f"graph pattern {name!r} is not in the catalogue; the patterns are: "
                              f"{', '.join(_BUILDERS)}.") from None
    return builder(dynamic)
