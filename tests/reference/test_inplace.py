"""In-place steps (reference_plugin/fast/inplace.py): which steps run in their input's buffer, that
the values are the same bits, and that no buffer someone else holds is ever written."""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import Model
from ovconform import opset as ops
from ovconform.bench.models import ANCHORS
from ovconform.ir import Type
from reference_plugin.compiled_model import Program


def _inplace_names(program: Program) -> set[str]:
    return {s.node.friendly_name for s in program.steps if s.inplace is not None}


def _run(program: Program, inputs: list[np.ndarray]) -> list[np.ndarray]:
    with np.errstate(all="ignore"):
        return program.run(inputs, {})[0]


def test_the_cnn_anchor_runs_bias_and_relu_in_place_with_the_same_values() -> None:
    model = ANCHORS["cnn"]()
    program, plain = Program(model, Type.f32), Program(model, Type.f32, chains=False)
    names = _inplace_names(program)
    assert {"conv1_bias", "conv1_relu", "conv2_bias", "conv2_relu", "conv3_bias", "conv3_relu"} <= names
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    kept = x.copy()
    got, want = _run(program, [x]), _run(plain, [x])
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    assert np.array_equal(x, kept)


def test_buffers_held_elsewhere_are_never_written() -> None:
    x = ops.parameter([4, 8], Type.f32, "x")
    c = ops.constant(np.linspace(-1, 1, 8, dtype=np.float32), name="c")
    on_input = ops.add(x, c, name="on_input")                      # the caller's array: not fresh
    on_const = ops.multiply(c, ops.relu(on_input, name="r"), name="on_const")  # relu output fresh -> in place
    twice = ops.tanh(on_const, name="twice")
    a = ops.add(twice, c, name="a")                                 # twice is read by two nodes
    b = ops.subtract(twice, c, name="b")
    out_direct = ops.relu(x, name="direct")                        # the parameter itself
    model = Model([a, b, out_direct, twice], [x], "held")
    program, plain = Program(model, Type.f32), Program(model, Type.f32, chains=False)
    names = _inplace_names(program)
    assert "on_input" not in names and "direct" not in names and "a" not in names and "b" not in names
    assert "r" in names and "on_const" in names
    data = np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32)
    kept = data.copy()
    constant = program.steps[[s.node.friendly_name for s in program.steps].index("c")].fixed[0].copy()
    for _ in range(2):  # twice: the second run must see the same constants
        got, want = _run(program, [data]), _run(plain, [data])
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    assert np.array_equal(data, kept)
    assert np.array_equal(program.steps[[s.node.friendly_name for s in program.steps].index("c")].fixed[0], constant)
    assert not any(np.shares_memory(o, data) for o in got)


def test_a_kernel_wrapped_after_compiling_runs_as_itself() -> None:
    """A device derived from REFERENCE may wrap kernels in its compiled program (the fault zoo
    does): such a step, or one reading its output, no longer runs in place."""
    x = ops.parameter([2, 4], Type.f32, "x")
    model = Model([ops.relu(ops.add(ops.tanh(x, name="t"), ops.constant(np.float32(1)), name="add"), name="r")], [x])
    program = Program(model, Type.f32)
    assert {"add", "r"} <= _inplace_names(program)
    calls: list[str] = []
    for step in program.steps:
        if step.node.friendly_name in ("t", "r"):
            real = step.kernel

            class Wrapped:
                def __init__(self, kernel: Any, name: str) -> None:
                    self.kernel, self.name = kernel, name

                def run_trusted(self, args: Any, ctx: Any) -> Any:
                    calls.append(self.name)
                    return tuple(o + np.float32(0.5) for o in self.kernel.run_trusted(args, ctx))

            step.kernel = Wrapped(real, step.node.friendly_name)
    data = np.zeros((2, 4), np.float32)
    got = _run(program, [data])[0]
    assert calls == ["t", "r"]
    assert np.allclose(got, np.maximum(np.tanh(0) + 0.5 + 1, 0) + 0.5)


def test_every_kernel_with_a_writer_route_runs_in_place_with_the_same_values() -> None:
    """In place means the kernel's writer route (the writer chains use too): a Tanh or an Exp on
    a fresh single-reader value writes into it; Sqrt (no writer) does not."""
    x = ops.parameter([4, 8], Type.f32, "x")
    w = ops.constant(np.random.default_rng(2).standard_normal((8, 8)).astype(np.float32), name="w")
    root = ops.sqrt(ops.tanh(ops.matmul(x, w, False, False, name="mm1"), name="tanh"), name="sqrt")
    grown = ops.exp(ops.matmul(x, w, False, False, name="mm2"), name="exp")
    model = Model([root, grown], [x], "writers")
    program, plain = Program(model, Type.f32), Program(model, Type.f32, chains=False)
    assert {"tanh", "exp"} <= _inplace_names(program) and "sqrt" not in _inplace_names(program)
    data = np.random.default_rng(3).standard_normal((4, 8)).astype(np.float32)
    got, want = _run(program, [data]), _run(plain, [data])
    assert all(np.array_equal(g, w, equal_nan=True) for g, w in zip(got, want, strict=True))  # sqrt of < 0: NaN
