"""Every fast route of REFERENCE against the formula it replaces, within the route's stated bound.

The routes come from the registry (:func:`reference_plugin.fast.routes`, and the program's own
:data:`~reference_plugin.fast.PROGRAM_ROUTES`), so a new route is run here as soon as it is
registered, and :data:`PINNED` lists them, so a route that disappears (or appears without cases)
fails :func:`test_the_registered_routes_are_the_pinned_ones`. For each route, seeded numpy cases
(:func:`cases_for`): realistic sizes (rows of 1000 and more, the anchors' shapes, a 64-channel
56x56 convolution, more than two blocks with a remainder block, tensors large enough to be split
over two intra-op threads) and hard values (NaN, ±inf, ±0, subnormals, large magnitudes, masked
and constant rows). A kernel route runs alone (:func:`reference_plugin.fast.route_class`: the
formula class with that route only) and, on one and two intra-op threads, is compared with the
formula kernel (:mod:`reference_plugin.ops`); a writer route writes into a separate array and
over its input; the device's full kernels (every route of the op at once) are compared too.

:func:`violations` is the checker, returning what is wrong instead of asserting, so that the
tests at the end can break a route on purpose (one ulp off, wrong on the remainder block, a row
dropped, ...) and show that the checker reports it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from ovconform import Model
from ovconform import opset as ops
from ovconform.ir import Node, Type, make_node
from ovconform.tolerances import ulp_distance
from reference_plugin import fast
from reference_plugin.compiled_model import Program
from reference_plugin.evaluate import evaluate
from reference_plugin.fast import Bound, ProgramRoute, Route, parallel
from reference_plugin.fast.elementwise import CHUNK
from reference_plugin.fast.mvn import MVN_ABS
from reference_plugin.ops import OpRun, build_kernel

#: Every route: (op type, version, name) for kernel and writer routes, the name for the program's.
PINNED_UNARY_BLOCKS = [("Acos", 1), ("Acosh", 4), ("Asin", 1), ("Asinh", 4), ("Atan", 1), ("Atanh", 4), ("Cos", 1),
                       ("Cosh", 1), ("Elu", 1), ("Erf", 1), ("ErfInv", 17), ("Exp", 1), ("Gelu", 2), ("Gelu", 7),
                       ("HSigmoid", 5), ("HSwish", 4), ("Log", 1), ("Mish", 4), ("Sigmoid", 1), ("Sin", 1), ("Sinh", 1),
                       ("SoftPlus", 4), ("SoftSign", 9), ("Sqrt", 1), ("Tan", 1), ("Tanh", 1)]
PINNED_WRITERS = ["Abs", "Add", "Exp", "Maximum", "Minimum", "Multiply", "Negative", "Relu", "Sigmoid", "Subtract",
                  "Tanh"]
PINNED: frozenset[tuple[str, int, str] | str] = frozenset([
    *((op, v, "unary-blocks") for op, v in PINNED_UNARY_BLOCKS),
    *((op, 1, "writer") for op in PINNED_WRITERS), ("HSwish", 4, "writer"), ("HSigmoid", 5, "writer"),
    ("Gelu", 2, "gelu-erf-f32"), ("Gelu", 7, "gelu-erf-f32"),
    ("Softmax", 1, "softmax-f32"), ("Softmax", 8, "softmax-f32"),
    ("MVN", 2, "mvn-f32-rows"), ("MVN", 6, "mvn-f32-rows"),
    ("MatMul", 1, "matmul-few-rows"),
    ("Convolution", 1, "conv-lowering"), ("GroupConvolution", 1, "conv-lowering"),
    ("MaxPool", 1, "maxpool-separable"), ("MaxPool", 8, "maxpool-separable"), ("MaxPool", 14, "maxpool-separable"),
    ("BatchNormInference", 1, "batchnorm-blocks"), ("BatchNormInference", 5, "batchnorm-blocks"),
    ("Swish", 4, "swish-blocks"),
    ("AvgPool", 1, "avgpool-separable"), ("AvgPool", 14, "avgpool-separable"), ("AvgPool", 16, "avgpool-separable"),
    ("ScaledDotProductAttention", 13, "sdpa-blocks"),
    "chains", "in-place", "intra-op-threads", "process-streams",
])


def registered() -> set[tuple[str, int, str] | str]:
    return {*(r.key for r in fast.routes()), *(r.name for r in fast.PROGRAM_ROUTES)}


def pinning_problems(found: set[Any]) -> list[str]:
    """What differs between the registered routes and :data:`PINNED`."""
    missing, new = sorted(map(str, PINNED - found)), sorted(map(str, found - PINNED))
    return ([f"routes no longer registered: {missing}"] if missing else []) + \
        ([f"routes registered but not pinned here (add them and their cases): {new}"] if new else [])


# -- the checker ----------------------------------------------------------------------------------------------
def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" else a


def _values(a: np.ndarray, t: Type) -> np.ndarray:
    from ovconform.ir import bf16_to_f32

    return bf16_to_f32(a).astype(np.float64) if t.name == "bf16" else np.asarray(a, np.float64)


@dataclass
class Case:
    """One node and its inputs (constants included, one array per node input)."""

    label: str
    node: Node
    inputs: list[np.ndarray]
    #: Elements where the bound's noted alternative applies instead (``allow(got, want) -> mask``).
    allow: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    #: Accumulation routes: ``sum(|a*b|)`` per output element (float64) and the number of terms.
    magnitude: np.ndarray | None = None
    terms: int = 0
    #: Intra-op threads to run the route on as well as one.
    threads: tuple[int, ...] = (1,)


def violations(bound: Bound, got: Sequence[np.ndarray], want: Sequence[np.ndarray], case: Case) -> list[str]:
    """What in ``got`` (the route's outputs) breaks ``bound`` against ``want`` (the formula's);
    empty when nothing does."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _violations(bound, got, want, case)


def _violations(bound: Bound, got: Sequence[np.ndarray], want: Sequence[np.ndarray], case: Case) -> list[str]:
    out = []
    if len(got) != len(want):
        return [f"{case.label}: {len(got)} outputs, the formula gives {len(want)}"]
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        where = f"{case.label} output {i}"
        if g.dtype != w.dtype or g.shape != w.shape:
            out.append(f"{where}: {g.dtype}{list(g.shape)}, the formula gives {w.dtype}{list(w.shape)}")
            continue
        t = case.node.get_output_element_type(i)
        if bound.kind == "exact" or w.dtype.kind not in "fu" or (w.dtype.kind == "u" and t.name != "bf16"):
            wrong = _bits(g) != _bits(w)
            if wrong.any():
                k = int(np.argmax(wrong.reshape(-1)))
                out.append(f"{where}: {int(wrong.sum())} element(s) differ from the formula, bit for bit (first at "
                           f"flat index {k}: {g.reshape(-1)[k]!r} vs {w.reshape(-1)[k]!r})")
            continue
        gv, wv = _values(g, t), _values(w, t)
        nan = np.isnan(wv)
        if not np.array_equal(np.isnan(gv), nan):
            out.append(f"{where}: NaN at {int((np.isnan(gv) != nan).sum())} element(s) where the formula has none "
                       "(or back)")
        inf = np.isinf(wv) | np.isinf(gv)
        if np.any(inf & ~nan & (gv != wv)):
            out.append(f"{where}: {int(np.sum(inf & ~nan & (gv != wv)))} infinite element(s) differ from the formula")
        finite = ~nan & ~inf & ~np.isnan(gv)
        if bound.kind == "ulp":
            far = finite & (ulp_distance(g, w, t) > bound.ulp)
        else:
            assert case.magnitude is not None and case.terms, f"{case.label}: accumulation case without a magnitude"
            e = float(np.finfo(np.float32 if t.name in ("f32", "f16", "bf16") else np.float64).eps)
            limit = bound.factor * e * math.sqrt(case.terms) * case.magnitude + case.terms * 2.0 ** -149
            if t.name == "f16":  # the result is rounded once more, to the output type
                limit = limit + np.spacing(np.abs(wv).astype(np.float16)).astype(np.float64)
            far = finite & ~(np.abs(gv - wv) <= limit)
        if case.allow is not None and far.any():
            far &= ~case.allow(g, w)
        if far.any():
            k = int(np.argmax(far.reshape(-1)))
            out.append(f"{where}: {int(far.sum())} element(s) outside the bound, {bound} (first at flat index {k}: "
                       f"{gv.reshape(-1)[k]!r}, the formula {wv.reshape(-1)[k]!r})")
    return out


# -- values -------------------------------------------------------------------------------------------------------
def hard_values(dtype: Any) -> np.ndarray:
    """NaN, ±inf, ±0, subnormals, the type's extremes, large and tiny magnitudes."""
    info = np.finfo(dtype)
    values = [np.nan, np.inf, -np.inf, 0.0, -0.0, float(info.smallest_subnormal), -float(info.smallest_subnormal),
              float(info.smallest_normal) / 4, float(info.max), -float(info.max), float(info.smallest_normal),
              1.0, -1.0, 0.5, 1e4, -1e4]
    if dtype != np.float16:
        values += [1e30, -1e30, 1e-30, -1e-30, 88.8, -88.8, 6.4, -6.4, 20.0, -20.0]
    with np.errstate(over="ignore"):
        return np.array(values, np.float64).astype(dtype)


def sprinkled(rng: np.random.Generator, shape: Sequence[int], dtype: Any, scale: float = 3.0,
              hard: np.ndarray | None = None) -> np.ndarray:
    """Standard normal values times ``scale`` with every hard value at a few random places."""
    x = (rng.standard_normal(tuple(shape)) * scale).astype(dtype)
    hard = hard_values(dtype) if hard is None else hard
    flat = x.reshape(-1)
    if flat.size >= 4 * hard.size:
        at = rng.choice(flat.size, 3 * hard.size, replace=False)
        flat[at] = np.tile(hard, 3)
    return x


def _param(shape: Sequence[int], t: Type | str, name: str = "x") -> Node:
    return ops.parameter(list(shape), t, name)


# -- cases per route ---------------------------------------------------------------------------------------------
UNARY_ATTRS: dict[tuple[str, int], dict[str, Any]] = {("Elu", 1): {"alpha": 0.7},
                                                    ("Gelu", 7): {"approximation_mode": "ERF"}}


def _unary(op: str, version: int, shape: Sequence[int], t: Type, attrs: dict[str, Any] | None = None) -> Node:
    return make_node(op, version, [_param(shape, t).output(0)], attrs if attrs is not None else
                     UNARY_ATTRS.get((op, version), {}))


def unary_blocks_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(abs(hash(route.key)) % 2**32)
    chunk = fast.route_class(route)(_unary(route.op_type, route.since, [4], Type.f32)).chunk()  # type: ignore[attr-defined]
    for t, size, threads in ((Type.f32, 3 * chunk + 7, (1,)), (Type.f64, 3 * chunk + 7, (1,)),
                             (Type.f16, 2 * chunk + 5, (1,)), (Type.f32, 2 * parallel.SPLIT_MIN + 13, (1, 2))):
        x = sprinkled(rng, [size], t.to_dtype())
        yield Case(f"{route.op_type}-{route.since} {t} [{size}]", _unary(route.op_type, route.since, [size], t),
                   [x], threads=threads)
    if route.op_type == "Gelu" and route.since == 7:
        x = sprinkled(rng, [3 * chunk + 1], np.float32)
        yield Case("Gelu-7 TANH f32", _unary("Gelu", 7, [x.size], Type.f32, {"approximation_mode": "TANH"}), [x])


def _gelu_tail(x: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Where |x| >= 6.4 the bound is 1e-15 absolute instead of the ulp bound."""
    def allow(got: np.ndarray, want: np.ndarray) -> np.ndarray:
        gv, wv = got.astype(np.float64), want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            return (np.abs(x.astype(np.float64)) >= 6.4) & (np.abs(gv - wv) <= 1e-15)

    return allow


def gelu_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(7)
    grid = np.linspace(-12, 12, 200_001).astype(np.float32)
    realistic = sprinkled(rng, [1 << 20], np.float32)
    attrs = {"approximation_mode": "ERF"} if route.since == 7 else {}
    for label, x in (("grid [-12, 12]", grid), ("normal x 3, hard values [1M]", realistic),
                     ("tail -geomspace", -np.geomspace(1e-7, 12, 50_000).astype(np.float32))):
        yield Case(f"Gelu-{route.since} f32 {label}", _unary("Gelu", route.since, list(x.shape), Type.f32, attrs), [x],
                   allow=_gelu_tail(x), threads=(1, 2))
    x16 = sprinkled(rng, [70_000], np.float16)
    yield Case(f"Gelu-{route.since} f16", _unary("Gelu", route.since, [x16.size], Type.f16, attrs), [x16],
               allow=_gelu_tail(x16))
    if route.since == 7:
        x = sprinkled(rng, [50_000], np.float32)
        yield Case("Gelu-7 TANH (the formula)", _unary("Gelu", 7, [x.size], Type.f32, {"approximation_mode": "TANH"}),
                   [x])


def _softmax_node(shape: Sequence[int], axis: int, version: int, t: Type = Type.f32) -> Node:
    return make_node("Softmax", version, [_param(shape, t).output(0)], {"axis": axis})


def softmax_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(11)
    masked = (rng.standard_normal((64, 1024)) * 4).astype(np.float32)
    masked[:, 700:] = -np.inf
    masked[1, :900] = -1e30
    masked[2, 3] = np.float32(-3.4e38)
    apart = (rng.standard_normal((8, 1000)) + np.array([0, -700, -2000, 1e4, -1e30, 5, -650, -900])[:, None])
    equal = np.repeat(rng.uniform(-50, 50, (16, 1)), 1000, axis=1)
    hard = sprinkled(rng, (8, 1024), np.float32)
    finite_hard = hard_values(np.float32)[np.isfinite(hard_values(np.float32))]
    mixed = sprinkled(rng, (16, 1000), np.float32, 5.0, hard=finite_hard[np.abs(finite_hard) < 1e30])
    cases: list[tuple[str, np.ndarray, int]] = [
        ("attention (1, 4, 128, 128)", (rng.standard_normal((1, 4, 128, 128)) * 3).astype(np.float32), 3),
        ("rows of 4096", rng.uniform(-20, 20, (16, 4096)).astype(np.float32), 1),
        ("large ±1e4 (32, 1000)", rng.uniform(-1e4, 1e4, (32, 1000)).astype(np.float32), 1),
        ("offset 1e5", (rng.uniform(-30, 30, (8, 1000)) + 1e5).astype(np.float32), 1),
        ("tiny 1e-30 and subnormals", (rng.standard_normal((8, 1000)) * 1e-30).astype(np.float32), 1),
        ("equal rows", equal.astype(np.float32), 1),
        ("-inf / -1e30 masks", masked, 1),
        ("rows far apart (the formula's rows)", apart.astype(np.float32), 1),
        ("subnormals, ±0, extremes", mixed, 1),
        ("NaN and ±inf (the formula)", hard, 1),
        ("along axis 0 (64, 257)", (rng.standard_normal((64, 257)) * 5).astype(np.float32), 0),
        ("along axis 1 of 3 (4, 1000, 8)", (rng.standard_normal((4, 1000, 8)) * 5).astype(np.float32), 1),
        ("a single-element axis", rng.standard_normal((5000, 1)).astype(np.float32), 1),
    ]
    for label, x, axis in cases:
        if route.since == 8 and axis == x.ndim - 1:
            axis = -1
        yield Case(f"Softmax-{route.since} {label}", _softmax_node(x.shape, axis, route.since), [x], threads=(1, 2))
    x16 = (rng.standard_normal((8, 1000)) * 3).astype(np.float16)
    yield Case(f"Softmax-{route.since} f16 (the formula)", _softmax_node(x16.shape, 1, route.since, Type.f16), [x16])


def _mvn_cancel(x: np.ndarray, axes: tuple[int, ...]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Where x - mean cancels, MVN_ABS of the row's largest |y| instead of the ulp bound."""
    def allow(got: np.ndarray, want: np.ndarray) -> np.ndarray:
        wv = want.astype(np.float64)
        scale = np.broadcast_to(np.max(np.abs(np.nan_to_num(wv, posinf=0, neginf=0)), axis=axes, keepdims=True),
                                wv.shape)
        cancelled = np.abs(wv) < scale * 2.0 ** -12
        return cancelled & (np.abs(got.astype(np.float64) - wv) <= MVN_ABS * scale)

    return allow


def mvn_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(13)
    constant = rng.standard_normal((4, 8, 1024)).astype(np.float32)
    constant[0, :4] = np.float32(3.3)
    constant[1, 5] = np.float32(-1e30)
    data = {
        "LayerNorm (1, 128, 256)": (rng.standard_normal((1, 128, 256)) * 3).astype(np.float32),
        "rows of 4096": (rng.standard_normal((8, 4096)) * 2 + 1).astype(np.float32),
        "offset 1e3": (rng.standard_normal((4, 16, 300)) + 1e3).astype(np.float32),
        "large 1e30": (rng.standard_normal((4, 64, 32)) * 1e30).astype(np.float32),
        "float32 max": rng.uniform(-3.4e38, 3.4e38, (8, 1000)).astype(np.float32),
        "tiny 1e-30, subnormals": (rng.standard_normal((4, 64, 32)) * 1e-30).astype(np.float32),
        "constant rows": constant,
        "hard values": sprinkled(rng, (8, 1000), np.float32),
    }
    for label, x in data.items():
        trailing = [(x.ndim - 1,), tuple(range(1, x.ndim))] if x.ndim > 2 else [(1,)]
        for axes in [*trailing, (0,)]:
            if route.since == 6:
                for normalize, eps, mode in ((True, 1e-5, "inside_sqrt"), (True, 1e-9, "outside_sqrt"),
                                             (False, 1e-5, "inside_sqrt")):
                    node = ops.mvn(_param(x.shape, Type.f32), ops.constant(np.array(axes, np.int64)), normalize,
                                   eps, mode)
                    yield Case(f"MVN-6 {label} axes {axes} {mode} normalize={normalize}", node,
                               [x, np.array(axes, np.int64)], allow=_mvn_cancel(x, axes), threads=(1, 2))
            else:
                node = ops.mvn_v1(_param(x.shape, Type.f32), False, True, 1e-6, list(axes))
                yield Case(f"MVN-2 {label} axes {axes}", node, [x], allow=_mvn_cancel(x, axes), threads=(1, 2))
    if route.since == 2:
        x = (rng.standard_normal((2, 3, 9, 11)) * 2 + 40).astype(np.float32)
        for across in (False, True):
            yield Case(f"MVN-2 default axes across={across}", ops.mvn_v1(_param(x.shape, Type.f32), across, True, 1e-6),
                       [x], allow=_mvn_cancel(x, (1, 2, 3) if across else (2, 3)))


def _accumulation_case(label: str, make: Callable[[Node, Node], Node], x: np.ndarray, w: np.ndarray, t: Type,
                       terms: int, w_constant: bool = True, threads: tuple[int, ...] = (1,)) -> Case:
    """A case of a two-input sum of products ``make(x, w)``, with its magnitude: the same op in
    float64 on ``|x|`` and ``|w|``."""
    def build(et: Type, xv: np.ndarray, wv: np.ndarray) -> tuple[Node, list[np.ndarray], list[Node]]:
        px = _param(xv.shape, et)
        pw: Node = ops.constant(wv, et) if w_constant else _param(wv.shape, et, "w")
        return make(px, pw), [xv, wv], [px] if w_constant else [px, pw]

    node, inputs, _ = build(t, x, w)
    wide_node, wide_inputs, params = build(Type.f64, np.abs(_values(x, t)), np.abs(_values(w, t)))
    feed = wide_inputs[:1] if w_constant else wide_inputs
    (magnitude,) = evaluate(Model([wide_node], params), feed)
    return Case(label, node, inputs, magnitude=magnitude, terms=terms, threads=threads)


def _matmul(a: Node, b: Node, transpose_b: bool) -> Node:
    return ops.matmul(a, b, False, transpose_b)


def matmul_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(17)
    shapes = [((8, 784), (784, 1024), False, "mlp layer 1"), ((8, 1024), (1024, 10), False, "mlp layer 3"),
              ((2, 3, 784), (96, 784), True, "batched A, transpose_b"), ((16, 512), (512, 64), False, "16 rows"),
              ((784,), (784, 96), False, "1-D A"), ((17, 64), (64, 32), False, "17 rows (the formula)")]
    for t in (Type.f32, Type.f64, Type.f16):
        for a_shape, b_shape, tb, label in shapes:
            a = sprinkled(rng, a_shape, t.to_dtype(), 1.0, hard=_product_hard(t))
            b = (rng.standard_normal(b_shape)).astype(t.to_dtype())
            yield _accumulation_case(f"MatMul {t} {label}", functools.partial(_matmul, transpose_b=tb), a, b, t,
                                     a_shape[-1])
    a = rng.standard_normal((4, 300)).astype(np.float32)
    b = rng.standard_normal((300, 50)).astype(np.float32)
    yield _accumulation_case("MatMul f32 B a parameter (the formula)", lambda p, q: ops.matmul(p, q, False, False),
                             a, b, Type.f32, 300, w_constant=False)
    ai = rng.integers(-50, 50, (8, 64)).astype(np.int32)
    bi = rng.integers(-50, 50, (64, 16)).astype(np.int32)
    yield _accumulation_case("MatMul i32 (exact)", lambda p, q: ops.matmul(p, q, False, False), ai, bi, Type.i32, 64)


def _product_hard(t: Type) -> np.ndarray:
    """Hard values for a sum of products: no overflow of the sum (large magnitudes stay below it)."""
    big = 1e18 if t != Type.f16 else 1e3
    info = np.finfo(t.to_dtype())
    return np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, float(info.smallest_subnormal),
                     -float(info.smallest_subnormal), big, -big], np.float64).astype(t.to_dtype())


def conv_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(19)
    group = route.op_type == "GroupConvolution"

    def conv(strides: list[int], pb: list[int], pe: list[int], dil: list[int], auto: str = "EXPLICIT"
             ) -> Callable[[Node, Node], Node]:
        builder = ops.group_convolution if group else ops.convolution
        return lambda p, q: builder(p, q, strides, pb, pe, dil, auto)

    specs: list[tuple[str, tuple[int, ...], tuple[int, ...], Callable[[Node, Node], Node]]]
    if group:
        specs = [("depthwise 32ch 28x28", (1, 32, 28, 28), (32, 1, 1, 3, 3), conv([1, 1], [1, 1], [1, 1], [1, 1])),
                 ("depthwise 96ch 56x56", (1, 96, 56, 56), (96, 1, 1, 3, 3),
                  conv([1, 1], [1, 1], [1, 1], [1, 1])),
                 ("depthwise x2 5x5 dilated, 2 images", (2, 6, 33, 44), (6, 2, 1, 5, 5),
                  conv([1, 1], [4, 3], [4, 5], [2, 2])),
                 ("depthwise 5x5 stride 2", (1, 40, 28, 28), (40, 1, 1, 5, 5),
                  conv([2, 2], [2, 2], [2, 2], [1, 1])),
                 ("2 groups 16ch 20x23", (2, 16, 20, 23), (2, 5, 8, 3, 3), conv([1, 2], [1, 0], [2, 1], [1, 1])),
                 ("4 groups 1-D", (2, 8, 30), (4, 3, 2, 5), conv([2], [2], [1], [1])),
                 ("2 groups 3-D", (1, 4, 6, 7, 5), (2, 3, 2, 2, 3, 2),
                  conv([1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]))]
    else:
        specs = [("64ch 56x56 3x3", (1, 64, 56, 56), (64, 64, 3, 3), conv([1, 1], [1, 1], [1, 1], [1, 1])),
                 ("cnn conv1 3ch 64x64", (1, 3, 64, 64), (16, 3, 3, 3), conv([1, 1], [1, 1], [1, 1], [1, 1])),
                 ("strided, asymmetric pads", (2, 6, 20, 23), (10, 6, 3, 3), conv([1, 2], [1, 0], [2, 1], [1, 1])),
                 ("dilated first axis (im2col)", (1, 8, 17, 19), (6, 8, 3, 3), conv([1, 1], [2, 2], [2, 2], [2, 1])),
                 ("same_upper 5x5", (1, 4, 15, 16), (8, 4, 5, 5), conv([2, 2], [0, 0], [0, 0], [1, 1], "SAME_UPPER")),
                 ("1-D", (2, 8, 40), (12, 8, 5), conv([2], [2], [1], [1])),
                 ("3-D", (1, 4, 8, 9, 7), (6, 4, 3, 3, 2), conv([1, 1, 1], [1, 1, 0], [1, 0, 1], [1, 1, 1])),
                 ("1x1", (1, 32, 14, 14), (16, 32, 1, 1), conv([1, 1], [0, 0], [0, 0], [1, 1])),
                 ("1x1, 2 images (pointwise)", (2, 24, 20, 20), (40, 24, 1, 1), conv([1, 1], [0, 0], [0, 0], [1, 1])),
                 ("1x1 stride 2 (im2col)", (1, 24, 20, 20), (40, 24, 1, 1), conv([2, 2], [0, 0], [0, 0], [1, 1])),
                 ("3x3 14 wide (im2col)", (1, 48, 14, 14), (32, 48, 3, 3), conv([1, 1], [1, 1], [1, 1], [1, 1]))]
    for t in (Type.f32, Type.f64, Type.f16, Type.i32):
        for label, x_shape, w_shape, make in specs:
            if t != Type.f32 and x_shape[1] in (64, 96):
                continue  # the realistic size once
            if t == Type.i32:
                x = rng.integers(-20, 20, x_shape).astype(np.int32)
                w = rng.integers(-5, 5, w_shape).astype(np.int32)
            else:
                x = sprinkled(rng, x_shape, t.to_dtype(), 1.0, hard=_product_hard(t))
                w = (rng.standard_normal(w_shape) / 3).astype(t.to_dtype())
            terms = math.prod(w_shape[2 if group else 1:])
            yield _accumulation_case(f"{route.op_type} {t} {label}", make, x, w, t, terms)
    x = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    w = rng.standard_normal((4, 2, 2, 3, 3) if group else (8, 8, 3, 3)).astype(np.float32)
    yield _accumulation_case(f"{route.op_type} f32 filters a parameter", conv([1, 1], [1, 1], [1, 1], [1, 1]), x, w,
                             Type.f32, 36 if group else 72, w_constant=False)


def maxpool_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(23)
    ties = np.array([0.0, -0.0, 1.0, -1.0, np.nan, -np.inf, np.inf, 2.0, 1e-45, -1e-45])

    def pool(shape: Sequence[int], t: Type, strides: list[int], pb: list[int], pe: list[int], kernel: list[int],
             rounding: str = "floor", dil: list[int] | None = None) -> Node:
        p = _param(shape, t)
        dil = dil or [1] * len(kernel)
        rounding = "ceil" if rounding == "ceil_torch" and route.since < 14 else rounding
        if route.since == 1:
            return make_node("MaxPool", 1, [p.output(0)], {"strides": strides, "pads_begin": pb, "pads_end": pe,
                                                           "kernel": kernel, "rounding_type": rounding,
                                                           "auto_pad": "explicit"})
        return ops.max_pool(p, strides, dil, pb, pe, kernel, rounding, version=route.since)

    def data(shape: Sequence[int], t: Type) -> np.ndarray:
        if t.is_integral_number():
            return rng.integers(-3, 3, tuple(shape)).astype(t.to_dtype())
        x = rng.choice(ties, tuple(shape)).astype(t.to_dtype())
        bits = x.view(np.uint32 if x.dtype == np.float32 else np.uint64)
        bits[np.isnan(x)] |= rng.integers(1, 4, int(np.isnan(x).sum())).astype(bits.dtype)  # NaN payloads
        return x

    specs = [("cnn 2x2/2 (1, 32, 64, 64)", (1, 32, 64, 64), [2, 2], [0, 0], [0, 0], [2, 2], "floor", None),
             ("3x3/2 pad 1 (1, 64, 56, 56)", (1, 64, 56, 56), [2, 2], [1, 1], [1, 1], [3, 3], "floor", None),
             ("ceil 3x2", (2, 3, 9, 8), [2, 1], [1, 0], [0, 1], [3, 2], "ceil", None),
             ("ceil_torch", (1, 2, 10, 7), [3, 2], [1, 1], [0, 0], [3, 3], "ceil_torch", None),
             ("1-D", (2, 4, 33), [2], [1], [1], [4], "floor", None),
             ("3-D", (1, 2, 6, 7, 5), [1, 2, 1], [1, 0, 0], [0, 1, 1], [2, 3, 2], "floor", None),
             ("dilated", (1, 3, 15, 16), [1, 1], [0, 0], [0, 0], [3, 3], "floor", [2, 1])]
    for t in (Type.f32, Type.f64, Type.i8, Type.i32):
        for label, shape, strides, pb, pe, kernel, rounding, dil in specs:
            if (dil and route.since == 1) or (t != Type.f32 and shape[1] >= 32):
                continue
            node = pool(shape, t, strides, pb, pe, kernel, rounding, dil)
            yield Case(f"MaxPool-{route.since} {t} {label}", node, [data(shape, t)])


def writer_cases(route: Route) -> Iterator[Case]:
    rng = np.random.default_rng(29)
    binary = route.op_type in ("Add", "Subtract", "Multiply", "Maximum", "Minimum")
    for t in (Type.f32, Type.f64):
        for shape, other in (([4, 1000], [4, 1000]), ([2, 64, 1024], [64, 1]), ([3 * CHUNK + 7], [1])):
            x = sprinkled(rng, shape, t.to_dtype())
            if binary:
                y = sprinkled(rng, other, t.to_dtype()) if math.prod(other) > 64 else \
                    rng.standard_normal(other).astype(t.to_dtype())
                ins = [_param(shape, t).output(0), _param(other, t, "y").output(0)]
                node = make_node(route.op_type, route.since, ins, {"auto_broadcast": "numpy"})
                yield Case(f"{route.op_type} {t} {shape} with {other}", node, [x, y])
            else:
                yield Case(f"{route.op_type} {t} {shape}", _unary(route.op_type, route.since, shape, t), [x])


def batchnorm_cases(route: Route) -> Iterator[Case]:
    """ResNet-sized and many-channel data, a batch, rows of one element, hard values, per-channel
    values near the edges (variance 0, huge gamma); f16 and small tensors take the formula."""
    from reference_plugin.fast.batch_norm import MIN_ELEMENTS

    rng = np.random.default_rng(31)
    shapes = [((1, 64, 56, 56), Type.f32, (1, 2)), ((1, 2048, 7, 7), Type.f32, (1,)),
              ((2, 37, 13, 11), Type.f32, (1,)), ((3, 5000), Type.f32, (1,)), ((1, 40, 17, 19), Type.f64, (1, 2)),
              ((1, 24, 20, 20), Type.f16, (1,)), ((1, 3, 5, 7), Type.f32, (1,))]
    for shape, t, threads in shapes:
        c = shape[1]
        dtype = t.to_dtype()
        x = sprinkled(rng, shape, dtype)
        gamma = rng.uniform(0.5, 1.5, c).astype(dtype)
        gamma[:2] = [1e4, -0.0]
        beta = (rng.standard_normal(c) * 0.1).astype(dtype)
        mean = (rng.standard_normal(c) * 0.1).astype(dtype)
        variance = rng.uniform(0.5, 1.5, c).astype(dtype)
        variance[-1] = 0.0
        p = _param(shape, t)
        consts = [ops.constant(v, t) for v in (gamma, beta, mean, variance)]
        node = ops.batch_norm_inference(p, *consts, 1e-5, version=route.since)
        inputs = [x, gamma, beta, mean, variance] if route.since == 5 else [gamma, beta, x, mean, variance]
        kind = "blocks" if t != Type.f16 and x.size >= MIN_ELEMENTS else "the formula"
        yield Case(f"BatchNormInference-{route.since} {t} {list(shape)} ({kind})", node, inputs, threads=threads)


def swish_cases(route: Route) -> Iterator[Case]:
    from reference_plugin.fast.swish import BLOCK

    rng = np.random.default_rng(37)
    for t, size, beta, threads in ((Type.f32, 3 * BLOCK + 7, None, (1,)), (Type.f64, 2 * BLOCK + 3, 0.7, (1,)),
                                   (Type.f32, 2 * parallel.SPLIT_MIN + 13, -1.5, (1, 2)),
                                   (Type.f16, BLOCK + 5, None, (1,)), (Type.f32, 5, 2.0, (1,))):
        x = sprinkled(rng, [size], t.to_dtype())
        p = _param([size], t)
        if beta is None:
            yield Case(f"Swish {t} [{size}]", ops.swish(p), [x], threads=threads)
        else:
            b = np.array(beta, t.to_dtype())
            yield Case(f"Swish {t} [{size}] beta {beta}", ops.swish(p, ops.constant(b, t)), [x, b], threads=threads)


def avgpool_cases(route: Route) -> Iterator[Case]:
    """Inception's 3x3/1 pad 1 pools and DenseNet's 2x2/2 transitions at size, ceil rounding,
    exclude-pad both ways, a 7-row kernel, magnitudes over 40 decades (where the order of the
    float64 additions shows), hard values; the formula's cases too (dilated, 1-D, 8 columns, f16)."""
    rng = np.random.default_rng(41)

    def pool(shape: Sequence[int], t: Type, strides: list[int], pb: list[int], pe: list[int], kernel: list[int],
             exclude: bool, rounding: str = "floor", dil: list[int] | None = None) -> Node:
        rounding = "ceil" if rounding == "ceil_torch" and route.since < 14 else rounding
        return ops.avg_pool(_param(shape, t), strides, pb, pe, kernel, exclude, rounding,
                            dilations=dil if route.since >= 16 else None, version=route.since)

    specs = [("inception 3x3/1 pad 1 (1, 192, 28, 28)", (1, 192, 28, 28), [1, 1], [1, 1], [1, 1], [3, 3], False,
              "floor", None, (1, 2)),
             ("densenet 2x2/2 (1, 128, 56, 56)", (1, 128, 56, 56), [2, 2], [0, 0], [0, 0], [2, 2], True, "floor", None,
              (1, 2)),
             ("ceil 3x2 exclude-pad, 2 images", (2, 5, 9, 11), [2, 1], [1, 0], [0, 1], [3, 2], True, "ceil", None,
              (1,)),
             ("ceil_torch 3x3/3", (1, 3, 10, 7), [3, 2], [1, 1], [0, 0], [3, 3], False, "ceil_torch", None, (1,)),
             ("7x5 pad 3", (1, 6, 20, 17), [1, 1], [3, 2], [3, 2], [7, 5], True, "floor", None, (1,)),
             ("8 columns (the formula)", (1, 4, 12, 20), [1, 1], [0, 0], [0, 0], [2, 8], True, "floor", None, (1,)),
             ("1-D (the formula)", (2, 4, 33), [2], [1], [1], [4], False, "floor", None, (1,)),
             ("dilated (the formula)", (1, 3, 15, 16), [1, 1], [0, 0], [0, 0], [3, 3], True, "floor", [2, 1], (1,))]
    for t in (Type.f32, Type.f64, Type.f16):
        for label, shape, strides, pb, pe, kernel, exclude, rounding, dil, threads in specs:
            if (dil and route.since < 16) or (t != Type.f32 and shape[1] >= 128):
                continue
            x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-20, 20, shape)).astype(t.to_dtype()) \
                if t != Type.f16 else sprinkled(rng, shape, np.float16)
            if t != Type.f16:
                x.reshape(-1)[rng.choice(x.size, 26, replace=False)] = np.tile(hard_values(t.to_dtype())[:13], 2)
                x[(0, 0, slice(0, 3), slice(0, 3))[:x.ndim]] = -0.0  # a window of -0 (the formula's sum is +0)
            node = pool(shape, t, strides, pb, pe, kernel, exclude, rounding, dil)
            yield Case(f"AvgPool-{route.since} {t} {label}", node, [x], threads=threads)


def sdpa_cases(route: Route) -> Iterator[Case]:
    """Heads of 384 query rows, key/value shared by the heads, each mask kind (a boolean padding
    mask, a float mask with -inf rows), causal, the scale input, each float type, hard values;
    small slices (the formula). More in tests/reference/test_fast_attention.py."""
    rng = np.random.default_rng(43)

    def case(label: str, t: Type, q: tuple[int, ...], kv: tuple[int, ...], mask: np.ndarray | None = None,
             scale: float | None = None, causal: bool = False, hard: bool = False) -> Case:
        held = t.to_dtype() if t != Type.bf16 else np.float32
        arrays = [sprinkled(rng, s, held, 2.0) if hard else (rng.standard_normal(s) * 2).astype(held)
                  for s in (q, kv, kv)]
        if t == Type.bf16:
            from ovconform.ir import f32_to_bf16

            arrays = [f32_to_bf16(a) for a in arrays]
        params = [_param(a.shape, t, n) for a, n in zip(arrays, "qkv", strict=True)]
        extra: list[Node] = []
        if mask is not None or scale is not None:
            m = mask if mask is not None else np.zeros((), t.to_dtype())
            arrays.append(m)
            extra.append(_param(m.shape, Type.boolean if m.dtype == np.bool_ else t, "mask"))
        if scale is not None:
            arrays.append(np.array(scale, t.to_dtype()))
            extra.append(_param([], t, "scale"))
        node = ops.scaled_dot_product_attention(*params, *extra, causal=causal)
        return Case(f"ScaledDotProductAttention {t} {label}", node, arrays, threads=(1, 2))

    padding = rng.random((2, 1, 1, 300)) > 0.2
    padding[1, ..., :] = False  # the second batch masked everywhere: NaN
    float_mask = (rng.standard_normal((384, 300)) * 3).astype(np.float32)
    float_mask[5] = -np.inf
    yield case("(1, 6, 384, 64)", Type.f32, (1, 6, 384, 64), (1, 6, 384, 64))
    yield case("K/V shared by 4 heads, boolean padding mask", Type.f32, (2, 4, 200, 32), (2, 1, 300, 32), padding)
    yield case("float mask with a -inf row, scale", Type.f32, (1, 2, 384, 32), (1, 2, 300, 32), float_mask, 0.3)
    yield case("causal, hard values", Type.f32, (1, 2, 300, 32), (1, 2, 300, 32), causal=True, hard=True)
    yield case("f16 causal", Type.f16, (1, 2, 200, 32), (1, 2, 250, 32), causal=True)
    yield case("bf16 boolean mask", Type.bf16, (2, 2, 130, 32), (2, 2, 140, 32), rng.random((130, 140)) > 0.5)
    yield case("f64 scale, hard values", Type.f64, (1, 3, 140, 32), (1, 3, 130, 32), scale=-0.7, hard=True)
    yield case("small slices (the formula)", Type.f32, (2, 8, 64, 32), (2, 8, 64, 32))


CASES: dict[str, Callable[[Route], Iterator[Case]]] = {
    "unary-blocks": unary_blocks_cases, "gelu-erf-f32": gelu_cases, "softmax-f32": softmax_cases,
    "mvn-f32-rows": mvn_cases, "matmul-few-rows": matmul_cases, "conv-lowering": conv_cases,
    "maxpool-separable": maxpool_cases, "writer": writer_cases, "batchnorm-blocks": batchnorm_cases,
    "swish-blocks": swish_cases, "avgpool-separable": avgpool_cases, "sdpa-blocks": sdpa_cases,
}


def cases_for(route: Route) -> list[Case]:
    if route.name not in CASES:
        raise KeyError(f"no cases for route {route.name!r} of {route.op_type}-{route.since}: add them to CASES")
    return list(CASES[route.name](route))


# -- running a route against its formula -------------------------------------------------------------------
def _run(kernel: OpRun, inputs: list[np.ndarray], threads: int) -> list[np.ndarray]:
    with parallel.using(threads):
        return list(kernel.run(inputs))


def route_violations(route: Route, cases: Sequence[Case] | None = None) -> list[str]:
    """Every case of ``route`` run by the route alone and by the formula; what breaks the bound."""
    found: list[str] = []
    for case in cases if cases is not None else cases_for(route):
        formula = build_kernel(route.formula, case.node)
        want = list(formula.run(case.inputs))
        if route.writer is not None:
            found += _writer_violations(route, case, want)
            continue
        routed = build_kernel(fast.route_class(route), case.node)
        for threads in case.threads:
            got = _run(routed, case.inputs, threads)
            found += violations(route.bound, got, want, case if threads == 1 else
                                Case(f"{case.label} on {threads} threads", case.node, case.inputs, case.allow,
                                     case.magnitude, case.terms))
    return found


def _writer_violations(route: Route, case: Case, want: list[np.ndarray]) -> list[str]:
    assert route.writer is not None
    out = np.full(want[0].shape, 7, want[0].dtype)
    with np.errstate(all="ignore"):
        route.writer(*case.inputs, out)
    found = violations(route.bound, [out], want, case)
    inputs = [a.copy() for a in case.inputs]
    if inputs[0].shape == want[0].shape:  # over its first input, as chains and in-place steps do
        with np.errstate(all="ignore"):
            route.writer(*inputs, inputs[0])
        found += violations(route.bound, [inputs[0]], want, Case(f"{case.label} in place", case.node, case.inputs))
    return found


ROUTES = fast.routes()


def _id(route: Route) -> str:
    return f"{route.op_type}-{route.since}-{route.name}"


def test_the_registered_routes_are_the_pinned_ones() -> None:
    assert not pinning_problems(registered()), pinning_problems(registered())


def test_every_route_has_cases_and_every_kernel_route_a_realistic_one() -> None:
    for route in ROUTES:
        cases = cases_for(route)
        assert cases, f"no cases for {_id(route)}"
        assert max(c.inputs[0].size for c in cases) >= 4000, f"{_id(route)}: no case of a realistic size"


@pytest.mark.parametrize("route", ROUTES, ids=_id)
def test_route_within_its_bound(route: Route) -> None:
    found = route_violations(route)
    assert not found, "\n".join(found[:20])


@pytest.mark.parametrize("op", sorted({(r.op_type, r.since) for r in ROUTES if r.mixin is not None}),
                         ids=lambda o: f"{o[0]}-{o[1]}")
def test_the_device_kernel_with_every_route_of_the_op(op: tuple[str, int]) -> None:
    """fast.make_kernel's kernel (all the op's routes at once) against the formula, within the
    loosest of their bounds (unary-blocks is exact, so it adds nothing)."""
    routes = [r for r in ROUTES if (r.op_type, r.since) == op and r.mixin is not None]
    bound = max((r.bound for r in routes), key=lambda b: ["exact", "ulp", "accumulation"].index(b.kind))
    loosest = next(r for r in routes if r.bound == bound)
    found = []
    for case in cases_for(loosest):
        want = list(build_kernel(loosest.formula, case.node).run(case.inputs))
        device = fast.make_kernel(case.node)
        assert fast.formula_of(device) is loosest.formula
        for threads in case.threads:
            found += violations(bound, _run(device, case.inputs, threads), want, case)
    assert not found, "\n".join(found[:20])


# -- the program's routes -------------------------------------------------------------------------------------
def _exact_chain_model(shape: list[int]) -> Model:
    """20 elementwise nodes whose kernels' routes are all exact (the eltwise anchor's kind)."""
    x = _param(shape, Type.f32)
    node: Any = x
    c = ops.constant(np.linspace(-1, 1, shape[1], dtype=np.float32).reshape(shape[1], 1, 1), name="c")
    for i in range(4):
        node = ops.add(node, c, name=f"add{i}")
        node = ops.multiply(node, ops.constant(np.float32(0.9)), name=f"mul{i}")
        node = ops.sigmoid(node, name=f"sig{i}")
        node = ops.tanh(node, name=f"tanh{i}")
        node = ops.relu(node, name=f"relu{i}")
    return Model([node], [x], "exact_chain")


def _inplace_model() -> Model:
    x = _param([1, 16, 32, 32], Type.f32)
    conv = ops.convolution(x, ops.constant(np.random.default_rng(1).standard_normal((16, 16, 3, 3))
                                           .astype(np.float32)), [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    bias = ops.add(conv, ops.constant(np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16, 1, 1)), name="bias")
    return Model([ops.exp(ops.tanh(ops.relu(bias, name="relu"), name="tanh"), name="exp")], [x], "inplace")


def program_violations(route: ProgramRoute) -> list[str]:
    """The program with ``route`` on against the same kernels run one by one on one thread
    (``chains=False``), bit for bit, and, for models whose kernel routes are all exact, against
    the formulas (the plain interpreter)."""
    rng = np.random.default_rng(31)
    found: list[str] = []
    shape = [1, 64, 128, 128]
    x = sprinkled(rng, shape, np.float32, 30.0)
    exact = _exact_chain_model(shape)
    with np.errstate(all="ignore"):
        formula = evaluate(exact, [x])
        plain = Program(exact, Type.f32, chains=False)
        if route.name in ("chains", "intra-op-threads"):
            program = Program(exact, Type.f32)
            assert program.chains, "the chain model formed no chain"
            for threads in (1, 2) if route.name == "intra-op-threads" else (1,):
                got = program.run([x], {}, threads=threads)[0]
                case = Case(f"{route.name}: 20-node chain on {threads} thread(s)", exact.get_results()[0], [x])
                found += violations(route.bound, got, formula, case)
            big = _param([2 * parallel.SPLIT_MIN + 3], Type.f32)
            lone = Model([ops.sin(big)], [big])
            y = sprinkled(rng, [2 * parallel.SPLIT_MIN + 3], np.float32)
            if route.name == "intra-op-threads":
                got = Program(lone, Type.f32).run([y], {}, threads=2)[0]
                found += violations(route.bound, got, evaluate(lone, [y]),
                                    Case("intra-op-threads: Sin split over two threads", lone.get_results()[0], [y]))
        elif route.name == "in-place":
            model = _inplace_model()
            program = Program(model, Type.f32)
            names = {s.node.friendly_name for s in program.steps if s.inplace is not None}
            assert {"bias", "relu", "tanh", "exp"} <= names, names
            z = sprinkled(rng, [1, 16, 32, 32], np.float32)
            got = program.run([z], {})[0]
            found += violations(route.bound, got, Program(model, Type.f32, chains=False).run([z], {})[0],
                                Case("in-place: bias, relu, tanh, exp after a conv", model.get_results()[0], [z]))
        elif route.name == "process-streams":
            from ovconform import Core
            from ovconform import properties as P

            compiled = Core().compile_model(exact, "REFERENCE", {P.NUM_STREAMS: 1, "REFERENCE_PROCESS_STREAMS": True})
            got = [np.asarray(compiled.create_infer_request().infer([x])[0])]
            found += violations(route.bound, got, plain.run([x], {})[0],
                                Case("process-streams: the chain model in a worker", exact.get_results()[0], [x]))
            found += violations(route.bound, got, formula,
                                Case("process-streams vs the formulas", exact.get_results()[0], [x]))
        else:
            found.append(f"no cases for the program route {route.name!r}: add them to program_violations")
    return found


@pytest.mark.parametrize("route", fast.PROGRAM_ROUTES, ids=lambda r: r.name)
def test_program_route_within_its_bound(route: ProgramRoute) -> None:
    found = program_violations(route)
    assert not found, "\n".join(found[:20])


# -- the checker catches a broken route ---------------------------------------------------------------------
def _route(op: str, version: int, name: str) -> Route:
    return next(r for r in ROUTES if r.key == (op, version, name))


def _nudge(a: np.ndarray, ulps: int, where: Any = Ellipsis) -> None:
    """Move ``a[where]`` by ``ulps`` units in the last place (away from zero), in place."""
    part = a[where]
    for _ in range(ulps):
        part = np.nextafter(part, np.copysign(np.inf, part)).astype(a.dtype)
    a[where] = part


def test_a_unary_route_wrong_on_the_remainder_block_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from reference_plugin.fast import elementwise

    route = _route("Tanh", 1, "unary-blocks")
    cases = [c for c in cases_for(route) if c.inputs[0].dtype == np.float32]
    assert not route_violations(route, cases)
    right = elementwise.BlockwiseUnary.compute

    def last_block_one_ulp_off(self: Any, x: np.ndarray) -> np.ndarray:
        y = right(self, x)
        chunk = self.chunk()
        if x.size > 2 * chunk:
            tail = x.size % chunk or chunk
            _nudge(y.reshape(-1), 1, slice(x.size - tail, None))
        return y

    monkeypatch.setattr(elementwise.BlockwiseUnary, "compute", last_block_one_ulp_off)
    found = route_violations(route, cases)
    assert found and all("bit for bit" in f for f in found), found


def test_a_route_beyond_its_ulp_bound_is_reported_and_one_within_it_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    from reference_plugin.fast import softmax

    route = _route("Softmax", 8, "softmax-f32")
    cases = [c for c in cases_for(route) if c.label.endswith("rows of 4096")]
    right = softmax.softmax_f32
    for ulps, caught in ((1, False), (2, True)):
        def off(x: np.ndarray, axis: int, ulps: int = ulps) -> np.ndarray | None:
            y = right(x, axis)
            if y is not None:
                _nudge(y, ulps, (slice(None), slice(-3, None)))  # the last three columns
            return y

        monkeypatch.setattr(softmax, "softmax_f32", off)
        found = route_violations(route, cases)
        assert bool(found) is caught, (ulps, found)
        if caught:
            assert "outside the bound, within 1 ulp" in found[0], found


def test_a_convolution_lowering_dropping_its_last_row_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from reference_plugin.fast import convolution

    route = _route("Convolution", 1, "conv-lowering")
    cases = [c for c in cases_for(route) if "64ch 56x56" in c.label]
    assert cases and not route_violations(route, cases)
    right = convolution._conv_rows

    def last_row_zero(*args: Any) -> np.ndarray:
        out = right(*args)
        out[..., -1, :] = 0
        return out

    monkeypatch.setattr(convolution, "_conv_rows", last_row_zero)
    found = route_violations(route, cases)
    assert found and "outside the bound, within 8·e·sqrt(K)" in found[0], found


def test_a_pooling_route_losing_the_sign_of_zero_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from reference_plugin.fast import pooling

    route = _route("MaxPool", 8, "maxpool-separable")
    cases = [c for c in cases_for(route) if c.inputs[0].dtype == np.float32 and "cnn" in c.label]
    assert cases and not route_violations(route, cases)
    right = pooling.fold_separably

    def positive_zeros(*args: Any) -> np.ndarray:
        out = right(*args)
        out[out == 0] = 0.0  # -0 becomes +0: equal values, other bits
        return out

    monkeypatch.setattr(pooling, "fold_separably", positive_zeros)
    found = route_violations(route, cases)
    assert found and "bit for bit" in found[0], found


def test_an_accumulation_route_off_by_a_relative_1e_3_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """(The accumulation bound is relative to sum|a·b|, here ~20x the result: 1e-4 would pass.)"""
    from reference_plugin.fast.matmul import MatMulFewRows

    route = _route("MatMul", 1, "matmul-few-rows")
    cases = [c for c in cases_for(route) if c.label == "MatMul f32 mlp layer 1"]
    assert cases and not route_violations(route, cases)
    right = MatMulFewRows._run

    def scaled(self: Any, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        (y,) = right(self, a, b)
        return (y * np.float32(1 + 1e-3),)

    monkeypatch.setattr(MatMulFewRows, "_run", scaled)
    found = route_violations(route, cases)
    assert found and "outside the bound, within 8·e·sqrt(K)" in found[0], found


def test_a_writer_one_ulp_off_is_reported() -> None:
    route = _route("Add", 1, "writer")
    cases = cases_for(route)[:1]
    assert not route_violations(route, cases)
    right = route.writer
    assert right is not None

    def off(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        right(a, b, out)
        _nudge(out, 1, (slice(None), slice(-1, None)))

    found = route_violations(replace(route, writer=off), cases)  # (a Route is frozen: a changed copy)
    assert found and "bit for bit" in found[0], found


def test_an_hswish_writer_multiplying_by_a_sixth_is_reported() -> None:
    """Broken on purpose: ``x * (t * (1/6))`` for the formula's ``x * t / 6`` (close, other roundings)."""
    from reference_plugin.fast.elementwise import _chunks

    route = _route("HSwish", 4, "writer")
    cases = cases_for(route)
    assert not route_violations(route, cases)

    def sixth(x: np.ndarray, out: np.ndarray) -> None:
        for xs, os, _ in _chunks(x, out):
            np.multiply(xs, np.minimum(np.maximum(xs + 3.0, 0.0), 6.0) * (1 / 6), out=os)

    found = route_violations(replace(route, writer=sixth), cases)
    assert found and "bit for bit" in found[0], found


def test_a_batchnorm_route_computing_in_float32_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The affine step in float32 (``x * scale + shift``): close, not the formula's bits."""
    from reference_plugin.fast import batch_norm

    route = _route("BatchNormInference", 5, "batchnorm-blocks")
    cases = [c for c in cases_for(route) if "(1, 64, 56, 56)" in c.label or "[1, 64, 56, 56]" in c.label]
    assert cases and not route_violations(route, cases)

    def in_float32(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                   eps: float, affine: Any = None) -> np.ndarray:
        scale = (gamma / np.sqrt(variance + np.float32(eps))).astype(x.dtype)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return x * scale.reshape(shape) + (beta - mean * scale).reshape(shape)

    monkeypatch.setattr(batch_norm, "batch_norm_blocks", in_float32)
    found = route_violations(route, cases)
    assert found and "bit for bit" in found[0], found


def test_the_batchnorm_route_recomputes_its_channel_values_when_they_may_have_changed() -> None:
    """The route keeps the last per-channel values only for the same read-only arrays: new
    arrays, a writable array changed in place, or another batch size give the formula's result."""
    route = _route("BatchNormInference", 5, "batchnorm-blocks")
    rng = np.random.default_rng(43)
    x = rng.standard_normal((1, 16, 32, 32)).astype(np.float32)
    params = [rng.uniform(0.5, 1.5, 16).astype(np.float32) for _ in range(4)]
    node = ops.batch_norm_inference(_param(x.shape, Type.f32), *(_param([16], Type.f32, f"p{i}") for i in range(4)),
                                    1e-5)
    routed, formula = build_kernel(fast.route_class(route), node), build_kernel(route.formula, node)

    def same(inputs: list[np.ndarray]) -> bool:
        return bool(np.array_equal(routed.run(inputs)[0].view(np.uint32), formula.run(inputs)[0].view(np.uint32)))

    frozen = [p.copy() for p in params]
    for p in frozen:
        p.flags.writeable = False
    assert same([x, *frozen]) and same([x, *frozen])  # the second run reuses the values
    writable = [p.copy() for p in params]
    assert same([x, *writable])
    writable[0] *= 2  # changed in place: recomputed
    assert same([x, *writable])
    assert same([x, *(p * 3 for p in frozen)])  # other arrays
    x2 = np.concatenate([x, x * 2])
    assert same([x2, *frozen])  # another batch size


def test_a_swish_route_wrong_on_its_last_block_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from reference_plugin.fast import swish

    route = _route("Swish", 4, "swish-blocks")
    cases = [c for c in cases_for(route) if c.inputs[0].dtype == np.float32 and c.inputs[0].size > swish.BLOCK]
    assert cases and not route_violations(route, cases)
    right = swish.swish_blocks

    def last_block_off(x: np.ndarray, beta: float) -> np.ndarray:
        y = right(x, beta)
        _nudge(y.reshape(-1), 1, slice(-(x.size % swish.BLOCK or swish.BLOCK), None))
        return y

    monkeypatch.setattr(swish, "swish_blocks", last_block_off)
    found = route_violations(route, cases)
    assert found and "bit for bit" in found[0], found


def test_an_avgpool_route_adding_its_window_in_another_order_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each window row added right to left: the same float64 terms, other roundings (seen on f64
    data; on f32 data the final rounding to float32 hides nearly every such difference)."""
    from reference_plugin.fast import pooling

    route = _route("AvgPool", 16, "avgpool-separable")
    cases = [c for c in cases_for(route) if c.inputs[0].dtype == np.float64 and "formula" not in c.label]
    assert cases and not route_violations(route, cases)

    def columns_first(padded: np.ndarray, kw: int, sw: int, dw: int, ow: int) -> np.ndarray:
        acc = padded[..., (kw - 1) * dw:(kw - 1) * dw + (ow - 1) * sw + 1:sw].copy()
        for j in reversed(range(kw - 1)):
            acc += padded[..., j * dw:j * dw + (ow - 1) * sw + 1:sw]
        return acc

    monkeypatch.setattr(pooling, "window_row_sums", columns_first)
    found = route_violations(route, cases)
    assert found and "bit for bit" in found[0], found


def test_a_depthwise_path_dropping_its_last_channel_block_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from reference_plugin.fast import convolution

    route = _route("GroupConvolution", 1, "conv-lowering")
    cases = [c for c in cases_for(route) if "depthwise 96ch 56x56" in c.label]
    assert cases and not route_violations(route, cases)
    right = convolution._conv_depthwise

    def last_channel_zero(*args: Any) -> np.ndarray:
        out = right(*args)
        out[:, -1] = 0
        return out

    monkeypatch.setattr(convolution, "_conv_depthwise", last_channel_zero)
    found = route_violations(route, cases)
    assert found and "outside the bound" in found[0], found


def test_a_removed_or_unpinned_route_is_reported() -> None:
    found = registered()
    assert pinning_problems(found) == []
    assert "no longer registered" in pinning_problems(found - {("Softmax", 8, "softmax-f32")})[0]
    assert "not pinned" in pinning_problems(found | {("Relu", 1, "unary-blocks")})[0]


def test_a_program_route_differing_from_its_kernels_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from reference_plugin.fast import chains

    route = next(r for r in fast.PROGRAM_ROUTES if r.name == "chains")
    right = chains.Chain.run

    def last_block_off(self: Any, x: np.ndarray, ctx: Any, timings: Any, out: Any = None) -> np.ndarray:
        y = right(self, x, ctx, timings, out)
        _nudge(y[self.blocks[-1]], 1)
        return y

    monkeypatch.setattr(chains.Chain, "run", last_block_off)
    found = program_violations(route)
    assert found and "bit for bit" in found[0], found

