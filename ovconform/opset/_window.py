"""Sliding-window arithmetic shared by Convolution, GroupConvolution, MaxPool and AvgPool.

Output size of one spatial axis (``dk = (kernel - 1) * dilation + 1``):

- ``explicit`` / ``valid`` (valid: pads are zero): ``floor((in + pb + pe - dk) / s) + 1``;
  pooling with ``rounding_type="ceil"`` uses ``ceil`` instead of ``floor``, and ``"ceil_torch"``
  then drops the last window when it would start at or after ``in + pb`` (PyTorch's rule).
- ``same_upper`` / ``same_lower``: ``ceil(in / s)``; the padding that makes it so is split
  evenly, the odd element going to the end (same_upper) or the beginning (same_lower). Pooling
  with ``rounding_type="ceil"`` then applies the explicit formula over those pads, as OpenVINO
  does: one more window when the pads are zero and the strides overhang the input.

The nodes store ``pads_begin``/``pads_end`` exactly as given (as OpenVINO writes them to IR);
:func:`resolve_pads` turns them into the pads that apply to a concrete input shape, for kernels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ovconform.ir import Dimension
from ovconform.opset._helpers import require

AUTO_PAD: Final = ("explicit", "same_upper", "same_lower", "valid")
ROUNDING: Final = ("floor", "ceil")
ROUNDING_14: Final = ("floor", "ceil", "ceil_torch")
_INF: Final = -1


def normalize_auto_pad(value: Any) -> Any:
    """``None``/``"NOTSET"``/``"EXPLICIT"`` → ``"explicit"``; other strings lower-cased."""
    if value is None:
        return "explicit"
    if isinstance(value, str):
        low = value.lower()
        return "explicit" if low == "notset" else low
    return value


def normalize_rounding(value: Any) -> Any:
    """``"FLOOR"`` → ``"floor"``; ``None`` → ``"floor"``; non-strings pass through for validation."""
    if value is None:
        return "floor"
    return value.lower() if isinstance(value, str) else value


def dilated(kernel: int, dilation: int) -> int:
    """The extent of a dilated kernel: ``(kernel - 1) * dilation + 1``."""
    return (kernel - 1) * dilation + 1


def check_window_attrs(num_spatial: int, attrs: dict[str, Any], names: Sequence[str],
                       may_be_empty: Sequence[str] = ("pads_begin", "pads_end")) -> None:
    """Each named list attribute has one value per spatial axis (those in ``may_be_empty`` may
    also be empty: zeros for pads, ones for dilations); sizes are positive, pads non-negative."""
    for name in names:
        values = attrs[name]
        require(len(values) == num_spatial or (name in may_be_empty and not values),
                f"attribute {name!r}={values} must have {num_spatial} value(s), one per spatial axis.")
        if name in ("strides", "dilations", "kernel"):
            require(all(v > 0 for v in values), f"attribute {name!r}={values} must be positive.")
        else:
            require(all(v >= 0 for v in values), f"attribute {name!r}={values} must not be negative.")


def spatial_count(data_rank: int | None, *lengths: int) -> int | None:
    """Number of spatial axes: from the data rank when known, else the first non-empty attribute."""
    if data_rank is not None:
        return data_rank - 2
    return next((n for n in lengths if n > 0), None)


def pads_or_zeros(pads: Sequence[int], n: int) -> list[int]:
    return list(pads) if pads else [0] * n


def same_pads(size: int, kernel: int, stride: int, dilation: int, lower: bool) -> tuple[int, int]:
    """(begin, end) padding of ``same_upper``/``same_lower`` for one axis of static ``size``."""
    return _same_pads(size, dilated(kernel, dilation), stride, lower)


def _same_pads(size: int, dk: int, stride: int, lower: bool) -> tuple[int, int]:
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + dk - size)
    small, big = total // 2, total - total // 2
    return (big, small) if lower else (small, big)


def resolve_pads(spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], auto_pad: str, pads_begin: Sequence[int],
                 pads_end: Sequence[int]) -> tuple[list[int], list[int]]:
    """The pads that apply to a concrete input of spatial sizes ``spatial`` (for kernels)."""
    n = len(spatial)
    dil = list(dilations) if dilations else [1] * n
    if auto_pad == "valid":
        return [0] * n, [0] * n
    if auto_pad in ("same_upper", "same_lower"):
        pairs = [same_pads(spatial[i], kernel[i], strides[i], dil[i], auto_pad == "same_lower") for i in range(n)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    return pads_or_zeros(pads_begin, n), pads_or_zeros(pads_end, n)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _out_bound(size: int, pb: int, pe: int, dk: int, stride: int, rounding: str) -> int:
    span = max(0, size + pb + pe - dk)
    out = (_ceil_div(span, stride) if rounding != "floor" else span // stride) + 1
    if rounding == "ceil_torch" and out > 1 and (out - 1) * stride >= size + pb:
        out -= 1
    return out


def _same_out_dim(dim: Dimension, dk_min: int, dk_max: int, stride: int, rounding: str) -> Dimension:
    """``ceil(size / stride)``; pooling with ``ceil`` rounds over the same pads as OpenVINO does,
    which adds one window when the pads come out as zero and the last stride overhangs."""
    if dim.is_static and dk_min == dk_max:
        size = dim.get_length()
        pb, pe = _same_pads(size, dk_min, stride, False)
        return Dimension(_out_bound(size, pb, pe, dk_min, stride, rounding))
    extra = 1 if rounding == "ceil" else 0
    hi = _INF if not dim.is_bounded() else _ceil_div(dim.max_length, stride) + extra
    return Dimension(_ceil_div(dim.min_length, stride), hi)


def out_dim(dim: Dimension, dk_min: int, dk_max: int, stride: int, pads: tuple[int, int],
            auto_pad: str, rounding: str = "floor", axis: int = 0) -> Dimension:
    """Output size of one spatial axis for an input size interval and a dilated-kernel interval.

    ``dk_max == -1`` means the kernel size is unknown (dynamic filters). A static input smaller
    than a static dilated kernel (after padding) is an error.
    """
    if auto_pad in ("same_upper", "same_lower"):
        return _same_out_dim(dim, dk_min, dk_max, stride, rounding)
    pb, pe = (0, 0) if auto_pad == "valid" else pads
    if dim.is_static and dk_min == dk_max:
        padded = dim.get_length() + pb + pe
        require(dk_min <= padded,
                f"the kernel after dilation ({dk_min}) is larger than the padded input ({padded}) "
                f"on spatial axis {axis}.")
    lo = _out_bound(dim.min_length, pb, pe, dk_max, stride, rounding) if dk_max != _INF else 1
    if not dim.is_bounded():
        return Dimension(lo, _INF)
    return Dimension(min(lo, _out_bound(dim.max_length, pb, pe, dk_min, stride, rounding)),
                     _out_bound(dim.max_length, pb, pe, dk_min, stride, rounding))


def kernel_interval(dim: Dimension, dilation: int, axis: int) -> tuple[int, int]:
    """Dilated-kernel size interval of a filters' spatial dimension (unknown sizes are >= 1)."""
    if dim.is_static:
        k = dim.get_length()
        require(k > 0, f"filters spatial dimension {axis} is 0; kernels need at least one element.")
        return dilated(k, dilation), dilated(k, dilation)
    lo = dilated(max(1, dim.min_length), dilation)
    return lo, (dilated(dim.max_length, dilation) if dim.is_bounded() else _INF)

