"""ScaledDotProductAttention-13, as the spec's pseudo-code, in float64:
``softmax(Q·Kᵀ·scale + bias, axis=-1)·V`` with ``scale = 1/sqrt(E)`` unless given; ``bias`` is
``-inf`` above the diagonal when ``causal`` (the mask input is then ignored), ``-inf`` where a
boolean mask is False, or a float mask added as is. A row masked everywhere gives NaN."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("ScaledDotProductAttention", since=13)
class ScaledDotProductAttention(OpRun):
    def _run(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        q64, k64, v64 = (to_compute(a, t).astype(np.float64) for a in (q, k, v))
        if len(rest) > 1:
            scale = to_compute(rest[1], t).astype(np.float64).reshape(-1)
            if scale.size != 1:
                raise self.fail(f"scale must hold one value; got shape {list(rest[1].shape)}.")
            factor = float(scale[0])
        else:
            factor = 1.0 / np.sqrt(q.shape[-1])
        scores = np.matmul(q64, np.swapaxes(k64, -1, -2)) * factor
        length, s_len = q.shape[-2], k.shape[-2]
        if self.attr("causal"):
            scores = scores + np.triu(np.full((length, s_len), -np.inf), k=1)
        elif rest:
            mask = rest[0]
            if mask.dtype == np.bool_:
                scores = scores + np.where(mask, 0.0, -np.inf)
            else:
                scores = scores + to_compute(mask, self.in_types[3]).astype(np.float64)
        peak = np.max(scores, axis=-1, keepdims=True)
        e = np.exp(scores - peak)
        weights = e / np.sum(e, axis=-1, keepdims=True)
        return (from_compute(np.matmul(weights, v64), self.out_types[0]),)
