"""query_model (``ov_plugin`` entity): OpenVINO's ``behavior/ov_plugin/query_model.hpp``.

* OVClassModelTestP: QueryModelActualNoThrow, QueryModelWithKSO — M.
* OVClassQueryModelTest: QueryModelWithMatMul, the ``DEV.<id>`` query (the intent of
  QueryModelHETEROWithDeviceIDNoThrow; there is no HETERO here), QueryModelWithBigDeviceIDThrows,
  QueryModelWithInvalidDeviceIDThrows — M(HW): mandatory for a hardware device
  (:func:`~ovconform.suites._helpers.hardware_scope`), optional otherwise.
* Beyond OpenVINO (–, optional): every op of every suite model is reported, the answer names the
  device, and what query_model declares supported really compiles and computes the right numbers
  (harness-notes: "declared supported but failed" is its own failure); on a partly supported model
  the answer follows the seeds' rules (only fully supported ops, housekeeping nodes follow their
  users) and compiling the whole model fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import Model
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.assertions import (
    assert_in,
    assert_not_empty,
    assert_outputs_close,
    assert_raises_ov_error,
    assert_that,
    call,
    fail,
    no_error,
)
from ovconform.errors import OVConformError
from ovconform.suites import _models
from ovconform.suites._helpers import hardware_scope

pytestmark = pytest.mark.entity("ov_plugin")


def _query(core: Any, device: str, model: Model) -> dict[str, str]:
    where = call(device, "query_model", model.friendly_name)
    with no_error(where):
        return dict(core.query_model(model, device))


def _assert_all_supported(core: Any, device: str, model: Model) -> None:
    """Every op of ``model`` is in the answer; the failure names the ops the device left out."""
    __tracebackhide__ = True
    answer = _query(core, device, model)
    where = call(device, "query_model", model.friendly_name)
    missing = [f"{n.friendly_name!r} ({n.type_name})" for n in model.get_ordered_ops() if n.friendly_name not in answer]
    if missing:
        fail("ops missing from the query_model answer", ", ".join(missing),
             f"none: every op of {model.friendly_name} reported supported (the device left these out of its "
             f"answer, i.e. declared them not supported; it answered {len(answer)} of "
             f"{len(model.get_ordered_ops())} ops)", where)


@pytest.mark.mandatory
def test_query_model_actual_no_throw(ov_core: Any, ov_device_name: str) -> None:
    """OVClassModelTestP.QueryModelActualNoThrow."""
    model = _models.build("split_conv_concat")
    assert_not_empty(_query(ov_core, ov_device_name, model), "query_model answer",
                     call(ov_device_name, "query_model", model.friendly_name))


@pytest.mark.mandatory
def test_query_model_with_kso(ov_core: Any, ov_device_name: str) -> None:
    """OVClassModelTestP.QueryModelWithKSO: every op of the KSO model is supported."""
    _assert_all_supported(ov_core, ov_device_name, _models.build("kso"))


def test_query_model_with_matmul(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str) -> None:
    """OVClassQueryModelTest.QueryModelWithMatMul (M(HW)): ShapeOf/Gather/Concat/Reshape/MatMul."""
    hardware_scope(request, ov_core, ov_device_name)
    _assert_all_supported(ov_core, ov_device_name, _models.build("shapeof_matmul"))


def test_query_model_with_device_id(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str) -> None:
    """OVClassQueryModelTest.QueryModelHETEROWithDeviceIDNoThrow (M(HW)): ``DEV.<id>`` and
    ``HETERO:DEV.<id>`` report every op (plain ``DEV`` for a device whose DEVICE_ID is empty: it
    has no ``DEV.<id>`` form)."""
    hardware_scope(request, ov_core, ov_device_name, P.DEVICE_ID)
    device_id = str(ov_core.get_property(ov_device_name, P.DEVICE_ID))
    device = f"{ov_device_name}.{device_id}" if device_id else ov_device_name
    _assert_all_supported(ov_core, device, _models.build("relu"))
    _assert_all_supported(ov_core, f"HETERO:{device}", _models.build("relu"))


@pytest.mark.parametrize("suffix", ["110", "l0"], ids=["big_id", "invalid_id"])
def test_query_model_with_bad_device_id_throws(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str,
                                               suffix: str) -> None:
    """OVClassQueryModelTest.QueryModelWithBigDeviceIDThrows / QueryModelWithInvalidDeviceIDThrows (M(HW))."""
    hardware_scope(request, ov_core, ov_device_name)
    device = f"{ov_device_name}.{suffix}"
    model = _models.build("relu")
    assert_raises_ov_error(OVConformError, ov_core.query_model, model, device,
                           call=call(device, "query_model", model.friendly_name))


@pytest.mark.parametrize("name", sorted(set(_models.CASES) - {"kso"}))
def test_query_model_reports_every_op(ov_core: Any, ov_device_name: str, name: str) -> None:
    """(–) every op of each suite model is reported supported, and each answer names this device."""
    model = _models.build(name)
    _assert_all_supported(ov_core, ov_device_name, model)
    where = call(ov_device_name, "query_model", model.friendly_name)
    for op, target in _query(ov_core, ov_device_name, model).items():
        assert_in(str(target).split(".")[0], [ov_device_name], f"device answered for {op!r}", where)


def test_query_model_partially_supported(ov_core: Any, ov_device_name: str) -> None:
    """(–, seeds 001/002) a model with an op no device implements (``_models.partly_supported_model``):
    query_model reports exactly the fully supported ops (every node a fused group stands for), the
    Parameter and Constant inputs of supported ops and the Results of supported ops, and drops the
    unsupported op, the Constant only it uses and its Result; compile_model of the whole model then
    fails, as the answer says it must."""
    model = _models.partly_supported_model()
    answer = set(_query(ov_core, ov_device_name, model))
    where = (call(ov_device_name, "query_model", model.friendly_name)
             + f" (op {_models.OPAQUE_OP} is implemented nowhere)")
    missing = sorted(set(_models.PARTLY_SUPPORTED) - answer)
    claimed = sorted(answer & set(_models.PARTLY_UNSUPPORTED))
    assert_that(not missing, "supported ops missing from the answer", missing,
                "none (a supported op, and the Parameter, Constant and Result next to it, are reported)", where)
    assert_that(not claimed, "unsupported or housekeeping-only ops in the answer", claimed,
                "none (only fully supported ops; a Constant or Result next to unsupported ops only is dropped)", where)
    assert_raises_ov_error(OVConformError, ov_core.compile_model, model, ov_device_name,
                           call=call(ov_device_name, "compile_model", model.friendly_name) +
                           " (query_model declared op 'opaque' not supported)")


def _single_op(name: str, build: Callable[[Any], Any]) -> Model:
    x = ops.parameter([2, 3], np.float32, name="data")
    x.output(0).set_names({"data"})
    node = build(x)
    node.set_friendly_name(f"{name}_op")
    return Model([node], [x], f"single_{name}")


SINGLE_OPS: dict[str, tuple[Callable[[Any], Any], Callable[[np.ndarray], np.ndarray]]] = {
    "relu": (ops.relu, lambda x: np.maximum(x, np.float32(0))),
    "sigmoid": (ops.sigmoid, lambda x: (1 / (1 + np.exp(-x))).astype(np.float32)),
    "tanh": (ops.tanh, np.tanh),
    "exp": (ops.exp, np.exp),
    "abs": (ops.abs, np.abs),
    "softmax": (lambda x: ops.softmax(x, 1),
                lambda x: (np.exp(x) / np.exp(x).sum(1, keepdims=True)).astype(np.float32)),
    "transpose": (lambda x: ops.transpose(x, ops.constant(np.array([1, 0], np.int64))), lambda x: x.T),
    "reduce_sum": (lambda x: ops.reduce_sum(x, ops.constant(np.array([1], np.int64)), False), lambda x: x.sum(1)),
}


@pytest.mark.parametrize("op", sorted(SINGLE_OPS))
def test_query_model_claims_only_what_runs(ov_core: Any, ov_device_name: str, op: str,
                                           record_ov_fact: Callable[[str, Any], None]) -> None:
    """(–) an op query_model declares supported compiles and computes the oracle's numbers; an op it
    leaves out is declared not-supported, not wrong: recorded as the fact ``query_model_supported``."""
    build, oracle = SINGLE_OPS[op]
    model = _single_op(op, build)
    answer = _query(ov_core, ov_device_name, model)
    record_ov_fact("query_model_supported", f"{op}_op" in answer)
    if f"{op}_op" not in answer:
        return
    where = call(ov_device_name, "compile_model+infer", model.friendly_name) + \
        f" (query_model declared {op}_op supported)"
    x = np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32)
    with no_error(where):
        result = ov_core.compile_model(model, ov_device_name).create_infer_request().infer({"data": x})
    assert_outputs_close(list(result.values())[0], oracle(x), f"{op} output", where, rtol=1e-5, atol=1e-6)
