"""PriorBox-1/8 and PriorBoxClustered-1: prior (anchor) boxes of an SSD-style detector.

Both take ``output_size`` (the feature map's ``[H, W]``) and ``image_size`` (the image's
``[IH, IW]``), 1-D integer tensors of 2 elements, and produce f32 ``[2, 4 * H * W * P]``: row 0
the boxes ``(xmin, ymin, xmax, ymax)`` normalized by the image size, row 1 the variances. ``P``
(the number of priors per position) follows from the attributes (:func:`number_of_priors`);
``H * W`` is known only when ``output_size`` is known at build time, else the second dim is
dynamic.

PriorBox attributes as OpenVINO writes them: ``min_size``, ``max_size``, ``aspect_ratio``,
``density``, ``fixed_ratio``, ``fixed_size`` (float lists), ``clip``, ``flip``, ``step``,
``offset``, ``variance`` (0, 1 or 4 values), ``scale_all_sizes``; PriorBox-8 adds
``min_max_aspect_ratios_order`` (PriorBox-1 always orders min, max, aspect ratios).
PriorBoxClustered-1: ``width``, ``height`` (one per prior), ``clip``, ``step``, ``step_w``,
``step_h``, ``offset``, ``variance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["prior_box", "prior_box_clustered"]

_PB_ATTRS = [
    AttrSpec("min_size", "floats", []), AttrSpec("max_size", "floats", []), AttrSpec("aspect_ratio", "floats", []),
    AttrSpec("density", "floats", []), AttrSpec("fixed_ratio", "floats", []), AttrSpec("fixed_size", "floats", []),
    AttrSpec("clip", "bool", False), AttrSpec("flip", "bool", False), AttrSpec("step", "float", 0.0),
    AttrSpec("offset", "float"), AttrSpec("variance", "floats", []), AttrSpec("scale_all_sizes", "bool", True)]
_PB8_ATTRS = [*_PB_ATTRS, AttrSpec("min_max_aspect_ratios_order", "bool", True)]


def aspect_ratios(ratios: list[float], flip: bool) -> list[float]:
    """1 first, then each ratio not yet present (within 1e-6) and, with ``flip``, its inverse."""
    out = [1.0]
    for ar in ratios:
        if any(abs(ar - seen) < 1e-6 for seen in out):
            continue
        out.append(ar)
        if flip:
            out.append(1.0 / ar)
    return out


def number_of_priors(attrs: Mapping[str, Any]) -> int:
    """Priors per feature-map position, as OpenVINO's PriorBox shape inference counts them."""
    ratios = list(attrs["aspect_ratio"]) + ([1.0 / a for a in attrs["aspect_ratio"]] if attrs["flip"] else [])
    total = len({1.0, *(round(a * 1e6) / 1e6 for a in ratios)})
    if attrs["scale_all_sizes"]:
        priors = total * len(attrs["min_size"]) + len(attrs["max_size"])
    else:
        priors = total + len(attrs["min_size"]) - 1
    if attrs["fixed_size"]:
        priors = total * len(attrs["fixed_size"])
    for density in attrs["density"]:
        extra = int(density) ** 2 - 1
        priors += (len(attrs["fixed_ratio"]) if attrs["fixed_ratio"] else total) * extra
    return priors


def _sizes(node: Node) -> Dimension:
    """Validates both size inputs; the [H, W] product as a Dimension (dynamic when unknown)."""
    for i, what in ((0, "output_size"), (1, "image_size")):
        et = node.get_input_element_type(i)
        require(et.is_integral_number(), f"{what} (input {i}) has element type {et}; it must be an integer type.")
        shape = node.get_input_partial_shape(i)
        require(not shape.has_rank() or (len(shape) == 1 and shape[0].compatible(2)),
                f"{what} (input {i}) has shape {shape}; it must be 1-D with 2 elements [H, W].")
    value = constant_value(node.input_value(0))
    if value is None:
        return Dimension.dynamic()
    hw = [int(v) for v in np.asarray(value).reshape(-1)]
    require(all(v > 0 for v in hw), f"output_size is {hw}; both values must be positive.")
    return Dimension(hw[0] * hw[1])


def _positive(attrs: Mapping[str, Any], name: str) -> None:
    values = attrs[name]
    require(all(v > 0 for v in values), f"attribute {name!r} is {values}; every value must be positive.")


def _variance(values: list[float]) -> None:
    require(len(values) in (0, 1, 4), f"attribute 'variance' is {values}; it must have 0, 1 or 4 values.")


def _output(node: Node, priors: int) -> list[tuple[Type, PartialShape]]:
    hw = _sizes(node)
    width = Dimension(4 * priors * hw.get_length()) if hw.is_static else Dimension.dynamic()
    return [(Type.f32, PartialShape([2, width]))]


def _infer_prior_box(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    for name in ("min_size", "max_size", "aspect_ratio", "fixed_size", "fixed_ratio", "density"):
        _positive(a, name)
    _variance(a["variance"])
    require(len(a["max_size"]) <= len(a["min_size"]) or not a["min_size"],
            f"max_size {a['max_size']} has more values than min_size {a['min_size']}.")
    require(a["scale_all_sizes"] or not a["max_size"],
            f"max_size {a['max_size']} needs scale_all_sizes (its boxes are not counted without it).")
    if a["fixed_size"]:
        require(len(a["density"]) == len(a["fixed_size"]),
                f"density {a['density']} must have one value per fixed_size {a['fixed_size']}.")
        total = number_of_priors({**a, "fixed_size": [1.0], "density": []})
        require(not a["fixed_ratio"] or len(a["fixed_ratio"]) == total,
                f"fixed_ratio {a['fixed_ratio']} must have one value per aspect ratio (with 1 and the flipped "
                f"ones: {total}); other lengths make the box count inconsistent.")
        require(not a["min_size"], f"min_size {a['min_size']} cannot be combined with fixed_size {a['fixed_size']}.")
    else:
        require(bool(a["min_size"]), "min_size is empty; PriorBox needs min_size (or fixed_size with density).")
        require(not a["density"] and not a["fixed_ratio"],
                f"density {a['density']} and fixed_ratio {a['fixed_ratio']} need fixed_size.")
    return _output(node, number_of_priors(a))


define_op("PriorBox", 1, inputs=2, attrs=_PB_ATTRS)(_infer_prior_box)
define_op("PriorBox", 8, inputs=2, attrs=_PB8_ATTRS)(_infer_prior_box)


def prior_box(layer_shape: NodeInput, image_shape: NodeInput, attrs: Mapping[str, Any], name: str | None = None,
              *, version: int = 8) -> Node:
    """PriorBox-8 (``version=1`` for PriorBox-1, which has no ``min_max_aspect_ratios_order``);
    ``attrs`` uses the IR attribute names, as ``openvino.opset8.prior_box`` does."""
    require(version in (1, 8), f"PriorBox: version {version} is not one of (1, 8).")
    values = dict(attrs)
    if version == 1:
        require("min_max_aspect_ratios_order" not in values,
                "PriorBox-1 has no attribute 'min_max_aspect_ratios_order' (use version 8).")
    values.setdefault("offset", 0.0)
    return make_node("PriorBox", version, [as_output(layer_shape, Type.i64), as_output(image_shape, Type.i64)],
                     values, name)


@define_op("PriorBoxClustered", 1, inputs=2, attrs=[
    AttrSpec("width", "floats", []), AttrSpec("height", "floats", []), AttrSpec("clip", "bool", True),
    AttrSpec("step", "float", 0.0), AttrSpec("step_w", "float", 0.0), AttrSpec("step_h", "float", 0.0),
    AttrSpec("offset", "float"), AttrSpec("variance", "floats", [])])
def _infer_prior_box_clustered(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    require(len(a["width"]) == len(a["height"]),
            f"width {a['width']} and height {a['height']} must have the same number of values.")
    _positive(a, "width")
    _positive(a, "height")
    _variance(a["variance"])
    for name in ("step", "step_w", "step_h"):
        require(a[name] >= 0, f"attribute {name!r} is {a[name]}; it must not be negative.")
    return _output(node, len(a["width"]))


_CLUSTERED_ALIASES = {"widths": "width", "heights": "height", "step_widths": "step_w", "step_heights": "step_h"}


def prior_box_clustered(output_size: NodeInput, image_size: NodeInput, attrs: Mapping[str, Any],
                        name: str | None = None) -> Node:
    """PriorBoxClustered-1; ``attrs`` takes the IR names (width, height, step_w, step_h, ...) or
    ``openvino.opset1.prior_box_clustered``'s (widths, heights, step_widths, step_heights, ...)."""
    values = {_CLUSTERED_ALIASES.get(k, k): v for k, v in attrs.items()}
    values.setdefault("offset", 0.0)
    return make_node("PriorBoxClustered", 1, [as_output(output_size, Type.i64), as_output(image_size, Type.i64)],
                     values, name)
