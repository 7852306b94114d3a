"""REFERENCE variants with one realistic kernel bug each in a layout / index op that had no stimulus
cases before (:mod:`ovconform.opcases._stimulus_layout`), for ``tests/ops/test_stimulus_layout.py``
(``--plugin=stimulus_faults_layout:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``). Each fault
lives in the device's own kernel, swapped into its compiled program, never in REFERENCE's (the
oracle runs in the same process); query_model is REFERENCE's.

None of them shows on the generated cases: those copy rows of at most 64 elements, shift 64-bit
values by at most 31 places, infer one shape per compiled model and hold no NaN or -0.0. The last
two keep every value and lose only bits a comparison of values cannot see (a NaN's payload, the
sign of a zero): the ``special-<float>`` cases catch them, compared bit for bit
(:data:`ovconform.tolerances.COPYING_OPS`).
"""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.ops.op_bitwise_left_shift import BitwiseLeftShift
from reference_plugin.ops.op_bitwise_right_shift import BitwiseRightShift
from reference_plugin.ops.op_depth_to_space import DepthToSpace
from reference_plugin.ops.op_gather import Gather1
from reference_plugin.ops.op_range import Range1, Range4
from reference_plugin.ops.op_roll import Roll

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

#: The faulty Gather copies rows longer than ROW_SPLIT elements in blocks of COPY_BLOCK elements.
COPY_BLOCK = 32
ROW_SPLIT = 64
#: The faulty shifts use a 32-bit lane's shift, which reads only the low 5 bits of the count.
COUNT_MASK = 31


class _TailDroppingGather(Gather1):
    """Copies each gathered row of more than ROW_SPLIT elements in COPY_BLOCK-element blocks and
    never writes the last, partial block (it stays zero)."""

    def _run(self, data: np.ndarray, indices: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(data, indices, axis)
        ax = int(np.asarray(axis).reshape(-1)[0]) % max(data.ndim, 1)
        row = math.prod(data.shape[ax + 1:])
        tail = row % COPY_BLOCK
        if row > ROW_SPLIT and tail and out.size:
            out = out.copy()
            out.reshape(-1, row)[:, row - tail:] = 0
        return (out,)


class GatherDropsPartialBlock(PatchedReference):
    """Gather (every version) loses the partial last block of rows longer than 64 elements."""

    device_name = "STF_GATHERTAIL"
    kernels = {"Gather": {1: _TailDroppingGather, 7: _TailDroppingGather, 8: _TailDroppingGather}}


def _masked(b: np.ndarray) -> np.ndarray:
    return np.bitwise_and(b, np.asarray(COUNT_MASK, b.dtype))


class _MaskedLeftShift(BitwiseLeftShift):
    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        return super()._run(a, _masked(b))


class _MaskedRightShift(BitwiseRightShift):
    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        return super()._run(a, _masked(b))


class ShiftCountMaskedTo5Bits(PatchedReference):
    """BitwiseLeftShift/RightShift shift 64-bit elements with a 32-bit lane's instruction: only the
    count's low 5 bits count (a shift by 40 shifts by 8)."""

    device_name = "STF_SHIFT32"
    kernels = {"BitwiseLeftShift": {15: _MaskedLeftShift}, "BitwiseRightShift": {15: _MaskedRightShift}}


class _FirstLength:
    """Mixed into a Range kernel: the output buffer is sized at the first inference and reused, so
    a later inference of another length is cut or padded with zeros."""

    _length: int | None = None

    def _sized(self, out: np.ndarray) -> np.ndarray:
        if self._length is None:
            self._length = out.size
        if out.size == self._length:
            return out
        fixed = np.zeros(self._length, out.dtype)
        fixed[:min(out.size, self._length)] = out[:self._length]
        return fixed


class _StaleRange1(_FirstLength, Range1):
    def _run(self, start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, ...]:
        return (self._sized(super()._run(start, stop, step)[0]),)


class _StaleRange4(_FirstLength, Range4):
    def _run(self, start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, ...]:
        return (self._sized(super()._run(start, stop, step)[0]),)


class RangeKeepsFirstLength(PatchedReference):
    """Range keeps the output length of its compiled model's first inference (a dynamic-shape bug:
    the second and third shapes of one compiled model come out with the first one's length)."""

    device_name = "STF_RANGESTALE"
    kernels = {"Range": {1: _StaleRange1, 4: _StaleRange4}}


class _DefaultNaNRoll(Roll):
    """Moves float data through an arithmetic unit in default-NaN mode (as Arm's FPCR.DN): every
    NaN comes out as the one default NaN, its payload and sign lost. Other values are untouched."""

    def _run(self, data: np.ndarray, shift: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(data, shift, axes)
        if out.dtype.kind == "f":
            out = np.where(np.isnan(out), np.array(np.nan, out.dtype), out)
        return (out,)


class RollCanonicalisesNaN(PatchedReference):
    """Roll replaces every NaN by the default NaN (payload and sign lost)."""

    device_name = "STF_ROLLNAN"
    kernels = {"Roll": {7: _DefaultNaNRoll}}


class _AccumulatingDepthToSpace(DepthToSpace):
    """Writes its blocks by accumulating into a zeroed buffer (0 + x): -0.0 comes out as +0.0."""

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(x)
        if out.dtype.kind == "f":
            out = np.zeros_like(out) + out
        return (out,)


class DepthToSpaceLosesNegativeZero(PatchedReference):
    """DepthToSpace turns -0.0 into +0.0."""

    device_name = "STF_D2SZERO"
    kernels = {"DepthToSpace": {1: _AccumulatingDepthToSpace}}


#: class name -> the op versions it gets wrong.
FAULTS = {
    "GatherDropsPartialBlock": ("Gather-1", "Gather-7"),
    "ShiftCountMaskedTo5Bits": ("BitwiseLeftShift-15", "BitwiseRightShift-15"),
    "RangeKeepsFirstLength": ("Range-1", "Range-4"),
    "RollCanonicalisesNaN": ("Roll-7",),
    "DepthToSpaceLosesNegativeZero": ("DepthToSpace-1",),
}
