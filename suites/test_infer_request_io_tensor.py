"""Input and output tensors (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/io_tensor.cpp``,
OVInferRequestIOTensorTest — all M.

set_tensor refuses a missing, empty or wrongly shaped tensor and an unknown name; get_tensor
returns the very memory that was set (zero-copy) and does not reallocate between calls or
across an inference; inference works with device-allocated and with user tensors; a static
model's tensor reshaped by the user makes infer() throw; infer() does not modify its input.
"Uninitialised tensor" has no Python form; the nearest is a zero-sized tensor of the port's type.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
from ovconform.assertions import (
    assert_equal,
    assert_outputs_close,
    assert_raises_ov_error,
    assert_same_memory,
    call,
    no_error,
)
from ovconform.errors import NotFoundError, OVConformError, ValidationError
from ovconform.suites import _models

pytestmark = [pytest.mark.entity("ov_infer_request"), pytest.mark.mandatory]

SHAPE = (1, 3, 4, 4)


@pytest.fixture
def compiled(ov_core: Any, ov_device_name: str) -> Any:
    model = _models.build("relu")
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        return ov_core.compile_model(model, ov_device_name)


@pytest.fixture
def req(compiled: Any, ov_device_name: str) -> Any:
    with no_error(call(ov_device_name, "CompiledModel.create_infer_request")):
        return compiled.create_infer_request()


def _random(seed: int = 0, shape: tuple[int, ...] = SHAPE) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.float32(0))


def _port(compiled: Any, side: str) -> Any:
    return compiled.input() if side == "input" else compiled.output()


@pytest.mark.parametrize("side", ["input", "output"])
def test_fail_to_set_none(compiled: Any, req: Any, ov_device_name: str, side: str) -> None:
    """failToSetNullptrForInput / failToSetNullptrForOutput."""
    assert_raises_ov_error(OVConformError, req.set_tensor, _port(compiled, side), None,
                           call=call(ov_device_name, "InferRequest.set_tensor", side, None))


@pytest.mark.parametrize("side", ["input", "output"])
def test_fail_to_set_uninitialized_tensor(compiled: Any, req: Any, ov_device_name: str, side: str) -> None:
    """failToSetUninitializedInputTensor / ...OutputTensor: a zero-sized tensor for a static port."""
    empty = Tensor(np.zeros((0,) * len(SHAPE), np.float32))
    assert_raises_ov_error(ValidationError, req.set_tensor, _port(compiled, side), empty,
                           call=call(ov_device_name, "InferRequest.set_tensor", side, empty))


@pytest.mark.parametrize("side", ["input", "output"])
def test_can_set_and_get_tensor(compiled: Any, req: Any, ov_device_name: str, side: str) -> None:
    """canSetAndGetInput / canSetAndGetOutput: get_tensor returns the memory that was set."""
    port = _port(compiled, side)
    tensor = Tensor(_random(1), shared_memory=True)
    where = call(ov_device_name, "InferRequest.set_tensor/get_tensor", side)
    with no_error(where):
        req.set_tensor(port, tensor)
        got = req.get_tensor(port)
    assert_same_memory(got, tensor, f"get_tensor({side})", where)
    assert_equal((got.element_type, got.shape), (tensor.element_type, tensor.shape), "(type, shape)", where)


@pytest.mark.parametrize("side", ["input", "output"])
def test_get_after_set_does_not_change_tensor(compiled: Any, req: Any, ov_device_name: str, side: str) -> None:
    """getAfterSetInputDoNotChangeInput / getAfterSetOutputDoNotChangeOutput: same memory, same values."""
    port = _port(compiled, side)
    values = _random(2)
    tensor = Tensor(values.copy())
    where = call(ov_device_name, "InferRequest.get_tensor", side) + " after set_tensor"
    with no_error(where):
        req.set_tensor(port, tensor)
        got = req.get_tensor(port)
    assert_same_memory(got, tensor, f"get_tensor({side})", where)
    assert_outputs_close(got.data, values, f"{side} values", where, rtol=0, atol=0)


def test_fail_to_set_tensor_with_incorrect_name(req: Any, ov_device_name: str) -> None:
    """failToSetTensorWithIncorrectName."""
    assert_raises_ov_error(NotFoundError, req.set_tensor, "incorrect_input", Tensor(_random()),
                           call=call(ov_device_name, "InferRequest.set_tensor", "incorrect_input"))


@pytest.mark.parametrize("side", ["input", "output"])
def test_fail_to_set_tensor_with_incorrect_sizes(compiled: Any, req: Any, ov_device_name: str, side: str) -> None:
    """failToSetInputWithIncorrectSizes / failToSetOutputWithIncorrectSizes."""
    wrong = Tensor(_random(3, (2, 3, 4, 4)))
    assert_raises_ov_error(ValidationError, req.set_tensor, _port(compiled, side), wrong,
                           call=call(ov_device_name, "InferRequest.set_tensor", side, wrong))


@pytest.mark.parametrize("how", ["infer", "async"])
def test_can_infer_without_set_and_get(req: Any, ov_device_name: str, how: str) -> None:
    """canInferWithoutSetAndGetInOutSync / ...Async: device-allocated tensors (zeros in) work."""
    where = call(ov_device_name, f"InferRequest.{how}") + " without set/get"
    with no_error(where):
        if how == "infer":
            req.infer()
        else:
            req.start_async()
            req.wait()
        got = req.get_output_tensor().data
    assert_outputs_close(got, _relu(req.get_input_tensor().data), "output", where)


@pytest.mark.parametrize("side", ["input", "output"])
def test_second_get_does_not_reallocate(compiled: Any, req: Any, ov_device_name: str, side: str) -> None:
    """secondCallGetInputDoNotReAllocateData / secondCallGetOutputDoNotReAllocateData."""
    port = _port(compiled, side)
    where = call(ov_device_name, "InferRequest.get_tensor", side) + " twice"
    with no_error(where):
        first, second = req.get_tensor(port), req.get_tensor(port)
    assert_same_memory(second, first, f"second get_tensor({side})", where)


@pytest.mark.parametrize("side", ["input", "output"])
def test_second_get_after_infer_does_not_reallocate(compiled: Any, req: Any, ov_device_name: str, side: str) -> None:
    """secondCallGetInputAfterInferSync / secondCallGetOutputAfterInferSync."""
    port = _port(compiled, side)
    where = call(ov_device_name, "InferRequest.get_tensor", side) + " before and after infer()"
    with no_error(where):
        first = req.get_tensor(port)
        req.infer()
        second = req.get_tensor(port)
    assert_same_memory(second, first, f"get_tensor({side}) after infer", where)


def test_can_infer_with_set_in_out_tensors(compiled: Any, req: Any, ov_device_name: str) -> None:
    """canInferWithSetInOutBlobs: the output lands in the user's output tensor."""
    x = _random(4)
    inp, out = Tensor(x, shared_memory=True), Tensor(np.zeros(SHAPE, np.float32), shared_memory=True)
    where = call(ov_device_name, "InferRequest.infer") + " with user input and output tensors"
    with no_error(where):
        req.set_tensor(compiled.input(), inp)
        req.set_tensor(compiled.output(), out)
        req.infer()
    assert_outputs_close(out.data, _relu(x), "user output tensor", where)


def test_can_infer_with_get_in(compiled: Any, req: Any, ov_device_name: str) -> None:
    """canInferWithGetIn: fill the device's input tensor in place, then infer."""
    x = _random(5)
    where = call(ov_device_name, "InferRequest.infer") + " after writing into get_tensor(input)"
    with no_error(where):
        req.get_tensor(compiled.input()).data[...] = x
        req.infer()
        got = req.get_tensor(compiled.output()).data
    assert_outputs_close(got, _relu(x), "output", where)


def test_can_infer_after_io_tensor_reallocation(compiled: Any, req: Any, ov_device_name: str) -> None:
    """canInferAfterIOBlobReallocation: new tensors between inferences are used."""
    where = call(ov_device_name, "InferRequest.infer") + " after set_tensor with new tensors"
    for seed in (6, 7):
        x = _random(seed)
        out = Tensor(np.zeros(SHAPE, np.float32))
        with no_error(where):
            req.set_tensor(compiled.input(), Tensor(x))
            req.set_tensor(compiled.output(), out)
            req.infer()
        assert_outputs_close(out.data, _relu(x), f"output (seed {seed})", where)


def test_can_infer_with_get_out(compiled: Any, req: Any, ov_device_name: str) -> None:
    """canInferWithGetOut: the output tensor obtained before infer() holds the result after it."""
    x = _random(8)
    where = call(ov_device_name, "InferRequest.infer") + " with get_tensor(output) taken before"
    with no_error(where):
        out = req.get_tensor(compiled.output())
        req.set_tensor(compiled.input(), Tensor(x))
        req.infer()
    assert_outputs_close(out.data, _relu(x), "output tensor taken before infer", where)


@pytest.mark.parametrize("side", ["input", "output"])
def test_infer_static_network_with_changed_tensor_throws(compiled: Any, req: Any, ov_device_name: str,
                                                         side: str) -> None:
    """InferStaticNetworkSetChangedInputTensorThrow / ...OutputTensorThrow: reshaping a static
    model's tensor makes infer() throw."""
    where = call(ov_device_name, "InferRequest.infer") + f" after get_tensor({side}).set_shape([2, 3, 4, 4])"
    with no_error(call(ov_device_name, "Tensor.set_shape", [2, 3, 4, 4])):
        req.get_tensor(_port(compiled, side)).set_shape([2, 3, 4, 4])
    assert_raises_ov_error(ValidationError, req.infer, call=where)


def test_check_infer_is_not_change_input(compiled: Any, req: Any, ov_device_name: str) -> None:
    """CheckInferIsNotChangeInput."""
    x = _random(9)
    tensor = Tensor(x.copy(), shared_memory=True)
    where = call(ov_device_name, "InferRequest.infer")
    with no_error(where):
        req.set_tensor(compiled.input(), tensor)
        req.infer()
    assert_outputs_close(tensor.data, x, "input after infer", where, rtol=0, atol=0)


def test_requests_and_ports_hold_distinct_buffers(ov_core: Any, ov_device_name: str) -> None:
    """OVInferRequestCheckTensorPrecision's ``EXPECT_FALSE`` on port 0 and port 1 data, for every
    port of two requests of one compiled model (two inputs, two outputs): no two of the eight
    tensors share memory, after each request ran with its own inputs, and each request's outputs
    are those of its own inputs."""
    model = _models.two_results("f32")
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        compiled = ov_core.compile_model(model, ov_device_name)
    tensors: dict[str, Any] = {}
    where = call(ov_device_name, "InferRequest.get_tensor", "<each port of two requests>") + " after infer()"
    requests = [compiled.create_infer_request() for _ in range(2)]
    inputs = [_models.make_inputs(model, seed) for seed in (21, 22)]
    with no_error(where):
        for k, request in enumerate(requests):
            request.infer(inputs[k])
        for k, request in enumerate(requests):
            for i in range(2):
                tensors[f"request {k} input {i}"] = request.get_input_tensor(i)
                tensors[f"request {k} output {i}"] = request.get_output_tensor(i)
    names = sorted(tensors)
    shared = [(a, b) for n, a in enumerate(names) for b in names[n + 1:]
              if np.shares_memory(tensors[a].data, tensors[b].data)]
    assert_equal(shared, [], "tensors that share memory", where)
    for k in range(2):
        a, b = inputs[k]["data1"], inputs[k]["data2"]
        for i, want in enumerate((np.concatenate([a, b], 1), np.concatenate([b, b], 1))):
            assert_outputs_close(tensors[f"request {k} output {i}"].data, want, f"request {k} output {i}", where)
