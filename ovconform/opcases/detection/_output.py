"""Case strategies of DetectionOutput-1/8.

N 1..2 images, P 1..5 priors, 2..3 classes; box logits in [-1, 1], class scores all different
(ties leave the order open) in (0, 1), ARM inputs (sometimes) with objectness in [0, 1];
normalized priors inside [0, 1] or pixel priors (prior size 5) of a 20 x 20 input, with
variances in [0.05, 0.3] unless encoded in the target; every attribute drawn: code type, shared
locations, background label (-1..C-1; 0 with ``decrease_label_id``, the only one OpenVINO CPU
compiles), top_k, keep_top_k (-1, 1, 2 or 4), thresholds (multiples of 1/1024, exact in f32),
clipping. Every input is a Parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._detection._output import CODE_TYPES


def _priors(b: CaseBuilder, n_priors: int, normalized: bool, encoded: bool) -> np.ndarray:
    xy = b.rng.uniform(0, 0.6, (n_priors, 2))
    boxes = np.concatenate([xy, xy + b.rng.uniform(0.1, 0.4, (n_priors, 2))], axis=1)
    if not normalized:
        boxes = np.concatenate([np.zeros((n_priors, 1)), boxes * 20], axis=1)
    row = boxes.reshape(-1)
    if encoded:
        return row[None, None]
    variances = np.zeros_like(row)
    variances[:n_priors * 4] = b.rng.uniform(0.05, 0.3, n_priors * 4)
    return np.stack([row, variances])[None]


def _f32(draw: Draw[Any], low: float, high: float) -> float:
    """A multiple of 1/1024 in [low, high]: exact in f32, as OpenVINO stores float attributes."""
    return draw(st.integers(int(low * 1024), int(high * 1024))) / 1024


def _attrs(draw: Draw[Any], classes: int) -> dict[str, Any]:
    decrease = draw(st.booleans())
    return {"background_label_id": 0 if decrease else draw(st.integers(-1, classes - 1)),
            "top_k": draw(st.sampled_from((-1, 1, 2, 3))), "keep_top_k": [draw(st.sampled_from((-1, 1, 2, 4)))],
            "code_type": draw(st.sampled_from(CODE_TYPES)), "nms_threshold": _f32(draw, 0.2, 0.8),
            "confidence_threshold": _f32(draw, 0.0, 0.5), "clip_after_nms": draw(st.booleans()),
            "clip_before_nms": draw(st.booleans()), "decrease_label_id": decrease, "input_height": 20,
            "input_width": 20, "objectness_score": _f32(draw, 0.0, 0.6)}


def _detection_output(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(FLOATS))
        n, n_priors, classes = draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(2, 3))
        attrs = _attrs(draw, classes)
        attrs.update(share_location=draw(st.booleans()), normalized=draw(st.booleans()),
                     variance_encoded_in_target=draw(st.integers(0, 3)) == 0)
        loc_classes = 1 if attrs["share_location"] else classes
        b = CaseBuilder(draw_seed(draw))
        dt = et.to_dtype()
        loc = b.param("box_logits", b.uniform((n, n_priors * loc_classes * 4), et, -1, 1))
        grid = b.rng.choice(1000, n * n_priors * classes, replace=False).reshape(n, -1)
        conf = b.param("class_preds", ((grid + 0.5) / 1000).astype(dt))
        priors = b.param("proposals", _priors(b, n_priors, attrs["normalized"],
                                              attrs["variance_encoded_in_target"]).astype(dt))
        arm: list[Any] = []
        if draw(st.integers(0, 2)) == 0:
            arm = [b.param("aux_class_preds", b.uniform((n, n_priors * 2), et, 0, 1)),
                   b.param("aux_box_preds", b.uniform((n, n_priors * loc_classes * 4), et, -1, 1))]
        if version == 1:
            attrs["num_classes"] = classes
        node = opset.detection_output(loc, conf, priors, attrs, *arm, version=version)
        return b.finish("DetectionOutput", version, node)

    build.__name__ = f"case_detection_output_{version}"
    register_case("DetectionOutput", version)(build)


_detection_output(1)
_detection_output(8)
