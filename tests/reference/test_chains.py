"""Elementwise chains (reference_plugin/fast/chains.py): which nodes form them, and that a chained
run gives bit for bit the values of the unchained one, counters per node included; the runners
chains and in-place steps write with (reference_plugin/fast/elementwise.py)."""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import Core, Model
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.bench.models import ANCHORS
from ovconform.ir import Type
from reference_plugin import fast
from reference_plugin.compiled_model import Program
from reference_plugin.fast import chains as _chains
from reference_plugin.fast import elementwise as _chunk_unary
from reference_plugin.fast import parallel
from reference_plugin.fast.elementwise import into_runner

UNARY = ["sigmoid", "tanh", "relu", "exp", "abs", "negative", "sqrt", "erf", "floor"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power"]


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 64 elements and chains from 128: small tensors go through many blocks."""
    monkeypatch.setattr(_chains, "BLOCK", 64)
    monkeypatch.setattr(_chains, "MIN_ELEMENTS", 128)


def _runs(model: Model, inputs: list[np.ndarray], precision: Type = Type.f32,
          threads: int = 1) -> tuple[Program, list[Any], list[Any]]:
    """The chained run (on ``threads`` intra-op threads) and the unchained one on one thread."""
    chained, plain = Program(model, precision), Program(model, precision, chains=False)
    with np.errstate(all="ignore"):
        return chained, chained.run(inputs, {}, threads=threads)[0], plain.run(inputs, {})[0]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
               for x, y in zip(a, b, strict=True))


def test_the_eltwise_anchor_is_one_chain_with_the_same_values() -> None:
    model = ANCHORS["eltwise"]()
    x = np.random.default_rng(0).standard_normal([d.get_length() for d in model.get_parameters()[0]
                                                  .get_output_partial_shape(0)]).astype(np.float32)
    program, got, want = _runs(model, [x])
    assert [len(c.links) for c in program.chains] == [20]
    assert _same(got, want)


@st.composite
def chain_models(draw: Any) -> tuple[Model, np.ndarray]:
    rank = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 9), min_size=rank, max_size=rank))
    et = draw(st.sampled_from([Type.f32, Type.f64]))
    x = ops.parameter(shape, et, "x")
    node: Any = x
    for i in range(draw(st.integers(2, 6))):
        if draw(st.booleans()):
            node = getattr(ops, draw(st.sampled_from(UNARY)))(node, name=f"u{i}")
            continue
        # a constant broadcasting into the shape: a suffix of it, some axes 1
        tail = shape[draw(st.integers(0, rank)):]
        cshape = [d if draw(st.booleans()) else 1 for d in tail]
        value = draw(st.floats(0.25, 2.0)) * np.linspace(0.5, 1.5, int(np.prod(cshape, dtype=int)) or 1)
        const = ops.constant(value.reshape(cshape).astype(et.to_dtype()), name=f"c{i}")
        op = getattr(ops, draw(st.sampled_from(BINARY)))
        node = op(node, const, name=f"b{i}") if draw(st.booleans()) else op(const, node, name=f"b{i}")
    seed = draw(st.integers(0, 2**16))
    data = (np.random.default_rng(seed).standard_normal(shape) * 3).astype(et.to_dtype())
    return Model([node], [x], "chain"), data


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the fixture only patches constants
@given(case=chain_models())
def test_chained_runs_equal_unchained_runs(small_blocks: None, case: tuple[Model, np.ndarray]) -> None:
    model, data = case
    program, got, want = _runs(model, [data])
    assert _same(got, want)
    _, got, _ = _runs(model, [data], threads=2)  # blocks shared by two threads
    assert _same(got, want)
    if data.size >= 128:
        assert program.chains, "a chain of elementwise nodes over a large enough value was not formed"


def _pair(x: Any, mid_readers: int = 1) -> tuple[Model, list[Any]]:
    mid = ops.tanh(x, name="mid")
    out = ops.sigmoid(mid, name="out")
    extra = [ops.relu(mid, name="other")] if mid_readers > 1 else []
    return Model([out, *extra], [x], "pair"), [mid, out]


def test_chain_needs_single_reader_values_of_one_static_shape(small_blocks: None) -> None:
    x = ops.parameter([4, 64], Type.f32, "x")
    data = np.linspace(-3, 3, 256, dtype=np.float32).reshape(4, 64)
    program, got, want = _runs(_pair(x)[0], [data])
    assert [len(c.links) for c in program.chains] == [2] and _same(got, want)
    # the link value read twice: no chain
    program, got, want = _runs(_pair(x, mid_readers=2)[0], [data])
    assert program.chains == [] and _same(got, want)
    # the link value is a model output: no chain
    mid = ops.tanh(x, name="mid")
    program, got, want = _runs(Model([ops.sigmoid(mid), mid], [x]), [data])
    assert program.chains == [] and _same(got, want)
    # dynamic shape, or too small: no chain
    dyn = ops.parameter([-1, 64], Type.f32, "x")
    assert Program(_pair(dyn)[0], Type.f32).chains == []
    assert Program(_pair(ops.parameter([1, 64], Type.f32, "x"))[0], Type.f32).chains == []
    # f16 rounding (INFERENCE_PRECISION_HINT=f16): no chain
    program, got, want = _runs(_pair(x)[0], [data], precision=Type.f16)
    assert program.chains == [] and _same(got, want)


def test_chain_refuses_constants_that_grow_the_shape(small_blocks: None) -> None:
    x = ops.parameter([4, 1], Type.f32, "x")
    grown = ops.add(ops.tanh(x), ops.constant(np.ones((4, 64), np.float32)))
    data = np.arange(4, dtype=np.float32).reshape(4, 1)
    program, got, want = _runs(Model([ops.relu(grown)], [x]), [data])
    assert all(len(c.links) >= 2 and c.shape == (4, 64) for c in program.chains) and _same(got, want)
    x = ops.parameter([4, 64], Type.f32, "x")
    pdpd = ops.add(ops.tanh(x), ops.constant(np.ones((4, 64), np.float32)), auto_broadcast="pdpd")
    program, _, _ = _runs(Model([ops.relu(pdpd)], [x]), [np.ones((4, 64), np.float32)])
    assert all("pdpd" not in str(link.kernel.node.attrs) for c in program.chains for link in c.links)


def test_the_eltwise_anchor_on_two_threads_gives_the_same_values_and_counters() -> None:
    model = ANCHORS["eltwise"]()
    x = np.random.default_rng(1).standard_normal([d.get_length() for d in model.get_parameters()[0]
                                                  .get_output_partial_shape(0)]).astype(np.float32) * 30
    program, got, want = _runs(model, [x], threads=2)
    assert _same(got, want)
    timings: list[Any] = [None] * len(program.steps)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # exp overflows in Sigmoid: no warning from any thread
        timed = program.run([x], {}, timings=timings, threads=2)[0]
    elapsed = time.perf_counter() - started
    assert _same(timed, want)
    members = [timings[i] for c in program.chains for i in c.indices]
    assert all(t is not None and t[0] > 0 and t[1] >= 0 for t in members)
    assert sum(t[0] for t in members) <= elapsed  # per-thread elapsed time, averaged: within the run


def test_counters_stay_per_node_in_a_chain() -> None:
    model = ANCHORS["eltwise"]()
    compiled = Core().compile_model(model, "REFERENCE", {P.PERF_COUNT: True})
    assert compiled.program.chains
    request = compiled.create_infer_request()
    shape = [d.get_length() for d in model.get_parameters()[0].get_output_partial_shape(0)]
    request.infer([np.ones(shape, np.float32)])
    executed = {i.node_name: i for i in request.get_profiling_info() if i.status.name == "EXECUTED"}
    for node in model.get_ordered_ops():
        if node.type_name not in ("Parameter", "Constant", "Result"):
            assert executed[node.friendly_name].real_time.total_seconds() > 0, node.friendly_name


@pytest.mark.parametrize("op", ["sigmoid", "tanh", "gelu", "exp"])
@pytest.mark.parametrize("size", [3 * _chunk_unary.CHUNK + 5, 2 * parallel.SPLIT_MIN + 1, 100])
def test_unary_kernels_split_over_threads_give_the_same_values(op: str, size: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone unary kernel (no chain) splits a large tensor over the run's threads: same bits."""
    x = ops.parameter([size], Type.f32, "x")
    model = Model([getattr(ops, op)(x, name="y")], [x], op)
    data = (np.random.default_rng(size).standard_normal(size) * 10).astype(np.float32)
    program = Program(model, Type.f32)
    kernel = next(s.kernel for s in program.steps if s.node.friendly_name == "y")
    splits: list[int | None] = []  # the threads each chunked computation was given

    def spy(fn: Any, items: Any, n: int | None = None) -> Any:
        splits.append(n)
        return parallel.map_shared(fn, items, n)

    monkeypatch.setattr(_chunk_unary, "map_shared", spy)
    with np.errstate(all="ignore"):
        one = program.run([data], {}, threads=1)[0]
        two = program.run([data], {}, threads=2)[0]
        whole = kernel.compute(data)
    assert _same(one, two) and np.array_equal(one[0], whole)
    # chunked when above two blocks; on two threads only from SPLIT_MIN elements per thread
    assert bool(splits) == (size > 2 * kernel.chunk())
    assert (2 in splits) == (size >= 2 * parallel.SPLIT_MIN)


def _into_kernels() -> list[tuple[str, int]]:
    """Every kernel class with a writer route."""
    return [(r.op_type, r.since) for r in fast.routes() if r.kind == "writer"]


def _elementwise_node(op_type: str, et: Type, shape: list[int]) -> Any:
    x = ops.parameter(shape, et, "x")
    if op_type in ("Add", "Subtract", "Multiply", "Maximum", "Minimum"):
        return getattr(ops, {"Add": "add", "Subtract": "subtract", "Multiply": "multiply", "Maximum": "maximum",
                             "Minimum": "minimum"}[op_type])(x, ops.parameter(shape, et, "y"))
    return getattr(ops, {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Abs": "abs",
                         "Negative": "negative", "HSwish": "hswish", "HSigmoid": "hsigmoid"}[op_type])(x)


def test_the_kernels_writing_in_place_are_the_ones_the_chains_expect() -> None:
    assert sorted(t for t, _ in _into_kernels()) == sorted(
        ["Abs", "Add", "Exp", "HSigmoid", "HSwish", "Maximum", "Minimum", "Multiply", "Negative", "Relu", "Sigmoid",
         "Subtract", "Tanh"])


@pytest.mark.parametrize("et", [Type.f32, Type.f64], ids=str)
@pytest.mark.parametrize("op_type", [t for t, _ in _into_kernels()])
def test_the_writer_writes_what_the_formula_returns(op_type: str, et: Type) -> None:
    """Bit for bit, into a separate array and into the input itself, over normal values, both
    infinities, NaN, zeros of both signs and the ends of the range."""
    from reference_plugin.ops import make_kernel

    dtype = et.to_dtype()
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 88.8, -88.8, 800, -800], dtype)
    rng = np.random.default_rng(1)
    values = [np.concatenate([special, rng.standard_normal(245).astype(dtype) * 10]) for _ in range(2)]
    node = _elementwise_node(op_type, et, [256])
    kernel = fast.make_kernel(node)
    runner = into_runner(kernel)
    assert runner is not None and runner is fast.writer_for(kernel), "the writer route is not the chain's runner"
    with np.errstate(all="ignore"):
        want = make_kernel(node).run(values[:kernel.n_inputs])[0]
        out = np.full_like(values[0], 7)
        runner(*values[:kernel.n_inputs], out)
        assert np.array_equal(out, want, equal_nan=True) and out.dtype == want.dtype
        inputs = [v.copy() for v in values[:kernel.n_inputs]]
        runner(*inputs, inputs[0])  # in place: the chains' case
        assert np.array_equal(inputs[0], want, equal_nan=True)


def test_a_kernel_overriding_compute_is_not_bypassed_by_its_base_writer() -> None:
    """A subclass (a derived device's kernel, say) that redefines ``compute`` alone gets the
    copying runner, so the chain still computes what its ``compute`` says."""
    from reference_plugin.ops import make_kernel
    from reference_plugin.ops.op_add import Add
    from reference_plugin.ops.op_tanh import Tanh

    class AddTwice(Add):
        def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return x + 2 * y

    class NotTanh(Tanh):
        def compute(self, x: np.ndarray) -> np.ndarray:
            return np.sin(x)

    a, b = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    add = AddTwice(make_kernel(_elementwise_node("Add", Type.f32, [4])).node)
    out = np.empty(4, np.float32)
    assert fast.writer_for(add) is None
    into_runner(add)(a, b, out)  # type: ignore[misc]
    assert np.array_equal(out, a + 2 * b)
    tanh = NotTanh(make_kernel(_elementwise_node("Tanh", Type.f32, [4])).node)
    assert fast.writer_for(tanh) is None
    into_runner(tanh)(a, out)  # type: ignore[misc]
    assert np.array_equal(out, np.sin(a))


def test_a_kernel_computing_in_another_dtype_copies_into_the_block() -> None:
    """Mish computes f32 in float64 (``single_precision = False``): its runner cannot write an f32
    block as it goes, so it copies its rounded result, and a chain through it keeps the values."""
    kernel = fast.make_kernel(ops.mish(ops.parameter([64], Type.f32, "x")))
    x = np.linspace(-5, 5, 64, dtype=np.float32)
    out = np.empty_like(x)
    into_runner(kernel)(x, out)  # type: ignore[misc]
    assert np.array_equal(out, kernel.run_trusted([x], None)[0])


def _eltwise_model(shape: list[int]) -> Model:
    x = ops.parameter(shape, Type.f32, "x")
    return Model([ops.relu(ops.tanh(ops.sigmoid(x, name="s"), name="t"), name="r")], [x], "direct")


def test_a_chain_result_is_written_into_the_memory_the_caller_gives(small_blocks: None) -> None:
    model = _eltwise_model([4, 64])
    program = Program(model, Type.f32)
    assert program.chains and program._direct == {id(program.chains[0]): 0}
    x = np.random.default_rng(3).standard_normal((4, 64)).astype(np.float32)
    want = Program(model, Type.f32, chains=False).run([x], {})[0][0]
    dest = np.full((4, 64), 7, np.float32)
    got = program.run([x], {}, outputs=[dest], threads=2)[0][0]
    assert got is dest and np.array_equal(dest, want)
    timings: list[Any] = [None] * len(program.steps)
    dest[...] = 7
    assert program.run([x], {}, outputs=[dest], timings=timings)[0][0] is dest and np.array_equal(dest, want)


@pytest.mark.parametrize("bad", ["overlaps the input", "other dtype", "other shape", "strided", "read-only",
                                 "overlaps another output"])
def test_a_chain_does_not_write_memory_it_must_not(small_blocks: None, bad: str) -> None:
    model = _eltwise_model([4, 64])
    program = Program(model, Type.f32)
    x = np.random.default_rng(4).standard_normal((4, 64)).astype(np.float32)
    before = x.copy()
    want = Program(model, Type.f32, chains=False).run([x], {})[0][0]
    dest = {"overlaps the input": x, "other dtype": np.zeros((4, 64), np.float64),
            "other shape": np.zeros((2, 128), np.float32), "strided": np.zeros((4, 128), np.float32)[:, ::2],
            "read-only": np.zeros((4, 64), np.float32), "overlaps another output": np.zeros((4, 64), np.float32)}[bad]
    if bad == "read-only":
        dest.flags.writeable = False
    other = dest[:2] if bad == "overlaps another output" else None
    kept = dest.copy()
    got = program.run([x], {}, outputs=[dest, other])[0][0]
    assert got is not dest and np.array_equal(got, want)
    assert np.array_equal(x, before) if bad == "overlaps the input" else np.array_equal(dest, kept)


def test_a_request_writes_a_chain_result_into_its_output_tensor(small_blocks: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The program's result is the output tensor's own memory; the tensor keeps it (a view
    taken before the run sees the new values), and the results returned are a copy, as before."""
    produced: list[np.ndarray] = []
    run = Program.run

    def spy(self: Program, *args: Any, **kwargs: Any) -> Any:
        out = run(self, *args, **kwargs)
        produced.append(out[0][0])
        return out

    monkeypatch.setattr(Program, "run", spy)
    compiled = Core().compile_model(_eltwise_model([4, 64]), "REFERENCE", {"PERFORMANCE_HINT": "LATENCY"})
    request = compiled.create_infer_request()
    view = request.get_output_tensor(0).data
    rng = np.random.default_rng(5)
    for _ in range(2):
        x = rng.standard_normal((4, 64)).astype(np.float32)
        results = request.infer([x])
        want = np.maximum(np.tanh(1 / (1 + np.exp(-x))), 0)
        np.testing.assert_allclose(view, want, rtol=1e-6)
        assert np.array_equal(results[0], view) and not np.shares_memory(results[0], view)
        assert np.shares_memory(produced[-1], view)
