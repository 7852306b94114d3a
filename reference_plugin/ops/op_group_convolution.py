"""GroupConvolution-1: filters ``[GROUPS, C_OUT/GROUPS, C_IN/GROUPS, *kernel]``; each group convolves
its slice of the input channels (as Convolution-1 does), the outputs concatenated by group."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops.op_convolution import Convolution


@register_op("GroupConvolution", since=1)
class GroupConvolution(Convolution):
    filter_lead = 3

    def _grouped(self, w: np.ndarray) -> np.ndarray:
        return w
