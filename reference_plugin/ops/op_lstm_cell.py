"""LSTMCell-1 and LSTMCell-4: gates ``fico``; outputs ``Ho``, ``Co``.

LSTMCell-1's ``B`` is optional (zero biases when absent, as its spec says). Beyond the spec,
``ov::op::v0::LSTMCell`` has optional peepholes ``P [3 * hidden_size]`` in ``iof`` order
(``it``/``ft`` add ``Pi``/``Pf (.) Ct-1``, ``ot`` adds ``Po (.) Ct``), ``input_forget``
(``ft = 1 - it``) and ``weights_format`` (the gate order of ``W``, ``R`` and ``B``: ``fico``,
``icof``, ``ifco``, ``ifoc`` or ``iofc``); this kernel implements them as that class documents.
OpenVINO CPU ignores all three (it computes the plain ``fico`` cell), so the case strategy keeps
them at their defaults.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_recurrent import RecurrentOp, lstm_step


def to_fico(a: np.ndarray, weights_format: str) -> np.ndarray:
    """Gate blocks along axis 0 of ``a``, reordered from ``weights_format`` to ``fico``."""
    blocks = dict(zip(weights_format, np.split(a, 4, axis=0), strict=True))
    return np.concatenate([blocks[g] for g in "fico"], axis=0)


@register_op("LSTMCell", since=1)
class LSTMCell1(RecurrentOp):
    kind = "LSTM"

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.weights_format: str = node.attrs.get("weights_format", "fico")

    def _run(self, x: np.ndarray, h: np.ndarray, c: np.ndarray, w: np.ndarray, r: np.ndarray,
             b: np.ndarray | None = None, p: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        bias = np.zeros(w.shape[0]) if b is None else self.f64(b)
        w64, r64, b64 = (to_fico(a, self.weights_format) for a in (self.f64(w), self.f64(r), bias))
        peep = None if p is None else self.f64(p)
        return self.out(*lstm_step(self.spec, self.f64(x), self.f64(h), self.f64(c), w64, r64, b64, peep))


@register_op("LSTMCell", since=4)
class LSTMCell4(LSTMCell1):
    """LSTMCell-4: no peepholes, input_forget or weights_format (always ``fico``)."""
