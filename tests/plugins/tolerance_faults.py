"""Devices for the error models of issue #20: ScaledDotProductAttention computed at a
declared precision, right or wrong, and a DFT off by a relative 1e-3 on long transforms, for
``tests/ops/test_tolerance_models.py`` (``--plugin=tolerance_faults:<Class>`` with
``tests/plugins`` on ``PYTHONPATH``).

As in ``op_kernel_faults.py``, every fault lives in the device's own compiled program (a kernel
of its own for the affected nodes, or a rewrite of its private copy of the model), never in the
shared REFERENCE kernels: the oracle runs in the same process. query_model is REFERENCE's.

:class:`AttentionKernel` is attention as a device computing in f16 or bf16 does it, every step
rounded to that precision: QKᵀ and PV as blocked sums (blocks of :data:`BLOCK` terms, the blocks
added pairwise, each partial sum rounded), the scale, the mask, ``x - max``, ``exp`` and the
normaliser rounded, the weights rounded before PV.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import opset
from ovconform import properties as P
from ovconform.ir import Model, Type, bf16_to_f32, f32_to_bf16
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops._common_types import from_compute, to_compute
from reference_plugin.ops.op_scaled_dot_product_attention import ScaledDotProductAttention
from reference_plugin.plugin import ReferencePlugin

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

#: Terms a blocked sum adds exactly before it rounds (a vector register's width of products).
BLOCK = 4
#: The transformed length from which the faulty DFT takes its long-transform path.
LONG_DFT = 4096
#: The faulty DFT's relative error on that path.
DFT_ERROR = 1e-3


def rounder(precision: Type) -> Any:
    """``r(x)``: float64 ``x`` rounded to ``precision`` (f16, bf16, f32), kept as float64."""
    def r(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            if precision == Type.f16:
                return np.asarray(x).astype(np.float16).astype(np.float64)
            if precision == Type.bf16:
                return bf16_to_f32(f32_to_bf16(np.asarray(x, np.float32))).astype(np.float64)
            return np.asarray(x).astype(np.float32).astype(np.float64)

    return r


def pairwise_sum(terms: np.ndarray, r: Any) -> np.ndarray:
    """The sum over the last axis, added pairwise with every partial sum rounded by ``r``."""
    x = terms
    while x.shape[-1] > 1:
        if x.shape[-1] % 2:
            x = np.concatenate([x, np.zeros_like(x[..., :1])], axis=-1)
        x = r(x[..., 0::2] + x[..., 1::2])
    return x[..., 0] if x.shape[-1] else np.zeros(x.shape[:-1])


def blocked_matmul(a: np.ndarray, b: np.ndarray, r: Any) -> np.ndarray:
    """``a @ b`` with blocks of :data:`BLOCK` terms summed exactly and rounded, the blocks added pairwise."""
    k = a.shape[-1]
    parts = [r(np.matmul(a[..., s:s + BLOCK], b[..., s:s + BLOCK, :])) for s in range(0, k, BLOCK)]
    return pairwise_sum(np.stack(parts, axis=-1), r)


class AttentionKernel(ScaledDotProductAttention):
    """ScaledDotProductAttention computed at ``precision`` (f32 outputs; f16/bf16 inputs at their own
    type, f64 exactly). ``scaled=False`` omits the scale; ``softmax_precision`` computes the softmax
    (only) at another precision."""

    precision = Type.f16
    scaled = True
    softmax_precision: Type | None = None

    def _run(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        p = self.precision if t == Type.f32 else t
        if p == Type.f64:
            return super()._run(q, k, v, *rest)
        r = rounder(p)
        rs = rounder(self.softmax_precision or p)
        q64, k64, v64 = (r(to_compute(a, t).astype(np.float64)) for a in (q, k, v))
        factor = float(to_compute(rest[1], t).reshape(-1)[0]) if len(rest) > 1 else 1.0 / np.sqrt(q.shape[-1])
        scores = blocked_matmul(q64, np.swapaxes(k64, -1, -2), r)
        if self.scaled:
            scores = r(scores * r(np.float64(factor)))
        length, keys = q.shape[-2], k.shape[-2]
        with np.errstate(invalid="ignore", over="ignore"):
            if self.attr("causal"):
                scores = scores + np.triu(np.full((length, keys), -np.inf), k=1)
            elif rest:
                mask = rest[0]
                if mask.dtype == np.bool_:
                    scores = scores + np.where(mask, 0.0, -np.inf)
                else:
                    scores = r(scores + r(to_compute(mask, self.in_types[3]).astype(np.float64)))
            scores = rs(scores)
            shifted = rs(scores - np.max(scores, axis=-1, keepdims=True))
            e = rs(np.exp(shifted))
            weights = r(e / pairwise_sum(e, rs)[..., None])
        return (from_compute(blocked_matmul(weights, v64, r), self.out_types[0]),)


class _AttentionDevice(PatchedReference):
    """REFERENCE with :attr:`kernel` for every ScaledDotProductAttention (after compile and import)."""

    kernel: type[AttentionKernel] = AttentionKernel

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "ScaledDotProductAttention":
                step.kernel = self.kernel(step.node)


def _kernel(name: str, precision: Type, scaled: bool = True, softmax: Type | None = None) -> type[AttentionKernel]:
    return type(name, (AttentionKernel,), {"precision": precision, "scaled": scaled, "softmax_precision": softmax})


class AttentionInF16(_AttentionDevice):
    """Correct: declares INFERENCE_PRECISION_HINT=f16 (REFERENCE's f16 rule for every other op) and
    computes attention in f16, every step rounded to f16. Must pass."""

    device_name = "TOL_ATTN_F16"
    kernel = _kernel("F16Attention", Type.f16)

    def __init__(self, device_name: str | None = None) -> None:
        super().__init__(device_name)
        self.set_property({P.INFERENCE_PRECISION_HINT: Type.f16})


class AttentionInBF16(_AttentionDevice):
    """Correct: declares INFERENCE_PRECISION_HINT=bf16 and computes attention in bf16, every step
    rounded to bf16 (the other ops exactly, which a bf16 bound allows). Must pass."""

    device_name = "TOL_ATTN_BF16"
    inference_precisions = (Type.bf16, Type.f32)
    kernel = _kernel("BF16Attention", Type.bf16)


class AttentionWithoutScale(_AttentionDevice):
    """Declares f32 and computes attention in f32, but never multiplies the logits by the scale."""

    device_name = "TOL_ATTN_NOSCALE"
    kernel = _kernel("UnscaledAttention", Type.f32, scaled=False)


class AttentionSoftmaxInF16(_AttentionDevice):
    """Declares f32 and computes QKᵀ and PV in f32, but the softmax in f16."""

    device_name = "TOL_ATTN_SOFTMAX16"
    kernel = _kernel("HalfSoftmaxAttention", Type.f32, softmax=Type.f16)


class BF16AttentionWithoutScale(_AttentionDevice):
    """Declares bf16 and computes attention in bf16, but never multiplies the logits by the scale."""

    device_name = "TOL_ATTN_BF16_NOSCALE"
    inference_precisions = (Type.bf16, Type.f32)
    kernel = _kernel("UnscaledBF16Attention", Type.bf16, scaled=False)


class DFTOffOnLongTransforms(ReferencePlugin):
    """DFT/IDFT/RDFT/IRDFT whose long-transform path (static, transformed length >= 4096) is off by a
    relative 1e-3 (a twiddle table in reduced precision)."""

    device_name = "TOL_DFT_LONG"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        from ovconform.tolerances import SIGNAL_OPS, reduction_size

        for node in list(model.get_ordered_ops()):
            et = node.get_output_element_type(0) if node.type_name in SIGNAL_OPS else None
            if et in (Type.f32, Type.f16, Type.f64) and (reduction_size(node) or 0) >= LONG_DFT:
                out = node.output(0)
                targets = out.get_target_inputs()
                factor = opset.constant(np.array(1 + DFT_ERROR, et.to_dtype()), et)
                scaled = opset.multiply(out, factor).output(0)
                for target in targets:
                    target.replace_source_output(scaled)
        return super()._compile_model(model, config, context)


#: class name -> one-line description, by role.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (
    AttentionWithoutScale, AttentionSoftmaxInF16, BF16AttentionWithoutScale, DFTOffOnLongTransforms)}
CORRECT = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (AttentionInF16, AttentionInBF16)}
