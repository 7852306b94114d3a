"""Case strategy of SparseFillEmptyRows-16.

A dense shape of 1..6 rows and 1..5 columns (i32/i64, a Parameter or a Constant) and 0..8
distinct entries at random positions (the order of equal indices is undefined in the spec's
sort), in random order; values and the default of f32, f16, i32 or i64. ``indices`` are a
Parameter or a Constant, ``values`` and ``default_value`` Parameters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed


@register_case("SparseFillEmptyRows", 16)
def case_sparse_fill_empty_rows(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((Type.f32, Type.f16, Type.i32, Type.i64)))
    it = draw(st.sampled_from((Type.i32, Type.i64)))
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    count = draw(st.integers(0, min(8, rows * cols)))
    b = CaseBuilder(draw_seed(draw))
    flat = b.rng.choice(rows * cols, count, replace=False)
    indices = np.stack([flat // cols, flat % cols], axis=1).reshape(count, 2).astype(it.to_dtype())
    values = b.param("values", b.uniform((count,), et, -9, 9))
    dense = b.input("dense_shape", np.array([rows, cols], it.to_dtype()), draw(st.booleans()))
    idx = b.input("indices", indices, draw(st.booleans()))
    default = b.param("default_value", b.uniform((), et, -9, 9))
    return b.finish("SparseFillEmptyRows", 16, opset.sparse_fill_empty_rows(values, dense, idx, default))
