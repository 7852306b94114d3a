"""Case strategies of GenerateProposals-9 and ExperimentalDetectronGenerateProposalsSingleImage-6.

Anchors as an RPN makes them: an H x W feature map (1..5 each) of stride s (8 or 16) and A (1..3)
anchors per position, ratios from {0.5, 1, 2} and sizes from {16, 32, 64}, centred on each cell,
so neighbouring anchors overlap and NMS acts; the image is the feature map times the stride (so
boxes reach past it and are clipped). Deltas in [-0.5, 0.5] (a few ``d_log`` up to 4.5, past the
``log(1000 / 16)`` clamp), scores all different in (0, 1) (ties leave the order undefined),
``nms_threshold`` a multiple of 1/1024 in [0.25, 0.85], ``pre_nms_count`` 1..A*H*W + 4,
``post_nms_count`` 1..A*H*W + 2. f32 or f16, every input a Parameter.

SingleImage: ``min_size`` 0 or 1 (no box is smaller: sizes include the +1), or 4 or 8 with
``post_nms_count`` 1 — OpenVINO CPU zeroes the score of a small box instead of removing it, so one
could fill a row when fewer boxes survive than ``post_nms_count`` (``deviations_detectron.py``).

GenerateProposals: N 1..2 images, ``im_info`` [N, 3] or [N, 4] with scales 0.5..2, ``min_size``
0..8 (times the scale), ``normalized`` either, ``roi_num_type`` i32 or i64; ``nms_eta`` 1: OpenVINO
refuses any other value (its validation requires 1; ``deviations_detectron.py``), the unit tests
cover the adaptive threshold.

A ``d_log`` past the clamp makes a box of at least 62.5 x 11 px around a centre inside the image
(at most 80 px), so it is clipped on both sides: its corners are exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed


def rpn_anchors(h: int, w: int, stride: int, shapes: list[tuple[float, float]]) -> np.ndarray:
    """[H, W, A, 4] anchors ``(x0, y0, x1, y1)`` centred on each cell."""
    cy, cx = np.meshgrid((np.arange(h) + 0.5) * stride, (np.arange(w) + 0.5) * stride, indexing="ij")
    out = np.zeros((h, w, len(shapes), 4))
    for a, (aw, ah) in enumerate(shapes):
        out[:, :, a] = np.stack([cx - aw / 2, cy - ah / 2, cx + aw / 2, cy + ah / 2], axis=-1)
    return out


def _draw_grid(draw: Draw[Any]) -> tuple[int, int, int, list[tuple[float, float]]]:
    h, w, stride = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.sampled_from((8, 16)))
    kinds = draw(st.lists(st.tuples(st.sampled_from((0.5, 1.0, 2.0)), st.sampled_from((16, 32, 64))), min_size=1,
                          max_size=3, unique=True))
    shapes = [(size / np.sqrt(ratio), size * np.sqrt(ratio)) for ratio, size in kinds]
    return h, w, stride, shapes


def _deltas(b: CaseBuilder, anchors: int, h: int, w: int) -> np.ndarray:
    deltas = b.rng.uniform(-0.5, 0.5, (anchors, 4, h, w))
    big = b.rng.random((anchors, 2, h, w)) < 0.05
    deltas[:, 2:] = np.where(big, b.rng.uniform(4.0, 4.5, big.shape), deltas[:, 2:])
    return deltas


def _scores(b: CaseBuilder, shape: tuple[int, ...]) -> np.ndarray:
    count = int(np.prod(shape))
    return ((b.rng.permutation(count) + 0.5) / count).reshape(shape)


@register_case("ExperimentalDetectronGenerateProposalsSingleImage", 6)
def case_experimental_detectron_generate_proposals_single_image(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    dt = et.to_dtype()
    h, w, stride, shapes = _draw_grid(draw)
    a = len(shapes)
    total = a * h * w
    min_size = draw(st.sampled_from((0.0, 1.0, 4.0, 8.0)))
    post = 1 if min_size > 1 else draw(st.integers(1, total + 2))
    b = CaseBuilder(draw_seed(draw))
    anchors = rpn_anchors(h, w, stride, shapes).reshape(-1, 4)
    node = opset.experimental_detectron_generate_proposals_single_image(
        b.param("im_info", np.array([h * stride, w * stride, 1.0], dt)), b.param("anchors", anchors.astype(dt)),
        b.param("deltas", _deltas(b, a, h, w).reshape(4 * a, h, w).astype(dt)),
        b.param("scores", _scores(b, (a, h, w)).astype(dt)), min_size,
        draw(st.integers(256, 870)) / 1024, draw(st.integers(1, total + 4)), post)
    return b.finish("ExperimentalDetectronGenerateProposalsSingleImage", 6, node)


@register_case("GenerateProposals", 9)
def case_generate_proposals(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    dt = et.to_dtype()
    h, w, stride, shapes = _draw_grid(draw)
    a, n = len(shapes), draw(st.integers(1, 2))
    total = a * h * w
    b = CaseBuilder(draw_seed(draw))
    scales = b.rng.choice([0.5, 1.0, 1.5, 2.0], (n, draw(st.sampled_from((1, 2)))))
    info = np.concatenate([np.tile([[h * stride, w * stride]], (n, 1)), scales], axis=1)
    threshold = draw(st.integers(256, 870)) / 1024
    node = opset.generate_proposals(
        b.param("im_info", info.astype(dt)), b.param("anchors", rpn_anchors(h, w, stride, shapes).astype(dt)),
        b.param("deltas", np.stack([_deltas(b, a, h, w) for _ in range(n)]).reshape(n, 4 * a, h, w).astype(dt)),
        b.param("scores", _scores(b, (n, a, h, w)).astype(dt)), draw(st.sampled_from((0.0, 1.0, 4.0, 8.0))),
        threshold, draw(st.integers(1, total + 4)), draw(st.integers(1, total + 2)), normalized=draw(st.booleans()),
        nms_eta=1.0, roi_num_type=draw(st.sampled_from((Type.i32, Type.i64))))
    return b.finish("GenerateProposals", 9, node)
