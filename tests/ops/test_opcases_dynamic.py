"""The case strategies drawn with :mod:`ovconform.opcases._draw_dynamic` (the builder that also
draws dynamic shapes): the shape, basic movement and state ops. Well formed, deterministic, tiny,
covering their corners, and valid for real OpenVINO CPU (which must compute what numpy does)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from ovconform.ir import Model, Node, Output, Type
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from ovconform.opcases._draw_dynamic import DATA_TYPES
from ovconform.opset._infrastructure import check_variables

KEYS = [("Reshape", 1), ("Squeeze", 1), ("Squeeze", 15), ("Unsqueeze", 1), ("ShapeOf", 1), ("ShapeOf", 3),
        ("Broadcast", 1), ("Broadcast", 3), ("Transpose", 1), ("Concat", 1), ("Split", 1), ("VariadicSplit", 1),
        ("Gather", 1), ("Gather", 7), ("Gather", 8), ("StridedSlice", 1), ("ReadValue", 3), ("ReadValue", 6),
        ("Assign", 3), ("Assign", 6)]
QUICK = settings(max_examples=12, database=None, deadline=None, suppress_health_check=list(HealthCheck))
FIND = settings(max_examples=400, database=None, deadline=None, derandomize=True, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))


def op_nodes(case: OpCase) -> list[Node]:
    return [n for n in case.model.get_ordered_ops() if (n.type_name, n.version) == (case.op_type, case.version)]


def test_every_op_version_has_a_strategy() -> None:
    assert set(KEYS) <= set(all_case_keys())


# -- well formed ------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", KEYS, ids=lambda k: f"{k[0]}-{k[1]}")
@QUICK
@given(data=st.data())
def test_case_is_well_formed(key: tuple[str, int], data: st.DataObject) -> None:
    case = data.draw(case_strategy(*key))
    assert (case.op_type, case.version) == key and op_nodes(case)
    params = case.model.get_parameters()
    assert list(case.inputs) == [p.friendly_name for p in params]
    for p in params:
        arr = case.inputs[p.friendly_name]
        assert arr.dtype == p.get_output_element_type(0).to_dtype()
        assert p.get_output_partial_shape(0).fits(arr.shape), (p, arr.shape)
        assert arr.size <= 4096
    for node in case.model.get_ordered_ops():
        for out in node.outputs():
            shape = out.get_partial_shape()
            if shape.is_static:  # only an index list (an empty order, axes or target shape) may be empty
                size = int(np.prod(shape.to_shape(), dtype=np.int64))
                empty_ok = len(shape) == 1 and out.get_element_type().is_integral_number()
                assert (size > 0 or empty_ok) and size <= 4096, (node, shape)
    case.model.validate()
    assert case.model.clone().get_ordered_ops()[-1].type_name in ("Result", "Assign")


@pytest.mark.parametrize("key", [k for k in KEYS if k[0] in ("ReadValue", "Assign")], ids=lambda k: f"{k[0]}-{k[1]}")
@QUICK
@given(data=st.data())
def test_state_case_is_a_loop_with_an_assign_sink(key: tuple[str, int], data: st.DataObject) -> None:
    case = data.draw(case_strategy(*key))
    sinks = case.model.get_sinks()
    assert [s.type_name for s in sinks] == ["Assign"] and sinks[0].version == key[1]
    assert case.model.get_variables() == case.extra["variables"] and case.extra["stateful"]
    check_variables(case.model)
    assert "stateful" in case.note


@pytest.mark.parametrize("key", KEYS[::3], ids=lambda k: f"{k[0]}-{k[1]}")
def test_cases_are_a_function_of_the_draws(key: tuple[str, int]) -> None:
    def describe(case: OpCase) -> list[Any]:
        ops = [(n.type_name, n.version, sorted(n.attrs.items(), key=lambda kv: kv[0]).__repr__(),
                None if n.data is None else n.data.tobytes()) for n in case.model.get_ordered_ops()]
        return [ops, [(k, v.tobytes()) for k, v in case.inputs.items()], case.note]

    runs: list[list[Any]] = [[], []]
    target = [0]

    @settings(max_examples=8, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case_strategy(*key))
    def collect(case: OpCase) -> None:
        runs[target[0]].append(describe(case))

    collect()
    target[0] = 1
    collect()
    assert runs[0] == runs[1] and len(runs[0]) == 8


# -- coverage of the corners ------------------------------------------------------------------------

def _attr_of(case: OpCase, name: str) -> Any:
    return op_nodes(case)[0].attrs[name]


def _const_input(case: OpCase, i: int) -> np.ndarray | None:
    node = op_nodes(case)[0].input_value(i).node
    return node.data if node.type_name == "Constant" else None


def _const_list(case: OpCase, i: int) -> list[int]:
    value = _const_input(case, i)
    return [] if value is None else value.reshape(-1).tolist()


def _rank_in(case: OpCase) -> int:
    return len(op_nodes(case)[0].get_input_partial_shape(0))


CORNERS: list[tuple[str, tuple[str, int], Callable[[OpCase], bool]]] = [
    ("scalar data", ("Reshape", 1), lambda c: _rank_in(c) == 0),
    ("rank-4 data", ("Transpose", 1), lambda c: _rank_in(c) == 4),
    ("empty order", ("Transpose", 1), lambda c: _const_input(c, 1) is not None and not _const_list(c, 1)),
    ("parameter target shape", ("Reshape", 1), lambda c: "target_shape" in c.inputs),
    ("special_zero copies", ("Reshape", 1), lambda c: _attr_of(c, "special_zero") and 0 in _const_list(c, 1)),
    ("dynamic data shape", ("Concat", 1), lambda c: c.extra["dynamic"]),
    ("negative concat axis", ("Concat", 1), lambda c: _attr_of(c, "axis") < 0),
    ("constant concat part", ("Concat", 1), lambda c: any(i.node.type_name == "Constant"
                                                           for i in op_nodes(c)[0].input_values())),
    ("negative gather index", ("Gather", 8), lambda c: "indices" in c.inputs and (c.inputs["indices"] < 0).any()),
    ("batch_dims", ("Gather", 8), lambda c: _attr_of(c, "batch_dims") > 0),
    ("negative batch_dims", ("Gather", 7), lambda c: _attr_of(c, "batch_dims") < 0),
    ("scalar indices", ("Gather", 1), lambda c: op_nodes(c)[0].get_input_partial_shape(1) == []),
    ("ellipsis", ("StridedSlice", 1), lambda c: 1 in _attr_of(c, "ellipsis_mask")),
    ("new axis", ("StridedSlice", 1), lambda c: 1 in _attr_of(c, "new_axis_mask")),
    ("shrink axis", ("StridedSlice", 1), lambda c: 1 in _attr_of(c, "shrink_axis_mask")),
    ("negative stride", ("StridedSlice", 1), lambda c: min(_const_list(c, 3)) < 0),
    ("parameter begin", ("StridedSlice", 1), lambda c: "begin" in c.inputs),
    ("squeeze without axes", ("Squeeze", 1), lambda c: op_nodes(c)[0].get_input_size() == 1),
    ("allow_axis_skip", ("Squeeze", 15), lambda c: _attr_of(c, "allow_axis_skip")),
    ("scalar unsqueeze axis", ("Unsqueeze", 1), lambda c: op_nodes(c)[0].get_input_partial_shape(1) == []),
    ("bidirectional", ("Broadcast", 3), lambda c: _attr_of(c, "mode") == "bidirectional"),
    ("explicit v1", ("Broadcast", 1), lambda c: _attr_of(c, "mode") == "none"),
    ("i32 shape", ("ShapeOf", 3), lambda c: _attr_of(c, "output_type") == Type.i32),
    ("1-element axis", ("VariadicSplit", 1), lambda c: op_nodes(c)[0].get_input_partial_shape(1) == [1]),
    ("-1 split length", ("VariadicSplit", 1), lambda c: -1 in _const_list(c, 2)),
    ("no init", ("ReadValue", 6), lambda c: op_nodes(c)[0].get_input_size() == 0),
    ("parameter init", ("ReadValue", 3), lambda c: "init" in c.inputs),
    *[(f"{t} data", ("Transpose", 1), lambda c, t=t: op_nodes(c)[0].get_input_element_type(0) == t)
      for t in DATA_TYPES],
]


@pytest.mark.parametrize(("what", "key", "pred"), CORNERS, ids=[c[0] for c in CORNERS])
def test_strategy_reaches(what: str, key: tuple[str, int], pred: Callable[[OpCase], bool]) -> None:
    assert pred(find(case_strategy(*key), pred, settings=FIND))


# -- valid for OpenVINO CPU, which computes what numpy computes --------------------------------------

def _value(out: Output, case: OpCase) -> np.ndarray:
    node = out.node
    return np.asarray(node.data) if node.type_name == "Constant" else case.inputs[node.friendly_name]


def _reshape(node: Node, x: np.ndarray, pattern: np.ndarray) -> list[np.ndarray]:
    dims = [x.shape[i] if v == 0 and node.attrs["special_zero"] else int(v) for i, v in enumerate(pattern)]
    return [x.reshape(dims)]


def _squeeze(node: Node, x: np.ndarray, axes: np.ndarray | None = None) -> list[np.ndarray]:
    if axes is None or axes.size == 0:
        return [np.squeeze(x)]
    chosen = {int(a) % max(x.ndim, 1) for a in np.atleast_1d(axes)}
    return [np.squeeze(x, axis=tuple(a for a in chosen if x.ndim and x.shape[a] == 1))]


def _unsqueeze(node: Node, x: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
    values = {int(a) for a in np.atleast_1d(axes)}
    rank = x.ndim + len(values)
    return [np.expand_dims(x, tuple(sorted(a % rank for a in values)))]


def _broadcast(node: Node, x: np.ndarray, target: np.ndarray, mapping: np.ndarray | None = None) -> list[np.ndarray]:
    mode, target_t = node.attrs["mode"], tuple(int(t) for t in target)
    if mode == "bidirectional":
        return [np.broadcast_to(x, np.broadcast_shapes(x.shape, target_t))]
    if mode in ("explicit", "none"):
        shape = [1] * len(target_t)
        for i, a in enumerate(mapping):  # type: ignore[arg-type]
            shape[int(a)] = x.shape[i]
        x = x.reshape(shape)
    return [np.broadcast_to(x, target_t)]


def _gather(x: np.ndarray, idx: np.ndarray, axis: int, bd: int) -> np.ndarray:
    if bd == 0:
        return np.take(x, idx % x.shape[axis], axis=axis)
    return np.stack([_gather(x[i], idx[i], axis - 1, bd - 1) for i in range(x.shape[0])])


def _gather_op(node: Node, x: np.ndarray, idx: np.ndarray, axis: np.ndarray) -> list[np.ndarray]:
    a = int(np.asarray(axis).reshape(-1)[0]) % x.ndim
    bd = node.attrs.get("batch_dims", 0)
    return [_gather(x, idx, a, bd + idx.ndim if bd < 0 else bd)]


def _strided_slice(node: Node, x: np.ndarray, begin: np.ndarray, end: np.ndarray,
                   strides: np.ndarray) -> list[np.ndarray]:
    m = {k: v + [0] * (len(begin) - len(v)) for k, v in node.attrs.items()}
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin.tolist(), end.tolist(), strides.tolist(), strict=True)):
        if m["ellipsis_mask"][i]:
            index.append(Ellipsis)
        elif m["new_axis_mask"][i]:
            index.append(np.newaxis)
        elif m["shrink_axis_mask"][i]:
            index.append(b)
        else:
            index.append(slice(None if m["begin_mask"][i] else b, None if m["end_mask"][i] else e, s))
    return [x[tuple(index)]]


def _split(node: Node, x: np.ndarray, axis: np.ndarray, lengths: np.ndarray | None = None) -> list[np.ndarray]:
    a = int(np.asarray(axis).reshape(-1)[0])
    if lengths is None:
        return np.split(x, node.attrs["num_splits"], axis=a)
    sizes = [int(v) for v in lengths]
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[a] - (sum(sizes) + 1)
    return np.split(x, np.cumsum(sizes)[:-1], axis=a)


ORACLES: dict[str, Callable[..., list[np.ndarray]]] = {
    "Reshape": _reshape, "Squeeze": _squeeze, "Unsqueeze": _unsqueeze, "Broadcast": _broadcast,
    "Gather": _gather_op, "StridedSlice": _strided_slice, "Split": _split, "VariadicSplit": _split,
    "ShapeOf": lambda n, x: [np.array(x.shape, dtype=n.get_output_element_type(0).to_dtype())],
    "Transpose": lambda n, x, order: [np.transpose(x, None if order.size == 0 else order.tolist())],
    "Concat": lambda n, *xs: [np.concatenate(xs, axis=n.attrs["axis"])],
}


def _expected(case: OpCase) -> list[np.ndarray]:
    node = op_nodes(case)[0]
    return ORACLES[case.op_type](node, *[_value(v, case) for v in node.input_values()])


def _expected_state(case: OpCase, infer_index: int) -> list[np.ndarray]:
    read = next(n for n in case.model.get_ordered_ops() if n.type_name == "ReadValue")
    x = case.inputs["x"]
    init = _value(read.input_value(0), case) if read.get_input_size() else np.zeros_like(x)
    state = init + x * infer_index
    outs = [state + x]
    return outs + [state] if len(case.model.get_results()) == 2 else outs


def _check_outputs(case: OpCase, got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for result, g, w in zip(case.model.get_results(), got, want, strict=True):
        assert result.get_output_partial_shape(0).fits(g.shape), (result.get_output_partial_shape(0), g.shape)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        if g.dtype.kind == "f":
            f16 = g.dtype == np.float16  # the state loop adds twice: f16 rounds in between
            np.testing.assert_allclose(g, w, rtol=2e-3 if f16 else 1e-6, atol=4e-3 if f16 else 0)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.openvino
@pytest.mark.parametrize("key", KEYS, ids=lambda k: f"{k[0]}-{k[1]}")
@settings(max_examples=8, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_case_runs_on_openvino_cpu_as_numpy_computes(key: tuple[str, int], data: st.DataObject) -> None:
    bridge = pytest.importorskip("_ovbridge")
    case = data.draw(case_strategy(*key))
    ov_model, made = bridge.to_openvino(case.model)
    assert bridge.node_shapes_agree(case.model, made) == []
    request = bridge.compile_cpu(ov_model).create_infer_request()
    rounds = 2 if case.extra.get("stateful") else 1
    for i in range(rounds):
        request.infer(list(case.inputs.values()))
        got = [request.get_output_tensor(k).data.copy() for k in range(len(case.model.get_results()))]
        _check_outputs(case, got, _expected_state(case, i) if rounds == 2 else _expected(case))


def test_state_model_round_trip_keeps_variables() -> None:
    case = find(case_strategy("ReadValue", 6), lambda c: True, settings=FIND)
    clone: Model = case.model.clone()
    assert clone.get_variables() == case.model.get_variables()
    assert [s.type_name for s in clone.get_sinks()] == ["Assign"]
