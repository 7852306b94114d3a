"""Builders of the tier-3 "misc" family: ConvertPromoteTypes-14, GatherTree-1, ExtractImagePatches-3,
CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6 (here), the embedding-bag ops (EmbeddingSegmentsSum-3,
EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingBagOffsets-15, EmbeddingBagPacked-15;
:mod:`ovconform.opset._misc_embedding`) and the colour conversions (NV12toRGB-8, NV12toBGR-8,
I420toRGB-8, I420toBGR-8; :mod:`ovconform.opset._misc_color`) and ReorgYolo-2, RegionYolo-1
(:mod:`ovconform.opset._misc_yolo`), GridSample-9 (:mod:`ovconform.opset._misc_grid`),
ROIPooling-2 and PSROIPooling-1 (:mod:`ovconform.opset._misc_roi`), RandomUniform-8
(:mod:`ovconform.opset._misc_random`).

Attribute spellings are those ``openvino.save_model`` writes: ConvertPromoteTypes ``promote_unsafe``,
``pytorch_scalar_promotion``, ``u64_integer_promotion_target``; ExtractImagePatches ``sizes``,
``strides``, ``rates``, ``auto_pad`` (valid, same_upper, same_lower); CTCGreedyDecoder
``ctc_merge_repeated``; CTCGreedyDecoderSeqLen ``merge_repeated``, ``classes_index_type``,
``sequence_length_type``.

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, as_type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, require
from ovconform.opset._misc_color import i420_to_bgr, i420_to_rgb, nv12_to_bgr, nv12_to_rgb
from ovconform.opset._misc_embedding import (
    embedding_bag_offsets,
    embedding_bag_offsets_sum,
    embedding_bag_packed,
    embedding_bag_packed_sum,
    embedding_segments_sum,
)
from ovconform.opset._misc_grid import grid_sample
from ovconform.opset._misc_random import multinomial, random_uniform
from ovconform.opset._misc_roi import psroi_pooling, roi_pooling
from ovconform.opset._misc_yolo import region_yolo, reorg_yolo
from ovconform.opset._shape_ops import index_input, require_integer

__all__ = [
    "convert_promote_types", "ctc_greedy_decoder", "ctc_greedy_decoder_seq_len", "embedding_bag_offsets",
    "embedding_bag_offsets_sum", "embedding_bag_packed", "embedding_bag_packed_sum", "embedding_segments_sum",
    "extract_image_patches", "gather_tree", "grid_sample", "i420_to_bgr", "i420_to_rgb", "nv12_to_bgr", "nv12_to_rgb",
    "multinomial", "psroi_pooling", "random_uniform", "region_yolo", "reorg_yolo", "roi_pooling",
]

Infer = list[tuple[Type, PartialShape]]
INDEX_TYPES = (Type.i32, Type.i64)


def require_rank(node: Node, index: int, rank: int, what: str) -> PartialShape:
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) == rank,
            f"{what} (input {index}) has shape {shape}; it must have rank {rank}.")
    return shape if shape.has_rank() else PartialShape.dynamic(rank)


def merge_dim(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    require(merged is not None, message)
    assert merged is not None
    return merged


# -- ConvertPromoteTypes-14 ----------------------------------------------------------------------------------

def _int_of_bits(bits: int) -> Type:
    return {8: Type.i8, 16: Type.i16, 32: Type.i32, 64: Type.i64}[bits]


def _mixed_kind(a: Type, b: Type, unsafe: bool) -> Type:
    real, integer = (a, b) if a.is_real() else (b, a)
    require(unsafe or real.bitwidth >= 2 * integer.bitwidth,
            f"integer input type {integer} cannot be safely promoted to floating-point {real} (the float needs at "
            "least twice the integer's bit width); set promote_unsafe=true to allow it.")
    return real


def _mixed_sign(a: Type, b: Type, unsafe: bool, u64_target: Type) -> Type:
    unsigned, signed = (b, a) if a.is_signed() else (a, b)
    if unsigned.bitwidth <= 32 and (unsafe or 2 * unsigned.bitwidth <= signed.bitwidth):
        return _int_of_bits(max(2 * unsigned.bitwidth, signed.bitwidth))
    require(unsafe, f"unsigned input type {unsigned} cannot be safely promoted with signed {signed} into any "
                    "signed integer type; set promote_unsafe=true (the result is then u64_integer_promotion_target).")
    return u64_target


def promote_types(a: Type, b: Type, a_scalar: bool, b_scalar: bool, unsafe: bool, pytorch: bool,
                  u64_target: Type) -> Type:
    """The common type of ConvertPromoteTypes-14 (the spec's rules, in OpenVINO's order)."""
    if a == b:
        return a
    if a == Type.boolean or b == Type.boolean:
        return b if a == Type.boolean else a
    if a.is_real() != b.is_real():
        return _mixed_kind(a, b, unsafe)
    if pytorch and a_scalar != b_scalar:
        target, scalar = (b, a) if a_scalar else (a, b)
        ok = ((target.is_signed() == scalar.is_signed() and target.bitwidth >= scalar.bitwidth)
              or (target.is_signed() and not scalar.is_signed() and 2 * target.bitwidth >= scalar.bitwidth))
        require(unsafe or ok, f"scalar input type {scalar} cannot be aligned to the non-scalar input type {target} "
                              "by the safe PyTorch-like rules; set promote_unsafe=true to allow it.")
        return target
    if a.is_signed() != b.is_signed():
        return _mixed_sign(a, b, unsafe, u64_target)
    if a.bitwidth != b.bitwidth:
        return a if a.bitwidth > b.bitwidth else b
    require(unsafe and {a.name, b.name} == {"f16", "bf16"},
            f"input types {a} and {b} have no common type under the given attributes (f16 with bf16 promotes to f32 "
            "only with promote_unsafe=true).")
    return Type.f32


def _is_scalar(shape: PartialShape) -> bool:
    return shape.is_static and len(shape) == 0


@define_op("ConvertPromoteTypes", 14, inputs=2, attrs=[
    AttrSpec("promote_unsafe", "bool", False), AttrSpec("pytorch_scalar_promotion", "bool", False),
    AttrSpec("u64_integer_promotion_target", "type", Type.f32)])
def _infer_convert_promote_types(node: Node) -> Infer:
    a, b = node.get_input_element_type(0), node.get_input_element_type(1)
    sa, sb = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    common = promote_types(a, b, _is_scalar(sa), _is_scalar(sb), node.attrs["promote_unsafe"],
                           node.attrs["pytorch_scalar_promotion"], node.attrs["u64_integer_promotion_target"])
    return [(common, sa), (common, sb)]


def convert_promote_types(left_node: NodeInput, right_node: NodeInput, promote_unsafe: bool = False,
                          pytorch_scalar_promotion: bool = False, u64_integer_promotion_target: Any = "f32",
                          name: str | None = None) -> Node:
    """ConvertPromoteTypes-14: both inputs converted to their common type (two outputs, shapes kept)."""
    attrs = {"promote_unsafe": promote_unsafe, "pytorch_scalar_promotion": pytorch_scalar_promotion,
             "u64_integer_promotion_target": as_type(u64_integer_promotion_target)}
    return make_node("ConvertPromoteTypes", 14, [as_output(left_node), as_output(right_node)], attrs, name)


# -- GatherTree-1 ----------------------------------------------------------------------------------------------

@define_op("GatherTree", 1, inputs=4)
def _infer_gather_tree(node: Node) -> Infer:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, "step_ids (input 0) has element type boolean; GatherTree needs a numeric type.")
    for i, what in ((1, "parent_idx"), (2, "max_seq_len"), (3, "end_token")):
        other = node.get_input_element_type(i)
        require(other == et, f"{what} (input {i}) has element type {other}; it must match step_ids ({et}).")
    steps = require_rank(node, 0, 3, "step_ids")
    parents = require_rank(node, 1, 3, "parent_idx")
    lengths = require_rank(node, 2, 1, "max_seq_len")
    end = node.get_input_partial_shape(3)
    require(not end.has_rank() or len(end) == 0, f"end_token (input 3) has shape {end}; it must be a scalar.")
    merged = steps.merge(parents)
    require(merged is not None, f"step_ids {steps} and parent_idx {parents} must have the same shape.")
    assert merged is not None
    batch = merge_dim(merged[1], lengths[0], f"max_seq_len {lengths} must have BATCH_SIZE={merged[1]} elements.")
    return [(et, PartialShape([merged[0], batch, merged[2]]))]


def gather_tree(step_ids: NodeInput, parent_idx: NodeInput, max_seq_len: NodeInput, end_token: NodeInput,
                name: str | None = None) -> Node:
    """GatherTree-1: the full beams from per-step ids and parent beam indices ([MAX_TIME, BATCH, BEAM])."""
    return make_node("GatherTree", 1, as_outputs(step_ids, parent_idx, max_seq_len, end_token), {}, name)


# -- ExtractImagePatches-3 -----------------------------------------------------------------------------------

PAD_TYPES = ("valid", "same_upper", "same_lower")


def _positive_pair(node: Node, name: str) -> list[int]:
    values = node.attrs[name]
    require(len(values) == 2 and all(v > 0 for v in values),
            f"attribute {name!r} is {values}; it must be two positive integers [rows, cols].")
    return list(values)


def patches_out_dim(size: Dimension, k: int, s: int, r: int, auto_pad: str) -> Dimension:
    """The output rows/cols of ExtractImagePatches for input rows/cols ``size``."""
    if not size.is_static:
        return Dimension()
    n = size.get_length()
    if auto_pad == "valid":
        eff = r * (k - 1) + 1
        return Dimension(max(0, (n - eff) // s + 1) if n >= eff else 0)
    return Dimension(-(-n // s))


@define_op("ExtractImagePatches", 3, inputs=1, attrs=[
    AttrSpec("sizes", "ints"), AttrSpec("strides", "ints"), AttrSpec("rates", "ints"),
    AttrSpec("auto_pad", "str", "valid", PAD_TYPES)])
def _infer_extract_image_patches(node: Node) -> Infer:
    sizes, strides, rates = (_positive_pair(node, n) for n in ("sizes", "strides", "rates"))
    shape = require_rank(node, 0, 4, "data")
    pad = node.attrs["auto_pad"]
    dims = [shape[0], shape[1] * (sizes[0] * sizes[1]),
            patches_out_dim(shape[2], sizes[0], strides[0], rates[0], pad),
            patches_out_dim(shape[3], sizes[1], strides[1], rates[1], pad)]
    return [(node.get_input_element_type(0), PartialShape(dims))]


def extract_image_patches(image: NodeInput, sizes: list[int], strides: list[int], rates: list[int], auto_pad: str,
                          name: str | None = None) -> Node:
    """ExtractImagePatches-3 over an NCHW ``image``: output [N, C*sizes[0]*sizes[1], out_rows, out_cols]."""
    attrs = {"sizes": list(sizes), "strides": list(strides), "rates": list(rates),
             "auto_pad": auto_pad.lower() if isinstance(auto_pad, str) else auto_pad}
    return make_node("ExtractImagePatches", 3, [as_output(image)], attrs, name)


# -- CTCGreedyDecoder-1 / CTCGreedyDecoderSeqLen-6 --------------------------------------------------------

@define_op("CTCGreedyDecoder", 1, inputs=2, attrs=[AttrSpec("ctc_merge_repeated", "bool", True)])
def _infer_ctc_greedy_decoder(node: Node) -> Infer:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data (input 0) has element type {et}; CTCGreedyDecoder needs a floating-point type.")
    mask_et = node.get_input_element_type(1)
    require(mask_et == et, f"seq_indicators (input 1) has element type {mask_et}; it must match data ({et}).")
    data = require_rank(node, 0, 3, "data")
    mask = require_rank(node, 1, 2, "seq_indicators")
    time = merge_dim(data[0], mask[0], f"seq_indicators {mask} must be [T, N] for data {data} ([T, N, C]).")
    batch = merge_dim(data[1], mask[1], f"seq_indicators {mask} must be [T, N] for data {data} ([T, N, C]).")
    return [(et, PartialShape([batch, time, 1, 1]))]


def ctc_greedy_decoder(data: NodeInput, sequence_mask: NodeInput, merge_repeated: bool = True,
                       name: str | None = None) -> Node:
    """CTCGreedyDecoder-1 over ``data`` [T, N, C] and ``sequence_mask`` [T, N]: classes [N, T, 1, 1], -1 padded."""
    return make_node("CTCGreedyDecoder", 1, as_outputs(data, sequence_mask),
                     {"ctc_merge_repeated": merge_repeated}, name)


@define_op("CTCGreedyDecoderSeqLen", 6, inputs=(2, 3), attrs=[
    AttrSpec("merge_repeated", "bool", True), AttrSpec("classes_index_type", "type", Type.i32, INDEX_TYPES),
    AttrSpec("sequence_length_type", "type", Type.i32, INDEX_TYPES)])
def _infer_ctc_greedy_decoder_seq_len(node: Node) -> Infer:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data (input 0) has element type {et}; CTCGreedyDecoderSeqLen needs a floating-point "
                          "type.")
    data = require_rank(node, 0, 3, "data")
    require_integer(node, 1, "sequence_length")
    lengths = require_rank(node, 1, 1, "sequence_length")
    batch = merge_dim(data[0], lengths[0], f"sequence_length {lengths} must have N={data[0]} elements "
                                           f"(data {data} is [N, T, C]).")
    if node.get_input_size() == 3:
        require_integer(node, 2, "blank_index")
        blank = node.get_input_partial_shape(2)
        require(not blank.has_rank() or len(blank) == 0 or (len(blank) == 1 and blank[0].compatible(1)),
                f"blank_index (input 2) has shape {blank}; it must be a scalar or have one element.")
    return [(node.attrs["classes_index_type"], PartialShape([batch, data[1]])),
            (node.attrs["sequence_length_type"], PartialShape([batch]))]


def ctc_greedy_decoder_seq_len(data: NodeInput, sequence_length: NodeInput, blank_index: NodeInput | None = None,
                               merge_repeated: bool = True, classes_index_type: Any = "i32",
                               sequence_length_type: Any = "i32", name: str | None = None) -> Node:
    """CTCGreedyDecoderSeqLen-6 over ``data`` [N, T, C] and ``sequence_length`` [N]; ``blank_index`` (default
    C - 1) is optional. Outputs: the classes [N, T] (-1 padded) and the decoded lengths [N]."""
    inputs = [as_output(data), index_input(sequence_length, "sequence_length")]
    if blank_index is not None:
        inputs.append(index_input(blank_index, "blank_index"))
    attrs = {"merge_repeated": merge_repeated, "classes_index_type": as_type(classes_index_type),
             "sequence_length_type": as_type(sequence_length_type)}
    return make_node("CTCGreedyDecoderSeqLen", 6, inputs, attrs, name)
