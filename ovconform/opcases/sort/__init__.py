"""Case strategies of the sort ops (OpenVINO's op-spec folder "sort"): NonMaxSuppression-1/3/4/5/9,
TopK-1/3/11 and SearchSorted-15 here; MatrixNms-8 and MulticlassNms-8/9 in :mod:`._nms_boxes`,
NMSRotated-13 in :mod:`._nms_rotated`, their stimulus cases in :mod:`._nms_stimulus`.

TopK: values along the axis are all different unless TopK-11 ``stable=true`` (the only case where
the spec orders ties); ``sort="none"`` only with ``k=1`` (its order is implementation defined
otherwise); ``1 <= k <= dim`` (the spec's range). SearchSorted: boundaries sorted ascending (the
spec requires it).

NonMaxSuppression: B 1..2 batch items, N 1..6 boxes and C 1..3 classes; boxes (f32 or f16) inside [0, 4]^2 as two
corners in any order, or as centre and size (``box_encoding="center"``); scores all different
(ties in score leave the order to the implementation). ``max_output_boxes_per_class`` 0..5 (a
Constant, or an i32/i64 Parameter), ``iou_threshold`` in [0.1, 0.9] and ``score_threshold`` in
[0, 0.5] (Constants or Parameters), versions 5 and 9 a ``soft_nms_sigma`` of 0 or in [0.2, 1]
(sometimes left out: its default applies). ``iou_threshold`` is always given: its default 0 is
where the spec contradicts itself ("meaning keep all boxes", yet boxes with IoU > 0 are removed).
Thresholds are drawn at random, so no IoU equals the threshold; see ``deviations_detect.py`` for
what OpenVINO CPU does there and with the fixed-size outputs of versions 1-4. Versions 5 and 9
draw ``max_output_boxes_per_class`` >= 1: with 0 OpenVINO CPU returns an uninitialized
``valid_outputs`` (a different value on every run, sometimes the right 0, so no stable record).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed, draw_shape
from ovconform.opcases._draw_index import INDEX_TYPES, draw_type
from ovconform.opcases.condition import BUCKET_TYPES
from ovconform.opcases.depth import Depth
from ovconform.opcases.movement._indexed import distinct_along
from ovconform.opcases.sort import (  # noqa: F401 - registers the cases
    _nms_boxes,
    _nms_rotated,
    _nms_stimulus,
    _topk_rois,
)
from ovconform.opset._sort import VERSIONS


def _boxes(b: CaseBuilder, shape: tuple[int, int], center: bool) -> np.ndarray:
    if center:
        xy = b.rng.uniform(0.5, 3.5, (*shape, 2))
        wh = b.rng.uniform(0.3, 3.0, (*shape, 2))
        return np.concatenate([xy, wh], axis=-1)
    return b.rng.uniform(0, 4, (*shape, 4))


def _nms(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(FLOATS))
        n_b, n, n_c = draw(st.integers(1, 2)), draw(st.integers(1, 6)), draw(st.integers(1, 3))
        center = draw(st.booleans())
        b = CaseBuilder(draw_seed(draw))
        boxes = b.param("boxes", _boxes(b, (n_b, n), center).astype(et.to_dtype()))
        grid = b.rng.choice(1000, n_b * n_c * n, replace=False).reshape(n_b, n_c, n)
        scores = b.param("scores", ((grid + 0.5) / 1000).astype(et.to_dtype()))
        count = draw(st.integers(4, 6 if version >= 5 else 5))
        low = 1 if version >= 5 else 0  # CPU leaves valid_outputs uninitialized for 0 (versions 5 and 9)
        values = [np.array(draw(st.integers(low, 5)), draw(st.sampled_from((np.int32, np.int64)))),
                  np.array(draw(st.floats(0.1, 0.9)), et.to_dtype()),
                  np.array(draw(st.floats(0.0, 0.5)), et.to_dtype()),
                  np.array(draw(st.sampled_from((0.0, draw(st.floats(0.2, 1.0))))), et.to_dtype())]
        names = ("max_output_boxes_per_class", "iou_threshold", "score_threshold", "soft_nms_sigma")
        optional: list[Node | None] = [b.input(names[i], values[i], draw(st.integers(0, 3)) > 0)
                                       for i in range(count - 2)]
        optional += [None] * (4 - len(optional))
        if version < 5:
            optional[3] = None
        max_boxes, iou_threshold, score_threshold, soft_nms_sigma = optional
        attrs: dict[str, Any] = {"box_encoding": "center" if center else "corner",
                                 "sort_result_descending": draw(st.booleans())}
        if version >= 3:
            attrs["output_type"] = draw(st.sampled_from((Type.i64, Type.i32)))
        node = opset.non_max_suppression(boxes, scores, max_boxes, iou_threshold, score_threshold, soft_nms_sigma,
                                         **attrs, version=version)
        return b.finish("NonMaxSuppression", version, node)

    build.__name__ = f"case_non_max_suppression_{version}"
    register_case("NonMaxSuppression", version)(build)


for _v in VERSIONS:
    _nms(_v)


TOPK_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.i8, Type.u8)


def _topk(draw: Draw[Any], version: int) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=5)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    dim = shape[axis]
    k = draw(st.integers(1, dim))
    sort = draw(st.sampled_from(("value", "index", "none") if k == 1 else ("value", "index")))
    # the spec lets stable=true stand with sort 'none' (it then "takes effect" nowhere), but OpenVINO's
    # TopK-11 validation refuses that pair, so a case never draws it (IR from it would not load there)
    stable = version == 11 and sort != "none" and draw(st.booleans())
    et = draw_type(draw, TOPK_TYPES)
    b = CaseBuilder(draw_seed(draw))
    if stable:
        data = b.uniform(tuple(shape), et, 0 if et == Type.u8 else -3, 3)
    elif et.is_real():
        data = b.distinct(tuple(shape), et, 0.5)
    else:  # distinct along the axis (8-bit types cannot hold hundreds of different values)
        ramp = distinct_along(b, tuple(shape), axis % rank, dim) * 3 - (0 if et == Type.u8 else dim)
        data = ramp.astype(et.to_dtype())
    k_node = b.input("k", np.array(k, dtype=draw(st.sampled_from(INDEX_TYPES)).to_dtype()),
                     as_constant=draw(st.integers(0, 3)) != 0)
    node = opset.topk(b.param("data", data), k_node, axis, draw(st.sampled_from(("max", "min"))), sort,
                      draw(st.sampled_from(INDEX_TYPES)), stable, version=version)
    note = ("values are all different unless TopK-11 stable=true (the spec defines the order of ties only "
            "then); sort 'none' only with k=1 (its order is implementation-defined) and never with stable=true "
            "(allowed by the spec, refused by OpenVINO); 1 <= k <= dim.")
    return b.finish("TopK", version, node, note)


@register_case("TopK", 1)
def case_topk_1(draw: Draw[Any]) -> OpCase:
    return _topk(draw, 1)


@register_case("TopK", 3)
def case_topk_3(draw: Draw[Any]) -> OpCase:
    return _topk(draw, 3)


@register_case("TopK", 11)
def case_topk_11(draw: Draw[Any]) -> OpCase:
    return _topk(draw, 11)


@register_case("SearchSorted", 15)
def case_search_sorted(draw: Draw[Any]) -> OpCase:
    seq_shape = draw_shape(draw, min_rank=1, max_rank=3, max_side=5)
    if len(seq_shape) == 1 and draw(st.booleans()):
        values_shape = draw_shape(draw, max_rank=3, max_side=4)
    else:
        values_shape = (*seq_shape[:-1], draw(st.integers(1, 5)))
    et = draw_type(draw, BUCKET_TYPES)
    b = CaseBuilder(draw_seed(draw))
    low = 0 if et == Type.u8 else -20
    seq = np.sort(b.uniform(tuple(seq_shape), et, low, 20), axis=-1)
    vals = b.uniform(tuple(values_shape), et, low - 2, 22)
    if draw(st.booleans()):  # some values equal to sequence entries
        pool = seq.reshape(-1)
        vals = np.where(b.rng.random(vals.shape) < 0.3, pool[b.rng.integers(0, pool.size, vals.shape)], vals)
    sequence = b.input("sorted_sequence", seq, as_constant=draw(st.booleans()))
    node = opset.search_sorted(sequence, b.param("values", vals.astype(et.to_dtype())), draw(st.booleans()),
                               draw(st.sampled_from(INDEX_TYPES)))
    return b.finish("SearchSorted", 15, node, "each sequence row is sorted ascending (the spec requires it).")

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

def _stim_topk(version: int, label: str, shape: tuple[int, ...], k: int, mode: str = "max", et: Type = Type.f32, *,
          kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("TopK", version, label))
        rows, n = int(np.prod(shape[:-1])), shape[-1]
        ramp = np.stack([b.rng.permutation(n) for _ in range(rows)]).reshape(shape).astype(np.float64)
        values = ramp - n // 2 if (et.is_real() or et.is_signed()) else ramp + 1
        note = "values along the axis are all different (ties are ordered only by TopK-11 stable=true)."
        if kind == "special":  # one +inf and one -inf per row, at the places of the top and bottom values
            values = np.where(ramp == n - 1, np.inf, np.where(ramp == 0, -np.inf, values))
            note = "one +inf and one -inf per row; values otherwise all different."
        elif kind == "int-boundary":
            info = np.iinfo(et.to_dtype())
            values = np.where(ramp == n - 1, info.max, np.where(ramp == 0, info.min, values))
            note = "the type's minimum and maximum once per row; values otherwise all different."
        x = b.param("data", S.cast(values * (0.5 if et == Type.f32 else 1), et), et)
        node = opset.topk(x, b.const(np.array(k, np.int64)), -1, mode, "value", "i32", False, version=version)
        return b.finish("TopK", version, node, note)

    if sizes:
        return lambda: S.dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


def _stimulus_topk(version: int) -> None:
    op = "TopK"

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield S.Stimulus(op, version, f"n{n}", "remainder", "ordinary", Type.f32,
                             _stim_topk(version, f"n{n}", (5, n), 5),
                           S.remainder_depth(n))
        yield S.Stimulus(op, version, "min-n65", "remainder", "ordinary", Type.f32,
                       _stim_topk(version, "min-n65", (5, 65), 7, "min"))
        yield S.Stimulus(op, version, "long4096", "large", "long-reduction", Type.f32,
                       _stim_topk(version, "long4096", (3, S.LONG_REDUCTION), 8))
        yield S.Stimulus(op, version, "large", "large", "ordinary", Type.f32,
                         _stim_topk(version, "large", (17, 4096), 17))
        yield S.Stimulus(op, version, "inf-f32", "remainder", "special", Type.f32,
                       _stim_topk(version, "inf-f32", (5, 65), 3, kind="special"))
        yield S.Stimulus(op, version, "boundary-i32", "remainder", "int-boundary", Type.i32,
                       _stim_topk(version, "boundary-i32", (5, 65), 3, et=Type.i32, kind="int-boundary"))
        for et in (Type.f16, Type.bf16, Type.i32, Type.u8, Type.f64, Type.i64, Type.i8):
            depth = Depth.STANDARD if et in (Type.f16, Type.i32) else Depth.EXHAUSTIVE
            yield S.Stimulus(op, version, f"{et.name}-n65", "remainder", "ordinary", et,
                           _stim_topk(version, f"{et.name}-n65", (5, 65), 5, et=et), depth)
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                       _stim_topk(version, "dynamic", (1, 17), 5, sizes=((1, 17), (3, 65), (5, 129))), dynamic=True)

    S.register_stimuli(op, version)(recipe)


_stimulus_topk(1)
_stimulus_topk(3)
_stimulus_topk(11)
