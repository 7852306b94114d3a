"""Case strategies for data-movement ops (Transpose, Concat, Split, VariadicSplit, Gather,
StridedSlice), and the drawing helpers the shape-op and state-op strategies share.

Every array comes from one drawn seed through ``numpy.random.default_rng``, so a case is a pure
function of hypothesis' draws. Shapes stay tiny (at most a few thousand elements); data tensors are
never zero-sized (only an index list may be empty); every case is valid for OpenVINO CPU as well
as for the spec.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform.ir import Dimension, Model, Node, Output, Type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opset import concat, constant, parameter, result, split, transpose, variadic_split

Draw = Callable[[st.SearchStrategy[Any]], Any]

DATA_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8, Type.boolean)
INDEX_TYPES = (Type.i32, Type.i64)
MAX_ELEMENTS = 4096


# -- drawing helpers ------------------------------------------------------------------------------

def draw_type(draw: Draw, types: Sequence[Type] = DATA_TYPES) -> Type:
    """f32 about half the time, otherwise any of ``types``."""
    return draw(st.one_of(st.just(Type.f32), st.sampled_from(list(types))))


def draw_shape(draw: Draw, min_rank: int = 0, max_rank: int = 4, max_dim: int = 5) -> list[int]:
    """A static shape with dims 1..max_dim (size-1 dims are common) and few elements."""
    rank = draw(st.integers(min_rank, max_rank))
    dims = draw(st.lists(st.integers(1, max_dim), min_size=rank, max_size=rank))
    while int(np.prod(dims, dtype=np.int64)) > MAX_ELEMENTS:
        dims[dims.index(max(dims))] -= 1
    return dims


def draw_axis(draw: Draw, rank: int) -> int:
    """An axis in [-rank, rank-1]: the negative spelling about a third of the time."""
    axis = draw(st.integers(0, rank - 1))
    return axis - rank if draw(st.integers(0, 2)) == 0 else axis


def random_array(rng: np.random.Generator, shape: Sequence[int], et: Type) -> np.ndarray:
    """Values of element type ``et``: normals for floats, small integers, random booleans."""
    shape = tuple(shape)
    if et == Type.boolean:
        return rng.random(shape) < 0.5
    if et.is_real():
        return rng.standard_normal(shape).astype(et.to_dtype())
    lo = 0 if not et.is_signed() else -100
    return rng.integers(lo, 100, size=shape).astype(et.to_dtype())


class CaseBuilder:
    """Collects a case's Parameters and their arrays (in order) from one drawn seed."""

    def __init__(self, draw: Draw) -> None:
        self.draw = draw
        self.rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        self.params: list[Node] = []
        self.inputs: dict[str, np.ndarray] = {}
        self.dynamic = False

    def data(self, shape: Sequence[int], et: Type, name: str = "data", dynamic_ok: bool = True,
             bounded_ok: bool = True) -> Node:
        """A Parameter fed with random values; its declared shape is sometimes dynamic (``?``) or,
        when ``bounded_ok``, bounded."""
        return self.feed(random_array(self.rng, shape, et), et, name, dynamic_ok, bounded_ok)

    def feed(self, value: np.ndarray, et: Type, name: str, dynamic_ok: bool = False, bounded_ok: bool = True) -> Node:
        """A Parameter fed with ``value``."""
        shape: list[Any] = list(value.shape)
        if dynamic_ok and shape and self.draw(st.integers(0, 5)) == 0:
            shape = [self._relax(d, bounded_ok) for d in shape]
            self.dynamic = True
        node = parameter(shape, et, name=name)
        self.params.append(node)
        self.inputs[name] = np.asarray(value, dtype=et.to_dtype())
        return node

    def _relax(self, d: int, bounded_ok: bool) -> Dimension | int:
        kind = self.draw(st.integers(0, 2 if bounded_ok else 1))
        return d if kind == 0 else Dimension() if kind == 1 else Dimension(max(1, d - 1), d + 2)

    def index(self, values: Any, name: str, param_chance: int = 0, types: Sequence[Type] = INDEX_TYPES) -> Output:
        """An integer index input: a Constant, or (one time in ``param_chance``) a Parameter."""
        et = self.draw(st.sampled_from(list(types)))
        arr = np.asarray(values, dtype=et.to_dtype())
        if param_chance and self.draw(st.integers(1, param_chance)) == 1:
            return self.feed(arr, et, name).output(0)
        return constant(arr).output(0)

    def case(self, op_type: str, version: int, outputs: Sequence[Output], note: str = "",
             sinks: Sequence[Node] = (), **extra: Any) -> OpCase:
        results = [result(o) for o in outputs]
        name = f"{op_type}-{version}"
        model = Model(results, list(sinks), self.params, name) if sinks else Model(results, self.params, name)
        extra.setdefault("dynamic", self.dynamic)
        return OpCase(op_type, version, model, self.inputs, note, extra)


# -- Transpose ------------------------------------------------------------------------------------

@register_case("Transpose", 1)
def transpose_case(draw: Draw) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 0, 4)
    data = b.data(shape, draw_type(draw))
    order = [] if not shape or draw(st.integers(0, 5)) == 0 else draw(st.permutations(range(len(shape))))
    note = "input_order is a Constant: OpenVINO CPU fails to infer a Transpose whose order is a Parameter."
    return b.case("Transpose", 1, [transpose(data, b.index(order, "order"))], note)


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
    return b.case("Concat", 1, [concat(parts, axis)])


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
