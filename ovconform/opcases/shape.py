"""Case strategies of the shape ops (OpenVINO's op-spec folder "shape"): Reshape-1, Squeeze-1/15,
Unsqueeze-1 and ShapeOf-1/3 (drawn with :mod:`ovconform.opcases._draw_dynamic`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform.ir import Type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw_dynamic import CaseBuilder, Draw, draw_shape, draw_type


def _factor(draw: Draw, total: int, rank: int) -> list[int]:
    """``rank`` positive dims whose product is ``total``."""
    dims = []
    for _ in range(rank - 1):
        divisors = [d for d in range(1, total + 1) if total % d == 0]
        d = draw(st.sampled_from(divisors))
        dims.append(d)
        total //= d
    return [*dims, total] if rank else []


@register_case("Reshape", 1)
def reshape_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 0, 4)
    total = int(np.prod(shape, dtype=np.int64))
    target = _factor(draw, total, draw(st.integers(0 if total == 1 else 1, 4)))
    special_zero = draw(st.booleans())
    if special_zero:  # 0 copies the input dim at the same position
        target = [0 if i < len(shape) and t == shape[i] and draw(st.booleans()) else t for i, t in enumerate(target)]
    if target and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    data = b.data(shape, draw_type(draw))
    pattern = b.index(target, "target_shape", param_chance=8)
    node = make_node("Reshape", 1, [data.output(0), pattern], {"special_zero": special_zero})
    return b.case("Reshape", 1, [node.output(0)])


# -- Squeeze / Unsqueeze --------------------------------------------------------------------------

def _squeeze_case(draw: Draw, version: int) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 0, 4, max_dim=4)
    ones = [i for i, d in enumerate(shape) if d == 1]
    style = draw(st.sampled_from(["axes", "axes", "axes", "scalar", "empty", "none"]))
    if style == "scalar" and not ones:
        style = "none"
    chosen = draw(st.lists(st.sampled_from(ones), unique=True, min_size=1)) if ones and style == "axes" else []
    axes: Any = [a - len(shape) if draw(st.booleans()) else a for a in chosen]
    if style == "scalar":
        axes = np.int64(draw(st.sampled_from(ones)))
    data = b.data(shape, draw_type(draw), dynamic_ok=False)
    inputs = [data.output(0)]
    if style != "none":
        inputs.append(b.index(axes, "axes"))
    attrs = {"allow_axis_skip": draw(st.booleans())} if version == 15 else {}
    node = make_node("Squeeze", version, inputs, attrs)
    note = ("the data shape is static (OpenVINO CPU mis-infers Squeeze over a dynamic input), and axes name "
            "only size-1 dims (by the spec a named dim that is not 1 is copied as is).")
    return b.case("Squeeze", version, [node.output(0)], note)


@register_case("Squeeze", 1)
def squeeze_1_case(draw: Draw) -> OpCase:
    return _squeeze_case(draw, 1)


@register_case("Squeeze", 15)
def squeeze_15_case(draw: Draw) -> OpCase:
    return _squeeze_case(draw, 15)


@register_case("Unsqueeze", 1)
def unsqueeze_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 0, 3)
    count = draw(st.integers(1, 2))
    out_rank = len(shape) + count
    positions = draw(st.lists(st.integers(0, out_rank - 1), unique=True, min_size=count, max_size=count))
    axes: Any = [p - out_rank if draw(st.booleans()) else p for p in positions]
    if count == 1 and draw(st.booleans()):
        axes = np.int64(axes[0])
    data = b.data(shape, draw_type(draw))
    node = make_node("Unsqueeze", 1, [data.output(0), b.index(axes, "axes")])
    return b.case("Unsqueeze", 1, [node.output(0)], "axes are unique (repeated axes count once in OpenVINO).")


# -- ShapeOf --------------------------------------------------------------------------------------

def _shape_of_case(draw: Draw, version: int) -> OpCase:
    b = CaseBuilder(draw)
    data = b.data(draw_shape(draw, 0, 4), draw_type(draw))
    attrs = {"output_type": draw(st.sampled_from([Type.i64, Type.i32]))} if version == 3 else {}
    node = make_node("ShapeOf", version, [data.output(0)], attrs)
    return b.case("ShapeOf", version, [node.output(0)])


@register_case("ShapeOf", 1)
def shape_of_1_case(draw: Draw) -> OpCase:
    return _shape_of_case(draw, 1)


@register_case("ShapeOf", 3)
def shape_of_3_case(draw: Draw) -> OpCase:
    return _shape_of_case(draw, 3)
