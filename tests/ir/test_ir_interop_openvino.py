"""IR v11 interop with the real ``openvino`` package, for every registered op case.

(a) OpenVINO reads what ``ovconform.serialize`` writes — same inputs and outputs (tensor names,
element types, partial shapes, friendly names) — and compiles it on CPU (f32 inference).
(b) What OpenVINO writes is read back into an equivalent graph: ours → serialize → OpenVINO
read_model → ``openvino.save_model`` → ``ovconform.read_model`` → compare with the original.

Everything OpenVINO changes on the way is listed in ``OV_REWRITES`` (and undone or expected by
the comparison), everything it refuses in ``OV_READ_DIFFERENCES`` / ``OV_CPU_LIMITS``; an
unlisted difference fails the test.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_graphs import assert_models_equal, graph_models, random_array

from ovconform import Dimension, Model, Node, PartialShape, Type, read_model, serialize
from ovconform import opset as ops
from ovconform.ir import ALL_TYPES, make_node
from ovconform.ir._ir_common import is_tag_name
from ovconform.opcases import all_case_keys, case_strategy

ov = pytest.importorskip("openvino", reason="the IR interop tests need the openvino package (pip install openvino)")
pytestmark = pytest.mark.openvino

_QUIET = list(HealthCheck)
PER_OP = settings(max_examples=6, deadline=None, derandomize=True, database=None, suppress_health_check=_QUIET)
GRAPHS = settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=_QUIET)
CASE_KEYS = all_case_keys()
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}

#: What OpenVINO (2026.4) changes when it reads our IR and saves it again, and why.
OV_REWRITES = {
    "Broadcast-1 axes_mapping": "read_model gives a numpy/bidirectional Broadcast-1 a third input, a u8 scalar "
                                "Constant (axes_mapping); it is removed again before comparing.",
    "auto_pad pads": "with auto_pad same_upper, same_lower or valid, save_model writes pads_begin/pads_end as "
                     "zeros (its PaddingsFixer, for backward compatibility); the op ignores them then.",
    "MaxPool axis": "MaxPool-8/14: a negative 'axis' is saved as axis + rank.",
    "LogicalXor opset2": "LogicalXor-1 is saved with version 'opset2' (its ov::op::v1 type info says so); "
                         "read_model maps it back to LogicalXor-1.",
    "empty rt_info dicts": "a node rt_info entry holding an empty dict is not saved (user_data without values).",
    "OpenVINO Runtime": "save_model adds the model rt_info entry 'OpenVINO Runtime' (its version).",
    "nested rt_info keys": "a nested model rt_info dict under a key that is not an XML name is saved with the key "
                           "as the element name, which is malformed XML (an OpenVINO bug); the OV round trip "
                           "renames such keys first.",
}

#: Output shapes come from each side's own shape inference. Where they differ one must be strictly
#: more precise than the other; seen so far: OpenVINO narrows a numpy broadcast of bounded dims
#: (``0..1`` with ``2..3`` gives ``2..3``, ovconform ``0..3``); ovconform keeps ``1`` for
#: ReduceSum(keep_dims) of a ``[1]`` input over unknown axes where OpenVINO gives ``?``.
OUTPUT_SHAPE_PRECISION_DIFFERS = ("numpy broadcast of bounded dims", "Reduce* over unknown axes")

#: Models our IR describes validly that OpenVINO's read_model refuses (recorded, not failures).
OV_READ_DIFFERENCES: dict[str, Callable[[Model], bool]] = {
    "Reduce* over a rank-0 input with axes: OpenVINO refuses any axis there (ovconform's Reduce* accepts "
    "axis 0/-1 on a scalar; numpy refuses it too)":
        lambda m: any(n.type_name.startswith("Reduce") and _rank(n, 0) == 0 and _numel(n, 1) for n in m.get_ops()),
}

#: Models OpenVINO reads but its CPU plugin cannot compile (recorded, not failures).
OV_CPU_LIMITS: dict[str, Callable[[Model], bool]] = {
    "CPU: a Parameter with a dynamic rank": lambda m: any(not p.get_output_partial_shape(0).has_rank()
                                                          for p in m.get_parameters()),
    "CPU: no RGBtoNV12/BGRtoNV12 kernel and no evaluate() (tests/reference/deviations_opset_completion.py)": lambda m: any(
        n.type_name in ("RGBtoNV12", "BGRtoNV12") for n in m.get_ops()),
    "CPU: GroupedMatMul only in f32/f16 with constant weights (tests/reference/deviations_opset_completion.py)": lambda m: any(
        n.type_name == "GroupedMatMul" and (not n.get_input_element_type(0).is_real()
                                            or n.input_value(1).node.type_name != "Constant") for n in m.get_ops()),
    "CPU: f64 is not supported by oneDNN": lambda m: any(o.get_element_type() == Type.f64
                                                         for n in m.get_ops() for o in n.outputs()),
    "CPU (snippets) rejects auto_broadcast 'pdpd'/'none' between inputs of different shapes ('Argument shapes "
    "are inconsistent')": lambda m: any(n.attrs.get("auto_broadcast") in ("pdpd", "none") and len(
        {str(n.get_input_partial_shape(i)) for i in range(n.get_input_size())}) > 1 for n in m.get_ops()),
}


def _rank(node: Node, i: int) -> int:
    shape = node.get_input_partial_shape(i)
    return len(shape) if shape.has_rank() else -1


def _numel(node: Node, i: int) -> int:
    shape = node.get_input_partial_shape(i)
    return int(np.prod(shape.to_shape())) if shape.is_static else 1


def _reason(table: dict[str, Callable[[Model], bool]], model: Model) -> str | None:
    return next((why for why, applies in table.items() if applies(model)), None)


# -- helpers ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def core() -> Any:
    return ov.Core()


def ov_read(core: Any, model: Model) -> Any:
    """Our IR into OpenVINO: XML bytes plus the weights as a u8 Tensor (how OpenVINO 2026.4 takes them)."""
    xml, weights = serialize(model)
    return core.read_model(xml, ov.Tensor(np.frombuffer(weights, dtype=np.uint8)))


def assert_io_match(ours: Model, theirs: Any) -> None:
    for kind in ("inputs", "outputs"):
        mine, other = getattr(ours, kind), getattr(theirs, kind)
        assert len(mine) == len(other), f"{kind}: {len(mine)} != {len(other)}"
        for i, (a, b) in enumerate(zip(mine, other, strict=True)):
            where = f"{kind}[{i}]"
            assert a.get_names() == set(b.get_names()), f"{where} names {a.get_names()} != {b.get_names()}"
            assert a.get_element_type().name == b.get_element_type().get_type_name(), f"{where} element type"
            _assert_shapes_match(a.get_partial_shape(), b.get_partial_shape(), where, exact=kind == "inputs")
    assert [p.friendly_name for p in ours.get_parameters()] == \
           [p.get_friendly_name() for p in theirs.get_parameters()]


def _assert_shapes_match(ours: PartialShape, theirs: Any, where: str, exact: bool) -> None:
    """Inputs: the same partial shape. Outputs: the same, or one strictly more precise than the
    other (``OUTPUT_SHAPE_PRECISION_DIFFERS``)."""
    mine = _dims(ours)
    other = PartialShape(None if theirs.rank.is_dynamic else [Dimension(lo, hi) for lo, hi in _dims(theirs) or []])
    if mine == _dims(theirs):
        return
    assert not exact, f"{where} shape {ours} != {theirs}"
    assert ours.refines(other) or other.refines(ours), f"{where} shape {ours} is not compatible with {theirs}"


def _dims(shape: Any) -> list[tuple[int, int]] | None:
    if shape.rank.is_dynamic:
        return None
    return [(d.get_min_length(), d.get_max_length()) for d in shape]


def ov_round_trip(core: Any, model: Model, tmp_path: Path) -> Model:
    """ours → OpenVINO → openvino.save_model → ours."""
    ov.save_model(ov_read(core, model), tmp_path / "ov.xml", compress_to_fp16=False)
    return read_model(tmp_path / "ov.xml")


def expect_ov_rewrites(model: Model) -> Model:
    """A copy of ``model`` with the changes OpenVINO makes on save (``OV_REWRITES``) applied."""
    out = model.clone()
    for node in out.get_ordered_ops():
        attrs = node.attrs
        if attrs.get("auto_pad") in ("same_upper", "same_lower", "valid") and "pads_begin" in attrs:
            for key in ("pads_begin", "pads_end"):
                attrs[key] = [0] * len(attrs[key])
        if node.type_name == "MaxPool" and node.version >= 8 and attrs["axis"] < 0:
            attrs["axis"] += len(node.get_input_partial_shape(0))
        node.rt_info = _without_empty_dicts(node.rt_info)
    return out


def _without_empty_dicts(d: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in d.items():
        if isinstance(value, dict):
            value = _without_empty_dicts(value)
            if not value:
                continue
        out[key] = value
    return out


def undo_ov_rewrites(model: Model) -> Model:
    """Remove the axes_mapping Constant OpenVINO adds to numpy/bidirectional Broadcast-1."""
    for node in model.get_ordered_ops():
        if node.type_name == "Broadcast" and node.version == 1 and node.get_input_size() == 3 \
                and node.attrs["mode"] in ("numpy", "pdpd") and node.input_value(2).node.type_name == "Constant":
            lean = make_node("Broadcast", 1, node.input_values()[:2], node.attrs, node.friendly_name)
            lean.output(0).set_names(node.output(0).get_names())
            lean.rt_info = node.rt_info
            node.output(0).replace(lean.output(0))
    return model


def check_interop(core: Any, model: Model, tmp_path: Path) -> None:
    """(a) OpenVINO reads our IR with the same I/O and compiles it; (b) its IR reads back equal."""
    try:
        theirs = ov_read(core, model)
    except RuntimeError:
        if _reason(OV_READ_DIFFERENCES, model):
            return
        raise
    assert_io_match(model, theirs)
    if _reason(OV_CPU_LIMITS, model) is None:
        core.compile_model(theirs, "CPU", CPU_CONFIG)
    back = undo_ov_rewrites(ov_round_trip(core, model, tmp_path))
    assert_models_equal(expect_ov_rewrites(model), back, ignore_model_rt=["OpenVINO Runtime"])


# -- tests ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", CASE_KEYS, ids=[f"{t}-{v}" for t, v in CASE_KEYS])
@PER_OP
@given(data=st.data())
def test_openvino_reads_and_writes_every_op_case(core: Any, tmp_path: Path, key: tuple[str, int],
                                                 data: st.DataObject) -> None:
    check_interop(core, data.draw(case_strategy(*key)).model, tmp_path)


@GRAPHS
@given(graph_models(types=[Type.f32, Type.f16], op_cases=False))
def test_openvino_reads_random_graphs_with_names_and_rt_info(core: Any, tmp_path: Path, model: Model) -> None:
    for key in [k for k, v in model.rt_info.items() if isinstance(v, dict) and not is_tag_name(k)]:
        model.rt_info[f"k{len(model.rt_info)}"] = model.rt_info.pop(key)  # see OV_REWRITES "nested rt_info keys"
    check_interop(core, model, tmp_path)


@pytest.mark.parametrize("et", ALL_TYPES, ids=str)
def test_openvino_reads_every_element_type(core: Any, tmp_path: Path, et: Type) -> None:
    param = ops.parameter([2, 3], et, name="p")
    const = ops.constant(random_array(3, (2, 3), et), et, name="c")
    model = Model([param, const], [param], name="types")
    theirs = ov_read(core, model)
    assert_io_match(model, theirs)
    const_ov = next(n for n in theirs.get_ordered_ops() if n.get_type_name() == "Constant")
    ours = const.data.view(np.uint16) if et == Type.bf16 else const.data
    theirs_data = const_ov.get_data()
    assert theirs_data.tobytes() == ours.tobytes()
    check_interop(core, model, tmp_path)


def test_openvino_quirks_are_documented() -> None:
    assert all(reason.strip() for reason in OV_REWRITES.values())
    assert all(callable(f) for f in (*OV_READ_DIFFERENCES.values(), *OV_CPU_LIMITS.values()))
