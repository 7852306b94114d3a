"""MulticlassNms-8/9, as the spec describes it (float32 arithmetic).

For every image and every class but ``background_class``: the candidates are the boxes with a
score of at least ``score_threshold``, by score (descending), at most ``nms_top_k`` of them. Then
greedily, with ``adaptive_threshold = iou_threshold``: take the highest remaining candidate and
select it; if ``nms_eta < 1`` and ``adaptive_threshold > 0.5``, ``adaptive_threshold *= nms_eta``;
remove every remaining candidate whose IoU with it exceeds ``adaptive_threshold`` (the spec sets
its score to 0: a suppressed box is never selected, whatever ``score_threshold``). The image's
detections are then ranked and cut to ``keep_top_k`` and ordered (:mod:`._common_nms`).

Boxes are ``[xmin, ymin, xmax, ymax]``; with ``normalized=false`` widths and heights count pixels
(``xmax - xmin + 1``), and IoU is 0 when either area is not positive (OpenVINO's reference code,
``multiclass_nms.cpp``: the spec leaves both out). ``selected_indices``: ``batch * num_boxes +
box`` with shared boxes; with ``roisnum`` (version 9: boxes [C, M, 4], image b owning the
``roisnum[b]`` boxes after those of images 0..b-1) ``(offset_b + box) * C + class``, as OpenVINO
computes it (the spec says only "the flattened boxes").
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_nms import F32, Found, by_score, final_order, keep_top, outputs, per_image_order
from reference_plugin.ops._common_types import store, to_compute


def iou(a: np.ndarray, b: np.ndarray, norm: np.float32) -> np.float32:
    area_a = F32((a[3] - a[1] + norm) * (a[2] - a[0] + norm))
    area_b = F32((b[3] - b[1] + norm) * (b[2] - b[0] + norm))
    if area_a <= 0 or area_b <= 0:
        return F32(0)
    h = max(F32(min(a[3], b[3]) - max(a[1], b[1]) + norm), F32(0))
    w = max(F32(min(a[2], b[2]) - max(a[0], b[0]) + norm), F32(0))
    inter = F32(h * w)
    return F32(inter / (area_a + area_b - inter))


def nms_class(boxes: np.ndarray, scores: np.ndarray, iou_thr: np.float32, score_thr: np.float32, top_k: int,
              eta: np.float32, norm: np.float32) -> list[int]:
    """The box indices selected for one image and class, in selection order."""
    remaining = by_score(scores, [i for i in range(scores.size) if scores[i] >= score_thr], top_k)
    threshold = iou_thr
    chosen: list[int] = []
    while remaining:
        k = remaining.pop(0)
        chosen.append(k)
        if eta < 1 and threshold > 0.5:
            threshold = F32(threshold * eta)
        remaining = [i for i in remaining if not iou(boxes[k], boxes[i], norm) > threshold]
    return chosen


@register_op("MulticlassNms", since=8)
class MulticlassNms(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.sort_type, self.across = a["sort_result_type"], a["sort_result_across_batch"]
        self.iou_thr, self.score_thr, self.eta = F32(a["iou_threshold"]), F32(a["score_threshold"]), F32(a["nms_eta"])
        self.nms_top_k, self.keep_top_k, self.background = a["nms_top_k"], a["keep_top_k"], a["background_class"]
        self.norm = F32(0 if a["normalized"] else 1)

    def _image(self, b: int, boxes_of: list[np.ndarray], scores: np.ndarray) -> list[Found]:
        """One image's kept detections: ``boxes_of[c]`` are class c's boxes [n, 4], ``scores`` [C, n]."""
        image = []
        for c in range(scores.shape[0]):
            if c == self.background:
                continue
            for k in nms_class(boxes_of[c], scores[c], self.iou_thr, self.score_thr, self.nms_top_k, self.eta,
                               self.norm):
                image.append(Found(float(scores[c, k]), b, c, k, boxes_of[c][k]))
        return per_image_order(keep_top(image, self.keep_top_k), self.sort_type, self.across)

    def _run(self, boxes: np.ndarray, scores: np.ndarray, *roisnum: np.ndarray) -> tuple[np.ndarray, ...]:
        box_values = to_compute(boxes, self.in_types[0]).astype(F32)
        score_values = to_compute(scores, self.in_types[1]).astype(F32)
        found: list[Found] = []
        counts = []
        if roisnum:
            c_count, m = score_values.shape
            if box_values.shape != (c_count, m, 4):
                raise self.fail(f"boxes {list(boxes.shape)} and scores {list(scores.shape)} disagree: with roisnum "
                                f"boxes must be [{c_count}, {m}, 4].")
            rois = [int(r) for r in np.asarray(roisnum[0]).reshape(-1)]
            if any(r < 0 for r in rois) or sum(rois) > m:
                raise self.fail(f"roisnum {rois} must be non-negative and sum to at most num_boxes={m}.")
            offsets = np.concatenate([[0], np.cumsum(rois)]).astype(int)
            for b, r in enumerate(rois):
                lo = int(offsets[b])
                kept = self._image(b, [box_values[c, lo:lo + r] for c in range(c_count)],
                                   score_values[:, lo:lo + r])
                counts.append(len(kept))
                found += kept
            found = final_order(found, self.sort_type, self.across)
            flat = [(int(offsets[f.batch]) + f.box) * c_count + f.cls for f in found]
        else:
            b_count, c_count, n = score_values.shape
            if box_values.shape != (b_count, n, 4):
                raise self.fail(f"boxes {list(boxes.shape)} and scores {list(scores.shape)} disagree: boxes must "
                                f"be [{b_count}, {n}, 4].")
            for b in range(b_count):
                kept = self._image(b, [box_values[b]] * c_count, score_values[b])
                counts.append(len(kept))
                found += kept
            found = final_order(found, self.sort_type, self.across)
            flat = [f.batch * n + f.box for f in found]
        rows, indices, num = outputs(found, flat, counts)
        out_t = self.out_types[1].to_dtype()
        return store(rows, self.out_types[0]), indices.astype(out_t), num.astype(out_t)
