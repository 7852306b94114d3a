"""Stimulus cases of MatrixNms-8, MulticlassNms-8/9 and NMSRotated-13 (issue #20's sizes for the ops
of issue #22): box counts past the vector widths (65, 129), several classes and images, an f16
case and a dynamic box count (7, 65, 129 boxes on one compiled model).

Boxes crowd one field so that a third to a half of them are suppressed or decayed; scores are all
different, ``(k + 0.5) / count`` for a permutation k (ties in score leave the order open), thresholds
are multiples of 1/1024 (exact in f32; MulticlassNms' IoU threshold on whole-pixel boxes, 769/2048,
is an odd multiple of 1/2048, which no IoU of such boxes equals: OpenVINO CPU suppresses at an IoU
equal to the threshold, a recorded deviation). ``sort_result_type`` is ``score`` or ``classid``
(``none`` has no order to compare) and ``nms_eta`` is 1 (below 1 OpenVINO CPU deviates: see the
recorded deviation). Rotated boxes are elongated (sides 1..3 and 0.3..1) at any angle in a 6 x 6 field.
Every input but NMSRotated's scalars is a Parameter; those are Constants, the same at every shape.
The REFERENCE kernels are the specs' loops, so counts stay at 129 boxes (65 for NMSRotated's
polygon clipping, 129 at exhaustive depth).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._stimulus_numeric import const_rng, stim
from ovconform.opcases.depth import Depth

F32 = Type.f32


def _boxes(rng: np.random.Generator, shape: tuple[int, ...], normalized: bool) -> np.ndarray:
    if normalized:
        low = rng.uniform(0, 0.8, (*shape, 2))
        return np.concatenate([low, low + rng.uniform(0.05, 0.3, (*shape, 2))], axis=-1)
    corner = rng.integers(0, 40, (*shape, 2))
    return np.concatenate([corner, corner + rng.integers(3, 12, (*shape, 2))], axis=-1).astype(np.float64)


def _scores(b: S.StimulusBuilder, shape: tuple[int, ...]) -> np.ndarray:
    count = int(np.prod(shape))
    return ((b.rng.permutation(count) + 0.5) / count).reshape(shape)


def boxes_make(op: str, version: int, batch: int, classes: int, attrs: dict[str, Any], *, et: Type = F32,
               normalized: bool = True, rois: bool = False) -> SR.MakeAt:
    """The case's shape is ``(N,)`` boxes per image; the boxes of a dynamic case are the first N of
    one draw (of 129 per image, or of N when more)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n = shape[0]
        rng = const_rng(op, version, f"boxes-{batch}-{classes}-{normalized}-{rois}")
        dt = et.to_dtype()
        if rois:  # per-class boxes [C, M, 4], M = batch * n split unevenly (one image empty when batch > 2)
            total = batch * n
            boxes = _boxes(rng, (classes, max(total, 129 * batch)), normalized)[:, :total]
            cuts = np.linspace(0, total, batch + 1).astype(int)
            if batch > 2:
                cuts[1] = 0
            pb = b.param("boxes", boxes.astype(dt), et)
            ps = b.param("scores", _scores(b, (classes, total)).astype(dt), et)
            pr = b.param("roisnum", np.diff(cuts).astype(np.int32), Type.i32)
            return opset.multiclass_nms(pb, ps, pr, **attrs, normalized=normalized)
        boxes = _boxes(rng, (batch, max(n, 129)), normalized)[:, :n]
        pb = b.param("boxes", boxes.astype(dt), et)
        ps = b.param("scores", _scores(b, (batch, classes, n)).astype(dt), et)
        if op == "MatrixNms":
            return opset.matrix_nms(pb, ps, **attrs, normalized=normalized)
        return opset.multiclass_nms(pb, ps, **attrs, normalized=normalized, version=version)

    return make


def rotated_make(batch: int, classes: int, limit: int, *, et: Type = F32, descending: bool = True,
                 clockwise: bool = True) -> SR.MakeAt:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n = shape[0]
        rng = const_rng("NMSRotated", 13, f"boxes-{batch}")
        count = max(n, 129)
        centre = rng.uniform(0, 6, (batch, count, 2))
        long_side, short_side = rng.uniform(1, 3, (batch, count)), rng.uniform(0.3, 1, (batch, count))
        size = np.stack([long_side, short_side], axis=-1)
        angle = rng.uniform(-np.pi, np.pi, (batch, count, 1))
        boxes = np.concatenate([centre, size, angle], axis=-1)[:, :n]
        dt = et.to_dtype()
        pb = b.param("boxes", boxes.astype(dt), et)
        ps = b.param("scores", _scores(b, (batch, classes, n)).astype(dt), et)
        return opset.nms_rotated(pb, ps, b.const(np.array(limit, np.int64)), b.const(np.array(0.25, dt), et),
                                 b.const(np.array(0.125, dt), et), descending, "i64", clockwise)

    return make


@S.register_stimuli("MatrixNms", 8)
def matrix_nms_recipe() -> Iterable[S.Stimulus]:
    op, v = "MatrixNms", 8
    gauss = {"sort_result_type": "score", "decay_function": "gaussian", "gaussian_sigma": 2.0,
             "score_threshold": 0.125, "post_threshold": 0.0625, "keep_top_k": 200}
    linear = {"sort_result_type": "classid", "sort_result_across_batch": True, "decay_function": "linear",
              "score_threshold": 0.0625, "post_threshold": 0.125, "nms_top_k": 100, "background_class": 0}
    yield stim(op, v, "boxes129-gaussian", boxes_make(op, v, 1, 3, gauss), (129,))
    yield stim(op, v, "b2-boxes129-linear", boxes_make(op, v, 2, 3, linear, normalized=False), (129,))
    yield stim(op, v, "f16-boxes65", boxes_make(op, v, 1, 2, gauss, et=Type.f16), (65,), et=Type.f16)
    yield stim(op, v, "dynamic", boxes_make(op, v, 2, 2, gauss), (7,), shapes=((7,), (65,), (129,)))


def _multiclass_recipe(version: int) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        op = "MulticlassNms"
        score = {"sort_result_type": "score", "iou_threshold": 0.5, "score_threshold": 0.125, "keep_top_k": 200}
        classid = {"sort_result_type": "classid", "sort_result_across_batch": True, "iou_threshold": 769 / 2048,
                   "score_threshold": 0.0625, "nms_top_k": 100, "background_class": 1}
        yield stim(op, version, "boxes129", boxes_make(op, version, 1, 3, score), (129,))
        yield stim(op, version, "b2-boxes129-pixels", boxes_make(op, version, 2, 3, classid, normalized=False),
                   (129,))
        yield stim(op, version, "f16-boxes65", boxes_make(op, version, 1, 2, score, et=Type.f16), (65,),
                   et=Type.f16)
        yield stim(op, version, "dynamic", boxes_make(op, version, 2, 2, score), (7,), shapes=((7,), (65,), (129,)))
        if version == 9:
            yield stim(op, version, "rois-b3-boxes65", boxes_make(op, version, 3, 2, classid, rois=True), (65,))

    return recipe


for _version in (8, 9):
    S.register_stimuli("MulticlassNms", _version)(_multiclass_recipe(_version))


@S.register_stimuli("NMSRotated", 13)
def nms_rotated_recipe() -> Iterable[S.Stimulus]:
    op, v = "NMSRotated", 13
    yield stim(op, v, "boxes65", rotated_make(1, 2, 40), (65,))
    yield stim(op, v, "b2-boxes129", rotated_make(2, 2, 200, descending=False, clockwise=False), (129,),
               size="large", depth=Depth.EXHAUSTIVE)
    yield stim(op, v, "f16-boxes33", rotated_make(1, 2, 20, et=Type.f16), (33,), et=Type.f16)
    yield stim(op, v, "dynamic", rotated_make(1, 2, 30), (7,), shapes=((7,), (33,), (65,)))
