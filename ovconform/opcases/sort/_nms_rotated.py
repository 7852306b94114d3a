"""Case strategies of NMSRotated-13.

B 1..2 images, N 4..16 boxes and C 1..3 classes, f32 or f16: centres in [1.5, 3.5]^2, elongated
boxes (one side in [1, 3], the other in [0.3, 1]) at angles in (-pi, pi), so that many boxes
overlap and their IoU depends on the angles and on their direction (``clockwise``); scores all
different (``(k + 0.5) / 1000``: ties in score leave the order open). ``max_output_boxes_per_class``
1..N (i32 or i64), ``iou_threshold`` in [0.05, 0.5] and ``score_threshold`` in [0, 0.4] (odd multiples
of 1/2048), each a Constant or a Parameter; ``sort_result_descending``, ``clockwise`` and
``output_type`` drawn. Random real coordinates keep every IoU away from the threshold.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed


def _odd(draw: Draw[Any], low: float, high: float) -> float:
    return (2 * draw(st.integers(int(low * 1024), int(high * 1024) - 1)) + 1) / 2048


@register_case("NMSRotated", 13)
def case_nms_rotated(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    n_b, n, n_c = draw(st.integers(1, 2)), draw(st.integers(4, 16)), draw(st.integers(1, 3))
    b = CaseBuilder(draw_seed(draw))
    centre = b.rng.uniform(1.5, 3.5, (n_b, n, 2))
    long_side, short_side = b.rng.uniform(1, 3, (n_b, n)), b.rng.uniform(0.3, 1, (n_b, n))
    wide = b.rng.random((n_b, n)) < 0.5
    size = np.stack([np.where(wide, long_side, short_side), np.where(wide, short_side, long_side)], axis=-1)
    angle = b.rng.uniform(-np.pi, np.pi, (n_b, n, 1))
    pb = b.param("boxes", np.concatenate([centre, size, angle], axis=-1).astype(et.to_dtype()))
    grid = b.rng.choice(1000, n_b * n_c * n, replace=False).reshape(n_b, n_c, n)
    ps = b.param("scores", ((grid + 0.5) / 1000).astype(et.to_dtype()))
    limit = b.input("max_output_boxes_per_class",
                    np.array(draw(st.integers(1, n)), draw(st.sampled_from((np.int32, np.int64)))),
                    draw(st.integers(0, 3)) > 0)
    iou_thr = b.input("iou_threshold", np.array(_odd(draw, 0.05, 0.5), et.to_dtype()), draw(st.integers(0, 3)) > 0)
    score_thr = b.input("score_threshold", np.array(draw(st.sampled_from((0.0, _odd(draw, 0.0, 0.4)))),
                                                    et.to_dtype()), draw(st.integers(0, 3)) > 0)
    node = opset.nms_rotated(pb, ps, limit, iou_thr, score_thr, draw(st.booleans()),
                             draw(st.sampled_from((Type.i64, Type.i32))), draw(st.booleans()))
    return b.finish("NMSRotated", 13, node, "scores all different (ties leave the order open); thresholds odd "
                                            "multiples of 1/2048.")
