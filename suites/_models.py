"""The small models the API suites compile, each with a numpy oracle.

Names follow OpenVINO's test subgraph builders (``make_conv_pool_relu``, ``make_split_conv_concat``,
``make_kso_function``, ...), shrunk so that a compile plus an inference takes milliseconds.
Every input has a tensor name, and every case knows how to make inputs and what the outputs are,
so a suite can check numbers, not just "no exception".

:data:`CASES` maps a case name to a :class:`ModelCase`; :func:`build` and :func:`expected` are
the usual entry points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ovconform import opset as ops
from ovconform.errors import UnsupportedOpError
from ovconform.ir import Model, Node, OpDef, PartialShape, Type, as_type, get_opdef, make_node

__all__ = [
    "CASES", "ELEMENT_TYPES", "MANDATORY_API_OPS", "OPAQUE_OP", "PARTLY_SUPPORTED", "PARTLY_UNSUPPORTED",
    "STATE_VARIABLES", "ModelCase", "build", "chain_models", "concat_with_params", "const_result", "conv2d",
    "dynamic_model", "dynamic_oracle", "expected", "failing_model", "iteration_model", "long_run_inputs",
    "long_run_model", "long_run_oracle", "make_inputs", "maxpool2d", "param_result", "partly_supported_model",
    "random_array", "relu_concat", "single_split", "slow_model", "slow_oracle", "split_concat", "state_model",
    "two_results",
]

F32 = Type.f32
#: The element types OpenVINO's API conformance sweeps (bf16 is optional there).
ELEMENT_TYPES = ("boolean", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")


def _named(node: Node, name: str, tensor: str | None = None) -> Node:
    node.set_friendly_name(name)
    if tensor is not None:
        node.output(0).set_names({tensor})
    return node


def _param(shape: Any, dtype: Any, name: str) -> Node:
    return _named(ops.parameter(shape, dtype, name=name), name, name)


# -- numpy oracles ---------------------------------------------------------------------------------
def conv2d(x: np.ndarray, w: np.ndarray, pad: int = 0) -> np.ndarray:
    """NCHW convolution, stride 1, symmetric zero padding ``pad``."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # N C H W kh kw
    return np.einsum("nchwij,ocij->nohw", win, w, optimize=True).astype(x.dtype)


def maxpool2d(x: np.ndarray, k: int) -> np.ndarray:
    """NCHW max pooling with kernel and stride ``k`` (floor rounding)."""
    n, c, h, w = x.shape
    h2, w2 = h // k, w // k
    return x[:, :, :h2 * k, :w2 * k].reshape(n, c, h2, k, w2, k).max(axis=(3, 5))


def _weights(shape: Sequence[int], seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 0.5).astype(np.float32)


# -- model builders ---------------------------------------------------------------------------------
def _relu(dtype: Any = F32, shape: Sequence[int] = (1, 3, 4, 4)) -> Model:
    x = _param(list(shape), dtype, "data")
    return Model([_named(ops.relu(x), "relu_op", "relu")], [x], "SimpleFunctionRelu")


def _multiply(dtype: Any = F32) -> Model:
    x = _param([1, 3, 4, 4], dtype, "data")
    two = ops.constant(np.full((1,), 2, as_type(dtype).to_dtype()), name="two")
    return Model([_named(ops.multiply(x, two), "mul_op", "mul")], [x], "SimpleFunctionMultiply")


def _subtract(dtype: Any = F32) -> Model:
    a, b = _param([1, 3, 4, 4], dtype, "data1"), _param([1, 3, 4, 4], dtype, "data2")
    return Model([_named(ops.subtract(a, b), "sub_op", "sub")], [a, b], "2InputSubtract")


def _conv(x: Any, w: np.ndarray, pad: int, name: str) -> Node:
    return _named(ops.convolution(x, ops.constant(w, name=f"{name}_w"), [1, 1], [pad, pad], [pad, pad], [1, 1]),
                  name)


def _conv_pool_relu(dtype: Any = F32) -> Model:
    x = _param([1, 3, 8, 8], dtype, "data")
    conv = _conv(x, _weights((4, 3, 3, 3), 1), 1, "conv")
    pool = _named(ops.max_pool(conv, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], version=1), "pool")
    return Model([_named(ops.relu(pool), "relu_op", "relu")], [x], "ConvPoolRelu")


def _split_conv_concat(dtype: Any = F32) -> Model:
    x = _param([1, 4, 6, 6], dtype, "data")
    split = _named(ops.split(x, ops.constant(np.int64(1), name="split_axis"), 2), "split")
    branches = [_named(ops.relu(_conv(split.output(i), _weights((2, 2, 3, 3), 10 + i), 1, f"conv{i}")), f"relu{i}")
                for i in range(2)]
    return Model([_named(ops.concat(branches, 1), "concat", "concat")], [x], "SplitConvConcat")


def _kso(dtype: Any = F32) -> Model:
    x = _param([1, 4, 6, 6], dtype, "data")
    shape = ops.convert(_named(ops.shape_of(x), "shape_of"), dtype, name="convert")
    reshape = _named(ops.reshape(shape, ops.constant(np.array([1, 4, 1, 1], np.int64), name="new_shape"), False),
                     "reshape")
    relu = _named(ops.relu(_conv(x, _weights((4, 4, 3, 3), 2), 0, "conv")), "relu")
    return Model([_named(ops.add(relu, reshape), "add", "add")], [x], "KSOFunction")


def _matmul_bias(dtype: Any = F32) -> Model:
    x = _param([2, 8], dtype, "data")
    mm = _named(ops.matmul(x, ops.constant(_weights((8, 4), 3), name="weights"), False, False), "matmul")
    bias = ops.constant(_weights((4,), 4), name="bias")
    return Model([_named(ops.add(mm, bias), "bias_add", "out")], [x], "MatMulBias")


def _shapeof_matmul(dtype: Any = F32) -> Model:
    """ShapeOf -> Gather -> Concat -> Reshape -> MatMul (QueryModelWithMatMul's graph)."""
    x = _param([2, 3], dtype, "data")
    shape = _named(ops.shape_of(x), "shape_of")
    first = _named(ops.gather(shape, ops.constant(np.array([0], np.int64), name="idx"),
                              ops.constant(np.int64(0), name="gather_axis")), "gather")
    target = _named(ops.concat([first, ops.constant(np.array([3], np.int64), name="three")], 0), "concat")
    reshaped = _named(ops.reshape(x, target, False), "reshape")
    mm = ops.matmul(reshaped, ops.constant(_weights((3, 4), 5), name="weights"), False, False)
    return Model([_named(mm, "matmul", "out")], [x], "ShapeOfMatMul")


def _read_concat_split_assign(dtype: Any = F32) -> Model:
    x = _param([1, 2], dtype, "data")
    init = ops.constant(np.zeros((1, 2), as_type(dtype).to_dtype()), name="init")
    rv = _named(ops.read_value(init, "v0", dtype, [1, 2]), "read_value")
    concat = _named(ops.concat([rv, x], 1), "concat", "concat")
    split = _named(ops.split(concat, ops.constant(np.int64(1), name="axis"), 2), "split")
    assign = _named(ops.assign(split.output(1), "v0"), "assign")
    return Model([concat], [assign], [x], "ReadConcatSplitAssign")


@dataclass(frozen=True)
class ModelCase:
    """A model builder (taking an element type) and its oracle."""

    name: str
    build: Callable[..., Model]
    oracle: Callable[[dict[str, np.ndarray]], list[np.ndarray]]


def _o_relu(v: dict[str, np.ndarray]) -> list[np.ndarray]:
    x = v["data"]
    return [np.maximum(x, np.zeros((), x.dtype))]


def _o_conv_pool_relu(v: dict[str, np.ndarray]) -> list[np.ndarray]:
    return [np.maximum(maxpool2d(conv2d(v["data"], _weights((4, 3, 3, 3), 1), 1), 2), 0)]


def _o_split_conv_concat(v: dict[str, np.ndarray]) -> list[np.ndarray]:
    halves = np.split(v["data"], 2, axis=1)
    return [np.concatenate([np.maximum(conv2d(h, _weights((2, 2, 3, 3), 10 + i), 1), 0)
                            for i, h in enumerate(halves)], axis=1)]


def _o_kso(v: dict[str, np.ndarray]) -> list[np.ndarray]:
    x = v["data"]
    shape = np.array(x.shape, x.dtype).reshape(1, 4, 1, 1)
    return [np.maximum(conv2d(x, _weights((4, 4, 3, 3), 2)), 0) + shape]


CASES: dict[str, ModelCase] = {c.name: c for c in [
    ModelCase("relu", _relu, _o_relu),
    ModelCase("multiply", _multiply, lambda v: [v["data"] * v["data"].dtype.type(2)]),
    ModelCase("subtract", _subtract, lambda v: [v["data1"] - v["data2"]]),
    ModelCase("conv_pool_relu", _conv_pool_relu, _o_conv_pool_relu),
    ModelCase("split_conv_concat", _split_conv_concat, _o_split_conv_concat),
    ModelCase("kso", _kso, _o_kso),
    ModelCase("matmul_bias", _matmul_bias, lambda v: [v["data"] @ _weights((8, 4), 3) + _weights((4,), 4)]),
    ModelCase("shapeof_matmul", _shapeof_matmul, lambda v: [v["data"] @ _weights((3, 4), 5)]),
    ModelCase("read_concat_split_assign", _read_concat_split_assign,
              lambda v: [np.concatenate([np.zeros_like(v["data"]), v["data"]], axis=1)]),
]}


def build(name: str, dtype: Any = F32) -> Model:
    return CASES[name].build(dtype)


def make_inputs(model: Model, seed: int = 0, shapes: dict[str, Sequence[int]] | None = None) -> dict[str, np.ndarray]:
    """Random inputs for ``model`` keyed by input tensor name (dynamic dims from ``shapes``)."""
    rng = np.random.default_rng(seed)
    out = {}
    for port in model.inputs:
        name = port.get_any_name()
        shape = tuple((shapes or {}).get(name) or port.get_partial_shape().to_shape())
        out[name] = random_array(rng, port.get_element_type(), shape)
    return out


def random_array(rng: np.random.Generator, element_type: Type, shape: Sequence[int]) -> np.ndarray:
    dtype = element_type.to_dtype()
    if element_type == Type.boolean:
        return rng.integers(0, 2, shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        hi = 20 if np.issubdtype(dtype, np.unsignedinteger) else 10
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -10
        return rng.integers(lo, hi, shape).astype(dtype)
    if element_type == Type.bf16:
        from ovconform.ir import f32_to_bf16

        return f32_to_bf16(rng.standard_normal(shape).astype(np.float32))
    return rng.standard_normal(shape).astype(dtype)


def expected(name: str, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    return CASES[name].oracle(inputs)


# -- element-type sweeps (OVInferRequestCheckTensorPrecision, import/export) ------------------------
def split_concat(dtype: Any) -> Model:
    """One input, one output: data -> Split(2, axis 1) -> Concat (make_split_concat)."""
    x = _param([1, 4, 2, 2], dtype, "data")
    split = _named(ops.split(x, ops.constant(np.int64(1), name="axis"), 2), "split")
    return Model([_named(ops.concat([split.output(1), split.output(0)], 1), "concat", "concat")], [x], "SplitConcat")


def concat_with_params(dtype: Any) -> Model:
    """Two inputs, one output (make_concat_with_params)."""
    a, b = _param([1, 2, 2, 2], dtype, "data1"), _param([1, 2, 2, 2], dtype, "data2")
    return Model([_named(ops.concat([a, b], 1), "concat", "concat")], [a, b], "ConcatWithParams")


def single_split(dtype: Any) -> Model:
    """One input, two outputs from one Split (make_single_split)."""
    x = _param([1, 4, 2, 2], dtype, "data")
    split = _named(ops.split(x, ops.constant(np.int64(1), name="axis"), 2), "split")
    split.output(0).set_names({"out0"})
    split.output(1).set_names({"out1"})
    return Model([split.output(0), split.output(1)], [x], "SingleSplit")


def two_results(dtype: Any) -> Model:
    """Two inputs, two outputs (concat of both, and the second input passed through a concat)."""
    a, b = _param([1, 2, 2, 2], dtype, "data1"), _param([1, 2, 2, 2], dtype, "data2")
    both = _named(ops.concat([a, b], 1), "concat", "concat")
    twice = _named(ops.concat([b, b], 1), "concat_b", "concat_b")
    return Model([both, twice], [a, b], "TwoResults")


def relu_concat(dtype: Any) -> Model:
    """OVCompiledGraphImportExportTest's model: data1 -> Relu -> result1; Concat(relu, data2) -> result2."""
    a, b = _param([1, 3, 4, 4], dtype, "data1"), _param([1, 3, 4, 4], dtype, "data2")
    a.set_friendly_name("param1")
    b.set_friendly_name("param2")
    relu = _named(ops.relu(a), "relu_op", "relu")
    concat = _named(ops.concat([relu, b], 1), "concat_op", "concat")
    return Model([ops.result(relu, name="result1"), ops.result(concat, name="result2")], [a, b], "SingleReLU")


def param_result(dtype: Any) -> Model:
    x = _param([1, 3, 4, 4], dtype, "data")
    return Model([ops.result(x, name="result")], [x], "ParamResult")


def const_result(dtype: Any) -> Model:
    value = random_array(np.random.default_rng(7), as_type(dtype), (2, 3))
    const = _named(ops.constant(value, as_type(dtype), name="const"), "const", "const")
    return Model([ops.result(const, name="result")], [], "ConstResult")


# -- dynamic shapes -----------------------------------------------------------------------------------
def dynamic_model(kind: str, shape: Any) -> Model:
    """A model with input ``shape`` (partial): ``"add_two_output_edges"`` (relu -> result and relu + 1
    -> result) or ``"split_add_concat"`` (split in two along axis 1, add, concat with the first half)."""
    x = _param(PartialShape(shape), F32, "data")
    if kind == "add_two_output_edges":
        relu = _named(ops.relu(x), "relu", "relu")
        add = _named(ops.add(relu, ops.constant(np.float32(1), name="one")), "add", "add")
        return Model([relu, add], [x], "AddTwoOutputEdges")
    split = _named(ops.split(x, ops.constant(np.int64(1), name="axis"), 2), "split")
    add = _named(ops.add(split.output(0), split.output(1)), "add")
    return Model([_named(ops.concat([add, split.output(0)], 1), "concat", "concat")], [x], "SplitAddConcat")


def dynamic_oracle(kind: str, x: np.ndarray) -> list[np.ndarray]:
    if kind == "add_two_output_edges":
        relu = np.maximum(x, np.float32(0))
        return [relu, relu + np.float32(1)]
    a, b = np.split(x, 2, axis=1)
    return [np.concatenate([a + b, a], axis=1)]


def iteration_model() -> Model:
    """[-1, 16] -> Concat(data, ones[1, 16]) -> [n + 1, 16] (OVIterationChaining)."""
    x = _param(PartialShape([-1, 16]), F32, "data")
    ones = ops.constant(np.ones((1, 16), np.float32), name="ones")
    return Model([_named(ops.concat([x, ones], 0), "concat", "out")], [x], "IterationChaining")


def chain_models(dynamic: bool = False) -> tuple[Model, Model]:
    """OVInferenceChaining's pair: ``input_tensor_0 + _1 + _2`` then ``input_tensor_0 * _1`` ([3] f32)."""
    shape = PartialShape([-1]) if dynamic else PartialShape([3])
    p = [_param(shape, F32, f"input_tensor_{i}") for i in range(3)]
    s = _named(ops.add(_named(ops.add(p[0], p[1]), "add0"), p[2]), "add1", "result_tensor_0")
    q = [_param(shape, F32, f"input_tensor_{i}") for i in range(2)]
    m = _named(ops.multiply(q[0], q[1]), "mul", "result_tensor_0")
    return Model([s], p, "ChainFirst"), Model([m], q, "ChainSecond")


# -- state ------------------------------------------------------------------------------------------
STATE_VARIABLES = ("c_1-3", "r_1-3")


def state_model(initial: float = 0.0) -> Model:
    """Two variables ``c_1-3`` and ``r_1-3`` ([1, 2] f32, zero-initialised): each becomes
    ``state + data``; the output is ``sigmoid(c' + r')`` (OVInferRequestVariableStateTest).
    With ``initial`` the ReadValue initializers are that value instead of zeros (so that going back
    to the initializer differs from writing zeros)."""
    x = _param([1, 2], F32, "data")
    sinks, new = [], []
    for var in STATE_VARIABLES:
        init = ops.constant(np.full((1, 2), initial, np.float32), name=f"{var}_init")
        rv = _named(ops.read_value(init, var, F32, [1, 2]), f"read_{var}")
        updated = _named(ops.add(rv, x), f"update_{var}")
        sinks.append(_named(ops.assign(updated, var), f"assign_{var}"))
        new.append(updated)
    out = _named(ops.sigmoid(_named(ops.add(new[0], new[1]), "sum")), "sigmoid", "out")
    return Model([out], sinks, [x], "VariableState")


# -- a slow model (cancellation, busy) -----------------------------------------------------------
def slow_model(depth: int = 100, size: int = 1024) -> Model:
    """``depth`` Add(+0.5) / Multiply(*0.5) pairs on a [size, size] f32 input: a memory-bound run of
    tens of milliseconds (plain numpy, no BLAS threads), long enough to be busy or
    cancelled while it runs. The oracle is :func:`slow_oracle`."""
    x = _param([size, size], F32, "data")
    half = ops.constant(np.float32(0.5), name="half")
    node: Any = x
    for i in range(depth):
        node = ops.multiply(ops.add(node, half, name=f"add{i}"), half, name=f"mul{i}")
    return Model([_named(node, f"mul{depth - 1}", "out")], [x], "SlowChain")


def slow_oracle(x: np.ndarray, depth: int = 100) -> np.ndarray:
    out = x.astype(np.float32)
    for _ in range(depth):
        out = (out + np.float32(0.5)) * np.float32(0.5)
    return out


# -- a long, input-dependent run (cancel mid-run, busy requests, requests that really overlap) ----
#: Add/Multiply pairs of :func:`long_run_model`: a run of 10-20 ms on REFERENCE (two cores).
LONG_RUN_DEPTH = 160
LONG_RUN_SHAPE = (1024, 1024)


def long_run_model(depth: int = LONG_RUN_DEPTH, shape: Sequence[int] = LONG_RUN_SHAPE) -> Model:
    """``depth`` pairs of Add(+0.5) and Multiply(-1) on an f32 input, then Multiply(2).

    Each pair gives its input back up to rounding (``-(-(x + 0.5) + 0.5) = x``), so the output is
    about twice the input: unlike :func:`slow_model`, whose output converges to 0.5 for any input,
    a run with other inputs gives other outputs, so a stale or mixed-up output is seen. The work
    is memory-bound elementwise numpy (no BLAS), long enough for a cancel or a second call to
    land while the device computes, and for requests run from several threads to overlap. The
    oracle is :func:`long_run_oracle`."""
    x = _param(list(shape), F32, "data")
    half = ops.constant(np.float32(0.5), name="half")
    minus_one = ops.constant(np.float32(-1), name="minus_one")
    node: Any = x
    for i in range(depth):
        node = ops.multiply(ops.add(node, half, name=f"add{i}"), minus_one, name=f"neg{i}")
    out = ops.multiply(node, ops.constant(np.float32(2), name="two"), name="double")
    return Model([_named(out, "double", "out")], [x], "LongRun")


def long_run_oracle(x: np.ndarray, depth: int = LONG_RUN_DEPTH) -> np.ndarray:
    """The output of :func:`long_run_model` for input ``x``, op by op in float32."""
    out = np.array(x, dtype=np.float32)
    half, minus_one = np.float32(0.5), np.float32(-1)
    for _ in range(depth):
        np.add(out, half, out=out)
        np.multiply(out, minus_one, out=out)
    return out * np.float32(2)


def long_run_inputs(seed: int, shape: Sequence[int] = LONG_RUN_SHAPE) -> dict[str, np.ndarray]:
    """Inputs of :func:`long_run_model`: a different array for each ``seed``."""
    return {"data": np.random.default_rng(1000 + seed).standard_normal(tuple(shape)).astype(np.float32)}


# -- a run that fails inside the device ------------------------------------------------------------
def failing_model() -> Model:
    """Reshape of a [6] f32 input ``data`` to the shape given by the i64 [2] input ``shape``.

    With ``shape`` [2, 3] (or [3, 2]) the run works; with a shape whose product is not 6 (say
    [4, 4]) no device can compute it: the run fails inside the device (not in set_tensor, whose
    checks only look at the ports), which is how the suites make a run fail on every device."""
    data = _param([6], F32, "data")
    shape = _param([2], Type.i64, "shape")
    return Model([_named(ops.reshape(data, shape, False), "reshape", "out")], [data, shape], "FailingReshape")


# -- what a device author meets first ------------------------------------------------------------------
#: The op types (opset builder names) the mandatory API suites' fixed models use: a device that
#: compiles these runs the mandatory scope (README, "What the mandatory API suite needs").
MANDATORY_API_OPS = (
    "Add", "Assign", "Concat", "Constant", "Convert", "Convolution", "Gather", "MatMul", "MaxPool", "Multiply",
    "Parameter", "ReadValue", "Relu", "Reshape", "Result", "ShapeOf", "Sigmoid", "Split", "Subtract",
)


# -- a partly supported model (query_model's housekeeping rules) --------------------------------------
#: An op type the suites define and no device implements (``opset1``-style, two inputs, passes the
#: first input's type and shape through). Registered on first use only.
OPAQUE_OP = "OvconformOpaque"
#: What query_model must answer for :func:`partly_supported_model` (seeds 001/002): the supported ops
#: (the two Relus, which a device may fuse, and the Multiply), the Parameter and Constant feeding
#: them, and the Result of the Multiply; not the opaque op, not its Constant argument (all its
#: consumers are unsupported) and not the Result of the opaque op.
PARTLY_SUPPORTED = ("data", "relu1", "relu2", "mul", "scale", "out")
PARTLY_UNSUPPORTED = ("opaque", "opaque_arg", "opaque_out")


def _opaque_infer(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


def _opaque_opdef() -> OpDef:
    try:
        return get_opdef(OPAQUE_OP, 1)
    except UnsupportedOpError:
        from ovconform.ir._opdef import register_opdef

        return register_opdef(OpDef(OPAQUE_OP, 1, 2, 2, (), _opaque_infer, doc="defined by the suites only"))


def partly_supported_model() -> Model:
    """data -> Relu (relu1) -> Relu (relu2) -> OvconformOpaque (opaque, with Constant opaque_arg)
    -> Multiply by Constant scale (mul) -> Result out; and Result opaque_out of the opaque op.

    No device implements the opaque op, so every device supports the model only in part:
    :data:`PARTLY_SUPPORTED` is the answer the seeds' query_model rules give."""
    _opaque_opdef()
    x = _param([1, 2, 3], F32, "data")
    relu1 = _named(ops.relu(x), "relu1")
    relu2 = _named(ops.relu(relu1), "relu2")
    arg = ops.constant(np.ones((1, 2, 3), np.float32), name="opaque_arg")
    opaque = make_node(OPAQUE_OP, 1, [relu2.output(0), arg.output(0)], {}, "opaque")
    mul = _named(ops.multiply(opaque, ops.constant(np.float32(2), name="scale")), "mul")
    return Model([ops.result(mul, name="out"), ops.result(opaque, name="opaque_out")], [x], "PartlySupported")
