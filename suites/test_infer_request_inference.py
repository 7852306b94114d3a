"""Inference results (``ov_infer_request`` entity), beyond the mandatory groups:

* OVInferRequestInferenceTests.Inference_ROI_Tensor (–): an ROI (strided, non-contiguous view) as
  input gives exact expected values (``roi_nchw``, ``roi_1d``).
* OVInferConsistencyTest.Infer / AsyncInfer (–): N requests × M inferences of one model all
  agree with the oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Model, Tensor
from ovconform import opset as ops
from ovconform.assertions import assert_outputs_close, call, no_error
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
