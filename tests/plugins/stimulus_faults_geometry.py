"""REFERENCE variants with one realistic kernel bug each in a geometry the op suite's cases did not
reach before :mod:`ovconform.opcases._stimulus_geometry` (a red team's findings: each passed every
test of its ops at standard depth), for ``tests/ops/test_stimulus_geometry.py``
(``--plugin=stimulus_faults_geometry:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each fault lives in the device's own kernels, swapped into its compiled program, never in
REFERENCE's (the oracle runs in the same process); query_model is REFERENCE's. Device names name
no op type (test selections match device names and op names alike).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ovconform.errors import InferError
from reference_plugin.ops.op_add import Add
from reference_plugin.ops.op_avg_pool import AvgPool1, AvgPool14, AvgPool16
from reference_plugin.ops.op_concat import Concat
from reference_plugin.ops.op_convolution import Convolution
from reference_plugin.ops.op_gather import Gather1, Gather7, Gather8
from reference_plugin.ops.op_interpolate import Interpolate4, Interpolate11
from reference_plugin.ops.op_log_softmax import LogSoftmax
from reference_plugin.ops.op_mat_mul import MatMul
from reference_plugin.ops.op_max_pool import MaxPool14
from reference_plugin.ops.op_multiply import Multiply
from reference_plugin.ops.op_softmax import Softmax8
from reference_plugin.ops.op_subtract import Subtract
from reference_plugin.ops.op_tile import Tile
from reference_plugin.ops.op_topk import TopK1, TopK3, TopK11
from reference_plugin.ops.op_transpose import Transpose

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference


# -- Softmax / LogSoftmax: a negative axis normalised with the 4-D layout's rank -------------------------------

def _nchw_axis(base: type) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
            axis = self.axis
            if x.ndim >= 5 and axis < 0:
                self.axis = axis + 4  # the layout code assumes NCHW
            try:
                return super()._run(x)  # type: ignore[no-any-return]
            finally:
                self.axis = axis

    return K


class SoftmaxRank5NegativeAxis(PatchedReference):
    """Softmax-8 and LogSoftmax-5 normalise a negative axis as ``axis + 4`` (the rank of NCHW) also
    for 5-D and 6-D data, so axis -1 of a 5-D tensor becomes axis 3."""

    device_name = "STG_NCHWAXIS"
    kernels = {"Softmax": {8: _nchw_axis(Softmax8)}, "LogSoftmax": {5: _nchw_axis(LogSoftmax)}}


# -- binary elementwise ops: a rank-5 broadcast loop that never advances its outermost index ---------------------

def _outer_slice_only(base: type) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
            (out,) = super()._run(a, b)
            if out.ndim >= 5 and a.shape != b.shape and out.shape[0] > 1:
                out = out.copy()
                out[1:] = out[0]
            return (out,)

    return K


class BroadcastRank5FirstSliceOnly(PatchedReference):
    """Add, Subtract and Multiply with broadcasting and an output of rank 5 or more (folded into a
    4-D loop nest) compute index 0 of the outermost axis only and replicate it."""

    device_name = "STG_OUTERMOSTONCE"
    kernels = {"Add": {1: _outer_slice_only(Add)}, "Subtract": {1: _outer_slice_only(Subtract)},
               "Multiply": {1: _outer_slice_only(Multiply)}}


# -- Convolution: the blocked kernel (16 or more input channels) swaps the pads ---------------------------------

class _BlockedSwapsPads(Convolution):
    def __init__(self, node: Any) -> None:
        super().__init__(node)
        ps = node.input_value(0).get_partial_shape()
        self.blocked = ps.rank.is_static and ps[1].is_static and ps[1].get_length() >= 16

    def convolve(self, x: np.ndarray, filters: np.ndarray, spec: Any) -> np.ndarray:
        if self.blocked:
            plan = spec.plan(x.shape[2:])
            spec = dataclasses.replace(spec, pads_begin=plan.pads_end, pads_end=plan.pads_begin, auto_pad="explicit")
        return super().convolve(x, filters, spec)  # type: ignore[no-any-return]


class BlockedConvSwapsPads(PatchedReference):
    """Convolution's blocked kernel (taken from 16 input channels) applies asymmetric padding the
    wrong way round (pads_end at the start), so same_lower acts as same_upper and the reverse."""

    device_name = "STG_BLOCKEDEDGES"
    kernels = {"Convolution": {1: _BlockedSwapsPads}}


# -- TopK: the large-k path returns its sorted buffer ----------------------------------------------------------

def _large_k_value_order(base: type) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def _run(self, data: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, ...]:
            sort = self.sort
            if sort == "index" and int(np.asarray(k).reshape(-1)[0]) > 32:
                self.sort = "value"
            try:
                return super()._run(data, k)  # type: ignore[no-any-return]
            finally:
                self.sort = sort

    return K


class TopKLargeKIgnoresIndexSort(PatchedReference):
    """TopK with k > 32 takes a full-sort path that returns the elements in value order even when
    ``sort="index"`` asks for index order."""

    device_name = "STG_BIGKORDER"
    kernels = {"TopK": {1: _large_k_value_order(TopK1), 3: _large_k_value_order(TopK3),
                        11: _large_k_value_order(TopK11)}}


# -- Concat: eight input pointers --------------------------------------------------------------------------------

class _EightPointerConcat(Concat):
    def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(*inputs)
        if len(inputs) > 8:
            axis = self.axis % out.ndim
            index: list[slice] = [slice(None)] * out.ndim
            index[axis] = slice(sum(i.shape[axis] for i in inputs[:8]), None)
            out = out.copy()
            out[tuple(index)] = 0  # the 9th and later inputs are never copied
        return (out,)


class ConcatDropsInputsPast8(PatchedReference):
    """Concat's kernel takes at most 8 input pointers: with more inputs, the part of the output the
    9th and later inputs should fill is left zero."""

    device_name = "STG_EIGHTPTRS"
    kernels = {"Concat": {1: _EightPointerConcat}}


# -- pooling: ceil_torch as ceil; exclude-pad lost with auto_pad -----------------------------------------------

def _ceil_torch_as_ceil(base: type) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def __init__(self, node: Any) -> None:
            super().__init__(node)
            if self.spec.rounding == "ceil_torch":
                self.spec = dataclasses.replace(self.spec, rounding="ceil")

    return K


class PoolCeilTorchAsCeil(PatchedReference):
    """MaxPool-14 and AvgPool-14/16 treat ``ceil_torch`` as ``ceil``: the last window, which starts
    in the end padding, is kept (one output too many on such an axis)."""

    device_name = "STG_TORCHWINDOWS"
    kernels = {"MaxPool": {14: _ceil_torch_as_ceil(MaxPool14)},
               "AvgPool": {14: _ceil_torch_as_ceil(AvgPool14), 16: _ceil_torch_as_ceil(AvgPool16)}}


def _auto_pad_counts_pads(base: type) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def __init__(self, node: Any) -> None:
            super().__init__(node)
            if self.spec.auto_pad in ("same_upper", "same_lower"):
                self.exclude_pad = False

    return K


class AvgPoolAutoPadCountsPadding(PatchedReference):
    """AvgPool with auto_pad same_upper/same_lower divides by the whole kernel even with
    exclude-pad=true (the automatic pads are computed after the divisor was chosen)."""

    device_name = "STG_AUTODIVISOR"
    kernels = {"AvgPool": {1: _auto_pad_counts_pads(AvgPool1), 14: _auto_pad_counts_pads(AvgPool14),
                           16: _auto_pad_counts_pads(AvgPool16)}}


# -- Interpolate nearest: one rounding helper for both round modes ----------------------------------------------

def _prefers_ceil(base: type) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def __init__(self, node: Any) -> None:
            super().__init__(node)
            if self.nearest_mode == "round_prefer_floor":
                self.nearest_mode = "round_prefer_ceil"

    return K


class InterpNearestPrefersCeil(PatchedReference):
    """Interpolate-4/11 nearest implement ``round_prefer_floor`` as ``round_prefer_ceil`` (one
    helper, ``floor(x + 0.5)``, for both): wrong only on coordinates exactly halfway."""

    device_name = "STG_TIESUP"
    kernels = {"Interpolate": {4: _prefers_ceil(Interpolate4), 11: _prefers_ceil(Interpolate11)}}


# -- zero-size tensors -------------------------------------------------------------------------------------------

def _refuses_empty(base: type, data_inputs: int | None = None) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
            if any(np.asarray(i).size == 0 for i in inputs[:data_inputs]):
                raise InferError("kernel launch with a zero-size grid")
            return super()._run(*inputs)  # type: ignore[no-any-return]

    return K


class EmptyTensorsFail(PatchedReference):
    """Concat, Add and Multiply (any input) and Transpose, Tile and Gather (the data input) refuse a
    zero-size tensor (a kernel launch with an empty grid) instead of giving the empty result (or,
    for Concat, the other inputs' concatenation)."""

    device_name = "STG_ZEROGRID"
    kernels = {"Concat": {1: _refuses_empty(Concat)}, "Add": {1: _refuses_empty(Add)},
               "Multiply": {1: _refuses_empty(Multiply)}, "Transpose": {1: _refuses_empty(Transpose, 1)},
               "Tile": {1: _refuses_empty(Tile, 1)},
               "Gather": {1: _refuses_empty(Gather1, 1), 7: _refuses_empty(Gather7, 1), 8: _refuses_empty(Gather8, 1)}}


# -- 64-bit integers through 32-bit lanes ------------------------------------------------------------------------

def _i64_via_i32(base: type) -> type:
    class K(base):  # type: ignore[misc, valid-type]
        def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
            outs = super()._run(*inputs)
            return tuple(o.astype(np.int32).astype(np.int64) if o.dtype == np.int64 else o for o in outs)

    return K


class MovesI64AsI32(PatchedReference):
    """Transpose, Concat, Tile and Gather move i64 data through 32-bit lanes: the upper 32 bits of
    every element are lost (values beyond the i32 range wrap)."""

    device_name = "STG_LANES32"
    kernels = {"Transpose": {1: _i64_via_i32(Transpose)}, "Concat": {1: _i64_via_i32(Concat)},
               "Tile": {1: _i64_via_i32(Tile)},
               "Gather": {1: _i64_via_i32(Gather1), 7: _i64_via_i32(Gather7), 8: _i64_via_i32(Gather8)}}


class MatMulI64AsI32(PatchedReference):
    """MatMul of i64 accumulates and stores in i32 (an int32 GEMM): results beyond 2**31 wrap."""

    device_name = "STG_GEMM32"
    kernels = {"MatMul": {1: _i64_via_i32(MatMul)}}


#: class name -> the op versions it gets wrong.
FAULTS = {
    "SoftmaxRank5NegativeAxis": ("Softmax-8", "LogSoftmax-5"),
    "BroadcastRank5FirstSliceOnly": ("Add-1", "Subtract-1", "Multiply-1"),
    "BlockedConvSwapsPads": ("Convolution-1",),
    "TopKLargeKIgnoresIndexSort": ("TopK-1", "TopK-3", "TopK-11"),
    "ConcatDropsInputsPast8": ("Concat-1",),
    "PoolCeilTorchAsCeil": ("MaxPool-14", "AvgPool-14", "AvgPool-16"),
    "AvgPoolAutoPadCountsPadding": ("AvgPool-1", "AvgPool-14", "AvgPool-16"),
    "InterpNearestPrefersCeil": ("Interpolate-4", "Interpolate-11"),
    "EmptyTensorsFail": ("Add-1", "Multiply-1", "Transpose-1", "Concat-1", "Tile-1", "Gather-1", "Gather-7",
                         "Gather-8"),
    "MovesI64AsI32": ("Transpose-1", "Concat-1", "Tile-1", "Gather-1", "Gather-7", "Gather-8"),
    "MatMulI64AsI32": ("MatMul-1",),
}
