"""Kernel modules of the "detect" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = ("op_prior_box", "op_prior_box_clustered", "op_roi_align", "op_roi_align_rotated",
                              "op_ctc_loss", "op_deformable_convolution", "op_fake_convert",
                              "op_sparse_fill_empty_rows", "op_non_max_suppression",
                              "op_deformable_psroi_pooling", "op_detection_output", "op_proposal")
