"""Case strategies of Proposal-1/4.

1..3 ratios from {0.5, 1, 2} and 1..2 scales from {1, 2} (A anchors), base_size 8 or 16,
feat_stride 4, 8 or 16, N 1..2 images of an H x W (1..4) feature map; class scores all
different (ties leave the order to the implementation: the spec's reference sorts with an
unstable partial sort) in (0, 1), deltas in [-0.5, 0.5]; pre_nms_topn 1..40 and post_nms_topn 1:
OpenVINO CPU crashes (or corrupts memory) whenever fewer boxes survive NMS than post_nms_topn
(the padded rows the spec fills with zeros and a -1), and one box always survives; the unit tests
cover the padding. Every box stays wider and taller than
min_size (1 or 3, image scale 1), so no score is zeroed into a tie: small images (24 or 32 px,
where clipping happens) only with the Caffe framework and min_size 1 (clipped widths keep the +1),
else 256 x 256 images. TensorFlow cases use square images (see ``deviations_detect.py``).
Inputs are Parameters; thresholds are multiples of 1/1024 (exact in f32).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed


def _attrs(draw: Draw[Any]) -> dict[str, Any]:
    return {"base_size": draw(st.sampled_from((8, 16))), "post_nms_topn": 1, "pre_nms_topn": draw(st.integers(1, 40)),
            "nms_thresh": draw(st.integers(256, 870)) / 1024,
            "feat_stride": draw(st.sampled_from((4, 8, 16))),
            "ratio": draw(st.lists(st.sampled_from((0.5, 1.0, 2.0)), min_size=1, max_size=3, unique=True)),
            "scale": draw(st.lists(st.sampled_from((1.0, 2.0)), min_size=1, max_size=2, unique=True)),
            "clip_before_nms": draw(st.booleans()), "clip_after_nms": draw(st.booleans()),
            "normalize": draw(st.booleans()), "box_size_scale": draw(st.sampled_from((1.0, 2.0))),
            "box_coordinate_scale": draw(st.sampled_from((1.0, 2.0))),
            "framework": draw(st.sampled_from(("", "tensorflow")))}


def _proposal(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(FLOATS))
        attrs = _attrs(draw)
        small = attrs["framework"] == "" and draw(st.booleans())
        attrs["min_size"] = 1 if small else draw(st.sampled_from((1, 3)))
        if small:
            size = [draw(st.sampled_from((24, 32))), draw(st.sampled_from((24, 32)))]
        else:
            size = [256, 256]
        anchors = len(attrs["ratio"]) * len(attrs["scale"])
        n, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
        b = CaseBuilder(draw_seed(draw))
        count = n * 2 * anchors * h * w
        probs = b.param("class_probs", ((b.rng.permutation(count) + 0.5) / count).reshape(n, 2 * anchors, h, w)
                        .astype(et.to_dtype()))
        deltas = b.param("bbox_deltas", b.uniform((n, 4 * anchors, h, w), et, -0.5, 0.5))
        image = np.array(size + ([1.0] if draw(st.booleans()) else [1.0, 1.0]), et.to_dtype())
        node = opset.proposal(probs, deltas, b.param("image_shape", image), attrs, version=version)
        return b.finish("Proposal", version, node)

    build.__name__ = f"case_proposal_{version}"
    register_case("Proposal", version)(build)


_proposal(1)
_proposal(4)
