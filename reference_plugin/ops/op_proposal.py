"""Proposal-1/4, as the spec's reference computes it (float32).

Anchors (index ratio * len(scale) + scale) are boxes around the centre ``(base_size - o) / 2`` of
widths ``round(sqrt(base_size² / ratio)) * scale`` and heights ``round(width * ratio) * scale``
(o = 1 and rounding for Caffe; o = 0, no rounding and a shift by -base_size / 2 for TensorFlow).
Per image, for every position (h, w) and anchor (in that order): the anchor moved by
``(w, h) * feat_stride`` (x and y swapped, and the anchor clipped to the image first, for
TensorFlow) is decoded with deltas ``(dx / box_coordinate_scale, dy / ..., dlogw / box_size_scale,
dlogh / ...)``: centre + d * size, size * exp(dlog); clipped to ``[0, image - o]`` with
``clip_before_nms``; its score (channel A + anchor) becomes 0 when its width or height (+ o) is
below ``min_size * scale``. The ``pre_nms_topn`` best scores (descending) go through greedy NMS
(a box dies when its IoU, with the +o convention, exceeds ``nms_thresh``) up to
``post_nms_topn`` survivors: rows ``[image, x0, y0, x1, y1]`` (clipped to ``[0, image]`` with
``clip_after_nms``, divided by the image size with ``normalize``), then zero rows, the first of
which starts with -1. Version 4 also returns the survivors' scores (zeros after them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute

F32 = np.float32


def anchors(attrs: dict[str, Any], tensorflow: bool) -> np.ndarray:
    """[A, 4] anchors (x0, y0, x1, y1)."""
    offset = F32(0 if tensorflow else 1)
    base = attrs["base_size"]
    area, centre = F32(base * base), F32(0.5) * (F32(base) - offset)
    out = []
    for ratio in attrs["ratio"]:
        r = F32(ratio)
        if tensorflow:
            w = np.sqrt(area / r)
            h = w * r
        else:
            w = F32(np.floor(np.sqrt(area / r) + F32(0.5)))
            h = F32(np.floor(w * r + F32(0.5)))
        for scale in attrs["scale"]:
            sw = F32(0.5) * (w * F32(scale) - offset)
            sh = F32(0.5) * (h * F32(scale) - offset)
            box = np.array([centre - sw, centre - sh, centre + sw, centre + sh], F32)
            out.append(box - F32(base * 0.5) if tensorflow else box)
    return np.array(out, F32)


def iou(box: np.ndarray, others: np.ndarray, offset: F32) -> np.ndarray:
    overlap = ((box[0] <= others[:, 2]) & (box[1] <= others[:, 3]) & (others[:, 0] <= box[2])
               & (others[:, 1] <= box[3]))
    w = np.maximum(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + offset, F32(0))
    h = np.maximum(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + offset, F32(0))
    inter = w * h
    a = (box[2] - box[0] + offset) * (box[3] - box[1] + offset)
    b = (others[:, 2] - others[:, 0] + offset) * (others[:, 3] - others[:, 1] + offset)
    with np.errstate(all="ignore"):
        return np.where(overlap, inter / (a + b - inter), F32(0)).astype(F32)


@register_op("Proposal", since=1)
class Proposal(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.a = dict(node.attrs)
        self.tf = self.a["framework"] == "tensorflow"
        self.offset = F32(0 if self.tf else 1)
        self.anchors = anchors(self.a, self.tf)

    def _run(self, probs: np.ndarray, deltas: np.ndarray, image: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        probs, deltas, image = (to_compute(x, et).astype(F32) for x in (probs, deltas, image))
        flat = image.reshape(-1)
        if flat.size not in (3, 4):
            raise self.fail(f"image_shape holds {flat.size} values; it must hold 3 or 4.")
        post = self.a["post_nms_topn"]
        n = probs.shape[0]
        rois = np.zeros((n, post, 5), F32)
        scores = np.zeros((n, post), F32)
        for b in range(n):
            boxes, score = self._decode(probs[b], deltas[b], flat)
            order = np.argsort(-score, kind="stable")[:min(score.size, self.a["pre_nms_topn"])]
            kept = self._nms(boxes[order])
            chosen = order[kept]
            out = boxes[chosen]
            if self.a["clip_after_nms"]:
                out = np.clip(out, F32(0), np.array([flat[1], flat[0], flat[1], flat[0]], F32))
            if self.a["normalize"]:
                out = out / np.array([flat[1], flat[0], flat[1], flat[0]], F32)
            rois[b, :len(chosen), 0] = b
            rois[b, :len(chosen), 1:] = out
            scores[b, :len(chosen)] = score[chosen]
            if len(chosen) < post:
                rois[b, len(chosen), 0] = -1
        outs = [store(rois.reshape(-1, 5), et)]
        if self.node.version >= 4:
            outs.append(store(scores.reshape(-1), et))
        return tuple(outs)

    def _decode(self, probs: np.ndarray, deltas: np.ndarray, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, o = self.a, self.offset
        count = self.anchors.shape[0]
        _, h, w = probs.shape
        img_h, img_w = image[0], image[1]
        scale_h = image[2]
        scale_w = image[3] if image.size == 4 else scale_h
        ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
        if self.tf:
            xs, ys = ys, xs
        shift = np.stack([xs, ys, xs, ys], axis=-1).astype(F32) * F32(a["feat_stride"])  # [h, w, 4]
        box = shift[:, :, None, :] + self.anchors[None, None]  # [h, w, A, 4]
        if self.tf:
            box = np.clip(box, F32(0), np.array([img_w, img_h, img_w, img_h], F32))
        d = deltas.reshape(count, 4, h, w).transpose(2, 3, 0, 1)  # [h, w, A, 4]
        dx, dy = d[..., 0] / F32(a["box_coordinate_scale"]), d[..., 1] / F32(a["box_coordinate_scale"])
        dw, dh = d[..., 2] / F32(a["box_size_scale"]), d[..., 3] / F32(a["box_size_scale"])
        ww, hh = box[..., 2] - box[..., 0] + o, box[..., 3] - box[..., 1] + o
        cx, cy = box[..., 0] + F32(0.5) * ww, box[..., 1] + F32(0.5) * hh
        px, py = dx * ww + cx, dy * hh + cy
        pw, ph = np.exp(dw) * ww, np.exp(dh) * hh
        out = np.stack([px - F32(0.5) * pw, py - F32(0.5) * ph, px + F32(0.5) * pw, py + F32(0.5) * ph], axis=-1)
        if a["clip_before_nms"]:
            out = np.clip(out, F32(0), np.array([img_w - o, img_h - o, img_w - o, img_h - o], F32))
        bw, bh = out[..., 2] - out[..., 0] + o, out[..., 3] - out[..., 1] + o
        score = probs[count:].transpose(1, 2, 0)  # [h, w, A]
        keep = (F32(a["min_size"]) * scale_w <= bw) & (F32(a["min_size"]) * scale_h <= bh)
        score = np.where(keep, score, F32(0))
        return out.reshape(-1, 4).astype(F32), score.reshape(-1).astype(F32)

    def _nms(self, boxes: np.ndarray) -> np.ndarray:
        dead = np.zeros(boxes.shape[0], bool)
        kept: list[int] = []
        for i in range(boxes.shape[0]):
            if dead[i]:
                continue
            kept.append(i)
            if len(kept) == self.a["post_nms_topn"]:
                break
            dead[i + 1:] |= iou(boxes[i], boxes[i + 1:], self.offset) > F32(self.a["nms_thresh"])
        return np.array(kept, np.int64)
