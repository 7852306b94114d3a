"""ConvolutionBackpropData-1 (transposed convolution): data ``[N, C_IN, *spatial]``, filters
``[C_IN, C_OUT, *kernel]``, optional ``output_shape``. Computed as a direct convolution of the
stride-upsampled, padded data with the flipped filters (:mod:`reference_plugin.ops._common_conv`);
floats accumulate in float64, integers in int64 and then wrap. The crop and output sizes follow
:mod:`ovconform.opset._convolution`."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_advanced import backprop_crop, int_values, transposed_conv
from reference_plugin.ops._common_types import accumulate_dtype, store, to_compute


@register_op("ConvolutionBackpropData", since=1)
class ConvolutionBackpropData(OpRun):
    #: Dims of the filters before the kernel dims (the group form has one more: GROUPS).
    filter_lead = 2

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.attrs = dict(node.attrs)

    def _grouped(self, w: np.ndarray) -> np.ndarray:
        """Filters as ``(G, C_IN/G, C_OUT/G, *kernel)``."""
        return w[None]

    def _run(self, x: np.ndarray, w: np.ndarray, *shape: np.ndarray) -> tuple[np.ndarray, ...]:
        n_sp = x.ndim - 2
        if w.ndim - self.filter_lead != n_sp or n_sp not in (1, 2, 3):
            raise self.fail(f"data shape {list(x.shape)} and filters shape {list(w.shape)} do not match "
                            "([N, C, 1-3 spatial dims] and a kernel of as many dims).")
        t = self.in_types[0]
        acc = accumulate_dtype(t)
        filters = self._grouped(to_compute(w, t).astype(acc))
        if x.shape[1] != filters.shape[0] * filters.shape[1]:
            raise self.fail(f"data shape {list(x.shape)} has {x.shape[1]} channels; filters {list(w.shape)} "
                            f"need {filters.shape[0] * filters.shape[1]}.")
        out_shape = int_values(shape[0], n_sp, "output_shape") if shape else None
        crop, out = backprop_crop(x.shape[2:], filters.shape[3:], self.attrs, out_shape)
        if min(out) <= 0:
            raise self.fail(f"the output spatial sizes {out} must be positive.")
        y = transposed_conv(to_compute(x, t).astype(acc), filters, self.attrs["strides"], self.attrs["dilations"],
                            crop, out)
        return (store(y, self.out_types[0]),)
