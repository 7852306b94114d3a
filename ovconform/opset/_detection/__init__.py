"""Detection ops (OpenVINO's op-spec folder "detection"), one module per group:

* DetectionOutput-1/8 (:mod:`._output`);
* PriorBox-1/8, PriorBoxClustered-1 (:mod:`._prior`);
* Proposal-1/4 (:mod:`._proposal`);
* ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2, PSROIPooling-1, DeformablePSROIPooling-1
  (:mod:`._roi`);
* RegionYolo-1, ReorgYolo-2 (:mod:`._yolo`).

Not here yet: GenerateProposals-9. The NMS ops are in the "sort" family
(:mod:`ovconform.opset._sort`), as in OpenVINO's specification.
"""

from __future__ import annotations

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
    "deformable_psroi_pooling", "detection_output", "prior_box", "prior_box_clustered", "proposal", "psroi_pooling",
    "region_yolo", "reorg_yolo", "roi_align", "roi_align_rotated", "roi_pooling"
]
