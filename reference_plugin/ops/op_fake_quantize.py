"""FakeQuantize-1: ``x <= min(il, ih)`` → ``ol``; ``x > max(il, ih)`` → ``oh``; otherwise
``round((x - il) / (ih - il) · (levels - 1)) / (levels - 1) · (oh - ol) + ol``, computed in float64
with all five inputs broadcast (numpy, or pdpd — trailing alignment, as numpy — or none). ``round``
is to nearest, halves to even (``std::nearbyint``, as OpenVINO's reference does); a value exactly on
a rounding boundary is sensitive to the precision of the division, so the case strategy keeps away
from boundaries."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("FakeQuantize", since=1)
class FakeQuantize(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.levels = int(self.attr("levels"))
        self.mode = str(self.attr("auto_broadcast"))

    def _run(self, x: np.ndarray, il: np.ndarray, ih: np.ndarray, ol: np.ndarray,
             oh: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        arrays = [to_compute(a, t).astype(np.float64) for a in (x, il, ih, ol, oh)]
        if self.mode == "none" and any(a.shape != arrays[0].shape for a in arrays):
            raise self.fail(f"auto_broadcast='none' needs equal shapes; got {[list(a.shape) for a in arrays]}.")
        xv, lo, hi, olo, ohi = np.broadcast_arrays(*arrays)
        steps = self.levels - 1
        q = np.rint((xv - lo) / (hi - lo) * steps) / steps * (ohi - olo) + olo
        y = np.where(xv <= np.minimum(lo, hi), olo, np.where(xv > np.maximum(lo, hi), ohi, q))
        return (from_compute(y, self.out_types[0]),)
