"""ExperimentalDetectronDetectionOutput-6, as the spec's steps (float32):

1. every ROI ``(x0, y0, x1, y1)`` and class c is refined with its deltas divided by
   ``deltas_weights``: size ``w = x1 - x0 + 1``, centre ``x0 + 0.5 w``, new centre ``dx * w +
   centre``, new size ``exp(min(d_log_w, max_delta_log_wh)) * w``, corners ``centre -/+ 0.5 size``
   (the far one minus 1); a ROI of no width or height (``x1 - x0 <= 0``) yields nothing (OpenVINO's
   reference code; the spec does not say);
2. class 0, the background, takes part only when ``class_agnostic_box_regression`` is false (the
   spec: "true means background classes should be deleted");
3. boxes are clipped to the image: x to ``[0, im_info[1] - 1]``, y to ``[0, im_info[0] - 1]``
   (Detectron's clip for the spec's "clips boxes to the image", which gives no bounds);
4. per class, boxes scoring above ``score_threshold``, highest first (equal scores: lower ROI
   first), are kept when their IoU (+1 convention, areas of the clipped boxes) with every box kept
   before in that class is at most ``nms_threshold``; the first ``post_nms_count`` stay;
5. with more than ``max_detections_per_image`` detections, the highest ``max_detections_per_image``
   by score (equal scores: lower ROI first) are returned in that order; otherwise all of them,
   class after class (each in its NMS order), and rows of zeros after them (the spec leaves them
   undefined).

Outputs: boxes [M, 4], classes [M] (i32) and scores [M]. OpenVINO CPU does not clip boxes above
and always drops class 0 (recorded deviations); the order of step 5 is OpenVINO's reference code's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute

F32 = np.float32


def refine(rois: np.ndarray, deltas: np.ndarray, info: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """[C, R, 4] refined and clipped boxes (float32)."""
    weights = np.array(attrs["deltas_weights"], F32)
    classes = attrs["num_classes"]
    d = deltas.reshape(rois.shape[0], classes, 4).transpose(1, 0, 2) / weights  # [C, R, 4]
    x0, y0, x1, y1 = (rois[:, i] for i in range(4))
    ww, hh = x1 - x0 + F32(1), y1 - y0 + F32(1)
    cx, cy = x0 + F32(0.5) * ww, y0 + F32(0.5) * hh
    limit = F32(attrs["max_delta_log_wh"])
    px, py = d[..., 0] * ww + cx, d[..., 1] * hh + cy
    pw, ph = np.exp(np.minimum(d[..., 2], limit)) * ww, np.exp(np.minimum(d[..., 3], limit)) * hh
    boxes = np.stack([px - F32(0.5) * pw, py - F32(0.5) * ph, px + F32(0.5) * pw - F32(1),
                      py + F32(0.5) * ph - F32(1)], axis=-1).astype(F32)
    top = np.array([info[1] - 1, info[0] - 1, info[1] - 1, info[0] - 1], F32)
    return np.maximum(F32(0), np.minimum(boxes, top)).astype(F32)


def jaccard(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of ``box`` with each of ``others`` (+1 convention; 0 where they do not touch)."""
    apart = (others[:, 0] > box[2]) | (others[:, 2] < box[0]) | (others[:, 1] > box[3]) | (others[:, 3] < box[1])
    iw = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + F32(1)
    ih = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + F32(1)
    inter = iw * ih
    area_a = (box[2] - box[0] + F32(1)) * (box[3] - box[1] + F32(1))
    area_b = (others[:, 2] - others[:, 0] + F32(1)) * (others[:, 3] - others[:, 1] + F32(1))
    with np.errstate(all="ignore"):
        value = inter / (area_a + area_b - inter)
    return np.where(apart | (iw <= 0) | (ih <= 0), F32(0), value).astype(F32)


def class_nms(boxes: np.ndarray, scores: np.ndarray, attrs: dict[str, Any]) -> list[int]:
    """ROI indices kept for one class, in NMS order."""
    candidates = np.flatnonzero(scores > F32(attrs["score_threshold"]))
    candidates = candidates[np.argsort(-scores[candidates].astype(np.float64), kind="stable")]
    kept: list[int] = []
    for i in candidates:
        if kept and np.any(jaccard(boxes[i], boxes[kept]) > F32(attrs["nms_threshold"])):
            continue
        kept.append(int(i))
    return kept[:attrs["post_nms_count"]]


def detections(rois: np.ndarray, deltas: np.ndarray, scores: np.ndarray, info: np.ndarray,
               attrs: dict[str, Any]) -> tuple[np.ndarray, list[tuple[float, int, int]]]:
    """The refined boxes [C, R, 4] and the returned detections (score, class, ROI), in output order."""
    boxes = refine(rois, deltas, info, attrs)
    valid = (rois[:, 2] - rois[:, 0] > 0) & (rois[:, 3] - rois[:, 1] > 0)
    first = 1 if attrs["class_agnostic_box_regression"] else 0
    found: list[tuple[float, int, int]] = []
    for c in range(first, attrs["num_classes"]):
        class_scores = np.where(valid, scores[:, c], F32(0)).astype(F32)
        found += [(float(class_scores[i]), c, i) for i in class_nms(boxes[c], class_scores, attrs)]
    limit = attrs["max_detections_per_image"]
    if len(found) > limit:
        found = sorted(found, key=lambda d: (-d[0], d[2]))[:limit]
    return boxes, found


@register_op("ExperimentalDetectronDetectionOutput", since=6)
class ExperimentalDetectronDetectionOutput(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.a = dict(node.attrs)

    def _run(self, rois: np.ndarray, deltas: np.ndarray, scores: np.ndarray,
             info: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        rois, deltas, scores, info = (to_compute(x, et).astype(F32) for x in (rois, deltas, scores, info))
        classes = self.a["num_classes"]
        if deltas.shape != (rois.shape[0], 4 * classes) or scores.shape != (rois.shape[0], classes):
            raise self.fail(f"rois {list(rois.shape)}, deltas {list(deltas.shape)} and scores {list(scores.shape)} "
                            f"disagree with num_classes={classes}.")
        boxes, found = detections(rois, deltas, scores, info.reshape(-1), self.a)
        m = self.a["max_detections_per_image"]
        out_boxes, out_classes, out_scores = np.zeros((m, 4), F32), np.zeros(m, np.int32), np.zeros(m, F32)
        for row, (score, c, i) in enumerate(found):
            out_boxes[row], out_classes[row], out_scores[row] = boxes[c, i], c, score
        return store(out_boxes, et), out_classes, store(out_scores, et)
