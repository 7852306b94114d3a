"""GroupNormalization-12: the channels (dim 1) split into ``num_groups`` groups; each group of
each batch item (with all spatial dims) is normalised with its mean and population variance,
``(x - mean) / sqrt(var + epsilon)``, then ``* scale[c] + bias[c]``. Float64, rounded once."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_norm import mean_variance, store_float, to_f64


@register_op("GroupNormalization", since=12)
class GroupNormalization(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.groups: int = self.attr("num_groups")
        self.eps: float = self.attr("epsilon")

    def _run(self, x: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        n, c = x.shape[0], x.shape[1]
        if c % self.groups:
            raise self.fail(f"channel dim {c} does not divide into num_groups={self.groups}.")
        for name, v in (("scale", scale), ("bias", bias)):
            if v.shape != (c,):
                raise self.fail(f"{name} has shape {list(v.shape)}; expected [{c}].")
        grouped = to_f64(x, t).reshape(n, self.groups, -1)
        centred, var = mean_variance(grouped, (2,))
        y = (centred / np.sqrt(var + self.eps)).reshape(x.shape)
        shape = (1, c) + (1,) * (x.ndim - 2)
        y = y * to_f64(scale, t).reshape(shape) + to_f64(bias, t).reshape(shape)
        return (store_float(y, self.out_types[0]),)
