"""PriorBoxClustered-1: one box per (width, height) pair at each feature-map position (float32).

``step_w`` (``step_h``) is ``step`` when 0; when both are still 0 they become ``IW / W`` and
``IH / H``. The centre of position (h, w) is ``((w + offset) * step_w, (h + offset) * step_h)``;
the box is ``((cx - width / 2) / IW, (cy - height / 2) / IH, (cx + width / 2) / IW,
(cy + height / 2) / IH)``, clipped to [0, 1] with ``clip``. Row 1 holds the variances (default
0.1), one value repeated or 4 values per box.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun

F32 = np.float32


@register_op("PriorBoxClustered", since=1)
class PriorBoxClustered(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.widths = np.asarray(a["width"], F32)
        self.heights = np.asarray(a["height"], F32)
        self.clip: bool = a["clip"]
        self.offset = F32(a["offset"])
        self.steps = (F32(a["step_w"] or a["step"]), F32(a["step_h"] or a["step"]))
        self.variance = np.asarray(a["variance"] or [0.1], F32)

    def _run(self, output_size: np.ndarray, image_size: np.ndarray) -> tuple[np.ndarray, ...]:
        h, w = (int(v) for v in output_size.reshape(-1))
        ih, iw = (int(v) for v in image_size.reshape(-1))
        if min(h, w, ih, iw) <= 0:
            raise self.fail(f"output_size {[h, w]} and image_size {[ih, iw]} must be positive.")
        step_w, step_h = self.steps
        if step_w == 0 and step_h == 0:
            step_w, step_h = F32(iw) / F32(w), F32(ih) / F32(h)
        cx = ((np.arange(w, dtype=F32) + self.offset) * step_w)[None, :, None]
        cy = ((np.arange(h, dtype=F32) + self.offset) * step_h)[:, None, None]
        half_w, half_h = self.widths / F32(2), self.heights / F32(2)
        iw32, ih32 = F32(iw), F32(ih)
        boxes = np.stack(np.broadcast_arrays((cx - half_w) / iw32, (cy - half_h) / ih32,
                                             (cx + half_w) / iw32, (cy + half_h) / ih32), axis=-1)
        if self.clip:
            boxes = np.clip(boxes, F32(0), F32(1))
        flat = boxes.astype(F32).reshape(-1)
        if self.variance.size == 4:
            var_row = np.tile(self.variance, flat.size // 4)
        else:
            var_row = np.full(flat.size, self.variance[0], F32)
        return (np.stack([flat, var_row]).astype(F32),)
