"""NMSRotated-13, as the spec describes it.

Boxes are ``[x_center, y_center, width, height, angle]``. A box's corners are its centre plus
``(±width/2, ±height/2)`` rotated by ``angle`` with the matrix ``[[cos, -sin], [sin, cos]]`` when
``clockwise`` (positive angles turn clockwise on an image, whose y axis points down; OpenVINO's
``iou_rotated.hpp`` builds the corners so), by ``-angle`` otherwise. ``rotated_iou`` follows the
spec's steps: the crossings of the two boxes' edges and the corners of each box inside the other
are the vertices of the intersection, whose area is the shoelace formula over them in angle order
around their centroid; IoU = intersection / (area1 + area2 - intersection), 0 when either area is
not positive (geometry in float64).

For every image and class, independently: take the highest remaining score (ties: the lower box
index); stop when it is below ``score_threshold`` or ``max_output_boxes_per_class`` boxes are
selected; select it; every remaining box whose rotated IoU with it exceeds ``iou_threshold`` is
removed (the spec's score factor 0). Results: with ``sort_result_descending`` all of them by
score, descending (then batch, class, box index, as NonMaxSuppression-9 here), else by batch, class
and selection order. ``selected_scores`` hold ``[batch, class, score]`` (f32).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute

F32 = np.float32
_SIGNS = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])


def corners(box: np.ndarray, clockwise: bool) -> np.ndarray:
    """The 4 corners [4, 2] of a rotated box, in order around it."""
    x, y, w, h, a = (float(v) for v in box)
    angle = a if clockwise else -a
    c, s = np.cos(angle), np.sin(angle)
    offsets = _SIGNS * np.array([w, h])
    return np.stack([x + offsets[:, 0] * c - offsets[:, 1] * s, y + offsets[:, 0] * s + offsets[:, 1] * c], axis=1)


def _inside(point: np.ndarray, poly: np.ndarray) -> bool:
    """``point`` inside (or on the edge of) the convex quadrilateral ``poly``."""
    signs = []
    for k in range(4):
        a, b = poly[k], poly[(k + 1) % 4]
        signs.append((b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0]))
    eps = 1e-9 * max(1.0, float(np.abs(poly).max()) ** 2)
    return all(v >= -eps for v in signs) or all(v <= eps for v in signs)


def _crossing(p1: np.ndarray, p2: np.ndarray, q1: np.ndarray, q2: np.ndarray) -> np.ndarray | None:
    d1, d2 = p2 - p1, q2 - q1
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if den == 0:
        return None
    diff = q1 - p1
    t = (diff[0] * d2[1] - diff[1] * d2[0]) / den
    u = (diff[0] * d1[1] - diff[1] * d1[0]) / den
    if 0 <= t <= 1 and 0 <= u <= 1:
        return p1 + t * d1
    return None


def intersection_area(p: np.ndarray, q: np.ndarray) -> float:
    points = [v for v in p if _inside(v, q)] + [v for v in q if _inside(v, p)]
    for i in range(4):
        for j in range(4):
            hit = _crossing(p[i], p[(i + 1) % 4], q[j], q[(j + 1) % 4])
            if hit is not None:
                points.append(hit)
    if len(points) < 3:
        return 0.0
    pts = np.array(points)
    centre = pts.mean(axis=0)
    pts = pts[np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))]
    x, y = pts[:, 0], pts[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def rotated_iou(a: np.ndarray, b: np.ndarray, clockwise: bool) -> float:
    area_a, area_b = float(a[2]) * float(a[3]), float(b[2]) * float(b[3])
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = intersection_area(corners(a, clockwise), corners(b, clockwise))
    return inter / (area_a + area_b - inter)


def select(boxes: np.ndarray, scores: np.ndarray, limit: int, iou_thr: float, score_thr: float,
           clockwise: bool) -> list[tuple[int, float]]:
    """(box index, score) of the boxes selected for one image and class, in selection order."""
    remaining = sorted(range(scores.size), key=lambda i: (-float(scores[i]), i))
    chosen: list[tuple[int, float]] = []
    while remaining and len(chosen) < limit:
        k = remaining.pop(0)
        if not scores[k] >= score_thr:
            break
        chosen.append((k, float(scores[k])))
        remaining = [i for i in remaining if not rotated_iou(boxes[k], boxes[i], clockwise) > iou_thr]
    return chosen


@register_op("NMSRotated", since=13)
class NMSRotated(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.sort = node.attrs["sort_result_descending"]
        self.clockwise = node.attrs["clockwise"]

    def _scalar(self, value: np.ndarray, i: int) -> float:
        flat = np.asarray(value).reshape(-1)
        if flat.size != 1:
            raise self.fail(f"input {i} holds {flat.size} values; it must hold exactly 1.")
        return float(to_compute(flat, self.in_types[i])[0]) if self.in_types[i].is_real() else int(flat[0])

    def _run(self, boxes: np.ndarray, scores: np.ndarray, limit_in: np.ndarray, iou_in: np.ndarray,
             score_in: np.ndarray) -> tuple[np.ndarray, ...]:
        limit = int(self._scalar(limit_in, 2))
        iou_thr, score_thr = float(F32(self._scalar(iou_in, 3))), float(F32(self._scalar(score_in, 4)))
        b_count, c_count, n = scores.shape
        if boxes.shape != (b_count, n, 5):
            raise self.fail(f"boxes {list(boxes.shape)} and scores {list(scores.shape)} disagree: boxes must be "
                            f"[{b_count}, {n}, 5].")
        box_values = to_compute(boxes, self.in_types[0]).astype(F32)
        score_values = to_compute(scores, self.in_types[1]).astype(F32)
        found = []
        for b in range(b_count):
            for c in range(c_count):
                chosen = select(box_values[b], score_values[b, c], limit, iou_thr, score_thr, self.clockwise)
                found += [(s, b, c, k) for k, s in chosen]
        if self.sort:
            found.sort(key=lambda r: (-r[0], r[1], r[2], r[3]))
        out_t = self.out_types[0].to_dtype()
        indices = np.array([[b, c, k] for _, b, c, k in found], np.int64).reshape(-1, 3).astype(out_t)
        values = np.array([[b, c, s] for s, b, c, _ in found], F32).reshape(-1, 3)
        return indices, store(values, self.out_types[1]), np.array([len(found)], out_t)
