"""REFERENCE variants with one realistic accelerator-kernel bug each (issue #20), and a correct
device that computes in f16, for ``tests/ops/test_op_kernel_faults.py``
(``--plugin=op_kernel_faults:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each fault lives in the device's own compile step — a rewrite of its private copy of the model,
or a kernel of its own in place of REFERENCE's for the affected nodes — never in the shared
REFERENCE kernels: the oracle runs in the same process and must stay right. ``query_model`` is
REFERENCE's (the devices claim the ops they get wrong). Every fault shows only where the issue
says kernels break: a tile past K = 64, 16 or more input channels, logits whose exponentials
overflow, long f32 sums, NaN, negative integer quotients, a second shape, the remainder lanes,
reflect pads on axes of 16 or more, more than 64 scatter updates with repeated indices, exact
rounding ties, attention masks past the first 64 keys.
Device names avoid op names, so a ``-k`` selecting ops does not select a device's every test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform import properties as P
from ovconform.ir import Node, Output, Type, f32_to_bf16
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops._common_index import int_list, normalize_axis, scatter_reduce, wrap_indices
from reference_plugin.ops._common_types import from_compute, store, to_compute
from reference_plugin.ops.op_convert import Convert
from reference_plugin.ops.op_reduce_sum import ReduceSum
from reference_plugin.ops.op_scatter_elements_update import ScatterElementsUpdate12
from reference_plugin.ops.op_scatter_nd_update import ScatterNDUpdate15
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

#: The width of the tile / vector the faulty kernels get wrong past.
K_TILE = 64
CHANNEL_BLOCK = 16
LANES = 8
#: Updates from which the faulty scatter takes its parallel (racing) path.
SCATTER_PARALLEL = 64


def _static(output: Output) -> tuple[int, ...] | None:
    ps = output.get_partial_shape()
    return tuple(ps.to_shape()) if ps.is_static else None


def _const_like(values: np.ndarray, et: Type) -> Node:
    data = f32_to_bf16(values.astype(np.float32)) if et == Type.bf16 else np.asarray(values).astype(et.to_dtype())
    return opset.constant(data, et)


def _reroute(old: Output, build: Callable[[], Output]) -> None:
    """Every consumer of ``old`` reads ``build()`` instead (built after the consumers are listed,
    so the new nodes may read ``old`` themselves); the tensor names move along."""
    targets = old.get_target_inputs()
    new = build()
    for target in targets:
        target.replace_source_output(new)
    names = old.get_names()
    if names:
        new.add_names(names)


class MatMulDropsKTail(PatchedReference):
    """MatMul accumulates only the first 64 terms of K (the tail tile is never added) when K > 64."""

    device_name = "OPK_KTAIL"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "MatMul":
            return
        a = node.input_value(0)
        shape = _static(a)
        if shape is None:
            return
        transposed = node.attrs.get("transpose_a") and len(shape) > 1
        k = shape[-2] if transposed else shape[-1]
        if k <= K_TILE:
            return
        mask = (np.arange(k) < K_TILE).astype(np.float64)
        mask = mask.reshape(k, 1) if transposed else mask
        node.set_argument(0, opset.multiply(a, _const_like(mask, a.get_element_type())).output(0))


class ConvolutionDropsLastChannel(PatchedReference):
    """Convolution with 16 or more input channels takes a blocked path that skips the last input channel."""

    device_name = "OPK_CHANNELS"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Convolution":
            return
        filters = node.input_value(1)
        shape = _static(filters)
        if shape is None or shape[1] < CHANNEL_BLOCK:
            return
        mask = np.ones((1, shape[1], *[1] * (len(shape) - 2)))
        mask[0, -1] = 0
        node.set_argument(1, opset.multiply(filters, _const_like(mask, filters.get_element_type())).output(0))


class SoftmaxWithoutMaxSubtraction(PatchedReference):
    """Softmax as exp(x) / sum(exp(x)) without subtracting the row maximum first (overflows on large logits)."""

    device_name = "OPK_NOMAXSUB"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Softmax":
            return
        x, axis = node.input_value(0), int(node.attrs["axis"])

        def naive() -> Output:
            e = opset.exp(x)
            return opset.divide(e, opset.reduce_sum(e, opset.constant(np.array([axis], np.int64)), True)).output(0)

        _reroute(node.output(0), naive)


class F16AccumulatingReduceSum(ReduceSum):
    """ReduceSum whose f32 partial sums are kept in f16 (a sequential f16 accumulator)."""

    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
        flat = moved.reshape(*moved.shape[:x.ndim - len(axes)], -1).astype(np.float16)
        total = np.cumsum(flat, axis=-1, dtype=np.float16)[..., -1] if flat.shape[-1] else flat.sum(axis=-1)
        out = total.astype(np.float32)
        if keepdims:
            out = np.expand_dims(out, axes)
        return store(np.asarray(out), self.out_t)


class ReduceSumAccumulatesInF16(PatchedReference):
    """ReduceSum of f32 data keeps its running sum in f16."""

    device_name = "OPK_HALFACC"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            node = step.node
            if node.type_name == "ReduceSum" and node.get_input_element_type(0) == Type.f32:
                step.kernel = F16AccumulatingReduceSum(node)


class ReluAndMaxPoolDropNaN(PatchedReference):
    """Relu and MaxPool compare with ``>``, so a NaN input is dropped (Relu(NaN) = 0, MaxPool skips NaN)."""

    device_name = "OPK_LOSTNAN"

    def _rewrite(self, node: Node) -> None:
        x = node.input_value(0) if node.get_input_size() else None
        if x is None or not x.get_element_type().is_real() or x.get_element_type() == Type.bf16:
            return
        et = x.get_element_type()
        if node.type_name == "Relu":
            _reroute(node.output(0), lambda: opset.select(opset.is_nan(x), _const_like(np.zeros(()), et),
                                                          node.output(0)).output(0))
        elif node.type_name == "MaxPool":
            cleaned = opset.select(opset.is_nan(x), _const_like(np.array(-np.inf), et), x)
            node.set_argument(0, cleaned.output(0))


class IntegerDivideTruncates(PatchedReference):
    """Integer Divide rounds the quotient toward zero even when the spec asks for floor division."""

    device_name = "OPK_TRUNCQUOT"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "Divide" and not node.get_output_element_type(0).is_real():
            node.attrs["m_pythondiv"] = False


class F32DeviceComputesMatMulInF16(PatchedReference):
    """Declares f32 (INFERENCE_PRECISION_HINT) but computes f32 MatMul in f16 (inputs and result rounded)."""

    device_name = "OPK_HALFPROD"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "MatMul" or node.get_output_element_type(0) != Type.f32:
            return
        a, b = node.input_value(0), node.input_value(1)
        ta, tb = bool(node.attrs.get("transpose_a")), bool(node.attrs.get("transpose_b"))
        _reroute(node.output(0), lambda: opset.convert(
            opset.matmul(opset.convert(a, Type.f16), opset.convert(b, Type.f16), ta, tb), Type.f32).output(0))


class _FirstShapeBuffers(ReferenceSyncInferRequest):
    """Keeps the output buffers sized for the first input shapes its compiled model ran: after a
    shape change, the output elements past the first shapes' sizes are left zero."""

    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        cm: Any = self._compiled_model
        shapes = tuple(a.shape for a in self._input_arrays)
        first = getattr(cm, "first_shapes", None)
        if first is None:
            cm.first_shapes, cm.first_sizes = shapes, [np.asarray(o).size for o in self._output_arrays]
            return
        if shapes == first:
            return
        outputs = []
        for out, size in zip(self._output_arrays, cm.first_sizes, strict=True):
            wrong = np.array(out, copy=True, order="C")
            wrong.flat[size:] = 0
            outputs.append(wrong)
        self._output_arrays = outputs


class WrongOnSecondShape(PatchedReference):
    """A dynamically-shaped compiled model is right on the first input shape it runs and wrong on
    a larger second one (output buffers sized for the first shape)."""

    device_name = "OPK_SECONDSHAPE"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        if any(p.get_output_partial_shape(0).is_dynamic for p in compiled.program.model.get_parameters()):
            compiled.sync_request_class = _FirstShapeBuffers  # type: ignore[misc]


class AddWrongOnRemainderLanes(PatchedReference):
    """Add's vector kernel (8 lanes, used from 16 elements on) leaves the last n % 8 elements as
    the first operand (the remainder loop never adds the second)."""

    device_name = "OPK_LANETAIL"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Add":
            return
        shape = _static(node.output(0))
        if shape is None:
            return
        n = int(np.prod(shape))
        tail = n % LANES
        if n < 2 * LANES or tail == 0:
            return
        mask = np.zeros(n, bool)
        mask[n - tail:] = True
        a = node.input_value(0)
        _reroute(node.output(0), lambda: opset.select(opset.constant(mask.reshape(shape)), a,
                                                      node.output(0)).output(0))


class PadReflectIsSymmetric(PatchedReference):
    """Pad's vectorised reflect kernel (taken when an axis has 16 or more elements) mirrors the
    edge element too: reflect pads come out as symmetric ones, one element off."""

    device_name = "OPK_PADMIRROR"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Pad" or node.attrs.get("pad_mode") != "reflect":
            return
        shape = _static(node.input_value(0))
        if shape is not None and max(shape, default=0) >= 2 * LANES:
            node.attrs["pad_mode"] = "symmetric"


def _last_only(targets: np.ndarray, updates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The last update of each repeated target (what a racing parallel scatter keeps)."""
    _, first_from_end = np.unique(targets[::-1], return_index=True)
    keep = np.sort(len(targets) - 1 - first_from_end)
    return targets[keep], updates[keep]


class _ElementsOnce(ScatterElementsUpdate12):
    def _run(self, data: np.ndarray, indices: np.ndarray, updates: np.ndarray,
             axis: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.reduction == "none" or updates.size <= SCATTER_PARALLEL:
            return super()._run(data, indices, updates, axis)
        ax = normalize_axis(int_list(axis)[0], data.ndim)
        coords: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
        coords[ax] = wrap_indices(indices, data.shape[ax], "index")
        targets = np.ravel_multi_index(np.broadcast_arrays(*coords), data.shape).reshape(-1)
        t = self.in_types[0]
        out = np.array(to_compute(data, t), copy=True).reshape(-1)
        scatter_reduce(out, *_last_only(targets, to_compute(updates, t).reshape(-1)), self.reduction,
                       self.use_init_val)
        return (from_compute(out.reshape(data.shape), t),)


class _NDOnce(ScatterNDUpdate15):
    def _run(self, data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.reduction == "none" or updates.size <= SCATTER_PARALLEL:
            return super()._run(data, indices, updates)
        k = indices.shape[-1]
        tuples = wrap_indices(indices, np.array(data.shape[:k], np.int64), "index").reshape(-1, k)
        base = np.ravel_multi_index(tuple(tuples.T), data.shape[:k]) if k else np.zeros(len(tuples), np.int64)
        inner = int(np.prod(data.shape[k:]))
        targets = (base[:, None] * inner + np.arange(inner)[None, :]).reshape(-1)
        t = self.in_types[0]
        out = np.array(to_compute(data, t), copy=True).reshape(-1)
        scatter_reduce(out, *_last_only(targets, to_compute(updates, t).reshape(-1)), self.reduction)
        return (from_compute(out.reshape(data.shape), t),)


class ScatterReductionAppliesDuplicatesOnce(PatchedReference):
    """ScatterElementsUpdate-12 / ScatterNDUpdate-15 with a reduction and more than 64 updates take a
    parallel path that races on repeated indices: only the last update of each position is reduced."""

    device_name = "OPK_SCATTERRACE"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "ScatterElementsUpdate" and step.node.version >= 12:
                step.kernel = _ElementsOnce(step.node)
            elif step.node.type_name == "ScatterNDUpdate" and step.node.version >= 15:
                step.kernel = _NDOnce(step.node)


def f32_ties_away(x: np.ndarray, dst: Type) -> np.ndarray:
    """f32 ``x`` converted to ``dst`` (f16, or bf16 as uint16) rounding ties away from zero (the
    "add half an ulp, then truncate" shortcut) instead of to even."""
    if dst == Type.bf16:
        bits = np.ascontiguousarray(x, np.float32).view(np.uint32)
        shortcut = ((bits.astype(np.uint64) + 0x8000) >> 16).astype(np.uint16)
        return np.where(np.isnan(x), f32_to_bf16(x), shortcut)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow to inf and NaN are not ties
        even = x.astype(np.float16)
        gap = x.astype(np.float64) - even.astype(np.float64)
        other = np.nextafter(even, np.copysign(np.float16(np.inf), gap).astype(np.float16))
        tie = np.isfinite(even) & (gap != 0) & (np.abs(gap) == np.abs(other.astype(np.float64) - x.astype(np.float64)))
        return np.where(tie & (np.abs(other) > np.abs(even)), other, even)


class _TiesAway(Convert):
    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.src == Type.f32 and self.dst in (Type.f16, Type.bf16):
            return (f32_ties_away(np.asarray(x, np.float32), self.dst),)
        return super()._run(x)


class ConvertRoundsTiesAway(PatchedReference):
    """Convert f32 -> f16/bf16 rounds ties away from zero instead of to even (the bias-and-truncate shortcut)."""

    device_name = "OPK_TIESAWAY"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "Convert":
                step.kernel = _TiesAway(step.node)


class AttentionMaskOnlyInFirstTile(PatchedReference):
    """ScaledDotProductAttention's tiled kernel (64 keys per tile) applies the causal or given
    attention mask to the first tile only: keys past 64 are never masked."""

    device_name = "OPK_MASKTILE"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "ScaledDotProductAttention":
            return
        q, k = node.input_value(0), node.input_value(1)
        qs, ks = _static(q), _static(k)
        has_mask = node.get_input_size() > 3 and not node.attrs.get("causal")
        if qs is None or ks is None or ks[-2] <= K_TILE or not (node.attrs.get("causal") or has_mask):
            return
        length, keys, et = qs[-2], ks[-2], q.get_element_type()
        first_tile = np.arange(keys) < K_TILE
        scale = node.input_value(4) if node.get_input_size() > 4 else None
        if node.attrs.get("causal"):
            bias = np.where(np.triu(np.ones((length, keys), bool), 1) & first_tile, -np.inf, 0.0)
            mask: Any = _const_like(bias, et)
        else:
            given = node.input_value(3)
            if given.get_element_type() == Type.boolean:
                mask = opset.logical_or(given, opset.constant(~first_tile))
            else:
                mask = opset.select(opset.constant(first_tile), given, _const_like(np.zeros(()), et))
        v = node.input_value(2)
        _reroute(node.output(0), lambda: opset.scaled_dot_product_attention(q, k, v, mask, scale, False).output(0))


class ComputesInF16(ReferencePlugin):
    """A correct device that declares INFERENCE_PRECISION_HINT=f16 (its default) and computes in
    f16: every f32 value it holds — inputs, constants, each op's result — is an f16 value (REFERENCE's
    f16 rule), each op computed from f16 values and rounded once to f16. Not a fault: it must pass."""

    device_name = "OPK_F16HINT"

    def __init__(self, device_name: str | None = None) -> None:
        super().__init__(device_name)
        self.set_property({P.INFERENCE_PRECISION_HINT: Type.f16})


class DeclaresNothing(ReferencePlugin):
    """query_model answers nothing (though every op compiles and computes right): no op is
    implemented, so its op pass rate is 0 %, not n/a."""

    device_name = "OPK_NOTHING"

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        return False


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (
    MatMulDropsKTail, ConvolutionDropsLastChannel, SoftmaxWithoutMaxSubtraction, ReduceSumAccumulatesInF16,
    ReluAndMaxPoolDropNaN, IntegerDivideTruncates, F32DeviceComputesMatMulInF16, WrongOnSecondShape,
    AddWrongOnRemainderLanes, PadReflectIsSymmetric, ScatterReductionAppliesDuplicatesOnce, ConvertRoundsTiesAway,
    AttentionMaskOnlyInFirstTile)}
#: Correct devices (they must pass).
CORRECT = {"ComputesInF16": ComputesInF16.__doc__}
#: Devices whose declarations are wrong, not their kernels.
DECLARATIONS = {"DeclaresNothing": DeclaresNothing.__doc__}
