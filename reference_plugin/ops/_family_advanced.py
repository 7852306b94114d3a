"""Kernel modules of the "advanced" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_adaptive_avg_pool", "op_adaptive_max_pool", "op_fake_quantize", "op_inverse", "op_einsum",
    "op_scaled_dot_product_attention", "op_convolution_backprop_data", "op_group_convolution_backprop_data",
    "op_col2im", "op_interpolate",
)
