"""Case strategies for ReduceSum-1, ReduceMean-1 and ReduceMax-1.

Data of rank 1..4; axes are a non-empty subset of the axes in any order, each possibly
negative, as an i32/i64 1-D Constant, or a scalar Constant when there is one axis. With
``keep_dims`` the axes are sometimes a Parameter (OpenVINO CPU cannot compile the dynamic-rank
output a Parameter gives without ``keep_dims``).

Left out because OpenVINO CPU fails on them: empty axes (the spec reduces nothing; CPU fails to
compile, or reduces everything), rank-0 data, repeated axes. Also left out: zero-size dims (the
max of nothing is unspecified) and integer ReduceMean (the rounding of the mean is unspecified).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed, draw_shape

TYPES = {
    "ReduceSum": (*FLOATS, Type.i32, Type.i64),
    "ReduceMean": FLOATS,
    "ReduceMax": (*FLOATS, Type.i32, Type.i64, Type.i8, Type.u8),
}
BUILDERS = {"ReduceSum": opset.reduce_sum, "ReduceMean": opset.reduce_mean, "ReduceMax": opset.reduce_max}
NOTE = "axes are unique and non-empty; data has rank >= 1 and no zero-size dims (see the module doc)."


def draw_axes(draw: Draw[Any], rank: int) -> list[int]:
    """A non-empty subset of ``range(rank)`` in drawn order, each axis possibly written negative."""
    axes = draw(st.permutations(range(rank)))[:draw(st.integers(1, rank))]
    return [a - rank if draw(st.booleans()) else a for a in axes]


def _reduce(op: str) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(TYPES[op]))
        shape = draw_shape(draw, min_rank=1)
        axes = draw_axes(draw, len(shape))
        keep_dims = draw(st.booleans())
        axes_type = draw(st.sampled_from((Type.i32, Type.i64)))
        scalar = len(axes) == 1 and draw(st.booleans())
        axes_param = keep_dims and draw(st.integers(0, 5)) == 0
        b = CaseBuilder(draw_seed(draw))
        low, high = (-2, 2) if et.is_real() else (-20, 20)
        data = b.param("data", b.uniform(shape, et, low, high))
        axes_arr = np.array(axes[0] if scalar else axes, dtype=axes_type.to_dtype())
        axes_node = b.input("axes", axes_arr, not axes_param)
        return b.finish(op, 1, BUILDERS[op](data, axes_node, keep_dims), NOTE)

    build.__name__ = f"case_{op}"
    register_case(op, 1)(build)


for _op in TYPES:
    _reduce(_op)
