"""Case strategies of ReorgYolo-2 and RegionYolo-1.

ReorgYolo: C a multiple of stride², H and W multiples of the stride. RegionYolo: exactly
``regions * (coords + classes + 1)`` channels and ``coords >= 2`` (the reference code's layout).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opcases.movement._patches import PATCH_TYPES


@register_case("ReorgYolo", 2)
def case_reorg_yolo(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(PATCH_TYPES))
    s = draw(st.integers(1, 3))
    shape = (draw(st.integers(1, 2)), s * s * draw(st.integers(1, 2)), s * draw(st.integers(1, 3)),
             s * draw(st.integers(1, 3)))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -50, 50))
    return b.finish("ReorgYolo", 2, opset.reorg_yolo(data, [s] if draw(st.booleans()) else s))


@register_case("RegionYolo", 1)
def case_region_yolo(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    coords, classes = draw(st.integers(2, 4)), draw(st.integers(1, 4))
    softmax = draw(st.booleans())
    num = draw(st.integers(1, 3))
    mask = [] if softmax else draw(st.lists(st.integers(0, num + 2), min_size=1, max_size=3, unique=True))
    regions = num if softmax else len(mask)
    axis = draw(st.integers(0, 3))
    end_axis = draw(st.integers(axis, 3))
    shape = (draw(st.integers(1, 2)), regions * (coords + classes + 1), draw(st.integers(1, 3)),
             draw(st.integers(1, 3)))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -4, 4))
    anchors = [float(v) for v in draw(st.lists(st.integers(1, 20), max_size=4))]
    node = opset.region_yolo(data, coords, classes, num, softmax, mask, axis, end_axis, anchors)
    return b.finish("RegionYolo", 1, node)
