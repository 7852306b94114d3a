"""Case strategies of the "detect" family (planned: PriorBox-1/8, PriorBoxClustered-1, ROIAlign-3/9, ROIAlignRotated-15, DeformableConvolution-1/8, DeformablePSROIPooling-1, CTCLoss-4, NonMaxSuppression-1/3/4/5/9, DetectionOutput-1/8, Proposal-1/4, BinaryConvolution-1, FakeConvert-13, SparseFillEmptyRows-16)."""

from __future__ import annotations
