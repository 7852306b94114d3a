"""Tier-3 "misc" family, vision ops: ReorgYolo-2, RegionYolo-1, GridSample-9, ROIPooling-2, PSROIPooling-1 —
builder inference and errors, and REFERENCE numerics against naive element-by-element loops written
from the specs' reference code (the kernels are vectorised, so the two share no code)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type, get_opdef
from reference_plugin._evaluate import evaluate

P = opset.parameter
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
ATTRS = {("ReorgYolo", 2): ["stride"],
         ("RegionYolo", 1): ["anchors", "axis", "coords", "classes", "end_axis", "num", "do_softmax", "mask"],
         ("GridSample", 9): ["align_corners", "mode", "padding_mode"],
         ("ROIPooling", 2): ["output_size", "output_roi", "pooled_h", "pooled_w", "spatial_scale", "method"],
         ("PSROIPooling", 1): ["output_dim", "group_size", "spatial_scale", "mode", "spatial_bins_x",
                               "spatial_bins_y"]}


def run(make: Callable[..., Node], *arrays: np.ndarray) -> np.ndarray:
    params = [P(list(a.shape), as_type(a.dtype), name=f"in{i}") for i, a in enumerate(arrays)]
    node = make(*params)
    (out,) = evaluate(Model([node.output(0)], params), list(arrays))
    return out


@pytest.mark.parametrize("key", list(ATTRS))
def test_ir_attributes_follow_openvino(key: tuple[str, int]) -> None:
    assert [a.name for a in get_opdef(*key).attrs] == ATTRS[key]


def test_attributes_match_what_openvino_builds() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset1 as o1
    import openvino.opset2 as o2
    import openvino.opset9 as o9

    built = {("ReorgYolo", 2): o2.reorg_yolo(o1.parameter([1, 8, 4, 4]), [2]),
             ("RegionYolo", 1): o1.region_yolo(o1.parameter([1, 12, 2, 2]), 4, 1, 2, True, [], 1, 3, []),
             ("GridSample", 9): o9.grid_sample(o1.parameter([1, 1, 2, 2]), o1.parameter([1, 2, 2, 2]), {}),
             ("ROIPooling", 2): o2.roi_pooling(o1.parameter([1, 1, 4, 4]), o1.parameter([1, 5]), [2, 2], 1.0),
             ("PSROIPooling", 1): o1.psroi_pooling(o1.parameter([1, 4, 4, 4]), o1.parameter([1, 5]), 1, 2, 1.0, 1, 1,
                                                   "average")}
    del ov
    for key, node in built.items():
        assert sorted(node.get_attributes()) == sorted(ATTRS[key]), key


# -- ReorgYolo-2 ------------------------------------------------------------------------------------------------

def naive_reorg(x: np.ndarray, s: int) -> np.ndarray:
    """The spec's reference loop: the output buffer as [N, C, H, W], the input buffer as [N, C/s², H*s, W*s]."""
    n, c, h, w = x.shape
    flat_in, out = x.reshape(-1), np.empty(x.size, x.dtype)
    oc, oh, ow = c // (s * s), h * s, w * s
    for b, ch, i, j in itertools.product(range(n), range(c), range(h), range(w)):
        off = ch // oc
        src = ((b * oc + ch % oc) * oh + i * s + off // s) * ow + j * s + off % s
        out[((b * c + ch) * h + i) * w + j] = flat_in[src]
    return out.reshape(n, c * s * s, h // s, w // s)


@pytest.mark.parametrize(("shape", "s"), [((1, 4, 2, 2), 2), ((2, 8, 4, 6), 2), ((1, 9, 3, 6), 3), ((1, 2, 3, 3), 1)])
def test_reorg_yolo_matches_the_reference_loop(shape: tuple[int, ...], s: int) -> None:
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    out = run(lambda d: opset.reorg_yolo(d, s), x)
    np.testing.assert_array_equal(out, naive_reorg(x, s))


def test_reorg_yolo_shapes_and_errors() -> None:
    assert str(opset.reorg_yolo(P([1, 8, -1, 6]), [2]).output(0).get_partial_shape()) == "[1,32,?,3]"
    with pytest.raises(ValidationError, match="ReorgYolo-2 node .*height 5; it must be divisible by stride 2"):
        opset.reorg_yolo(P([1, 8, 5, 4]), 2)
    with pytest.raises(ValidationError, match="at least stride² = 9"):
        opset.reorg_yolo(P([1, 8, 6, 6]), 3)
    with pytest.raises(ValidationError, match="'stride' is \\[0\\]"):
        opset.reorg_yolo(P([1, 8, 6, 6]), 0)


# -- RegionYolo-1 -----------------------------------------------------------------------------------------------

def naive_region(x: np.ndarray, coords: int, classes: int, regions: int, softmax: bool) -> np.ndarray:
    out = x.astype(np.float64).copy()
    per = coords + classes + 1
    sig = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731
    for b, r, i, j in itertools.product(range(x.shape[0]), range(regions), range(x.shape[2]), range(x.shape[3])):
        base = r * per
        for k in (0, 1, coords):
            out[b, base + k, i, j] = sig(x[b, base + k, i, j])
        scores = [float(x[b, base + coords + 1 + k, i, j]) for k in range(classes)]
        if softmax:
            e = [math.exp(v - max(scores)) for v in scores]
            probs = [v / sum(e) for v in e]
        else:
            probs = [sig(v) for v in scores]
        for k, p in enumerate(probs):
            out[b, base + coords + 1 + k, i, j] = p
    return out


@pytest.mark.parametrize(("coords", "classes", "num", "softmax", "mask", "axis", "end_axis", "batch", "shape"), [
    (4, 3, 2, True, [], 1, 3, 2, [2, 128]),  # 2 regions x 8 channels, 2 x 4 positions
    (2, 2, 1, True, [], 0, 3, 1, [40]),
    (4, 1, 3, True, [], 2, 3, 1, [1, 18, 8]),
    (4, 2, 9, False, [0, 4], 1, 3, 1, [1, 14, 2, 4]),  # mask: 2 regions; num does not count
])
def test_region_yolo_matches_a_naive_loop(coords: int, classes: int, num: int, softmax: bool, mask: list[int],
                                          axis: int, end_axis: int, batch: int, shape: list[int]) -> None:
    regions = num if softmax else len(mask)
    x = np.random.default_rng(4).uniform(-4, 4, (batch, regions * (coords + classes + 1), 2, 4)).astype(np.float32)
    out = run(lambda d: opset.region_yolo(d, coords, classes, num, softmax, mask, axis, end_axis), x)
    assert list(out.shape) == shape
    np.testing.assert_allclose(out.reshape(x.shape), naive_region(x, coords, classes, regions, softmax), rtol=2e-6,
                               atol=1e-7)


def test_region_yolo_errors() -> None:
    with pytest.raises(ValidationError, match="RegionYolo-1 node .*needs a floating-point type"):
        opset.region_yolo(P([1, 12, 2, 2], Type.i32), 4, 1, 2, True, [], 1, 3)
    with pytest.raises(ValidationError, match="'end_axis' 1 must not come before 'axis' 2"):
        opset.region_yolo(P([1, 12, 2, 2]), 4, 1, 2, True, [], 2, 1)
    with pytest.raises(InferError, match="13 channels; 2 regions of coords \\+ classes \\+ 1 = 6 channels need 12"):
        run(lambda d: opset.region_yolo(d, 4, 1, 2, True, [], 1, 3), np.zeros((1, 13, 2, 2), np.float32))


# -- GridSample-9 -----------------------------------------------------------------------------------------------

def naive_grid_sample(data: np.ndarray, grid: np.ndarray, align: bool, mode: str, padding: str) -> np.ndarray:
    n, c, h, w = data.shape

    def denorm(v: float, size: int) -> float:
        v32 = np.float32(v)
        f = np.float32
        return float((v32 + f(1)) * f(size - 1) / f(2) if align else ((v32 + f(1)) * f(size) - f(1)) / f(2))

    def reflect(i: int, size: int) -> int:
        if align:
            period = 1 if size == 1 else 2 * (size - 1)
            i = abs(i) % period
            return period - i if i >= size else i
        i = i % (2 * size)
        return 2 * size - 1 - i if i >= size else i

    def pixel(b: int, ch: int, y: int, x: int) -> float:
        if padding == "zeros":
            return float(data[b, ch, y, x]) if 0 <= y < h and 0 <= x < w else 0.0
        if padding == "border":
            return float(data[b, ch, min(max(y, 0), h - 1), min(max(x, 0), w - 1)])
        return float(data[b, ch, reflect(y, h), reflect(x, w)])

    def cubic(r: float) -> list[float]:
        a = -0.75
        return [((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
                ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
                ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a]

    out = np.zeros((n, c, grid.shape[1], grid.shape[2]))
    for b, ch, i, j in itertools.product(range(n), range(c), range(grid.shape[1]), range(grid.shape[2])):
        y, x = denorm(grid[b, i, j, 1], h), denorm(grid[b, i, j, 0], w)
        if mode == "nearest":
            out[b, ch, i, j] = pixel(b, ch, round(y), round(x))  # Python round: halves to even, as lrint
            continue
        y0, x0 = math.floor(y), math.floor(x)
        dy, dx = y - y0, x - x0
        if mode == "bilinear":
            q0 = (1 - dx) * pixel(b, ch, y0, x0) + dx * pixel(b, ch, y0, x0 + 1)
            q1 = (1 - dx) * pixel(b, ch, y0 + 1, x0) + dx * pixel(b, ch, y0 + 1, x0 + 1)
            out[b, ch, i, j] = dy * q1 + (1 - dy) * q0
        else:
            cy, cx = cubic(dy), cubic(dx)
            out[b, ch, i, j] = sum(cy[p] * sum(cx[q] * pixel(b, ch, y0 - 1 + p, x0 - 1 + q) for q in range(4))
                                   for p in range(4))
    return out


@given(seed=st.integers(0, 2**31), align=st.booleans(), mode=st.sampled_from(["bilinear", "bicubic", "nearest"]),
       padding=st.sampled_from(["zeros", "border", "reflection"]))
@SETTINGS
def test_grid_sample_matches_a_naive_loop(seed: int, align: bool, mode: str, padding: str) -> None:
    rng = np.random.default_rng(seed)
    data = rng.uniform(-5, 5, (1, 2, rng.integers(1, 5), rng.integers(1, 5))).astype(np.float32)
    grid = rng.uniform(-2.5, 2.5, (1, 3, 2, 2)).astype(np.float32)
    attrs = {"align_corners": align, "mode": mode, "padding_mode": padding}
    out = run(lambda d, g: opset.grid_sample(d, g, attrs), data, grid)
    np.testing.assert_allclose(out, naive_grid_sample(data, grid, align, mode, padding), rtol=1e-5, atol=1e-5)


def test_grid_sample_identity_grid_with_aligned_corners() -> None:
    data = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    ys, xs = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 4), indexing="ij")
    grid = np.stack([xs, ys], axis=-1)[None].astype(np.float32)
    for mode in ("bilinear", "nearest", "bicubic"):
        attrs = {"align_corners": True, "mode": mode}
        out = run(lambda d, g, a=attrs: opset.grid_sample(d, g, a), data, grid)
        np.testing.assert_allclose(out, data, atol=1e-5)


def test_grid_sample_shapes_and_errors() -> None:
    assert str(opset.grid_sample(P([-1, 3, 8, 8]), P([2, 4, 5, 2])).output(0).get_partial_shape()) == "[2,3,4,5]"
    with pytest.raises(ValidationError, match="GridSample-9 node .*its last dim must be 2"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 3]))
    with pytest.raises(ValidationError, match="must be NCHW \\(rank 4\\)"):
        opset.grid_sample(P([1, 1, 2, 4, 4]), P([1, 2, 2, 2, 3]))
    with pytest.raises(ValidationError, match="grid .input 1. has element type i32"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 2], Type.i32))
    with pytest.raises(ValidationError, match="padding_mode"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 2]), {"padding_mode": "wrap"})
    with pytest.raises(ValidationError, match="unknown attribute"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 2]), {"interpolation": "nearest"})


# -- ROIPooling-2 -----------------------------------------------------------------------------------------------

def naive_roi_max(maps: np.ndarray, rois: np.ndarray, ph: int, pw: int, scale: float) -> np.ndarray:
    _, c, h, w = maps.shape
    out = np.zeros((len(rois), c, ph, pw), np.float32)
    f = np.float32
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy, ex, ey = (int(math.floor(abs(float(f(v) * f(scale))) + 0.5) * (1 if v >= 0 else -1))
                          for v in (x1, y1, x2, y2))
        bh, bw = f(max(ey - sy + 1, 1)) / f(ph), f(max(ex - sx + 1, 1)) / f(pw)
        for ch, i, j in itertools.product(range(c), range(ph), range(pw)):
            h0 = min(max(int(math.floor(f(i) * bh)) + sy, 0), h)
            h1 = min(max(int(math.ceil(f(i + 1) * bh)) + sy, 0), h)
            w0 = min(max(int(math.floor(f(j) * bw)) + sx, 0), w)
            w1 = min(max(int(math.ceil(f(j + 1) * bw)) + sx, 0), w)
            cells = [maps[int(b), ch, y, x] for y in range(h0, h1) for x in range(w0, w1)]
            out[r, ch, i, j] = max(cells) if cells else 0
    return out


@given(seed=st.integers(0, 2**31), ph=st.integers(1, 3), pw=st.integers(1, 3), scale=st.sampled_from([1.0, 0.5]))
@SETTINGS
def test_roi_pooling_max_matches_a_naive_loop(seed: int, ph: int, pw: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    maps = rng.uniform(-5, 5, (2, 2, 5, 6)).astype(np.float32)
    corners = np.sort(rng.uniform(-1, 8 / scale, (3, 2, 2)), axis=1)
    rois = np.concatenate([rng.integers(0, 2, (3, 1)), corners[:, 0], corners[:, 1]], axis=1).astype(np.float32)
    out = run(lambda m, r: opset.roi_pooling(m, r, [ph, pw], scale, "max"), maps, rois)
    np.testing.assert_array_equal(out, naive_roi_max(maps, rois, ph, pw, scale))


def test_roi_pooling_bilinear_literal() -> None:
    maps = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)  # value = 4y + x
    rois = np.array([[0, 0, 0, 1, 1], [0, 0.5, 0.5, 0.5, 0.5], [0, 0, 0, 1, 2]], np.float32)
    out = run(lambda m, r: opset.roi_pooling(m, r, [2, 3], 1.0, "bilinear"), maps, rois)
    np.testing.assert_allclose(out[0, 0], [[0, 1.5, 3], [12, 13.5, 15]])  # corners and midpoints
    np.testing.assert_allclose(out[1, 0], np.full((2, 3), 7.5))  # one point: y = x = 1.5
    assert out[2, 0, 1].tolist() == [0, 0, 0]  # y = 2 * 3 = 6 > H - 1: outside, 0


def test_roi_pooling_errors() -> None:
    with pytest.raises(ValidationError, match="ROIPooling-2 node .*ROIs .input 1. have shape \\[2,4\\]"):
        opset.roi_pooling(P([1, 1, 4, 4]), P([2, 4]), [2, 2])
    with pytest.raises(ValidationError, match="pooled_h=0"):
        opset.roi_pooling(P([1, 1, 4, 4]), P([2, 5]), [0, 2])
    with pytest.raises(ValidationError, match="method"):
        opset.roi_pooling(P([1, 1, 4, 4]), P([2, 5]), [2, 2], method="avg")
    with pytest.raises(InferError, match="ROI 0 has batch id 3.0; allowed \\[0, 0\\]"):
        run(lambda m, r: opset.roi_pooling(m, r, [1, 1]), np.zeros((1, 1, 2, 2), np.float32),
            np.array([[3, 0, 0, 1, 1]], np.float32))


# -- PSROIPooling-1 ---------------------------------------------------------------------------------------------

def naive_psroi(maps: np.ndarray, rois: np.ndarray, dim: int, g: int, scale: float, bx: int, by: int,
                mode: str) -> np.ndarray:
    """The spec's reference loop, element by element (float32 positions)."""
    f = np.float32
    _, _, h, w = maps.shape
    out = np.zeros((len(rois), dim, g, g))
    for r, box in enumerate(rois):
        b = int(box[0])
        if mode == "average":
            sw, sh = f(round(float(box[1]))) * f(scale), f(round(float(box[2]))) * f(scale)
            ew, eh = (f(round(float(box[3]))) + f(1)) * f(scale), (f(round(float(box[4]))) + f(1)) * f(scale)
            bw, bh = (ew - sw) / f(g), (eh - sh) / f(g)
            c_in = 0
            for o, i, j in itertools.product(range(dim), range(g), range(g)):
                w0, h0 = min(int(math.floor(sw + f(j) * bw)), w - 1), min(int(math.floor(sh + f(i) * bh)), h - 1)
                w1, h1 = min(int(math.ceil(sw + f(j + 1) * bw)), w), min(int(math.ceil(sh + f(i + 1) * bh)), h)
                out[r, o, i, j] = maps[b, c_in, h0:h1, w0:w1].mean()
                c_in += 1
            continue
        sw, sh, ew, eh = (f(v) * f(scale) for v in box[1:])
        bw, bh = (ew - sw) / f(bx), (eh - sh) / f(by)
        ws = bw * f(w - 1) / f(g - 1) if g > 1 else f(0)
        hs = bh * f(h - 1) / f(g - 1) if g > 1 else f(0)
        for o, i, j in itertools.product(range(dim), range(g), range(g)):
            acc = 0.0
            for sy, sx in itertools.product(range(by), range(bx)):
                x0, y0 = sw + f(sx) * bw, sh + f(sy) * bh
                px = f(j) * ws + x0 * f(w - 1) if g > 1 else (x0 + x0 + bw) * f(w - 1) / f(2)
                py = f(i) * hs + y0 * f(h - 1) if g > 1 else (y0 + y0 + bh) * f(h - 1) / f(2)
                if px < w and py < h:
                    fm = maps[b, (sy * bx + sx) * dim + o]
                    left, top = int(math.floor(px)), int(math.floor(py))
                    right, bottom = min(int(math.ceil(px)), w - 1), min(int(math.ceil(py)), h - 1)
                    upper = fm[top, left] + (fm[top, right] - fm[top, left]) * (float(px) - left)
                    lower = fm[bottom, left] + (fm[bottom, right] - fm[bottom, left]) * (float(px) - left)
                    acc += upper + (lower - upper) * (float(py) - top)
            out[r, o, i, j] = acc / (bx * by)
    return out


@given(seed=st.integers(0, 2**31), dim=st.integers(1, 2), g=st.integers(1, 3), bins=st.sampled_from([(1, 1), (2, 1),
                                                                                                     (2, 2)]),
       mode=st.sampled_from(["average", "bilinear"]))
@SETTINGS
def test_psroi_pooling_matches_the_reference_loop(seed: int, dim: int, g: int, bins: tuple[int, int],
                                                  mode: str) -> None:
    rng = np.random.default_rng(seed)
    bx, by = bins if mode == "bilinear" else (1, 1)
    per = g * g if mode == "average" else bx * by
    maps = rng.uniform(-5, 5, (2, dim * per, 5, 6)).astype(np.float32)
    high = 4.0 if mode == "average" else 1.0
    corners = np.sort(rng.uniform(0, high, (3, 2, 2)), axis=1)
    rois = np.concatenate([rng.integers(0, 2, (3, 1)), corners[:, 0], corners[:, 1]], axis=1).astype(np.float32)
    out = run(lambda m, r: opset.psroi_pooling(m, r, dim, g, 1.0, bx, by, mode), maps, rois)
    np.testing.assert_allclose(out, naive_psroi(maps, rois, dim, g, 1.0, bx, by, mode), rtol=1e-5, atol=1e-5)


def test_psroi_pooling_errors() -> None:
    with pytest.raises(ValidationError, match="PSROIPooling-1 node .*7 channels; mode 'average' needs "
                                              "output_dim \\* group_size² = 8"):
        opset.psroi_pooling(P([1, 7, 4, 4]), P([2, 5]), 2, 2, 1.0, 1, 1, "average")
    with pytest.raises(ValidationError, match="spatial_bins_x \\* spatial_bins_y = 12"):
        opset.psroi_pooling(P([1, 8, 4, 4]), P([2, 5]), 3, 2, 1.0, 2, 2, "bilinear")
    with pytest.raises(ValidationError, match="'group_size' is 0"):
        opset.psroi_pooling(P([1, 8, 4, 4]), P([2, 5]), 2, 0, 1.0, 1, 1, "average")
