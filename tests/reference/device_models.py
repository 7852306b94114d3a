"""Small models and helpers shared by the REFERENCE device tests (test_device_*.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ovconform import opset as ops
from ovconform.errors import UnsupportedOpError
from ovconform.ir import Model, Node, Type


@pytest.fixture(autouse=True)
def collect_garbage_after_each_test() -> Iterator[None]:
    """Free each test's garbage at a safe point (imported by every test_device_* module).

    Works around a deadlock in the base classes, reported to the lead: a Plugin that dies in a
    reference cycle runs its executor-clearing finalizer inside whatever code the cyclic GC
    interrupts; inside ``ExecutorManager.get_idle_cpu_streams_executor`` (which holds the
    manager's non-reentrant lock) that finalizer waits for the same lock forever.
    """
    yield
    gc.collect()


def hide_kernel(monkeypatch: pytest.MonkeyPatch, op_type: str) -> None:
    """Make REFERENCE behave as if it had no kernel for ``op_type`` (restored by ``monkeypatch``).

    Defining a new op in the IR table instead would leak into every other test of the session.
    """
    import reference_plugin.compiled_model as compiled_model
    import reference_plugin.plugin as plugin
    from reference_plugin import _transformations, fast
    from reference_plugin import ops as kernels

    def load_op(type_name: str, version: int) -> Any:
        if type_name == op_type:
            raise UnsupportedOpError(f"the REFERENCE device has no kernel for op type {op_type!r} (hidden by a test).")
        return kernels.load_op(type_name, version)

    def make_kernel(node: Node) -> Any:
        load_op(node.type_name, node.version)
        return fast.make_kernel(node)

    monkeypatch.setattr(plugin, "load_op", load_op)
    for module in (plugin, compiled_model, _transformations):
        monkeypatch.setattr(module, "make_kernel", make_kernel)


def relu_chain_model(depth: int = 2, shape: Any = (2, 3)) -> Model:
    """x -> relu_1 -> ... -> relu_<depth> -> (tensor "y")."""
    x = ops.parameter(list(shape), np.float32, name="x")
    node: Any = x
    for i in range(1, depth + 1):
        node = ops.relu(node, name=f"relu_{i}")
    node.output(0).set_names({"y"})
    return Model([node], [x], "relu_chain")


def mixed_model() -> Model:
    """y = (relu(relu(x)) + (c1 + c2)) / 4: fusion, folding and Divide decomposition at once."""
    x = ops.parameter([2, 3], np.float32, name="x")
    r = ops.relu(ops.relu(x, name="r1"), name="r2")
    c = ops.add(ops.constant(np.float32(1.5), name="c1"), ops.constant(np.float32(2.0), name="c2"), name="cadd")
    s = ops.add(r, c, name="add")
    y = ops.divide(s, ops.constant(np.float32(4.0), name="four"), name="div")
    y.output(0).set_names({"y"})
    return Model([y], [x], "mixed")


def mixed_expected(x: np.ndarray) -> np.ndarray:
    return (np.maximum(x, np.float32(0)) + np.float32(3.5)) / np.float32(4.0)


def two_input_model() -> Model:
    """sum = a + b, prod = a * b (f32 [2, 2])."""
    a = ops.parameter([2, 2], np.float32, name="a")
    b = ops.parameter([2, 2], np.float32, name="b")
    s, p = ops.add(a, b, name="sum"), ops.multiply(a, b, name="prod")
    s.output(0).set_names({"sum"})
    p.output(0).set_names({"prod"})
    return Model([s, p], [a, b], "two_input")


def accumulator_model(dtype: Any = np.float32, with_init: bool = True) -> Model:
    """acc = ReadValue("acc") + x; Assign(acc); output acc (shape [2])."""
    x = ops.parameter([2], dtype, name="x")
    init = ops.constant(np.zeros(2, dtype), name="init") if with_init else None
    rv = ops.read_value(init, "acc", Type.f32 if dtype == np.float32 else dtype, [2], name="rv")
    acc = ops.add(rv, x, name="acc")
    acc.output(0).set_names({"acc"})
    return Model([acc], [ops.assign(acc, "acc", name="assign")], [x], "accumulator")


def rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)
