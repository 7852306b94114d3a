"""Core REFERENCE kernels (Parameter, Constant, Result, Convert, ConvertLike), the kernel registry
and the OpRun contract (arity and dtype checks, errors naming the node)."""

from __future__ import annotations

import numpy as np
import pytest
from ref_kernel_util import NUMERIC_TYPES, bf16, from_bf16, run1, typed, untyped

from ovconform import opset as ops
from ovconform.errors import CompileError, InferError, UnsupportedOpError
from ovconform.ir import Type, make_node
from reference_plugin.ops import OpRun, load_op, make_kernel, registered_ops

# -- Convert ---------------------------------------------------------------------------------------------

def conv(dst: str):  # noqa: ANN202
    return lambda p: ops.convert(p, dst)


def test_convert_float_to_int_truncates_toward_zero() -> None:
    x = np.array([-2.7, -1.5, -0.5, 0.5, 1.5, 2.7], np.float32)
    for dst in ("i8", "i16", "i32", "i64", "u8"):
        out = run1(conv(dst), np.abs(x) if dst == "u8" else x)
        assert out.dtype == getattr(Type, dst).to_dtype()
        assert out.tolist() == ([2, 1, 0, 0, 1, 2] if dst == "u8" else [-2, -1, 0, 0, 1, 2])


@pytest.mark.parametrize(("dst", "expected"), [
    ("u8", [44, 255, 212, 0, 255, 0]),  # 300.7 → 300 → 44; -1.5 → -1 → 255; NaN → 0
    ("i8", [44, -1, -44, 0, -1, 0]),
    ("u16", [300, 65535, 65236, 0, 255, 0]),
])
def test_convert_out_of_range_wraps_after_truncation(dst: str, expected: list[int]) -> None:
    x = np.array([300.7, -1.5, -300.2, np.nan, 255.9, 0.0], np.float32)
    assert run1(conv(dst), x).tolist() == expected


def test_convert_int_to_int_wraps_and_u64_range() -> None:
    assert run1(conv("u8"), np.array([-1, 256, 257], np.int32)).tolist() == [255, 0, 1]
    assert run1(conv("u32"), np.array([-1], np.int64)).tolist() == [2**32 - 1]
    assert run1(conv("i8"), np.array([200], np.uint8)).tolist() == [-56]
    assert run1(conv("u64"), np.array([2.0**63 + 2048, -1.0], np.float64)).tolist() == [2**63 + 2048, 2**64 - 1]
    assert run1(conv("i64"), np.array([1e30, -1e30], np.float64)).tolist() == [2**63 - 1024, -2**63]


def test_convert_to_and_from_boolean() -> None:
    out = run1(conv("boolean"), np.array([0.0, -0.0, 0.1, -3, np.nan], np.float32))
    assert out.dtype == np.bool_ and out.tolist() == [False, False, True, True, True]
    assert run1(conv("boolean"), np.array([0, 7], np.uint8)).tolist() == [False, True]
    assert run1(conv("f32"), np.array([True, False])).tolist() == [1.0, 0.0]
    assert run1(conv("i32"), np.array([True, False])).tolist() == [1, 0]


def test_convert_low_precision_floats() -> None:
    out = run1(conv("bf16"), np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, 3.4e38], np.float32))
    assert out.dtype == np.uint16
    assert from_bf16(out).tolist()[:3] == [1.0, 1.0, 1.015625]  # ties to even
    assert np.isinf(from_bf16(out)[3])  # beyond the bf16 range
    out = run1(conv("f16"), np.array([70000, 1.5, -1e-8], np.float32))
    assert out.dtype == np.float16 and np.isinf(out[0]) and out[1] == 1.5 and out[2] == 0
    out = run1(conv("f32"), bf16([1.5, -2.25]), types=["bf16"])
    assert out.tolist() == [1.5, -2.25]
    out = run1(conv("i32"), bf16([-2.5, 7.75]), types=["bf16"])
    assert out.tolist() == [-2, 7]


@pytest.mark.parametrize("src", NUMERIC_TYPES)
@pytest.mark.parametrize("dst", NUMERIC_TYPES)
def test_convert_small_values_every_type_pair(src: str, dst: str) -> None:
    out = run1(conv(dst), typed([0, 1, 2, 100], src), types=[src])
    assert out.dtype == (np.dtype(np.uint16) if dst == "bf16" else typed([0], dst).dtype)
    assert untyped(out, dst).tolist() == [0, 1, 2, 100]


def test_convert_like() -> None:
    out = run1(ops.convert_like, np.array([1.9, -1.9], np.float32), np.zeros(3, np.int16))
    assert out.dtype == np.int16 and out.tolist() == [1, -1]
    out = run1(ops.convert_like, np.array([1, 2], np.int32), bf16([0]), types=[None, "bf16"])
    assert out.dtype == np.uint16 and from_bf16(out).tolist() == [1, 2]


# -- Parameter, Constant, Result ---------------------------------------------------------------------------

def test_constant_and_result_copy() -> None:
    data = np.array([[1, 2]], np.int64)
    c = ops.constant(data)
    out = make_kernel(make_node("Result", 1, [c.output(0)])).run([c.data])
    assert out[0].tolist() == [[1, 2]] and out[0].flags.writeable
    assert not np.shares_memory(out[0], c.data)
    assert make_kernel(c).run([])[0] is c.data


def test_parameter_bind_checks_type_and_shape() -> None:
    p = ops.parameter([-1, 3], "f32", name="x")
    k = make_kernel(p)
    assert k.bind([[1, 2, 3]]).dtype == np.float32  # lists convert to the declared type
    with pytest.raises(InferError, match=r"Parameter-1 node 'x': input has dtype float64; .*f32"):
        k.bind(np.zeros((1, 3)))
    with pytest.raises(InferError, match=r"Parameter-1 node 'x': input has shape \[2, 4\]"):
        k.bind(np.zeros((2, 4), np.float32))
    with pytest.raises(InferError, match="binds one"):
        k.run([])


# -- registry -------------------------------------------------------------------------------------------------

def test_load_op_picks_highest_version_not_above() -> None:
    assert load_op("Gather", 8).since == 8
    assert load_op("Gather", 10).since == 8
    assert load_op("Gather", 7).since == 7
    assert load_op("MaxPool", 13).since == 8
    assert load_op("ReLU", 1).op_type == "Relu"  # IR spelling
    assert load_op("SoftMax", 8).since == 8


def test_load_op_errors_list_what_exists() -> None:
    with pytest.raises(UnsupportedOpError, match=r"no kernel for op type 'NoSuchOp'.*Abs, Acos.*Add,"):
        load_op("NoSuchOp", 1)
    with pytest.raises(UnsupportedOpError, match=r"Gelu-1.*\[2, 7\]"):
        load_op("Gelu", 1)


def test_every_tier1_op_version_has_a_kernel() -> None:
    expected = {
        "Parameter": [1], "Constant": [1], "Result": [1], "Convert": [1], "ConvertLike": [1], "Select": [1],
        "Gelu": [2, 7], "Clamp": [1], "Softmax": [1, 8], "MatMul": [1], "Convolution": [1],
        "GroupConvolution": [1], "MaxPool": [1, 8, 14], "AvgPool": [1, 14, 16], "ReduceSum": [1],
        "ReduceMean": [1], "ReduceMax": [1], "Reshape": [1], "Transpose": [1], "Squeeze": [1, 15],
        "Unsqueeze": [1], "Concat": [1], "Split": [1], "VariadicSplit": [1], "Gather": [1, 7, 8],
        "Broadcast": [1, 3], "ShapeOf": [1, 3], "StridedSlice": [1], "ReadValue": [3, 6], "Assign": [3, 6],
    }
    binary = ["Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum", "SquaredDifference",
              "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
              "LogicalAnd", "LogicalOr", "LogicalNot", "LogicalXor", "Abs", "Negative", "Exp", "Log", "Sqrt",
              "Relu", "Sigmoid", "Tanh", "Erf"]
    expected.update({t: [1] for t in binary})
    have = registered_ops()
    assert {t: have.get(t) for t in expected} == expected
    from ovconform.ir import all_opdefs
    missing = [f"{d.type_name}-{d.version}" for d in all_opdefs() if d.type_name not in have]
    assert not missing, f"op definitions without a REFERENCE kernel: {missing}"


def test_kernel_classes_are_oprun_subclasses() -> None:
    for op_type, versions in registered_ops().items():
        for v in versions:
            cls = load_op(op_type, v)
            assert issubclass(cls, OpRun) and cls.op_type == op_type and cls.since == v


# -- the OpRun contract ------------------------------------------------------------------------------------------

def test_wrong_input_count_names_the_node() -> None:
    a = ops.parameter([2], "f32", name="a")
    node = ops.add(a, a, name="my_add")
    k = make_kernel(node)
    with pytest.raises(InferError, match=r"Add-1 node 'my_add': got 1 input\(s\); expected 2"):
        k.run([np.zeros(2, np.float32)])
    with pytest.raises(InferError, match=r"Add-1 node 'my_add': got 3 input"):
        k.run([np.zeros(2, np.float32)] * 3)


def test_wrong_input_dtype_names_the_node() -> None:
    a = ops.parameter([2], "i32", name="a")
    k = make_kernel(ops.relu(a, name="r"))
    with pytest.raises(InferError, match=r"Relu-1 node 'r': input 0 has dtype float32; expected int32"):
        k.run([np.zeros(2, np.float32)])
    with pytest.raises(InferError, match=r"Relu-1 node 'r': input 0 is list"):
        k.run([[1, 2]])  # type: ignore[list-item]


def test_kernel_failure_is_wrapped_with_the_node_name() -> None:
    a = ops.parameter([-1], "f32", name="a")
    node = ops.reshape(a, ops.parameter([1], "i64", name="s"), False, name="rs")
    k = make_kernel(node)
    with pytest.raises(InferError, match=r"Reshape-1 node 'rs': .*cannot reshape") as info:
        k.run([np.zeros(3, np.float32), np.array([4])])
    assert "Reshape-1 node 'rs'" in str(info.value)


def test_unexpected_exception_is_wrapped() -> None:
    a = ops.parameter([2], "f32", name="a")
    k = make_kernel(ops.exp(a, name="e"))

    def boom(x: np.ndarray) -> np.ndarray:
        raise ZeroDivisionError("inner")

    k.compute = boom  # type: ignore[method-assign]
    with pytest.raises(InferError, match=r"Exp-1 node 'e': ZeroDivisionError: inner"):
        k.run([np.zeros(2, np.float32)])


def test_bad_attribute_at_construction_is_a_compile_error() -> None:
    b = ops.parameter([4], "i32", name="b")
    inode = ops.clamp(b, 0.0, 1.0, name="ci")
    inode.attrs["min"] = float("nan")
    with pytest.raises(CompileError, match=r"Clamp-1 node 'ci': .*NaN"):
        make_kernel(inode)
