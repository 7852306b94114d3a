"""Case strategies of Reverse-1: data of any element type (f32 about half the time, else f16, i32,
i64, u8, i8 or boolean) of rank 0..4 (mostly 2..4) with dims of 2..5 (sometimes 1), in both modes.

Mode "index": 1..rank distinct axes in any order, each maybe written negative, and two times in three
one of them named again (an axis named twice is reversed once: the axes are a set); sometimes no axis
(an empty tensor: the data passes through). The axes are of a signed integer type (i8, i32, i64)
or, when none is negative, maybe an unsigned one (u8, u32, u64). Mode "mask": one boolean per data
dim (sometimes all false). The axes input is a Constant, or a Parameter about a quarter of the time
(OpenVINO CPU takes both). Rank-0 data takes no axes (an empty index tensor or an empty mask).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_axes, draw_seed
from ovconform.opcases.movement._layout import NOTE, draw_dims, draw_type, values

SIGNED = (Type.i8, Type.i32, Type.i64)
UNSIGNED = (Type.u8, Type.u32, Type.u64)


@register_case("Reverse", 1)
def case_reverse(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    rank = draw(st.sampled_from((2, 3, 4, 0, 1, 3, 4)))
    shape = draw_dims(draw, rank, low=draw(st.sampled_from((2, 2, 1))), high=5)
    mode = draw(st.sampled_from(("index", "mask")))
    if mode == "mask":
        axes = np.array([draw(st.booleans()) for _ in range(rank)], dtype=np.bool_)
    else:
        picked = draw_axes(draw, rank) if rank and draw(st.integers(0, 5)) else []
        if picked and draw(st.integers(0, 2)):  # an axis named again (maybe in its other spelling)
            again = draw(st.sampled_from(picked)) % rank
            picked.insert(draw(st.integers(0, len(picked))), again - rank if draw(st.booleans()) else again)
        index_t = draw(st.sampled_from(SIGNED if any(a < 0 for a in picked) else SIGNED + UNSIGNED))
        axes = np.array(picked, dtype=index_t.to_dtype())
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", values(b, shape, et))
    axes_node = b.input("axes", axes, as_constant=draw(st.integers(0, 3)) != 0)
    return b.finish("Reverse", 1, opset.reverse(data, axes_node, mode), NOTE)
