"""Case strategies of the generation ops (OpenVINO's op-spec folder "generation"): Range-1/4,
Eye-9, RandomUniform-8 and Multinomial-13.

* Range start and step are multiples of 0.25 (floats) so that ``start + i*step`` is exact in every
  type; integer output types take integer-valued inputs (the spec's cast of a fraction is not
  pinned down beyond "cast to output_type"); Range-4 inputs mix types (f32, i32, i64, the output
  type).
* RandomUniform: seeds never both 0 (the spec's "non-deterministic" setting).
* Multinomial: seeds never both 0; f32 or f16 probabilities in [0.01, 1] (or logits in [-8, 8],
  -inf for a zero probability) with some classes of probability 0 but at least one positive per
  row; without replacement at most as many samples as the row with the fewest positive classes
  has, and logits only in [-2, 2] (OpenVINO CPU can draw a class twice when a row's smallest
  probability is tiny against its sum: a recorded deviation). OpenVINO CPU draws its uniform
  numbers with another generator (std::mt19937), so the suites compare the samples as a
  categorical distribution's (``ovconform.categorical.compare_samples``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import AXES_TYPES, CaseBuilder, Draw, draw_seed

RANGE_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64)


def _range_values(draw: Draw[Any], integral: bool) -> tuple[float, float, float]:
    """start, stop, step (non-zero) giving 0..12 elements; quarter multiples unless ``integral``."""
    unit = 1.0 if integral else 0.25
    magnitude = draw(st.sampled_from((1, 2, 3, 5, 6)))
    sign = draw(st.sampled_from((1, -1)))
    start, step = draw(st.integers(-40, 40)) * unit, sign * magnitude * unit
    count = draw(st.integers(-2, 12))
    short = draw(st.integers(0, magnitude - 1)) * unit if count > 0 else 0.0  # stop inside the last step
    return start, start + count * step - sign * short, step


def _range_case(draw: Draw[Any], version: int, in_types: tuple[Type, Type, Type], out_t: Type) -> OpCase:
    integral = out_t.is_integral_number() or any(t.is_integral_number() for t in in_types)
    start, stop, step = _range_values(draw, integral)
    as_params = draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    start_node, stop_node, step_node = [
        b.input(n, np.array(v, t.to_dtype()), not as_params)
        for n, v, t in zip(("start", "stop", "step"), (start, stop, step), in_types, strict=True)]
    node = (opset.range_v1(start_node, stop_node, step_node) if version == 1
            else opset.range(start_node, stop_node, step_node, out_t))
    return b.finish("Range", version, node)


@register_case("Range", 1)
def case_range1(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(RANGE_TYPES))
    return _range_case(draw, 1, (et, et, et), et)


@register_case("Range", 4)
def case_range4(draw: Draw[Any]) -> OpCase:
    out_t = draw(st.sampled_from(RANGE_TYPES))
    kinds = st.sampled_from((out_t, Type.i32, Type.i64, Type.f32))
    return _range_case(draw, 4, (draw(kinds), draw(kinds), draw(kinds)), out_t)


# -- Eye / OneHot --------------------------------------------------------------------------------------------

EYE_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.i8, Type.u8)


@register_case("Eye", 9)
def case_eye(draw: Draw[Any]) -> OpCase:
    out_t = draw(st.sampled_from(EYE_TYPES))
    idx_t = draw(st.sampled_from(AXES_TYPES))
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    diag = draw(st.integers(-6, 6))
    batch = draw(st.one_of(st.none(), st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    as_params = draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    rows_node, cols_node, diag_node = [b.input(n, np.array(v, idx_t.to_dtype()), not as_params)
                                       for n, v in (("num_rows", rows), ("num_columns", cols),
                                                    ("diagonal_index", diag))]
    batch_node = None if batch is None else b.input("batch_shape", np.array(batch, idx_t.to_dtype()), not as_params)
    return b.finish("Eye", 9, opset.eye(rows_node, cols_node, diag_node, out_t, batch_node))


#: f32 and i32 drawn twice as often: OpenVINO CPU follows the spec for them (see the deviations).
RANDOM_TYPES = (Type.f32, Type.i32, Type.f32, Type.i32, Type.i64, Type.f16, Type.f64)


@register_case("RandomUniform", 8)
def case_random_uniform(draw: Draw[Any]) -> OpCase:
    """Any output type and both alignments, shapes of rank 0..3, seeds never both 0 (the spec's
    "non-deterministic" setting). OpenVINO CPU computes f16/f64/most i64 outputs as f32/i32 and
    returns garbage for a scalar output (both recorded deviations)."""
    alignment = draw(st.sampled_from(("tensorflow", "pytorch")))
    et = draw(st.sampled_from(RANDOM_TYPES))
    scalar = draw(st.integers(0, 9)) == 0
    dims = [] if scalar else draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    global_seed, op_seed = draw(st.integers(0, 2**31 - 1)), draw(st.integers(0, 2**31 - 1))
    if global_seed == op_seed == 0:
        global_seed = 1
    if et.is_real():
        low = draw(st.floats(-10, 10, width=16))
        high = low + draw(st.floats(0.125, 10, width=16))
    else:
        low = draw(st.integers(-1000, 1000))
        high = low + draw(st.integers(1, 1000))
    b = CaseBuilder(draw_seed(draw))
    shape = b.const(np.array(dims, np.int64 if draw(st.booleans()) else np.int32))
    min_node, max_node = [b.input(name, np.array(v, et.to_dtype()), draw(st.booleans()))
                          for name, v in (("min", low), ("max", high))]
    node = opset.random_uniform(shape, min_node, max_node, et, global_seed, op_seed, alignment)
    return b.finish("RandomUniform", 8, node)


# -- Multinomial-13 -------------------------------------------------------------------------------------------------


def _multinomial_probs(b: CaseBuilder, batch: int, classes: int, et: Type, log_probs: bool,
                       spread: float) -> np.ndarray:
    """Probabilities in [0.01, 1] (logits in [-spread, spread] when ``log_probs``), about a quarter of
    them 0 (-inf), never a whole row."""
    zero = b.rng.random((batch, classes)) < 0.25
    zero[np.arange(batch), b.rng.integers(0, classes, batch)] = False
    if log_probs:
        return np.where(zero, -np.inf, b.rng.uniform(-spread, spread, (batch, classes))).astype(et.to_dtype())
    return np.where(zero, 0.0, b.rng.uniform(0.01, 1, (batch, classes))).astype(et.to_dtype())


@register_case("Multinomial", 13)
def case_multinomial(draw: Draw[Any]) -> OpCase:
    """Both ``with_replacement`` and ``log_probs`` values, i32/i64 outputs and counts, seeds never both 0
    (the spec's "non-deterministic" setting), probs and num_samples as Constants or Parameters."""
    et = draw(st.sampled_from((Type.f32, Type.f32, Type.f16)))
    with_replacement, log_probs = draw(st.booleans()), draw(st.booleans())
    batch, classes = draw(st.integers(1, 4)), draw(st.integers(1, 8)) + draw(st.integers(0, 1))
    global_seed, op_seed = draw(st.integers(0, 2**31 - 1)), draw(st.integers(0, 2**31 - 1))
    if global_seed == op_seed == 0:
        op_seed = 1
    b = CaseBuilder(draw_seed(draw))
    # without replacement, logits within [-2, 2]: OpenVINO CPU can draw a class twice when a row's smallest
    # probability is tiny against its sum (a recorded deviation); probs in [0.01, 1] never are
    values = _multinomial_probs(b, batch, classes, et, log_probs, 8.0 if with_replacement else 2.0)
    positive = int(np.min(np.sum(np.isfinite(values) if log_probs else values > 0, axis=1)))
    count = draw(st.integers(1, 16) if with_replacement else st.integers(1, positive))
    if draw(st.integers(0, 9)) == 0:
        count = 0
    count_type = draw(st.sampled_from((np.int32, np.int64)))
    count_value = np.array(count if draw(st.booleans()) else [count], count_type)
    probs = b.input("probs", values, draw(st.integers(0, 3)) > 0)
    num_samples = b.input("num_samples", count_value, draw(st.integers(0, 3)) > 0)
    convert_type = draw(st.sampled_from((Type.i32, Type.i64)))
    node = opset.multinomial(probs, num_samples, convert_type, with_replacement, log_probs, global_seed, op_seed)
    return b.finish("Multinomial", 13, node)
