"""REFERENCE variants with one realistic accelerator-kernel bug each (issue #20), and a correct
device that computes in f16, for ``tests/ops/test_op_kernel_faults.py``
(``--plugin=op_kernel_faults:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each fault lives in the device's own compile step — a rewrite of its private copy of the model,
or a kernel of its own in place of REFERENCE's for the affected nodes — never in the shared
REFERENCE kernels: the oracle runs in the same process and must stay right. ``query_model`` is
REFERENCE's (the devices claim the ops they get wrong). Every fault shows only where the issue
says kernels break: a tile past K = 64, 16 or more input channels, logits whose exponentials
overflow, long f32 sums, NaN, negative integer quotients, a second shape, the remainder lanes.
Device names avoid op names, so a ``-k`` selecting ops does not select a device's every test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform import properties as P
from ovconform.ir import Model, Node, Output, Type, f32_to_bf16
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops._common_types import store
from reference_plugin.ops.op_reduce_sum import ReduceSum
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

#: The width of the tile / vector the faulty kernels get wrong past.
K_TILE = 64
CHANNEL_BLOCK = 16
LANES = 8


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


class _Rewriting(ReferencePlugin):
    """Rewrites its private copy of the model (``_rewrite`` per node) before REFERENCE compiles it;
    ``_patch`` may replace kernels of the compiled program (after compile and import alike)."""

    def _rewrite(self, node: Node) -> None:
        del node

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        del compiled

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for node in list(model.get_ordered_ops()):
            self._rewrite(node)
        compiled = super()._compile_model(model, config, context)
        self._patch(compiled)
        return compiled

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        compiled = super()._import_model(blob, config, context)
        self._patch(compiled)
        return compiled


class MatMulDropsKTail(_Rewriting):
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


class ConvolutionDropsLastChannel(_Rewriting):
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


class SoftmaxWithoutMaxSubtraction(_Rewriting):
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


class ReduceSumAccumulatesInF16(_Rewriting):
    """ReduceSum of f32 data keeps its running sum in f16."""

    device_name = "OPK_HALFACC"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            node = step.node
            if node.type_name == "ReduceSum" and node.get_input_element_type(0) == Type.f32:
                step.kernel = F16AccumulatingReduceSum(node)


class ReluAndMaxPoolDropNaN(_Rewriting):
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


class IntegerDivideTruncates(_Rewriting):
    """Integer Divide rounds the quotient toward zero even when the spec asks for floor division."""

    device_name = "OPK_TRUNCQUOT"

    def _rewrite(self, node: Node) -> None:
        if node.type_name == "Divide" and not node.get_output_element_type(0).is_real():
            node.attrs["m_pythondiv"] = False


class F32DeviceComputesMatMulInF16(_Rewriting):
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


class WrongOnSecondShape(_Rewriting):
    """A dynamically-shaped compiled model is right on the first input shape it runs and wrong on
    a larger second one (output buffers sized for the first shape)."""

    device_name = "OPK_SECONDSHAPE"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        if any(p.get_output_partial_shape(0).is_dynamic for p in compiled.program.model.get_parameters()):
            compiled.sync_request_class = _FirstShapeBuffers  # type: ignore[misc]


class AddWrongOnRemainderLanes(_Rewriting):
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
    AddWrongOnRemainderLanes)}
#: Correct devices (they must pass).
CORRECT = {"ComputesInF16": ComputesInF16.__doc__}
#: Devices whose declarations are wrong, not their kernels.
DECLARATIONS = {"DeclaresNothing": DeclaresNothing.__doc__}
