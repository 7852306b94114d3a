"""Kernel modules of one tier-2 family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_sin", "op_cos", "op_tan", "op_asin", "op_acos", "op_atan", "op_sinh", "op_cosh",
    "op_asinh", "op_acosh", "op_atanh", "op_floor", "op_ceiling", "op_sign", "op_round",
)
