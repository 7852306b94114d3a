"""Col2Im-15: columns ``[N, C·kh·kw, L]`` (or unbatched ``[C·kh·kw, L]``) summed back into images
``[N, C, H, W]``: column ``c·kh·kw + i·kw + j`` of block ``b = bh·BW + bw`` adds to pixel
``(bh·s0 + i·d0 - pb0, bw·s1 + j·d1 - pb1)`` (taps on the padding are dropped). One scatter-add
(``np.add.at``) in float64 (int64 for integers, then wrapped)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from ovconform.opset._movement._patches import col2im_blocks
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_advanced import int_values
from reference_plugin.ops._common_types import accumulate_dtype, store, to_compute


@register_op("Col2Im", since=15)
class Col2Im(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.attrs = {k: list(node.attrs[k]) for k in ("strides", "dilations", "pads_begin", "pads_end")}

    def _run(self, x: np.ndarray, size_in: np.ndarray, kernel_in: np.ndarray) -> tuple[np.ndarray, ...]:
        size, kernel = int_values(size_in, 2, "output_size"), int_values(kernel_in, 2, "kernel_size")
        batched = x.ndim == 3
        data = x if batched else x[None]
        blocks = col2im_blocks(size, kernel, self.attrs)
        volume = kernel[0] * kernel[1]
        if data.ndim != 3 or data.shape[1] % volume or data.shape[2] != blocks[0] * blocks[1]:
            raise self.fail(f"data shape {list(x.shape)} does not fit kernel_size {kernel} and {blocks} blocks "
                            f"for output_size {size} (need [N, C·{volume}, {blocks[0] * blocks[1]}]).")
        t = self.in_types[0]
        n, channels = data.shape[0], data.shape[1] // volume
        vals = to_compute(data, t).astype(accumulate_dtype(t)).reshape(n, channels, *kernel, *blocks)
        (s0, s1), (d0, d1) = self.attrs["strides"], self.attrs["dilations"]
        (pb0, pb1), (pe0, pe1) = self.attrs["pads_begin"], self.attrs["pads_end"]
        rows = (np.arange(blocks[0]) * s0)[None, None, :, None] + (np.arange(kernel[0]) * d0)[:, None, None, None]
        cols = (np.arange(blocks[1]) * s1)[None, None, None, :] + (np.arange(kernel[1]) * d1)[None, :, None, None]
        image = np.zeros((n, channels, size[0] + pb0 + pe0, size[1] + pb1 + pe1), vals.dtype)
        # numpy's stub for ufunc.at lists array indices only; a tuple index is what numpy documents and runs
        np.add.at(image, (slice(None), slice(None), rows, cols), vals)  # type: ignore[arg-type]
        image = image[:, :, pb0:pb0 + size[0], pb1:pb1 + size[1]]
        return (store(image if batched else image[0], self.out_types[0]),)
