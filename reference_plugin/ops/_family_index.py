"""Kernel modules of the "index" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_gather_elements", "op_gather_nd", "op_scatter_update", "op_scatter_elements_update",
    "op_scatter_nd_update", "op_topk", "op_non_zero", "op_bucketize", "op_search_sorted",
    "op_unique", "op_segment_max",
)
