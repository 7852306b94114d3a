"""Case strategies for shape ops: Reshape, Squeeze, Unsqueeze, ShapeOf, Broadcast."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform.ir import Type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._movement import CaseBuilder, Draw, draw_shape, draw_type

# -- Reshape --------------------------------------------------------------------------------------

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


# -- Broadcast ------------------------------------------------------------------------------------

def _numpy_target(draw: Draw, shape: list[int], bidirectional: bool) -> list[int]:
    """A target that ``shape`` broadcasts to (numpy); bidirectional targets may also hold 1s
    where the data has a dim, and may have a smaller rank."""
    lead = draw(st.lists(st.integers(1, 3), min_size=0 if shape else 1, max_size=max(0, 4 - len(shape))))
    tail = [draw(st.integers(1, 3)) if d == 1 else (1 if bidirectional and draw(st.booleans()) else d)
            for d in shape]
    target = lead + tail
    if bidirectional and not lead and len(target) > 1 and draw(st.booleans()):
        target = target[draw(st.integers(1, len(target) - 1)):]
    return target


def _explicit_target(draw: Draw, shape: list[int]) -> tuple[list[int], list[int]]:
    """A target and a strictly increasing axes_mapping placing each data dim in it."""
    rank = draw(st.integers(max(len(shape), 1), 4))
    mapping = sorted(draw(st.lists(st.integers(0, rank - 1), unique=True, min_size=len(shape), max_size=len(shape))))
    target = [draw(st.integers(1, 3)) for _ in range(rank)]
    for d, a in zip(shape, mapping, strict=True):
        target[a] = d if d != 1 or draw(st.booleans()) else target[a]
    return target, mapping


def _broadcast_case(draw: Draw, version: int) -> OpCase:
    b = CaseBuilder(draw)
    modes = ["numpy", "explicit"] + (["bidirectional"] if version == 3 else [])
    mode = draw(st.sampled_from(modes))
    shape = draw_shape(draw, 0 if mode != "explicit" else 1, 3, max_dim=3)
    data = b.data(shape, draw_type(draw))
    if mode == "explicit":
        target, mapping = _explicit_target(draw, shape)
        inputs = [data.output(0), b.index(target, "target_shape"), b.index(mapping, "axes_mapping")]
    else:
        target = _numpy_target(draw, shape, mode == "bidirectional")
        inputs = [data.output(0), b.index(target, "target_shape", param_chance=6)]
    ir_mode = "none" if version == 1 and mode == "explicit" else mode
    node = make_node("Broadcast", version, inputs, {"mode": ir_mode})
    note = ("target_shape is never empty: OpenVINO CPU crashes on Broadcast to a scalar target."
            + ("" if version == 3 else " Mode 'pdpd' is left out: OpenVINO cannot build Broadcast-1 pdpd "
               "with two inputs."))
    return b.case("Broadcast", version, [node.output(0)], note)


@register_case("Broadcast", 1)
def broadcast_1_case(draw: Draw) -> OpCase:
    return _broadcast_case(draw, 1)


@register_case("Broadcast", 3)
def broadcast_3_case(draw: Draw) -> OpCase:
    return _broadcast_case(draw, 3)
