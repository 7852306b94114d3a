"""Inference results (``ov_infer_request`` entity), beyond the mandatory groups:

* OVInferRequestInferenceTests.Inference_ROI_Tensor (–): an ROI (strided, non-contiguous view) as
  input gives exact expected values (``roi_nchw``, ``roi_1d``).
* OVInferConsistencyTest.Infer / AsyncInfer (–): N requests × M inferences of one model all
  agree with the oracle.
* The data path of OpenVINO's Python API (–; ``infer(inputs, share_inputs=False,
  share_outputs=False)`` and ``start_async(inputs, share_inputs=False)`` are its defaults): numpy
  inputs are copied into the request's tensors (writes into the caller's arrays after the call
  change neither that run nor the next one), results are copies (results kept from one run keep
  their values after the next run), and start_async writes into an output tensor the user set
  (canInferWithSetInOutBlobs, asynchronously).
* The input's layout and values (–): a static input takes only a tensor of its shape (another
  shape of the same element count is refused by set_tensor and by infer; OpenVINO's
  ``check_tensor`` compares shapes); a non-contiguous numpy array (a transposed view, a slice
  with a step) gives the results of its contiguous copy; a numpy array of another element type of
  the same item size (int32 for an f32 input) is converted value by value (OpenVINO's Python API)
  or refused, never read as the input type's bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Model, Tensor
from ovconform import opset as ops
from ovconform.assertions import assert_outputs_close, assert_same_memory, assert_that, call, fail, no_error
from ovconform.suites import _models

pytestmark = pytest.mark.entity("ov_infer_request")


def _add_one(shape: list[int]) -> Model:
    x = ops.parameter(shape, np.float32, name="data")
    x.output(0).set_names({"data"})
    y = ops.add(x, ops.constant(np.float32(1)), name="add_one")
    y.output(0).set_names({"out"})
    return Model([y], [x], "AddOne")


ROI_CASES = {
    "roi_nchw": ((1, 2, 6, 6), [0, 0, 1, 2], [1, 2, 4, 5]),
    "roi_1d": ((10,), [3], [8]),
}


@pytest.mark.parametrize("case", sorted(ROI_CASES))
def test_inference_roi_tensor(ov_core: Any, ov_device_name: str, case: str) -> None:
    """Inference_ROI_Tensor: exact values from a region-of-interest input tensor."""
    full_shape, begin, end = ROI_CASES[case]
    roi_shape = [e - b for b, e in zip(begin, end, strict=True)]
    full = np.arange(int(np.prod(full_shape)), dtype=np.float32).reshape(full_shape)
    base = Tensor(full, shared_memory=True)
    roi = Tensor(base, begin, end)
    want = full[tuple(slice(b, e) for b, e in zip(begin, end, strict=True))] + np.float32(1)
    where = call(ov_device_name, "InferRequest.infer", f"ROI {begin}..{end} of {list(full_shape)}")
    with no_error(where):
        request = ov_core.compile_model(_add_one(roi_shape), ov_device_name).create_infer_request()
        request.set_tensor("data", roi)
        request.infer()
        got = request.get_tensor("out").data
    assert_outputs_close(got, want, "output", where, rtol=0, atol=0)


@pytest.mark.parametrize("how", ["infer", "start_async"])
def test_infer_consistency(ov_core: Any, ov_device_name: str, how: str) -> None:
    """OVInferConsistencyTest.Infer / AsyncInfer: 4 requests × 5 runs, every result matches."""
    model = _models.build("kso")
    compiled = ov_core.compile_model(model, ov_device_name)
    requests = [compiled.create_infer_request() for _ in range(4)]
    where = call(ov_device_name, f"InferRequest.{how}") + " 4 requests x 5 runs"
    for run in range(5):
        inputs = [_models.make_inputs(model, seed=run * 10 + k) for k in range(4)]
        with no_error(where):
            for r, values in zip(requests, inputs, strict=True):
                if how == "infer":
                    r.infer(values)
                else:
                    r.start_async(values)
            for r in requests:
                r.wait()
        for k, (r, values) in enumerate(zip(requests, inputs, strict=True)):
            assert_outputs_close(r.get_output_tensor(0).data, _models.expected("kso", values)[0],
                                 f"run {run} request {k} output", where, rtol=1e-4, atol=1e-5)


def _relu_request(core: Any, device: str) -> Any:
    model = _models.build("relu")
    with no_error(call(device, "compile_model+create_infer_request", model.friendly_name)):
        return core.compile_model(model, device).create_infer_request()


def _relu_input(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((1, 3, 4, 4)).astype(np.float32)


def _run(request: Any, how: str, inputs: Any = None) -> Any:
    """infer(inputs), or start_async(inputs) + wait(); the results."""
    if how == "infer":
        return request.infer(inputs)
    request.start_async(inputs)
    request.wait()
    return request.results


@pytest.mark.parametrize("how", ["infer", "start_async"])
def test_numpy_inputs_are_copied(ov_core: Any, ov_device_name: str, how: str) -> None:
    """(–) a numpy input given to infer / start_async is copied into the request's input tensor:
    the tensor does not share the caller's memory, and writing -1 into the array right after the
    call changes neither that run's output nor that of a next run without inputs."""
    request = _relu_request(ov_core, ov_device_name)
    x = _relu_input(31)
    given = x.copy()
    where = call(ov_device_name, f"InferRequest.{how}", "{0: array}") + ", then -1 written into the array"
    with no_error(where):
        if how == "infer":
            request.infer({0: given})
            given[...] = -1.0
        else:
            request.start_async({0: given})
            given[...] = -1.0  # at once: the caller reuses its buffer for the next frame
            request.wait()
        first = request.get_output_tensor(0).data.copy()
        shared = np.shares_memory(request.get_input_tensor(0).data, given)
    assert_outputs_close(first, np.maximum(x, 0), "output of the run", where, rtol=0, atol=0)
    assert_that(not shared, "input tensor shares the caller's array", shared, False, where)
    with no_error(where + "; infer() without inputs"):
        again = request.infer()[0]
    assert_outputs_close(again, np.maximum(x, 0), "output of a next infer() without inputs", where, rtol=0, atol=0)


@pytest.mark.parametrize("how", ["infer", "start_async"])
def test_results_are_copies(ov_core: Any, ov_device_name: str, how: str) -> None:
    """(–) the results of a run (infer()'s return value, InferRequest.results after wait) are
    copies: the arrays kept from a first run still hold its outputs after a second run."""
    request = _relu_request(ov_core, ov_device_name)
    x, y = _relu_input(32), _relu_input(33)
    where = call(ov_device_name, f"InferRequest.{how}") + " twice, results of the first run kept"
    with no_error(where):
        kept = _run(request, how, {0: x})[0]
        _run(request, how, {0: y})
    assert_outputs_close(kept, np.maximum(x, 0), "results of the first run, after the second", where, rtol=0, atol=0)


def test_start_async_writes_the_user_output_tensor(ov_core: Any, ov_device_name: str) -> None:
    """(–) OVInferRequestIOTensorTest.canInferWithSetInOutBlobs run with start_async + wait: the
    result lands in the output tensor the user set, and get_tensor still returns that tensor."""
    request = _relu_request(ov_core, ov_device_name)
    x = _relu_input(34)
    out = Tensor(np.zeros((1, 3, 4, 4), np.float32), shared_memory=True)
    where = call(ov_device_name, "InferRequest.start_async+wait") + " with user input and output tensors"
    with no_error(where):
        request.set_input_tensor(0, Tensor(x.copy()))
        request.set_output_tensor(0, out)
        request.start_async()
        request.wait()
        got = request.get_output_tensor(0)
    assert_same_memory(got, out, "get_output_tensor() after the run", where)
    assert_outputs_close(out.data, np.maximum(x, 0), "user output tensor", where, rtol=0, atol=0)


def _same_count_other_shape() -> np.ndarray:
    return np.random.default_rng(35).standard_normal((1, 4, 3, 4)).astype(np.float32)


@pytest.mark.parametrize("how", ["set_tensor", "infer"])
def test_static_input_refuses_another_shape_of_the_same_size(ov_core: Any, ov_device_name: str, how: str) -> None:
    """(–) a [1, 4, 3, 4] f32 tensor (48 elements, like the port) is refused on the static
    [1, 3, 4, 4] input: by set_tensor, and by infer({0: array}) (OpenVINO: "Can't set the input
    tensor ... shape"). Comparing the element count (byte size) only is the fault."""
    request = _relu_request(ov_core, ov_device_name)
    x = _same_count_other_shape()
    what = "set_input_tensor" if how == "set_tensor" else "infer"
    where = call(ov_device_name, f"InferRequest.{what}", "<f32 [1, 4, 3, 4] on the static [1, 3, 4, 4] input>")
    try:
        if how == "set_tensor":
            request.set_input_tensor(0, Tensor(x))
        else:
            request.infer({0: x})
    except Exception:  # noqa: BLE001 - any error refuses it
        return
    fail("a tensor of shape [1, 4, 3, 4] (48 elements) on the static input of shape [1, 3, 4, 4]", "accepted",
         "refused: a static input takes only its own shape, not any shape of its element count", where)


def _strided(kind: str) -> np.ndarray:
    rng = np.random.default_rng(36)
    if kind == "transposed":
        return rng.standard_normal((1, 4, 3, 4)).astype(np.float32).transpose(0, 2, 1, 3)
    return rng.standard_normal((1, 3, 4, 8)).astype(np.float32)[..., ::2]


@pytest.mark.parametrize("kind", ["transposed", "step_slice"])
def test_non_contiguous_input_array(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """(–) infer({0: a}) with a non-contiguous numpy array ``a`` (a transposed view; a slice with
    step 2 on the last axis) gives the results of ``np.ascontiguousarray(a)``: the array is read by
    its strides, not in memory order."""
    request = _relu_request(ov_core, ov_device_name)
    x = _strided(kind)
    where = call(ov_device_name, "InferRequest.infer", f"{{0: <{kind} view, strides {x.strides}>}}")
    with no_error(where):
        got = np.array(request.infer({0: x})[0])
    assert_outputs_close(got, np.maximum(np.ascontiguousarray(x), 0), f"output of a {kind} (non-contiguous) input",
                         where, rtol=0, atol=0)


def test_input_array_of_another_type_is_converted_or_refused(ov_core: Any, ov_device_name: str) -> None:
    """(–) infer({0: int32 array}) on an f32 input: OpenVINO's Python API converts the values (the
    output is relu of the values as f32); refusing the array is allowed too. Accepting it and reading
    its bytes as f32 (a memcpy) is the fault."""
    request = _relu_request(ov_core, ov_device_name)
    x = (np.arange(48, dtype=np.int32) - 20).reshape(1, 3, 4, 4)
    where = call(ov_device_name, "InferRequest.infer", "{0: <int32 [1, 3, 4, 4] array>}") + " on an f32 input"
    try:
        got = np.array(request.infer({0: x})[0])
    except Exception:  # noqa: BLE001 - refusing another element type is allowed
        return
    assert_outputs_close(got, np.maximum(x.astype(np.float32), 0), "output (the int32 values converted to f32)",
                         where, rtol=0, atol=0)
