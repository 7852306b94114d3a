"""Stimulus cases of GroupConvolutionBackpropData-1, NonMaxSuppression-1/3/4/5/9 and DetectionOutput-1/8,
which had none (issue #20 gap): where a device tiles them.

* **GroupConvolutionBackpropData** — channels per group (the reduction) of remainder length,
  depthwise (one channel per group, 65 groups), 256 channels in 4 groups, a 56×56 output, 1-D
  and 3-D, f16/bf16/i32/f64 and a dynamic case. Groups >= 2 (OpenVINO CPU cannot compile one).
* **NonMaxSuppression** — 129 and 1,000 boxes per class in a 40×40 field (selection loops and IoU
  matrices past the vector widths; about a third of the boxes suppressed, the
  ``max_output_boxes_per_class`` of 1,000 never reached), several classes and batch items, both box
  encodings, an f16 case and (versions 5 and 9) a dynamic box count. Boxes have integer corners, so
  IoUs are exact fractions; the ``iou_threshold`` is the value in [0.3, 0.7] farthest from every IoU
  the case holds, and the scores are distinct, ``(k + 0.5) / count``, none equal to the
  ``score_threshold`` 1/8: no decision depends on rounding (the spec leaves ties open).
* **DetectionOutput** — 129 and 2,000 priors (1,000 with SSD's 21 classes at exhaustive depth),
  ``top_k`` 400 and ``keep_top_k`` 200, shared and per-class locations. Class scores are distinct;
  thresholds are multiples of 1/1024 (exact in f32), as the generated cases draw them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._stimulus_numeric import const_rng, stim, type_depth
from ovconform.opcases.depth import Depth

F32 = Type.f32


# -- GroupConvolutionBackpropData -----------------------------------------------------------------------------

def group_backprop_make(label: str, groups: int, cin_g: int, cout_g: int, kernel: tuple[int, ...], stride: int,
                        pad: int, et: Type = F32, output_padding: int = 0) -> SR.MakeAt:
    """Filters ``[groups, cin_g, cout_g, *kernel]`` (Constants, the same at every shape of a dynamic
    case); the case's shape is the data's ``[N, groups·cin_g, *spatial]``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rank = len(kernel)
        w = SR.small_values(const_rng("GroupConvolutionBackpropData", 1, label), (groups, cin_g, cout_g, *kernel), et)
        x = b.param("data", SR.small_values(b.rng, shape, et, 3), et)
        return opset.group_convolution_backprop_data(x, b.const(w, et), [stride] * rank, None, [pad] * rank,
                                                     [pad] * rank, [1] * rank, "explicit",
                                                     [output_padding] * rank if output_padding else None)

    return make


@S.register_stimuli("GroupConvolutionBackpropData", 1)
def group_backprop_recipe() -> Iterable[S.Stimulus]:
    op = "GroupConvolutionBackpropData"
    for c in S.REMAINDERS:  # input channels per group: the reduction
        label = f"g2-c{c}-s2"
        yield stim(op, 1, label, group_backprop_make(label, 2, c, 4, (3, 3), 2, 1, output_padding=1),
                   (1, 2 * c, 9, 9), depth=S.remainder_depth(c))
    yield stim(op, 1, "depthwise-g65", group_backprop_make("depthwise-g65", 65, 1, 1, (3, 3), 2, 1),
               (1, 65, 9, 9))
    yield stim(op, 1, "g3-cout17", group_backprop_make("g3-cout17", 3, 5, 17, (3, 3), 1, 1), (1, 15, 7, 7))
    yield stim(op, 1, "g2-c17-1d", group_backprop_make("g2-c17-1d", 2, 17, 4, (3,), 2, 0), (2, 34, 33))
    yield stim(op, 1, "g2-c9-3d", group_backprop_make("g2-c9-3d", 2, 9, 4, (3, 3, 3), 2, 1), (1, 18, 5, 5, 5))
    yield stim(op, 1, "g4-c64-k4s2", group_backprop_make("g4-c64-k4s2", 4, 64, 8, (4, 4), 2, 1), (1, 256, 14, 14),
               size="large", values="long-reduction")
    yield stim(op, 1, "hw56-depthwise", group_backprop_make("hw56-depthwise", 16, 1, 1, (2, 2), 2, 0),
               (1, 16, 28, 28), size="large")
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64):
        label = f"{et.name}-g2-c17-s2"
        yield stim(op, 1, label, group_backprop_make(label, 2, 17, 4, (3, 3), 2, 1, et), (1, 34, 9, 9), et=et,
                   depth=type_depth(et))
    yield stim(op, 1, "dynamic", group_backprop_make("dynamic", 2, 17, 4, (3, 3), 2, 1), (1, 34, 5, 5),
               shapes=((1, 34, 5, 5), (2, 34, 9, 9), (3, 34, 13, 13)))


# -- NonMaxSuppression ------------------------------------------------------------------------------------------

def integer_boxes(rng: np.random.Generator, shape: tuple[int, int], field: int, center: bool) -> np.ndarray:
    """``[B, N, 4]`` boxes with integer coordinates in ``[0, field]`` and sides 2..20 (corners in
    either order), or as integer centre and even size (``center``)."""
    lo = rng.integers(0, field - 20, (*shape, 2))
    size = rng.integers(1, 10, (*shape, 2)) * 2
    if center:
        return np.concatenate([lo + size // 2, size], axis=-1)[..., [1, 0, 3, 2]]  # x, y, w, h
    corners = np.concatenate([lo, lo + size], axis=-1)
    flip = rng.random(shape) < 0.5
    corners[flip] = corners[flip][:, [2, 3, 0, 1]]
    return corners


def _corner_form(boxes: np.ndarray, center: bool) -> np.ndarray:
    if center:
        x, y, w, h = (boxes[..., i].astype(np.float64) for i in range(4))
        return np.stack([y - h / 2, x - w / 2, y + h / 2, x + w / 2], axis=-1)
    y, x = np.sort(boxes[..., [0, 2]], axis=-1), np.sort(boxes[..., [1, 3]], axis=-1)
    return np.stack([y[..., 0], x[..., 0], y[..., 1], x[..., 1]], axis=-1).astype(np.float64)


def safe_iou_threshold(boxes: np.ndarray, center: bool, low: float = 0.3, high: float = 0.7) -> float:
    """The threshold in ``[low, high]`` farthest from every pairwise IoU of the boxes of each batch
    item (a multiple of 1/1024 near the middle of the widest gap)."""
    values = [low, high]
    for item in _corner_form(boxes, center):
        y1, x1, y2, x2 = (item[:, i] for i in range(4))
        ih = np.clip(np.minimum(y2[:, None], y2) - np.maximum(y1[:, None], y1), 0, None)
        iw = np.clip(np.minimum(x2[:, None], x2) - np.maximum(x1[:, None], x1), 0, None)
        inter = ih * iw
        area = (y2 - y1) * (x2 - x1)
        iou = inter / (area[:, None] + area - inter)
        values += [float(v) for v in np.unique(iou[(iou >= low) & (iou <= high)])]
    grid = np.unique(values)
    gaps = np.diff(grid)
    best = int(np.argmax(gaps))
    return round((grid[best] + grid[best + 1]) / 2 * 1024) / 1024


def nms_make(version: int, classes: int, limit: int, *, et: Type = F32, center: bool = False, field: int = 40,
             descending: bool = True, batch: int = 1) -> SR.MakeAt:
    """The case's shape is ``(N,)`` boxes per batch item; scores ``(k + 0.5) / (B·C·N)`` for a
    permutation ``k`` and ``score_threshold`` 1/8 (no case has ``B·C·N ≡ 4 mod 8``, so no score
    equals it: the nearest is at least ``1/(4·B·C·N)`` away). The thresholds are Constants, the same
    at every shape of a dynamic case (whose boxes are the first ``N`` of one draw)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n = shape[0]
        rng = const_rng("NonMaxSuppression", version, f"boxes-{batch}-{field}-{center}")
        everything = integer_boxes(rng, (batch, 1000 if n <= 1000 else n), field, center)
        boxes = everything[:, :n]
        count = batch * classes * n
        if count % 8 == 4:
            raise ValueError(f"NonMaxSuppression stimulus: {count} scores would put one on the score threshold.")
        scores = ((b.rng.permutation(count) + 0.5) / count).reshape(batch, classes, n)
        iou = safe_iou_threshold(everything[:, :max(n, 129)], center)
        dt = et.to_dtype()
        inputs: list[Any] = [b.param("boxes", boxes.astype(dt), et), b.param("scores", scores.astype(dt), et),
                             b.const(np.array(limit, np.int64)), b.const(np.array(iou, dt), et),
                             b.const(np.array(0.125, dt), et)]
        attrs: dict[str, Any] = {"box_encoding": "center" if center else "corner",
                                 "sort_result_descending": descending}
        if version >= 3:
            attrs["output_type"] = Type.i64
        return opset.non_max_suppression(*inputs, **attrs, version=version)

    return make


def nms_recipe(version: int) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        op = "NonMaxSuppression"
        yield S.Stimulus(op, version, "boxes129", "remainder", "ordinary", F32,
                         SR.node_case(op, version, "boxes129", nms_make(version, 3, 200), (129,)))
        yield S.Stimulus(op, version, "boxes1000", "large", "ordinary", F32,
                         SR.node_case(op, version, "boxes1000", nms_make(version, 2, 1000), (1000,)))
        yield S.Stimulus(op, version, "center-b2-boxes1000", "large", "ordinary", F32,
                         SR.node_case(op, version, "center-b2-boxes1000",
                                      nms_make(version, 2, 200, center=True, batch=2, descending=False),
                                      (1000,)), Depth.EXHAUSTIVE)
        yield S.Stimulus(op, version, "f16-boxes65", "remainder", "ordinary", Type.f16,
                         SR.node_case(op, version, "f16-boxes65", nms_make(version, 2, 33, et=Type.f16, field=200),
                                      (65,)))
        if version >= 5:  # the fixed-size outputs of 1-4 follow N: no shape-independent comparison
            yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", F32,
                             SR.node_case(op, version, "dynamic", nms_make(version, 2, 40), (7,),
                                          ((7,), (65,), (129,))), dynamic=True)

    return recipe


for _version in (1, 3, 4, 5, 9):
    S.register_stimuli("NonMaxSuppression", _version)(nms_recipe(_version))


# -- DetectionOutput --------------------------------------------------------------------------------------------

def detection_make(version: int, classes: int, *, share_location: bool = True, top_k: int = 400,
                   keep_top_k: int = 200, et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(N, priors)``: normalized priors with variances, box logits in
    [-1, 1], distinct class scores, background class 0, ``nms_threshold`` 0.45 and
    ``confidence_threshold`` 1/64 (SSD's settings, as multiples of 1/1024)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, priors = shape
        loc_classes = 1 if share_location else classes
        dt = et.to_dtype()
        xy = b.rng.uniform(0, 0.8, (priors, 2))
        boxes = np.concatenate([xy, xy + b.rng.uniform(0.05, 0.2, (priors, 2))], axis=1).reshape(-1)
        variances = np.tile([0.1, 0.1, 0.2, 0.2], priors)
        loc = b.param("box_logits", b.uniform((n, priors * loc_classes * 4), et, -1, 1), et)
        grid = b.rng.permutation(n * priors * classes).reshape(n, -1)
        conf = b.param("class_preds", ((grid + 0.5) / grid.size).astype(dt), et)
        prior = b.param("proposals", np.stack([boxes, variances])[None].astype(dt), et)
        attrs: dict[str, Any] = {"background_label_id": 0, "top_k": top_k, "keep_top_k": [keep_top_k],
                                 "code_type": "caffe.PriorBoxParameter.CENTER_SIZE", "nms_threshold": 461 / 1024,
                                 "confidence_threshold": 16 / 1024, "share_location": share_location,
                                 "normalized": True, "variance_encoded_in_target": False,
                                 "clip_after_nms": False, "clip_before_nms": False, "decrease_label_id": False,
                                 "input_height": 1, "input_width": 1, "objectness_score": 0.0}
        if version == 1:
            attrs["num_classes"] = classes
        return opset.detection_output(loc, conf, prior, attrs, version=version)

    return make


def detection_recipe(version: int) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        op = "DetectionOutput"
        yield stim(op, version, "priors129", detection_make(version, 5), (1, 129))
        yield stim(op, version, "priors129-per-class", detection_make(version, 3, share_location=False), (2, 129))
        yield stim(op, version, "priors2000", detection_make(version, 3), (1, 2000), size="large")
        yield stim(op, version, "priors1000-c21", detection_make(version, 21), (1, 1000), size="large",
                   depth=Depth.EXHAUSTIVE)
        yield stim(op, version, "f16-priors65", detection_make(version, 3, et=Type.f16), (1, 65), et=Type.f16)

    return recipe


for _version in (1, 8):
    S.register_stimuli("DetectionOutput", _version)(detection_recipe(_version))
