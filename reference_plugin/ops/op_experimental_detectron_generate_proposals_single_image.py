"""ExperimentalDetectronGenerateProposalsSingleImage-6, as the spec's steps (float32):

1. the proposals in the order (h, w, a) — anchors [H * W * A, 4], deltas [4 * A, H, W] read as
   [A, 4, H, W], scores [A, H, W] — decoded as GenerateProposals-9 does with ``normalized`` false
   (sizes ``x1 - x0 + 1``) and clipped to ``[0, image - 1]`` (:func:`.op_generate_proposals.decode`);
2. proposals narrower or lower (``x1 - x0 + 1``) than ``min_size`` are removed;
3. sorted by score, highest first (of equal scores the earlier first; the spec leaves that order
   undefined), the first ``pre_nms_count`` kept;
4. greedy NMS with ``nms_threshold``: a box dies when its IoU with a kept box exceeds it (IoU
   without the +1, as OpenVINO's reference code: the spec does not say), at most
   ``post_nms_count`` kept;
5. the kept ROIs and scores, then rows of zeros up to ``post_nms_count``.

OpenVINO's reference code and OpenVINO CPU zero the score of a small proposal instead of removing
it, so it can fill a row after the others (a recorded deviation).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute
from reference_plugin.ops.op_generate_proposals import F32, adaptive_nms, image_boxes, top


def single_image(info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray, min_size: float,
                 nms_threshold: float, pre_nms: int, post_nms: int) -> tuple[np.ndarray, np.ndarray]:
    """The kept boxes and their scores (float32, before the zero rows)."""
    one = F32(1)
    boxes, score = image_boxes(anchors, deltas, scores, info[0], info[1], one)
    bw, bh = boxes[:, 2] - boxes[:, 0] + one, boxes[:, 3] - boxes[:, 1] + one
    big = (F32(min_size) <= bw) & (F32(min_size) <= bh)
    boxes, score = boxes[big], score[big]
    order = top(score, pre_nms)
    boxes, score = boxes[order], score[order]
    kept = adaptive_nms(boxes, nms_threshold, 1.0, post_nms, F32(0))
    return boxes[kept], score[kept]


@register_op("ExperimentalDetectronGenerateProposalsSingleImage", since=6)
class ExperimentalDetectronGenerateProposalsSingleImage(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.a = dict(node.attrs)

    def _run(self, info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray,
             scores: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        info, anchors, deltas, scores = (to_compute(x, et).astype(F32) for x in (info, anchors, deltas, scores))
        a, h, w = scores.shape
        if anchors.shape != (h * w * a, 4) or deltas.shape != (4 * a, h, w):
            raise self.fail(f"anchors {list(anchors.shape)}, deltas {list(deltas.shape)} and scores "
                            f"{list(scores.shape)} disagree; they must be [H * W * A, 4], [4A, H, W], [A, H, W].")
        post = self.a["post_nms_count"]
        boxes, score = single_image(info.reshape(-1), anchors, deltas, scores, self.a["min_size"],
                                    self.a["nms_threshold"], self.a["pre_nms_count"], post)
        rois, out_scores = np.zeros((post, 4), F32), np.zeros(post, F32)
        rois[:len(score)], out_scores[:len(score)] = boxes, score
        return store(rois, et), store(out_scores, et)
