"""Builders of the tier-2/3 "norm" family (planned: MVN-1/6, NormalizeL2-1, BatchNormInference-1/5, GroupNormalization-12, LRN-1, GRN-1, CumSum-3, Range-1/4, Eye-9, OneHot-1).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
