"""MatrixNms-8, as the spec describes it (float32 arithmetic).

For every image and every class but ``background_class``: the candidates are the boxes with a
score above ``score_threshold``, by score (descending), at most ``nms_top_k`` of them. With
``X[j, i]`` the IoU of candidates j < i (0 elsewhere: the upper triangle) and ``K[j]`` the
largest IoU of candidate j with a higher-scored one (the column max of X), candidate i's score is
multiplied by the smallest decay over j < i (1 for the first candidate):
``exp((K[j]^2 - X[j, i]^2) * gaussian_sigma)`` (gaussian) or ``(1 - X[j, i]) / (1 - K[j])``
(linear); it is kept when the decayed score is above ``post_threshold``. Then the image's
detections are ranked and cut to ``keep_top_k`` and ordered (:mod:`._common_nms`).

Boxes are ``[xmin, ymin, xmax, ymax]``. What the spec leaves out is taken from OpenVINO's
reference code (``matrix_nms.cpp``): with ``normalized=false`` widths and heights count pixels
(``xmax - xmin + 1``); a box with ``xmax < xmin`` or ``ymax < ymin`` has area 0; boxes that do not
overlap (``xmin2 > xmax1`` or ...) have IoU 0. ``selected_indices`` are ``batch * num_boxes + box``.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_nms import F32, Found, by_score, final_order, keep_top, outputs, per_image_order
from reference_plugin.ops._common_types import store, to_compute


def area(box: np.ndarray, norm: np.float32) -> np.float32:
    if box[2] < box[0] or box[3] < box[1]:
        return F32(0)
    return F32((box[2] - box[0] + norm) * (box[3] - box[1] + norm))


def iou(a: np.ndarray, b: np.ndarray, norm: np.float32) -> np.float32:
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return F32(0)
    w = min(a[2], b[2]) - max(a[0], b[0]) + norm
    h = min(a[3], b[3]) - max(a[1], b[1]) + norm
    inter = F32(w * h)
    return F32(inter / (area(a, norm) + area(b, norm) - inter))


def decayed(boxes: np.ndarray, scores: np.ndarray, order: list[int], gaussian: bool, sigma: np.float32,
            norm: np.float32) -> list[np.float32]:
    """The decayed score of each candidate of ``order`` (sorted by score, descending)."""
    n = len(order)
    x = np.zeros((n, n), F32)
    for i in range(n):
        for j in range(i):
            x[j, i] = iou(boxes[order[i]], boxes[order[j]], norm)
    k = x.max(axis=0) if n else x
    out = []
    for i in range(n):
        decay = F32(1)
        for j in range(i):
            if gaussian:
                d = np.exp((k[j] * k[j] - x[j, i] * x[j, i]) * sigma, dtype=F32)
            else:
                d = (F32(1) - x[j, i]) / (F32(1) - k[j])
            decay = min(decay, F32(d))
        out.append(F32(decay * scores[order[i]]))
    return out


@register_op("MatrixNms", since=8)
class MatrixNms(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.sort_type, self.across = a["sort_result_type"], a["sort_result_across_batch"]
        self.score_thr, self.post_thr = F32(a["score_threshold"]), F32(a["post_threshold"])
        self.nms_top_k, self.keep_top_k, self.background = a["nms_top_k"], a["keep_top_k"], a["background_class"]
        self.gaussian, self.sigma = a["decay_function"] == "gaussian", F32(a["gaussian_sigma"])
        self.norm = F32(0 if a["normalized"] else 1)

    def _run(self, boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, ...]:
        b_count, c_count, n = scores.shape
        if boxes.shape != (b_count, n, 4):
            raise self.fail(f"boxes {list(boxes.shape)} and scores {list(scores.shape)} disagree: boxes must be "
                            f"[{b_count}, {n}, 4].")
        box_values = to_compute(boxes, self.in_types[0]).astype(F32)
        score_values = to_compute(scores, self.in_types[1]).astype(F32)
        found: list[Found] = []
        counts = []
        for b in range(b_count):
            image: list[Found] = []
            for c in range(c_count):
                if c == self.background:
                    continue
                s = score_values[b, c]
                order = by_score(s, [i for i in range(n) if s[i] > self.score_thr], self.nms_top_k)
                for i, ds in zip(order, decayed(box_values[b], s, order, self.gaussian, self.sigma, self.norm),
                                 strict=True):
                    if ds > self.post_thr:
                        image.append(Found(float(ds), b, c, i, box_values[b, i]))
            kept = per_image_order(keep_top(image, self.keep_top_k), self.sort_type, self.across)
            counts.append(len(kept))
            found += kept
        found = final_order(found, self.sort_type, self.across)
        rows, indices, num = outputs(found, [f.batch * n + f.box for f in found], counts)
        out_t = self.out_types[1].to_dtype()
        return store(rows, self.out_types[0]), indices.astype(out_t), num.astype(out_t)
