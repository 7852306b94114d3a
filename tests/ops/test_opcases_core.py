"""The case-strategy machinery (``ovconform.opcases``, its ``_draw`` builder) over the first ops the
harness had — elementwise, Convert/ConvertLike, MatMul, convolutions, pools, reductions, Softmax:
every op has a strategy, every strategy draws valid, tiny, deterministic cases whose inputs match
the model's parameters, and the cases run on OpenVINO CPU with the shapes and types we infer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform.ir import Node, PartialShape, Type
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from ovconform.opcases._draw import MAX_ELEMENTS, CaseBuilder
from ovconform.opset._window import resolve_pads

IMPLICIT = {"Parameter", "Constant", "Result"}  # part of every case; no case of their own
#: The first ops the harness had (tier 1 of ops.md and the reductions that share their inference):
#: the elementwise ops, Convert/ConvertLike, MatMul, the convolutions, the pools, the reductions, Softmax.
KEYS = [
    ("Abs", 1), ("Add", 1), ("AvgPool", 1), ("AvgPool", 14), ("AvgPool", 16), ("Clamp", 1), ("Convert", 1),
    ("ConvertLike", 1), ("Convolution", 1), ("Divide", 1), ("Equal", 1), ("Erf", 1), ("Exp", 1), ("FloorMod", 1),
    ("Gelu", 2), ("Gelu", 7), ("Greater", 1), ("GreaterEqual", 1), ("GroupConvolution", 1), ("Less", 1),
    ("LessEqual", 1), ("Log", 1), ("LogicalAnd", 1), ("LogicalNot", 1), ("LogicalOr", 1), ("LogicalXor", 1),
    ("MatMul", 1), ("MaxPool", 1), ("MaxPool", 8), ("MaxPool", 14), ("Maximum", 1), ("Minimum", 1), ("Mod", 1),
    ("Multiply", 1), ("Negative", 1), ("NotEqual", 1), ("Power", 1), ("ReduceL1", 4), ("ReduceL2", 4),
    ("ReduceMax", 1), ("ReduceMean", 1), ("ReduceMin", 1), ("ReduceProd", 1), ("ReduceSum", 1), ("Relu", 1),
    ("Select", 1), ("Sigmoid", 1), ("Softmax", 1), ("Softmax", 8), ("Sqrt", 1), ("SquaredDifference", 1),
    ("Subtract", 1), ("Tanh", 1),
]
CASE_SETTINGS = settings(max_examples=12, deadline=None, database=None,
                         suppress_health_check=[HealthCheck.too_slow])


def test_every_op_of_these_families_has_a_case() -> None:
    assert len(KEYS) >= 49
    missing = sorted(set(KEYS) - set(all_case_keys()))
    assert not missing, f"ops without a case strategy: {missing}"
    for version in (1, 8, 14):
        assert ("MaxPool", version) in KEYS
    assert {("AvgPool", 1), ("AvgPool", 14), ("AvgPool", 16), ("Softmax", 1), ("Softmax", 8)} <= set(KEYS)


def op_node(case: OpCase) -> Node:
    found = [n for n in case.model.get_ordered_ops() if n.type_name not in IMPLICIT]
    assert len(found) == 1, f"{case.op_type}-{case.version}: expected one op under test, got {found}"
    return found[0]


def input_value(case: OpCase, node: Node, port: int) -> np.ndarray:
    """The array feeding ``port`` of ``node``: a Parameter's input or a Constant's data."""
    src = node.input_value(port).get_node()
    if src.type_name == "Constant":
        assert src.data is not None
        return np.asarray(src.data)
    return case.inputs[src.friendly_name]


def _no_zero_divisor(case: OpCase, node: Node) -> None:
    assert np.all(input_value(case, node, 1) != 0)


def _positive(case: OpCase, node: Node) -> None:
    assert np.all(input_value(case, node, 0).astype(np.float64) > 0)


def _non_negative(case: OpCase, node: Node) -> None:
    assert np.all(input_value(case, node, 0).astype(np.float64) >= 0)


def _power_domain(case: OpCase, node: Node) -> None:
    base, exponent = input_value(case, node, 0), input_value(case, node, 1)
    if base.dtype.kind == "f":
        assert np.all(base > 0)
    else:
        assert np.all(exponent >= 0)


def _distinct(case: OpCase, node: Node) -> None:
    data = input_value(case, node, 0)
    assert len(np.unique(data)) == data.size, "MaxPool values must be unique (no index ties)"


def _fits_integer_destination(case: OpCase, node: Node) -> None:
    dst = node.get_output_element_type(0)
    if dst.is_integral_number():
        info = np.iinfo(dst.to_dtype())
        values = np.trunc(input_value(case, node, 0).astype(np.float64))
        assert np.all((values >= info.min) & (values <= info.max))


def _every_window_sees_data(case: OpCase, node: Node) -> None:
    """No pooling window lies wholly in the padding or past the data."""
    a, data = node.attrs, input_value(case, node, 0)
    spatial, k, s = data.shape[2:], a["kernel"], a["strides"]
    d = a.get("dilations") or [1] * len(k)
    pb, pe = resolve_pads(spatial, k, s, d, a["auto_pad"], a["pads_begin"], a["pads_end"])
    out = node.get_output_partial_shape(0).to_shape()[2:]
    for i, size in enumerate(spatial):
        for o in range(out[i]):
            taps = [o * s[i] - pb[i] + t * d[i] for t in range(k[i])]
            assert any(0 <= p < size for p in taps), f"axis {i} window {o} misses the data: {a}"
            if node.type_name == "AvgPool" and not a["exclude-pad"]:
                assert taps[-1] < size + pe[i], f"axis {i} window {o} reaches past the end padding: {a}"


def _pool_domain(case: OpCase, node: Node) -> None:
    _every_window_sees_data(case, node)
    if node.type_name == "MaxPool":
        _distinct(case, node)


DOMAIN: dict[str, Callable[[OpCase, Node], None]] = {
    "Divide": _no_zero_divisor, "Mod": _no_zero_divisor, "FloorMod": _no_zero_divisor,
    "Log": _positive, "Sqrt": _non_negative, "Power": _power_domain, "MaxPool": _pool_domain,
    "AvgPool": _pool_domain,
    "Convert": _fits_integer_destination, "ConvertLike": _fits_integer_destination,
}


def check_case(case: OpCase, key: tuple[str, int]) -> None:
    assert (case.op_type, case.version) == key
    node = op_node(case)
    assert (node.type_name, node.version) == key
    assert [r.input_value(0) for r in case.model.get_results()] == node.outputs()
    params = case.model.get_parameters()
    assert list(case.inputs) == [p.friendly_name for p in params]
    for p in params:
        assert p.output(0).get_names() == {p.friendly_name}
        value = case.inputs[p.friendly_name]
        assert isinstance(value, np.ndarray) and value.size <= MAX_ELEMENTS
        assert value.dtype == p.get_output_element_type(0).to_dtype()
        assert p.get_output_partial_shape(0).is_static and p.get_output_partial_shape(0).fits(value.shape)
        if value.dtype.kind == "f":
            assert np.all(np.isfinite(value))
    for c in case.model.get_ordered_ops():
        if c.type_name == "Constant":
            assert c.data is not None and c.data.size <= MAX_ELEMENTS
    if not key[0].startswith("Reduce"):  # Parameter axes give dynamic dims
        assert all(o.get_partial_shape().is_static for o in node.outputs())
    DOMAIN.get(key[0], lambda c, n: None)(case, node)


@pytest.mark.parametrize("key", KEYS, ids=[f"{t}-{v}" for t, v in KEYS])
def test_strategy_draws_valid_cases(key: tuple[str, int]) -> None:
    @CASE_SETTINGS
    @given(case_strategy(*key))
    def run(case: OpCase) -> None:
        check_case(case, key)

    run()


def _collect(key: tuple[str, int]) -> list[dict[str, np.ndarray]]:
    drawn: list[dict[str, np.ndarray]] = []

    @settings(max_examples=5, derandomize=True, database=None, deadline=None)
    @given(case_strategy(*key))
    def run(case: OpCase) -> None:
        drawn.append(case.inputs)

    run()
    return drawn


@pytest.mark.parametrize("key", [("Add", 1), ("Convolution", 1), ("MaxPool", 8)])
def test_same_draws_give_the_same_arrays(key: tuple[str, int]) -> None:
    first, second = _collect(key), _collect(key)
    assert len(first) == len(second) > 0
    for a, b in zip(first, second, strict=True):
        assert list(a) == list(b) and all(np.array_equal(a[k], b[k]) for k in a)


def test_case_builder_arrays_come_from_the_seed() -> None:
    def make(seed: int) -> list[np.ndarray]:
        b = CaseBuilder(seed)
        return [b.uniform((3, 4), Type.f16, -1, 1), b.nonzero((5,), Type.i32, 1, 9),
                b.distinct((2, 3), Type.u8), b.integers((2,), Type.boolean, 0, 1)]

    assert all(np.array_equal(x, y) for x, y in zip(make(7), make(7), strict=True))
    assert not np.array_equal(make(7)[0], make(8)[0])
    values = make(7)
    assert values[0].dtype == np.float16 and np.all(np.abs(values[1]) >= 1) and values[3].dtype == np.bool_
    assert sorted(values[2].ravel().tolist()) == list(range(1, 7))  # unsigned: from 1 up


def test_scalar_constants_keep_rank_zero() -> None:
    node = CaseBuilder(0).const(np.array(2.5, np.float32))
    assert node.output(0).get_partial_shape().rank_length() == 0 and node.data is not None


# -- the cases run on OpenVINO CPU ----------------------------------------------------------------

def to_openvino(case: OpCase) -> Any:
    """The case as an ``openvino.Model`` built node by node from our IR attributes."""
    ov = pytest.importorskip("openvino")
    from openvino.utils.node_factory import NodeFactory

    made: dict[int, Any] = {}
    params = []
    for n in case.model.get_ordered_ops():
        if n.type_name == "Parameter":
            made[id(n)] = ov.opset16.parameter(list(n.get_output_partial_shape(0).to_shape()),
                                               getattr(ov.Type, n.get_output_element_type(0).name),
                                               name=n.friendly_name)
            params.append(made[id(n)])
        elif n.type_name == "Constant":
            made[id(n)] = ov.opset16.constant(np.asarray(n.data))
        elif n.type_name != "Result":
            inputs = [made[id(s.get_node())].output(s.get_index()) for s in n.input_values()]
            attrs = {k: (v.name if isinstance(v, Type) else v) for k, v in n.attrs.items()}
            made[id(n)] = NodeFactory(f"opset{n.version}").create(n.type_name, inputs, attrs)
    return ov.Model(made[id(op_node(case))].outputs(), params), made[id(op_node(case))]


@pytest.mark.openvino
@pytest.mark.parametrize("key", KEYS, ids=[f"{t}-{v}" for t, v in KEYS])
def test_cases_run_on_openvino_cpu(key: tuple[str, int]) -> None:
    ov = pytest.importorskip("openvino")
    core = ov.Core()
    checked: list[OpCase] = []

    @settings(max_examples=4, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(case_strategy(*key))
    def run(case: OpCase) -> None:
        model, their_node = to_openvino(case)
        node = op_node(case)
        for i, output in enumerate(node.outputs()):  # equal, or ours more precise (Reduce, Parameter axes)
            theirs = PartialShape(str(their_node.output(i).get_partial_shape()).replace("[...]", "..."))
            assert output.get_partial_shape().refines(theirs), (output, theirs, node.attrs)
            assert theirs.is_dynamic or theirs == output.get_partial_shape(), (output, theirs, node.attrs)
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        results = compiled(list(case.inputs.values()))
        for i, output in enumerate(node.outputs()):
            got = results[compiled.output(i)]
            assert output.get_partial_shape().fits(got.shape)
            assert got.dtype == output.get_element_type().to_dtype()
        checked.append(case)

    run()
    assert checked


def test_strategies_are_hypothesis_strategies() -> None:
    assert isinstance(case_strategy("MatMul", 1), st.SearchStrategy)


@pytest.mark.parametrize("key", [("Acos", 1), ("MatMul", 1), ("Softmax", 8), ("TopK", 11), ("Convolution", 1),
                                 ("RandomUniform", 8), ("Gather", 8), ("ReduceSum", 1)])
def test_a_case_index_names_the_same_case_at_every_depth(key: tuple[str, int]) -> None:
    """``<op>-<v>-case{i}`` of a quick run (N=3) is case{i} of a standard (10) and an exhaustive (30)
    run, so expectation entries and report diffs that name a case index mean one case; a quick run
    takes the standard cases with the most input elements."""
    import ovconform
    from ovconform.opcases import generated_cases

    def fingerprint(case: OpCase) -> tuple[Any, ...]:
        return (*ovconform.serialize(case.model),
                tuple((k, v.dtype.str, v.tobytes()) for k, v in sorted(case.inputs.items())))

    by_n = {n: {i: fingerprint(c) for i, c in generated_cases(*key, n)} for n in (3, 10, 15, 30)}
    assert len(by_n[30]) > len(by_n[10]) >= 3 and len(by_n[3]) == 3
    assert list(by_n[10]) == list(range(len(by_n[10])))
    for n, prints in by_n.items():
        for i, p in prints.items():
            assert p == by_n[30][i], f"{key}: case{i} at N={n} differs from case{i} at N=30"
    sizes = {i: sum(v.size for v in c.inputs.values()) for i, c in generated_cases(*key, 10)}
    assert min(sizes[i] for i in by_n[3]) >= max(s for i, s in sizes.items() if i not in by_n[3])
