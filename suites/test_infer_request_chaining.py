"""Chaining requests (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/inference_chaining.cpp``
and ``iteration_chaining.cpp``.

* OVInferenceChainingStatic / OVInferenceChaining.StaticOutputToStaticInput — M: request r0
  computes ``a + b + c`` = {12, 15, 18}; its output tensor becomes r1's input and r1 computes
  ``x * {2, 3, 2}`` = {24, 45, 36}. Two forms: r0's output handed to r1 after r0 ran, and r1's
  input tensor set as r0's output before r0 ran (r0 writes straight into it).
* StaticOutputToDynamicInput, DynamicOutputToDynamicInput, DynamicInputToDynamicOutput — O.
* OVIterationChaining.Simple (–): a [-1, 16] model's output fed back as its next input ten
  times, starting from an empty {0, 16} tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
from ovconform.assertions import assert_equal, assert_outputs_close, call, no_error
from ovconform.suites import _models

pytestmark = pytest.mark.entity("ov_infer_request")

A, B, C = ([1, 2, 3], [4, 5, 6], [7, 8, 9])
FACTOR = [2, 3, 2]
SUM, PRODUCT = np.array([12, 15, 18], np.float32), np.array([24, 45, 36], np.float32)


def _requests(core: Any, device: str, first_dynamic: bool, second_dynamic: bool) -> tuple[Any, Any]:
    first, _ = _models.chain_models(first_dynamic)
    _, second = _models.chain_models(second_dynamic)
    with no_error(call(device, "compile_model", "ChainFirst/ChainSecond")):
        return (core.compile_model(first, device).create_infer_request(),
                core.compile_model(second, device).create_infer_request())


def _t(values: list[int]) -> Tensor:
    return Tensor(np.array(values, np.float32))


def _set_first_inputs(r0: Any) -> None:
    for i, values in enumerate((A, B, C)):
        r0.set_tensor(f"input_tensor_{i}", _t(values))


def _output_to_input(core: Any, device: str, first_dynamic: bool, second_dynamic: bool) -> None:
    __tracebackhide__ = True
    r0, r1 = _requests(core, device, first_dynamic, second_dynamic)
    where = call(device, "InferRequest.infer") + " r0, then r1 with r0's output tensor as input_tensor_0"
    with no_error(where):
        _set_first_inputs(r0)
        r0.infer()
        r1.set_tensor("input_tensor_0", r0.get_tensor("result_tensor_0"))
        r1.set_tensor("input_tensor_1", _t(FACTOR))
        r1.infer()
    assert_outputs_close(r0.get_tensor("result_tensor_0").data, SUM, "r0 output", where, rtol=0, atol=0)
    assert_outputs_close(r1.get_tensor("result_tensor_0").data, PRODUCT, "r1 output", where, rtol=0, atol=0)


def _input_as_output(core: Any, device: str, first_dynamic: bool, second_dynamic: bool) -> None:
    __tracebackhide__ = True
    r0, r1 = _requests(core, device, first_dynamic, second_dynamic)
    where = call(device, "InferRequest.infer") + " r0 writing into r1's input_tensor_0, then r1"
    with no_error(where):
        shared = r1.get_tensor("input_tensor_0")
        if first_dynamic or second_dynamic:
            shared = Tensor(np.zeros(3, np.float32))
            r1.set_tensor("input_tensor_0", shared)
        r0.set_tensor("result_tensor_0", shared)
        _set_first_inputs(r0)
        r0.infer()
        r1.set_tensor("input_tensor_1", _t(FACTOR))
        r1.infer()
    assert_outputs_close(shared.data, SUM, "r1's input tensor after r0 ran", where, rtol=0, atol=0)
    assert_outputs_close(r1.get_tensor("result_tensor_0").data, PRODUCT, "r1 output", where, rtol=0, atol=0)


@pytest.mark.mandatory
@pytest.mark.parametrize("form", ["output_to_input", "input_as_output"])
def test_static_output_to_static_input(ov_core: Any, ov_device_name: str, form: str) -> None:
    """OVInferenceChainingStatic.StaticOutputToStaticInput / OVInferenceChaining.StaticOutputToStaticInput."""
    (_output_to_input if form == "output_to_input" else _input_as_output)(ov_core, ov_device_name, False, False)


def test_static_output_to_dynamic_input(ov_core: Any, ov_device_name: str) -> None:
    """OVInferenceChaining.StaticOutputToDynamicInput (O)."""
    _output_to_input(ov_core, ov_device_name, False, True)


def test_dynamic_output_to_dynamic_input(ov_core: Any, ov_device_name: str) -> None:
    """OVInferenceChaining.DynamicOutputToDynamicInput (O)."""
    _output_to_input(ov_core, ov_device_name, True, True)


def test_dynamic_input_to_dynamic_output(ov_core: Any, ov_device_name: str) -> None:
    """OVInferenceChaining.DynamicInputToDynamicOutput (O): r1's input set as r0's output first."""
    _input_as_output(ov_core, ov_device_name, True, True)


def test_iteration_chaining(ov_core: Any, ov_device_name: str) -> None:
    """OVIterationChaining.Simple (–): ten feedback steps from an empty {0, 16} tensor."""
    model = _models.iteration_model()
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        request = ov_core.compile_model(model, ov_device_name).create_infer_request()
    tensor = Tensor(np.zeros((0, 16), np.float32))
    where = call(ov_device_name, "InferRequest.infer") + " fed back its own output"
    for step in range(1, 11):
        with no_error(f"{where} (step {step})"):
            request.set_tensor("data", tensor)
            request.infer()
            tensor = Tensor(request.get_tensor("out").data.copy())
        assert_equal(tuple(tensor.shape), (step, 16), f"output shape after step {step}", where)
    assert_outputs_close(tensor.data, np.ones((10, 16), np.float32), "final output", where, rtol=0, atol=0)
