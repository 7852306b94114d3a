"""Builders of the tier-2/3 "recurrent" family (planned: RNNCell-0, LSTMCell-1/4, GRUCell-3, RNNSequence-5, LSTMSequence-1/5, GRUSequence-5).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
