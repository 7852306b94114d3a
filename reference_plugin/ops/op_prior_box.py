"""PriorBox-1/8: prior boxes per feature-map position, computed in float32 as the spec's reference.

For each position (h, w) — row-major — the boxes come in this order:

* with ``fixed_size`` (and one ``density`` per size): per size s, ``density[s]²`` shifted copies
  (``shift = int(fixed_size[s] / density[s])``, centre ``c - int(fs) // 2 + shift / 2 + k * shift``)
  of each fixed ratio (when ``fixed_ratio`` is given) or of the square box and then of every
  aspect ratio other than 1; these boxes are clipped to [0, 1] individually;
* per ``min_size`` m: the square box of side m, then (PriorBox-1, and PriorBox-8 with
  ``min_max_aspect_ratios_order``) the box of side ``sqrt(m * max_size)`` and the aspect-ratio
  boxes ``(m * sqrt(ar), m / sqrt(ar))``, or those two groups swapped (PriorBox-8 without it);
  without ``scale_all_sizes`` only the last min_size gets aspect-ratio boxes (of the first size),
  ``min_size`` and ``step`` are fractions of the image height (step -1: IH / H).

Centres are ``((w + 0.5) * IW / W, (h + 0.5) * IH / H)`` when step is 0, else
``((offset + w) * step, (offset + h) * step)``; a box of half sides (bw, bh) becomes
``((cx - bw) / IW, (cy - bh) / IH, (cx + bw) / IW, (cy + bh) / IH)``; ``clip`` clips every value to
[0, 1]. Row 1 holds the variances (default 0.1), one value repeated or 4 values per box.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.ir import Node
from ovconform.opset._detection._prior import aspect_ratios
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun

F32 = np.float32
#: (a, b, x, a, b, y, half width, half height, clip-free) in float32, as the kernel computes them
Template = tuple[np.float32, np.float32, np.float32, np.float32, np.float32, np.float32, np.float32, np.float32, bool]


def _shifted(fs: float, density: float, half_w: F32, half_h: F32) -> list[Template]:
    """``density²`` copies of a box, rows then columns: (ax, bx, kx, ay, by, ky, bw, bh, clip) with
    centre ``((c - a) + b) + k``."""
    d = int(density)
    shift = int(fs / d)
    a, b = F32(int(fs) // 2), F32(shift) / F32(2)
    return [(a, b, F32(c * shift), a, b, F32(r * shift), half_w, half_h, True) for r in range(d) for c in range(d)]


class _Layout:
    """The per-position box templates of one node (attributes only)."""

    def __init__(self, attrs: dict[str, Any], image_h: int) -> None:
        self.a = attrs
        self.ratios = [F32(r) for r in aspect_ratios(attrs["aspect_ratio"], attrs["flip"])]
        self.min_size = [F32(m) for m in attrs["min_size"]]
        if not attrs["scale_all_sizes"]:
            self.min_size = [m * F32(image_h) for m in self.min_size]

    def templates(self) -> list[Template]:
        out: list[Template] = []
        for s, fs in enumerate(self.a["fixed_size"]):
            out += self._fixed(s, fs)
        for i, m in enumerate(self.min_size):
            out += self._min(i, m)
        return out

    def _ratio_boxes(self, size: F32) -> list[tuple[F32, F32]]:
        boxes = []
        for ar in self.ratios:
            if abs(ar - F32(1)) < 1e-6:
                continue
            root = np.sqrt(ar)
            boxes.append((size * F32(0.5) * root, size * F32(0.5) / root))
        return boxes

    def _fixed(self, s: int, fs: float) -> list[Template]:
        density = self.a["density"][s]
        fs32 = F32(fs)
        if self.a["fixed_ratio"]:
            out = []
            for fr in self.a["fixed_ratio"]:
                root = np.sqrt(F32(fr))
                out += _shifted(fs, density, fs32 * F32(0.5) * root, fs32 * F32(0.5) / root)
            return out
        half = F32(int(fs)) * F32(0.5)
        out = _shifted(fs, density, half, half)
        for bw, bh in self._ratio_boxes(fs32):
            out += _shifted(fs, density, bw, bh)
        return out

    def _min(self, i: int, m: F32) -> list[Template]:
        def box(bw: F32, bh: F32) -> Template:
            return (F32(0), F32(0), F32(0), F32(0), F32(0), F32(0), bw, bh, False)

        half = m * F32(0.5)
        first = [box(half, half)]
        maxes = self.a["max_size"]
        big = [box(h, h) for h in [np.sqrt(m * F32(maxes[i])) * F32(0.5)]] if len(maxes) > i else []
        all_sizes = self.a["scale_all_sizes"]
        ratio: list[Template] = []
        if all_sizes or i == len(self.min_size) - 1:
            base = m if all_sizes else self.min_size[0]
            ratio = [box(bw, bh) for bw, bh in self._ratio_boxes(base)]
        if self.a.get("min_max_aspect_ratios_order", True):
            return first + big + ratio
        return first + ratio + big


@register_op("PriorBox", since=1)
class PriorBox(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.attrs = dict(node.attrs)
        self.width = node.get_output_partial_shape(0)[1]

    def _run(self, output_size: np.ndarray, image_size: np.ndarray) -> tuple[np.ndarray, ...]:
        h, w = (int(v) for v in output_size.reshape(-1))
        ih, iw = (int(v) for v in image_size.reshape(-1))
        if min(h, w, ih, iw) <= 0:
            raise self.fail(f"output_size {[h, w]} and image_size {[ih, iw]} must be positive.")
        boxes = self._boxes(h, w, ih, iw)
        count = boxes.size
        if self.width.is_static and self.width.get_length() != count:
            raise self.fail(f"output_size {[h, w]} gives {count} box values; the node declares {self.width}.")
        variance = np.asarray(self.attrs["variance"] or [0.1], F32)
        var_row = np.tile(variance, count // variance.size) if variance.size == 4 else np.full(count, variance[0], F32)
        return (np.stack([boxes.reshape(-1), var_row]).astype(F32),)

    def _centres(self, h: int, w: int, ih: int, iw: int) -> tuple[np.ndarray, np.ndarray]:
        step = F32(self.attrs["step"])
        if not self.attrs["scale_all_sizes"]:
            step = F32(ih) / F32(h) if step == -1 else step * F32(ih)
        if step == 0:
            cx = (np.arange(w, dtype=F32) + F32(0.5)) * (F32(iw) / F32(w))
            cy = (np.arange(h, dtype=F32) + F32(0.5)) * (F32(ih) / F32(h))
        else:
            off = F32(self.attrs["offset"])
            cx = (off + np.arange(w, dtype=F32)) * step
            cy = (off + np.arange(h, dtype=F32)) * step
        return np.broadcast_to(cx[None, :, None], (h, w, 1)), np.broadcast_to(cy[:, None, None], (h, w, 1))

    def _boxes(self, h: int, w: int, ih: int, iw: int) -> np.ndarray:
        t = np.array(_Layout(self.attrs, ih).templates(), dtype=np.float64).reshape(-1, 9)
        ax, bx, kx, ay, by, ky, bw, bh = (t[:, i].astype(F32) for i in range(8))
        clip = t[:, 8].astype(bool)
        cx, cy = self._centres(h, w, ih, iw)
        cx = ((cx - ax) + bx) + kx
        cy = ((cy - ay) + by) + ky
        inv_w, inv_h = F32(1) / F32(iw), F32(1) / F32(ih)
        xmin, ymin = (cx - bw) * inv_w, (cy - bh) * inv_h
        xmax, ymax = (cx + bw) * inv_w, (cy + bh) * inv_h
        xmin, ymin = np.where(clip, np.maximum(xmin, F32(0)), xmin), np.where(clip, np.maximum(ymin, F32(0)), ymin)
        xmax, ymax = np.where(clip, np.minimum(xmax, F32(1)), xmax), np.where(clip, np.minimum(ymax, F32(1)), ymax)
        boxes = np.stack([xmin, ymin, xmax, ymax], axis=-1).astype(F32)
        if self.attrs["clip"]:
            boxes = np.clip(boxes, F32(0), F32(1))
        return boxes
