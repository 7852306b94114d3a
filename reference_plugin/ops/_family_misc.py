"""Kernel modules of the "misc" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = (
    "op_convert_promote_types", "op_gather_tree",
    "op_embedding_segments_sum", "op_embedding_bag_offsets_sum", "op_embedding_bag_packed_sum",
    "op_embedding_bag_offsets", "op_embedding_bag_packed",
    "op_extract_image_patches", "op_ctc_greedy_decoder", "op_ctc_greedy_decoder_seq_len",
    "op_nv12_to_rgb", "op_nv12_to_bgr", "op_i420_to_rgb", "op_i420_to_bgr",
    "op_reorg_yolo", "op_region_yolo", "op_grid_sample", "op_roi_pooling", "op_psroi_pooling", "op_random_uniform",
    "op_multinomial",
)
