"""Case strategies of PriorBox-1/8 and PriorBoxClustered-1.

``output_size`` ([H, W], 1..4 each) is a Constant (the output shape depends on its value);
``image_size`` ([IH, IW], 8..64) is a Parameter or a Constant; both i32 or i64. Attribute values
are multiples of 1/4 or 1/16 (so the f32 arithmetic of the spec is reproducible).

PriorBox draws the min_size mode (1..2 min sizes, as many or fewer max sizes; without
``scale_all_sizes`` the sizes and step are fractions of the image height and there is no
max_size, whose boxes the op's box count leaves out) or the fixed_size mode: one integer density
per size, sizes multiples of 2 * density (the spec does not say how odd sizes and fractional
shifts round: OpenVINO's reference halves the size in integers, its CPU plugin in floats), and
optional fixed ratios, one per aspect ratio (other lengths make OpenVINO's box count disagree
with its boxes). Aspect ratios come from {0.5, 1, 1.5, 2, 3}; ``step`` is 0 or positive
(OpenVINO's Python API refuses the -1 "IH / H" step; the kernel implements it).

PriorBoxClustered draws 1..3 (width, height) pairs; steps all 0, only ``step``, or both
``step_w`` and ``step_h`` (one of them 0 alone is a corner where the size-derived default
applies to neither).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed
from ovconform.opset._detection._prior import number_of_priors

SIZE_TYPES = (Type.i32, Type.i64)
RATIOS = (0.5, 1.0, 1.5, 2.0, 3.0)


def quarter(draw: Draw[Any], low: float, high: float) -> float:
    return draw(st.integers(int(low * 4), int(high * 4))) / 4


def _sizes(draw: Draw[Any], b: CaseBuilder) -> tuple[Any, Any]:
    et = draw(st.sampled_from(SIZE_TYPES)).to_dtype()
    hw = np.array([draw(st.integers(1, 4)), draw(st.integers(1, 4))], et)
    image = np.array([draw(st.integers(8, 64)), draw(st.integers(8, 64))], et)
    return b.const(hw), b.input("image_size", image, draw(st.booleans()))


def _variance(draw: Draw[Any]) -> list[float]:
    count = draw(st.sampled_from((0, 1, 4)))
    return [quarter(draw, 0.25, 2.0) / 4 for _ in range(count)]


def _min_mode(draw: Draw[Any], attrs: dict[str, Any]) -> None:
    n_min = draw(st.integers(1, 2))
    if attrs["scale_all_sizes"]:
        attrs["min_size"] = [quarter(draw, 1, 16) for _ in range(n_min)]
        attrs["max_size"] = [m + quarter(draw, 0.25, 8) for m in attrs["min_size"][:draw(st.integers(0, n_min))]]
        attrs["step"] = draw(st.sampled_from((0.0, quarter(draw, 1, 16))))
    else:
        attrs["min_size"] = [quarter(draw, 0.25, 2) / 4 for _ in range(n_min)]
        attrs["step"] = draw(st.sampled_from((0.0, quarter(draw, 0.25, 2) / 4)))


def _fixed_mode(draw: Draw[Any], attrs: dict[str, Any]) -> None:
    n = draw(st.integers(1, 2))
    attrs["density"] = [float(draw(st.integers(1, 3))) for _ in range(n)]
    attrs["fixed_size"] = [2 * d * draw(st.integers(1, 3)) for d in attrs["density"]]
    attrs["step"] = draw(st.sampled_from((0.0, quarter(draw, 1, 16))))
    if draw(st.booleans()):
        total = number_of_priors({**attrs, "fixed_size": [1.0], "density": [], "min_size": [],
                                        "max_size": [], "fixed_ratio": []})
        attrs["fixed_ratio"] = [draw(st.sampled_from(RATIOS)) for _ in range(total)]


def _prior_box(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        b = CaseBuilder(draw_seed(draw))
        layer, image = _sizes(draw, b)
        attrs: dict[str, Any] = {
            "aspect_ratio": draw(st.lists(st.sampled_from(RATIOS), max_size=2, unique=True)),
            "flip": draw(st.booleans()), "clip": draw(st.booleans()), "offset": quarter(draw, 0, 1),
            "variance": _variance(draw), "scale_all_sizes": True}
        if version == 8:
            attrs["min_max_aspect_ratios_order"] = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            _fixed_mode(draw, attrs)
        else:
            attrs["scale_all_sizes"] = draw(st.integers(0, 3)) > 0
            _min_mode(draw, attrs)
        node = opset.prior_box(layer, image, attrs, version=version)
        return b.finish("PriorBox", version, node)

    build.__name__ = f"case_prior_box_{version}"
    register_case("PriorBox", version)(build)


_prior_box(1)
_prior_box(8)


@register_case("PriorBoxClustered", 1)
def case_prior_box_clustered(draw: Draw[Any]) -> OpCase:
    b = CaseBuilder(draw_seed(draw))
    layer, image = _sizes(draw, b)
    n = draw(st.integers(1, 3))
    attrs: dict[str, Any] = {
        "width": [quarter(draw, 0.5, 20) for _ in range(n)], "height": [quarter(draw, 0.5, 20) for _ in range(n)],
        "clip": draw(st.booleans()), "offset": quarter(draw, 0, 1), "variance": _variance(draw)}
    steps = draw(st.sampled_from(("none", "step", "wh")))
    if steps == "step":
        attrs["step"] = quarter(draw, 1, 16)
    elif steps == "wh":
        attrs["step_w"], attrs["step_h"] = quarter(draw, 1, 16), quarter(draw, 1, 16)
    return b.finish("PriorBoxClustered", 1, opset.prior_box_clustered(layer, image, attrs))
