"""Kernel modules of one tier-2 family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_reduce_min", "op_reduce_prod", "op_reduce_l1", "op_reduce_l2", "op_reduce_logical_and",
    "op_reduce_logical_or", "op_log_softmax",
    "op_bitwise_and", "op_bitwise_or", "op_bitwise_xor", "op_bitwise_not",
    "op_bitwise_left_shift", "op_bitwise_right_shift",
)
