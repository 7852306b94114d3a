"""OpenVINO's storage element types in ovconform: names, sizes, holding arrays, value checks, codes,
bit packing, IR v11 round trips and the REFERENCE Convert among them (no openvino needed; the
comparisons with OpenVINO itself are in ``test_openvino_element_types.py``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ovconform import Model, Tensor, Type, read_model, serialize
from ovconform import opset as ops
from ovconform.errors import ReadModelError, ValidationError
from ovconform.ir import ALL_TYPES, ELEMENT_TYPES, STORAGE_TYPES, as_type, byte_size, holding_array
from ovconform.ir._element_codec import decode, encode, pack, unpack
from reference_plugin.evaluate import evaluate
from reference_plugin.ops._common_types import convert_array

#: name -> (bitwidth, is_real, is_signed, IR precision, numpy holding dtype), as openvino.Type says
OPENVINO = {
    "u1": (1, False, False, "BIN", "uint8"), "u2": (2, False, False, "U2", "uint8"),
    "u3": (3, False, False, "U3", "uint8"), "u4": (4, False, False, "U4", "uint8"),
    "u6": (6, False, False, "U6", "uint8"), "i4": (4, False, True, "I4", "int8"),
    "nf4": (4, False, False, "NF4", "uint8"), "f4e2m1": (4, True, True, "F4E2M1", "uint8"),
    "f8e4m3": (8, True, True, "F8E4M3", "uint8"), "f8e5m2": (8, True, True, "F8E5M2", "uint8"),
    "f8e8m0": (8, True, True, "F8E8M0", "uint8"), "string": (256, False, False, "STRING", "object"),
}
PACKED_INTS = [Type.u1, Type.u2, Type.u3, Type.u4, Type.u6, Type.i4]
CODED = [Type.nf4, Type.f4e2m1, Type.f8e4m3, Type.f8e5m2, Type.f8e8m0]
NUMERIC_STORAGE = [t for t in STORAGE_TYPES if t != Type.string]


def _every_value(et: Type, count: int = 37) -> np.ndarray:
    """Every value et holds (codes for coded types), cycled to ``count`` elements."""
    lo, hi = {"i4": (-8, 7)}.get(et.name, (0, (1 << min(et.bitwidth, 8)) - 1))
    return (np.arange(count) % (hi - lo + 1) + lo).astype(et.to_dtype())


# -- the types ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(OPENVINO))
def test_type_matches_openvino(name: str) -> None:
    bits, real, signed, precision, dtype = OPENVINO[name]
    t = as_type(name)
    assert (t.get_type_name(), t.bitwidth, t.is_real(), t.is_signed(), t.ir_precision, str(t.to_dtype())) == (
        name, bits, real, signed, precision, dtype)
    assert as_type(precision) is t and getattr(Type, name) is t and t in ELEMENT_TYPES and t not in ALL_TYPES
    assert t.size == (1 if bits <= 8 else 32)


def test_openvino_cpp_names_and_numpy_strings() -> None:
    assert [as_type(n) for n in ("uint4_t", "int4_t", "nfloat4", "uint1_t")] == [Type.u4, Type.i4, Type.nf4, Type.u1]
    assert as_type(str) is Type.string and as_type(np.dtype("<U3")) is Type.string
    assert as_type(np.uint8) is Type.u8  # uint8 is u8; the storage types are named, never guessed


@pytest.mark.parametrize(("name", "count", "size"), [
    ("u1", 10, 2), ("u2", 9, 3), ("u3", 9, 6), ("u3", 8, 3), ("u3", 1, 3), ("u4", 3, 2), ("u6", 5, 6),
    ("u6", 4, 3), ("i4", 4, 2), ("nf4", 4, 2), ("f4e2m1", 5, 3), ("f8e4m3", 4, 4), ("string", 2, 64),
    ("u4", 0, 0)])
def test_byte_size_is_openvinos(name: str, count: int, size: int) -> None:
    assert byte_size(as_type(name), count) == size


# -- holding arrays and bad values ----------------------------------------------------------------------

@pytest.mark.parametrize(("et", "bad", "allowed"), [
    (Type.u4, 17, "[0, 15]"), (Type.i4, -9, "[-8, 7]"), (Type.u1, 2, "[0, 1]"), (Type.u3, 8, "[0, 7]"),
    (Type.u6, 64, "[0, 63]"), (Type.nf4, 16, "[0, 15]"), (Type.f4e2m1, 200, "[0, 15]")])
def test_out_of_range_value_names_tensor_value_and_range(et: Type, bad: int, allowed: str) -> None:
    arr = np.array([0, bad, 1]).astype(et.to_dtype())
    message = rf"a {et} tensor: value {bad} at index \[1\] .*{et}.*{re.escape(allowed)}"
    with pytest.raises(ValidationError, match=message):
        Tensor(arr, element_type=et)
    with pytest.raises(ValidationError, match=rf"Constant 'w' value: value {bad} .*{re.escape(allowed)}"):
        ops.constant(arr, et, name="w")


def test_constant_of_made_node_is_checked() -> None:
    from ovconform.ir import make_node
    data = np.array([3, 16], np.uint8)
    with pytest.raises(ValidationError, match=r"value 16 at index \[1\] is out of range for u4"):
        make_node("Constant", 1, [], {"element_type": Type.u4, "shape": [2]}, "c", data=data)


def test_holding_arrays() -> None:
    assert holding_array(np.array([0.5, 1000.0, -2.0]), Type.f8e4m3, "x").tolist() == [0x30, 0x7F, 0xC0]
    assert holding_array(np.array([0x30, 0xFF], np.uint8), Type.f8e4m3, "x").tolist() == [0x30, 0xFF]  # codes
    assert holding_array(np.array([-8, 7]), Type.i4, "x").dtype == np.int8
    with pytest.raises(ValidationError, match="u4 holds whole numbers"):
        holding_array(np.array([1.5]), Type.u4, "x")
    strings = holding_array(np.array([b"a\xff", "b"], dtype=object), Type.string, "x")
    assert strings.tolist() == ["a\udcff", "b"] and all(type(s) is str for s in strings)
    with pytest.raises(ValidationError, match="item 3 at index \\[1\\] is int"):
        Tensor(np.array(["a", 3], dtype=object), element_type=Type.string)


def test_tensor_holds_storage_types() -> None:
    t = Tensor(Type.u3, [9])
    assert t.data.dtype == np.uint8 and t.byte_size == 6
    s = Tensor(np.array(["ab", "c"]))
    assert s.element_type == Type.string and s.data.tolist() == ["ab", "c"] and s.data.dtype == object
    assert Tensor(Type.string, [2]).data.tolist() == ["", ""]
    with pytest.raises(ValidationError, match="shared_memory=True cannot wrap"):
        Tensor(np.array(["a"]), shared_memory=True)


# -- codes --------------------------------------------------------------------------------------------------

def test_decode_known_values() -> None:
    codes = np.array([0x00, 0x01, 0x38, 0x7E, 0x7F, 0xFE, 0x80], np.uint8)
    e4m3 = decode(codes, Type.f8e4m3)
    assert e4m3[:4].tolist() == [0.0, 2.0 ** -9, 1.0, 448.0] and np.isnan(e4m3[4]) and e4m3[5] == -448.0
    assert np.signbit(e4m3[6])
    assert decode(np.array([0x3C, 0x7B, 0x7C, 0x01], np.uint8), Type.f8e5m2).tolist() == [1.0, 57344.0, np.inf,
                                                                                             2.0 ** -16]
    e8m0 = decode(np.array([0, 127, 254, 255], np.uint8), Type.f8e8m0)
    assert e8m0[:3].tolist() == [2.0 ** -127, 1.0, 2.0 ** 127] and np.isnan(e8m0[3])
    assert decode(np.arange(8, dtype=np.uint8), Type.f4e2m1).tolist() == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert decode(np.array([0, 7, 15], np.uint8), Type.nf4).tolist() == [-1.0, 0.0, 1.0]


@pytest.mark.parametrize("et", CODED, ids=str)
def test_every_code_encodes_back_to_itself(et: Type) -> None:
    codes = np.arange(1 << et.bitwidth, dtype=np.uint8)
    values = decode(codes, et)
    back = encode(values, et)
    keep = ~np.isnan(values)
    if et == Type.f8e8m0:
        keep &= codes != 0  # 2**-127 is an f32 subnormal: OpenVINO's encoder reads exponent 0 as code 0 anyway
    assert np.array_equal(back[keep], codes[keep])


@pytest.mark.parametrize(("et", "values", "codes"), [
    # nearest, ties to even; e4m3 overflows to NaN past 464, e5m2 to inf
    (Type.f8e4m3, [464.0, 465.0, -np.inf, np.nan, 1.0625, 1.1875, 2.0 ** -10, 3 * 2.0 ** -10],
     [0x7E, 0x7F, 0xFF, 0x7F, 0x38, 0x3A, 0x00, 0x02]),
    (Type.f8e5m2, [1e6, -np.inf, 1.125, 1.375, 465.0], [0x7C, 0xFC, 0x3C, 0x3E, 0x5F]),
    # negative -> 0; exponent rounds to nearest, ties to even codes; inf -> 0xFE; NaN -> 0xFF
    (Type.f8e8m0, [-1.0, 3.0, 6.0, 6.5, np.inf, np.nan, 0.75], [0, 128, 130, 130, 254, 255, 126]),
    # saturating at 6, ties to even
    (Type.f4e2m1, [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 100.0, -0.3, np.nan], [0, 2, 2, 4, 4, 6, 6, 7, 9, 7]),
    (Type.nf4, [-2.0, 0.0, 0.3, 0.5, 2.0, np.nan], [0, 7, 11, 12, 15, 0]),
])
def test_encode_rounds_as_openvino(et: Type, values: list[float], codes: list[int]) -> None:
    assert encode(np.array(values, np.float32), et).tolist() == codes


# -- packing ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "values", "hex_bytes"), [
    ("u1", [1, 0, 0, 0, 0, 0, 0, 0, 1, 1], "80c0"),               # MSB first
    ("u2", [1, 2, 3, 0, 1, 1, 1, 1, 2], "395502"),                # LSB first
    ("u3", [1, 2, 3, 4, 5, 6, 7, 0, 1], "6c6c1e400000"),          # 2 bytes of low bits, 1 of high bits
    ("u4", [1, 2, 3], "2103"),                                    # low nibble first
    ("u6", [1, 2, 3, 63, 5], "123f03500000"),                     # 2 bytes of nibbles, 1 of high bits
    ("i4", [1, -2, 3, -8], "e183"),
    ("nf4", [0, 7], "70"), ("f4e2m1", [1, 2, 15, 7, 0], "217f00"),
])
def test_pack_layout_is_openvinos(name: str, values: list[int], hex_bytes: str) -> None:
    """The bytes ``openvino.save_model`` (2026.4) wrote for these Constants."""
    et = as_type(name)
    arr = np.array(values, et.to_dtype())
    assert pack(arr, et, "x").hex() == hex_bytes
    assert unpack(bytes.fromhex(hex_bytes), et, len(values)).tolist() == values


@pytest.mark.parametrize("et", NUMERIC_STORAGE, ids=str)
@pytest.mark.parametrize("count", [1, 7, 8, 9, 33])
def test_pack_unpack_round_trip(et: Type, count: int) -> None:
    arr = _every_value(et, count)
    blob = pack(arr, et, "x")
    assert len(blob) == byte_size(et, count)
    assert np.array_equal(unpack(blob, et, count), arr)


# -- IR v11 -------------------------------------------------------------------------------------------

def _model(et: Type, data: np.ndarray) -> Model:
    c = ops.constant(data, et, name="w")
    return Model([c], [], "stored")


@pytest.mark.parametrize("et", STORAGE_TYPES, ids=str)
def test_ir_round_trip(et: Type) -> None:
    data = (np.array(["", "ab", "\u00e9\u4e2d", "a\udcff"], dtype=object).reshape(2, 2) if et == Type.string
            else _every_value(et, 21).reshape(3, 7))
    xml, weights = serialize(_model(et, data))
    assert f'element_type="{et}"'.encode() in xml and f'precision="{et.ir_precision}"'.encode() in xml
    back = read_model(xml, weights)
    const = back.get_results()[0].input_value(0).get_node()
    assert const.get_output_element_type(0) == et and const.data is not None
    assert const.data.dtype == et.to_dtype() and const.data.tolist() == data.tolist()
    assert serialize(back) == (xml, weights)


def test_string_weights_layout() -> None:
    _, weights = serialize(_model(Type.string, np.array(["ab", "", "xyz\u00e9"])))
    assert weights == (np.array([3, 0, 2, 2, 7], "<i4").tobytes() + b"abxyz\xc3\xa9")


def test_non_utf8_string_bytes_survive() -> None:
    _, weights = serialize(_model(Type.string, np.array([b"\xff\xfe"], dtype=object)))
    assert weights.endswith(b"\xff\xfe")
    back = read_model(*serialize(_model(Type.string, np.array([b"\xff\xfe"], dtype=object))))
    assert serialize(back)[1] == weights


@pytest.mark.parametrize("et", [Type.f32, Type.u4, Type.i64, Type.string], ids=str)
def test_empty_constant_is_one_zero_byte(et: Type) -> None:
    """``openvino.save_model`` writes an empty Constant as size="1" (one zero byte); both read."""
    data = np.zeros((2, 0), dtype=et.to_dtype())
    xml, weights = serialize(_model(et, data))
    assert b'shape="2, 0" offset="0" size="1"' in xml and weights == b"\x00"
    for size in (b'size="1"', b'size="0"'):
        back = read_model(xml.replace(b'size="1"', size), weights)
        assert back.get_results()[0].input_value(0).get_node().data.shape == (2, 0)


@pytest.mark.parametrize(("et", "size"), [(Type.u4, 3), (Type.u3, 2), (Type.f8e4m3, 2)], ids=str)
def test_wrong_size_names_bits_and_bytes(et: Type, size: int) -> None:
    xml, weights = serialize(_model(et, np.zeros(3, et.to_dtype())))
    good = byte_size(et, 3)
    with pytest.raises(ReadModelError, match=rf"size={size} does not match shape \[3\] of {et} .* = {good} bytes"):
        read_model(xml.replace(f'size="{good}"'.encode(), f'size="{size}"'.encode()), weights + b"\x00" * 8)


@pytest.mark.parametrize("header", [[5, 0, 1], [1, 0, 99], [1, 3, 1]])
def test_broken_string_weights_are_refused(header: list[int]) -> None:
    xml, _ = serialize(_model(Type.string, np.array(["a"])))
    weights = np.array(header, "<i4").tobytes() + b"a"
    xml = xml.replace(b'size="13"', f'size="{len(weights)}"'.encode())
    with pytest.raises(ReadModelError, match="layer id=0 .*string"):
        read_model(xml, weights)


# -- REFERENCE Convert ---------------------------------------------------------------------------------

def _run_convert(src: Type, dst: Type, data: np.ndarray) -> np.ndarray:
    model = Model([ops.convert(ops.constant(data, src), dst)], [], "c")
    return evaluate(model, [])[0]


@pytest.mark.parametrize("src", NUMERIC_STORAGE, ids=str)
def test_convert_from_storage_decodes(src: Type) -> None:
    data = _every_value(src, 256 if src.bitwidth == 8 else 16)
    got = _run_convert(src, Type.f32, data)
    want = decode(data, src) if src.is_coded() else data.astype(np.float32)
    assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize(("dst", "want"), [
    # truncate toward zero, then wrap modulo 2**bits (OpenVINO's constant folding, see the interop test)
    (Type.u4, [0, 1, 15, 8, 13, 0, 0]), (Type.i4, [0, 1, -1, -8, -3, 0, 0]), (Type.u1, [0, 1, 1, 0, 1, 0, 0]),
    (Type.u3, [0, 1, 7, 0, 5, 0, 0]), (Type.u6, [0, 1, 63, 40, 61, 0, 0]), (Type.u2, [0, 1, 3, 0, 1, 0, 0]),
])
def test_convert_to_low_bit_integers_wraps(dst: Type, want: list[int]) -> None:
    data = np.array([0.5, 1.9, -1.0, 1000.0, -3.5, np.nan, np.inf], np.float32)
    assert _run_convert(Type.f32, dst, data).tolist() == want


@pytest.mark.parametrize("src", [Type.f32, Type.f16, Type.f64, Type.i32, Type.u8, Type.bf16], ids=str)
@pytest.mark.parametrize("dst", CODED, ids=str)
def test_convert_to_coded_goes_through_f32(src: Type, dst: Type) -> None:
    values = np.array([-3.0, -0.3, 0.0, 0.4, 1.0, 2.5, 7.0, 100.0])
    if not src.is_signed() and not src.is_real():
        values = np.abs(values)
    data = holding_array(values if src.is_real() else np.trunc(values), src, "x")
    f32 = convert_array(data, src, Type.f32)
    assert np.array_equal(_run_convert(src, dst, data), encode(f32, dst))


def test_convert_between_storage_types_and_like() -> None:
    codes = encode(np.array([1.0, -2.0, 0.5, 448.0], np.float32), Type.f8e4m3)
    assert _run_convert(Type.f8e4m3, Type.i4, codes).tolist() == [1, -2, 0, 0]  # 448 wraps to 0 in 4 bits
    assert decode(_run_convert(Type.f8e4m3, Type.f8e5m2, codes), Type.f8e5m2).tolist() == [1.0, -2.0, 0.5, 448.0]
    assert _run_convert(Type.nf4, Type.boolean, np.array([0, 7, 15], np.uint8)).tolist() == [True, False, True]
    x = ops.constant(np.array([1.0, 6.5, 1000.0], np.float32))
    like = ops.constant(np.zeros(1, np.uint8), Type.f4e2m1)
    out = evaluate(Model([ops.convert_like(x, like)], [], "cl"), [])[0]
    assert decode(out, Type.f4e2m1).tolist() == [1.0, 6.0, 6.0]


def test_convert_string_to_number_is_refused() -> None:
    model = Model([ops.convert(ops.constant(np.array(["1"])), Type.f32)], [], "s")
    with pytest.raises(Exception, match="no conversion between string and f32"):
        evaluate(model, [])


@pytest.mark.parametrize("et", [Type.u4, Type.i4, Type.f8e4m3, Type.nf4, Type.string], ids=str)
def test_movement_ops_move_held_items(et: Type) -> None:
    """Ops that only move elements (the spec's "any type T") work on the holding arrays as they are."""
    data = (np.array([["a", "b", "c"], ["d", "e", ""]], dtype=object) if et == Type.string
            else _every_value(et, 6).reshape(2, 3))
    c = ops.constant(data, et)
    i64 = Type.i64
    outs = [ops.reshape(c, ops.constant(np.array([3, 2]), i64), False),
            ops.transpose(c, ops.constant(np.array([1, 0]), i64)),
            ops.concat([c, c], 0),
            ops.gather(c, ops.constant(np.array([2, 0]), i64), ops.constant(np.array(1), i64))]
    got = evaluate(Model(outs, [], "moves"), [])
    want = [data.reshape(3, 2), data.T, np.concatenate([data, data]), data[:, [2, 0]]]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == et.to_dtype() and g.tolist() == w.tolist()
