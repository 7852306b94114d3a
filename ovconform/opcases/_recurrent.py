"""Case strategies of the "recurrent" family (planned: RNNCell-0, LSTMCell-1/4, GRUCell-3, RNNSequence-5, LSTMSequence-1/5, GRUSequence-5)."""

from __future__ import annotations
