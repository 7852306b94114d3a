"""Case strategy of CTCLoss-4.

Logits [N, T, C] (N 1..3, T 1..6, C 2..5) of f32 or f16 in [-3, 3]; lengths, labels and the
optional blank index (a Constant; absent means C - 1) share one integer type (i32/i64). Every
logit length is in [1, T] and every label length in [1, logit length] (OpenVINO CPU crashes on a
label length of 0); labels avoid the blank class (the spec does not say what a blank label
means). The three flags are drawn freely; label sequences that no alignment fits give +inf.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed


@register_case("CTCLoss", 4)
def case_ctc_loss(draw: Draw[Any]) -> OpCase:
    et, it = draw(st.sampled_from(FLOATS)), draw(st.sampled_from((Type.i32, Type.i64)))
    n, t, c = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(2, 5))
    explicit_blank = draw(st.booleans())
    blank = draw(st.integers(0, c - 1)) if explicit_blank else c - 1
    flags = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    dtype = it.to_dtype()
    logit_length = b.rng.integers(1, t + 1, n)
    label_length = np.array([b.rng.integers(1, length + 1) for length in logit_length])
    classes = np.array([k for k in range(c) if k != blank])
    labels = classes[b.rng.integers(0, classes.size, (n, t))]
    logits = b.param("logits", b.uniform((n, t, c), et, -3, 3))
    nodes = [b.param(name, value.astype(dtype)) for name, value in
             (("logit_length", logit_length), ("labels", labels), ("label_length", label_length))]
    blank_node = b.const(np.array(blank, dtype)) if explicit_blank else None
    return b.finish("CTCLoss", 4, opset.ctc_loss(logits, *nodes, blank_node, *flags))
