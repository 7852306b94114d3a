"""Dynamic shapes (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/infer_request_dynamic.cpp``,
OVInferRequestDynamicTests — O, each of the 19 bodies on both conformance models
(AddTwoOutputEdges, SplitAddConcat; :func:`ovconform.suites._models.dynamic_model`).

Dynamic ([-1, 4, 4, 4]), bounded (1..5, 1..19) and fully dynamic ([?, ?, ?, ?]) inputs; the
output has the right type and a zero size before inference and the right shape and numbers
(numpy oracle) after it; a user output tensor (wrong shape, pre-allocated, reshaped) is resized
or used in place. OpenVINO leaves out-of-range shapes unspecified ("may or may not throw");
the Python contract specifies a ValidationError, and that is what is checked here.

A static-only device declares itself with ``supports_dynamic_shapes = False`` on its plugin class
(:class:`ovconform.contract.plugin.Plugin`; OpenVINO has no property for it): these tests then skip,
and OVNotSupportRequestDynamicTests.InferDynamicNotSupported (–) runs instead: compile_model of the
dynamic model raises NotImplementedByDeviceError (OpenVINO: any ov::Exception) saying "dynamic",
and the same model with a static input compiles and computes the oracle's numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Core, Tensor
from ovconform.assertions import (
    assert_equal,
    assert_outputs_close,
    assert_raises_ov_error,
    assert_same_memory,
    assert_that,
    call,
    no_error,
)
from ovconform.errors import NotImplementedByDeviceError, ValidationError
from ovconform.ir import PartialShape
from ovconform.suites import _models
from ovconform.suites._helpers import new_core, supports_dynamic_shapes

pytestmark = [pytest.mark.entity("ov_infer_request"),
              pytest.mark.parametrize("kind", ["add_two_output_edges", "split_add_concat"])]

DYNAMIC = [-1, 4, 4, 4]
BOUNDED_5 = ["1..5", 4, 4, 4]
BOUNDED_19 = ["1..19", 4, 4, 4]
NARROW = ["2..3", 4, 4, 4]
FULLY = PartialShape.dynamic(4)


NOT_SUPPORTED_TEST = "test_infer_dynamic_not_supported"


@pytest.fixture(autouse=True)
def _dynamic_device(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str) -> None:
    """The dynamic-shape bodies skip on a static-only device; the not-supported one skips elsewhere."""
    dynamic = supports_dynamic_shapes(ov_core, ov_device_name)
    if request.node.originalname == NOT_SUPPORTED_TEST:
        if dynamic:
            pytest.skip(f"{ov_device_name}: supports dynamic shapes (its plugin does not declare "
                        "supports_dynamic_shapes = False)")
    elif not dynamic:
        pytest.skip(f"{ov_device_name}: a static-only device (supports_dynamic_shapes = False)")


def test_infer_dynamic_not_supported(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """OVNotSupportRequestDynamicTests.InferDynamicNotSupported (–): a static-only device refuses the
    model with input [-1, 4, 4, 4] and runs it with input [2, 4, 4, 4]."""
    model = _models.dynamic_model(kind, DYNAMIC)
    assert_raises_ov_error(NotImplementedByDeviceError, ov_core.compile_model, model, ov_device_name, match="dynamic",
                           call=call(ov_device_name, "compile_model", model.friendly_name, str(PartialShape(DYNAMIC))))
    request, compiled = _request(ov_core, ov_device_name, kind, [2, 4, 4, 4])
    x = _x(2)
    where = call(ov_device_name, "InferRequest.infer", "static input [2, 4, 4, 4]")
    _infer(request, where, {"data": x})
    _check(request, compiled, kind, x, where)


def _request(core: Any, device: str, kind: str, shape: Any) -> tuple[Any, Any]:
    model = _models.dynamic_model(kind, shape)
    with no_error(call(device, "compile_model", model.friendly_name, str(PartialShape(shape)))):
        compiled = core.compile_model(model, device)
    return compiled.create_infer_request(), compiled


def _x(batch: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((batch, 4, 4, 4)).astype(np.float32)


def _names(compiled: Any) -> list[str]:
    return [p.get_any_name() for p in compiled.outputs]


def _check(request: Any, compiled: Any, kind: str, x: np.ndarray, where: str) -> None:
    __tracebackhide__ = True
    for name, want in zip(_names(compiled), _models.dynamic_oracle(kind, x), strict=True):
        with no_error(where):
            got = request.get_tensor(name)
        assert_equal(tuple(got.shape), want.shape, f"output {name!r} shape", where)
        assert_outputs_close(got.data, want, f"output {name!r}", where)


def _infer(request: Any, where: str, inputs: Any = None) -> None:
    with no_error(where):
        request.infer(inputs)


def test_infer_dynamic_network(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """InferDynamicNetwork: batches 2, 2, 3 in turn (the same/same/different sequence)."""
    request, compiled = _request(ov_core, ov_device_name, kind, DYNAMIC)
    for step, batch in enumerate((2, 2, 3)):
        x = _x(batch, step)
        where = call(ov_device_name, "InferRequest.infer", f"batch {batch}, step {step + 1}")
        _infer(request, where, {"data": x})
        _check(request, compiled, kind, x, where)


def test_set_unexpected_output_tensor_before_infer(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """InferDynamicNetworkSetUnexpectedOutputTensorBeforeInfer: a wrongly shaped output is resized."""
    request, compiled = _request(ov_core, ov_device_name, kind, DYNAMIC)
    x = _x(2)
    where = call(ov_device_name, "InferRequest.infer") + " with [1,4,4,4] output tensors for a batch of 2"
    with no_error(where):
        for name in _names(compiled):
            request.set_tensor(name, Tensor(np.zeros((1, 4, 4, 4), np.float32)))
    _infer(request, where, {"data": x})
    _check(request, compiled, kind, x, where)


def test_set_output_tensor_pre_allocated_memory(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """InferDynamicNetworkSetOutputTensorPreAllocatedMemoryBeforeInfer: results land in user memory."""
    request, compiled = _request(ov_core, ov_device_name, kind, DYNAMIC)
    x = _x(2)
    buffers = {name: np.zeros((2, 4, 4, 4), np.float32) for name in _names(compiled)}
    where = call(ov_device_name, "InferRequest.infer") + " with pre-allocated output tensors"
    with no_error(where):
        for name, buffer in buffers.items():
            request.set_tensor(name, Tensor(buffer, shared_memory=True))
    _infer(request, where, {"data": x})
    for (name, buffer), want in zip(buffers.items(), _models.dynamic_oracle(kind, x), strict=True):
        assert_same_memory(request.get_tensor(name), buffer, f"output {name!r}", where)
        assert_outputs_close(buffer, want, f"user buffer of {name!r}", where)


def test_set_output_shape_before_infer(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """InferDynamicNetworkSetOutputShapeBeforeInfer: the device's output tensor, reshaped first, is used."""
    request, compiled = _request(ov_core, ov_device_name, kind, DYNAMIC)
    x = _x(2)
    where = call(ov_device_name, "InferRequest.infer") + " after get_tensor(output).set_shape([2,4,4,4])"
    with no_error(where):
        outputs = {name: request.get_tensor(name) for name in _names(compiled)}
        for tensor in outputs.values():
            tensor.set_shape([2, 4, 4, 4])
    _infer(request, where, {"data": x})
    for name, tensor in outputs.items():
        assert_same_memory(request.get_tensor(name), tensor, f"output {name!r}", where)
    _check(request, compiled, kind, x, where)


def test_get_output_then_set_pre_allocated_output(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """InferDynamicNetworkGetOutputThenSetOutputTensorPreAllocatedMemoryBeforeInfer."""
    request, compiled = _request(ov_core, ov_device_name, kind, DYNAMIC)
    x = _x(2)
    where = call(ov_device_name, "InferRequest.infer") + " after get_tensor(output) then set_tensor(pre-allocated)"
    buffers = {name: np.zeros((2, 4, 4, 4), np.float32) for name in _names(compiled)}
    with no_error(where):
        for name, buffer in buffers.items():
            request.get_tensor(name)
            request.set_tensor(name, Tensor(buffer, shared_memory=True))
    _infer(request, where, {"data": x})
    for (name, buffer), want in zip(buffers.items(), _models.dynamic_oracle(kind, x), strict=True):
        assert_outputs_close(buffer, want, f"user buffer of {name!r}", where)


@pytest.mark.parametrize("shape", [DYNAMIC, BOUNDED_5], ids=["dynamic", "bounded"])
def test_get_tensor_without_set_shape(ov_core: Any, ov_device_name: str, kind: str, shape: list[Any]) -> None:
    """InferDynamicNetworkWithoutSetShape / InferDynamicNetworkBoundWithoutSetShape: the tensors
    exist before any shape is set, with the port's type and zero-sized dynamic dimensions."""
    request, compiled = _request(ov_core, ov_device_name, kind, shape)
    where = call(ov_device_name, "InferRequest.get_tensor") + " before a shape was set"
    with no_error(where):
        tensors = [request.get_tensor("data")] + [request.get_tensor(n) for n in _names(compiled)]
    for tensor in tensors:
        assert_equal(str(tensor.element_type), "f32", "element type", where)
        assert_equal(tensor.size, 0, f"size of a tensor of shape {list(tensor.shape)}", where)


def _run_with_get_tensor(request: Any, compiled: Any, kind: str, batch: int, where: str, seed: int = 0) -> None:
    __tracebackhide__ = True
    x = _x(batch, seed)
    with no_error(where):
        tensor = request.get_tensor("data")
        tensor.set_shape(x.shape)
        tensor.data[...] = x
    _infer(request, where)
    _check(request, compiled, kind, x, where)


@pytest.mark.parametrize(("shape", "batch"), [(DYNAMIC, 2), (BOUNDED_19, 19), (FULLY, 3)],
                         ids=["dynamic", "upper_bound", "fully_dynamic"])
def test_infer_with_get_tensor(ov_core: Any, ov_device_name: str, kind: str, shape: Any, batch: int) -> None:
    """InferDynamicNetworkWithGetTensor / InferUpperBoundNetworkWithGetTensor /
    InferFullyDynamicNetworkWithGetTensor."""
    request, compiled = _request(ov_core, ov_device_name, kind, shape)
    where = call(ov_device_name, "InferRequest.infer") + f" after get_tensor(data).set_shape(batch {batch})"
    _run_with_get_tensor(request, compiled, kind, batch, where)


def test_upper_bound_after_io_tensors_reshaping(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """InferUpperBoundNetworkAfterIOTensorsReshaping: input and output reshaped by the user first."""
    request, compiled = _request(ov_core, ov_device_name, kind, BOUNDED_19)
    x = _x(5)
    where = call(ov_device_name, "InferRequest.infer") + " after reshaping input and outputs to batch 5"
    with no_error(where):
        request.get_tensor("data").set_shape(x.shape)
        request.get_tensor("data").data[...] = x
        for name in _names(compiled):
            request.get_tensor(name).set_shape([5, 4, 4, 4])
    _infer(request, where)
    _check(request, compiled, kind, x, where)


@pytest.mark.parametrize("batch", [1, 4], ids=["lower", "upper"])
def test_out_of_range_shape_with_get_tensor(ov_core: Any, ov_device_name: str, kind: str, batch: int) -> None:
    """InferOutOfRangeShapeNetworkWithGetTensorLower / ...Upper: a batch outside 2..3 is refused
    (ValidationError, at set_shape-then-infer)."""
    request, _ = _request(ov_core, ov_device_name, kind, NARROW)
    where = call(ov_device_name, "InferRequest.infer") + f" with batch {batch} for an input of 2..3"

    def reshape_and_infer() -> None:
        request.get_tensor("data").set_shape([batch, 4, 4, 4])
        request.infer()

    assert_raises_ov_error(ValidationError, reshape_and_infer, call=where)


def test_infer_with_get_tensor_2_times(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """InferDynamicNetworkWithGetTensor2times: batch 2 then batch 3 through get_tensor."""
    request, compiled = _request(ov_core, ov_device_name, kind, DYNAMIC)
    for step, batch in enumerate((2, 3)):
        _run_with_get_tensor(request, compiled, kind, batch,
                             call(ov_device_name, "InferRequest.infer", f"get_tensor run {step + 1}, batch {batch}"),
                             seed=step)


def test_get_same_tensor_2_times(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """GetSameTensor2times: get_tensor returns the same tensor before and after set_shape."""
    request, _ = _request(ov_core, ov_device_name, kind, DYNAMIC)
    where = call(ov_device_name, "InferRequest.get_tensor", "data") + " twice, around set_shape"
    with no_error(where):
        first = request.get_tensor("data")
        first.set_shape([2, 4, 4, 4])
        second = request.get_tensor("data")
    assert_that(second is first or np.shares_memory(second.data, first.data), "second get_tensor", second,
                "the same tensor", where)
    assert_equal(tuple(second.shape), (2, 4, 4, 4), "shape seen through the second get_tensor", where)


@pytest.mark.parametrize(("shape", "batches"), [(DYNAMIC, (2,)), (FULLY, (3,)), (DYNAMIC, (2, 3))],
                         ids=["dynamic", "fully_dynamic", "dynamic_2times"])
def test_infer_with_set_tensor(ov_core: Any, ov_device_name: str, kind: str, shape: Any,
                               batches: tuple[int, ...]) -> None:
    """InferDynamicNetworkWithSetTensor / InferFullyDynamicNetworkWithSetTensor /
    InferDynamicNetworkWithSetTensor2times."""
    request, compiled = _request(ov_core, ov_device_name, kind, shape)
    for step, batch in enumerate(batches):
        x = _x(batch, step)
        where = call(ov_device_name, "InferRequest.infer") + f" after set_tensor(data, batch {batch})"
        with no_error(where):
            request.set_tensor("data", Tensor(x))
        _infer(request, where)
        _check(request, compiled, kind, x, where)


def test_infer_with_local_core(ov_plugin_spec: str, ov_device_name: str, kind: str) -> None:
    """InferDynamicNetworkWithLocalCore: the Core that compiled the model is gone before inference."""
    core: Core | None = new_core(ov_plugin_spec, ov_device_name)
    request, compiled = _request(core, ov_device_name, kind, DYNAMIC)
    core = None
    x = _x(3)
    where = call(ov_device_name, "InferRequest.infer") + " after its Core was released"
    _infer(request, where, {"data": x})
    _check(request, compiled, kind, x, where)
