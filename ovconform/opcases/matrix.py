"""Case strategies of the matrix ops (OpenVINO's op-spec folder "matrix"): MatMul-1, Einsum-7 and
Inverse-14.

* MatMul: ranks 1..4 on both sides (1-D vectors included), both transpose flags, numpy batch
  broadcasting with size-1 batch dims, and B as a Parameter or a Constant. Integer values are small,
  so products and sums stay inside i32 (OpenVINO CPU computes i64 as i32); the stimulus cases
  ``MatMul-1-i64-wide-k8`` and ``-i64-wide-inputs`` (:mod:`ovconform.opcases._stimulus_geometry`)
  reach results up to 2**43, as the spec's i64 defines, and OpenVINO CPU fails them (entries of the
  bundled openvino-CPU expectations).
* Inverse: well-conditioned matrices only (diagonally dominant): the spec leaves singular matrices
  undefined and ill-conditioned ones amplify rounding differences without bound.
* Einsum: equations from a list of templates that covers matmul-like contractions, transposes,
  traces and diagonals (repeated labels), outer products, reductions, ellipsis broadcasting and the
  implicit (no ``->``) form, and scalar operands (the empty subscript: ``"->"``, ``",->"``,
  ``"i,->i"``); labels are lower-case (the implicit output order is then alphabetical
  in every convention).
* GroupedMatMul-17: see the comment above its strategy (both input cases, empty groups, offsets of
  i32/i64 from a Constant or a Parameter).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_broadcast_shapes, draw_seed
from ovconform.opcases.depth import Depth

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
                    "integer values are small: products and sums stay inside i32 (CPU computes i64 as i32; "
                    "the i64-wide stimulus cases go beyond).")


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
    # scalar operands: the empty subscript (issue #22)
    "->", ",->", "i,->i", ",ij->ji", "", "...,->...",
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

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

def _stim_matmul(label: str, m: int, k: int, n: int, et: Type = Type.f32, *, ta: bool = False, tb: bool = False,
            batch: tuple[int, ...] = (), kind: str = "ordinary", m_sizes: tuple[int, ...] = ()) -> Any:
    """A: a Parameter ``[*batch, M, K]`` (transposed when ``ta``); B: a Constant ``[K, N]`` (``tb``)
    from its own seed, so a dynamic case's shapes share it."""
    def build(m: int = m) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("MatMul", 1, label))
        weights = np.random.default_rng(S.seed_of("MatMul", 1, label + "/B"))
        a_shape = (*batch, k, m) if ta else (*batch, m, k)
        b_shape = (n, k) if tb else (k, n)
        a = SR.mm_values(b.rng, a_shape, et)
        w = SR.mm_values(weights, b_shape, et)
        note = "values in [-1, 1]; integers small enough that no sum overflows."
        if kind == "cancellation":  # pairs of large opposite terms along K, plus a small remainder
            half = k // 2
            big = b.rng.uniform(100, 1000, (*a_shape[:-1], half)) * np.where(b.rng.random(half) < 0.5, -1, 1)
            a64 = np.concatenate([big, -big, b.rng.uniform(-1, 1, (*a_shape[:-1], k - 2 * half))], axis=-1)
            a = S.cast(a64 + b.rng.uniform(-1e-3, 1e-3, a64.shape), et)
            w64 = weights.uniform(-1, 1, (half, n))
            w = S.cast(np.concatenate([w64, w64, weights.uniform(-1, 1, (k - 2 * half, n))]), et)
            note = "cancellation: pairs of terms of magnitude 100..1000 cancel along K; judged against Σ|terms|."
        elif kind == "special":  # NaN in some rows of A: those output rows are NaN (IEEE)
            a64 = b.rng.uniform(-1, 1, a_shape)
            rows = b.rng.choice(a_shape[-1 if ta else -2], size=2, replace=False)
            flat = a64.reshape(-1, *a_shape[-2:])
            for r in rows:
                if ta:
                    flat[:, k // 2, r] = np.nan
                else:
                    flat[:, r, k // 2] = np.nan
            a = S.cast(a64, et)
            note = "NaN in two rows of A: their output rows are NaN."
        x = b.param("a", a, et)
        return b.finish("MatMul", 1, opset.matmul(x, b.const(w, et), ta, tb), note)

    if m_sizes:
        return lambda: S.dynamic_case([build(size) for size in m_sizes], note=f"dynamic mode: M = {m_sizes}")
    return build


@S.register_stimuli("MatMul", 1)
def _stimulus_matmul() -> Iterable[S.Stimulus]:
    op, v = "MatMul", 1
    for k in S.REMAINDERS:
        yield S.Stimulus(op, v, f"k{k}", "remainder", "ordinary", Type.f32, _stim_matmul(f"k{k}", 9, k, 17),
                       S.remainder_depth(k))
    yield S.Stimulus(op, v, "k65-ta", "remainder", "ordinary", Type.f32, _stim_matmul("k65-ta", 9, 65, 17, ta=True))
    yield S.Stimulus(op, v, "k129-tb", "remainder", "ordinary", Type.f32, _stim_matmul("k129-tb", 9, 129, 17, tb=True))
    yield S.Stimulus(op, v, "batch-k65", "remainder", "ordinary", Type.f32,
                     _stim_matmul("batch-k65", 9, 65, 33, batch=(3,)))
    yield S.Stimulus(op, v, "k256-large", "large", "ordinary", Type.f32, _stim_matmul("k256-large", 256, 256, 256))
    yield S.Stimulus(op, v, "k4096", "large", "long-reduction", Type.f32, _stim_matmul("k4096", 4, S.LONG_REDUCTION, 8))
    yield S.Stimulus(op, v, "cancel-k256", "large", "cancellation", Type.f32,
                   _stim_matmul("cancel-k256", 8, 256, 8, kind="cancellation"))
    yield S.Stimulus(op, v, "nan-k65", "remainder", "special", Type.f32,
                     _stim_matmul("nan-k65", 9, 65, 17, kind="special"))
    for et in S.NUMERIC:
        if et == Type.f32:
            continue
        depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32, Type.i8, Type.u8) else Depth.EXHAUSTIVE
        yield S.Stimulus(op, v, f"{et.name}-k65", "remainder", "ordinary", et,
                         _stim_matmul(f"{et.name}-k65", 9, 65, 17, et),
                       depth)
    yield S.Stimulus(op, v, "f16-k256", "large", "ordinary", Type.f16, _stim_matmul("f16-k256", 64, 256, 64, Type.f16))
    yield S.Stimulus(op, v, "dynamic", "remainder", "ordinary", Type.f32,
                   _stim_matmul("dynamic", 1, 65, 17, m_sizes=(1, 9, 33)), dynamic=True)


# -- GroupedMatMul-17 ------------------------------------------------------------------------------------------
# f32 (two times in three) or f16; mat_b [G, N, K] a Constant (OpenVINO CPU runs GroupedMatMul only with
# constant weights; a quarter of the cases feed it from a Parameter, and one case in eight is i32: recorded as
# OpenVINO refusals). Half the cases are 2D x 3D with i32 or i64 offsets: G 1..5 groups of 0..12 rows (empty
# groups, one group holding every row), K up to 70 (past a 64-wide tile) and N up to 17; the others 3D x 3D.

@register_case("GroupedMatMul", 17)
def _grouped_matmul(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((Type.f32, Type.f32, Type.f16, Type.f32, Type.f16, Type.f32, Type.f32, Type.i32)))
    groups = draw(st.integers(1, 5))
    k = draw(st.sampled_from((1, 3, 8, 16, 33, 70)))
    n = draw(st.integers(1, 17))
    b = CaseBuilder(draw_seed(draw))

    def values(shape: tuple[int, ...]) -> np.ndarray:
        return b.uniform(shape, et, -1, 1) if et.is_real() else b.uniform(shape, et, -4, 4)

    weights_constant = draw(st.integers(0, 3)) > 0
    if draw(st.booleans()):
        rows = [draw(st.sampled_from((0, 1, 2, 5, 12))) for _ in range(groups)]
        if draw(st.integers(0, 4)) == 0:  # every row in one group
            rows = [0] * groups
            rows[draw(st.integers(0, groups - 1))] = draw(st.integers(1, 12))
        ends = np.cumsum(rows)
        mat_a = b.param("mat_a", values((int(ends[-1]), k)))
        mat_b = b.input("mat_b", values((groups, n, k)), weights_constant)
        index_t = draw(st.sampled_from((Type.i32, Type.i64)))
        offsets = b.input("offsets", ends.astype(index_t.to_dtype()), draw(st.booleans()))
        node = opset.grouped_matmul(mat_a, mat_b, offsets)
    else:
        m = draw(st.integers(1, 9))
        mat_a = b.param("mat_a", values((groups, m, k)))
        node = opset.grouped_matmul(mat_a, b.input("mat_b", values((groups, n, k)), weights_constant))
    return b.finish("GroupedMatMul", 17, node, "mat_b is [G, N, K] (OpenVINO 2026.4's layout).")
