"""Stimulus cases of the attribute modes and values the generated cases do not draw: the other
``mode`` of DepthToSpace/SpaceToDepth at block sizes 3 and 4, StridedSlice masks and begins on
negative-stride axes, Einsum diagonals other than ``ii->i``, Bucketize ties on integer data, and
``eps`` large enough that NormalizeL2's and MVN's ``eps_mode`` decide the result, and Round's
``half_away_from_zero`` on halves.

A red team wrote a realistic kernel bug for each (``tests/plugins/stimulus_faults_modes.py``) that the
op suite passed at standard depth before (MVN-6 and Round-5: one generated case each caught theirs);
each label names what it adds:

* **DepthToSpace-1 / SpaceToDepth-1** — block sizes 3 and 4 in both modes (``b3-depth_first``,
  ``b3-blocks_first``, ``b4-depth_first``, ``b4-blocks_first``, ``5d-b3-depth_first``), with two
  channels per block (with one, the two modes move the same elements) and all-different values.
  Until now only block 2 had ``depth_first`` cases: a kernel whose generic path (block >= 3)
  ignores the mode passed.
* **StridedSlice-1** — ``begin_mask`` on a negative-stride axis, where the range starts at the last
  element (``neg-stride-begin-mask``, ``neg-stride-begin-mask-3d``: a stride of -1 and one of -3; their
  ends are numbers), ``end_mask`` on one, where it runs through element 0 as in Python and OpenVINO
  (``neg-stride-end-mask``; the spec's text says end 0, excluding element 0, but calls its own example
  ``array[1:, :, ::-1]``, as the ``rev-n*`` cases of the movement stimulus read it), and a begin at or
  past the end with a negative stride, as exporters write ``x[::-1]`` without masks: ``INT64_MAX``
  (``neg-stride-begin-int64max``, end ``INT64_MIN``) and ``dim + 3`` (``neg-stride-begin-past-end``,
  stride -2); the spec clamps such a begin to ``dim - 1``, as Python slicing does.
* **Slice-8** — the same begins for ``start``: ``neg-step-start-int64max`` and
  ``neg-step-start-past-end``.
* **Einsum-7** — repeated labels inside one operand other than the matrix diagonal ``ii->i``:
  the trace ``ii->`` (``diag-ii``), ``iij->ij`` (``diag-iij-ij``), ``bii->bi`` (``diag-bii-bi``),
  ``...ii->...i`` (``diag-ellipsis-ii-i``) and ``ij,jj->i`` (``diag-ij-jj-i``, the repeated label in
  the second operand). The spec takes the diagonal along the repeated label's axes.
* **Bucketize-3** — i32 and i64 data with many values exactly on the boundaries, with
  ``with_right_bound`` true (``int-right-bound``, ``int-right-bound-i64``: a value equal to
  ``buckets[i]`` goes to bucket ``i``) and false (``int-left-bound``: to bucket ``i + 1``).
* **NormalizeL2-1** — ``eps_mode="max"`` with ``eps`` of the size of the sums of squares, some rows
  below it and some above (``max-eps-dominates``, over axis 1; ``max-eps-axes12``, over axes 1 and 2),
  so ``max(sum, eps)`` and ``sum + eps`` differ by a factor up to sqrt(2); ``add-eps-large`` for
  comparison.
* **MVN-6** — ``eps = 0.5`` against variances of 0.05..4 (``inside-sqrt-eps``: ``sqrt(var + eps)``,
  ``outside-sqrt-eps``: ``sqrt(var) + eps``), so the two modes differ by 10% and more.
* **Round-5** — every half from -8.5 to 7.5 (and a few non-halves) in f32 and f16 with
  ``half_away_from_zero`` (``away-halves``, ``away-halves-f16``: -2.5 -> -3, 2.5 -> 3) and
  ``half_to_even`` (``even-halves``); the other stimulus cases round with ``half_to_even`` only.

Every case is small (at most a few hundred elements) and seeded by its op, version and label
(:func:`ovconform.opcases.stimulus.seed_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S

Make = SR.MakeAt
F32: Final = Type.f32
I64_MAX: Final = int(np.iinfo(np.int64).max)
I64_MIN: Final = int(np.iinfo(np.int64).min)

#: the recipes of this module by (op, version), in registration order (the tests read the labels)
_BOOK = SR.RecipeBook()
RECIPES = _BOOK.recipes
register = _BOOK.register
labels = _BOOK.labels


def stim(op: str, version: int, label: str, make: Make, shape: tuple[int, ...] = (), *, size: str = "tiny",
         values: str = "ordinary", et: Type = F32, note: str = "") -> S.Stimulus:
    return S.Stimulus(op, version, label, size, values, et, SR.node_case(op, version, label, make, shape, (), note))


def ints(value: object) -> np.ndarray:
    return np.asarray(value, dtype=np.int64)


def distinct(b: S.StimulusBuilder, shape: tuple[int, ...]) -> np.ndarray:
    """All-different f32 values (a permutation of 0, 0.25, 0.5, ... shifted to be centred on 0)."""
    n = int(np.prod(shape))
    return S.cast((b.rng.permutation(n) - n // 2).reshape(shape) * 0.25, F32)


# -- DepthToSpace / SpaceToDepth: block sizes 3 and 4 in both modes ------------------------------------------

#: label -> (DepthToSpace input shape, block); SpaceToDepth takes the DepthToSpace output shape.
BLOCK_MODES: Final = {
    "b3-depth_first": ((1, 18, 3, 5), 3),
    "b3-blocks_first": ((1, 18, 3, 5), 3),
    "b4-depth_first": ((2, 32, 2, 3), 4),
    "b4-blocks_first": ((2, 32, 2, 3), 4),
    "5d-b3-depth_first": ((1, 54, 2, 1, 3), 3),
}


def block_shape(op: str, d2s_shape: tuple[int, ...], block: int) -> tuple[int, ...]:
    if op == "DepthToSpace":
        return d2s_shape
    n, c, *spatial = d2s_shape
    return (n, c // block ** len(spatial), *(s * block for s in spatial))


def block_recipe(op: str) -> Callable[[], Iterable[S.Stimulus]]:
    maker = opset.depth_to_space if op == "DepthToSpace" else opset.space_to_depth

    def case(mode: str, block: int) -> Make:
        return lambda b, shape: maker(b.param("data", distinct(b, shape), F32), mode, block)

    def recipe() -> Iterable[S.Stimulus]:
        for label, (d2s_shape, block) in BLOCK_MODES.items():
            mode = label.rpartition("-")[2]
            shape = block_shape(op, d2s_shape, block)
            yield stim(op, 1, label, case(mode, block), shape,
                       note=f"block_size {block}, mode {mode}, two channels per block; values all different.")

    return recipe


# -- StridedSlice / Slice: masks and begins past the end on negative-stride axes ------------------------------

#: label -> (shape, begin, end, strides, begin_mask, end_mask, note)
STRIDED: Final = {
    "neg-stride-begin-mask": ((3, 7), [0, 2], [0, -8], [1, -1], [1, 1], [1, 0],
                              "begin_mask on the stride -1 axis: starts at its last element (x[:, :-8:-1], "
                              "the whole axis reversed)."),
    "neg-stride-begin-mask-3d": ((4, 3, 11), [1, 0, 2], [0, 0, 1], [-1, 1, -3], [1, 1, 1], [0, 1, 0],
                                 "begin_mask on axes of stride -1 and -3: x[:0:-1, :, :1:-3]."),
    "neg-stride-end-mask": ((3, 9), [0, 6], [0, 4], [1, -2], [1, 0], [1, 1],
                            "end_mask on the stride -2 axis: runs through element 0 (x[:, 6::-2])."),
    "neg-stride-begin-int64max": ((3, 7), [0, I64_MAX], [0, I64_MIN], [1, -1], [1, 0], [1, 0],
                                  "begin INT64_MAX, end INT64_MIN, stride -1 (x[:, ::-1] as exporters write "
                                  "it): begin clamps to dim - 1."),
    "neg-stride-begin-past-end": ((2, 3, 9), [0, 4, 12], [0, -9, -20], [1, -1, -2], [1, 0, 0], [1, 0, 0],
                                  "begins dim + 1 and dim + 3 with strides -1 and -2: clamped to dim - 1."),
}


def strided_make(begin: list[int], end: list[int], strides: list[int], begin_mask: list[int],
                 end_mask: list[int]) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.strided_slice(b.param("data", distinct(b, shape), F32), b.const(ints(begin)),
                                   b.const(ints(end)), b.const(ints(strides)), begin_mask, end_mask)

    return make


@register("StridedSlice", 1)
def strided_slice_recipe() -> Iterable[S.Stimulus]:
    for label, (shape, begin, end, strides, bm, em, note) in STRIDED.items():
        yield stim("StridedSlice", 1, label, strided_make(begin, end, strides, bm, em), shape, note=note)


#: label -> (shape, start, stop, step, axes, note)
SLICES: Final = {
    "neg-step-start-int64max": ((3, 7), [I64_MAX], [I64_MIN], [-1], [1],
                                "start INT64_MAX, stop INT64_MIN, step -1: start clamps to dim - 1."),
    "neg-step-start-past-end": ((9, 4), [12], [-20], [-2], [0], "start dim + 3, step -2: clamped to dim - 1."),
}


def slice_make(start: list[int], stop: list[int], step: list[int], axes: list[int]) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.slice(b.param("data", distinct(b, shape), F32), b.const(ints(start)), b.const(ints(stop)),
                           b.const(ints(step)), b.const(ints(axes)))

    return make


@register("Slice", 8)
def slice_recipe() -> Iterable[S.Stimulus]:
    for label, (shape, start, stop, step, axes, note) in SLICES.items():
        yield stim("Slice", 8, label, slice_make(start, stop, step, axes), shape, note=note)


# -- Einsum: repeated labels ----------------------------------------------------------------------------------

#: label -> (equation, operand shapes)
DIAGONALS: Final[dict[str, tuple[str, list[tuple[int, ...]]]]] = {
    "diag-ii": ("ii->", [(5, 5)]),
    "diag-iij-ij": ("iij->ij", [(4, 4, 3)]),
    "diag-bii-bi": ("bii->bi", [(3, 4, 4)]),
    "diag-ellipsis-ii-i": ("...ii->...i", [(2, 3, 4, 4)]),
    "diag-ij-jj-i": ("ij,jj->i", [(3, 4), (4, 4)]),
}


def einsum_make(equation: str, shapes: list[tuple[int, ...]]) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.einsum([b.param(f"in{i}", b.uniform(s, F32, -2, 2), F32) for i, s in enumerate(shapes)],
                            equation)

    return make


@register("Einsum", 7)
def einsum_recipe() -> Iterable[S.Stimulus]:
    for label, (equation, shapes) in DIAGONALS.items():
        yield stim("Einsum", 7, label, einsum_make(equation, shapes), shapes[0],
                   note=f"{equation!r}: the diagonal along the repeated label; values in [-2, 2].")


# -- Bucketize: integer data on the boundaries ------------------------------------------------------------------

BUCKETS: Final = (-7, -2, 0, 3, 10, 25)


def bucketize_make(et: Type, right: bool) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        on = b.rng.choice(np.array(BUCKETS), shape)
        off = b.rng.integers(-12, 30, shape)
        data = np.where(b.rng.random(shape) < 0.6, on, off)
        return opset.bucketize(b.param("data", S.cast(data, et), et), b.const(S.cast(np.array(BUCKETS), et), et),
                               "i64", right)

    return make


@register("Bucketize", 3)
def bucketize_recipe() -> Iterable[S.Stimulus]:
    note = f"buckets {list(BUCKETS)}; 60% of the data exactly on a boundary"
    yield stim("Bucketize", 3, "int-right-bound", bucketize_make(Type.i32, True), (4, 17), et=Type.i32,
               note=note + "; with_right_bound true: x == buckets[i] is in bucket i.")
    yield stim("Bucketize", 3, "int-right-bound-i64", bucketize_make(Type.i64, True), (3, 9), et=Type.i64,
               note=note + "; with_right_bound true: x == buckets[i] is in bucket i.")
    yield stim("Bucketize", 3, "int-left-bound", bucketize_make(Type.i32, False), (4, 17), et=Type.i32,
               note=note + "; with_right_bound false: x == buckets[i] is in bucket i + 1.")


# -- NormalizeL2 / MVN: eps that decides ------------------------------------------------------------------------

def normalize_make(axes: list[int], eps: float, mode: str) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        # rows of very different scales: some sums of squares far below eps, some far above
        scale = np.exp2(b.rng.integers(-3, 3, (shape[0], 1, *shape[2:])))
        x = b.rng.uniform(-1, 1, shape) * scale
        return opset.normalize_l2(b.param("data", S.cast(x, F32), F32), b.const(ints(axes)), eps, mode)

    return make


@register("NormalizeL2", 1)
def normalize_l2_recipe() -> Iterable[S.Stimulus]:
    note = "rows scaled by 2**-3..2**2: sums of squares from about 0.01 to 50 against eps = 2."
    yield stim("NormalizeL2", 1, "max-eps-dominates", normalize_make([1], 2.0, "max"), (6, 5, 3),
               note="eps_mode max: sqrt(max(sum, eps)); " + note)
    yield stim("NormalizeL2", 1, "max-eps-axes12", normalize_make([1, 2], 2.0, "max"), (6, 3, 2, 4),
               note="eps_mode max over axes [1, 2]; " + note)
    yield stim("NormalizeL2", 1, "add-eps-large", normalize_make([1], 2.0, "add"), (6, 5, 3),
               note="eps_mode add: sqrt(sum + eps); " + note)


def mvn_make(mode: str) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        std = b.rng.uniform(0.2, 2.0, (shape[0], shape[1], 1))  # variances of about 0.04..4
        x = b.rng.normal(0, 1, shape) * std + b.rng.uniform(-3, 3, (shape[0], shape[1], 1))
        return opset.mvn(b.param("data", S.cast(x, F32), F32), b.const(ints([2])), True, 0.5, mode)

    return make


@register("MVN", 6)
def mvn_recipe() -> Iterable[S.Stimulus]:
    note = "eps 0.5 against variances of about 0.04..4 over the last axis (normalize_variance true)."
    yield stim("MVN", 6, "inside-sqrt-eps", mvn_make("inside_sqrt"), (2, 4, 9), note="sqrt(var + eps); " + note)
    yield stim("MVN", 6, "outside-sqrt-eps", mvn_make("outside_sqrt"), (2, 4, 9), note="sqrt(var) + eps; " + note)


# -- Round: halves ---------------------------------------------------------------------------------------------

#: Every half from -8.5 to 7.5, then non-halves on both sides of them.
HALVES: Final = (*(k + 0.5 for k in range(-9, 8)), -1.25, 1.75, -3.75, 2.25, -0.0, 4.0)


def round_make(et: Type, mode: str) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.round(b.param("data", S.cast(b.rng.permutation(np.array(HALVES)), et), et), mode)

    return make


@register("Round", 5)
def round_recipe() -> Iterable[S.Stimulus]:
    note = "every half from -8.5 to 7.5 (exact in f16 and f32) and a few non-halves"
    yield stim("Round", 5, "away-halves", round_make(F32, "half_away_from_zero"),
               note=note + "; half_away_from_zero: -2.5 -> -3, 2.5 -> 3.")
    yield stim("Round", 5, "away-halves-f16", round_make(Type.f16, "half_away_from_zero"), et=Type.f16,
               note=note + "; half_away_from_zero: -2.5 -> -3, 2.5 -> 3.")
    yield stim("Round", 5, "even-halves", round_make(F32, "half_to_even"),
               note=note + "; half_to_even: -2.5 -> -2, 3.5 -> 4.")


for _op in ("DepthToSpace", "SpaceToDepth"):
    register(_op, 1)(block_recipe(_op))
