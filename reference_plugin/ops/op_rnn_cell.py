"""RNNCell-1 (``ov::op::v0::RNNCell``): ``Ho = f(clip(X*W^T + H*R^T + B))``."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_recurrent import RecurrentOp, rnn_step


@register_op("RNNCell", since=1)
class RNNCell1(RecurrentOp):
    kind = "RNN"

    def _run(self, x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        return self.out(rnn_step(self.spec, *(self.f64(a) for a in (x, h, w, r, b))))
