"""Stimulus cases of the layout and index op versions (issue #20 gap): Gather-1/7, GatherElements-6,
GatherND-5/8, GatherTree-1, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1, BatchToSpace-2,
SpaceToBatch-2, Roll-7, Reverse-1, ReverseSequence-1, Split-1, VariadicSplit-1, Reshape-1,
Squeeze-1/15, Unsqueeze-1, ShapeOf-1/3, SliceScatter-15, Identity-16, ConvertPromoteTypes-14,
BitwiseLeftShift-15, BitwiseRightShift-15, ExtractImagePatches-3, Col2Im-15, Eye-9, OneHot-1/16 and
Range-1/4.

These ops copy or index: what breaks is the tail of a vector copy (an innermost run of 7..129
elements, ``n<N>`` labels), the number of gathered indices, boxes or channels past a block width,
the thread split of a large tensor (>= 64K elements), the element's byte width (every type the
spec allows: standard depth runs one type of each width, exhaustive all) and a shape that changes
on one compiled model (``dynamic``: min, mid and max shape on one request; for Range and Eye,
whose output shape follows input *values*, the three inferences feed three values). Float data of
the copying ops carries NaN, ±Inf, -0.0 and subnormals (``special-<type>``): a copy must move
them untouched. Its NaNs carry payloads (random mantissa bits and signs; quiet NaNs), and the op
suite compares a copying op's output bit for bit (:data:`ovconform.tolerances.COPYING_OPS`), so a
kernel that canonicalises NaNs or loses the sign of a zero on the way fails these cases.

What the specs leave undefined is avoided:

* Gather-1/7, GatherElements-6, GatherND-5/8: index values in ``[0, dim)`` (negative indices are
  defined from Gather-8 on; out-of-range ones are not defined for these versions).
* GatherTree: parent indices in ``[0, BEAM_WIDTH)``, ``max_seq_len`` in ``[1, MAX_TIME]``; f32
  data holds whole numbers.
* ReverseSequence: sequence lengths in ``[1, dim]``.
* SpaceToBatch/BatchToSpace: pads make each padded dim a multiple of its block; crops keep at
  least one element.
* BitwiseLeftShift/RightShift: shift counts in ``[0, bits)`` (the spec leaves negative counts and
  counts of the bit width or more undefined) and signed left shifts never overflow (``-1 << (bits -
  1)`` = INT_MIN is exact and included); unsigned left shifts wrap modulo ``2**bits``, and right
  shifts of signed values are arithmetic (INT_MIN and -1 included).
* ConvertPromoteTypes: values that every promoted type holds exactly.
* Col2Im sums overlapping patches: whole-number values, so every order of the sum is exact.
* OneHot-1: out-of-range indices (negative or >= depth) select no position (an all-off row, as
  OneHot-16's ``ignore_negative`` spells out; the generated cases draw them too); OneHot-16 runs
  both ``negative_indices_mode`` values.
* Range: start and step are multiples of 0.25 (exact in f16), integer outputs take whole numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type, make_node
from ovconform.opcases import OpCase
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases.depth import Depth

Make = SR.MakeAt
#: The data values of a case: (builder, shape, element type) -> array.
Values = Callable[[S.StimulusBuilder, tuple[int, ...], Type], np.ndarray]
#: Builds an op version's graph for one element type and one way of drawing its data.
Factory = Callable[[Type, Values], Make]

F32 = Type.f32
#: Every element type (data movement copies bits); standard depth runs one of each byte width.
TYPES = (*S.NUMERIC, Type.boolean)
STANDARD_TYPES = (Type.f16, Type.i8, Type.i64, Type.boolean)
#: The special values a copy must carry untouched (subnormals too: no arithmetic flushes them).
COPY_SPECIALS = ("nan", "inf", "-inf", "-0", "sub")
NOTE = "values in [-100, 100]; index values in range; see ovconform.opcases._stimulus_layout for the rest."
I64_MIN = int(np.iinfo(np.int64).min)


def values(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    return b.uniform(shape, et, -100, 100) if et != Type.boolean else b.uniform(shape, et, 0, 1)


#: (unsigned view, exponent mask, mantissa bits) of each float type's storage (bf16 is stored as uint16).
_FLOAT_BITS: dict[str, tuple[type, int, int]] = {
    "f16": (np.uint16, 0x7C00, 10), "bf16": (np.uint16, 0x7F80, 7), "f32": (np.uint32, 0x7F800000, 23),
    "f64": (np.uint64, 0x7FF0000000000000, 52)}


def specials(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """A quarter of the elements NaN, ±Inf, -0.0 or subnormal; the rest in [-100, 100]. The NaNs
    carry payloads: random mantissa bits and signs (a copy moves bits, so every payload must come
    out as it went in); quiet ones only, as a signalling NaN raises "invalid" wherever it is
    converted (the harness's own comparison included)."""
    out = S.with_specials(b.rng, b.rng.uniform(-100, 100, shape), et, COPY_SPECIALS)
    unsigned, exponent, mantissa = _FLOAT_BITS[et.name]
    bits: np.ndarray = out.view(unsigned).reshape(-1)  # a view: writing it rewrites out
    nan = ((bits & unsigned(exponent)) == exponent) & ((bits & unsigned((1 << mantissa) - 1)) != 0)
    payload: np.ndarray = b.rng.integers(1, 1 << mantissa, int(nan.sum()), dtype=np.uint64).astype(unsigned)
    sign = (b.rng.random(payload.size) < 0.5).astype(unsigned) << unsigned(8 * np.dtype(unsigned).itemsize - 1)
    quiet = unsigned(1 << (mantissa - 1))  # quiet NaNs only: converting a signalling one raises FP "invalid"
    bits[nan] = unsigned(exponent) | quiet | payload | sign
    return out


def ints(value: Any, et: Type = Type.i64) -> np.ndarray:
    return np.asarray(value).astype(et.to_dtype())


def stim(op: str, version: int, label: str, make: Make, shape: tuple[int, ...], et: Type = F32, *,
         size: str = "remainder", kind: str = "ordinary", depth: Depth = Depth.STANDARD,
         shapes: tuple[tuple[int, ...], ...] = (), note: str = NOTE) -> S.Stimulus:
    """One stimulus case; with ``shapes``, a dynamic-mode case over them."""
    return S.Stimulus(op, version, label, size, kind, et, SR.node_case(op, version, label, make, shape, shapes, note),
                      depth, dynamic=bool(shapes))


def movement(op: str, version: int, factory: Factory, rem: Callable[[int], tuple[int, ...]],
             large: tuple[int, ...], dynamic: Sequence[int] | None = (7, 65, 129), *,
             types: Sequence[Type] = TYPES, copy_specials: bool = True) -> Iterable[S.Stimulus]:
    """The common cases of a copying op: ``n<N>`` for every remainder (shape ``rem(N)``), ``large``,
    ``special-<float>`` (f32 and f16 at standard depth), ``<type>-n65`` for every other type and a
    dynamic case over ``rem(N)`` for N in ``dynamic``."""
    for n in S.REMAINDERS:
        yield stim(op, version, f"n{n}", factory(F32, values), rem(n), depth=S.remainder_depth(n))
    yield stim(op, version, "large", factory(F32, values), large, size="large")
    if copy_specials:
        for et in (t for t in types if t.is_real()):
            depth = Depth.STANDARD if et in (Type.f32, Type.f16) else Depth.EXHAUSTIVE
            yield stim(op, version, f"special-{et.name}", factory(et, specials), rem(33), et, kind="special",
                       depth=depth)
    for et in types:
        if et != F32:
            depth = Depth.STANDARD if et in STANDARD_TYPES else Depth.EXHAUSTIVE
            yield stim(op, version, f"{et.name}-n65", factory(et, values), rem(65), et, depth=depth)
    if dynamic:
        shapes = tuple(rem(n) for n in dynamic)
        yield stim(op, version, "dynamic", factory(F32, values), shapes[0], shapes=shapes)


def fixed_rng(*key: Any) -> np.random.Generator:
    """A generator that depends only on ``key`` (not the case's shape): the Constants of a dynamic
    case must be the same at every shape."""
    return np.random.default_rng(S.seed_of("layout", 0, repr(key)))


# -- Gather-1/7 -----------------------------------------------------------------------------------------------

def gather_make(version: int, idx_shape: tuple[int, ...], axis: int, batch_dims: int = 0,
                index_range: int = 0, idx_type: Type = Type.i64) -> Factory:
    """Gather of indices in ``[0, index_range or dim)`` (Constant, the same at every shape)."""
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            n = index_range or shape[axis]
            idx = fixed_rng(idx_shape, axis, n).integers(0, n, (*shape[:batch_dims], *idx_shape))
            attrs = {"batch_dims": batch_dims} if version > 1 else {}
            inputs = [b.param("data", gen(b, shape, et), et).output(0), b.const(ints(idx, idx_type)).output(0),
                      b.const(np.int64(axis)).output(0)]
            return make_node("Gather", version, inputs, attrs)

        return make

    return factory


def gather_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op = "Gather"

    def recipe() -> Iterable[S.Stimulus]:
        # rows of n elements gathered: the innermost copy has a tail
        yield from movement(op, version, gather_make(version, (9,), 0, index_range=17), lambda n: (17, n), (257, 256))
        yield stim(op, version, "last-axis-n129", gather_make(version, (33,), 1)(F32, values), (3, 129))
        yield stim(op, version, "axis1-idx65", gather_make(version, (5, 13), 1)(F32, values), (5, 65, 3))
        yield stim(op, version, "i32-indices-n63", gather_make(version, (9,), 0, idx_type=Type.i32)(F32, values),
                   (17, 63))
        yield stim(op, version, "large-n1025", gather_make(version, (64,), 0)(F32, values), (64, 1025), size="large")
        if version >= 7:
            yield stim(op, version, "batch-n65", gather_make(version, (9,), 1, 1)(F32, values), (3, 65, 5))
            yield stim(op, version, "batch2-n17", gather_make(version, (7,), 2, 2)(F32, values), (2, 3, 17, 9))

    return recipe


# -- GatherElements-6 -----------------------------------------------------------------------------------------

def gather_elements_make(axis: int, count: int = 0, index_range: int = 0) -> Factory:
    """Indices of the data's shape with ``count`` (default: the data's) along ``axis``."""
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            idx_shape = list(shape)
            idx_shape[axis] = count or shape[axis]
            n = index_range or shape[axis]
            idx = fixed_rng("GatherElements", tuple(idx_shape), n).integers(0, n, tuple(idx_shape))
            return opset.gather_elements(b.param("data", gen(b, shape, et), et), b.const(ints(idx)), axis)

        return make

    return factory


@S.register_stimuli("GatherElements", 6)
def gather_elements_recipe() -> Iterable[S.Stimulus]:
    op = "GatherElements"
    yield from movement(op, 6, gather_elements_make(1), lambda n: (3, n), (256, 257), dynamic=None)
    yield stim(op, 6, "axis0-n65", gather_elements_make(0, 17)(F32, values), (9, 65))
    yield stim(op, 6, "fewer-n129", gather_elements_make(-1, 33)(F32, values), (2, 3, 129))
    yield stim(op, 6, "i32-indices-n63", _gather_elements_i32(), (3, 63))
    shapes = ((3, 7), (3, 65), (3, 129))
    yield stim(op, 6, "dynamic", gather_elements_make(1, 4, index_range=7)(F32, values), shapes[0], shapes=shapes)


def _gather_elements_i32() -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        idx = b.rng.integers(0, shape[1], shape)
        return opset.gather_elements(b.param("data", values(b, shape, F32), F32), b.const(ints(idx, Type.i32)), 1)

    return make


# -- GatherND-5/8 ---------------------------------------------------------------------------------------------

def gather_nd_make(version: int, count: int, k: int, batch_dims: int = 0, index_range: int = 0) -> Factory:
    """``count`` index tuples over the ``k`` axes after the batch ones (per batch element)."""
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            highs = [index_range or d for d in shape[batch_dims:batch_dims + k]]
            rng = fixed_rng("GatherND", count, k, batch_dims, tuple(highs))
            idx = np.floor(rng.random((*shape[:batch_dims], count, k)) * np.array(highs)).astype(np.int64)
            return opset.gather_nd(b.param("data", gen(b, shape, et), et), b.const(idx), batch_dims, version=version)

        return make

    return factory


def gather_nd_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op = "GatherND"

    def recipe() -> Iterable[S.Stimulus]:
        yield from movement(op, version, gather_nd_make(version, 13, 1, index_range=9), lambda n: (9, n), (257, 256))
        yield stim(op, version, "elements-n65", gather_nd_make(version, 100, 2)(F32, values), (5, 65))
        yield stim(op, version, "batch-n65", gather_nd_make(version, 4, 1, 1)(F32, values), (3, 9, 65))
        yield stim(op, version, "batch2-n17", gather_nd_make(version, 5, 1, 2)(F32, values), (2, 3, 9, 17))
        yield stim(op, version, "large-elements", gather_nd_make(version, 70000, 2)(F32, values), (256, 257),
                   size="large")

    return recipe


# -- GatherTree-1 ---------------------------------------------------------------------------------------------

def gather_tree_make(et: Type) -> Make:
    """[T, B, W] step ids in [0, 50) with end token 7 among them, parents in [0, W), lengths in [1, T]."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        time, batch, width = shape
        steps = S.cast(b.rng.integers(0, 50, shape), et)
        parents = S.cast(b.rng.integers(0, width, shape), et)
        lengths = b.rng.integers(1, time, batch, endpoint=True)
        lengths[0] = time
        return opset.gather_tree(b.param("step_ids", steps, et), b.param("parent_idx", parents, et),
                                 b.param("max_seq_len", S.cast(lengths, et), et), b.const(S.cast(np.array(7), et), et))

    return make


@S.register_stimuli("GatherTree", 1)
def gather_tree_recipe() -> Iterable[S.Stimulus]:
    op = "GatherTree"
    for n in S.REMAINDERS:
        yield stim(op, 1, f"beam{n}", gather_tree_make(F32), (5, 3, n), depth=S.remainder_depth(n))
    yield stim(op, 1, "time65", gather_tree_make(F32), (65, 3, 4))
    yield stim(op, 1, "batch33", gather_tree_make(F32), (6, 33, 5))
    yield stim(op, 1, "large", gather_tree_make(F32), (64, 33, 32), size="large")
    yield stim(op, 1, "i32-beam65", gather_tree_make(Type.i32), (5, 3, 65), Type.i32)
    shapes = ((3, 2, 7), (9, 3, 65), (17, 5, 129))
    yield stim(op, 1, "dynamic", gather_tree_make(F32), shapes[0], shapes=shapes)


# -- DepthToSpace / SpaceToDepth / ShuffleChannels ------------------------------------------------------------

def d2s_make(mode: str, block: int) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.depth_to_space(b.param("data", gen(b, shape, et), et), mode, block)

    return factory


def s2d_make(mode: str, block: int) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.space_to_depth(b.param("data", gen(b, shape, et), et), mode, block)

    return factory


@S.register_stimuli("DepthToSpace", 1)
def depth_to_space_recipe() -> Iterable[S.Stimulus]:
    op = "DepthToSpace"
    yield from movement(op, 1, d2s_make("blocks_first", 2), lambda n: (2, 8, 3, n), (1, 64, 32, 33))
    for n in (17, 65):
        yield stim(op, 1, f"depth-first-n{n}", d2s_make("depth_first", 2)(F32, values), (2, 8, 3, n))
        yield stim(op, 1, f"c{n}-b2", d2s_make("depth_first", 2)(F32, values), (1, 4 * n, 3, 5))
    yield stim(op, 1, "b3-n17", d2s_make("blocks_first", 3)(F32, values), (1, 18, 5, 17))
    yield stim(op, 1, "5d-b2-n9", d2s_make("depth_first", 2)(F32, values), (1, 16, 3, 4, 9))


@S.register_stimuli("SpaceToDepth", 1)
def space_to_depth_recipe() -> Iterable[S.Stimulus]:
    op = "SpaceToDepth"
    yield from movement(op, 1, s2d_make("blocks_first", 2), lambda n: (2, 3, 4, 2 * n), (1, 16, 64, 66))
    for n in (17, 65):
        yield stim(op, 1, f"depth-first-n{n}", s2d_make("depth_first", 2)(F32, values), (2, 3, 4, 2 * n))
        yield stim(op, 1, f"c{n}-b2", s2d_make("depth_first", 2)(F32, values), (1, n, 4, 6))
    yield stim(op, 1, "b3-n17", s2d_make("blocks_first", 3)(F32, values), (1, 2, 6, 51))
    yield stim(op, 1, "5d-b2-n9", s2d_make("depth_first", 2)(F32, values), (1, 3, 2, 4, 18))


def shuffle_make(axis: int, group: int) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.shuffle_channels(b.param("data", gen(b, shape, et), et), axis, group)

    return factory


@S.register_stimuli("ShuffleChannels", 1)
def shuffle_channels_recipe() -> Iterable[S.Stimulus]:
    op = "ShuffleChannels"
    yield from movement(op, 1, shuffle_make(1, 3), lambda n: (2, 12, 3, n), (1, 66, 32, 33))
    for n in (17, 65):
        yield stim(op, 1, f"c{3 * n}-g3", shuffle_make(1, 3)(F32, values), (1, 3 * n, 3, 5))
        yield stim(op, 1, f"g{n}", shuffle_make(1, n)(F32, values), (1, 2 * n, 2, 3))
    yield stim(op, 1, "last-axis-n63", shuffle_make(-1, 7)(F32, values), (3, 5, 63))


# -- BatchToSpace / SpaceToBatch ------------------------------------------------------------------------------

def b2s_make(block: list[int], crops_begin: list[int], crops_end: list[int]) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.batch_to_space(b.param("data", gen(b, shape, et), et), b.const(ints(block)),
                                                     b.const(ints(crops_begin)), b.const(ints(crops_end)))

    return factory


@S.register_stimuli("BatchToSpace", 2)
def batch_to_space_recipe() -> Iterable[S.Stimulus]:
    op = "BatchToSpace"
    yield from movement(op, 2, b2s_make([1, 1, 2, 3], [0, 0, 1, 2], [0, 0, 0, 1]), lambda n: (12, 3, 4, n),
                        (6, 16, 32, 22))
    yield stim(op, 2, "channels-b2-n17", b2s_make([1, 2, 1, 3], [0, 1, 0, 0], [0, 0, 0, 2])(F32, values),
               (12, 17, 3, 17))
    yield stim(op, 2, "3d-b7-n9", b2s_make([1, 7, 9], [0, 3, 1], [0, 2, 7])(F32, values), (63, 5, 9))
    yield stim(op, 2, "i32-inputs-n65", _b2s_i32(), (12, 3, 4, 65))


def _b2s_i32() -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.batch_to_space(b.param("data", values(b, shape, F32), F32), b.const(ints([1, 1, 2, 3], Type.i32)),
                                    b.const(ints([0, 0, 1, 0], Type.i32)), b.const(ints([0, 0, 0, 4], Type.i32)))

    return make


def s2b_make(block: list[int], pads_begin: list[int], pads_end: Callable[[tuple[int, ...]], list[int]]) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            return opset.space_to_batch(b.param("data", gen(b, shape, et), et), b.const(ints(block)),
                                        b.const(ints(pads_begin)), b.const(ints(pads_end(shape))))

        return make

    return factory


def _pad_to(block: list[int], begin: list[int]) -> Callable[[tuple[int, ...]], list[int]]:
    """pads_end that make every padded dim a multiple of its block."""
    return lambda shape: [(-(d + p)) % k for d, p, k in zip(shape, begin, block, strict=True)]


@S.register_stimuli("SpaceToBatch", 2)
def space_to_batch_recipe() -> Iterable[S.Stimulus]:
    op = "SpaceToBatch"
    block, begin = [1, 1, 2, 3], [0, 0, 1, 2]
    yield from movement(op, 2, s2b_make(block, begin, _pad_to(block, begin)), lambda n: (2, 3, 5, n),
                        (1, 16, 64, 66), dynamic=None)
    yield stim(op, 2, "channels-b2-n17", s2b_make([1, 2, 1, 3], [0, 1, 0, 1], _pad_to([1, 2, 1, 3], [0, 1, 0, 1]))(
        F32, values), (2, 17, 3, 17))
    yield stim(op, 2, "3d-b7-n9", s2b_make([1, 7, 9], [0, 3, 1], _pad_to([1, 7, 9], [0, 3, 1]))(F32, values),
               (3, 5, 9))
    # n = 7, 67, 130: n + 2 is a multiple of 3 at every shape, so one pads_end fits all
    shapes = ((2, 3, 5, 7), (2, 3, 5, 67), (2, 3, 5, 130))
    yield stim(op, 2, "dynamic", s2b_make(block, begin, lambda s: [0, 0, 0, 0])(F32, values), shapes[0],
               shapes=shapes)


# -- Roll / Reverse / ReverseSequence -------------------------------------------------------------------------

def roll_make(shift: int | list[int], axes: list[int], idx_type: Type = Type.i64) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.roll(b.param("data", gen(b, shape, et), et), b.const(ints(shift, idx_type)),
                                           b.const(ints(axes, idx_type)))

    return factory


@S.register_stimuli("Roll", 7)
def roll_recipe() -> Iterable[S.Stimulus]:
    op = "Roll"
    yield from movement(op, 7, roll_make([5, -1], [1, 0]), lambda n: (3, n), (256, 257))
    for n in (17, 65):
        yield stim(op, 7, f"past-dim-n{n}", roll_make([3 * n + 2, -(n + 4)], [1, -1])(F32, values), (3, n))
    yield stim(op, 7, "3d-n65", roll_make([2, -3, 70], [0, 1, 2])(F32, values), (5, 9, 65))
    yield stim(op, 7, "scalar-shift-n63", roll_make(-9, [0, 1])(F32, values), (7, 63))
    yield stim(op, 7, "i32-inputs-n129", roll_make([-130, 1], [-1, 0], Type.i32)(F32, values), (3, 129))


def reverse_make(axes: list[int] | list[bool], mode: str) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            return opset.reverse(b.param("data", gen(b, shape, et), et), b.const(np.array(axes)), mode)

        return make

    return factory


@S.register_stimuli("Reverse", 1)
def reverse_recipe() -> Iterable[S.Stimulus]:
    op = "Reverse"
    yield from movement(op, 1, reverse_make([1], "index"), lambda n: (3, n), (2, 32771))
    yield stim(op, 1, "mask-n65", reverse_make([True, False, True], "mask")(F32, values), (5, 9, 65))
    yield stim(op, 1, "rows-n129", reverse_make([0], "index")(F32, values), (129, 17))
    yield stim(op, 1, "all-axes-n17", reverse_make([0, 1, 2], "index")(F32, values), (3, 5, 17))


def reverse_sequence_make(batch_axis: int, seq_axis: int, max_len: int = 0, len_type: Type = Type.i64) -> Factory:
    """Lengths in ``[1, max_len or dim]`` (a Constant)."""
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            top = max_len or shape[seq_axis]
            lengths = fixed_rng("ReverseSequence", shape[batch_axis], top).integers(1, top, shape[batch_axis],
                                                                                    endpoint=True)
            lengths[0] = top
            return opset.reverse_sequence(b.param("data", gen(b, shape, et), et), b.const(ints(lengths, len_type)),
                                          batch_axis, seq_axis)

        return make

    return factory


@S.register_stimuli("ReverseSequence", 1)
def reverse_sequence_recipe() -> Iterable[S.Stimulus]:
    op = "ReverseSequence"
    yield from movement(op, 1, reverse_sequence_make(0, 2, max_len=7), lambda n: (4, 5, n), (4, 129, 129))
    for n in (17, 65, 129):
        yield stim(op, 1, f"seq{n}", reverse_sequence_make(0, 1)(F32, values), (5, n, 3))
    yield stim(op, 1, "batch-last-n65", reverse_sequence_make(2, 0)(F32, values), (65, 3, 6))
    yield stim(op, 1, "i32-lengths-n63", reverse_sequence_make(0, 1, len_type=Type.i32)(F32, values), (3, 63, 5))
    yield stim(op, 1, "f32-lengths-n17", reverse_sequence_make(0, 1, len_type=F32)(F32, values), (3, 17, 5))


# -- Split / VariadicSplit / SliceScatter ---------------------------------------------------------------------

def split_make(axis: int, parts: int) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.split(b.param("data", gen(b, shape, et), et), b.const(np.int64(axis)), parts)

    return factory


@S.register_stimuli("Split", 1)
def split_recipe() -> Iterable[S.Stimulus]:
    op = "Split"
    yield from movement(op, 1, split_make(1, 3), lambda n: (3, 3 * n), (2, 4 * 8193))
    yield stim(op, 1, "axis0-n65", split_make(0, 5)(F32, values), (5 * 13, 65))
    yield stim(op, 1, "parts17-n9", split_make(-1, 17)(F32, values), (3, 17 * 9))
    yield stim(op, 1, "middle-n63", split_make(1, 2)(F32, values), (3, 14, 63))


def variadic_make(axis: int, lengths: Callable[[tuple[int, ...]], list[int]]) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            return opset.variadic_split(b.param("data", gen(b, shape, et), et), b.const(np.int64(axis)),
                                        b.const(ints(lengths(shape))))

        return make

    return factory


@S.register_stimuli("VariadicSplit", 1)
def variadic_split_recipe() -> Iterable[S.Stimulus]:
    op = "VariadicSplit"
    # pieces of n (the remainder), 17 and the rest (-1: 9 or more)
    yield from movement(op, 1, variadic_make(1, lambda s: [max(s[1] - 26, 1), 17, -1]), lambda n: (3, n + 26),
                        (2, 32771), dynamic=None)
    yield stim(op, 1, "axis0-n65", variadic_make(0, lambda s: [1, 63, -1])(F32, values), (65, 17))
    yield stim(op, 1, "zero-length-n33", variadic_make(1, lambda s: [0, 33, -1])(F32, values), (3, 40))
    shapes = ((3, 7), (3, 65), (3, 129))
    yield stim(op, 1, "dynamic", variadic_make(1, lambda s: [2, -1, 3])(F32, values), shapes[0], shapes=shapes)


def slice_scatter_make(start: list[int], stop: list[int], step: list[int], axes: list[int]) -> Factory:
    """SliceScatter whose updates have the slice's shape (computed with numpy's slicing)."""
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            index = [slice(None)] * len(shape)
            for a, lo, hi, st in zip(axes, start, stop, step, strict=True):
                index[a] = slice(lo, None if hi == I64_MIN else hi, st)
            upd_shape = np.empty(shape, np.int8)[tuple(index)].shape
            return opset.slice_scatter(b.param("data", gen(b, shape, et), et),
                                       b.param("updates", gen(b, upd_shape, et), et), b.const(ints(start)),
                                       b.const(ints(stop)), b.const(ints(step)), b.const(ints(axes)))

        return make

    return factory


@S.register_stimuli("SliceScatter", 15)
def slice_scatter_recipe() -> Iterable[S.Stimulus]:
    op = "SliceScatter"
    yield from movement(op, 15, slice_scatter_make([-1], [I64_MIN], [-2], [1]), lambda n: (3, n), (2, 32771),
                        dynamic=None)
    for n in (17, 65, 129):
        yield stim(op, 15, f"step3-n{n}", slice_scatter_make([1], [n + 5], [3], [1])(F32, values), (3, n))
    yield stim(op, 15, "3d-axes-n65", slice_scatter_make([-2, 4, 1], [0, -100, 9], [-3, -1, 2], [-1, 0, 1])(
        F32, values), (5, 9, 65))
    shapes = ((3, 7), (3, 65), (3, 129))
    yield stim(op, 15, "dynamic", slice_scatter_make([1], [6], [2], [1])(F32, values), shapes[0], shapes=shapes)


# -- Reshape / Squeeze / Unsqueeze / ShapeOf / Identity -------------------------------------------------------

def reshape_make(target: list[int], special_zero: bool) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.reshape(b.param("data", gen(b, shape, et), et), b.const(ints(target)),
                                              special_zero)

    return factory


@S.register_stimuli("Reshape", 1)
def reshape_recipe() -> Iterable[S.Stimulus]:
    op = "Reshape"
    yield from movement(op, 1, reshape_make([-1, 3], False), lambda n: (3, n), (3, 21847), dynamic=None,
                        copy_specials=False)
    yield stim(op, 1, "special-zero-n65", reshape_make([0, -1, 1], True)(F32, values), (3, 5, 65))
    shapes = ((3, 7), (3, 65), (3, 129))
    yield stim(op, 1, "dynamic", reshape_make([0, 1, -1], True)(F32, values), shapes[0], shapes=shapes)


def squeeze_make(version: int, axes: list[int] | None, skip: bool = False) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            data = b.param("data", gen(b, shape, et), et)
            if version == 15:
                return opset.squeeze(data, None if axes is None else b.const(ints(axes)), skip)
            inputs = [data.output(0)] + ([] if axes is None else [b.const(ints(axes)).output(0)])
            return make_node("Squeeze", 1, inputs, {})

        return make

    return factory


def squeeze_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op = "Squeeze"

    def recipe() -> Iterable[S.Stimulus]:
        yield from movement(op, version, squeeze_make(version, [1, -1]), lambda n: (3, 1, n, 1), (2, 1, 32771, 1),
                            copy_specials=False)
        yield stim(op, version, "no-axes-n65", squeeze_make(version, None)(F32, values), (1, 65, 1, 3))
        if version == 15:
            yield stim(op, version, "skip-n17", squeeze_make(version, [0, 1, 2], True)(F32, values), (1, 17, 1))

    return recipe


def unsqueeze_make(axes: list[int]) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.unsqueeze(b.param("data", gen(b, shape, et), et), b.const(ints(axes)))

    return factory


@S.register_stimuli("Unsqueeze", 1)
def unsqueeze_recipe() -> Iterable[S.Stimulus]:
    yield from movement("Unsqueeze", 1, unsqueeze_make([0, -1]), lambda n: (3, n), (2, 32771), copy_specials=False)
    yield stim("Unsqueeze", 1, "middle-n65", unsqueeze_make([1, 3])(F32, values), (3, 65))


def shape_of_make(version: int, output_type: Type = Type.i64) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            data = b.param("data", gen(b, shape, et), et)
            if version == 3:
                return opset.shape_of(data, output_type)
            return make_node("ShapeOf", 1, [data.output(0)], {})

        return make

    return factory


def shape_of_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        yield from movement("ShapeOf", version, shape_of_make(version), lambda n: (3, n), (2, 32771),
                            copy_specials=False)
        yield stim("ShapeOf", version, "rank5-n17", shape_of_make(version)(F32, values), (2, 1, 3, 17, 5))
        if version == 3:
            shapes = ((3, 7), (3, 65), (3, 129))
            yield stim("ShapeOf", 3, "i32-out-dynamic", shape_of_make(3, Type.i32)(F32, values), shapes[0],
                       Type.f32, shapes=shapes)

    return recipe


@S.register_stimuli("Identity", 16)
def identity_recipe() -> Iterable[S.Stimulus]:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.identity(b.param("data", gen(b, shape, et), et))

    yield from movement("Identity", 16, factory, lambda n: (3, n), (2, 32771))


# -- ConvertPromoteTypes-14 -----------------------------------------------------------------------------------

#: (left, right, promote_unsafe, pytorch_scalar_promotion, u64_integer_promotion_target): pairs whose
#: common type holds every value the cases use (small whole numbers, non-negative for unsigned).
PROMOTE_PAIRS: tuple[tuple[Type, Type, bool, bool, str], ...] = (
    (Type.f16, Type.f32, False, False, "f32"),
    (Type.i8, Type.u8, True, False, "f32"),
    (Type.u8, Type.i32, False, False, "f32"),
    (Type.i16, Type.u16, True, False, "f32"),
    (Type.f16, Type.bf16, True, False, "f32"),
    (Type.i32, Type.f32, True, False, "f32"),
    (Type.u32, Type.i64, False, False, "f32"),
    (Type.u64, Type.i64, True, False, "i64"),
    (Type.boolean, Type.i8, False, False, "f32"),
    (Type.i64, Type.f64, True, False, "f32"),
)


def promote_make(left: Type, right: Type, unsafe: bool, pytorch: bool, u64_target: str,
                 right_scalar: bool = False) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        def draw(sh: tuple[int, ...], et: Type) -> np.ndarray:
            if et == Type.boolean:
                return b.uniform(sh, et, 0, 1)
            low = 0 if not (et.is_real() or et.is_signed()) else -100
            return b.uniform(sh, et, low, 100)

        rshape = () if right_scalar else shape
        return opset.convert_promote_types(b.param("left", draw(shape, left), left),
                                           b.param("right", draw(rshape, right), right), unsafe, pytorch,
                                           u64_target)

    return make


@S.register_stimuli("ConvertPromoteTypes", 14)
def convert_promote_recipe() -> Iterable[S.Stimulus]:
    op = "ConvertPromoteTypes"
    main = promote_make(*PROMOTE_PAIRS[0])
    for n in S.REMAINDERS:
        yield stim(op, 14, f"n{n}", main, (3, n), Type.f16, depth=S.remainder_depth(n))
    yield stim(op, 14, "large", main, (2, 32771), Type.f16, size="large")
    for pair in PROMOTE_PAIRS[1:]:
        label = f"{pair[0].name}-{pair[1].name}-n65"
        depth = Depth.STANDARD if pair[0] in (Type.i8, Type.u8, Type.f16, Type.u64, Type.i32) else Depth.EXHAUSTIVE
        yield stim(op, 14, label, promote_make(*pair), (3, 65), pair[0], depth=depth)
    yield stim(op, 14, "pytorch-scalar-n65", promote_make(Type.i16, Type.u8, False, True, "f32", True), (3, 65),
               Type.i16)
    shapes = ((3, 7), (3, 65), (3, 129))
    yield stim(op, 14, "dynamic", promote_make(Type.i8, Type.u8, True, False, "f32"), shapes[0], Type.i8,
               shapes=shapes)


# -- BitwiseLeftShift / BitwiseRightShift -----------------------------------------------------------------------

def _bits(et: Type) -> int:
    return int(et.bitwidth)


def shift_operands(b: S.StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type, left: bool,
                   boundary: bool) -> tuple[np.ndarray, np.ndarray]:
    """Counts in ``[0, bits)`` (both ends included); signed left shifts stay inside the type
    (``|a| < 2**(bits - 1 - count)``, plus ``-1 << (bits - 1)`` = INT_MIN); with ``boundary`` the data
    holds the type's minimum and maximum (right shifts, unsigned left shifts)."""
    bits = _bits(et)
    info = np.iinfo(et.to_dtype())
    counts = b.rng.integers(0, bits, sb, endpoint=False)
    counts.reshape(-1)[:2] = [0, bits - 1][:counts.size]
    if left and et.is_signed():
        full = np.broadcast_to(counts, np.broadcast_shapes(sa, sb))
        room = bits - 2 - np.broadcast_to(full, sa) if sa == np.broadcast_shapes(sa, sb) else None
        if room is None:  # a broadcast data operand: keep |a| < 2 (any count fits)
            data = b.rng.integers(-1, 1, sa, endpoint=True)
        else:
            mag = np.floor(b.rng.random(sa) * np.exp2(np.maximum(room, 0))).astype(np.int64)
            data = np.where(b.rng.random(sa) < 0.5, -mag, mag)
            data = np.where(room < 0, -1, data)  # count = bits - 1: only -1 (-> INT_MIN) and 0 fit
        return data.astype(et.to_dtype()), counts.astype(et.to_dtype())
    if boundary:
        data = S.with_boundaries(b.rng, b.uniform(sa, et, int(info.min), int(info.max)), et)
    else:
        data = b.uniform(sa, et, int(info.min), int(info.max))
    return np.asarray(data).astype(et.to_dtype()), counts.astype(et.to_dtype())


def shift_make(op: str, et: Type, left: bool, rhs: str = "same", boundary: bool = False) -> Make:
    """``rhs``: the counts' shape: ``same``, ``row`` (1, n) or ``scalar``."""
    builder = opset.bitwise_left_shift if left else opset.bitwise_right_shift

    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        sb = {"same": shape, "row": (1, shape[-1]), "scalar": ()}[rhs]
        a, c = shift_operands(b, shape, sb, et, left, boundary)
        return builder(b.param("a", a, et), b.param("b", c, et))

    return make


def shift_recipe(op: str, left: bool) -> Callable[[], Iterable[S.Stimulus]]:
    i32 = Type.i32

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield stim(op, 15, f"n{n}", shift_make(op, i32, left), (3, n), i32, depth=S.remainder_depth(n))
        yield stim(op, 15, "bcast-row-n63", shift_make(op, i32, left, "row"), (3, 63), i32)
        yield stim(op, 15, "bcast-scalar-n63", shift_make(op, i32, left, "scalar"), (3, 63), i32)
        yield stim(op, 15, "large", shift_make(op, i32, left), (2, 32771), i32, size="large")
        for et in S.INTEGERS:
            depth = Depth.STANDARD if et in (Type.i8, Type.u8, Type.i32, Type.i64, Type.u64) else Depth.EXHAUSTIVE
            if et != i32:
                yield stim(op, 15, f"{et.name}-n65", shift_make(op, et, left), (3, 65), et, depth=depth)
            if not (left and et.is_signed()):
                yield stim(op, 15, f"boundary-{et.name}", shift_make(op, et, left, boundary=True), (4, 33), et,
                           kind="int-boundary", depth=depth)
        shapes = ((1, 7), (3, 65), (5, 129))
        yield stim(op, 15, "dynamic", shift_make(op, i32, left), shapes[0], i32, shapes=shapes)

    return recipe


# -- ExtractImagePatches-3 / Col2Im-15 ------------------------------------------------------------------------

PATCH_TYPES = (*S.NUMERIC,)


def patches_make(sizes: list[int], strides: list[int], rates: list[int], pad: str) -> Factory:
    def factory(et: Type, gen: Values) -> Make:
        return lambda b, shape: opset.extract_image_patches(b.param("data", gen(b, shape, et), et), sizes, strides,
                                                            rates, pad)

    return factory


@S.register_stimuli("ExtractImagePatches", 3)
def extract_image_patches_recipe() -> Iterable[S.Stimulus]:
    op = "ExtractImagePatches"
    yield from movement(op, 3, patches_make([3, 3], [2, 3], [1, 2], "valid"), lambda n: (1, 3, 9, n), (1, 3, 150, 150),
                        types=PATCH_TYPES)
    for pad in ("same_upper", "same_lower"):
        for n in (17, 65):
            yield stim(op, 3, f"{pad}-n{n}", patches_make([3, 2], [2, 3], [2, 1], pad)(F32, values), (2, 3, 9, n))
    yield stim(op, 3, "c17-n33", patches_make([2, 2], [1, 1], [1, 1], "valid")(F32, values), (1, 17, 5, 33))


def col2im_make(et: Type, kernel: list[int], strides: list[int], dilations: list[int], pads_begin: list[int],
                pads_end: list[int], size: list[int], batched: bool = True) -> Make:
    """Whole-number data in [-20, 20] (sums exact in any order) of [N, C * kh * kw, L], L the block count."""
    blocks = [(s + a + c - (d * (k - 1) + 1)) // t + 1
              for s, a, c, k, d, t in zip(size, pads_begin, pads_end, kernel, dilations, strides, strict=True)]

    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, channels = shape
        full = (n, channels * kernel[0] * kernel[1], blocks[0] * blocks[1])
        low = 0 if not (et.is_real() or et.is_signed()) else -20  # unsigned: no wrap-around
        data = S.cast(b.rng.integers(low, 20, full, endpoint=True), et)
        return opset.col2im(b.param("data", data if batched else data[0], et), b.const(ints(size)),
                            b.const(ints(kernel)), strides, dilations, pads_begin, pads_end)

    return make


COL2IM_TYPES = (*S.FLOATS, *S.INTEGERS)


@S.register_stimuli("Col2Im", 15)
def col2im_recipe() -> Iterable[S.Stimulus]:
    op = "Col2Im"
    for n in S.REMAINDERS:
        yield stim(op, 15, f"w{n}", col2im_make(F32, [2, 3], [1, 2], [1, 1], [0, 1], [1, 0], [5, n]), (2, 3),
                   depth=S.remainder_depth(n))
    yield stim(op, 15, "c65", col2im_make(F32, [2, 2], [1, 1], [1, 1], [0, 0], [0, 0], [4, 5]), (1, 65))
    yield stim(op, 15, "dilated-h17", col2im_make(F32, [3, 2], [2, 1], [2, 3], [1, 2], [2, 1], [17, 9]), (1, 3))
    yield stim(op, 15, "unbatched-w63", col2im_make(F32, [3, 3], [1, 1], [1, 1], [1, 1], [1, 1], [4, 63], False),
               (1, 2))
    yield stim(op, 15, "large", col2im_make(F32, [3, 3], [1, 1], [1, 1], [1, 1], [1, 1], [64, 64]), (1, 4),
               size="large")
    for et in COL2IM_TYPES:
        if et != F32:
            depth = Depth.STANDARD if et in (Type.f16, Type.i8, Type.i32) else Depth.EXHAUSTIVE
            yield stim(op, 15, f"{et.name}-w65", col2im_make(et, [2, 3], [1, 2], [1, 1], [0, 1], [1, 0], [5, 65]),
                       (2, 3), et, depth=depth)
    shapes = ((1, 1), (2, 7), (3, 13))
    yield stim(op, 15, "dynamic", col2im_make(F32, [3, 3], [1, 1], [1, 1], [1, 1], [1, 1], [5, 17]), shapes[0],
               shapes=shapes)


# -- Eye / OneHot / Range: outputs made from input values -----------------------------------------------------

#: Eye's output_type: "any numeric type" (f32 first).
EYE_TYPES = S.NUMERIC


def eye_case(label: str, out_t: Type, settings: Sequence[tuple[int, int, int]], batch: list[int] | None = None,
             idx_type: Type = Type.i64) -> Callable[[], OpCase]:
    """Eye with rows, columns and diagonal Parameters; several ``settings`` make one dynamic case (the
    output shape follows the values: one compiled model, three inferences)."""
    def build(rows: int, cols: int, diag: int) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("Eye", 9, label))
        dt = idx_type.to_dtype()
        rows_node, cols_node, diag_node = [b.param(name, np.array(v, dt), idx_type) for name, v in (
            ("num_rows", rows), ("num_columns", cols), ("diagonal_index", diag))]
        batch_node = None if batch is None else b.const(ints(batch, idx_type))
        return b.finish("Eye", 9, opset.eye(rows_node, cols_node, diag_node, out_t, batch_node), NOTE)

    if len(settings) > 1:
        return lambda: S.dynamic_case([build(*s) for s in settings], note=f"dynamic mode: (rows, columns, "
                                      f"diagonal) {list(settings)} on one compiled model")
    return lambda: build(*settings[0])


def eye_stim(label: str, out_t: Type, settings: Sequence[tuple[int, int, int]], batch: list[int] | None = None,
             idx_type: Type = Type.i64, size: str = "remainder", depth: Depth = Depth.STANDARD) -> S.Stimulus:
    return S.Stimulus("Eye", 9, label, size, "ordinary", out_t, eye_case(label, out_t, settings, batch, idx_type),
                      depth, dynamic=len(settings) > 1)


@S.register_stimuli("Eye", 9)
def eye_recipe() -> Iterable[S.Stimulus]:
    for n in S.REMAINDERS:
        yield eye_stim(f"n{n}", F32, [(n, n + 2, 1)], depth=S.remainder_depth(n))
    yield eye_stim("diag-neg-n65", F32, [(65, 17, -9)])
    yield eye_stim("diag-past-n17", F32, [(17, 9, 10)])
    yield eye_stim("diag-below-n17", F32, [(9, 17, -9)])
    yield eye_stim("batch-n33", F32, [(33, 31, -2)], [2, 3])
    yield eye_stim("large", F32, [(257, 256, -7)], size="large")
    yield eye_stim("i32-inputs-n63", F32, [(63, 65, 3)], idx_type=Type.i32)
    for et in EYE_TYPES[1:]:
        depth = Depth.STANDARD if et in (Type.f16, Type.i8, Type.i64) else Depth.EXHAUSTIVE
        yield eye_stim(f"{et.name}-n65", et, [(65, 63, 2)], depth=depth)
    yield eye_stim("dynamic", F32, [(7, 9, 0), (65, 63, 2), (129, 130, -3)])


def one_hot_make(version: int, depth: int, axis: int, out_t: Type, mode: str | None = None,
                 negative: bool = False, idx_type: Type = Type.i64) -> Make:
    """Indices in ``[0, depth)`` (with ``negative``: also in ``[-depth, 0)`` and ``depth + 3``, out of
    range); on 3, off -1 (unsigned: 5 and 0)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        low = -depth if negative else 0
        idx = b.rng.integers(low, depth, shape)
        if negative:
            idx.reshape(-1)[:2] = [depth + 3, -1]
        on, off = (5, 0) if not (out_t.is_real() or out_t.is_signed()) else (3, -1)
        on_node, off_node = b.const(S.cast(np.array(on), out_t), out_t), b.const(S.cast(np.array(off), out_t), out_t)
        return opset.one_hot(b.param("indices", ints(idx, idx_type), idx_type), b.const(np.int64(depth)), on_node,
                             off_node, axis, mode, version=version)

    return make


ONE_HOT_TYPES = (*S.NUMERIC, Type.boolean)


def one_hot_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op = "OneHot"
    modes: tuple[str | None, ...] = ("ignore_negative", "normalize") if version == 16 else (None,)
    first = modes[0]

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield stim(op, version, f"depth{n}", one_hot_make(version, n, -1, F32, first), (3, 17),
                       depth=S.remainder_depth(n))
        yield stim(op, version, "indices65-axis0", one_hot_make(version, 9, 0, F32, first), (5, 65))
        yield stim(op, version, "axis1-depth33", one_hot_make(version, 33, 1, F32, first), (3, 17))
        for mode in modes:
            name = f"out-of-range-{mode}" if mode else "out-of-range"
            yield stim(op, version, f"{name}-depth17", one_hot_make(version, 17, -1, F32, mode, negative=True),
                       (5, 33))
        yield stim(op, version, "large", one_hot_make(version, 1000, -1, F32, first), (2, 33), size="large")
        yield stim(op, version, "large-indices", one_hot_make(version, 3, -1, F32, first), (256, 257), size="large")
        yield stim(op, version, "i32-indices-depth63", one_hot_make(version, 63, -1, F32, first, idx_type=Type.i32),
                   (3, 9))
        for et in ONE_HOT_TYPES:
            if et != F32:
                depth = Depth.STANDARD if et in STANDARD_TYPES else Depth.EXHAUSTIVE
                yield stim(op, version, f"{et.name}-depth65", one_hot_make(version, 65, -1, et, first), (3, 9), et,
                           depth=depth)
        shapes = ((1, 7), (3, 65), (5, 129))
        yield stim(op, version, "dynamic", one_hot_make(version, 17, -1, F32, first), shapes[0], shapes=shapes)

    return recipe


RANGE_TYPES = (Type.f32, Type.f16, Type.bf16, Type.f64, Type.i8, Type.u8, Type.i16, Type.u16, Type.i32, Type.u32,
               Type.i64, Type.u64)


def range_settings(count: int, et: Type, negative: bool = False) -> tuple[float, float, float]:
    """(start, stop, step) of ``count`` elements: quarter steps from -3.5 for floats, steps of 3 (8-bit
    types: 1) from -40 for signed integers, from 2 for unsigned; ``negative``: the same walked
    downwards; the stop falls one past the last element (inside the last step where it is wider than 1)."""
    step = 1.0 if et.bitwidth == 8 else 3.0  # 8-bit types: every element inside the type
    if et.is_real():
        start, step, short = -3.5, 0.25, 0.125
    elif et.is_signed():
        start, short = -40.0, 1.0
    else:
        start, short = 2.0, 1.0
    if negative:
        start = start + count * step
        step, short = -step, -short
    return start, start + (count - 1) * step + short, step


def range_case(version: int, label: str, out_t: Type, in_t: Type, settings: Sequence[tuple[float, float, float]],
               ) -> Callable[[], OpCase]:
    """Range with start, stop and step Parameters of ``in_t``; several settings make one dynamic case
    (three output lengths from one compiled model)."""
    def build(start: float, stop: float, step: float) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("Range", version, label))
        first, last, stride = [b.param(name, S.cast(np.array(v), in_t), in_t)
                               for name, v in (("start", start), ("stop", stop), ("step", step))]
        node = opset.range_v1(first, last, stride) if version == 1 else opset.range(first, last, stride, out_t)
        return b.finish("Range", version, node, NOTE)

    if len(settings) > 1:
        return lambda: S.dynamic_case([build(*s) for s in settings], note=f"dynamic mode: (start, stop, step) "
                                      f"{list(settings)} on one compiled model")
    return lambda: build(*settings[0])


def range_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op = "Range"

    def rs(label: str, out_t: Type, settings: Sequence[tuple[float, float, float]], in_t: Type | None = None,
           size: str = "remainder", depth: Depth = Depth.STANDARD) -> S.Stimulus:
        return S.Stimulus(op, version, label, size, "ordinary", out_t,
                          range_case(version, label, out_t, in_t or out_t, settings), depth,
                          dynamic=len(settings) > 1)

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield rs(f"n{n}", F32, [range_settings(n, F32)], depth=S.remainder_depth(n))
        yield rs("down-n65", F32, [range_settings(65, F32, negative=True)])
        yield rs("i32-down-n129", Type.i32, [range_settings(129, Type.i32, negative=True)])
        yield rs("large", F32, [(0.0, 65537.0, 1.0)], size="large")
        yield rs("i64-large", Type.i64, [(-70000.0, 70001.0, 2.0)], size="large")
        for et in RANGE_TYPES[1:]:
            depth = Depth.STANDARD if et in (Type.f16, Type.i8, Type.i64, Type.u8) else Depth.EXHAUSTIVE
            yield rs(f"{et.name}-n65", et, [range_settings(65, et)], depth=depth)
        if version == 4:
            yield rs("i32-in-f32-out-n63", F32, [range_settings(63, Type.i32)], Type.i32)
            yield rs("f32-in-i64-out-n63", Type.i64, [range_settings(63, Type.i32)], F32)
        yield rs("dynamic", F32, [range_settings(n, F32) for n in (7, 65, 129)])

    return recipe


for _v in (1, 7):
    S.register_stimuli("Gather", _v)(gather_recipe(_v))
for _v in (5, 8):
    S.register_stimuli("GatherND", _v)(gather_nd_recipe(_v))
for _v in (1, 15):
    S.register_stimuli("Squeeze", _v)(squeeze_recipe(_v))
for _v in (1, 3):
    S.register_stimuli("ShapeOf", _v)(shape_of_recipe(_v))
for _v in (1, 16):
    S.register_stimuli("OneHot", _v)(one_hot_recipe(_v))
for _v in (1, 4):
    S.register_stimuli("Range", _v)(range_recipe(_v))
S.register_stimuli("BitwiseLeftShift", 15)(shift_recipe("BitwiseLeftShift", left=True))
S.register_stimuli("BitwiseRightShift", 15)(shift_recipe("BitwiseRightShift", left=False))
