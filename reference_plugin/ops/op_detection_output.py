"""DetectionOutput-1/8, as the spec's reference computes it (in the input type's arithmetic; f16
and bf16 in float32).

Per image: box logits are decoded against the priors (``CORNER``: prior + variance * delta;
``CENTER_SIZE``: centre shifted by variance * delta * size, size scaled by exp(variance * delta);
variances from the priors' second row unless encoded in the target; non-normalized priors are
divided by input_width / input_height first), optionally clipped to [0, 1]. With ARM inputs the
priors are first decoded by the ARM box logits (so pixel priors are divided by the input size on
both decodes, as the reference does), and a prior whose ARM objectness (second value)
is below ``objectness_score`` scores 1 for the background class and 0 for the others.
Then, without ``decrease_label_id`` (Caffe): per class other than background, the scores above
``confidence_threshold`` sorted descending (ties: lower prior first), the first top_k, greedy NMS
dropping boxes whose Jaccard overlap with a kept one exceeds ``nms_threshold``; with it
(MXNet): each prior's best class among 1..C-1 (not background) at or above the threshold, sorted
and cut to top_k across classes, greedy NMS within each class. If more than keep_top_k[0] (>= 0)
detections remain, the best keep_top_k[0] (ties: lower prior first) are kept. Rows
``[image, label (minus 1 with decrease_label_id), score, xmin, ymin, xmax, ymax]`` follow image,
then ascending label, then NMS order; boxes clipped with ``clip_after_nms``. The row after the
last detection starts with -1; every other value is 0.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import compute_dtype, store, to_compute


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if not (iw > 0 and ih > 0):
        return 0.0
    inter = iw * ih

    def size(box: np.ndarray) -> float:
        return 0 if box[2] < box[0] or box[3] < box[1] else (box[2] - box[0]) * (box[3] - box[1])

    return inter / (size(a) + size(b) - inter)


def greedy(boxes: np.ndarray, order: list[int], threshold: float) -> list[int]:
    kept: list[int] = []
    for idx in order:
        if all(not jaccard(boxes[idx], boxes[k]) > threshold for k in kept):
            kept.append(idx)
    return kept


@register_op("DetectionOutput", since=1)
class DetectionOutput(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.a = dict(node.attrs)
        self.size = 4 if self.a["normalized"] else 5

    def _run(self, loc: np.ndarray, conf: np.ndarray, priors: np.ndarray, *arm: np.ndarray) -> tuple[np.ndarray, ...]:
        a, et = self.a, self.in_types[0]
        dt = compute_dtype(et)
        loc, conf, priors = (to_compute(x, et).astype(dt) for x in (loc, conf, priors))
        arm = tuple(to_compute(x, et).astype(dt) for x in arm)
        n = loc.shape[0]
        n_priors = priors.shape[2] // self.size
        classes = a.get("num_classes") or conf.shape[1] // n_priors
        loc_classes = 1 if a["share_location"] else classes
        rows = self.node.get_output_partial_shape(0)[2]
        total = rows.get_length() if rows.is_static else self._rows(n, classes, n_priors)
        out = np.zeros((total, 7), dt)
        count = 0
        for i in range(n):
            scores = conf[i].reshape(n_priors, classes).T.copy()  # [classes, P]
            if arm:
                low = arm[0][i].reshape(n_priors, 2)[:, 1] < dt.type(a["objectness_score"])
                scores[:, low] = 0
                if 0 <= a["background_label_id"] < classes:
                    scores[a["background_label_id"], low] = 1
            boxes = self._decode_all(i, loc, priors, arm, n_priors, loc_classes)
            picked = self._select(scores, boxes, classes)
            for label in sorted(picked):
                box_set = boxes[-1 if a["share_location"] else label]
                for idx in picked[label]:
                    if count >= total:
                        raise self.fail(f"{count + 1} detections do not fit the {total} output rows.")
                    box = box_set[idx]
                    if a["clip_after_nms"]:
                        box = np.clip(box, 0, 1)
                    out[count] = [i, label - 1 if a["decrease_label_id"] else label, scores[label, idx], *box]
                    count += 1
        if count < total:
            out[count, 0] = -1
        return (store(out.reshape(1, 1, total, 7), self.out_types[0]),)

    def _rows(self, n: int, classes: int, n_priors: int) -> int:
        a = self.a
        if a["keep_top_k"][0] > 0:
            return n * a["keep_top_k"][0]
        return n * (a["top_k"] if a["top_k"] > 0 else n_priors) * classes

    def _priors(self, i: int, priors: np.ndarray, n_priors: int) -> tuple[np.ndarray, np.ndarray | None]:
        data = priors[0 if priors.shape[0] == 1 else i].reshape(-1)
        boxes = data[:n_priors * self.size].reshape(n_priors, self.size)[:, self.size - 4:]
        if self.a["variance_encoded_in_target"]:
            return boxes, None
        var = data[n_priors * self.size:n_priors * self.size + n_priors * 4].reshape(n_priors, 4)
        return boxes, var

    def _decode(self, prior: np.ndarray, var: np.ndarray | None, delta: np.ndarray) -> np.ndarray:
        a = self.a
        dt = prior.dtype.type
        if not a["normalized"]:
            prior = prior / np.array([a["input_width"], a["input_height"]] * 2, prior.dtype)
        if var is not None:
            delta = delta * var
        if a["code_type"].endswith("CORNER"):
            out = prior + delta
        else:
            w, h = prior[:, 2] - prior[:, 0], prior[:, 3] - prior[:, 1]
            cx, cy = (prior[:, 0] + prior[:, 2]) / dt(2), (prior[:, 1] + prior[:, 3]) / dt(2)
            dcx, dcy = delta[:, 0] * w + cx, delta[:, 1] * h + cy
            dw, dh = np.exp(delta[:, 2]) * w, np.exp(delta[:, 3]) * h
            out = np.stack([dcx - dw / dt(2), dcy - dh / dt(2), dcx + dw / dt(2), dcy + dh / dt(2)], axis=1)
        if a["clip_before_nms"]:
            out = np.clip(out, 0, 1)
        return out.astype(prior.dtype)

    def _decode_all(self, i: int, loc: np.ndarray, priors: np.ndarray, arm: tuple[np.ndarray, ...], n_priors: int,
                    loc_classes: int) -> dict[int, np.ndarray]:
        a = self.a
        prior, var = self._priors(i, priors, n_priors)
        deltas = loc[i].reshape(n_priors, loc_classes, 4)
        arm_deltas = arm[1][i].reshape(n_priors, loc_classes, 4) if arm else None
        out = {}
        for c in range(loc_classes):
            label = -1 if a["share_location"] else c
            if -1 < a["background_label_id"] == label:
                continue
            base = prior if arm_deltas is None else self._decode(prior, var, arm_deltas[:, c])
            out[label] = self._decode(base, var, deltas[:, c])
        return out

    def _select(self, scores: np.ndarray, boxes: dict[int, np.ndarray], classes: int) -> dict[int, list[int]]:
        a = self.a
        thr = scores.dtype.type(a["confidence_threshold"])
        picked: dict[int, list[int]] = {}
        if not a["decrease_label_id"]:
            for c in range(classes):
                label = -1 if a["share_location"] else c
                if c == a["background_label_id"] or label not in boxes:
                    continue
                cand = [k for k in np.argsort(-scores[c], kind="stable") if scores[c, k] > thr]
                if a["top_k"] > -1:
                    cand = cand[:a["top_k"]]
                picked[c] = greedy(boxes[label], [int(k) for k in cand], a["nms_threshold"])
        else:
            picked = self._mxnet(scores, boxes, classes, thr)
        total = sum(len(v) for v in picked.values())
        keep = a["keep_top_k"][0]
        if keep > -1 and total > keep:
            flat = sorted(((scores[c, k], k, c) for c, ks in sorted(picked.items()) for k in ks),
                          key=lambda t: (-t[0], t[1]))[:keep]
            picked = {}
            for _, k, c in flat:
                picked.setdefault(c, []).append(k)
        return picked

    def _mxnet(self, scores: np.ndarray, boxes: dict[int, np.ndarray], classes: int,
               thr: float) -> dict[int, list[int]]:
        a = self.a
        bg = a["background_label_id"]
        pairs = []
        for p in range(scores.shape[1]):
            best, cls = -1.0, 0
            for c in range(1, classes):
                if -1 < bg == c:
                    continue
                if scores[c, p] > best:
                    best, cls = scores[c, p], c
            if cls > 0 and best >= thr:
                pairs.append((best, cls, p))
        pairs.sort(key=lambda t: (-t[0], t[2]))
        if a["top_k"] != -1:
            pairs = pairs[:a["top_k"]]
        picked: dict[int, list[int]] = {}
        for _, cls, p in pairs:
            box_set = boxes[-1 if a["share_location"] else cls]
            kept = picked.setdefault(cls, [])
            if all(not jaccard(box_set[p], box_set[k]) > a["nms_threshold"] for k in kept):
                kept.append(p)
        return picked
