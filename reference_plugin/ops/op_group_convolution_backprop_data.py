"""GroupConvolutionBackpropData-1: ConvolutionBackpropData-1 per group; filters
``[G, C_IN/G, C_OUT/G, *kernel]``, output channels ``G·C_OUT/G``."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops.op_convolution_backprop_data import ConvolutionBackpropData


@register_op("GroupConvolutionBackpropData", since=1)
class GroupConvolutionBackpropData(ConvolutionBackpropData):
    filter_lead = 3

    def _grouped(self, w: np.ndarray) -> np.ndarray:
        return w
