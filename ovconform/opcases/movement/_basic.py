"""Case strategies of Transpose-1, Concat-1, Split-1, VariadicSplit-1, Gather-1/7/8,
StridedSlice-1 and Broadcast-1/3 (drawn with :mod:`ovconform.opcases._draw_dynamic`).

Every case is valid for OpenVINO CPU as well as for the spec: integer data is small. The stimulus
cases of :mod:`ovconform.opcases._stimulus_geometry` add what OpenVINO CPU gets wrong and the spec
defines: i64 data over the whole 64-bit range (``Transpose-1-i64-wide``, ``Concat-1-i64-wide``,
``Gather-<v>-i64-wide``: OpenVINO CPU moves i64 as i32) and Gather with no indices or of empty data
(``Gather-<v>-empty-indices``, ``-empty-data``: OpenVINO CPU dies of SIGFPE); the bundled
openvino-CPU expectations record both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw_dynamic import CaseBuilder, Draw, draw_axis, draw_shape, draw_type, random_array
from ovconform.opset import concat, constant, split, transpose, variadic_split


@register_case("Transpose", 1)
def transpose_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 0, 4)
    data = b.data(shape, draw_type(draw))
    order = [] if not shape or draw(st.integers(0, 5)) == 0 else draw(st.permutations(range(len(shape))))
    note = "input_order is a Constant: OpenVINO CPU fails to infer a Transpose whose order is a Parameter."
    return b.case("Transpose", 1, [transpose(data, b.index(order, "order")).output(0)], note)


# -- Concat ---------------------------------------------------------------------------------------

@register_case("Concat", 1)
def concat_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 1, 4)
    axis = draw_axis(draw, len(shape))
    et = draw_type(draw)
    parts = []
    for i in range(draw(st.integers(1, 4))):
        piece = list(shape)
        piece[axis] = draw(st.integers(1, 4))
        if i and draw(st.integers(0, 4)) == 0:
            parts.append(constant(random_array(b.rng, piece, et), et).output(0))
        else:
            parts.append(b.data(piece, et, f"data{i}").output(0))
    return b.case("Concat", 1, [concat(parts, axis).output(0)])


# -- Split / VariadicSplit ------------------------------------------------------------------------

@register_case("Split", 1)
def split_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 1, 4, max_dim=4)
    axis = draw_axis(draw, len(shape))
    n = draw(st.integers(1, 4))
    shape[axis] = n * draw(st.integers(1, 3))
    data = b.data(shape, draw_type(draw))
    node = split(data, b.index(np.int64(axis), "axis"), n)
    return b.case("Split", 1, node.outputs())


@register_case("VariadicSplit", 1)
def variadic_split_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 1, 4, max_dim=4)
    axis = draw_axis(draw, len(shape))
    lengths = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    shape[axis] = sum(lengths)
    if draw(st.booleans()):
        lengths[draw(st.integers(0, len(lengths) - 1))] = -1
    data = b.data(shape, draw_type(draw))
    axis_value = np.int64(axis) if draw(st.integers(0, 3)) else [axis]
    node = variadic_split(data, b.index(axis_value, "axis"), b.index(lengths, "split_lengths"))
    return b.case("VariadicSplit", 1, node.outputs())


# -- Gather ---------------------------------------------------------------------------------------

def _gather_case(draw: Draw, version: int) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 1, 4, max_dim=4)
    axis = draw_axis(draw, len(shape))
    pos_axis = axis % len(shape)
    batch_dims = 0 if version == 1 else draw(st.integers(0, pos_axis))
    if batch_dims and int(np.prod(shape[:batch_dims])) == 1:
        batch_dims = 0  # OpenVINO CPU may crash on batch_dims > 0 over a batch of one element
    extra_rank = draw(st.integers(0, 2))
    idx_shape = shape[:batch_dims] + draw(st.lists(st.integers(1, 3), min_size=extra_rank, max_size=extra_rank))
    dim = shape[pos_axis]
    lo = -dim if version >= 8 else 0
    indices = b.rng.integers(lo, dim, size=tuple(idx_shape))
    data = b.data(shape, draw_type(draw))
    idx = b.index(indices, "indices", param_chance=4)
    attrs: dict[str, Any] = {}
    if version > 1:
        negative = batch_dims and batch_dims < len(idx_shape) and draw(st.integers(0, 3)) == 0
        attrs["batch_dims"] = batch_dims - len(idx_shape) if negative else batch_dims
    node = make_node("Gather", version, [data.output(0), idx, b.index(np.int64(axis), "axis")], attrs)
    note = "batch_dims > 0 only over batches of more than one element (OpenVINO CPU may crash on a batch of one)."
    if version < 8:
        note += " Indices are non-negative (negative indices are defined from Gather-8 on)."
    return b.case("Gather", version, [node.output(0)], note)


@register_case("Gather", 1)
def gather_1_case(draw: Draw) -> OpCase:
    return _gather_case(draw, 1)


@register_case("Gather", 7)
def gather_7_case(draw: Draw) -> OpCase:
    return _gather_case(draw, 7)


@register_case("Gather", 8)
def gather_8_case(draw: Draw) -> OpCase:
    return _gather_case(draw, 8)


# -- StridedSlice ---------------------------------------------------------------------------------

def _draw_range(draw: Draw, dim: int) -> tuple[int, int, int, int, int]:
    """(begin, end, stride, begin_mask, end_mask) selecting a non-empty range of a dim of size ``dim``."""
    stride = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    first = draw(st.integers(0, dim - 1))
    if stride > 0:
        stop = draw(st.integers(first + 1, dim))  # exclusive
        begin_mask = int(first == 0 and draw(st.booleans()))
        end_mask = int(stop == dim and draw(st.booleans()))
        if stop == dim:
            end = dim + draw(st.integers(0, 2))  # at or past the end: clamped
        else:
            end = stop - dim if draw(st.booleans()) else stop
    else:
        stop = draw(st.integers(-1, first - 1))  # exclusive, -1 = through index 0
        begin_mask = int(first == dim - 1 and draw(st.booleans()))
        end_mask = int(stop == -1)
        end = 0 if stop == -1 else stop - dim if draw(st.booleans()) else stop
    begin = first - dim if draw(st.booleans()) else first
    if begin_mask:
        begin = draw(st.integers(-dim, dim))  # ignored
    return begin, end, stride, begin_mask, end_mask


def _draw_slice_kinds(draw: Draw, rank: int) -> list[str]:
    """Entry kinds: "range", "new" (new axis), "shrink" and at most one "ellipsis"; the entries
    that consume an input dim never outnumber the rank."""
    kinds: list[str] = []
    for kind in draw(st.lists(st.sampled_from(["range"] * 5 + ["new", "shrink"]), min_size=1, max_size=4)):
        if kind == "new" and kinds.count("new") < 2 or kind != "new" and len(kinds) - kinds.count("new") < rank:
            kinds.append(kind)
    if "new" in kinds and "shrink" in kinds:  # OpenVINO CPU mis-slices that mix
        kinds = ["range" if k == "shrink" else k for k in kinds]
    if not kinds or draw(st.integers(0, 3)) == 0:
        kinds.insert(draw(st.integers(0, len(kinds))), "ellipsis")
    return kinds


def _slice_row(draw: Draw, kind: str, dim: int) -> tuple[int, ...]:
    """(begin, end, stride, begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask)."""
    if kind == "ellipsis":
        return (0, 0, 1, 0, 0, 0, 0, 1)
    if kind == "new":
        return (0, 1, 1, 0, 0, 1, 0, 0)
    if kind == "shrink":
        at = draw(st.integers(-dim, dim - 1))
        return (at, at + 1, 1, 0, int(at == -1), 0, 1, 0)
    return (*_draw_range(draw, dim), 0, 0, 0)


@register_case("StridedSlice", 1)
def strided_slice_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 1, 4)
    kinds = _draw_slice_kinds(draw, len(shape))
    cut = kinds.index("ellipsis") if "ellipsis" in kinds else len(kinds)
    before = sum(k not in ("new", "ellipsis") for k in kinds[:cut])
    after = sum(k not in ("new", "ellipsis") for k in kinds[cut:])
    dims = iter(shape[:before] + shape[len(shape) - after:])
    rows = [_slice_row(draw, k, 0 if k in ("new", "ellipsis") else next(dims)) for k in kinds]
    cols = [list(c) for c in zip(*rows, strict=True)]
    data = b.data(shape, draw_type(draw), bounded_ok=False)
    ranges_only = all(k == "range" for k in kinds)
    begin, end = b.index(cols[0], "begin", param_chance=8 if ranges_only else 0), b.index(cols[1], "end")
    masks = dict(zip(("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"), cols[3:],
                     strict=True))
    node = make_node("StridedSlice", 1, [data.output(0), begin, end, b.index(cols[2], "strides")], masks)
    note = ("data dims are static or '?' (OpenVINO CPU mis-slices bounded dims); new_axis_mask and "
            "shrink_axis_mask are never both set (OpenVINO CPU reads uninitialized memory for that mix); "
            "begin is a Parameter only without new/shrink/ellipsis masks (OpenVINO CPU has no executor then).")
    return b.case("StridedSlice", 1, [node.output(0)], note)


def _numpy_target(draw: Draw, shape: list[int], bidirectional: bool) -> list[int]:
    """A target that ``shape`` broadcasts to (numpy); bidirectional targets may also hold 1s
    where the data has a dim, and may have a smaller rank."""
    lead = draw(st.lists(st.integers(1, 3), min_size=0 if shape else 1, max_size=max(0, 4 - len(shape))))
    tail = [draw(st.integers(1, 3)) if d == 1 else (1 if bidirectional and draw(st.booleans()) else d)
            for d in shape]
    target = lead + tail
    if bidirectional and not lead and len(target) > 1 and draw(st.booleans()):
        target = target[draw(st.integers(1, len(target) - 1)):]
    return target


def _explicit_target(draw: Draw, shape: list[int]) -> tuple[list[int], list[int]]:
    """A target and a strictly increasing axes_mapping placing each data dim in it."""
    rank = draw(st.integers(max(len(shape), 1), 4))
    mapping = sorted(draw(st.lists(st.integers(0, rank - 1), unique=True, min_size=len(shape), max_size=len(shape))))
    target = [draw(st.integers(1, 3)) for _ in range(rank)]
    for d, a in zip(shape, mapping, strict=True):
        target[a] = d if d != 1 or draw(st.booleans()) else target[a]
    return target, mapping


def _broadcast_case(draw: Draw, version: int) -> OpCase:
    b = CaseBuilder(draw)
    modes = ["numpy", "explicit"] + (["bidirectional"] if version == 3 else [])
    mode = draw(st.sampled_from(modes))
    shape = draw_shape(draw, 0 if mode != "explicit" else 1, 3, max_dim=3)
    data = b.data(shape, draw_type(draw))
    if mode == "explicit":
        target, mapping = _explicit_target(draw, shape)
        inputs = [data.output(0), b.index(target, "target_shape"), b.index(mapping, "axes_mapping")]
    else:
        target = _numpy_target(draw, shape, mode == "bidirectional")
        inputs = [data.output(0), b.index(target, "target_shape", param_chance=6)]
    ir_mode = "none" if version == 1 and mode == "explicit" else mode
    node = make_node("Broadcast", version, inputs, {"mode": ir_mode})
    note = ("target_shape is never empty: OpenVINO CPU crashes on Broadcast to a scalar target."
            + ("" if version == 3 else " Mode 'pdpd' is left out: OpenVINO cannot build Broadcast-1 pdpd "
               "with two inputs."))
    return b.case("Broadcast", version, [node.output(0)], note)


@register_case("Broadcast", 1)
def broadcast_1_case(draw: Draw) -> OpCase:
    return _broadcast_case(draw, 1)


@register_case("Broadcast", 3)
def broadcast_3_case(draw: Draw) -> OpCase:
    return _broadcast_case(draw, 3)

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

#: The element types of the data-movement stimulus (they copy bits: every type).
_STIM_TYPES = (*S.NUMERIC, Type.boolean)


def _stim_values(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    return b.uniform(shape, et, -100, 100) if et != Type.boolean else b.uniform(shape, et, 0, 1)


def _stim_case(op: str, version: int, label: str, make: Callable[[S.StimulusBuilder, tuple[int, ...]], Any],
               shape: tuple[int, ...], shapes: tuple[tuple[int, ...], ...] = ()) -> Callable[[], OpCase]:
    """``make(builder, shape)`` returns the op node; a dynamic case builds it at each of ``shapes``."""
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, version, label))
        return b.finish(op, version, make(b, shape), "values in [-100, 100]; indices in range.")

    if shapes:
        return lambda: S.dynamic_case([build(s) for s in shapes], note=f"dynamic mode: shapes {list(shapes)}")
    return build


def _stim_transpose(et: Type, order: list[int]) -> Callable[[S.StimulusBuilder, tuple[int, ...]], Any]:
    return lambda b, shape: transpose(b.param("data", _stim_values(b, shape, et), et), b.const(np.array(order)))


def _stim_concat(et: Type, other: tuple[int, ...], axis: int) -> Callable[[S.StimulusBuilder, tuple[int, ...]], Any]:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Any:
        second = tuple(shape[i] if i != axis and other[i] < 0 else abs(other[i]) for i in range(len(shape)))
        return concat([b.param("a", _stim_values(b, shape, et), et), b.param("b", _stim_values(b, second, et), et)],
                      axis)

    return make


def _stim_gather(et: Type, indices: tuple[int, ...], axis: int, batch_dims: int = 0,
                 index_range: int | None = None) -> Callable[[S.StimulusBuilder, tuple[int, ...]], Any]:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Any:
        n = index_range or shape[axis]
        rng = np.random.default_rng(S.seed_of("Gather", 8, f"{indices}/{axis}"))  # the same for every shape
        idx = rng.integers(-n, n, indices).astype(np.int64)  # Gather-8: negative indices count from the end
        return opset.gather(b.param("data", _stim_values(b, shape, et), et), b.const(idx), b.const(np.array(axis)),
                            batch_dims)

    return make


@S.register_stimuli("Transpose", 1)
def _stimulus_transpose() -> Iterable[S.Stimulus]:
    op, f32 = "Transpose", Type.f32
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 1, f"n{n}", "remainder", "ordinary", f32,
                         _stim_case(op, 1, f"n{n}", _stim_transpose(f32, [2, 0, 1]), (3, 5, n)), S.remainder_depth(n))
    yield S.Stimulus(op, 1, "nchw-nhwc-c17", "remainder", "ordinary", f32,
                     _stim_case(op, 1, "nchw-nhwc-c17", _stim_transpose(f32, [0, 2, 3, 1]), (1, 17, 9, 65)))
    yield S.Stimulus(op, 1, "large", "large", "ordinary", f32,
                     _stim_case(op, 1, "large", _stim_transpose(f32, [1, 0]), (256, 257)))
    for et in _STIM_TYPES:
        if et != f32:
            yield S.Stimulus(op, 1, f"{et.name}-n65", "remainder", "ordinary", et,
                             _stim_case(op, 1, f"{et.name}-n65", _stim_transpose(et, [2, 0, 1]), (3, 5, 65)))
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", f32,
                     _stim_case(op, 1, "dynamic", _stim_transpose(f32, [2, 0, 1]), (1, 5, 7),
                                ((1, 5, 7), (3, 5, 65), (5, 5, 129))), dynamic=True)


@S.register_stimuli("Concat", 1)
def _stimulus_concat() -> Iterable[S.Stimulus]:
    op, f32 = "Concat", Type.f32
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 1, f"n{n}", "remainder", "ordinary", f32,
                         _stim_case(op, 1, f"n{n}", _stim_concat(f32, (-1, 17), 1), (3, n)), S.remainder_depth(n))
    yield S.Stimulus(op, 1, "axis0-n65", "remainder", "ordinary", f32,
                     _stim_case(op, 1, "axis0-n65", _stim_concat(f32, (7, -1), 0), (65, 65)))
    yield S.Stimulus(op, 1, "large", "large", "ordinary", f32,
                     _stim_case(op, 1, "large", _stim_concat(f32, (-1, 65), 1), (2, 32771)))
    for et in _STIM_TYPES:
        if et != f32:
            yield S.Stimulus(op, 1, f"{et.name}-n65", "remainder", "ordinary", et,
                             _stim_case(op, 1, f"{et.name}-n65", _stim_concat(et, (-1, 17), 1), (3, 65)))
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", f32,
                     _stim_case(op, 1, "dynamic", _stim_concat(f32, (-1, 17), 1), (1, 7),
                                ((1, 7), (3, 65), (5, 129))), dynamic=True)


@S.register_stimuli("Gather", 8)
def _stimulus_gather() -> Iterable[S.Stimulus]:
    op, f32 = "Gather", Type.f32
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 8, f"n{n}", "remainder", "ordinary", f32,
                         _stim_case(op, 8, f"n{n}", _stim_gather(f32, (17,), 0), (n, 33)), S.remainder_depth(n))
    yield S.Stimulus(op, 8, "axis1-n65", "remainder", "ordinary", f32,
                     _stim_case(op, 8, "axis1-n65", _stim_gather(f32, (3, 9), 1), (5, 65)))
    yield S.Stimulus(op, 8, "batch-n65", "remainder", "ordinary", f32,
                     _stim_case(op, 8, "batch-n65", _stim_gather(f32, (3, 9), 1, 1), (3, 65, 5)))
    yield S.Stimulus(op, 8, "large", "large", "ordinary", f32,
                     _stim_case(op, 8, "large", _stim_gather(f32, (1000,), 0), (257, 256)))
    for et in _STIM_TYPES:
        if et != f32:
            yield S.Stimulus(op, 8, f"{et.name}-n65", "remainder", "ordinary", et,
                             _stim_case(op, 8, f"{et.name}-n65", _stim_gather(et, (17,), 0), (65, 33)))
    yield S.Stimulus(op, 8, "dynamic", "remainder", "ordinary", f32,
                     _stim_case(op, 8, "dynamic", _stim_gather(f32, (17,), 0, index_range=7), (7, 33),
                                ((7, 33), (65, 33), (129, 33))), dynamic=True)
