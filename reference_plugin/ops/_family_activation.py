"""Kernel modules of one tier-2 family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_hswish", "op_hsigmoid", "op_softplus", "op_softsign", "op_mish", "op_swish", "op_elu", "op_selu",
    "op_hard_sigmoid", "op_prelu", "op_is_nan", "op_is_inf", "op_is_finite", "op_identity",
)
