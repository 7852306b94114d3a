"""REFERENCE's convolution and max-pool, formulas and fast routes, against naive loop implementations.

Convolution: the formula (``reference_plugin/ops/_common_conv.py``, offset by offset) and the
conv-lowering route's two lowerings (``reference_plugin/fast/convolution.py``, the row-batched one
and im2col, forced here with its thresholds, and the paths the device chooses) over random
shapes, strides, pads, dilations, auto_pad modes, groups, batches and 1-3 spatial dims,
compared with a loop over output positions and kernel offsets in float64 (exact Python-int sums
for integers):

* float64 data: within ``K * 2**-52`` of the naive sum, relative to the sum of absolute products;
* float32 data (sgemm): within ``4 * 2**-23 * sqrt(K)`` (the bound test_kernel_accuracy.py states);
* int64: exactly.

The depthwise path (one input channel per group), in both its layouts, is the formula bit for bit; the pointwise one
(1x1, unit strides, no padding) is im2col's own GEMM for one image.

MaxPool (the formula ``op_max_pool.window_max`` and the maxpool-separable route
``fast/pooling.fold_separably``) must be bit-identical to the plain fold over
each window in row-major order, ``acc = w[0]; acc = np.maximum(acc, w[i])`` (signed zeros and NaN
payloads included), and its indices must follow the documented rule: the first real element (in
window order) equal to the maximum (NaN: the first NaN), padding never winning; a window without
one takes its first tap's index when that is real, else 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from ref_kernel_util import run_op

from ovconform import opset as ops
from ovconform.errors import InferError
from reference_plugin.fast import convolution as lowering_module
from reference_plugin.fast.pooling import fold_separably
from reference_plugin.ops._common_conv import convolve
from reference_plugin.ops._common_window import WindowSpec
from reference_plugin.ops.op_max_pool import max_pool_indices, window_max

AUTO_PADS = ["explicit", "explicit", "valid", "same_upper", "same_lower"]


# -- naive references ----------------------------------------------------------------------------
def _reads(spec: WindowSpec, out_pos: tuple[int, ...], offsets: tuple[int, ...], pads: tuple[int, ...],
           spatial: tuple[int, ...]) -> tuple[int, ...] | None:
    """The input coordinates output ``out_pos`` reads at kernel ``offsets`` (None: padding)."""
    coords = tuple(o * s + k * d - p
                   for o, s, k, d, p in zip(out_pos, spec.strides, offsets, spec.dilations, pads, strict=True))
    return coords if all(0 <= c < n for c, n in zip(coords, spatial, strict=True)) else None


def naive_conv(x: np.ndarray, w: np.ndarray, spec: WindowSpec) -> tuple[np.ndarray, np.ndarray]:
    """(result, sum of |products|) of a grouped convolution, by loops; float64 or exact ints."""
    n_batch, _, *spatial = x.shape
    groups, og, cg = w.shape[:3]
    plan = spec.plan(spatial)
    exact = x.dtype.kind in "iu"
    xs = x.astype(object) if exact else x.astype(np.float64)
    ws = w.astype(object) if exact else w.astype(np.float64)
    out = np.zeros((n_batch, groups, og, *plan.out), object if exact else np.float64)
    mag = np.zeros(out.shape, np.float64)
    for pos in np.ndindex(*plan.out):
        for offsets in np.ndindex(*spec.kernel):
            at = _reads(spec, pos, offsets, plan.pads_begin, tuple(spatial))
            if at is None:
                continue
            for g in range(groups):
                patch = xs[(slice(None), slice(g * cg, (g + 1) * cg), *at)]  # (N, Cg)
                taps = ws[(g, slice(None), slice(None), *offsets)]  # (Og, Cg)
                out[(slice(None), g, slice(None), *pos)] += patch.dot(taps.T)
                mag[(slice(None), g, slice(None), *pos)] += np.abs(patch.astype(np.float64)).dot(
                    np.abs(taps.astype(np.float64)).T)
    shape = (n_batch, groups * og, *plan.out)
    return out.reshape(shape), mag.reshape(shape)


def naive_max_pool(x: np.ndarray, spec: WindowSpec, pad_value: float | int) -> tuple[np.ndarray, np.ndarray]:
    """(values, flat indices) by the plain per-window fold and the documented index rule."""
    n_batch, channels, *spatial = x.shape
    plan = spec.plan(spatial)
    size = math.prod(spatial)
    values = np.empty((n_batch, channels, *plan.out), x.dtype)
    index = np.empty(values.shape, np.int64)
    for b, c in np.ndindex(n_batch, channels):
        for pos in np.ndindex(*plan.out):
            items = []  # (value, flat spatial index or None for padding), window order
            for offsets in np.ndindex(*spec.kernel):
                at = _reads(spec, pos, offsets, plan.pads_begin, tuple(spatial))
                v = x[(b, c, *at)] if at is not None else x.dtype.type(pad_value)
                items.append((v, None if at is None else int(np.ravel_multi_index(at, spatial))))
            acc = np.array([items[0][0]], x.dtype)
            for v, _ in items[1:]:
                np.maximum(acc, np.array([v], x.dtype), out=acc)
            values[(b, c, *pos)] = acc[0]
            best = acc[0]
            found = next((i for v, i in items if i is not None
                          and (v == best or (x.dtype.kind == "f" and np.isnan(v) and np.isnan(best)))), None)
            if found is None:
                found = items[0][1] if items[0][1] is not None else 0
            index[(b, c, *pos)] = found + (b * channels + c) * size
    return values, index


# -- random cases ------------------------------------------------------------------------------------
def _spec(rng: np.random.Generator, nd: int, rounding: str = "floor") -> WindowSpec:
    kernel = tuple(int(v) for v in rng.integers(1, 4, nd))
    def ints(lo: int, hi: int) -> tuple[int, ...]:
        return tuple(int(v) for v in rng.integers(lo, hi, nd))

    return WindowSpec(kernel, ints(1, 4), ints(1, 3), ints(0, 3), ints(0, 3), str(rng.choice(AUTO_PADS)), rounding)


def _conv_cases(count: int) -> Iterator[Any]:
    rng = np.random.default_rng(20261122)
    for i in range(count):
        nd = int(rng.integers(1, 4))
        spec = _spec(rng, nd)
        spatial = tuple(int(v) for v in rng.integers(1, 8 if nd < 3 else 6, nd))
        groups, cg, og, n = (int(rng.integers(1, hi)) for hi in (3, 4, 4, 3))
        dtype = np.dtype([np.float32, np.float64, np.int64][i % 3])
        yield pytest.param(spec, (n, groups * cg, *spatial), (groups, og, cg, *spec.kernel), dtype, id=f"conv{i}")


def force(monkeypatch: pytest.MonkeyPatch, lowering: str) -> None:
    """Make grouped_conv take ``lowering`` ("rows" or "im2col") wherever it applies: the depthwise
    and pointwise paths off, the row lowering's size thresholds at 0 or out of reach."""
    monkeypatch.setattr(lowering_module, "DEPTHWISE", False)
    monkeypatch.setattr(lowering_module, "POINTWISE", False)
    monkeypatch.setattr(lowering_module, "ROW_MIN_MACS", 0 if lowering == "rows" else 1 << 62)
    monkeypatch.setattr(lowering_module, "ROW_MIN_COLUMNS", 0)


@pytest.fixture(params=["rows", "im2col", "chosen", "formula"])
def lowering(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The convolution to test: the formula, grouped_conv forced to one lowering (the row one only
    applies to float 2-D/3-D cases), or grouped_conv as the device runs it ("chosen": depthwise
    and pointwise paths included)."""
    if request.param == "formula":
        return convolve
    if request.param != "chosen":
        force(monkeypatch, request.param)
    return lowering_module.grouped_conv


def max_pool(x: np.ndarray, spec: WindowSpec, pad: float | int) -> tuple[np.ndarray, np.ndarray]:
    """The MaxPool formula's (values, indices)."""
    values = window_max(x, spec, spec.plan(x.shape[2:]), pad)
    return values, max_pool_indices(x, spec, pad, values)


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype.kind in "iu":
        return rng.integers(-50, 50, shape).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


@pytest.mark.parametrize(("spec", "x_shape", "w_shape", "dtype"), list(_conv_cases(240)))
def test_grouped_conv_matches_the_naive_loop(spec: WindowSpec, x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                                             dtype: np.dtype, lowering: Any) -> None:
    rng = np.random.default_rng(abs(hash((x_shape, w_shape))) % 2**32)
    x, w = _data(rng, x_shape, dtype), _data(rng, w_shape, dtype)
    try:
        want, magnitude = naive_conv(x, w, spec)
    except InferError:  # a kernel larger than the padded input: both must refuse
        with pytest.raises(InferError):
            lowering(x, w, spec)
        return
    got = lowering(x, w, spec)
    assert got.shape == want.shape and got.dtype == dtype
    if dtype.kind in "iu":
        assert np.array_equal(got, want.astype(dtype))
        return
    k = w_shape[2] * math.prod(spec.kernel)
    eps = 2.0 ** -23 if dtype == np.float32 else 2.0 ** -52
    bound = (4 * eps * math.sqrt(k) if dtype == np.float32 else k * eps) * magnitude + 1e-300
    assert np.all(np.abs(got.astype(np.float64) - want.astype(np.float64)) <= bound)


@pytest.mark.parametrize("shape", [(1, 16, 64, 64), (2, 8, 9, 60), (1, 4, 5, 8, 7)])
def test_the_row_lowering_is_taken_for_the_anchor_shapes(shape: tuple[int, ...]) -> None:
    n_sp = len(shape) - 2
    spec = WindowSpec((3,) * n_sp, (1,) * n_sp, (1,) * n_sp, (1,) * n_sp, (1,) * n_sp, "explicit")
    w_shape = (1, 32, shape[1], *spec.kernel)
    assert lowering_module.use_rows(np.dtype(np.float32), w_shape, spec, spec.plan(shape[2:]))
    assert not lowering_module.use_rows(np.dtype(np.int64), w_shape, spec, spec.plan(shape[2:]))
    dilated = WindowSpec(spec.kernel, spec.strides, (2,) * n_sp, spec.pads_begin, spec.pads_end, "explicit")
    assert not lowering_module.use_rows(np.dtype(np.float32), w_shape, dilated, dilated.plan(shape[2:]))


@pytest.mark.parametrize(("shape", "out_channels"), [((1, 256, 14, 14), 256), ((1, 512, 7, 7), 512),
                                                     ((1, 64, 28, 28), 64)])
def test_narrow_output_rows_take_im2col(shape: tuple[int, ...], out_channels: int) -> None:
    """ResNet-50's 3x3 layers at 28, 14 and 7 wide: one GEMM a few columns wide per output row
    ran 5-15x slower than im2col's one GEMM, so rows narrower than ROW_MIN_COLUMNS take im2col."""
    spec = WindowSpec((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), "explicit")
    w_shape = (1, out_channels, shape[1], 3, 3)
    assert shape[3] < lowering_module.ROW_MIN_COLUMNS
    assert not lowering_module.use_rows(np.dtype(np.float32), w_shape, spec, spec.plan(shape[2:]))


@pytest.mark.parametrize("lowering_name", ["rows", "im2col"])
def test_both_lowerings_on_a_larger_float32_convolution(lowering_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    force(monkeypatch, lowering_name)
    rng = np.random.default_rng(3)
    spec = WindowSpec((3, 3), (1, 2), (1, 1), (1, 0), (2, 1), "explicit")
    x, w = _data(rng, (2, 6, 20, 23), np.dtype(np.float32)), _data(rng, (2, 5, 3, 3, 3), np.dtype(np.float32))
    want, magnitude = naive_conv(x, w, spec)
    got = lowering_module.grouped_conv(x, w, spec)
    assert np.all(np.abs(got - want) <= 4 * 2.0 ** -23 * math.sqrt(27) * magnitude)


@pytest.mark.parametrize("conv", [convolve, lowering_module.grouped_conv], ids=["formula", "lowering"])
def test_negative_pads_are_still_refused(conv: Any) -> None:
    spec = WindowSpec((3, 3), (1, 1), (1, 1), (-1, 0), (0, 0), "explicit")
    x, w = np.ones((1, 2, 6, 6), np.float32), np.ones((1, 3, 2, 3, 3), np.float32)
    with pytest.raises(ValueError):
        conv(x, w, spec)


@pytest.mark.parametrize("type_name", ["f32", "f16", "bf16", "f64", "i32", "u8"])
def test_convolution_op_types(type_name: str) -> None:
    """The Convolution and GroupConvolution kernels on every type class, against the naive loop
    (floats: rounded once to the type; integers: the int64 sum wrapped)."""
    rng = np.random.default_rng(7)
    from ref_kernel_util import bf16, from_bf16

    from ovconform.ir import as_type

    t = as_type(type_name)
    if type_name == "u8":
        x, w = rng.integers(0, 6, (1, 4, 9, 9)), rng.integers(0, 6, (6, 4, 3, 3))
    elif type_name == "i32":
        x, w = rng.integers(-9, 9, (1, 4, 9, 9)), rng.integers(-9, 9, (6, 4, 3, 3))
    else:
        x, w = rng.standard_normal((1, 4, 9, 9)), rng.standard_normal((6, 4, 3, 3))
    if type_name == "bf16":
        xs, ws = bf16(x), bf16(w)
        xv, wv = from_bf16(xs), from_bf16(ws)
    else:
        xs, ws = x.astype(t.to_dtype()), w.astype(t.to_dtype())
        xv, wv = xs, ws
    spec = WindowSpec((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), "explicit")
    for make, wg in [(lambda p: ops.convolution(p, ops.constant(ws, t), [1, 1], [1, 1], [1, 1], [1, 1]), wv[None]),
                     (lambda p: ops.group_convolution(p, ops.constant(ws[:, :2].reshape(2, 3, 2, 3, 3), t), [1, 1],
                                                      [1, 1], [1, 1], [1, 1]), wv[:, :2].reshape(2, 3, 2, 3, 3))]:
        (got,) = run_op(make, xs, types=[t])
        want, magnitude = naive_conv(np.asarray(xv, np.float64) if t.is_real() else np.asarray(xv, np.int64),
                                     np.asarray(wg, np.float64) if t.is_real() else np.asarray(wg, np.int64), spec)
        if not t.is_real():
            assert np.array_equal(got, np.asarray(want, np.int64).astype(t.to_dtype()))
            continue
        gotf = from_bf16(got) if type_name == "bf16" else got.astype(np.float64)
        k = 2 * 9 if wg.shape[0] == 2 else 4 * 9
        rounding = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}.get(type_name, 0.0) * np.abs(want)
        eps = 2.0 ** -52 * k if type_name == "f64" else 4 * 2.0 ** -23 * math.sqrt(k)
        assert np.all(np.abs(gotf - want) <= eps * magnitude + rounding + 1e-300)


# -- depthwise and pointwise paths --------------------------------------------------------------------------
def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape, dtype and bits (every NaN counted equal to every NaN)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    nan = np.isnan(a)
    if not np.array_equal(nan, np.isnan(b)):
        return False
    uint = np.dtype(f"u{a.dtype.itemsize}")
    return bool(np.array_equal(np.where(nan, 0, a).view(uint), np.where(nan, 0, b).view(uint)))


def _depthwise_cases(count: int) -> Iterator[Any]:
    rng = np.random.default_rng(20261127)
    for i in range(count):
        k = tuple(int(v) for v in rng.integers(1, 6, 2))
        strides, dil = tuple(int(v) for v in rng.integers(1, 4, 2)), tuple(int(v) for v in rng.integers(1, 3, 2))
        pb, pe = tuple(int(v) for v in rng.integers(0, 3, 2)), tuple(int(v) for v in rng.integers(0, 3, 2))
        spec = WindowSpec(k, strides, dil, pb, pe, str(rng.choice(AUTO_PADS)))
        spatial = tuple(int(v) for v in rng.integers(1, 40, 2))
        groups, og, n = int(rng.integers(1, 40)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        dtype = np.dtype([np.float32, np.float64][i % 2])
        yield pytest.param(spec, (n, groups, *spatial), (groups, og, 1, *k), dtype, id=f"dw{i}")


#: The depthwise path's two layouts, forced through its width threshold.
DEPTHWISE_LAYOUTS = {"rows": 0, "channels-last": 1 << 30}


@pytest.fixture(params=sorted(DEPTHWISE_LAYOUTS))
def depthwise_layout(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Make _conv_depthwise take the channel-rows or the channels-last path whatever the width."""
    monkeypatch.setattr(lowering_module, "CHANNELS_LAST_MAX_WIDTH", DEPTHWISE_LAYOUTS[request.param])
    return str(request.param)


@pytest.mark.parametrize(("spec", "x_shape", "w_shape", "dtype"), list(_depthwise_cases(80)))
def test_the_depthwise_path_is_the_formula_bit_for_bit(spec: WindowSpec, x_shape: tuple[int, ...],
                                                       w_shape: tuple[int, ...], dtype: np.dtype,
                                                       depthwise_layout: str) -> None:
    """_conv_depthwise (any strides, dilations, pads, channel multiplier, batch; both layouts)
    against the formula: the same products added in the same order, so the same bits, NaN,
    infinities, signed zeros (a sum of -0 products is +0 in both) and subnormals included."""
    rng = np.random.default_rng(abs(hash((x_shape, w_shape))) % 2**32)
    x, w = _data(rng, x_shape, dtype), _data(rng, w_shape, dtype)
    hard = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-310 if dtype == np.float64 else 1e-45], dtype)
    x.reshape(-1)[rng.choice(x.size, min(x.size, 6), replace=False)] = hard[:min(x.size, 6)]
    w.reshape(-1)[0] = -0.0
    try:
        plan = spec.plan(x_shape[2:])
    except InferError:
        return  # a kernel larger than the padded input: grouped_conv refuses it before any path
    with np.errstate(all="ignore"):
        want = convolve(x, w, spec)
        got = lowering_module._conv_depthwise(x, w, spec, plan)
    assert _bits_equal(got, want)


def _all_negative_zero_products(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, WindowSpec]:
    """A depthwise layer where many outputs have only -0 products (+0 samples and padding times
    negative taps) next to ones that do not, with a channel multiplier and two images."""
    rng = np.random.default_rng(3)
    x = _data(rng, (2, 6, 9, 11), dtype)
    x[:, :, :5] = 0.0  # +0 rows at the top, inside the padding's reach
    x[0, 1, 6, 3] = -0.0
    w = -np.abs(_data(rng, (6, 2, 1, 3, 3), dtype)) - 0.5
    w[2, 1, 0, 1, 1] = -0.0
    return x, w, WindowSpec((3, 3), (1, 2), (1, 1), (1, 1), (1, 1), "explicit")


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float64)], ids=["f32", "f64"])
def test_a_depthwise_sum_of_negative_zeros_is_the_formulas_positive_zero(dtype: np.dtype,
                                                                       depthwise_layout: str) -> None:
    """Both layouts start from the first products (no zeros pass) and add +0 when they store: the
    formula's sum starts from zeros, so where every product is -0 it is +0, and so is the path's."""
    x, w, spec = _all_negative_zero_products(dtype)
    with np.errstate(all="ignore"):
        want = convolve(x, w, spec)
        got = lowering_module._conv_depthwise(x, w, spec, spec.plan(x.shape[2:]))
    zeros = want == 0
    assert zeros.sum() > 50 and not np.signbit(want[zeros]).any()  # the stimulus reaches the case
    assert _bits_equal(got, want)


def test_a_depthwise_path_storing_its_sums_without_the_plus_zero_is_caught(depthwise_layout: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken on purpose: sums stored as they are (a sum of -0 products stays -0). The bit check
    of the test above reports it, on both layouts."""
    monkeypatch.setattr(lowering_module, "_store", lambda sums, out: np.copyto(out, sums))
    x, w, spec = _all_negative_zero_products(np.dtype(np.float32))
    with np.errstate(all="ignore"):
        want = convolve(x, w, spec)
        got = lowering_module._conv_depthwise(x, w, spec, spec.plan(x.shape[2:]))
    assert np.array_equal(got, want)  # equal as numbers (-0 == +0) ...
    assert not _bits_equal(got, want)  # ... but not as bits
    assert np.signbit(got[want == 0]).any()


@pytest.mark.parametrize(("shape", "k", "s", "path"), [((1, 576, 7, 7), 5, 1, "_depthwise_channels_last"),
                                                       ((1, 240, 28, 28), 3, 2, "_depthwise_channels_last"),
                                                       ((1, 144, 56, 56), 3, 1, "_depthwise_rows"),
                                                       ((1, 96, 112, 112), 3, 2, "_depthwise_rows")])
def test_the_depthwise_layout_follows_the_output_width(shape: tuple[int, ...], k: int, s: int, path: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Narrow outputs (fewer than CHANNELS_LAST_MAX_WIDTH columns) go channels last, wide ones by
    channel rows."""
    taken: list[str] = []

    def spy(name: str) -> Any:
        real = getattr(lowering_module, name)

        def path(*args: Any) -> np.ndarray:
            taken.append(name)
            return real(*args)

        return path

    for name in ("_depthwise_channels_last", "_depthwise_rows"):
        monkeypatch.setattr(lowering_module, name, spy(name))
    x = np.ones(shape, np.float32)
    w = np.ones((shape[1], 1, 1, k, k), np.float32)
    spec = WindowSpec((k, k), (s, s), (1, 1), (k // 2,) * 2, (k // 2,) * 2, "explicit")
    lowering_module.grouped_conv(x, w, spec)
    assert taken == [path]


def test_the_depthwise_path_is_taken_for_float_2d_depthwise_layers_only() -> None:
    def takes(shape: tuple[int, ...], k: int, s: int, dtype: Any = np.float32, cg: int = 1) -> bool:
        p = (k - 1) // 2
        spec = WindowSpec((k,) * (len(shape) - 2), (s,) * (len(shape) - 2), (1,) * (len(shape) - 2),
                          (p,) * (len(shape) - 2), (p,) * (len(shape) - 2), "explicit")
        w_shape = (shape[1] // cg, 1, cg, *spec.kernel)
        return lowering_module.use_depthwise(np.dtype(dtype), w_shape, spec, spec.plan(shape[2:]))

    assert takes((1, 144, 56, 56), 3, 1) and takes((1, 576, 7, 7), 5, 1) and takes((1, 144, 56, 56), 3, 2)
    assert takes((1, 144, 56, 56), 3, 1, np.float64)
    assert not takes((1, 144, 56, 56), 3, 1, np.int64)  # integers: im2col, exact
    assert not takes((1, 144, 56, 56), 3, 1, cg=2)  # two channels per group
    assert not takes((1, 16, 40), 3, 1) and not takes((1, 8, 9, 9, 9), 3, 1)  # 1-D, 3-D


@pytest.mark.parametrize(("x_shape", "k", "s"), [((1, 96, 56, 56), 3, 1), ((1, 576, 7, 7), 5, 1),
                                                 ((2, 40, 13, 14), 3, 2)])
def test_grouped_conv_takes_the_depthwise_path_bit_for_bit_on_two_threads(x_shape: tuple[int, ...], k: int, s: int,
                                                                         depthwise_layout: str) -> None:
    """Depthwise layers large enough for the intra-op threads (a 7x7 one too, whose rows fit in
    one block, and a batch): the same bits on one and two, and both threads get blocks."""
    from reference_plugin.fast import parallel

    rng = np.random.default_rng(5)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((x_shape[1], 1, 1, k, k)).astype(np.float32)
    spec = WindowSpec((k, k), (s, s), (1, 1), (k // 2,) * 2, (k // 2,) * 2, "explicit")
    want = convolve(x, w, spec)
    parts: list[int] = []
    real = lowering_module.map_shared

    def counting(fn: Any, items: Any, n: Any = None) -> Any:
        parts.append(min(len(items), n if n is not None else parallel.threads()))
        return real(fn, items, n)

    for threads in (1, 2):
        with parallel.using(threads), pytest.MonkeyPatch.context() as m:
            m.setattr(lowering_module, "map_shared", counting)
            m.setattr(lowering_module, "DEPTHWISE_SPLIT_MIN", 1)
            assert _bits_equal(lowering_module.grouped_conv(x, w, spec), want)
    assert parts == [1, 2]


@pytest.mark.parametrize(("x_shape", "w_shape"), [((1, 64, 56, 56), (1, 256, 64, 1, 1)),
                                                  ((2, 12, 9, 10), (3, 5, 4, 1, 1)), ((1, 6, 40), (2, 4, 3, 1))])
def test_the_pointwise_path_is_im2col_s_product(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """1x1, unit strides, no padding: the input itself is im2col's matrix. One image: the same
    GEMM, bit for bit; a batch: one GEMM per image, within the accumulation bound."""
    rng = np.random.default_rng(11)
    x, w = _data(rng, x_shape, np.dtype(np.float32)), _data(rng, w_shape, np.dtype(np.float32))
    spec = WindowSpec((1,) * (len(x_shape) - 2), (1,) * (len(x_shape) - 2), (1,) * (len(x_shape) - 2),
                      (0,) * (len(x_shape) - 2), (0,) * (len(x_shape) - 2), "explicit")
    assert lowering_module._is_pointwise(spec, spec.plan(x_shape[2:]))
    got = lowering_module.grouped_conv(x, w, spec)
    force(monkeypatch, "im2col")
    lowered = lowering_module.grouped_conv(x, w, spec)
    if x_shape[0] == 1:
        assert _bits_equal(got, lowered)
    want, magnitude = naive_conv(x, w, spec)
    assert np.all(np.abs(got - want) <= 4 * 2.0 ** -23 * math.sqrt(w_shape[2]) * magnitude)


@pytest.mark.parametrize("type_name", ["f16", "bf16", "f32", "f64"])
def test_depthwise_group_convolution_kernel_on_float_types_is_the_formula(type_name: str) -> None:
    """The device's GroupConvolution kernel on a depthwise layer wide enough for the depthwise path:
    f16/bf16 data go through their float32 accumulation as in the formula, so every float type
    gives the formula kernel's bits."""
    from ovconform.ir import as_type
    from reference_plugin import fast
    from reference_plugin.ops import build_kernel
    from reference_plugin.ops.op_group_convolution import GroupConvolution

    t = as_type(type_name)
    rng = np.random.default_rng(13)
    x = rng.standard_normal((1, 8, 30, 33)).astype(np.float32)
    w = rng.standard_normal((8, 1, 1, 3, 3)).astype(np.float32)
    if type_name == "bf16":
        from ref_kernel_util import bf16

        xs, ws = bf16(x), bf16(w)
    else:
        xs, ws = x.astype(t.to_dtype()), w.astype(t.to_dtype())
    node = ops.group_convolution(ops.parameter([1, 8, 30, 33], t), ops.constant(ws, t), [1, 1], [1, 1], [1, 1],
                                 [1, 1])
    spec = WindowSpec((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), "explicit")
    assert lowering_module.use_depthwise(np.dtype(np.float64 if type_name == "f64" else np.float32),
                                         (8, 1, 1, 3, 3), spec, spec.plan((30, 33)))
    (want,) = build_kernel(GroupConvolution, node).run([xs, ws])
    (got,) = fast.make_kernel(node).run([xs, ws])
    assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))


# -- max pool ----------------------------------------------------------------------------------------------
def _pool_cases(count: int) -> Iterator[Any]:
    rng = np.random.default_rng(1122)
    for i in range(count):
        nd = int(rng.integers(1, 4))
        spec = _spec(rng, nd, str(rng.choice(["floor", "ceil", "ceil_torch"])))
        spatial = tuple(int(v) for v in rng.integers(1, 9 if nd < 3 else 6, nd))
        dtype = [np.float32, np.float64, np.int32, np.int8, np.float32][i % 5]
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3)), *spatial)
        yield pytest.param(spec, shape, np.dtype(dtype), id=f"pool{i}")


def _pool_data(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Ties on purpose: signed zeros, infinities, NaNs of several payloads (floats); few values (ints)."""
    if dtype.kind in "iu":
        return rng.integers(-3, 3, shape).astype(dtype)
    x = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, np.nan, -np.inf, np.inf, 2.0], dtype), shape)
    bits = x.view(np.uint32 if dtype == np.float32 else np.uint64)
    bits[np.isnan(x)] |= rng.integers(1, 4, int(np.isnan(x).sum())).astype(bits.dtype)  # NaN payloads
    return x


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64) if a.dtype.kind == "f" else a


@pytest.mark.parametrize(("spec", "shape", "dtype"), list(_pool_cases(260)))
def test_max_pool_is_the_plain_fold_and_the_documented_index(spec: WindowSpec, shape: tuple[int, ...],
                                                             dtype: np.dtype) -> None:
    rng = np.random.default_rng(abs(hash((shape, spec))) % 2**32)
    x = _pool_data(rng, shape, dtype)
    pad = float(np.finfo(dtype).min) if dtype.kind == "f" else int(np.iinfo(dtype).min)
    try:
        want_values, want_index = naive_max_pool(x, spec, pad)
    except InferError:
        with pytest.raises(InferError):
            max_pool(x, spec, pad)
        return
    values, index = max_pool(x, spec, pad)
    folded = fold_separably(x, spec, spec.plan(shape[2:]), pad)
    assert values.shape == want_values.shape == folded.shape
    assert np.array_equal(_bits(values), _bits(want_values)), "values differ from the plain fold (bits)"
    assert np.array_equal(_bits(folded), _bits(want_values)), "the separable fold differs from the plain fold (bits)"
    assert np.array_equal(index, want_index)


@pytest.mark.parametrize("kernel", [(127, 2), (255, 1), (16, 16)])
def test_max_pool_index_with_many_taps(kernel: tuple[int, int]) -> None:
    """254, 255 and 256 taps: the tap counter switches from uint8 to int64 at 255."""
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 4, (1, 2, 260, 18)).astype(np.float32)
    spec = WindowSpec(kernel, (97, 5), (1, 1), (1, 0), (0, 1), "explicit")
    pad = float(np.finfo(np.float32).min)
    want_values, want_index = naive_max_pool(x, spec, pad)
    values, index = max_pool(x, spec, pad)
    assert np.array_equal(values, want_values) and np.array_equal(index, want_index)


def test_max_pool_anchor_shape_values_and_index() -> None:
    rng = np.random.default_rng(9)
    x = np.maximum(rng.standard_normal((1, 32, 64, 64)), 0).astype(np.float32)  # ReLU output: many +0 ties
    spec = WindowSpec((2, 2), (2, 2), (1, 1), (0, 0), (0, 0), "explicit")
    pad = float(np.finfo(np.float32).min)
    values, index = max_pool(x, spec, pad)
    windows = x.reshape(1, 32, 32, 2, 32, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 32, 32, 32, 4)
    assert np.array_equal(values, windows.max(axis=-1))
    first = np.argmax(windows == values[..., None], axis=-1)
    rows, cols = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    spatial = (2 * rows + first // 2) * 64 + 2 * cols + first % 2
    assert np.array_equal(index, spatial + (np.arange(32) * 4096)[None, :, None, None])


@pytest.mark.parametrize("version", [1, 8, 14])
@pytest.mark.parametrize("indices", [False, True])
def test_max_pool_op_values_do_not_depend_on_the_indices_output(version: int, indices: bool) -> None:
    """MaxPool-1/8/14 through the op: the values are bit-identical whether or not the indices
    output is read (before, the indices path took np.max over copied windows)."""
    from ovconform.ir import Model, Type
    from reference_plugin.evaluate import evaluate

    rng = np.random.default_rng(version)
    x = _pool_data(rng, (2, 3, 9, 8), np.dtype(np.float32))
    p = ops.parameter(list(x.shape), Type.f32, "x")
    node = ops.max_pool(p, [2, 1], [1, 1], [1, 0], [0, 1], [3, 2], "ceil", version=version)
    wanted = [node.output(0)] + ([node.output(1)] if indices and version > 1 else [])
    outs = evaluate(Model(wanted, [p]), [x])
    spec = WindowSpec((3, 2), (2, 1), (1, 1), (1, 0), (0, 1), "explicit", "ceil")
    want_values, want_index = naive_max_pool(x, spec, float(np.finfo(np.float32).min))
    assert np.array_equal(_bits(outs[0]), _bits(want_values))
    if len(outs) > 1:
        assert np.array_equal(outs[1], want_index)
