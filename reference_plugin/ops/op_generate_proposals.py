"""GenerateProposals-9, as the spec's steps (float32), per image of the batch:

1. each anchor ``(x0, y0, x1, y1)`` of position (h, w) and anchor a (in that order; anchors
   [H, W, A, 4], deltas [4 * A, H, W] as [A, 4, H, W], scores [A, H, W]) is decoded with its deltas
   ``(dx, dy, d_log_w, d_log_h)``: size ``s = x1 - x0 + o`` (o = 0 when ``normalized``, else 1),
   centre ``x0 + 0.5 s``, new centre ``dx * s + centre``, new size ``exp(min(d_log_w,
   log(1000 / 16))) * s``, corners ``centre -/+ 0.5 size`` (the far one minus o), clipped to
   ``[0, image - o]``;
2. the pairs are sorted by score, highest first (of equal scores the earlier first; the spec
   leaves that order undefined) and the first ``pre_nms_count`` kept;
3. boxes narrower or lower (``x1 - x0 + o``) than ``min_size`` times the image scale
   (``im_info[2]``, and ``im_info[3]`` for the width when given) are removed;
4. NMS with an adaptive threshold: a box is kept when its IoU (with the +o convention) with every
   box kept so far is at most the threshold, which starts at ``nms_threshold`` and, after each kept
   box, is multiplied by ``nms_eta`` while ``nms_eta < 1`` and it is above 0.5; at most
   ``post_nms_count`` boxes are kept.

Outputs: the kept ROIs and scores of all images, image after image, and the count per image.
OpenVINO's reference code and OpenVINO CPU fill in the IoU convention and the image scale of
``min_size``; both ignore ``nms_eta`` (a recorded deviation).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute
from reference_plugin.ops.op_proposal import iou

F32 = np.float32
#: the largest d_log_w / d_log_h applied (float32 of log(1000 / 16), as OpenVINO's reference code)
MAX_DELTA_LOG_WH = F32(np.log(1000.0 / 16.0))


def decode(anchors: np.ndarray, deltas: np.ndarray, height: F32, width: F32, offset: F32) -> np.ndarray:
    """[K, 4] boxes from [K, 4] anchors and [K, 4] deltas, clipped to ``[0, size - offset]``."""
    x0, y0, x1, y1 = (anchors[:, i] for i in range(4))
    dx, dy, dw, dh = (deltas[:, i] for i in range(4))
    ww, hh = x1 - x0 + offset, y1 - y0 + offset
    cx, cy = x0 + F32(0.5) * ww, y0 + F32(0.5) * hh
    px, py = dx * ww + cx, dy * hh + cy
    pw = np.exp(np.minimum(dw, MAX_DELTA_LOG_WH)) * ww
    ph = np.exp(np.minimum(dh, MAX_DELTA_LOG_WH)) * hh
    boxes = np.stack([px - F32(0.5) * pw, py - F32(0.5) * ph, px + F32(0.5) * pw - offset,
                      py + F32(0.5) * ph - offset], axis=1).astype(F32)
    limit = np.array([width, height, width, height], F32) - offset
    return np.maximum(F32(0), np.minimum(boxes, limit)).astype(F32)


def image_boxes(anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray, height: F32, width: F32,
                offset: F32) -> tuple[np.ndarray, np.ndarray]:
    """Decoded boxes [H * W * A, 4] and their scores, in the order (h, w, a): ``anchors`` [H * W * A, 4],
    ``deltas`` [4 * A, H, W] and ``scores`` [A, H, W]."""
    a, h, w = scores.shape
    d = deltas.reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
    return decode(anchors.reshape(-1, 4), d, height, width, offset), scores.transpose(1, 2, 0).reshape(-1)


def top(scores: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` highest scores, highest first (equal scores: the earlier first)."""
    return np.argsort(-scores.astype(np.float64), kind="stable")[:max(count, 0)]


def adaptive_nms(boxes: np.ndarray, threshold: float, eta: float, limit: int, offset: F32) -> list[int]:
    """Indices (into ``boxes``, sorted by score) kept by NMS with the adaptive threshold."""
    kept: list[int] = []
    thr = F32(threshold)
    for i in range(boxes.shape[0]):
        if len(kept) >= limit:
            break
        if kept and np.any(iou(boxes[i], boxes[kept], offset) > thr):
            continue
        kept.append(i)
        if eta < 1 and thr > F32(0.5):
            thr = F32(thr * F32(eta))
    return kept


@register_op("GenerateProposals", since=9)
class GenerateProposals(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.a = dict(node.attrs)
        self.offset = F32(0) if self.a["normalized"] else F32(1)

    def _run(self, info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray,
             scores: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        info, anchors, deltas, scores = (to_compute(x, et).astype(F32) for x in (info, anchors, deltas, scores))
        n, count, h, w = scores.shape
        if anchors.shape[:3] != (h, w, count) or deltas.shape[1:] != (4 * count, h, w):
            raise self.fail(f"anchors {list(anchors.shape)}, deltas {list(deltas.shape)} and scores "
                            f"{list(scores.shape)} disagree; they must be [H, W, A, 4], [N, 4A, H, W], [N, A, H, W].")
        rois, kept_scores, counts = [], [], []
        for b in range(n):
            boxes, score = self._image(info[b], anchors, deltas[b], scores[b])
            rois.append(boxes)
            kept_scores.append(score)
            counts.append(len(score))
        out_rois = np.concatenate(rois).reshape(-1, 4)
        out_scores = np.concatenate(kept_scores).reshape(-1)
        return (store(out_rois, et), store(out_scores, et),
                np.array(counts, self.a["roi_num_type"].to_dtype()))

    def _image(self, info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray,
               scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, o = self.a, self.offset
        boxes, score = image_boxes(anchors, deltas, scores, info[0], info[1], o)
        order = top(score, a["pre_nms_count"])
        boxes, score = boxes[order], score[order]
        scale_h = info[2]
        scale_w = info[3] if info.size == 4 else scale_h
        bw, bh = boxes[:, 2] - boxes[:, 0] + o, boxes[:, 3] - boxes[:, 1] + o
        big = (F32(a["min_size"]) * scale_w <= bw) & (F32(a["min_size"]) * scale_h <= bh)
        boxes, score = boxes[big], score[big]
        kept = adaptive_nms(boxes, a["nms_threshold"], a["nms_eta"], a["post_nms_count"], o)
        return boxes[kept].astype(F32), score[kept].astype(F32)
