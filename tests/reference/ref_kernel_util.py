"""Helpers for the REFERENCE kernel tests: build a one-op model over Parameters and run it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ovconform import opset as ops
from ovconform.ir import Model, Node, Type, as_type, bf16_to_f32, f32_to_bf16
from reference_plugin.evaluate import evaluate


def run_device(model: Model, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``model`` run as the REFERENCE device runs it (its program: the formulas with their fast
    routes, one thread, no chains), for tests of the routes themselves."""
    from reference_plugin.compiled_model import Program

    with np.errstate(all="ignore"):
        return Program(model, Type.f32, chains=False).run(list(inputs), {})[0]


def bf16(values: Any) -> np.ndarray:
    """float values → bf16 bits (uint16)."""
    return f32_to_bf16(np.asarray(values, dtype=np.float32))


def from_bf16(bits: np.ndarray) -> np.ndarray:
    return bf16_to_f32(bits)


def run_op(make: Callable[..., Node], *arrays: np.ndarray, types: Sequence[Any] | None = None,
           shapes: Sequence[Any] | None = None) -> list[np.ndarray]:
    """Parameters for ``arrays`` (types default to their dtypes, shapes to theirs), one node made
    by ``make(*params)``, every output of it a result; returns the evaluated outputs."""
    params = []
    for i, arr in enumerate(arrays):
        t = as_type(types[i]) if types is not None and types[i] is not None else as_type(arr.dtype)
        shape = shapes[i] if shapes is not None and shapes[i] is not None else list(arr.shape)
        params.append(ops.parameter(shape, t, name=f"in{i}"))
    node = make(*params)
    model = Model([node.output(i) for i in range(node.get_output_size())], params)
    return evaluate(model, list(arrays))


def run1(make: Callable[..., Node], *arrays: np.ndarray, **kw: Any) -> np.ndarray:
    """The single output of :func:`run_op`."""
    outs = run_op(make, *arrays, **kw)
    assert len(outs) == 1
    return outs[0]


def typed(values: Any, t: Type | str) -> np.ndarray:
    """``values`` stored as element type ``t`` (bf16 as uint16 bits)."""
    t = as_type(t)
    if t.name == "bf16":
        return bf16(values)
    return np.asarray(values).astype(t.to_dtype())


def untyped(arr: np.ndarray, t: Type | str) -> np.ndarray:
    """Stored values of type ``t`` as float64 (bf16 decoded) for comparison."""
    t = as_type(t)
    if t.name == "bf16":
        return from_bf16(arr).astype(np.float64)
    return arr.astype(np.float64)


NUMERIC_TYPES = ["f32", "f16", "f64", "bf16", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOAT_TYPES = ["f32", "f16", "f64", "bf16"]
INT_TYPES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]


def const(values: Any, dtype: Any = np.int64) -> Node:
    """A Constant built with make_node directly, so 0-d values stay 0-d."""
    from ovconform.ir import make_node

    arr = np.array(values, dtype=dtype)
    arr.setflags(write=False)
    return make_node("Constant", 1, [], {"element_type": as_type(arr.dtype), "shape": list(arr.shape)}, data=arr)
