"""Case strategies of the normalization ops (OpenVINO's op-spec folder "normalization"): MVN-2/6
(MVN-2 is the spec page "MVN-1"), NormalizeL2-1, BatchNormInference-1/5, GroupNormalization-12,
LRN-1 and GRN-1.

Normalisations run on f32 and f16 data of magnitude <= 3, small shapes, and eps values across
their range. What the cases keep away from, and why:

* f16 data take eps (and GRN bias) >= 1e-3: a smaller one underflows in f16, and OpenVINO CPU, which
  computes f16 MVN in f16, then divides 0 by 0 over a constant slice (NaN) where the spec's real
  arithmetic gives 0; the spec does not say in which precision eps is applied.
* MVN-1 data has rank >= 2 (over rank 1 the default axes are empty); its reduction axes are drawn
  from ``across_channels``, spelled out as the same ``reduction_axes``, or as any non-empty subset
  (OpenVINO CPU ignores such reduction_axes: a recorded deviation).
* NormalizeL2 and GRN data stay away from 0 (|x| >= 0.25) so that no norm is below eps by accident.
* LRN axes are ``[1]`` (across channels) or all spatial dims ``[2, ..., rank-1]``: OpenVINO CPU
  cannot compile other axes or a Parameter axes input. Sizes are odd: the spec's window
  ``[i - size/2, i + size/2]`` is only symmetric (and agrees with OpenVINO) for odd sizes.
* BatchNormInference variances are >= 0.1 and GroupNormalization groups hold >= 2 values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import AXES_TYPES, FLOATS, CaseBuilder, Draw, draw_axes, draw_seed, draw_shape
from ovconform.opcases.depth import Depth

EPS = (1e-9, 1e-6, 1e-3, 0.1, 1.0)


def _axes(draw: Draw[Any], b: CaseBuilder, axes: list[int], allow_param: bool = True) -> Any:
    et = draw(st.sampled_from(AXES_TYPES))
    as_param = allow_param and draw(st.integers(0, 3)) == 0
    return b.input("axes", np.array(axes, dtype=et.to_dtype()), not as_param)


def _eps(draw: Draw[Any], et: Type, choices: tuple[float, ...] = EPS) -> float:
    """An eps from ``choices``; for f16 data only those f16 keeps (>= 1e-3, see the module docstring)."""
    return draw(st.sampled_from(choices if et != Type.f16 else tuple(e for e in choices if e >= 1e-3)))


def _data(draw: Draw[Any], b: CaseBuilder, shape: tuple[int, ...], away_from_zero: bool = False,
          et: Type | None = None) -> Any:
    et = et or draw(st.sampled_from(FLOATS))
    values = b.nonzero(shape, et, 0.25, 3.0) if away_from_zero else b.uniform(shape, et, -3, 3)
    return b.param("data", values), et


# -- MVN / NormalizeL2 ---------------------------------------------------------------------------------------

@register_case("MVN", 2)
def case_mvn1(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=2, max_rank=5, max_side=4)
    across = draw(st.booleans())
    how = draw(st.sampled_from(("flag", "same", "any")))  # axes from across_channels, spelled out, or any
    axes = {"flag": None, "same": list(range(1 if across else 2, len(shape))) or None,
            "any": draw_axes(draw, len(shape))}[how]
    et, normalize = draw(st.sampled_from(FLOATS)), draw(st.booleans())
    eps = _eps(draw, et)
    b = CaseBuilder(draw_seed(draw))
    data, _ = _data(draw, b, shape, et=et)
    return b.finish("MVN", 2, opset.mvn_v1(data, across, normalize, eps, axes))


@register_case("MVN", 6)
def case_mvn6(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_rank=4)
    axes = draw_axes(draw, len(shape))
    et, normalize = draw(st.sampled_from(FLOATS)), draw(st.booleans())
    eps = _eps(draw, et)
    mode = draw(st.sampled_from(("inside_sqrt", "outside_sqrt")))
    b = CaseBuilder(draw_seed(draw))
    data, _ = _data(draw, b, shape, et=et)
    return b.finish("MVN", 6, opset.mvn(data, _axes(draw, b, axes), normalize, eps, mode))


@register_case("NormalizeL2", 1)
def case_normalize_l2(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_rank=4)
    axes = draw_axes(draw, len(shape)) if draw(st.integers(0, 5)) else []
    et, mode = draw(st.sampled_from(FLOATS)), draw(st.sampled_from(("add", "max")))
    eps = _eps(draw, et, (1e-12, 1e-6, 1e-3, 0.5))
    b = CaseBuilder(draw_seed(draw))
    data, _ = _data(draw, b, shape, away_from_zero=True, et=et)
    return b.finish("NormalizeL2", 1, opset.normalize_l2(data, _axes(draw, b, axes, bool(axes)), eps, mode))


# -- BatchNormInference / GroupNormalization -----------------------------------------------------------------

def _batch_norm(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        shape = draw_shape(draw, min_rank=2, max_rank=4)
        c = shape[1]
        eps = draw(st.sampled_from((1e-5, 1e-3, 0.1, 1.0)))
        b = CaseBuilder(draw_seed(draw))
        data, et = _data(draw, b, shape)
        gamma = b.param("gamma", b.uniform((c,), et, -2, 2))
        beta = b.param("beta", b.uniform((c,), et, -2, 2))
        mean = b.param("mean", b.uniform((c,), et, -1, 1))
        variance = b.param("variance", b.uniform((c,), et, 0.1, 2))
        node = opset.batch_norm_inference(data, gamma, beta, mean, variance, eps, version=version)
        return b.finish("BatchNormInference", version, node)

    build.__name__ = f"case_batch_norm_inference_{version}"
    register_case("BatchNormInference", version)(build)


for _v in (1, 5):
    _batch_norm(_v)


@register_case("GroupNormalization", 12)
def case_group_normalization(draw: Draw[Any]) -> OpCase:
    groups = draw(st.integers(1, 3))
    per_group = draw(st.integers(1, 3))
    spatial = draw_shape(draw, min_rank=0, max_rank=2, max_side=4)
    if per_group * int(np.prod(spatial)) < 2:
        spatial = (*spatial, 2)
    shape = (draw(st.integers(1, 2)), groups * per_group, *spatial)
    et = draw(st.sampled_from(FLOATS))
    eps = _eps(draw, et, (1e-5, 1e-3, 0.1))
    b = CaseBuilder(draw_seed(draw))
    data, _ = _data(draw, b, shape, et=et)
    scale = b.param("scale", b.uniform((shape[1],), et, -2, 2))
    bias = b.param("bias", b.uniform((shape[1],), et, -2, 2))
    return b.finish("GroupNormalization", 12, opset.group_normalization(data, scale, bias, groups, eps))


# -- LRN / GRN -----------------------------------------------------------------------------------------------

@register_case("LRN", 1)
def case_lrn(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=3, max_rank=4)
    axes = [1] if draw(st.booleans()) else list(range(2, len(shape)))
    size = draw(st.sampled_from((1, 3, 5)))
    alpha = draw(st.sampled_from((1e-4, 0.1, 1.0)))
    beta = draw(st.sampled_from((0.5, 0.75, 1.0)))
    bias = draw(st.sampled_from((1.0, 2.0)))
    b = CaseBuilder(draw_seed(draw))
    data, _ = _data(draw, b, shape)
    return b.finish("LRN", 1, opset.lrn(data, _axes(draw, b, axes, allow_param=False), alpha, beta, bias, size))


@register_case("GRN", 1)
def case_grn(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=2, max_rank=4)
    et = draw(st.sampled_from(FLOATS))
    bias = _eps(draw, et, (1e-6, 1e-3, 1.0))
    b = CaseBuilder(draw_seed(draw))
    data, _ = _data(draw, b, shape, away_from_zero=True, et=et)
    return b.finish("GRN", 1, opset.grn(data, bias))

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

def _stim_norm(op: str, label: str, shape: tuple[int, ...], axes: list[int], et: Type = Type.f32, *,
               kind: str = "ordinary", shapes: tuple[tuple[int, ...], ...] = ()) -> Any:
    version = 6 if op == "MVN" else 1

    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, version, label))
        values = b.rng.uniform(-2, 2, shape)
        note = "values in [-2, 2]."
        if kind == "offset":  # a large mean: the variance must come from x - mean, not E[x²] - E[x]²
            values = 20.0 + b.rng.normal(0, 1, shape)
            note = "mean 20, standard deviation 1: E[x²] - E[x]² in f32 loses most of the variance's digits."
        x = b.param("data", S.cast(values, et), et)
        axes_node = b.const(np.array(axes, np.int64))
        node = (opset.mvn(x, axes_node, True, 1e-6, "inside_sqrt") if op == "MVN"
                else opset.normalize_l2(x, axes_node, 1e-6, "add"))
        return b.finish(op, version, node, note)

    if shapes:
        return lambda: S.dynamic_case([build(s) for s in shapes], note=f"dynamic mode: shapes {list(shapes)}")
    return build


def _stimulus_norm(op: str) -> None:
    version = 6 if op == "MVN" else 1

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield S.Stimulus(op, version, f"axis{n}", "remainder", "ordinary", Type.f32,
                             _stim_norm(op, f"axis{n}", (5, n), [1]), S.remainder_depth(n))
        yield S.Stimulus(op, version, "hw56", "large", "long-reduction", Type.f32,
                         _stim_norm(op, "hw56", (1, 8, S.LARGE_SPATIAL, S.LARGE_SPATIAL), [2, 3]))
        yield S.Stimulus(op, version, "long4096", "large", "long-reduction", Type.f32,
                         _stim_norm(op, "long4096", (17, S.LONG_REDUCTION), [1]))
        if op == "MVN":
            yield S.Stimulus(op, version, "offset-mean", "remainder", "cancellation", Type.f32,
                             _stim_norm(op, "offset-mean", (5, 257), [1], kind="offset"))
        for et in (Type.f16, Type.bf16, Type.f64):
            yield S.Stimulus(op, version, f"{et.name}-axis65", "remainder", "ordinary", et,
                             _stim_norm(op, f"{et.name}-axis65", (5, 65), [1], et),
                             Depth.STANDARD if et == Type.f16 else Depth.EXHAUSTIVE)
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                         _stim_norm(op, "dynamic", (1, 7), [1], shapes=((1, 7), (3, 65), (5, 129))), dynamic=True)

    S.register_stimuli(op, version)(recipe)


_stimulus_norm("MVN")
_stimulus_norm("NormalizeL2")
