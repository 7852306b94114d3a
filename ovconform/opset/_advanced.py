"""Builders of the tier-2/3 "advanced" family (planned: ConvolutionBackpropData-1, GroupConvolutionBackpropData-1, AdaptiveAvgPool-8, AdaptiveMaxPool-8, Interpolate-1/4/11, Einsum-7, ScaledDotProductAttention-13, FakeQuantize-1, Inverse-14, Col2Im-15).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
