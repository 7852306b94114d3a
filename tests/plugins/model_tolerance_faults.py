"""Devices for the model suite's depth-aware tolerance (``suites/test_real_models.py``;
``--plugin=model_tolerance_faults:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

:class:`ComputesInBF16` is correct: it declares ``INFERENCE_PRECISION_HINT=bf16`` and holds every
f32 value as a bf16 value (REFERENCE's f16 rule, with bf16's rounding): inputs, constants, each
op's result and each variable read, each op computed from bf16 values (accumulating in f32, as
bf16 hardware does) and rounded once. It must pass every quick model.

The faults are that device with one thing wrong, each a fault the old fixed bf16 model bound
``(64e, 16e)`` (atol 0.5, rtol 0.125) let through:

* :class:`BF16LongMatMulAccumulatesInBF16`: MatMuls reducing 256 or more terms keep their
  running sum in bf16 (a kernel without the f32 accumulator bf16 hardware has);
* :class:`BF16NormSumsInBF16`: the mean of RMSNorm/MVN (ReduceMean, MVN) sums sequentially in bf16;
* :class:`BF16KvCacheDrifts`: every run moves each KV-cache entry one bf16 unit in the last place
  toward zero (a re-store of the cache that truncates once too often), so the error grows with
  every decode step.

The faults live in the device's own program, never in the shared REFERENCE kernels (the oracle
runs in the same process).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ovconform import properties as P
from ovconform.ir import Model, Node, Type
from reference_plugin.compiled_model import Program, ReferenceCompiledModel, Step
from reference_plugin.ops import OpRun
from reference_plugin.ops.op_gru_sequence import GRUSequence5
from reference_plugin.ops.op_lstm_sequence import LSTMSequence5
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

#: MatMuls reducing at least this many terms accumulate in bf16 on the faulty device.
LONG_K = 256
#: bf16 units in the last place every KV-cache entry loses per run on the drifting device.
KV_DRIFT_ULPS = 1


def round_bf16(array: np.ndarray) -> np.ndarray:
    """float32 ``array`` rounded to the nearest bf16 value (ties to even; NaN stays NaN), as float32."""
    a = np.ascontiguousarray(array, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), a, rounded).reshape(a.shape)


def shrink_bf16(array: np.ndarray, ulps: int) -> np.ndarray:
    """``array`` rounded to bf16, then every non-zero finite value moved ``ulps`` bf16 units toward zero."""
    bits = round_bf16(array).view(np.uint32)
    magnitude = (bits & 0x7FFFFFFF).astype(np.int64)
    finite = magnitude < 0x7F800000
    moved = np.where(finite, np.maximum(magnitude - ulps * 0x10000, 0), magnitude)
    return ((bits & 0x80000000) | moved.astype(np.uint32)).view(np.float32)


class _BF16Program(Program):
    """A Program whose rounding rule rounds to bf16 (built with precision f16 so every f32 output,
    input, constant and variable read gets a rounding step)."""

    def _rounded(self, step: Step, outs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return tuple(round_bf16(o) if r else o for o, r in zip(outs, step.rounding, strict=True))


class ComputesInBF16(ReferencePlugin):
    """A correct device that declares INFERENCE_PRECISION_HINT=bf16 (its default) and holds every f32
    value as bf16: each op computed from bf16 values, accumulating in f32, rounded once. Must pass."""

    device_name = "MTOL_BF16"
    inference_precisions = (Type.bf16, Type.f32)

    def __init__(self, device_name: str | None = None) -> None:
        super().__init__(device_name)
        self.set_property({P.INFERENCE_PRECISION_HINT: Type.bf16})

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        compiled = super()._compile_model(model, config, context)
        if compiled.config.get(P.INFERENCE_PRECISION_HINT) == Type.bf16:
            compiled._program = _BF16Program(compiled.program.model, Type.f16)
            self._patch(compiled)
        return compiled

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        """Where a fault goes (nothing on the correct device)."""


class _BF16SumMatMul(OpRun):
    """MatMul whose running sum over K is rounded to bf16 after every term: the products are
    exact in f32, the accumulator is bf16."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.ta, self.tb = bool(node.attrs.get("transpose_a")), bool(node.attrs.get("transpose_b"))

    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        vector_a, vector_b = np.ndim(a) == 1, np.ndim(b) == 1
        a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
        a = a[None, :] if vector_a else (np.swapaxes(a, -1, -2) if self.ta else a)
        b = b[:, None] if vector_b else (np.swapaxes(b, -1, -2) if self.tb else b)
        total = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]), np.float32)
        for k in range(a.shape[-1]):
            total = round_bf16(total + a[..., :, k:k + 1] * b[..., k:k + 1, :])
        if vector_b:
            total = total[..., 0]
        return (total[..., 0, :] if vector_a and not vector_b else (total[..., 0] if vector_a else total),)


def inner_size(node: Node) -> int:
    """A MatMul's reduced length K, from whichever input has it static (0 when neither does)."""
    for port, transposed, axis in ((0, "transpose_a", -1), (1, "transpose_b", -2)):
        shape = node.get_input_partial_shape(port)
        if shape.rank.is_static and shape.rank.get_length() >= 1:
            dim = shape[-1] if shape.rank.get_length() == 1 else shape[axis if not node.attrs.get(transposed)
                                                                          else (-2 if axis == -1 else -1)]
            if dim.is_static:
                return int(dim.get_length())
    return 0


class BF16LongMatMulAccumulatesInBF16(ComputesInBF16):
    """Declares bf16 but MatMuls of 256 or more terms keep their running sum in bf16 (no f32 accumulator)."""

    device_name = "MTOL_BF16_LONGK"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            node = step.node
            if node.type_name == "MatMul" and step.fixed is None and inner_size(node) >= LONG_K:
                step.kernel = _BF16SumMatMul(node)


class _BF16SequentialMean(OpRun):
    """ReduceMean over the last axis whose sum runs sequentially in bf16 (other axes: exact)."""

    def _run(self, data: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        data = np.asarray(data, np.float32)
        keep = bool(self.node.attrs.get("keep_dims"))
        picked = tuple(sorted({int(a) % data.ndim for a in np.atleast_1d(axes)}))
        if picked != (data.ndim - 1,):
            return (np.mean(data, axis=picked, keepdims=keep, dtype=np.float64).astype(np.float32),)
        total = np.zeros(data.shape[:-1], np.float32)
        for k in range(data.shape[-1]):
            total = round_bf16(total + data[..., k])
        mean = round_bf16(total / np.float32(data.shape[-1]))
        return (mean[..., None] if keep else mean,)


class BF16NormSumsInBF16(ComputesInBF16):
    """Declares bf16 but ReduceMean over the last axis (RMSNorm's mean square) sums sequentially in bf16."""

    device_name = "MTOL_BF16_NORMSUM"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "ReduceMean" and step.fixed is None:
                step.kernel = _BF16SequentialMean(step.node)


class _DriftingRequest(ReferenceSyncInferRequest):
    """After every run, every f32 variable of rank >= 3 (the KV cache) moves KV_DRIFT_ULPS bf16 ulps toward 0."""

    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        for state in self._states.values():
            value = state.get_state().data
            if value.ndim >= 3 and value.dtype == np.float32:
                state.set_state(shrink_bf16(value, KV_DRIFT_ULPS))


class _DriftingCompiledModel(ReferenceCompiledModel):
    sync_request_class = _DriftingRequest


class BF16KvCacheDrifts(ComputesInBF16):
    """Declares bf16 but every run moves each KV-cache entry one bf16 ulp toward zero (a drifting cache)."""

    device_name = "MTOL_BF16_KVDRIFT"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        compiled.__class__ = _DriftingCompiledModel


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0]
          for cls in (BF16LongMatMulAccumulatesInBF16, BF16NormSumsInBF16, BF16KvCacheDrifts)}
#: Correct devices (they must pass).
CORRECT = {"ComputesInBF16": (ComputesInBF16.__doc__ or "").split("\n")[0]}


def _state_in_f16(formula: type[OpRun]) -> type[OpRun]:
    """``formula`` whose outputs (every step's hidden state, the last hidden and cell states) are
    kept in f16: the state an accelerator holds in half precision while it declares f32."""

    class StateInF16(formula):  # type: ignore[valid-type,misc]
        def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
            return tuple(o.astype(np.float16).astype(o.dtype) if o.dtype == np.float32 else o
                         for o in super()._run(*inputs))

    StateInF16.__name__ = f"{formula.__name__}StateInF16"
    return StateInF16


class RecurrentStateInF16(PatchedReference):
    """Declares f32 (REFERENCE's default) but LSTMSequence and GRUSequence keep their states in f16:
    about 2.4e-4 relative, far above the recurrent layers' bound (K = input + hidden), which
    widened it for a fused kernel's f32 rounding."""

    device_name = "MTF_RNN_F16_STATE"
    kernels = {"LSTMSequence": {5: _state_in_f16(LSTMSequence5)}, "GRUSequence": {5: _state_in_f16(GRUSequence5)}}
