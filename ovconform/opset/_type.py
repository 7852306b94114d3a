"""Type ops (OpenVINO's op-spec folder "type"): Convert-1, ConvertLike-1 and ConvertPromoteTypes-14.

ConvertPromoteTypes has ``promote_unsafe``, ``pytorch_scalar_promotion`` and
``u64_integer_promotion_target``, the spellings ``openvino.save_model`` writes;
:func:`promote_types` is its promotion rule.

StringTensorUnpack-15 takes a string tensor of any shape and gives ``begins`` and ``ends`` (i32, its
shape) and ``symbols`` (1D u8: the UTF-8 bytes of all strings, one after another; its length is
known only from a Constant input). StringTensorPack-15 is the inverse: ``begins`` and ``ends`` of one
shape and one type (i32 or i64) and 1D u8 ``symbols`` give a string tensor of that shape, element
``i`` the bytes ``symbols[begins[i]:ends[i]]``.
"""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, as_type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require
from ovconform.opset._inputs import Infer

__all__ = ["convert", "convert_like", "convert_promote_types", "string_tensor_pack", "string_tensor_unpack"]

@define_op("Convert", 1, inputs=1, attrs=[AttrSpec("destination_type", "type")])
def _infer_convert(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.attrs["destination_type"], node.get_input_partial_shape(0))]


@define_op("ConvertLike", 1, inputs=2)
def _infer_convert_like(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.get_input_element_type(1), node.get_input_partial_shape(0))]


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


def convert(data: NodeInput, destination_type: Any, name: str | None = None) -> Node:
    return make_node("Convert", 1, [as_output(data)], {"destination_type": as_type(destination_type)}, name)


def convert_like(data: NodeInput, like: NodeInput, name: str | None = None) -> Node:
    return make_node("ConvertLike", 1, [as_output(data), as_output(like)], {}, name)


def convert_promote_types(left_node: NodeInput, right_node: NodeInput, promote_unsafe: bool = False,
                          pytorch_scalar_promotion: bool = False, u64_integer_promotion_target: Any = "f32",
                          name: str | None = None) -> Node:
    """ConvertPromoteTypes-14: both inputs converted to their common type (two outputs, shapes kept)."""
    attrs = {"promote_unsafe": promote_unsafe, "pytorch_scalar_promotion": pytorch_scalar_promotion,
             "u64_integer_promotion_target": as_type(u64_integer_promotion_target)}
    return make_node("ConvertPromoteTypes", 14, [as_output(left_node), as_output(right_node)], attrs, name)


# -- string tensors (opset15) ------------------------------------------------------------------------------------

@define_op("StringTensorUnpack", 15, inputs=1)
def _infer_string_tensor_unpack(node: Node) -> Infer:
    """begins, ends (i32, the data's shape) and symbols (u8 [total bytes])."""
    et, shape = node.get_input_element_type(0), node.get_input_partial_shape(0)
    require(et == Type.string, f"data (input 0) has element type {et}; StringTensorUnpack needs string.")
    known = constant_value(node.input_value(0))
    total = (Dimension(sum(len(str(v).encode("utf-8", "surrogateescape")) for v in known.reshape(-1)))
             if known is not None else Dimension())
    return [(Type.i32, shape), (Type.i32, shape), (Type.u8, PartialShape([total]))]


@define_op("StringTensorPack", 15, inputs=3)
def _infer_string_tensor_pack(node: Node) -> Infer:
    """A string tensor of the shape of ``begins`` (merged with ``ends``)."""
    tb, te, ts = (node.get_input_element_type(i) for i in range(3))
    require(tb == te and tb in (Type.i32, Type.i64),
            f"begins and ends (inputs 0, 1) have element types {tb} and {te}; they must be one of i32, i64.")
    require(ts == Type.u8, f"symbols (input 2) has element type {ts}; it must be u8.")
    symbols = node.get_input_partial_shape(2)
    require(not symbols.has_rank() or len(symbols) == 1, f"symbols (input 2) has shape {symbols}; it must be 1D.")
    begins, ends = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    merged = begins.merge(ends)
    require(merged is not None, f"begins {begins} and ends {ends} must have one shape.")
    assert merged is not None
    return [(Type.string, merged)]


def string_tensor_unpack(data: NodeInput, name: str | None = None) -> Node:
    """StringTensorUnpack-15: ``begins``, ``ends`` and ``symbols`` (the UTF-8 bytes) of a string tensor."""
    return make_node("StringTensorUnpack", 15, [as_output(data)], {}, name)


def string_tensor_pack(begins: NodeInput, ends: NodeInput, symbols: NodeInput, name: str | None = None) -> Node:
    """StringTensorPack-15: the string tensor whose element ``i`` is ``symbols[begins[i]:ends[i]]``."""
    return make_node("StringTensorPack", 15, [as_output(begins), as_output(ends), as_output(symbols)], {}, name)
