"""Case strategies for Softmax-1 (axis in [0, rank), rank 1..4) and Softmax-8 (axis in
[-rank, rank), rank 0..4), on f32 and f16 data."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed, draw_shape


def _softmax(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(FLOATS))
        shape = draw_shape(draw, min_rank=1 if version == 1 else 0)
        rank = len(shape)
        low = 0 if version == 1 else -max(rank, 1)
        axis = draw(st.integers(low, max(rank, 1) - 1))
        b = CaseBuilder(draw_seed(draw))
        data = b.param("data", b.uniform(shape, et, -6, 6))
        return b.finish("Softmax", version, opset.softmax(data, axis, version=version))

    build.__name__ = f"case_Softmax_{version}"
    register_case("Softmax", version)(build)


_softmax(1)
_softmax(8)
