"""Kernel modules of the "layout" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_tile", "op_roll", "op_depth_to_space", "op_space_to_depth", "op_shuffle_channels", "op_reverse_sequence",
    "op_reverse", "op_pad", "op_slice", "op_slice_scatter", "op_batch_to_space", "op_space_to_batch",
)
