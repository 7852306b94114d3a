"""Case strategy for MatMul-1: ranks 1..4 on both sides (1-D vectors included), both transpose
flags, numpy batch broadcasting with size-1 batch dims, and B as a Parameter or a Constant."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_broadcast_shapes, draw_seed

TYPES = (*FLOATS, Type.i32, Type.i64)


def _operand(batch: tuple[int, ...], rows: int, cols: int, rank: int, transpose: bool) -> tuple[int, ...]:
    """Shape of an operand whose matrix is ``rows x cols`` (a vector of ``cols`` when rank 1)."""
    if rank == 1:
        return (cols,)
    return (*batch, cols, rows) if transpose else (*batch, rows, cols)


def _batches(draw: Draw[Any], rank_a: int, rank_b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    na, nb = max(0, rank_a - 2), max(0, rank_b - 2)
    if na + nb == 0:
        return (), ()
    sa, sb = draw_broadcast_shapes(draw, 2, min_rank=max(na, nb), max_rank=max(na, nb), max_side=3)
    return sa[len(sa) - na:] if na else (), sb[len(sb) - nb:] if nb else ()


@register_case("MatMul", 1)
def _matmul(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(TYPES))
    rank_a, rank_b = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    m, k, n = (draw(st.integers(1, 6)) for _ in range(3))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    batch_a, batch_b = _batches(draw, rank_a, rank_b)
    shape_a = _operand(batch_a, m, k, rank_a, ta)
    shape_b = (k,) if rank_b == 1 else ((*batch_b, n, k) if tb else (*batch_b, k, n))
    b_constant = draw(st.booleans()) and draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    low, high = (-1, 1) if et.is_real() else (-5, 5)
    a = b.param("a", b.uniform(shape_a, et, low, high))
    bb = b.input("b", b.uniform(shape_b, et, low, high), b_constant)
    return b.finish("MatMul", 1, opset.matmul(a, bb, ta, tb),
                    "integer values are small: products and sums stay inside i32 (CPU computes i64 as i32).")
