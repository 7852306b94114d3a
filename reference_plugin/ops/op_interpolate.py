"""Interpolate-1, Interpolate-4 and Interpolate-11, separably: the data is zero-padded, then each
interpolated axis is contracted with an ``(out, in)`` weight matrix (float64) built from the spec's
formulas (see :mod:`reference_plugin.ops._common_advanced`):

* ``nearest``: one-hot rows from GetNearestPixel(GetOriginalCoordinate(x)) clipped to the input;
* ``linear``: the spec's triangle filter, normalized (antialiased by the scale when ``antialias``
  and some axis is downsampled);
* ``linear_onnx``: two clamped taps; ``cubic``: four clipped taps with ``cube_coeff``;
* ``bilinear_pillow``/``bicubic_pillow`` (v11): Pillow's resampling filters (``cube_coeff`` is the
  bicubic ``a``), always antialiased, ignoring ``coordinate_transformation_mode``; their scale is
  the padded input size over the output size.

Coordinates are computed in float32 in the spec's operation order. With ``sizes`` the scale of an
axis is ``out / padded_in`` (float32); with ``scales`` it is the given value.

Interpolate-1's spec does not define its coordinate mapping; REFERENCE gives it OpenVINO's
definition (the ConvertInterpolate1ToInterpolate4 rewrite): nearest uses nearest_mode ``simple``,
cubic ``cube_coeff=-0.75``, linear is ``linear_onnx`` below rank 5 and ``linear`` at rank 5; the
coordinates are ``align_corners`` when align_corners, else ``half_pixel`` for linear without pads
(except rank-4 data over axes {2, 3}), else ``asymmetric``. Only the interpolated axes are padded.
Mode ``area`` (Interpolate-1) and Interpolate-1 ``linear`` above rank 5 are not implemented: the
kernel refuses them when it is built.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from ovconform.opset._image import scaled_size
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_advanced import (
    apply_matrix,
    cubic_matrix,
    nearest_matrix,
    onnx_linear_matrix,
    original_coords,
    pillow_matrix,
    triangle_matrix,
)
from reference_plugin.ops._common_types import store, to_compute


class _Interpolate(OpRun):
    """Shared run: subclasses set ``self.mode`` etc. and implement ``_targets``."""

    mode: str
    coordinate_mode: str
    nearest_mode: str
    antialias: bool
    cube_coeff: float
    pad_all_dims = True

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.pads_begin = list(self.attr("pads_begin"))
        self.pads_end = list(self.attr("pads_end"))

    def _targets(self, shape: tuple[int, ...], inputs: tuple[np.ndarray, ...]) -> tuple[list[int], list[int],
                                                                                          list[float] | None]:
        """(axes, output sizes, given scales or None) for a padded input ``shape``."""
        raise NotImplementedError

    def _pad(self, x: np.ndarray, axes: list[int]) -> np.ndarray:
        rank = x.ndim
        if len(self.pads_begin) > rank or len(self.pads_end) > rank:
            raise self.fail(f"pads {self.pads_begin}/{self.pads_end} have more values than the data rank {rank}.")
        pb = self.pads_begin + [0] * (rank - len(self.pads_begin))
        pe = self.pads_end + [0] * (rank - len(self.pads_end))
        widths = [(pb[i], pe[i]) if self.pad_all_dims or i in axes else (0, 0) for i in range(rank)]
        return np.pad(x, widths) if any(map(any, widths)) else x

    def _axes_from(self, value: np.ndarray | None, rank: int, count: int) -> list[int]:
        axes = list(range(rank)) if value is None else [int(a) for a in np.asarray(value).reshape(-1)]
        if len(set(axes)) != len(axes) or not all(0 <= a < rank for a in axes) or len(axes) != count:
            raise self.fail(f"axes {axes} must be {count} unique value(s) in [0, {rank - 1}].")
        return axes

    def _matrix(self, in_len: int, out_len: int, scale: float, downsample_any: bool) -> np.ndarray:
        mode = self.mode
        if mode in ("bilinear_pillow", "bicubic_pillow"):
            return pillow_matrix(out_len, in_len, in_len / out_len, mode == "bicubic_pillow", self.cube_coeff)
        coords = original_coords(out_len, in_len, scale, self.coordinate_mode)
        if mode == "nearest":
            return nearest_matrix(coords, in_len, self.nearest_mode, scale < 1)
        if mode == "linear":
            return triangle_matrix(coords, in_len, scale if self.antialias and downsample_any else 1.0)
        if mode == "linear_onnx":
            return onnx_linear_matrix(coords, in_len)
        if mode == "cubic":
            return cubic_matrix(coords, in_len, self.cube_coeff)
        raise self.fail(f"mode {mode!r} is not implemented.")

    def _run(self, x: np.ndarray, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        axes, sizes, given = self._targets(x.shape, inputs)
        padded = self._pad(to_compute(x, t).astype(np.float64), axes)
        if min(sizes, default=1) < 0:
            raise self.fail(f"output sizes {sizes} must not be negative.")
        scales = given if given is not None else [
            float(np.float32(s) / np.float32(padded.shape[a])) if padded.shape[a] else 1.0
            for a, s in zip(axes, sizes, strict=True)]
        downsample_any = any(s < 1 for s in scales)
        y = padded
        for axis, out_len, scale in zip(axes, sizes, scales, strict=True):
            if y.shape[axis] == 0 or out_len == 0:
                shape = list(y.shape)
                shape[axis] = out_len
                y = np.zeros(shape, y.dtype)
                continue
            y = apply_matrix(y, axis, self._matrix(y.shape[axis], out_len, scale, downsample_any))
        return (store(y, self.out_types[0]),)


class _Interpolate4Base(_Interpolate):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mode = str(self.attr("mode"))
        self.shape_mode = str(self.attr("shape_calculation_mode"))
        self.coordinate_mode = str(self.attr("coordinate_transformation_mode"))
        self.nearest_mode = str(self.attr("nearest_mode"))
        self.antialias = bool(self.attr("antialias"))
        self.cube_coeff = float(self.attr("cube_coeff"))

    def _resolve(self, shape: tuple[int, ...], values: np.ndarray, axes_in: np.ndarray | None
                 ) -> tuple[list[int], list[int], list[float] | None]:
        flat = np.asarray(values).reshape(-1)
        axes = self._axes_from(axes_in, len(shape), flat.size)
        rank = len(shape)
        pb = self.pads_begin + [0] * (rank - len(self.pads_begin))
        pe = self.pads_end + [0] * (rank - len(self.pads_end))
        if self.shape_mode == "sizes":
            return axes, [int(v) for v in flat], None
        scales = [float(np.float32(v)) for v in flat]
        if min(scales, default=1.0) <= 0:
            raise self.fail(f"scales {scales} must be positive.")
        sizes = [scaled_size(shape[a] + pb[a] + pe[a], s) for a, s in zip(axes, scales, strict=True)]
        return axes, sizes, scales


@register_op("Interpolate", since=4)
class Interpolate4(_Interpolate4Base):
    def _targets(self, shape: tuple[int, ...], inputs: tuple[np.ndarray, ...]) -> tuple[list[int], list[int],
                                                                                          list[float] | None]:
        sizes, scales = inputs[0], inputs[1]
        axes = inputs[2] if len(inputs) > 2 else None
        return self._resolve(shape, sizes if self.shape_mode == "sizes" else scales, axes)


@register_op("Interpolate", since=11)
class Interpolate11(_Interpolate4Base):
    def _targets(self, shape: tuple[int, ...], inputs: tuple[np.ndarray, ...]) -> tuple[list[int], list[int],
                                                                                          list[float] | None]:
        return self._resolve(shape, inputs[0], inputs[1] if len(inputs) > 1 else None)


@register_op("Interpolate", since=1)
class Interpolate1(_Interpolate):
    pad_all_dims = False

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        mode = str(self.attr("mode"))
        self.axes = [int(a) for a in self.attr("axes")]
        rank = node.get_input_partial_shape(0).rank
        if mode == "area":
            raise self.fail("mode 'area' is not implemented by REFERENCE (the spec does not define it and "
                            "OpenVINO has no Interpolate-4 equivalent); use nearest, linear or cubic.")
        if mode == "linear" and (not rank.is_static or rank.get_length() > 5):
            raise self.fail(f"mode 'linear' is implemented for data of rank <= 5 only (got rank {rank}).")
        r = rank.get_length() if rank.is_static else 0
        self.mode = {"nearest": "nearest", "cubic": "cubic"}.get(mode, "linear_onnx" if r < 5 else "linear")
        self.nearest_mode = "simple"
        self.cube_coeff = -0.75
        self.antialias = bool(self.attr("antialias"))
        no_pads = not any(self.pads_begin) and not any(self.pads_end)
        if self.attr("align_corners"):
            self.coordinate_mode = "align_corners"
        elif mode == "linear" and no_pads and not (r == 4 and set(self.axes) == {2, 3}):
            self.coordinate_mode = "half_pixel"
        else:
            self.coordinate_mode = "asymmetric"

    def _targets(self, shape: tuple[int, ...], inputs: tuple[np.ndarray, ...]) -> tuple[list[int], list[int],
                                                                                          list[float] | None]:
        sizes = [int(v) for v in np.asarray(inputs[0]).reshape(-1)]
        self._axes_from(np.array(self.axes), len(shape), len(sizes))
        return self.axes, sizes, None

