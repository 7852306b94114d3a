"""Case strategies of ExperimentalDetectronTopKROIs-6.

N 1..40 ROIs (f32 or f16, corners in [0, 256) with x0 <= x1, y0 <= y1) and their probabilities,
all different (ties leave the order undefined in the spec) in (0, 1); ``max_rois`` 1..N: with
fewer ROIs than ``max_rois`` the rows past them are undefined. Both inputs are Parameters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed


@register_case("ExperimentalDetectronTopKROIs", 6)
def case_experimental_detectron_topk_rois(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    n = draw(st.integers(1, 40))
    limit = draw(st.integers(1, n))
    b = CaseBuilder(draw_seed(draw))
    corners = b.rng.uniform(0, 256, (n, 2, 2))
    rois = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1).astype(et.to_dtype())
    probs = ((b.rng.permutation(n) + 0.5) / n).astype(et.to_dtype())
    node = opset.experimental_detectron_topk_rois(b.param("input_rois", rois), b.param("rois_probs", probs), limit)
    return b.finish("ExperimentalDetectronTopKROIs", 6, node)
