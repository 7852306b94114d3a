"""Case strategy of DeformablePSROIPooling-1.

Feature maps [N, output_dim * group_size², H, W] (N 1..2, output_dim and group_size 1..3, H and W
2..6) of f32 or f16 in [-2, 2]; 1..3 ROIs with batch ids in [0, N) and corners on a quarter grid
that avoids .5 (where rounding halves is a tie) reaching past the map; spatial_scale 0.25, 0.5
or 1; 1..3 sub-bins per axis; optional offsets in [-1, 1] for 1..3 classes dividing output_dim,
with part_size 1..3 and trans_std in [3/64, 1/2] (multiples of 1/64). Every input is a Parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed


@register_case("DeformablePSROIPooling", 1)
def case_deformable_psroi_pooling(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    dim, group = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    n, h, w = draw(st.integers(1, 2)), draw(st.integers(2, 6)), draw(st.integers(2, 6))
    count, scale = draw(st.integers(1, 3)), draw(st.sampled_from((0.25, 0.5, 1.0)))
    bins_x, bins_y, part = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    classes = draw(st.sampled_from([c for c in (1, 2, 3) if dim % c == 0]))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform((n, dim * group * group, h, w), et, -2, 2))
    quarters = b.rng.choice(np.array([0.0, 0.25, 0.75]), (count, 4))
    xs = np.sort(b.rng.integers(0, int(w / scale) + 2, (count, 2)) + quarters[:, :2], axis=1)
    ys = np.sort(b.rng.integers(0, int(h / scale) + 2, (count, 2)) + quarters[:, 2:], axis=1)
    ids = b.rng.integers(0, n, count)
    rois = b.param("rois", np.stack([ids, xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1]], axis=1).astype(et.to_dtype()))
    offsets = None
    if draw(st.integers(0, 3)) > 0:
        offsets = b.param("offsets", b.uniform((count, 2 * classes, part, part), et, -1, 1))
    trans = draw(st.integers(3, 32)) / 64  # exact in f32, as OpenVINO stores the attribute
    node = opset.deformable_psroi_pooling(data, rois, dim, scale, group, "bilinear_deformable", bins_x, bins_y, trans,
                                          part, offsets)
    return b.finish("DeformablePSROIPooling", 1, node)
