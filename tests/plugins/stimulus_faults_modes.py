"""REFERENCE variants with one realistic kernel bug each in an attribute mode or value range the op
suite's cases did not reach before :mod:`ovconform.opcases._stimulus_modes` (a red team's findings:
each passed every test of its ops at standard depth, but MVN-6's and Round-5's, which one generated
case each caught), for ``tests/ops/test_stimulus_modes.py``
(``--plugin=stimulus_faults_modes:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each fault lives in the device's private model copy (``_rewrite``) or in its own compiled program's
kernels, never in REFERENCE's (the oracle runs in the same process); query_model is REFERENCE's.
Device names name no op type (test selections match device names and op names alike).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Output
from reference_plugin.ops._common_index import int_list
from reference_plugin.ops._common_layout import slice_index
from reference_plugin.ops.op_slice import Slice
from reference_plugin.ops.op_strided_slice import StridedSlice

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

Ranges = dict[int, tuple[int | None, int | None, int]]


# -- DepthToSpace / SpaceToDepth: the generic kernel ignores the mode ----------------------------------------

class DepthSpaceLargeBlockIgnoresMode(PatchedReference):
    """DepthToSpace / SpaceToDepth: the generic kernel (taken for block_size >= 3; block 2 has a
    hand-written one that honours the mode) always uses the blocks_first channel order, so
    depth_first with block 3 moves the wrong channels."""

    device_name = "STM_BLOCKORDER"

    def _rewrite(self, node: Node) -> None:
        if node.type_name in ("DepthToSpace", "SpaceToDepth") and int(node.attrs["block_size"]) >= 3:
            node.attrs["mode"] = "blocks_first"


# -- StridedSlice / Slice: negative strides ----------------------------------------------------------------------

def _take_from(data: np.ndarray, ranges: Ranges, wrong: dict[int, int]) -> np.ndarray:
    """``data`` sliced per axis with the right output length, but on the axes of ``wrong`` the walk
    starts at the given index; positions read outside the axis come out 0."""
    idxs = []
    for ax, n in enumerate(data.shape):
        start, stop, step = ranges.get(ax, (None, None, 1))
        r = range(*slice(start, stop, step).indices(n))
        first = wrong.get(ax, r.start)
        idx = first + np.arange(len(r), dtype=np.int64) * step
        idxs.append(np.where((idx >= 0) & (idx < n), idx, n))  # n: the zero row padded below
    padded = np.pad(data, [(0, 1)] * data.ndim)
    return np.ascontiguousarray(padded[np.ix_(*idxs)])


def _plain_ranges(op: Any, x: np.ndarray, begin: Any, end: Any, strides: Any) -> Ranges | None:
    """Per-axis (begin, end, stride) of a StridedSlice without new/shrink/ellipsis masks, else None."""
    if any(any(op.masks[m]) for m in ("new_axis_mask", "shrink_axis_mask", "ellipsis_mask")) or not x.size:
        return None
    b = op.consts[0] if op.consts[0] is not None else int_list(begin)
    e = op.consts[1] if op.consts[1] is not None else int_list(end)
    s = [1] * len(b) if strides is None else (op.consts[2] if op.consts[2] is not None else int_list(strides))
    bm, em = op.masks["begin_mask"], op.masks["end_mask"]
    return {i: (None if i < len(bm) and bm[i] else b[i], None if i < len(em) and em[i] else e[i], s[i])
            for i in range(len(b))}


class _MaskedBeginIsZero(StridedSlice):
    def _run(self, x: np.ndarray, begin: Any, end: Any, strides: Any = None) -> tuple[np.ndarray, ...]:
        out = super()._run(x, begin, end, strides)
        ranges = _plain_ranges(self, x, begin, end, strides)
        if ranges is None:
            return out
        bm = self.masks["begin_mask"]
        wrong = {ax: 0 for ax, (_, _, st) in ranges.items() if ax < len(bm) and bm[ax] and st < 0}
        if not wrong:
            return out
        return (_take_from(x, ranges, wrong).astype(out[0].dtype),)


class StridedSliceMaskedBeginNegStride(PatchedReference):
    """StridedSlice: a begin_mask bit starts the range at index 0 even with a negative stride
    (it should start at the last element)."""

    device_name = "STM_MASKSTART"
    kernels = {"StridedSlice": {1: _MaskedBeginIsZero}}


def _past_end(ranges: Ranges, shape: tuple[int, ...]) -> dict[int, int]:
    return {ax: shape[ax] for ax, (b, _, st) in ranges.items() if st < 0 and b is not None and b >= shape[ax]}


class _SliceStartClampsToDim(Slice):
    def _run(self, data: np.ndarray, start: Any, stop: Any, step: Any, axes: Any = None) -> tuple[np.ndarray, ...]:
        out = super()._run(data, start, stop, step, axes)
        if not data.size:
            return out
        index = slice_index(data.shape, self.ints(1, start), self.ints(2, stop), self.ints(3, step),
                            None if axes is None else self.ints(4, axes))
        ranges = {ax: (s.start, s.stop, s.step or 1) for ax, s in enumerate(index) if s != slice(None)}
        wrong = _past_end(ranges, data.shape)
        return (_take_from(data, ranges, wrong).astype(out[0].dtype),) if wrong else out


class _StridedBeginClampsToDim(StridedSlice):
    def _run(self, x: np.ndarray, begin: Any, end: Any, strides: Any = None) -> tuple[np.ndarray, ...]:
        out = super()._run(x, begin, end, strides)
        ranges = _plain_ranges(self, x, begin, end, strides)
        if ranges is None or not (wrong := _past_end(ranges, x.shape)):
            return out
        return (_take_from(x, ranges, wrong).astype(out[0].dtype),)


class NegStrideBeginPastEndClampsToDim(PatchedReference):
    """StridedSlice / Slice with a negative step and a begin at or past the end (INT64_MAX, dim + k,
    as ONNX/TF exporters write ``x[::-1]``) clamp begin to ``dim`` instead of ``dim - 1``: the
    first element read is one past the end (0 here), every other one is shifted by one."""

    device_name = "STM_PASTEND"
    kernels = {"StridedSlice": {1: _StridedBeginClampsToDim}, "Slice": {8: _SliceStartClampsToDim}}


# -- Einsum: a diagonal only for "ii->i" ------------------------------------------------------------------------

def _undiagonal(equation: str) -> str:
    """``equation`` with the second and later occurrences of a label repeated inside one operand
    renamed to fresh labels (no diagonal is taken: the extra axes are summed away)."""
    lhs, arrow, rhs = equation.partition("->")
    used = set(equation)
    fresh = iter(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in used)
    terms = []
    for term in lhs.split(","):
        seen: set[str] = set()
        out = []
        for c in term:
            if c.isalpha() and c in seen:
                c = next(fresh)
            seen.add(c)
            out.append(c)
        terms.append("".join(out))
    return ",".join(terms) + arrow + rhs


class EinsumDiagonalOnlyForMatrices(PatchedReference):
    """Einsum: a repeated label inside one operand is handled (diagonal taken) only by the
    hand-written 2-D "ii->i" kernel; every other equation with a repeated label ("ii->", "iij->ij",
    "...ii->...i") runs the generic contraction, which sums the repeated axis as a separate label."""

    device_name = "STM_REPEATLABEL"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Einsum":
            return
        eq = str(node.attrs["equation"]).replace(" ", "")
        if eq == "ii->i" or "->" not in eq:
            return
        node.attrs["equation"] = _undiagonal(eq)


# -- Bucketize: the integer path ignores with_right_bound ---------------------------------------------------

class BucketizeIntegerIgnoresRightBound(PatchedReference):
    """Bucketize of integer data takes its integer fast path, which always puts a value equal to a
    boundary in the upper bucket (with_right_bound read as false)."""

    device_name = "STM_INTTIES"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "Bucketize" and not node.get_input_element_type(0).is_real():
            node.attrs["with_right_bound"] = False


# -- NormalizeL2 / MVN: eps_mode ----------------------------------------------------------------------------

class NormalizeL2MaxAsAdd(PatchedReference):
    """NormalizeL2 with eps_mode=max computes sqrt(sum + eps) (the add mode)."""

    device_name = "STM_EPSMAX"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "NormalizeL2":
            node.attrs["eps_mode"] = "add"


class MvnAlwaysOutsideSqrt(PatchedReference):
    """MVN-6 divides by sqrt(var) + eps whatever eps_mode says (inside_sqrt read as outside_sqrt)."""

    device_name = "STM_EPSROOT"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "MVN" and node.version == 6:
            node.attrs["eps_mode"] = "outside_sqrt"


# -- Round: half_away_from_zero as floor(x + 0.5) -------------------------------------------------------------

def _reroute(old: Output, new: Output) -> None:
    for target in old.get_target_inputs():
        target.replace_source_output(new)
    names = old.get_names()
    if names:
        new.add_names(names)


class RoundAwayAsFloorPlusHalf(PatchedReference):
    """Round-5 half_away_from_zero as floor(x + 0.5): negative halves go up (-2.5 -> -2, not -3)."""

    device_name = "STM_HALFUP"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Round" or str(node.attrs["mode"]).lower() != "half_away_from_zero":
            return
        x = node.input_value(0)
        et = x.get_element_type()
        if not et.is_real():
            return
        half = opset.constant(np.array(0.5, et.to_dtype()), et)
        _reroute(node.output(0), opset.floor(opset.add(x, half)).output(0))


#: class name -> the op versions it gets wrong.
FAULTS = {
    "DepthSpaceLargeBlockIgnoresMode": ("DepthToSpace-1", "SpaceToDepth-1"),
    "StridedSliceMaskedBeginNegStride": ("StridedSlice-1",),
    "NegStrideBeginPastEndClampsToDim": ("StridedSlice-1", "Slice-8"),
    "EinsumDiagonalOnlyForMatrices": ("Einsum-7",),
    "BucketizeIntegerIgnoresRightBound": ("Bucketize-3",),
    "NormalizeL2MaxAsAdd": ("NormalizeL2-1",),
    "MvnAlwaysOutsideSqrt": ("MVN-6",),
    "RoundAwayAsFloorPlusHalf": ("Round-5",),
}
