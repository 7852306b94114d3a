"""Kernel modules of the "norm" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_mvn", "op_normalize_l2", "op_batch_norm_inference", "op_group_normalization", "op_lrn", "op_grn",
    "op_cum_sum", "op_range", "op_eye", "op_one_hot",
)
