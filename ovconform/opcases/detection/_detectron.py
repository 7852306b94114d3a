"""Case strategies of ExperimentalDetectronPriorGridGenerator-6, ExperimentalDetectronROIFeatureExtractor-6
and ExperimentalDetectronDetectionOutput-6 (f32 or f16, every input a Parameter).

PriorGridGenerator: 1..3 priors centred on 0 (sizes 4..64), a feature map [1, C, H, W] (H, W
1..6) and an image [1, 1, H * s, W * s] (s in 4, 8, 16); ``h`` and ``w`` are 0 or the feature map's
(a smaller grid leaves the rows past it undefined in the spec), strides 0 (image / grid) or drawn.

ROIFeatureExtractor: 1..4 pyramid levels of scales ``2**(k + 3)`` or ``2**(k + 4)`` for an image
of 224 or 448 (levels 28, 14, 7, 4 on a side, C 1..3, values in [-4, 4]); 1..8 ROIs inside the
image with sides from 8 to the image size, so every level is reached; ROIs have an area (the spec's
log2 of 0 has no level); ``output_size`` 1..4, ``sampling_ratio`` 0..2, ``aligned`` either.

DetectionOutput: 1..4 clusters of 1..3 overlapping ROIs (so NMS acts), clusters 64 px apart in a
256 x 256 image and away from its far edges, deltas small enough (weights 10, 10, 5, 5, or 1 with
deltas a tenth) that refined boxes stay inside the image and inside their cluster's cell: the top
box of each cluster and class always survives NMS, so ``max_detections_per_image`` is drawn at most
that many (fewer detections leave rows undefined in the spec) and both of the spec's cases happen:
exactly M (class-major order) and more than M (highest scores). Scores are all different (ties
leave the order undefined). With ``class_agnostic_box_regression`` false the background scores
stay at or below the threshold: OpenVINO CPU never returns class 0 and does not clip boxes above
(records in ``deviations_detectron.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed


@register_case("ExperimentalDetectronPriorGridGenerator", 6)
def case_experimental_detectron_prior_grid_generator(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    p, c, h, w = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 6))
    s = draw(st.sampled_from([v for v in (4, 8, 16) if h * w * v * v <= 4096]))  # inputs stay small
    b = CaseBuilder(draw_seed(draw))
    half = b.rng.uniform(2, 32, (p, 2))
    priors = np.concatenate([-half, half], axis=1).astype(et.to_dtype())
    attrs = {"flatten": draw(st.booleans()), "h": draw(st.sampled_from((0, h))), "w": draw(st.sampled_from((0, w))),
             "stride_x": draw(st.sampled_from((0.0, 4.0, 8.0, 12.5))),
             "stride_y": draw(st.sampled_from((0.0, 4.0, 8.0, 12.5)))}
    fmap = b.param("feature_map", b.uniform((1, c, h, w), et, -1, 1))
    image = b.param("im_data", b.uniform((1, 1, h * s, w * s), et, 0, 1))
    node = opset.experimental_detectron_prior_grid_generator(b.param("priors", priors), fmap, image, attrs)
    return b.finish("ExperimentalDetectronPriorGridGenerator", 6, node)


@register_case("ExperimentalDetectronROIFeatureExtractor", 6)
def case_experimental_detectron_roi_feature_extractor(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    levels, shift = draw(st.integers(1, 4)), draw(st.sampled_from((3, 4)))
    image, c, r = 28 * 2 ** shift, draw(st.integers(1, 3)), draw(st.integers(1, 8))
    b = CaseBuilder(draw_seed(draw))
    scales = [2 ** (k + shift) for k in range(levels)]
    maps = [b.param(f"level{k}", b.uniform((1, c, -(-image // s), -(-image // s)), et, -4, 4))
            for k, s in enumerate(scales)]
    sides = np.exp(b.rng.uniform(np.log(8), np.log(image), (r, 2)))
    x0 = b.rng.uniform(0, image - sides[:, 0])
    y0 = b.rng.uniform(0, image - sides[:, 1])
    rois = np.stack([x0, y0, x0 + sides[:, 0], y0 + sides[:, 1]], axis=1).astype(et.to_dtype())
    attrs = {"output_size": draw(st.integers(1, 4)), "sampling_ratio": draw(st.integers(0, 2)),
             "pyramid_scales": scales, "aligned": draw(st.booleans())}
    node = opset.experimental_detectron_roi_feature_extractor([b.param("rois", rois), *maps], attrs)
    return b.finish("ExperimentalDetectronROIFeatureExtractor", 6, node)


@register_case("ExperimentalDetectronDetectionOutput", 6)
def case_experimental_detectron_detection_output(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    classes, clusters = draw(st.integers(2, 4)), draw(st.integers(1, 4))
    agnostic = draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    cells = b.rng.permutation(9)[:clusters]  # a 3 x 3 grid of 64-px cells at (8 + 64 i, 8 + 64 j)
    rois, owner = [], []
    for k, cell in enumerate(cells):
        ox, oy = 8 + 64 * (cell % 3), 8 + 64 * (cell // 3)
        for _ in range(draw(st.integers(1, 3))):
            x0, y0 = ox + b.rng.uniform(8, 14), oy + b.rng.uniform(8, 14)
            rois.append([x0, y0, x0 + b.rng.uniform(24, 30), y0 + b.rng.uniform(24, 30)])
            owner.append(k)
    n = len(rois)
    weights = draw(st.sampled_from(([10.0, 10.0, 5.0, 5.0], [1.0, 1.0, 1.0, 1.0])))
    deltas = b.rng.uniform(-0.5, 0.5, (n, classes, 4)) * np.array(weights) / 10
    dt = et.to_dtype()
    scores = ((b.rng.permutation(n * classes) + 0.5) / (n * classes)).reshape(n, classes)
    threshold = draw(st.integers(0, 512)) / 1024
    if not agnostic:
        scores[:, 0] *= threshold  # the background never passes the threshold (see the docstring)
    scores = scores.astype(dt).astype(np.float64)  # counted as the device reads them
    post = draw(st.integers(1, 4))
    first = 1 if agnostic else 0
    owners = np.array(owner)
    sure = sum(min(post, sum(1 for k in range(clusters) if np.any(scores[owners == k, c] > threshold)))
               for c in range(first, classes))
    if sure == 0:  # nothing passes: threshold 0 (the background, when it takes part, stays at 0)
        threshold, sure = 0.0, min(post, clusters) * (classes - first)
        scores[:, 0] *= first
    clamp = float(np.float32(np.log(1000 / 16)))  # as float32 holds it (the IR writes float32)
    attrs = {"score_threshold": threshold, "nms_threshold": draw(st.integers(256, 716)) / 1024,
             "max_delta_log_wh": draw(st.sampled_from((clamp, 0.25))), "num_classes": classes,
             "post_nms_count": post, "max_detections_per_image": draw(st.integers(1, sure)),
             "class_agnostic_box_regression": agnostic, "deltas_weights": weights}
    node = opset.experimental_detectron_detection_output(
        b.param("rois", np.array(rois, dt)), b.param("deltas", deltas.reshape(n, 4 * classes).astype(dt)),
        b.param("scores", scores.astype(dt)), b.param("im_info", np.array([[256, 256, 1]], dt)), attrs)
    return b.finish("ExperimentalDetectronDetectionOutput", 6, node)
