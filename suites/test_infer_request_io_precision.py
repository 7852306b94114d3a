"""Tensor element types (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/io_tensor.cpp``.

* OVInferRequestIOTensorSetPrecisionTest (CanSetInBlobWithDifferentPrecision,
  CanSetOutBlobWithDifferentPrecision) — M for the 12 conformance element types, O for bf16:
  a tensor of another element type is refused, one of the port's type accepted.
* OVInferRequestCheckTensorPrecision (5 bodies) — M for the 12 types, O for bf16: the tensor got
  through the compiled port, the model's port, the tensor name and the index is one and the same
  (element type, shape, byte size, strides, memory), and the tensors of different ports hold
  different memory (OpenVINO's ``EXPECT_FALSE`` on port 0's and port 1's data).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
from ovconform.assertions import assert_equal, assert_raises_ov_error, assert_same_memory, call, no_error
from ovconform.errors import ValidationError
from ovconform.ir import Model, Type, as_type
from ovconform.suites import _models

pytestmark = pytest.mark.entity("ov_infer_request")

TYPES = [pytest.param(t, marks=pytest.mark.mandatory) for t in _models.ELEMENT_TYPES] + [pytest.param("bf16")]


def _other_type(dtype: str) -> Type:
    return Type.f32 if dtype != "f32" else Type.i32


def _compile(core: Any, device: str, model: Model) -> Any:
    with no_error(call(device, "compile_model", model.friendly_name, str(model.inputs[0].get_element_type()))):
        return core.compile_model(model, device)


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("side", ["input", "output"])
def test_set_tensor_with_different_precision(ov_core: Any, ov_device_name: str, side: str, dtype: str) -> None:
    """OVInferRequestIOTensorSetPrecisionTest: another element type is refused, the port's is accepted."""
    compiled = _compile(ov_core, ov_device_name, _models.split_concat(dtype))
    request = compiled.create_infer_request()
    port = compiled.input() if side == "input" else compiled.output()
    shape = tuple(port.get_partial_shape().to_shape())
    wrong = Tensor(_other_type(dtype), shape)
    assert_raises_ov_error(ValidationError, request.set_tensor, port, wrong,
                           call=call(ov_device_name, "InferRequest.set_tensor", side, wrong))
    right = Tensor(as_type(dtype), shape)
    with no_error(call(ov_device_name, "InferRequest.set_tensor", side, right)):
        request.set_tensor(port, right)


def _same_tensor(tensors: dict[str, Any], port: Any, where: str) -> None:
    __tracebackhide__ = True
    first_key, first = next(iter(tensors.items()))
    assert_equal(first.element_type, port.get_element_type(), f"element type via {first_key}", where)
    for key, tensor in tensors.items():
        what = f"tensor via {key}"
        assert_equal((tensor.element_type, tuple(tensor.shape), tensor.byte_size, tuple(tensor.strides)),
                     (first.element_type, tuple(first.shape), first.byte_size, tuple(first.strides)),
                     f"{what} (type, shape, byte size, strides) vs via {first_key}", where)
        assert_same_memory(tensor, first, what, where)


def _check_ports(core: Any, device: str, model: Model, side: str) -> None:
    __tracebackhide__ = True
    compiled = _compile(core, device, model)
    request = compiled.create_infer_request()
    firsts: list[Any] = []
    for index, model_port in enumerate(getattr(model, side + "s")):
        where = call(device, "InferRequest.get_tensor", f"{side} {index}", str(model_port.get_element_type()))
        getter = request.get_input_tensor if side == "input" else request.get_output_tensor
        with no_error(where):
            tensors = {
                "compiled port": request.get_tensor(getattr(compiled, side)(index)),
                "model port": request.get_tensor(model_port),
                "tensor name": request.get_tensor(model_port.get_any_name()),
                "index": getter(index),
            }
            if len(getattr(model, side + "s")) == 1:
                tensors["no index"] = getter()
        _same_tensor(tensors, getattr(compiled, side)(index), where)
        firsts.append(tensors["index"])
    where = call(device, "InferRequest.get_tensor", f"each {side}")
    shared = [(a, b) for a in range(len(firsts)) for b in range(a + 1, len(firsts))
              if np.shares_memory(firsts[a].data, firsts[b].data)]
    assert_equal(shared, [], f"{side} ports whose tensors share memory (OpenVINO: EXPECT_FALSE on their data)", where)


BODIES: dict[str, tuple[Callable[[str], Model], str]] = {
    "input_from_function_with_single_input": (_models.split_concat, "input"),
    "output_from_function_with_single_input": (_models.split_concat, "output"),
    "inputs_from_function_with_several_inputs": (_models.concat_with_params, "input"),
    "outputs_from_function_with_several_outputs": (_models.two_results, "output"),
    "outputs_from_split_function_with_several_outputs": (_models.single_split, "output"),
}


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("body", sorted(BODIES))
def test_check_tensor_precision(ov_core: Any, ov_device_name: str, body: str, dtype: str) -> None:
    """OVInferRequestCheckTensorPrecision.get{Input,Output}[s]From{Function,SplitFunction}With...:
    one tensor however it is looked up."""
    build, side = BODIES[body]
    _check_ports(ov_core, ov_device_name, build(dtype), side)
