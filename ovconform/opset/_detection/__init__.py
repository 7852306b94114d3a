"""Detection ops (OpenVINO's op-spec folder "detection"), one module per group:

* DetectionOutput-1/8 (:mod:`._output`);
* PriorBox-1/8, PriorBoxClustered-1 (:mod:`._prior`);
* Proposal-1/4 (:mod:`._proposal`);
* ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2, PSROIPooling-1, DeformablePSROIPooling-1
  (:mod:`._roi`);
* RegionYolo-1, ReorgYolo-2 (:mod:`._yolo`);
* ExperimentalDetectronPriorGridGenerator-6, ExperimentalDetectronROIFeatureExtractor-6,
  ExperimentalDetectronDetectionOutput-6 (:mod:`._detectron`);
* GenerateProposals-9, ExperimentalDetectronGenerateProposalsSingleImage-6 (:mod:`._generate_proposals`).

ExperimentalDetectronTopKROIs-6 is in the "sort" family. The NMS ops are in the "sort" family
(:mod:`ovconform.opset._sort`), as in OpenVINO's specification.
"""

from __future__ import annotations

from ovconform.opset._detection._detectron import (
    experimental_detectron_detection_output,
    experimental_detectron_prior_grid_generator,
    experimental_detectron_roi_feature_extractor,
)
from ovconform.opset._detection._generate_proposals import (
    experimental_detectron_generate_proposals_single_image,
    generate_proposals,
)
from ovconform.opset._detection._output import detection_output
from ovconform.opset._detection._prior import prior_box, prior_box_clustered
from ovconform.opset._detection._proposal import proposal
from ovconform.opset._detection._roi import (
    deformable_psroi_pooling,
    psroi_pooling,
    roi_align,
    roi_align_rotated,
    roi_pooling,
)
from ovconform.opset._detection._yolo import region_yolo, reorg_yolo

__all__ = [
    "deformable_psroi_pooling", "detection_output", "experimental_detectron_detection_output",
    "experimental_detectron_generate_proposals_single_image", "experimental_detectron_prior_grid_generator",
    "experimental_detectron_roi_feature_extractor", "generate_proposals", "prior_box", "prior_box_clustered",
    "proposal", "psroi_pooling", "region_yolo", "reorg_yolo", "roi_align", "roi_align_rotated", "roi_pooling"
]
