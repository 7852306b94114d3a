"""Case strategies of the image ops (OpenVINO's op-spec folder "image"): Interpolate-1/4/11,
GridSample-9 and the colour conversions NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8.

Interpolate: sizes, scales and axes are Constants; scales come from a set of binary fractions (so
``floor(scale · size)`` is exact); data is f32/f16, and also u8 for nearest (the spec does not say
how the other modes round integer results).

- nearest: no output coordinate lies within 1e-4 of a rounding decision (a half-integer for the
  round modes, an integer for floor/ceil/simple) unless float32 and float64 compute it alike: the
  spec's formulas are exact only in real numbers and a device may evaluate them in another order.
  Such an axis gets another size (or scale 1, where coordinates are exact).
- linear_onnx uses the axes the spec allows ({0, 1} for 2D, {0, 1, 2} for 3D, {2, 3} for 4D,
  {2, 3, 4} for 5D); the Pillow modes interpolate two axes with sizes, or with scales whose
  product with the size is whole (where "scale" as given and as in/out sizes agree).
- At most two axes are interpolated, or the last three (OpenVINO CPU refuses others: "only
  supports resize on spatial dimensions").
- Pads, antialias and cube_coeff != -0.5 for bicubic_pillow are drawn in a minority of cases:
  OpenVINO CPU deviates there (deviations_advanced.py), so those cases are skipped by the
  cross-check and the rest are checked.
- Interpolate-1 draws nearest, linear and cubic (``area`` is not implemented by REFERENCE), pads
  only the interpolated axes (OpenVINO then pads the other dims too, unlike the v1 output shape)
  and lists its axes in increasing order (OpenVINO reads them into a sorted set, so unsorted axes
  pair with the wrong sizes: a recorded deviation that also breaks the IR round trip).

GridSample: 4D data only (OpenVINO 2026.4 rejects 5D); grid values in [-1.4, 1.4].

Colour conversions: even image height and width; u8 or f32/f16 values in [0, 255]. With u8, no
pixel's R, G or B lies exactly halfway between two integers inside (0, 255) (the spec's formula
gives multiples of 0.001 and says nothing of rounding to u8; OpenVINO CPU rounds such a half
either way): the Y value of such a pixel is moved by one.

RGBtoNV12-17, BGRtoNV12-17: see the comment above their strategies (values beyond [0, 255] for
floating-point images, so every formula clips).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opcases.depth import Depth

SCALES = (0.5, 0.75, 1.25, 1.5, 2.0, 2.5, 3.0, 0.25, 1.75)
ONNX_AXES = {2: [0, 1], 3: [0, 1, 2], 4: [2, 3], 5: [2, 3, 4]}
PILLOW_AXES = {2: [[0, 1]], 3: [[1, 2]], 4: [[2, 3], [1, 2]], 5: [[3, 4]]}
_NEAREST_TIE = {"round_prefer_floor": 0.5, "round_prefer_ceil": 0.5, "floor": 0.0, "ceil": 0.0, "simple": 0.0}


def _coords64(out_len: int, in_len: int, scale: float, mode: str) -> np.ndarray:
    x = np.arange(out_len, dtype=np.float64)
    if mode in ("half_pixel", "pytorch_half_pixel"):
        return (x + 0.5) / scale - 0.5 if out_len > 1 or mode == "half_pixel" else np.zeros(out_len)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    return np.zeros(out_len) if out_len == 1 else x * (in_len - 1) / (out_len - 1)


def nearest_is_ambiguous(out_len: int, in_len: int, scale: float, mode: str, nearest_mode: str) -> bool:
    """Some output coordinate lies within 1e-4 of a rounding decision and float32 does not compute
    it exactly as float64 does (see the module docstring)."""
    from reference_plugin.ops._common_advanced import original_coords  # the kernel's float32 formulas

    c64 = _coords64(out_len, in_len, scale, mode)
    c32 = original_coords(out_len, in_len, scale, mode).astype(np.float64)
    frac = c64 - np.floor(c64) - _NEAREST_TIE[nearest_mode]
    near = np.minimum(np.abs(frac), np.abs(np.abs(frac) - 1)) < 1e-4
    return bool(np.any(near & (c32 != c64)) or np.any(np.floor(c32 * 2) != np.floor(c64 * 2)))


def _interp_axes(draw: Draw[Any], rank: int, mode: str) -> list[int]:
    if mode == "linear_onnx":
        return list(ONNX_AXES[rank])
    if mode in ("bilinear_pillow", "bicubic_pillow"):
        return list(draw(st.sampled_from(PILLOW_AXES[rank])))
    if rank >= 3 and draw(st.integers(0, 3)) == 3:  # three axes: OpenVINO CPU takes only the trailing three
        return list(range(rank - 3, rank))
    if mode == "cubic" and rank >= 3 and draw(st.integers(0, 3)) < 3:  # mostly dims >= 2 (deviations_advanced.py)
        return draw(st.lists(st.integers(2, rank - 1), min_size=1, max_size=2, unique=True))
    return draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=2, unique=True))


def _interp_shape(draw: Draw[Any], rank: int) -> tuple[int, ...]:
    side = {2: 6, 3: 5, 4: 4, 5: 3}[rank]
    return tuple(draw(st.integers(1, side)) for _ in range(rank))


@dataclass
class InterpPlan:
    """Drawn Interpolate attributes and a data shape they fit."""

    shape: tuple[int, ...]
    axes: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    sizes: list[int]
    scales: list[float]


def _draw_targets(draw: Draw[Any], shape: tuple[int, ...], axes: list[int], pads: tuple[list[int], list[int]],
                  use_scales: bool, pillow: bool) -> tuple[list[int], list[float]]:
    sizes, scales = [], []
    for a in axes:
        padded = shape[a] + pads[0][a] + pads[1][a]
        if use_scales:
            choices = [s for s in SCALES if int(s * padded) >= 1 and (not pillow or float(s * padded).is_integer())
                       and int(s * padded) != padded]  # a scale != 1 that keeps the size: deviations_advanced.py
            scale = draw(st.sampled_from(choices or [1.0]))
            scales.append(scale)
            sizes.append(int(np.floor(scale * padded)))
        else:
            size = draw(st.integers(1, 7))
            sizes.append(size)
            scales.append(size / padded)
    return sizes, scales


def _draw_interp(draw: Draw[Any], mode: str, use_scales: bool, version: int) -> InterpPlan:
    rank = draw(st.integers(2, 5))
    shape = _interp_shape(draw, rank)
    axes = _interp_axes(draw, rank, mode)
    other_pads = version > 1 and draw(st.integers(0, 3)) == 3  # see deviations_advanced.py
    padded_dims = range(rank) if other_pads else axes
    pb = [draw(st.integers(0, 1)) if i in padded_dims else 0 for i in range(rank)]
    pe = [draw(st.integers(0, 1)) if i in padded_dims else 0 for i in range(rank)]
    if draw(st.integers(0, 3)) < 3:  # pads in a quarter of the cases (OpenVINO CPU: deviations_advanced.py)
        pb, pe = [0] * rank, [0] * rank
    sizes, scales = _draw_targets(draw, shape, axes, (pb, pe), use_scales, "pillow" in mode)
    return InterpPlan(shape, axes, pb, pe, sizes, scales)


def _settle_nearest(plan: InterpPlan, coordinate_mode: str, nearest_mode: str, use_scales: bool) -> None:
    """Replace the target of every axis whose nearest pixels are ambiguous (see the module docstring)
    by the first unambiguous one that changes the size, else by scale 1."""
    for i, a in enumerate(plan.axes):
        padded = plan.shape[a] + plan.pads_begin[a] + plan.pads_end[a]
        options = [(int(np.floor(s * padded)), s) for s in SCALES] if use_scales else \
            [(n, n / padded) for n in range(1, 8)]
        options = [(plan.sizes[i], plan.scales[i])] + [o for o in options if 1 <= o[0] != padded] + [(padded, 1.0)]
        for size, scale in options:
            used = scale if use_scales else float(np.float32(size) / np.float32(padded))
            if size == padded or not nearest_is_ambiguous(size, padded, used, coordinate_mode, nearest_mode):
                plan.sizes[i], plan.scales[i] = size, scale
                break


def _interp_case(draw: Draw[Any], version: int) -> OpCase:
    modes = MODES_BY_VERSION[version]
    mode = draw(st.sampled_from(modes))
    use_scales = draw(st.booleans())
    plan = _draw_interp(draw, mode, use_scales, version)
    coordinate_mode = draw(st.sampled_from(COORDINATE_MODES))
    nearest_mode = draw(st.sampled_from(NEAREST_MODES))
    if mode == "nearest":
        _settle_nearest(plan, coordinate_mode, nearest_mode, use_scales)
    et = draw(st.sampled_from((*FLOATS, Type.u8) if mode == "nearest" else FLOATS))
    cube = draw(st.sampled_from((-0.75, -0.5, -0.6) if mode == "cubic" else (-0.5, -0.5, -0.5, -0.75)))
    antialias = draw(st.integers(0, 3)) == 3  # a minority: OpenVINO CPU deviates for linear
    b = CaseBuilder(draw_seed(draw))
    data = b.param("image", b.uniform(plan.shape, et, -4, 4) if et.is_real() else b.uniform(plan.shape, et, 0, 255))
    all_axes = sorted(plan.axes) == list(range(len(plan.shape))) and draw(st.booleans())
    order = list(range(len(plan.shape))) if all_axes else plan.axes
    pick = [plan.axes.index(a) for a in order]
    sizes = [plan.sizes[i] for i in pick]
    scales = [plan.scales[i] for i in pick]
    axes_node = None if all_axes else b.const(np.array(order, np.int64 if draw(st.booleans()) else np.int32))
    size_type = np.int64 if draw(st.booleans()) else np.int32
    sizes_node, scales_node = b.const(np.array(sizes, size_type)), b.const(np.array(scales, np.float32))
    shape_mode = "scales" if use_scales else "sizes"
    if version == 11:
        node = opset.interpolate(data, scales_node if use_scales else sizes_node, mode, shape_mode, plan.pads_begin,
                                 plan.pads_end, coordinate_mode, nearest_mode, antialias, cube, axes_node)
    else:
        node = opset.interpolate_v4(data, sizes_node, scales_node, mode, shape_mode, plan.pads_begin, plan.pads_end,
                                    coordinate_mode, nearest_mode, antialias, cube, axes_node)
    return b.finish("Interpolate", version, node, "nearest keeps away from ambiguous rounding; see the docstring.")


COORDINATE_MODES = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
MODES_BY_VERSION = {4: ("nearest", "linear", "linear_onnx", "cubic"),
                    11: ("nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow")}


@register_case("Interpolate", 4)
def case_interpolate_4(draw: Draw[Any]) -> OpCase:
    return _interp_case(draw, 4)


@register_case("Interpolate", 11)
def case_interpolate_11(draw: Draw[Any]) -> OpCase:
    return _interp_case(draw, 11)


@register_case("Interpolate", 1)
def case_interpolate_1(draw: Draw[Any]) -> OpCase:
    mode = draw(st.sampled_from(("nearest", "linear", "cubic")))
    plan = _draw_interp(draw, mode, False, 1)
    order = np.argsort(plan.axes)  # OpenVINO reads v1 axes as a sorted set (deviations_advanced.py)
    plan.axes, plan.sizes = [plan.axes[i] for i in order], [plan.sizes[i] for i in order]
    align = draw(st.booleans())
    if mode == "nearest":  # Interpolate-1 nearest is nearest_mode simple over these coordinates
        _settle_nearest(plan, "align_corners" if align else "asymmetric", "simple", False)
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("image", b.uniform(plan.shape, et, -4, 4))
    attrs = {"axes": plan.axes, "mode": mode, "align_corners": align, "antialias": draw(st.integers(0, 3)) == 3,
             "pads_begin": plan.pads_begin, "pads_end": plan.pads_end}
    sizes = b.const(np.array(plan.sizes, np.int64 if draw(st.booleans()) else np.int32))
    return b.finish("Interpolate", 1, opset.interpolate_v1(data, sizes, attrs), "pads only on interpolated axes.")


@register_case("GridSample", 9)
def case_grid_sample(draw: Draw[Any]) -> OpCase:
    et, gt = draw(st.sampled_from(FLOATS)), draw(st.sampled_from(FLOATS))
    n = draw(st.integers(1, 2))
    shape = (n, draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    grid_shape = (n, draw(st.integers(1, 4)), draw(st.integers(1, 4)), 2)
    attrs = {"align_corners": draw(st.booleans()), "mode": draw(st.sampled_from(("bilinear", "bicubic", "nearest"))),
             "padding_mode": draw(st.sampled_from(("zeros", "border", "reflection")))}
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -10, 10))
    grid = b.param("grid", b.uniform(grid_shape, gt, -1.4, 1.4))
    return b.finish("GridSample", 9, opset.grid_sample(data, grid, attrs))


COLOR_TYPES = (Type.u8, Type.f32, Type.f16)


def _yuv_views(arrays: dict[str, np.ndarray], planes: int, h: int, w: int) -> tuple[np.ndarray, ...]:
    """The Y plane of a colour case's image as a writable [N, H, W] view, and U and V at full resolution."""
    if "yuv" in arrays:
        x = arrays["yuv"]
        n = x.shape[0]
        y = x[:, :h, :, 0]
        if planes == 2:
            uv = x[:, h:, :, 0].reshape(n, h // 2, w // 2, 2)
            u, v = uv[..., 0], uv[..., 1]
        else:
            chroma = x[:, h:, :, 0].reshape(n, 2, h // 2, w // 2)
            u, v = chroma[:, 0], chroma[:, 1]
    else:
        y = arrays["y"][..., 0]
        u, v = (arrays["uv"][..., 0], arrays["uv"][..., 1]) if planes == 2 else (arrays["u"][..., 0],
                                                                                  arrays["v"][..., 0])
    full = [np.repeat(np.repeat(c, 2, axis=1), 2, axis=2) for c in (u, v)]
    return y, full[0], full[1]


def _halfway(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Pixels where the spec's R, G or B (exact, in thousandths) is k + 0.5 with 0 < k + 0.5 < 255."""
    c, d, e = (np.asarray(a, np.int64) - off for a, off in ((y, 16), (u, 128), (v, 128)))
    values = np.stack([1164 * c + 1596 * e, 1164 * c - 813 * e - 391 * d, 1164 * c + 2018 * d])
    return np.any((values % 1000 == 500) & (values > 0) & (values < 255000), axis=0)


def _avoid_halves(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """Move (in place) the Y value of every pixel whose R, G or B is halfway between two u8 values to the
    nearest Y (trying +1, -1, +2, -2, ...) whose R, G and B are not."""
    bad = _halfway(y, u, v)
    for delta in (1, -1, 2, -2, 3, -3):
        if not bad.any():
            return
        moved = y.astype(np.int64) + delta
        fixed = bad & (moved >= 0) & (moved <= 255) & ~_halfway(np.clip(moved, 0, 255), u, v)
        y[fixed] = moved[fixed]
        bad &= ~fixed
    raise AssertionError("colour case: could not move every pixel off a halfway R, G or B value")


def _color_case(op: str, planes: int) -> None:
    # the builder takes the 1, 2 or 3 planes the case draws (NV12: 1 or 2, I420: 1 or 3)
    builders: dict[str, Callable[..., Node]] = {"NV12toRGB": opset.nv12_to_rgb, "NV12toBGR": opset.nv12_to_bgr,
                                                "I420toRGB": opset.i420_to_rgb, "I420toBGR": opset.i420_to_bgr}
    builder = builders[op]

    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(COLOR_TYPES))
        n, h, w = draw(st.integers(1, 2)), 2 * draw(st.integers(1, 4)), 2 * draw(st.integers(1, 4))
        b = CaseBuilder(draw_seed(draw))
        if draw(st.booleans()):
            arrays = {"yuv": b.uniform((n, h * 3 // 2, w, 1), et, 0, 255)}
        elif planes == 2:
            arrays = {"y": b.uniform((n, h, w, 1), et, 0, 255), "uv": b.uniform((n, h // 2, w // 2, 2), et, 0, 255)}
        else:
            arrays = {"y": b.uniform((n, h, w, 1), et, 0, 255), "u": b.uniform((n, h // 2, w // 2, 1), et, 0, 255),
                      "v": b.uniform((n, h // 2, w // 2, 1), et, 0, 255)}
        if et == Type.u8:
            _avoid_halves(*_yuv_views(arrays, planes, h, w))
        return b.finish(op, 8, builder(*(b.param(name, value) for name, value in arrays.items())))

    build.__name__ = f"case_{op}"
    register_case(op, 8)(build)


for _op, _planes in (("NV12toRGB", 2), ("NV12toBGR", 2), ("I420toRGB", 3), ("I420toBGR", 3)):
    _color_case(_op, _planes)

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

def _stim_interp(version: int, label: str, shape: tuple[int, ...], sizes: tuple[int, int], mode: str,
                 et: Type = Type.f32, *, shapes: tuple[tuple[int, ...], ...] = ()) -> Any:
    """Interpolate of the last two axes to ``sizes`` (nearest: exactly twice the input, asymmetric
    coordinates and floor, so no output lies on a rounding decision). Interpolate-4's scales input
    (unused with ``sizes``) is the first shape's."""
    first = shape

    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("Interpolate", version, label))
        x = b.param("image", S.cast(b.rng.uniform(-4, 4, shape), et), et)
        coords, nearest = ("asymmetric", "floor") if mode == "nearest" else ("half_pixel", "round_prefer_floor")
        axes = b.const(np.array([2, 3], np.int64))
        if version == 11:
            node = opset.interpolate(x, b.const(np.array(sizes, np.int64)), mode, "sizes", [0] * 4, [0] * 4, coords,
                                     nearest, axes=axes)
        else:
            scales = b.const(np.array([sizes[0] / first[2], sizes[1] / first[3]], np.float32))
            node = opset.interpolate_v4(x, b.const(np.array(sizes, np.int64)), scales, mode, "sizes", [0] * 4,
                                        [0] * 4, coords, nearest, axes=axes)
        return b.finish("Interpolate", version, node, f"{mode} to sizes {sizes} of the last two axes.")

    if shapes:
        return lambda: S.dynamic_case([build(s) for s in shapes], note=f"dynamic mode: shapes {list(shapes)}")
    return build


def _stimulus_interpolate(version: int) -> None:
    op = "Interpolate"

    def recipe() -> Iterable[S.Stimulus]:
        big = (1, 3, S.LARGE_SPATIAL, S.LARGE_SPATIAL)
        for mode in ("linear", "cubic", "nearest"):
            yield S.Stimulus(op, version, f"{mode}-hw56", "large", "ordinary", Type.f32,
                             _stim_interp(version, f"{mode}-hw56", big, (112, 112), mode))
            yield S.Stimulus(op, version, f"{mode}-w65", "remainder", "ordinary", Type.f32,
                             _stim_interp(version, f"{mode}-w65", (1, 4, 5, 65), (10, 130) if mode == "nearest"
                                          else (9, 129), mode))
        for et in (Type.f16, Type.bf16, Type.f64):
            yield S.Stimulus(op, version, f"{et.name}-linear-w65", "remainder", "ordinary", et,
                             _stim_interp(version, f"{et.name}-linear-w65", (1, 4, 5, 65), (9, 129), "linear", et),
                             Depth.STANDARD if et == Type.f16 else Depth.EXHAUSTIVE)
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                         _stim_interp(version, "dynamic", (1, 3, 7, 7), (17, 17), "linear",
                                      shapes=((1, 3, 7, 7), (2, 3, 9, 33), (3, 3, 13, 65))), dynamic=True)

    S.register_stimuli(op, version)(recipe)


_stimulus_interpolate(4)
_stimulus_interpolate(11)


# -- RGBtoNV12-17, BGRtoNV12-17 ------------------------------------------------------------------------------
# Images [N, H, W, 3] (N 1..2, H and W even, 2..10) of u8 (every value 0..255), f32 or f16 (values in [-40, 300]:
# every pixel formula is clipped somewhere); single_plane true or false.

def _to_nv12_case(draw: Draw[Any], op: str) -> OpCase:
    et = draw(st.sampled_from((Type.u8, Type.u8, Type.f32, Type.f16)))
    shape = (draw(st.integers(1, 2)), 2 * draw(st.integers(1, 5)), 2 * draw(st.integers(1, 5)), 3)
    b = CaseBuilder(draw_seed(draw))
    image = b.param("image", b.integers(shape, et, 0, 255) if et == Type.u8 else b.uniform(shape, et, -40, 300))
    build = opset.rgb_to_nv12 if op == "RGBtoNV12" else opset.bgr_to_nv12
    return b.finish(op, 17, build(image, draw(st.booleans())), "u8 rounds each pixel's Y, U, V, then the 2x2 means.")


@register_case("RGBtoNV12", 17)
def _rgb_to_nv12(draw: Draw[Any]) -> OpCase:
    return _to_nv12_case(draw, "RGBtoNV12")


@register_case("BGRtoNV12", 17)
def _bgr_to_nv12(draw: Draw[Any]) -> OpCase:
    return _to_nv12_case(draw, "BGRtoNV12")
