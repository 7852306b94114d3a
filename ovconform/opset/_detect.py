"""Builders of the tier-3 "detect" family (planned: PriorBox-1/8, PriorBoxClustered-1, ROIAlign-3/9, ROIAlignRotated-15, DeformableConvolution-1/8, DeformablePSROIPooling-1, CTCLoss-4, NonMaxSuppression-1/3/4/5/9, DetectionOutput-1/8, Proposal-1/4, BinaryConvolution-1, FakeConvert-13, SparseFillEmptyRows-16).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
