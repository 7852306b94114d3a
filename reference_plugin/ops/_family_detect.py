"""Kernel modules of the "detect" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = ("op_prior_box", "op_prior_box_clustered", "op_roi_align", "op_roi_align_rotated",
                              "op_ctc_loss", "op_deformable_convolution", "op_fake_convert",
                              "op_sparse_fill_empty_rows", "op_non_max_suppression",
                              "op_deformable_psroi_pooling", "op_detection_output", "op_proposal",
                              # opset6's ExperimentalDetectron ops and GenerateProposals-9
                              "op_experimental_detectron_topk_rois", "op_experimental_detectron_prior_grid_generator",
                              "op_experimental_detectron_roi_feature_extractor", "op_generate_proposals",
                              "op_experimental_detectron_generate_proposals_single_image",
                              "op_experimental_detectron_detection_output")
