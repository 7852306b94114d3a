"""Case strategies of the "advanced" family (planned: ConvolutionBackpropData-1, GroupConvolutionBackpropData-1, AdaptiveAvgPool-8, AdaptiveMaxPool-8, Interpolate-1/4/11, Einsum-7, ScaledDotProductAttention-13, FakeQuantize-1, Inverse-14, Col2Im-15)."""

from __future__ import annotations
