"""NonMaxSuppression-1/3/4/5/9, as the spec describes it (float32 arithmetic).

Boxes are ``[y1, x1, y2, x2]`` (any two opposite corners) or, with ``box_encoding="center"``,
``[x_centre, y_centre, width, height]``. IoU is ``intersection / (area_a + area_b - intersection)``,
0 when either area is not positive. For every batch item and class, independently: take the
highest current score (ties: the lower box index); stop when it is below ``score_threshold`` or
``max_output_boxes_per_class`` boxes are selected; select it; then every remaining box whose IoU
with it exceeds ``iou_threshold`` is dropped (``soft_nms_sigma`` = 0), or its score is multiplied
by ``exp(-0.5 * iou^2 / sigma)`` (version 9; version 5 drops it when the IoU exceeds the
threshold). A box whose factor is 0 is removed, not kept with score 0 (the spec's func = 0 means
suppression, as versions 1-4 state). Results are ordered by score, descending, then batch, class and box index with
``sort_result_descending``; else by batch, class, selection order.

Versions 1-4 write the first rows of a fixed-size ``selected_indices`` and fill the rest with -1
(size min(N, M * C) for 1 and 3, B * C * min(N, M) for 4); versions 5 and 9 return exactly the
selected rows, their (decayed) scores as ``[batch, class, score]`` and the row count.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute

F32 = np.float32


def corners(boxes: np.ndarray, center: bool) -> np.ndarray:
    """[..., 4] boxes as (ymin, xmin, ymax, xmax)."""
    if center:
        xc, yc, w, h = (boxes[..., i] for i in range(4))
        half_w, half_h = w / F32(2), h / F32(2)
        return np.stack([yc - half_h, xc - half_w, yc + half_h, xc + half_w], axis=-1)
    y = np.sort(boxes[..., [0, 2]], axis=-1)
    x = np.sort(boxes[..., [1, 3]], axis=-1)
    return np.stack([y[..., 0], x[..., 0], y[..., 1], x[..., 1]], axis=-1)


def iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    h = np.maximum(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]), F32(0))
    w = np.maximum(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]), F32(0))
    inter = h * w
    with np.errstate(all="ignore"):
        out = inter / (area + areas - inter)
    return np.where((area <= 0) | (areas <= 0), F32(0), out).astype(F32)


def select(boxes: np.ndarray, scores: np.ndarray, limit: int, iou_thr: F32, score_thr: F32, sigma: F32,
           version: int) -> list[tuple[int, F32]]:
    """(box index, score) of the boxes selected for one batch item and class, in selection order."""
    current = scores.astype(F32).copy()
    alive = np.ones(current.size, bool)
    chosen: list[tuple[int, F32]] = []
    while len(chosen) < limit and alive.any():
        masked = np.where(alive, current, -np.inf)
        k = int(np.argmax(masked))  # first maximum: the lower index wins a tie
        if not current[k] >= score_thr:
            break
        chosen.append((k, current[k]))
        alive[k] = False
        overlap = iou(boxes[k], boxes)
        if sigma > 0:
            weight = np.exp(F32(-0.5) * overlap * overlap / sigma).astype(F32)
            current = np.where(alive, current * weight, current).astype(F32)
            alive &= current >= score_thr
            if version == 5:
                alive &= ~(overlap > iou_thr)
        else:
            alive &= ~(overlap > iou_thr)
    return chosen


@register_op("NonMaxSuppression", since=1)
class NonMaxSuppression(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.center = node.attrs["box_encoding"] == "center"
        self.sort = node.attrs["sort_result_descending"]
        self.version = node.version
        self.rows = node.get_output_partial_shape(0)[0]

    def _scalar(self, inputs: tuple[np.ndarray, ...], i: int, default: float) -> float:
        if len(inputs) <= i:
            return default
        flat = np.asarray(inputs[i]).reshape(-1)
        if flat.size != 1:
            raise self.fail(f"input {i} holds {flat.size} values; it must hold exactly 1.")
        return float(to_compute(flat, self.in_types[i])[0]) if self.in_types[i].is_real() else int(flat[0])

    def _run(self, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        inputs = (boxes, scores, *rest)
        limit = int(self._scalar(inputs, 2, 0))
        iou_thr, score_thr, sigma = (F32(self._scalar(inputs, i, 0.0)) for i in (3, 4, 5))
        b_count, c_count, n = scores.shape
        if boxes.shape[0] != b_count or boxes.shape[1] != n:
            raise self.fail(f"boxes {list(boxes.shape)} and scores {list(scores.shape)} disagree on B or N.")
        box_values = corners(to_compute(boxes, self.in_types[0]).astype(F32), self.center)
        score_values = to_compute(scores, self.in_types[1]).astype(F32)
        found = []
        for b in range(b_count):
            for c in range(c_count):
                chosen = select(box_values[b], score_values[b, c], limit, iou_thr, score_thr, sigma, self.version)
                found += [(s, b, c, k) for k, s in chosen]
        if self.sort:
            found.sort(key=lambda r: (-r[0], r[1], r[2], r[3]))
        indices = np.array([[b, c, k] for _, b, c, k in found], np.int64).reshape(-1, 3)
        if self.version < 5:
            return (self._padded(indices, b_count, c_count, n, limit),)
        values = np.array([[b, c, s] for s, b, c, _ in found], F32).reshape(-1, 3)
        out_t = self.out_types[0].to_dtype()
        return (indices.astype(out_t), store(values, self.out_types[1]), np.array([len(found)], out_t))

    def _padded(self, indices: np.ndarray, b: int, c: int, n: int, limit: int) -> np.ndarray:
        if self.rows.is_static:
            size = self.rows.get_length()
        elif self.version < 4:
            size = min(n, max(limit, 0) * c)
        else:
            size = b * c * min(n, max(limit, 0))
        out = np.full((size, 3), -1, np.int64)
        count = min(size, indices.shape[0])
        out[:count] = indices[:count]
        return out.astype(self.out_types[0].to_dtype())
