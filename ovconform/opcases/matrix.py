"""Case strategies of the matrix ops (OpenVINO's op-spec folder "matrix"): MatMul-1, Einsum-7 and
Inverse-14.

* MatMul: ranks 1..4 on both sides (1-D vectors included), both transpose flags, numpy batch
  broadcasting with size-1 batch dims, and B as a Parameter or a Constant.
* Inverse: well-conditioned matrices only (diagonally dominant): the spec leaves singular matrices
  undefined and ill-conditioned ones amplify rounding differences without bound.
* Einsum: equations from a list of templates that covers matmul-like contractions, transposes,
  traces and diagonals (repeated labels), outer products, reductions, ellipsis broadcasting and the
  implicit (no ``->``) form; labels are lower-case (the implicit output order is then alphabetical
  in every convention).
"""

from __future__ import annotations

from typing import Any

import numpy as np
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


@register_case("Inverse", 14)
def case_inverse(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    batch = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2))))
    m = draw(st.integers(1, 4))
    adjoint = draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    a = b.uniform((*batch, m, m), Type.f64, -1, 1)
    sign = np.where(b.rng.random((*batch, m)) < 0.5, -1.0, 1.0)
    dominant = np.abs(a).sum(axis=-1) + b.rng.uniform(0.5, 2, (*batch, m))
    a = a + np.einsum("...i,ij->...ij", sign * dominant, np.eye(m))
    data = b.param("data", a.astype(et.to_dtype()))
    return b.finish("Inverse", 14, opset.inverse(data, adjoint), "diagonally dominant (well-conditioned) matrices.")


# -- Einsum ------------------------------------------------------------------------------------------------------

EINSUM_EQUATIONS = (
    "ij,jk->ik", "bij,bjk->bik", "ij->ji", "abc->cab", "ii->i", "ii->", "ij->", "ij->j", "i,i->", "i,j->ij",
    "ij,ij->ij", "ijk,k->ij", "ab,bc,cd->ad", "...ij,...jk->...ik", "...ii->...i", "a...->...a", "...,...->...",
    "ij", "ba", "ij,jk", "bhqd,bhkd->bhqk", "iij->ij", "i...j,j...->...i",
)


def _einsum_shapes(draw: Draw[Any], equation: str) -> list[tuple[int, ...]]:
    lhs = equation.split("->")[0].split(",")
    sizes = {lab: draw(st.integers(1, 4)) for lab in sorted(set(equation) - set(",->."))}
    ell = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2))))
    shapes = []
    for term in lhs:
        head, _, tail = term.partition("...")
        mid: tuple[int, ...] = ()
        if "..." in term:
            keep = draw(st.integers(0, len(ell)))  # a suffix of the ellipsis dims, some broadcast to 1
            mid = tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in ell[len(ell) - keep:])
        shapes.append((*(sizes[c] for c in head), *mid, *(sizes[c] for c in tail)))
    return shapes


@register_case("Einsum", 7)
def case_einsum(draw: Draw[Any]) -> OpCase:
    equation = draw(st.sampled_from(EINSUM_EQUATIONS))
    et = draw(st.sampled_from((*FLOATS, Type.i32)))
    shapes = _einsum_shapes(draw, equation)
    b = CaseBuilder(draw_seed(draw))
    low, high = (-2, 2) if et.is_real() else (-3, 3)
    inputs = [b.param(f"in{i}", b.uniform(s, et, low, high)) for i, s in enumerate(shapes)]
    return b.finish("Einsum", 7, opset.einsum(inputs, equation), "integers are small: sums are exact in i32.")
