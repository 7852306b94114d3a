"""Builders of the tier-3 "detect" family, one module per op group:

* PriorBox-1/8, PriorBoxClustered-1 (:mod:`ovconform.opset._detect_prior`);
* ROIAlign-3/9, ROIAlignRotated-15 (:mod:`ovconform.opset._detect_roi`);
* CTCLoss-4 (:mod:`ovconform.opset._detect_ctc`);
* DeformableConvolution-1/8 (:mod:`ovconform.opset._detect_deform`);
* FakeConvert-13 (:mod:`ovconform.opset._detect_fake_convert`);
* SparseFillEmptyRows-16 (:mod:`ovconform.opset._detect_sparse`);
* NonMaxSuppression-1/3/4/5/9 (:mod:`ovconform.opset._detect_nms`);
* DeformablePSROIPooling-1 (:mod:`ovconform.opset._detect_dpsroi`);
* DetectionOutput-1/8 (:mod:`ovconform.opset._detect_do`);
* Proposal-1/4 (:mod:`ovconform.opset._detect_proposal`).

Not here: BinaryConvolution-1, whose filters are of element type u1, which ``ovconform.ir`` does
not have (OpenVINO CPU refuses other filter types).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

from ovconform.opset._detect_ctc import ctc_loss
from ovconform.opset._detect_deform import deformable_convolution
from ovconform.opset._detect_do import detection_output
from ovconform.opset._detect_dpsroi import deformable_psroi_pooling
from ovconform.opset._detect_fake_convert import fake_convert
from ovconform.opset._detect_nms import non_max_suppression
from ovconform.opset._detect_prior import prior_box, prior_box_clustered
from ovconform.opset._detect_proposal import proposal
from ovconform.opset._detect_roi import roi_align, roi_align_rotated
from ovconform.opset._detect_sparse import sparse_fill_empty_rows

__all__: list[str] = [
    "ctc_loss", "deformable_convolution", "deformable_psroi_pooling", "detection_output", "fake_convert",
    "non_max_suppression", "prior_box", "prior_box_clustered", "proposal", "roi_align", "roi_align_rotated",
    "sparse_fill_empty_rows",
]
