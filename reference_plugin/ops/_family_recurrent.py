"""Kernel modules of the "recurrent" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_rnn_cell", "op_gru_cell", "op_lstm_cell", "op_rnn_sequence", "op_gru_sequence", "op_lstm_sequence",
)
