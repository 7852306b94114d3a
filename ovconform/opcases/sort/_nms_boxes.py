"""Case strategies of MatrixNms-8 and MulticlassNms-8/9 (boxes as ``[xmin, ymin, xmax, ymax]``).

B 1..3 images, N 4..16 boxes and C 2..4 classes, f32 or f16. Boxes crowd one area so that
suppression and decay act: with ``normalized`` inside [0, 1] (sizes 0.1..0.5); without it whole
pixel coordinates in [0, 31] (sizes 2..12), where OpenVINO's +1 pixel convention applies and the
two ops' IoU formulas agree (they differ only for boxes less than a pixel apart). Scores are all
different (``(k + 0.5) / 1000`` for a random permutation of k: ties in score leave the order open
in both specs). Every attribute is drawn: ``nms_top_k`` and ``keep_top_k`` -1 or a value that
cuts (1..N-1, 1..C*N), ``background_class`` -1..C-1, thresholds and ``gaussian_sigma`` as odd
multiples of 1/2048 (exact in f32; IoU of whole-pixel boxes, a fraction with a denominator below
2048, never equals one), ``nms_eta`` 1 or in [0.5, 1). ``sort_result_type`` is ``score`` or
``classid``, never ``none``: the spec guarantees no order then, so no output could be compared
element by element. MulticlassNms-9 draws the per-class format half the time: boxes [C, M, 4],
scores [C, M] and ``roisnum`` (i32 or i64, a Parameter or a Constant) splitting M among B images,
some of them empty.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._sort._matrix_nms import DECAY_FUNCTIONS

NOTE = ("scores all different (ties leave the order open); sort_result_type never 'none' (no order); thresholds "
        "odd multiples of 1/2048; whole-pixel boxes when not normalized.")


def _odd(draw: Draw[Any], low: float, high: float) -> float:
    """An odd multiple of 1/2048 in [low, high]."""
    return (2 * draw(st.integers(int(low * 1024), int(high * 1024) - 1)) + 1) / 2048


def boxes(b: CaseBuilder, shape: tuple[int, ...], normalized: bool) -> np.ndarray:
    """[..., 4] boxes ``[xmin, ymin, xmax, ymax]`` crowding one area."""
    if normalized:
        low = b.rng.uniform(0.0, 0.6, (*shape, 2))
        return np.concatenate([low, low + b.rng.uniform(0.1, 0.5, (*shape, 2))], axis=-1)
    corner = b.rng.integers(0, 20, (*shape, 2))
    return np.concatenate([corner, corner + b.rng.integers(2, 13, (*shape, 2))], axis=-1).astype(np.float64)


def scores(b: CaseBuilder, shape: tuple[int, ...]) -> np.ndarray:
    size = int(np.prod(shape))
    return ((b.rng.choice(1000, size, replace=False) + 0.5) / 1000).reshape(shape)


def _common(draw: Draw[Any], n: int, c: int) -> dict[str, Any]:
    return {"sort_result_type": draw(st.sampled_from(("score", "classid"))),
            "sort_result_across_batch": draw(st.booleans()),
            "output_type": draw(st.sampled_from((Type.i64, Type.i32))),
            "score_threshold": draw(st.sampled_from((0.0, _odd(draw, 0.0, 0.4)))),
            "nms_top_k": draw(st.sampled_from((-1, draw(st.integers(1, n - 1))))),
            "keep_top_k": draw(st.sampled_from((-1, draw(st.integers(1, c * n))))),
            "background_class": draw(st.integers(-1, c - 1)),
            "normalized": draw(st.booleans())}


@register_case("MatrixNms", 8)
def case_matrix_nms(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    n_b, n, n_c = draw(st.integers(1, 3)), draw(st.integers(4, 16)), draw(st.integers(2, 4))
    attrs = _common(draw, n, n_c)
    b = CaseBuilder(draw_seed(draw))
    pb = b.param("boxes", boxes(b, (n_b, n), attrs["normalized"]).astype(et.to_dtype()))
    ps = b.param("scores", scores(b, (n_b, n_c, n)).astype(et.to_dtype()))
    node = opset.matrix_nms(pb, ps, **attrs, decay_function=draw(st.sampled_from(DECAY_FUNCTIONS)),
                            gaussian_sigma=_odd(draw, 0.5, 4.0), post_threshold=_odd(draw, 0.0, 0.4))
    return b.finish("MatrixNms", 8, node, NOTE)


def _multiclass(draw: Draw[Any], version: int) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    n_b, n, n_c = draw(st.integers(1, 3)), draw(st.integers(4, 16)), draw(st.integers(2, 4))
    attrs = _common(draw, n, n_c)
    attrs["iou_threshold"] = _odd(draw, 0.2, 0.8)
    attrs["nms_eta"] = draw(st.sampled_from((1.0, _odd(draw, 0.5, 1.0))))
    b = CaseBuilder(draw_seed(draw))
    if version == 9 and draw(st.booleans()):
        total = n * n_b
        cuts = np.sort(b.rng.integers(0, total + 1, n_b - 1))
        rois = np.diff(np.concatenate([[0], cuts, [total]]))
        pb = b.param("boxes", boxes(b, (n_c, total), attrs["normalized"]).astype(et.to_dtype()))
        ps = b.param("scores", scores(b, (n_c, total)).astype(et.to_dtype()))
        pr = b.input("roisnum", rois.astype(draw(st.sampled_from((np.int32, np.int64)))), draw(st.booleans()))
        node = opset.multiclass_nms(pb, ps, pr, **attrs)
    else:
        pb = b.param("boxes", boxes(b, (n_b, n), attrs["normalized"]).astype(et.to_dtype()))
        ps = b.param("scores", scores(b, (n_b, n_c, n)).astype(et.to_dtype()))
        node = opset.multiclass_nms(pb, ps, None, **attrs, version=version)
    return b.finish("MulticlassNms", version, node, NOTE)


@register_case("MulticlassNms", 8)
def case_multiclass_nms_8(draw: Draw[Any]) -> OpCase:
    return _multiclass(draw, 8)


@register_case("MulticlassNms", 9)
def case_multiclass_nms_9(draw: Draw[Any]) -> OpCase:
    return _multiclass(draw, 9)
