"""Stimulus cases of the sparse, sequence, signal and miscellaneous op versions that had none (issue #20
gap): NonZero-3, Unique-10, SearchSorted-15, Bucketize-3, SegmentMax-16, SparseFillEmptyRows-16, the
embedding bags (EmbeddingBagOffsets-15, EmbeddingBagOffsetsSum-3, EmbeddingBagPacked-15,
EmbeddingBagPackedSum-3, EmbeddingSegmentsSum-3) and the CTC ops (CTCGreedyDecoder-1,
CTCGreedyDecoderSeqLen-6, CTCLoss-4) here; GRN, MVN-2, Interpolate-1, GridSample, Inverse, STFT,
ISTFT, FakeConvert, GroupedMatMul, Multinomial, RandomUniform, DeformableConvolution-1/8 and
BinaryConvolution-1 in :mod:`ovconform.opcases._stimulus_misc`.

The axes a device tiles or vectorises: the innermost (compared, searched, gathered or copied)
axis at the remainder lengths, the sorted sequence / bucket list a binary search walks, the
embedding dimension and the bag length (4,096-term bags: the long-reduction class), the class axis
of the CTC decoders (an argmax) and their time axis; large cases hold at least 64K elements in an
input. Every element type of the specs runs (the rarer ones at exhaustive depth), and each op has a
dynamic-mode case (its output shape, for NonZero, Unique and SparseFillEmptyRows, follows the
values as well).

What the specs leave undefined is avoided:

* Unique: no NaN and no -0.0 (the spec does not say how they compare); ±inf are ordinary values.
* SearchSorted, Bucketize: no NaN (its place in a sorted order is not defined); sequences sorted
  ascending (the specs require it), with repeated entries (left/right mode defines those).
* SegmentMax: no -0.0 next to 0.0 in one segment (max of equal zeros of both signs is unspecified):
  float values are never zero; empty segments (ids skipped) take the ``fill_mode`` value.
* SparseFillEmptyRows: distinct positions (the spec's sort leaves the order of equal indices open).
* Embedding bags: indices in range, offsets non-decreasing and below the number of indices (an
  empty last bag is rejected by OpenVINO's reference), empty bags only with a default index or
  zeros (EmbeddingBagOffsets-15 may also use -1); ``per_sample_weights`` only with ``sum``.
* CTC decoders: the class scores of each time step are all different (the argmax of a tie is not
  defined); CTCLoss labels never hold the blank and are at most half the logit length (so a path
  exists whatever the repeats: the loss is finite).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._stimulus_numeric import const_rng, stim
from ovconform.opcases.depth import Depth

F32 = Type.f32
STD = Depth.STANDARD
EXH = Depth.EXHAUSTIVE
#: Element types run at standard depth; the others of an op's spec run at exhaustive depth.
STANDARD_TYPES = (Type.f16, Type.bf16, Type.i8, Type.i32)
#: Three shapes of a dynamic-mode case along the innermost axis.
DYN_INNER = ((3, 7), (3, 65), (3, 129))


def tdepth(et: Type) -> Depth:
    return STD if et in STANDARD_TYPES else EXH


def whole(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type, low: int, high: int) -> np.ndarray:
    """Whole numbers in ``[low, high]`` (clipped to 0 for unsigned types) stored as ``et``."""
    lo = max(low, 0) if not (et.is_real() or et.is_signed()) and et != Type.boolean else low
    return S.cast(b.rng.integers(lo, high, shape, endpoint=True), et)


# -- NonZero-3 ----------------------------------------------------------------------------------------------------

NONZERO_TYPES = (*S.NUMERIC, Type.boolean)


def nonzero_make(et: Type, density: float = 0.5, specials: bool = False, out: Type = Type.i64) -> SR.MakeAt:
    """Non-zero values (both signs) at about ``density`` of the positions; with ``specials`` NaN and
    ±inf (non-zero), -0.0 (zero) and subnormals (non-zero) among them."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        signed = et.is_real() or et.is_signed()
        values = b.rng.integers(1, 100, shape) * (np.where(b.rng.random(shape) < 0.5, -1, 1) if signed else 1)
        data = np.where(b.rng.random(shape) < density, values, 0).astype(np.float64)
        if specials:
            pool = S.special_pool(et, ("nan", "inf", "-inf", "-0", "sub"))
            where = b.rng.permutation(data.size)[:data.size // 4]
            flat = data.reshape(-1)
            flat[where] = np.resize(np.array(pool), where.size)
            data = flat.reshape(shape)
        return opset.non_zero(b.param("data", S.cast(data, et), et), out)

    return make


@S.register_stimuli("NonZero", 3)
def non_zero_recipe() -> Iterable[S.Stimulus]:
    op = "NonZero"
    for n in S.REMAINDERS:
        yield stim(op, 3, f"rem{n}", nonzero_make(F32), (3, n), depth=S.remainder_depth(n))
    yield stim(op, 3, "large", nonzero_make(F32, 0.3), (2, 32771), size="large")
    yield stim(op, 3, "large-dense-i32out", nonzero_make(Type.i8, 0.97, out=Type.i32), (4, 129, 129),
               size="large", et=Type.i8, depth=EXH)
    yield stim(op, 3, "rank3-rem17", nonzero_make(F32), (5, 9, 17))
    yield stim(op, 3, "special-f32", nonzero_make(F32, specials=True), (4, 33), values="special")
    yield stim(op, 3, "special-f16", nonzero_make(Type.f16, specials=True), (4, 33), values="special",
               et=Type.f16, depth=EXH)
    for et in NONZERO_TYPES:
        if et != F32:
            yield stim(op, 3, f"{et.name}-rem65", nonzero_make(et), (3, 65), et=et,
                       depth=STD if et in (*STANDARD_TYPES, Type.boolean) else EXH)
    yield stim(op, 3, "dynamic", nonzero_make(F32), (3, 7), shapes=DYN_INNER)


# -- Unique-10 ----------------------------------------------------------------------------------------------------

def unique_make(et: Type, spread: int, axis: int | None = None, sort: bool = True, index: Type = Type.i64,
                boundary: bool = False, infinities: bool = False) -> SR.MakeAt:
    """Whole numbers in ``[-spread, spread]`` (repeats when ``spread`` is below the element count);
    with ``axis``, slices along it drawn (with repeats) from the first few."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        data = whole(b, shape, et, -spread, spread)
        if axis is not None:
            picks = b.rng.integers(0, max(1, shape[axis] // 3), shape[axis])
            data = np.take(data, picks, axis=axis)
        if boundary:
            data = S.with_boundaries(b.rng, data, et)
        if infinities:
            flat = SR.as_f64(data, et).reshape(-1)
            where = b.rng.permutation(flat.size)[:flat.size // 8]
            flat[where] = np.resize([np.inf, -np.inf], where.size)
            data = S.cast(flat.reshape(shape), et)
        axis_node = None if axis is None else b.const(np.array(axis, np.int64))
        return opset.unique(b.param("data", data, et), axis_node, sort, index, index)

    return make


@S.register_stimuli("Unique", 10)
def unique_recipe() -> Iterable[S.Stimulus]:
    op = "Unique"
    for n in S.REMAINDERS:
        yield stim(op, 10, f"rem{n}", unique_make(F32, max(2, n // 3)), (3, n), depth=S.remainder_depth(n))
    yield stim(op, 10, "unsorted-rem63", unique_make(F32, 20, sort=False), (3, 63))
    yield stim(op, 10, "axis0-rows129", unique_make(F32, 3, axis=0), (129, 7))
    yield stim(op, 10, "axis-1-cols65-i32idx", unique_make(Type.i32, 3, axis=-1, sort=False, index=Type.i32),
               (5, 65), et=Type.i32)
    yield stim(op, 10, "large", unique_make(Type.i32, 500), (2, 32771), size="large", et=Type.i32)
    yield stim(op, 10, "large-axis0", unique_make(F32, 2, axis=0), (1025, 65), size="large", depth=EXH)
    yield stim(op, 10, "boundary-i32", unique_make(Type.i32, 5, boundary=True), (4, 33), values="int-boundary",
               et=Type.i32)
    yield stim(op, 10, "boundary-i64", unique_make(Type.i64, 5, boundary=True), (4, 33), values="int-boundary",
               et=Type.i64, depth=EXH)
    yield stim(op, 10, "special-f32", unique_make(F32, 10, infinities=True), (4, 33), values="special")
    for et in S.NUMERIC:
        if et != F32:
            yield stim(op, 10, f"{et.name}-rem65", unique_make(et, 20), (3, 65), et=et, depth=tdepth(et))
    yield stim(op, 10, "dynamic", unique_make(F32, 20), (3, 7), shapes=DYN_INNER)


# -- SearchSorted-15 and Bucketize-3 ---------------------------------------------------------------------------

SORTED_TYPES = S.NUMERIC


def sorted_values(rng: np.random.Generator, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """Sorted along the last axis: multiples of 1/2 (whole numbers for integer types) with repeats."""
    n = shape[-1]
    if et.is_real():
        raw = np.round(rng.uniform(-n / 4, n / 4, shape) * 2) / 2
    else:
        low = 0 if not et.is_signed() else -n // 2
        raw = rng.integers(low, low + n, shape, endpoint=True).astype(np.float64)
    raw = np.clip(raw, *_range(et))
    return np.sort(raw, axis=-1)


def _range(et: Type) -> tuple[float, float]:
    if et.is_real():
        return (-1e4, 1e4)
    info = np.iinfo(et.to_dtype())
    return (float(info.min), float(info.max))


def probes(rng: np.random.Generator, seq: np.ndarray, shape: tuple[int, ...], et: Type,
           infinities: bool = False) -> np.ndarray:
    """Values to place: a third equal to sequence entries, the rest between and beyond them."""
    pool = seq.reshape(-1)
    lo, hi = float(pool.min()) - 3, float(pool.max()) + 3
    if et.is_real():
        between = np.round(rng.uniform(lo, hi, shape) * 4) / 4
    else:
        between = rng.integers(int(lo), int(hi), shape, endpoint=True).astype(np.float64)
    out = np.where(rng.random(shape) < 1 / 3, pool[rng.integers(0, pool.size, shape)], between)
    out = np.clip(out, *_range(et))
    if infinities:
        flat = out.reshape(-1)
        where = rng.permutation(flat.size)[:max(2, flat.size // 8)]
        flat[where] = np.resize([np.inf, -np.inf], where.size)
        out = flat.reshape(shape)
    return out


def search_make(et: Type, values_inner: int, right: bool, *, flat_seq: bool = False, batch: tuple[int, ...] = (),
                out: Type = Type.i64, infinities: bool = False, seq_const: bool = False) -> SR.MakeAt:
    """The case's shape is the sorted sequence's ``(R, n)`` (or ``(n,)`` with ``flat_seq``); values
    ``(R, values_inner)`` (or ``(*batch, values_inner)`` against a 1-D sequence)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        seq = sorted_values(b.rng, shape, et)
        if infinities:
            seq[..., 0] = -np.inf
        vshape = (*batch, values_inner) if flat_seq else (*shape[:-1], values_inner)
        vals = probes(b.rng, seq[np.isfinite(seq)] if infinities else seq, vshape, et, infinities)
        sequence = b.input("sorted_sequence", S.cast(seq, et), seq_const, et)
        return opset.search_sorted(sequence, b.param("values", S.cast(vals, et), et), right, out)

    return make


@S.register_stimuli("SearchSorted", 15)
def search_sorted_recipe() -> Iterable[S.Stimulus]:
    op = "SearchSorted"
    for i, n in enumerate(S.REMAINDERS):
        yield stim(op, 15, f"seq{n}", search_make(F32, 33, i % 2 == 1), (3, n), depth=S.remainder_depth(n))
    yield stim(op, 15, "flat-seq129-values-nd", search_make(F32, 65, True, flat_seq=True, batch=(7,)), (129,))
    yield stim(op, 15, "large", search_make(F32, 32771, False, flat_seq=True, batch=(2,), out=Type.i32), (4099,),
               size="large")
    yield stim(op, 15, "large-rows", search_make(Type.i32, 129, True, seq_const=True), (512, 129), size="large",
               et=Type.i32, depth=EXH)
    yield stim(op, 15, "special-f32", search_make(F32, 33, False, infinities=True), (4, 65), values="special")
    yield stim(op, 15, "special-f32-right", search_make(F32, 33, True, infinities=True), (4, 65), values="special",
               depth=EXH)
    for et in SORTED_TYPES:
        if et != F32:
            yield stim(op, 15, f"{et.name}-seq65", search_make(et, 17, True), (3, 65), et=et, depth=tdepth(et))
    yield stim(op, 15, "dynamic", search_make(F32, 17, False), (3, 7), shapes=DYN_INNER)


def bucketize_make(et: Type, bt: Type, inner: int, right: bool, out: Type = Type.i64,
                   infinities: bool = False) -> SR.MakeAt:
    """The case's shape is the bucket boundaries' ``(n,)``; data ``(3, inner)`` (a Constant list of
    boundaries, the same at every shape of a dynamic case, whose shape is the data's instead)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n = shape[0]
        both_unsigned = not (et.is_real() or et.is_signed()) or not (bt.is_real() or bt.is_signed())
        edges = sorted_values(b.rng, (n,), bt)
        if both_unsigned:
            edges = np.sort(b.rng.integers(0, n, n, endpoint=True)).astype(np.float64)
        vals = probes(b.rng, edges, (3, inner), et, infinities)
        if both_unsigned:
            vals = np.clip(vals, 0, None)
        buckets = b.param("buckets", S.cast(edges, bt), bt)
        return opset.bucketize(b.param("data", S.cast(vals, et), et), buckets, out, right)

    return make


def bucketize_dyn_make(right: bool) -> SR.MakeAt:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        edges = sorted_values(const_rng("Bucketize", 3, "dynamic"), (33,), F32)
        vals = probes(b.rng, edges, shape, F32)
        return opset.bucketize(b.param("data", S.cast(vals, F32), F32), b.const(S.cast(edges, F32), F32),
                               "i64", right)

    return make


@S.register_stimuli("Bucketize", 3)
def bucketize_recipe() -> Iterable[S.Stimulus]:
    op = "Bucketize"
    for i, n in enumerate(S.REMAINDERS):
        yield stim(op, 3, f"buckets{n}", bucketize_make(F32, F32, 65, i % 2 == 0), (n,), depth=S.remainder_depth(n))
    yield stim(op, 3, "large", bucketize_make(F32, F32, 21847, True, Type.i32), (1025,), size="large")
    yield stim(op, 3, "special-f32", bucketize_make(F32, F32, 33, False, infinities=True), (65,), values="special")
    yield stim(op, 3, "f32-data-i32-buckets", bucketize_make(F32, Type.i32, 65, True), (33,))
    for et in S.NUMERIC:
        if et != F32:
            yield stim(op, 3, f"{et.name}-buckets65", bucketize_make(et, et, 33, False), (65,), et=et,
                       depth=tdepth(et))
    yield stim(op, 3, "dynamic", bucketize_dyn_make(True), (3, 7), shapes=DYN_INNER)


# -- SegmentMax-16 -----------------------------------------------------------------------------------------------

def segment_make(et: Type, segments: int, fill: str = "zero", *, with_num: bool = True, boundary: bool = False,
                 ids_param: bool = True) -> SR.MakeAt:
    """The case's shape is the data's ``(S, D)``; ``S`` rows in ``segments`` sorted segments of random
    lengths, every third id skipped (an empty segment, filled per ``fill_mode``); float values never 0."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rows = shape[0]
        used = [k for k in range(segments) if k % 3 != 1] or [0]
        ids = np.sort(np.array(used)[b.rng.integers(0, len(used), rows)])
        if et.is_real():
            data = SR.nonzero(b, shape, et, 0.25, 50)
        else:
            data = whole(b, shape, et, -100, 100)
        if boundary:
            data = S.with_boundaries(b.rng, data, et)
        num = b.const(np.array(segments + 1, np.int64)) if with_num else None
        seg = b.input("segment_ids", ids.astype(np.int64), not ids_param)
        return opset.segment_max(b.param("data", data, et), seg, num, fill)

    return make


@S.register_stimuli("SegmentMax", 16)
def segment_max_recipe() -> Iterable[S.Stimulus]:
    op = "SegmentMax"
    for n in S.REMAINDERS:
        yield stim(op, 16, f"inner{n}", segment_make(F32, 7), (33, n), depth=S.remainder_depth(n))
    yield stim(op, 16, "rows129-lowest", segment_make(F32, 9, "lowest"), (129, 9))
    yield stim(op, 16, "rows65-no-num", segment_make(F32, 4, with_num=False), (65, 17))
    yield stim(op, 16, "large-long-segments", segment_make(F32, 3), (4099, 17), size="large",
               values="long-reduction")
    yield stim(op, 16, "large-many-segments", segment_make(Type.i32, 1000, "lowest", ids_param=False), (2048, 33),
               size="large", et=Type.i32, depth=EXH)
    yield stim(op, 16, "boundary-i32", segment_make(Type.i32, 5, "lowest", boundary=True), (33, 17),
               values="int-boundary", et=Type.i32)
    yield stim(op, 16, "boundary-i64", segment_make(Type.i64, 5, "lowest", boundary=True), (33, 17),
               values="int-boundary", et=Type.i64, depth=EXH)
    for et in S.NUMERIC:
        if et != F32:
            yield stim(op, 16, f"{et.name}-inner65", segment_make(et, 5, "lowest"), (17, 65), et=et, depth=tdepth(et))
    yield stim(op, 16, "dynamic", segment_make(F32, 5), (7, 17), shapes=((7, 17), (33, 17), (129, 17)))


# -- SparseFillEmptyRows-16 --------------------------------------------------------------------------------------

def sparse_fill_make(et: Type, rows: int, cols: int, it: Type = Type.i64) -> SR.MakeAt:
    """The case's shape is the values' ``(count,)``: ``count`` distinct positions of a ``rows × cols``
    dense shape (a Constant), in random order."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        count = shape[0]
        flat = b.rng.choice(rows * cols, count, replace=False)
        indices = np.stack([flat // cols, flat % cols], axis=1).astype(it.to_dtype())
        values = whole(b, (count,), et, -100, 100)
        default = whole(b, (), et, -9, 9)
        dense = b.const(np.array([rows, cols], it.to_dtype()))
        return opset.sparse_fill_empty_rows(b.param("values", values, et), dense, b.param("indices", indices, it),
                                            b.param("default_value", default, et))

    return make


SPARSE_TYPES = (*S.NUMERIC,)


@S.register_stimuli("SparseFillEmptyRows", 16)
def sparse_fill_recipe() -> Iterable[S.Stimulus]:
    op = "SparseFillEmptyRows"
    for n in S.REMAINDERS:
        yield stim(op, 16, f"count{n}", sparse_fill_make(F32, 2 * n + 1, 9), (n,), depth=S.remainder_depth(n))
    yield stim(op, 16, "large", sparse_fill_make(F32, 49999, 7, Type.i32), (32771,), size="large")
    yield stim(op, 16, "no-empty-rows", sparse_fill_make(F32, 65, 1), (65,))
    for et in SPARSE_TYPES:
        if et != F32:
            yield stim(op, 16, f"{et.name}-count65", sparse_fill_make(et, 100, 5), (65,), et=et, depth=tdepth(et))
    yield stim(op, 16, "dynamic", sparse_fill_make(F32, 300, 3), (7,), shapes=((7,), (65,), (129,)))


# -- embedding bags ---------------------------------------------------------------------------------------------

#: The embedding ops' table types ("any numeric type" in the specs).
EMB_TYPES = (Type.f32, Type.f16, Type.bf16, Type.i32, Type.f64, Type.i64, Type.i8)


def table_values(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    if et.is_real():
        return S.cast(b.rng.uniform(-1, 1, shape), et)
    bound = 1 if et.bitwidth == 8 else 20
    return whole(b, shape, et, -bound, bound)


def bag_lengths(rng: np.random.Generator, bags: int, mean: int, empty: bool) -> list[int]:
    """Bag lengths about ``mean`` (some empty when ``empty``), the last never empty."""
    lengths = [int(x) for x in rng.integers(max(1, mean // 2), mean + mean // 2 + 1, bags)]
    if empty:
        for k in range(0, bags - 1, 4):
            lengths[k] = 0
    lengths[-1] = max(lengths[-1], 1)
    return lengths


def offsets_make(op: str, version: int, label: str, et: Type, lengths: list[int], *, default: int | None = None,
                 weighted: bool = False, reduction: str = "sum", it: Type = Type.i64) -> SR.MakeAt:
    """The case's shape is the table's ``(rows, D)``; indices and offsets are Constants (the same at
    every shape of a dynamic case), the table (and the weights) Parameters."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = const_rng(op, version, label)
        rows = shape[0]
        count = sum(lengths)
        indices = rng.integers(0, rows, count).astype(it.to_dtype())
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(it.to_dtype())
        table = b.param("emb_table", table_values(b, shape, et), et)
        dflt = None if default is None else b.const(np.array(default, it.to_dtype()))
        weights = b.param("per_sample_weights", table_values(b, (count,), et), et) if weighted else None
        if version == 15:
            return opset.embedding_bag_offsets(table, b.const(indices), b.const(offsets), dflt, weights, reduction)
        return opset.embedding_bag_offsets_sum(table, b.const(indices), b.const(offsets), dflt, weights)

    return make


def packed_make(op: str, version: int, label: str, et: Type, bags: int, length: int, *, weighted: bool = False,
                reduction: str = "sum", it: Type = Type.i64) -> SR.MakeAt:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = const_rng(op, version, label)
        indices = rng.integers(0, shape[0], (bags, length)).astype(it.to_dtype())
        table = b.param("emb_table", table_values(b, shape, et), et)
        weights = b.param("per_sample_weights", table_values(b, (bags, length), et), et) if weighted else None
        if version == 15:
            return opset.embedding_bag_packed(table, b.const(indices), weights, reduction)
        return opset.embedding_bag_packed_sum(table, b.const(indices), weights)

    return make


def segments_make(label: str, et: Type, lengths: list[int], *, default: int | None = None, weighted: bool = False,
                  it: Type = Type.i64) -> SR.MakeAt:
    """Segment ``k`` gathers ``lengths[k]`` indices (0: an empty segment); ids sorted."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = const_rng("EmbeddingSegmentsSum", 3, label)
        count = sum(lengths)
        indices = rng.integers(0, shape[0], count).astype(it.to_dtype())
        ids = np.repeat(np.arange(len(lengths)), lengths).astype(it.to_dtype())
        table = b.param("emb_table", table_values(b, shape, et), et)
        dflt = None if default is None else b.const(np.array(default, it.to_dtype()))
        weights = b.param("per_sample_weights", table_values(b, (count,), et), et) if weighted else None
        num = b.const(np.array(len(lengths), it.to_dtype()))
        return opset.embedding_segments_sum(table, b.const(indices), b.const(ids), num, dflt, weights)

    return make


#: One bag of LONG_REDUCTION indices between two short ones.
LONG_BAGS = [5, S.LONG_REDUCTION, 3]
LONG_TABLE = (1000, 17)
LARGE_TABLE = (512, 129)  # 66,048 elements


def offsets_recipe(op: str, version: int) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        def mk(label: str, et: Type = F32, lengths: list[int] | None = None, **kw: Any) -> SR.MakeAt:
            rng = np.random.default_rng(S.seed_of(op, version, label + "/bags"))
            return offsets_make(op, version, label, et, lengths or bag_lengths(rng, 9, 6, True), **kw)

        for n in S.REMAINDERS:
            yield stim(op, version, f"dim{n}", mk(f"dim{n}", default=0), (50, n), depth=S.remainder_depth(n))
        yield stim(op, version, "weighted-dim65", mk("weighted-dim65", default=3, weighted=True), (50, 65))
        yield stim(op, version, "zero-empty-dim17", mk("zero-empty-dim17"), (50, 17))
        yield stim(op, version, "long-bag", mk("long-bag", lengths=LONG_BAGS), LONG_TABLE, values="long-reduction")
        yield stim(op, version, "long-bag-weighted", mk("long-bag-weighted", lengths=LONG_BAGS, default=0,
                                                        weighted=True), LONG_TABLE, values="long-reduction")
        yield stim(op, version, "large", mk("large", lengths=[33] * 64, it=Type.i32), LARGE_TABLE, size="large")
        if version == 15:
            yield stim(op, version, "mean-dim65", mk("mean-dim65", default=-1, reduction="mean"), (50, 65))
            yield stim(op, version, "mean-long-bag", mk("mean-long-bag", lengths=LONG_BAGS, reduction="mean"),
                       LONG_TABLE, values="long-reduction")
        for et in EMB_TYPES[1:]:
            label = f"{et.name}-dim65"
            yield stim(op, version, label, mk(label, et, default=1), (50, 65), et=et, depth=tdepth(et))
        yield stim(op, version, "dynamic", mk("dynamic", default=0), (50, 7), shapes=((50, 7), (50, 65), (50, 129)))

    return recipe


def packed_recipe(op: str, version: int) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            label = f"dim{n}"
            yield stim(op, version, label, packed_make(op, version, label, F32, 5, 7), (50, n),
                       depth=S.remainder_depth(n))
        for n in (17, 65):
            label = f"bag{n}-weighted"
            yield stim(op, version, label, packed_make(op, version, label, F32, 3, n, weighted=True), (50, 33))
        yield stim(op, version, "long-bag", packed_make(op, version, "long-bag", F32, 2, S.LONG_REDUCTION),
                   LONG_TABLE, values="long-reduction")
        yield stim(op, version, "large", packed_make(op, version, "large", F32, 64, 33, it=Type.i32), LARGE_TABLE,
                   size="large")
        if version == 15:
            yield stim(op, version, "mean-long-bag",
                       packed_make(op, version, "mean-long-bag", F32, 2, S.LONG_REDUCTION, reduction="mean"),
                       LONG_TABLE, values="long-reduction")
        for et in EMB_TYPES[1:]:
            label = f"{et.name}-dim65"
            yield stim(op, version, label, packed_make(op, version, label, et, 4, 9), (50, 65), et=et,
                       depth=tdepth(et))
        yield stim(op, version, "dynamic", packed_make(op, version, "dynamic", F32, 4, 9), (50, 7),
                   shapes=((50, 7), (50, 65), (50, 129)))

    return recipe


@S.register_stimuli("EmbeddingSegmentsSum", 3)
def segments_recipe() -> Iterable[S.Stimulus]:
    op = "EmbeddingSegmentsSum"

    def lengths(label: str) -> list[int]:
        return bag_lengths(np.random.default_rng(S.seed_of(op, 3, label + "/bags")), 9, 6, True)

    for n in S.REMAINDERS:
        label = f"dim{n}"
        yield stim(op, 3, label, segments_make(label, F32, lengths(label), default=0), (50, n),
                   depth=S.remainder_depth(n))
    yield stim(op, 3, "weighted-dim65", segments_make("weighted-dim65", F32, lengths("w"), default=2, weighted=True),
               (50, 65))
    yield stim(op, 3, "long-segment", segments_make("long-segment", F32, LONG_BAGS), LONG_TABLE,
               values="long-reduction")
    yield stim(op, 3, "long-segment-weighted",
               segments_make("long-segment-weighted", F32, LONG_BAGS, default=0, weighted=True), LONG_TABLE,
               values="long-reduction")
    yield stim(op, 3, "large", segments_make("large", F32, [33] * 64, it=Type.i32), LARGE_TABLE, size="large")
    for et in EMB_TYPES[1:]:
        label = f"{et.name}-dim65"
        yield stim(op, 3, label, segments_make(label, et, lengths(label), default=1), (50, 65), et=et,
                   depth=tdepth(et))
    yield stim(op, 3, "dynamic", segments_make("dynamic", F32, lengths("dynamic")), (50, 7),
               shapes=((50, 7), (50, 65), (50, 129)))


S.register_stimuli("EmbeddingBagOffsetsSum", 3)(offsets_recipe("EmbeddingBagOffsetsSum", 3))
S.register_stimuli("EmbeddingBagOffsets", 15)(offsets_recipe("EmbeddingBagOffsets", 15))
S.register_stimuli("EmbeddingBagPackedSum", 3)(packed_recipe("EmbeddingBagPackedSum", 3))
S.register_stimuli("EmbeddingBagPacked", 15)(packed_recipe("EmbeddingBagPacked", 15))


# -- CTC ----------------------------------------------------------------------------------------------------------

CTC_TYPES = (Type.f32, Type.f16, Type.bf16, Type.f64)


def class_scores(rng: np.random.Generator, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """All-different scores along the last (class) axis: a shuffled ramp in steps of 1/32 (exact in
    every float type for up to 256 classes), so no argmax is a tie."""
    c = shape[-1]
    rows = int(np.prod(shape[:-1]))
    ramp = np.argsort(rng.random((rows, c)), axis=1).astype(np.float64)
    step = 1 / 32 if c <= 256 else 1 / 4
    return S.cast(((ramp - c // 2) * step).reshape(shape), et)


def greedy_make(et: Type, merge: bool) -> SR.MakeAt:
    """The case's shape is the data's ``(T, N, C)``; sequence lengths in [1, T] (one of them T)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        t, n, _ = shape
        lengths = b.rng.integers(1, t + 1, n)
        lengths[0] = t
        mask = (np.arange(t)[:, None] < lengths[None, :]).astype(np.float64)
        data = b.param("data", class_scores(b.rng, shape, et), et)
        return opset.ctc_greedy_decoder(data, b.param("seq_indicators", S.cast(mask, et), et), merge)

    return make


def greedy_seq_len_make(et: Type, merge: bool, blank: int | None = None, it: Type = Type.i32) -> SR.MakeAt:
    """The case's shape is the data's ``(N, T, C)``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, t, _ = shape
        lengths = b.rng.integers(1, t + 1, n)
        lengths[0] = t
        data = b.param("data", class_scores(b.rng, shape, et), et)
        seq = b.param("sequence_length", lengths.astype(it.to_dtype()), it)
        blank_node = None if blank is None else b.const(np.array([blank], it.to_dtype()))
        return opset.ctc_greedy_decoder_seq_len(data, seq, blank_node, merge, it.name, it.name)

    return make


@S.register_stimuli("CTCGreedyDecoder", 1)
def ctc_greedy_recipe() -> Iterable[S.Stimulus]:
    op = "CTCGreedyDecoder"
    for i, c in enumerate(S.REMAINDERS):
        yield stim(op, 1, f"classes{c}", greedy_make(F32, i % 2 == 0), (33, 3, c), depth=S.remainder_depth(c))
    yield stim(op, 1, "time129", greedy_make(F32, True), (129, 2, 17))
    yield stim(op, 1, "large", greedy_make(F32, True), (129, 4, 129), size="large")
    for et in CTC_TYPES[1:]:
        yield stim(op, 1, f"{et.name}-classes65", greedy_make(et, False), (17, 3, 65), et=et, depth=tdepth(et))
    yield stim(op, 1, "dynamic", greedy_make(F32, True), (7, 2, 17), shapes=((7, 2, 17), (33, 2, 17), (129, 2, 17)))


@S.register_stimuli("CTCGreedyDecoderSeqLen", 6)
def ctc_greedy_seq_len_recipe() -> Iterable[S.Stimulus]:
    op = "CTCGreedyDecoderSeqLen"
    for i, c in enumerate(S.REMAINDERS):
        yield stim(op, 6, f"classes{c}", greedy_seq_len_make(F32, i % 2 == 0), (3, 33, c), depth=S.remainder_depth(c))
    yield stim(op, 6, "blank0-time129", greedy_seq_len_make(F32, True, 0, Type.i64), (2, 129, 17))
    yield stim(op, 6, "large", greedy_seq_len_make(F32, True, 64), (4, 129, 129), size="large")
    for et in CTC_TYPES[1:]:
        yield stim(op, 6, f"{et.name}-classes65", greedy_seq_len_make(et, False), (3, 17, 65), et=et,
                   depth=tdepth(et))
    yield stim(op, 6, "dynamic", greedy_seq_len_make(F32, True, 3), (2, 7, 17),
               shapes=((2, 7, 17), (2, 33, 17), (2, 129, 17)))


def ctc_loss_make(et: Type, flags: tuple[bool, bool, bool] = (False, True, False), blank: int | None = None,
                  it: Type = Type.i32) -> SR.MakeAt:
    """The case's shape is the logits' ``(N, T, C)``; logit lengths in [T/2, T] (one of them T), label
    lengths in [1, logit length / 2], labels never the blank."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, t, c = shape
        blank_id = c - 1 if blank is None else blank
        logit_length = b.rng.integers(max(1, t // 2), t + 1, n)
        logit_length[0] = t
        label_length = np.array([b.rng.integers(1, max(1, length // 2) + 1) for length in logit_length])
        classes = np.array([k for k in range(c) if k != blank_id])
        labels = classes[b.rng.integers(0, classes.size, (n, t))]
        logits = b.param("logits", S.cast(b.rng.uniform(-3, 3, shape), et), et)
        dt = it.to_dtype()
        blank_node = None if blank is None else b.const(np.array(blank, dt))
        return opset.ctc_loss(logits, b.param("logit_length", logit_length.astype(dt), it),
                              b.param("labels", labels.astype(dt), it),
                              b.param("label_length", label_length.astype(dt), it), blank_node, *flags)

    return make


@S.register_stimuli("CTCLoss", 4)
def ctc_loss_recipe() -> Iterable[S.Stimulus]:
    op = "CTCLoss"
    for c in S.REMAINDERS:
        yield stim(op, 4, f"classes{c}", ctc_loss_make(F32), (2, 33, c), depth=S.remainder_depth(c))
    yield stim(op, 4, "time129-collapse", ctc_loss_make(F32, (True, True, False), 0), (2, 129, 17))
    yield stim(op, 4, "time65-unique", ctc_loss_make(F32, (False, False, True), 3, Type.i64), (2, 65, 9))
    yield stim(op, 4, "large", ctc_loss_make(F32), (4, 129, 129), size="large")
    for et in CTC_TYPES[1:]:
        yield stim(op, 4, f"{et.name}-classes65", ctc_loss_make(et), (2, 17, 65), et=et, depth=tdepth(et))
    yield stim(op, 4, "dynamic", ctc_loss_make(F32), (2, 7, 17), shapes=((2, 7, 17), (2, 33, 17), (2, 129, 17)))


# The miscellaneous op versions of this batch live next door (a module per role); importing it
# registers them, as stimulus.RECIPE_MODULES imports this module.
from ovconform.opcases import _stimulus_misc  # noqa: E402,F401
