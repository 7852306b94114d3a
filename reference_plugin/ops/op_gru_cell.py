"""GRUCell-3: gates ``zrh``; ``linear_before_reset`` applies the reset gate after the recurrent product
(``B`` then has 4 blocks: ``Wbz + Rbz``, ``Wbr + Rbr``, ``Wbh``, ``Rbh``). ``B`` is optional: zeros when absent."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_recurrent import RecurrentOp, gru_step


@register_op("GRUCell", since=3)
class GRUCell3(RecurrentOp):
    kind = "GRU"

    def _run(self, x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray,
             b: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        bias = np.zeros((4 if self.spec.linear_before_reset else 3) * self.hidden) if b is None else self.f64(b)
        return self.out(gru_step(self.spec, self.f64(x), self.f64(h), self.f64(w), self.f64(r), bias))
