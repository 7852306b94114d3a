"""Case strategies of the "misc" family: ConvertPromoteTypes-14, GatherTree-1, the embedding-bag ops
(EmbeddingSegmentsSum-3, EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingBagOffsets-15,
EmbeddingBagPacked-15), ExtractImagePatches-3, CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, the
colour conversions (NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8), ReorgYolo-2, RegionYolo-1,
GridSample-9, ROIPooling-2, PSROIPooling-1, RandomUniform-8 and Multinomial-13.

Kept away from what the specs leave undefined or OpenVINO CPU cannot run:

* ConvertPromoteTypes: type pairs whose promotion is valid under the drawn attributes (bf16 is left
  out: ``CaseBuilder.param`` types a Parameter by its numpy dtype, and bf16 is stored as uint16);
  values are small whole numbers (within [0, 100] when an unsigned type is involved), so every
  conversion is exact.
* GatherTree: i32 or f32 data, ``max_seq_len`` in [1, MAX_TIME], parent indices in range.
* Embedding bags: indices in range, offsets starting at 0, non-decreasing and below the number of
  indices (OpenVINO's reference rejects an offset equal to it, an empty last bag, though the
  opset15 spec allows it), segment ids sorted, ``num_segments`` a Constant, ``default_index`` in
  range (-1 as well for opset15), ``per_sample_weights`` only after a ``default_index`` (inputs
  are positional) and only with ``reduction="sum"``.
* ExtractImagePatches: at least one output row and column.
* CTC decoders: scores all different (so the arg-max has no ties), sequence masks a run of ones
  followed by zeros, sequence lengths in [1, T], ``blank_index`` in [0, C).
* Colour conversions: even image height and width; u8 or f32/f16 values in [0, 255]. With u8, no
  pixel's R, G or B lies exactly halfway between two integers inside (0, 255) (the spec's formula
  gives multiples of 0.001 and says nothing of rounding to u8; OpenVINO CPU rounds such a half
  either way): the Y value of such a pixel is moved by one.
* ReorgYolo: C a multiple of stride², H and W multiples of the stride. RegionYolo: exactly
  ``regions * (coords + classes + 1)`` channels and ``coords >= 2`` (the reference code's layout).
* GridSample: 4D data only (OpenVINO 2026.4 rejects 5D); grid values in [-1.4, 1.4].
* ROIPooling/PSROIPooling: batch ids in range; PSROIPooling ROIs inside the map (the reference
  code leaves negative positions undefined), normalized ([0, 1]) ROIs for the bilinear modes.
* RandomUniform: seeds never both 0 (the spec's "non-deterministic" setting).
* Multinomial: seeds never both 0; f32 or f16 probabilities in [0.01, 1] (or logits in [-8, 8], -inf
  for a zero probability) with some classes of probability 0 but at least one positive per row;
  without replacement at most as many samples as the row with the fewest positive classes has, and
  logits only in [-2, 2] (OpenVINO CPU can draw a class twice when a row's smallest probability is
  tiny against its sum: a recorded deviation).
  OpenVINO CPU draws its uniform numbers with another generator (std::mt19937), so the suites
  compare the samples as a categorical distribution's (``ovconform.tolerances.compare_samples``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._type import promote_types

# -- ConvertPromoteTypes-14 ----------------------------------------------------------------------------------

PROMOTE_TYPES = (Type.boolean, Type.f16, Type.f32, Type.f64, Type.i8, Type.i16, Type.i32, Type.i64, Type.u8,
                 Type.u16, Type.u32, Type.u64)
U64_TARGETS = (Type.f32, Type.f64, Type.f16, Type.i64, Type.i32)


def _small_values(b: CaseBuilder, shape: tuple[int, ...], et: Type, unsigned: bool) -> np.ndarray:
    if et == Type.boolean:
        return b.uniform(shape, et, 0, 1)
    low = 0 if unsigned or not et.is_signed() else -100
    return b.integers(shape, et, low, 100)


@register_case("ConvertPromoteTypes", 14)
def case_convert_promote_types(draw: Draw[Any]) -> OpCase:
    ta, tb = draw(st.sampled_from(PROMOTE_TYPES)), draw(st.sampled_from(PROMOTE_TYPES))
    sa, sb = (draw(st.sampled_from(((), (1,), (3,), (2, 3), (2, 1, 2)))) for _ in range(2))
    pytorch = draw(st.booleans())
    target = draw(st.sampled_from(U64_TARGETS))
    unsafe = draw(st.booleans())
    try:
        promote_types(ta, tb, sa == (), sb == (), unsafe, pytorch, target)
    except ValidationError:
        unsafe = True
        try:
            promote_types(ta, tb, sa == (), sb == (), unsafe, pytorch, target)
        except ValidationError:
            tb = ta
    unsigned = any(t.is_integral_number() and not t.is_signed() for t in (ta, tb, target))
    b = CaseBuilder(draw_seed(draw))
    left = b.param("a", _small_values(b, sa, ta, unsigned))
    right = b.param("b", _small_values(b, sb, tb, unsigned))
    node = opset.convert_promote_types(left, right, unsafe, pytorch, target)
    return b.finish("ConvertPromoteTypes", 14, node)


# -- GatherTree-1 --------------------------------------------------------------------------------------------

@register_case("GatherTree", 1)
def case_gather_tree(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((Type.i32, Type.f32)))
    time, batch, width = draw(st.integers(1, 6)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    b = CaseBuilder(draw_seed(draw))
    shape = (time, batch, width)
    steps = b.param("step_ids", b.integers(shape, et, 0, 6))
    parents = b.param("parent_idx", b.integers(shape, et, 0, width - 1))
    lengths = b.param("max_seq_len", b.integers((batch,), et, 1, time))
    end = b.param("end_token", b.integers((), et, 0, 6))
    return b.finish("GatherTree", 1, opset.gather_tree(steps, parents, lengths, end))


# -- embedding bags ------------------------------------------------------------------------------------------

EMB_TYPES = (Type.f32, Type.f16, Type.i32)


def _table(draw: Draw[Any], b: CaseBuilder, et: Type) -> tuple[Node, int]:
    rows = draw(st.integers(1, 6))
    extra = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    values = b.integers((rows, *extra), et, -10, 10) if not et.is_real() else b.uniform((rows, *extra), et, -4, 4)
    return b.param("emb_table", values), rows


def _weights(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> Node:
    values = b.integers(shape, et, -3, 3) if not et.is_real() else b.uniform(shape, et, -2, 2)
    return b.param("per_sample_weights", values)


def _index(b: CaseBuilder, name: str, values: np.ndarray, it: Type, as_const: bool) -> Node:
    return b.input(name, np.asarray(values).astype(it.to_dtype()), as_const)


def _optional(draw: Draw[Any], rows: int, allow_minus_one: bool) -> tuple[int | None, bool]:
    """(default_index or None, whether per_sample_weights follow)."""
    if not draw(st.booleans()):
        return None, False
    low = -1 if allow_minus_one else 0
    return draw(st.integers(low, rows - 1)), draw(st.booleans())


def _offsets_case(op: str, version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(EMB_TYPES))
        it = draw(st.sampled_from((Type.i32, Type.i64)))
        reduction = draw(st.sampled_from(("sum", "mean"))) if version == 15 else "sum"
        b = CaseBuilder(draw_seed(draw))
        table, rows = _table(draw, b, et)
        count = draw(st.integers(1, 8))
        bags = draw(st.integers(1, 4))
        offsets = [0, *sorted(draw(st.lists(st.integers(0, count - 1), min_size=bags - 1, max_size=bags - 1)))]
        default, weighted = _optional(draw, rows, version == 15)
        weighted = weighted and reduction == "sum"
        const = draw(st.booleans())
        indices = _index(b, "indices", b.integers((count,), it, 0, rows - 1), it, const)
        offs = _index(b, "offsets", np.array(offsets), it, const)
        dflt = None if default is None else _index(b, "default_index", np.array(default), it, True)
        weights = _weights(b, (count,), et) if weighted else None
        if version == 15:
            node = opset.embedding_bag_offsets(table, indices, offs, dflt, weights, reduction)
        else:
            node = opset.embedding_bag_offsets_sum(table, indices, offs, dflt, weights)
        return b.finish(op, version, node)

    build.__name__ = f"case_{op}"
    register_case(op, version)(build)


def _packed_case(op: str, version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(EMB_TYPES))
        it = draw(st.sampled_from((Type.i32, Type.i64)))
        reduction = draw(st.sampled_from(("sum", "mean"))) if version == 15 else "sum"
        b = CaseBuilder(draw_seed(draw))
        table, rows = _table(draw, b, et)
        shape = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
        indices = _index(b, "indices", b.integers(shape, it, 0, rows - 1), it, draw(st.booleans()))
        weights = _weights(b, shape, et) if reduction == "sum" and draw(st.booleans()) else None
        if version == 15:
            node = opset.embedding_bag_packed(table, indices, weights, reduction)
        else:
            node = opset.embedding_bag_packed_sum(table, indices, weights)
        return b.finish(op, version, node)

    build.__name__ = f"case_{op}"
    register_case(op, version)(build)


_offsets_case("EmbeddingBagOffsetsSum", 3)
_offsets_case("EmbeddingBagOffsets", 15)
_packed_case("EmbeddingBagPackedSum", 3)
_packed_case("EmbeddingBagPacked", 15)


@register_case("EmbeddingSegmentsSum", 3)
def case_embedding_segments_sum(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(EMB_TYPES))
    it = draw(st.sampled_from((Type.i32, Type.i64)))
    b = CaseBuilder(draw_seed(draw))
    table, rows = _table(draw, b, et)
    count = draw(st.integers(1, 8))
    segments = draw(st.integers(1, 5))
    ids = sorted(draw(st.lists(st.integers(0, segments - 1), min_size=count, max_size=count)))
    default, weighted = _optional(draw, rows, allow_minus_one=False)
    const = draw(st.booleans())
    indices = _index(b, "indices", b.integers((count,), it, 0, rows - 1), it, const)
    seg = _index(b, "segment_ids", np.array(ids), it, const)
    num = _index(b, "num_segments", np.array(segments), it, True)
    dflt = None if default is None else _index(b, "default_index", np.array(default), it, True)
    weights = _weights(b, (count,), et) if weighted else None
    node = opset.embedding_segments_sum(table, indices, seg, num, dflt, weights)
    return b.finish("EmbeddingSegmentsSum", 3, node)


# -- ExtractImagePatches-3 -----------------------------------------------------------------------------------

PATCH_TYPES = (Type.f32, Type.f16, Type.i32, Type.u8, Type.i8)


@register_case("ExtractImagePatches", 3)
def case_extract_image_patches(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(PATCH_TYPES))
    pad = draw(st.sampled_from(("valid", "same_upper", "same_lower")))
    sizes = [draw(st.integers(1, 3)) for _ in range(2)]
    strides = [draw(st.integers(1, 3)) for _ in range(2)]
    rates = [draw(st.integers(1, 2)) for _ in range(2)]
    low = [r * (k - 1) + 1 if pad == "valid" else 1 for k, r in zip(sizes, rates, strict=True)]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(low[0], 7)),
             draw(st.integers(low[1], 7)))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -50, 50))
    return b.finish("ExtractImagePatches", 3, opset.extract_image_patches(data, sizes, strides, rates, pad))


# -- CTC decoders ----------------------------------------------------------------------------------------------

def _scores(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    return b.distinct(shape, et, 1 / 64)  # multiples of 1/64 up to +-4: exact and all different in f16


@register_case("CTCGreedyDecoder", 1)
def case_ctc_greedy_decoder(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    time, batch, classes = draw(st.integers(1, 6)), draw(st.integers(1, 3)), draw(st.integers(2, 5))
    lengths = draw(st.lists(st.integers(1, time), min_size=batch, max_size=batch))
    mask = (np.arange(time)[:, None] < np.array(lengths)[None, :]).astype(et.to_dtype())
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", _scores(b, (time, batch, classes), et))
    seq = b.param("seq_indicators", mask)
    return b.finish("CTCGreedyDecoder", 1, opset.ctc_greedy_decoder(data, seq, draw(st.booleans())))


@register_case("CTCGreedyDecoderSeqLen", 6)
def case_ctc_greedy_decoder_seq_len(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    it = draw(st.sampled_from((Type.i32, Type.i64)))
    batch, time, classes = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(2, 5))
    lengths = np.array(draw(st.lists(st.integers(1, time), min_size=batch, max_size=batch)))
    blank = draw(st.one_of(st.none(), st.integers(0, classes - 1)))
    attrs = {"merge_repeated": draw(st.booleans()), "classes_index_type": draw(st.sampled_from(("i32", "i64"))),
             "sequence_length_type": draw(st.sampled_from(("i32", "i64")))}
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", _scores(b, (batch, time, classes), et))
    seq = b.param("sequence_length", lengths.astype(it.to_dtype()))
    blank_node = None
    if blank is not None:
        blank_node = b.const(np.array(blank if draw(st.booleans()) else [blank]), it)
    node = opset.ctc_greedy_decoder_seq_len(data, seq, blank_node, **attrs)
    return b.finish("CTCGreedyDecoderSeqLen", 6, node)


# -- colour conversions ------------------------------------------------------------------------------------------

COLOR_TYPES = (Type.u8, Type.f32, Type.f16)


def _yuv_views(arrays: dict[str, np.ndarray], planes: int, h: int, w: int) -> tuple[np.ndarray, ...]:
    """The Y plane of a colour case's image as a writable [N, H, W] view, and U and V at full resolution."""
    if "yuv" in arrays:
        x = arrays["yuv"]
        n = x.shape[0]
        y = x[:, :h, :, 0]
        if planes == 2:
            uv = x[:, h:, :, 0].reshape(n, h // 2, w // 2, 2)
            u, v = uv[..., 0], uv[..., 1]
        else:
            chroma = x[:, h:, :, 0].reshape(n, 2, h // 2, w // 2)
            u, v = chroma[:, 0], chroma[:, 1]
    else:
        y = arrays["y"][..., 0]
        u, v = (arrays["uv"][..., 0], arrays["uv"][..., 1]) if planes == 2 else (arrays["u"][..., 0],
                                                                                  arrays["v"][..., 0])
    full = [np.repeat(np.repeat(c, 2, axis=1), 2, axis=2) for c in (u, v)]
    return y, full[0], full[1]


def _halfway(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Pixels where the spec's R, G or B (exact, in thousandths) is k + 0.5 with 0 < k + 0.5 < 255."""
    c, d, e = (np.asarray(a, np.int64) - off for a, off in ((y, 16), (u, 128), (v, 128)))
    values = np.stack([1164 * c + 1596 * e, 1164 * c - 813 * e - 391 * d, 1164 * c + 2018 * d])
    return np.any((values % 1000 == 500) & (values > 0) & (values < 255000), axis=0)


def _avoid_halves(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """Move (in place) the Y value of every pixel whose R, G or B is halfway between two u8 values to the
    nearest Y (trying +1, -1, +2, -2, ...) whose R, G and B are not."""
    bad = _halfway(y, u, v)
    for delta in (1, -1, 2, -2, 3, -3):
        if not bad.any():
            return
        moved = y.astype(np.int64) + delta
        fixed = bad & (moved >= 0) & (moved <= 255) & ~_halfway(np.clip(moved, 0, 255), u, v)
        y[fixed] = moved[fixed]
        bad &= ~fixed
    raise AssertionError("colour case: could not move every pixel off a halfway R, G or B value")


def _color_case(op: str, planes: int) -> None:
    builder = {"NV12toRGB": opset.nv12_to_rgb, "NV12toBGR": opset.nv12_to_bgr, "I420toRGB": opset.i420_to_rgb,
               "I420toBGR": opset.i420_to_bgr}[op]

    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(COLOR_TYPES))
        n, h, w = draw(st.integers(1, 2)), 2 * draw(st.integers(1, 4)), 2 * draw(st.integers(1, 4))
        b = CaseBuilder(draw_seed(draw))
        if draw(st.booleans()):
            arrays = {"yuv": b.uniform((n, h * 3 // 2, w, 1), et, 0, 255)}
        elif planes == 2:
            arrays = {"y": b.uniform((n, h, w, 1), et, 0, 255), "uv": b.uniform((n, h // 2, w // 2, 2), et, 0, 255)}
        else:
            arrays = {"y": b.uniform((n, h, w, 1), et, 0, 255), "u": b.uniform((n, h // 2, w // 2, 1), et, 0, 255),
                      "v": b.uniform((n, h // 2, w // 2, 1), et, 0, 255)}
        if et == Type.u8:
            _avoid_halves(*_yuv_views(arrays, planes, h, w))
        return b.finish(op, 8, builder(*(b.param(name, value) for name, value in arrays.items())))

    build.__name__ = f"case_{op}"
    register_case(op, 8)(build)


for _op, _planes in (("NV12toRGB", 2), ("NV12toBGR", 2), ("I420toRGB", 3), ("I420toBGR", 3)):
    _color_case(_op, _planes)


# -- ReorgYolo-2 / RegionYolo-1 -----------------------------------------------------------------------------------

@register_case("ReorgYolo", 2)
def case_reorg_yolo(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(PATCH_TYPES))
    s = draw(st.integers(1, 3))
    shape = (draw(st.integers(1, 2)), s * s * draw(st.integers(1, 2)), s * draw(st.integers(1, 3)),
             s * draw(st.integers(1, 3)))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -50, 50))
    return b.finish("ReorgYolo", 2, opset.reorg_yolo(data, [s] if draw(st.booleans()) else s))


@register_case("RegionYolo", 1)
def case_region_yolo(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    coords, classes = draw(st.integers(2, 4)), draw(st.integers(1, 4))
    softmax = draw(st.booleans())
    num = draw(st.integers(1, 3))
    mask = [] if softmax else draw(st.lists(st.integers(0, num + 2), min_size=1, max_size=3, unique=True))
    regions = num if softmax else len(mask)
    axis = draw(st.integers(0, 3))
    end_axis = draw(st.integers(axis, 3))
    shape = (draw(st.integers(1, 2)), regions * (coords + classes + 1), draw(st.integers(1, 3)),
             draw(st.integers(1, 3)))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -4, 4))
    anchors = [float(v) for v in draw(st.lists(st.integers(1, 20), max_size=4))]
    node = opset.region_yolo(data, coords, classes, num, softmax, mask, axis, end_axis, anchors)
    return b.finish("RegionYolo", 1, node)


# -- GridSample-9 ---------------------------------------------------------------------------------------------------

@register_case("GridSample", 9)
def case_grid_sample(draw: Draw[Any]) -> OpCase:
    et, gt = draw(st.sampled_from(FLOATS)), draw(st.sampled_from(FLOATS))
    n = draw(st.integers(1, 2))
    shape = (n, draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    grid_shape = (n, draw(st.integers(1, 4)), draw(st.integers(1, 4)), 2)
    attrs = {"align_corners": draw(st.booleans()), "mode": draw(st.sampled_from(("bilinear", "bicubic", "nearest"))),
             "padding_mode": draw(st.sampled_from(("zeros", "border", "reflection")))}
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -10, 10))
    grid = b.param("grid", b.uniform(grid_shape, gt, -1.4, 1.4))
    return b.finish("GridSample", 9, opset.grid_sample(data, grid, attrs))


# -- ROIPooling-2 ---------------------------------------------------------------------------------------------------

def _boxes(b: CaseBuilder, count: int, batches: int, low: float, high: float, et: Type) -> np.ndarray:
    corners = b.rng.uniform(low, high, (count, 2, 2))
    corners.sort(axis=1)  # x_1 <= x_2, y_1 <= y_2
    ids = b.rng.integers(0, batches, (count, 1))
    return np.concatenate([ids, corners[:, 0], corners[:, 1]], axis=1).astype(et.to_dtype())


@register_case("ROIPooling", 2)
def case_roi_pooling(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    method = draw(st.sampled_from(("max", "bilinear")))
    n = draw(st.integers(1, 2))
    shape = (n, draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    pooled = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    scale = draw(st.sampled_from((1.0, 0.5, 0.25))) if method == "max" else 1.0
    b = CaseBuilder(draw_seed(draw))
    maps = b.param("feature_maps", b.uniform(shape, et, -10, 10))
    limit = (max(shape[2:]) + 1) / scale if method == "max" else 1.0
    rois = b.param("rois", _boxes(b, draw(st.integers(1, 3)), n, -0.1 * limit, limit, et))
    return b.finish("ROIPooling", 2, opset.roi_pooling(maps, rois, pooled, scale, method))


@register_case("PSROIPooling", 1)
def case_psroi_pooling(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    mode = draw(st.sampled_from(("average", "bilinear")))
    dim, group = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    bins = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if mode == "bilinear" else (1, 1)
    per = group * group if mode == "average" else bins[0] * bins[1]
    n = draw(st.integers(1, 2))
    shape = (n, dim * per, draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    scale = draw(st.sampled_from((1.0, 0.5))) if mode == "average" else 1.0
    b = CaseBuilder(draw_seed(draw))
    maps = b.param("feature_maps", b.uniform(shape, et, -10, 10))
    high = (min(shape[2:]) - 1) / scale if mode == "average" else 1.0
    rois = b.param("rois", _boxes(b, draw(st.integers(1, 3)), n, 0.0, high, et))
    node = opset.psroi_pooling(maps, rois, dim, group, scale, bins[1], bins[0], mode)
    return b.finish("PSROIPooling", 1, node)


# -- RandomUniform-8 --------------------------------------------------------------------------------------------------

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
    bounds = [b.input(name, np.array(v, et.to_dtype()), draw(st.booleans())) for name, v in (("min", low),
                                                                                             ("max", high))]
    node = opset.random_uniform(shape, *bounds, et, global_seed, op_seed, alignment)
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
