"""BatchNormInference-1 (inputs gamma, beta, data, mean, variance) and -5 (data, gamma, beta, mean,
variance): ``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` per channel (dim 1), in
float64, rounded once."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from ovconform.opset._normalization import BATCH_NORM_ORDER
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_norm import store_float, to_f64


@register_op("BatchNormInference", since=1)
class BatchNormInference1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.eps: float = self.attr("epsilon")
        self.order = BATCH_NORM_ORDER[node.version if node.version in BATCH_NORM_ORDER else 5]

    def _run(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        v = {name: to_f64(a, t) for name, a in zip(self.order, arrays, strict=True)}
        x = v["data"]
        channels = x.shape[1]
        for name in ("gamma", "beta", "mean", "variance"):
            if v[name].shape != (channels,):
                raise self.fail(f"{name} has shape {list(v[name].shape)}; expected [{channels}] for data of shape "
                                f"{list(x.shape)}.")
        shape = (1, channels) + (1,) * (x.ndim - 2)
        scale = (v["gamma"] / np.sqrt(v["variance"] + self.eps)).reshape(shape)
        y = (x - v["mean"].reshape(shape)) * scale + v["beta"].reshape(shape)
        return (store_float(y, self.out_types[0]),)


@register_op("BatchNormInference", since=5)
class BatchNormInference5(BatchNormInference1):
    """BatchNormInference-5: the data comes first."""
