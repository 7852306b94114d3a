"""Batched input tensors (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/batched_tensors.cpp``,
OVInferRequestBatchedTests (–: not in OpenVINO's mandatory API conformance, so optional here).

``set_tensors(port_or_name, tensors)`` / ``set_input_tensors([index,] tensors)`` give an input
whose layout has a batch dimension ``N`` one tensor of batch 1 per batch item. The model is
OpenVINO's ``create_n_inputs``: n inputs ``tensor_input<i>`` (friendly name ``input<i>``), each
plus 1 into ``tensor_output<i>``.

Where OpenVINO's bodies fill every item with one value, these fill item ``i`` with its own value,
so a device that reads only the first tensor (or reads them out of order) fails; values are
written into the tensors after set_tensors, so a device that copies them at set time fails too.
One tensor is set_tensor (get_tensor returns it); with more, get_tensor on that input raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovconform import Model, Tensor
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, assert_raises_ov_error, call, no_error
from ovconform.errors import NotFoundError, ValidationError
from ovconform.ir import Type

pytestmark = pytest.mark.entity("ov_infer_request")
REMOTE = pytest.mark.capability("REMOTE_CONTEXT")

ONE = (1, 2, 2, 2)
BATCH = 4


def create_n_inputs(n: int, shape: Sequence[int | None], layout: str, dtype: Any = np.float32) -> Model:
    """OpenVINO's ``create_n_inputs``: n ``Parameter -> Add(1) -> Result`` chains (``None``: a dynamic dimension)."""
    params, results = [], []
    for i in range(n):
        p = ops.parameter([-1 if d is None else d for d in shape], dtype, name=f"input{i}")
        p.output(0).set_names({f"tensor_input{i}"})
        if layout:
            p.set_layout(layout)
        add = ops.add(p, ops.constant(np.ones((1,), dtype), name=f"one{i}"), name=f"Add{i}")
        add.output(0).set_names({f"tensor_output{i}"})
        params.append(p)
        results.append(ops.result(add, name=f"Result{i}"))
    return Model(results, params, "BatchedTensors")


def _request(core: Any, device: str, model: Model) -> Any:
    with no_error(call(device, "compile_model + create_infer_request", model.friendly_name)):
        return core.compile_model(model, device).create_infer_request()


def _chunks(batch: int = BATCH, one: Sequence[int] = ONE) -> tuple[np.ndarray, list[Tensor]]:
    """OpenVINO's buffer of 2*batch chunks with 'user tensors' on chunks 0, 2, 4, ... (shared memory)."""
    buffer = np.zeros((2 * batch, *one[1:]), np.float32)
    return buffer, [Tensor(buffer[2 * i:2 * i + 1], shared_memory=True) for i in range(batch)]


def _fill(tensors: Sequence[Tensor], base: float) -> np.ndarray:
    """Write ``base + i`` into item i (through each tensor's memory); the batch those values make."""
    for i, t in enumerate(tensors):
        t.data[...] = base + i
    return np.concatenate([np.full(t.shape, base + i, np.float32) for i, t in enumerate(tensors)])


def _check_output(req: Any, expected: np.ndarray, where: str, name: str = "tensor_output0") -> None:
    with no_error(f"{where}; get_tensor({name!r})"):
        out = req.get_tensor(name)
    assert_outputs_close(out.data, expected, name, where)


def test_set_input_tensors_base(ov_core: Any, ov_device_name: str) -> None:
    """SetInputTensorsBase: tensors on every other chunk of one buffer, set by name, written after set."""
    req = _request(ov_core, ov_device_name, create_n_inputs(2, (BATCH, 2, 2, 2), "N..."))
    _, tensors = _chunks()
    where = call(ov_device_name, "InferRequest.set_tensors", "tensor_input0", f"{BATCH} tensors {list(ONE)}")
    with no_error(where):
        req.set_tensors("tensor_input0", tensors)
    expected = _fill(tensors, 5.0) + 1
    with no_error(f"{where}; infer"):
        req.infer()
    _check_output(req, expected, where)


def test_set_input_tensors_async(ov_core: Any, ov_device_name: str) -> None:
    """SetInputTensorsAsync: the same through start_async + wait."""
    req = _request(ov_core, ov_device_name, create_n_inputs(2, (BATCH, 2, 2, 2), "N..."))
    _, tensors = _chunks()
    where = call(ov_device_name, "InferRequest.set_tensors + start_async", "tensor_input0")
    with no_error(where):
        req.set_tensors("tensor_input0", tensors)
        expected = _fill(tensors, 5.0) + 1
        req.start_async()
        req.wait()
    _check_output(req, expected, where)


def test_set_tensors_by_port(ov_core: Any, ov_device_name: str) -> None:
    """set_tensors(port, tensors), the port form of SetInputTensorsBase, on the second input."""
    model = create_n_inputs(2, (BATCH, 2, 2, 2), "N...")
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        compiled = ov_core.compile_model(model, ov_device_name)
        req = compiled.create_infer_request()
    _, tensors = _chunks()
    where = call(ov_device_name, "InferRequest.set_tensors", "compiled.input(1)", f"{BATCH} tensors")
    with no_error(where):
        req.set_tensors(compiled.input(1), tensors)
        expected = _fill(tensors, -3.0) + 1
        req.infer()
    _check_output(req, expected, where, "tensor_output1")


def test_set_tensor_overrides_set_tensors(ov_core: Any, ov_device_name: str) -> None:
    """SetInputTensors_override_with_set: set_tensor after set_tensors wins."""
    req = _request(ov_core, ov_device_name, create_n_inputs(2, (BATCH, 2, 2, 2), "N..."))
    _, tensors = _chunks()
    plain = Tensor(np.full((BATCH, 2, 2, 2), 5.0, np.float32), shared_memory=True)
    where = call(ov_device_name, "InferRequest.set_tensors then set_tensor", "tensor_input0")
    with no_error(where):
        req.set_tensors("tensor_input0", tensors)
        req.set_tensor("tensor_input0", plain)
        _fill(tensors, 5.0)
        plain.data[...] = 55.0
        req.infer()
    _check_output(req, np.full((BATCH, 2, 2, 2), 56.0, np.float32), where)


def _runs_see_new_values(req: Any, tensors: list[Any], runs: int, base: Callable[[int], float], where: str) -> None:
    """``runs`` inferences, each after writing new values (from ``base(run)``) into the set tensors:
    each run's output must be computed from that run's values."""
    for run in range(runs):
        expected = _fill(tensors, base(run)) + 1
        with no_error(f"{where}; infer #{run + 1}"):
            req.infer()
        _check_output(req, expected, f"{where}; infer #{run + 1}")


def test_set_input_tensors_with_cache(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """SetInputTensorsBase_Caching: a model compiled from the cache (CACHE_DIR), set_input_tensors, five runs."""
    model = create_n_inputs(1, (BATCH, 2, 2, 2), "N...")
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    try:
        with no_error(call(ov_device_name, "compile_model", model.friendly_name, "CACHE_DIR, twice")):
            ov_core.compile_model(model, ov_device_name)
            req = ov_core.compile_model(model, ov_device_name).create_infer_request()
    finally:
        ov_core.set_property({P.CACHE_DIR: ""})
    _, tensors = _chunks()
    where = call(ov_device_name, "InferRequest.set_input_tensors", f"{BATCH} tensors", "model from the cache")
    with no_error(where):
        req.set_input_tensors(tensors)
    _runs_see_new_values(req, tensors, 5, lambda run: 10.0 * run, where)


def test_set_input_tensors_multiple_infer(ov_core: Any, ov_device_name: str) -> None:
    """SetInputTensors_Multiple_Infer: values written into the tensors between runs are seen."""
    req = _request(ov_core, ov_device_name, create_n_inputs(2, (BATCH, 2, 2, 2), "N..."))
    _, tensors = _chunks()
    where = call(ov_device_name, "InferRequest.set_tensors", "tensor_input0", "five runs")
    with no_error(where):
        req.set_tensors("tensor_input0", tensors)
    _runs_see_new_values(req, tensors, 5, lambda run: 20.0 + 7 * run, where)


def test_set_input_tensors_can_infer_dynamic(ov_core: Any, ov_device_name: str) -> None:
    """SetInputTensors_Can_Infer_Dynamic: a dynamic batch takes the number of tensors."""
    req = _request(ov_core, ov_device_name, create_n_inputs(1, (None, 2, 2, 2), "N..."))
    _, tensors = _chunks()
    where = call(ov_device_name, "InferRequest.set_tensors", "tensor_input0", f"{BATCH} tensors, shape [?,2,2,2]")
    with no_error(where):
        req.set_tensors("tensor_input0", tensors)
    _runs_see_new_values(req, tensors, 2, lambda run: float(run), where)


def test_set_input_tensors_non_contiguous(ov_core: Any, ov_device_name: str) -> None:
    """Each item a region of interest of a wider tensor (strided, not contiguous memory)."""
    req = _request(ov_core, ov_device_name, create_n_inputs(1, (BATCH, 2, 2, 2), "N..."))
    wide = Tensor(np.zeros((BATCH, 2, 2, 5), np.float32), shared_memory=True)
    tensors = [Tensor(wide, [i, 0, 0, 1], [i + 1, 2, 2, 3]) for i in range(BATCH)]
    where = call(ov_device_name, "InferRequest.set_tensors", "tensor_input0", "ROI tensors [1,2,2,2] of [4,2,2,5]")
    assert_equal(any(t.is_continuous() for t in tensors), False, "an ROI item is contiguous", where)
    with no_error(where):
        req.set_tensors("tensor_input0", tensors)
    wide.data[...] = np.arange(wide.size, dtype=np.float32).reshape(wide.shape)
    with no_error(f"{where}; infer"):
        req.infer()
    _check_output(req, wide.data[:, :, :, 1:3] + 1, where)


@REMOTE
def test_set_input_tensors_remote(ov_core: Any, ov_device_name: str) -> None:
    """Remote tensors of the device's default context as the batch items (values copied in)."""
    req = _request(ov_core, ov_device_name, create_n_inputs(1, (BATCH, 2, 2, 2), "N..."))
    with no_error(call(ov_device_name, "get_default_context + create_tensor")):
        context = ov_core.get_default_context(ov_device_name)
        tensors = [context.create_tensor(Type.f32, list(ONE)) for _ in range(BATCH)]
    where = call(ov_device_name, "InferRequest.set_tensors", "tensor_input0", f"{BATCH} remote tensors")
    with no_error(where):
        req.set_tensors("tensor_input0", tensors)
        for i, t in enumerate(tensors):
            t.copy_from(np.full(ONE, 3.0 * i, np.float32))
        req.infer()
    _check_output(req, np.concatenate([np.full(ONE, 3.0 * i + 1, np.float32) for i in range(BATCH)]), where)


def test_set_tensors_batch1(ov_core: Any, ov_device_name: str) -> None:
    """SetTensors_Batch1: one tensor is set_tensor; get_tensor returns it (type, shape, values)."""
    one = (1, 3, 10, 10)
    req = _request(ov_core, ov_device_name, create_n_inputs(1, one, "N..."))
    values = np.arange(np.prod(one), dtype=np.float32).reshape(one)
    tensor = Tensor(values.copy())
    where = call(ov_device_name, "InferRequest.set_tensors/get_tensor", "tensor_input0", "1 tensor")
    with no_error(where):
        req.set_tensors("tensor_input0", [tensor])
        got = req.get_tensor("tensor_input0")
    assert_equal(tuple(got.shape), one, "get_tensor shape", where)
    assert_equal(got.element_type, Type.f32, "get_tensor element type", where)
    assert_outputs_close(got.data, values, "get_tensor values", where)


def test_get_tensor_not_allowed(ov_core: Any, ov_device_name: str) -> None:
    """SetInputTensors_Get_Tensor_Not_Allowed: get_tensor on an input given several tensors raises."""
    req = _request(ov_core, ov_device_name, create_n_inputs(1, (3, 3, 3, 3), "NCHW"))
    with no_error(call(ov_device_name, "InferRequest.set_tensors", "tensor_input0", "3 tensors")):
        req.set_tensors("tensor_input0", [Tensor(Type.f32, [1, 3, 3, 3]) for _ in range(3)])
    assert_raises_ov_error(ValidationError, req.get_tensor, "tensor_input0",
                           call=call(ov_device_name, "InferRequest.get_tensor", "tensor_input0", "after set_tensors"))


def _three(shape: Sequence[int] = (1, 3, 3, 3), count: int = 3) -> list[Tensor]:
    return [Tensor(Type.f32, list(shape)) for _ in range(count)]


@pytest.mark.parametrize(("case", "layout", "key", "tensors", "error"), [
    pytest.param("SetInputTensors_Batch_No_Batch", "DCHW", "tensor_input0", _three, ValidationError,
                 id="no_batch_layout"),
    pytest.param("(no layout)", "", "tensor_input0", _three, ValidationError, id="no_layout"),
    pytest.param("SetInputTensors_No_Name, SetTensors_No_Name", "NCHW", "undefined", _three, NotFoundError,
                 id="no_name"),
    pytest.param("SetTensors_Friendly_Name", "NCHW", "input0", _three, NotFoundError, id="friendly_name"),
    pytest.param("(an output)", "NCHW", "tensor_output0", _three, NotFoundError, id="output"),
    pytest.param("SetInputTensors_Incorrect_count", "NCHW", "tensor_input0", lambda: _three(count=4),
                 ValidationError, id="incorrect_count"),
    pytest.param("SetInputTensors_Empty_Array", "NCHW", "tensor_input0", lambda: [], ValidationError, id="empty"),
    pytest.param("SetInputTensors_diff_batches", "NCHW", "tensor_input0",
                 lambda: [Tensor(Type.f32, [2, 3, 3, 3]), Tensor(Type.f32, [1, 3, 3, 3])], ValidationError,
                 id="diff_batches"),
    pytest.param("SetInputTensors_Incorrect_tensor_element_type", "NCHW", "tensor_input0",
                 lambda: [*_three(count=2), Tensor(Type.u8, [1, 3, 3, 3])], ValidationError, id="element_type"),
    pytest.param("SetInputTensors_Incorrect_tensor_shape", "NCHW", "tensor_input0",
                 lambda: [*_three(count=2), Tensor(Type.f32, [1, 3, 1, 9])], ValidationError, id="shape"),
])
def test_set_tensors_refused(ov_core: Any, ov_device_name: str, case: str, layout: str, key: str, tensors: Any,
                             error: type[Exception]) -> None:
    """The set_tensors calls OpenVINO's bodies expect to throw, each with its documented error."""
    req = _request(ov_core, ov_device_name, create_n_inputs(1, (3, 3, 3, 3), layout))
    items = tensors()
    assert_raises_ov_error(error, req.set_tensors, key, items,
                           call=call(ov_device_name, "InferRequest.set_tensors", key,
                                     f"{case}: {[list(t.shape) for t in items]}"))


@pytest.mark.parametrize(("case", "inputs", "args"), [
    pytest.param("SetInputTensors_No_index", 1, (10,), id="no_index"),
    pytest.param("SetInputTensors_no_name_multiple_inputs", 2, (), id="no_name_multiple_inputs"),
])
def test_set_input_tensors_refused(ov_core: Any, ov_device_name: str, case: str, inputs: int,
                                   args: tuple[int, ...]) -> None:
    """set_input_tensors with an index the model lacks, or without one on a two-input model."""
    req = _request(ov_core, ov_device_name, create_n_inputs(inputs, (3, 3, 3, 3), "NCHW"))
    assert_raises_ov_error(NotFoundError, req.set_input_tensors, *args, _three(),
                           call=call(ov_device_name, "InferRequest.set_input_tensors", *args, f"{case}: 3 tensors"))


def test_set_input_tensors_correct_all(ov_core: Any, ov_device_name: str) -> None:
    """SetInputTensors_Correct_all: two halves of one buffer; (here also) the run sees both."""
    req = _request(ov_core, ov_device_name, create_n_inputs(1, (2, 3, 3, 3), "NCHW"))
    buffer = np.stack([np.full((3, 3, 3), 1.0, np.float32), np.full((3, 3, 3), 2.0, np.float32)])
    tensors = [Tensor(buffer[i:i + 1], shared_memory=True) for i in range(2)]
    where = call(ov_device_name, "InferRequest.set_input_tensors", "2 tensors [1,3,3,3]")
    with no_error(where):
        req.set_input_tensors(tensors)
        req.infer()
    _check_output(req, buffer + 1, where)


def test_set_input_tensors_cache_check_deep_copy(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """SetInputTensors_Cache_CheckDeepCopy: renaming the caller's model (and its layout) after a
    cached compile changes nothing in the request: the old names still work."""
    model = create_n_inputs(2, (2, 3, 3, 3), "NCHW")
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    try:
        with no_error(call(ov_device_name, "compile_model", model.friendly_name, "CACHE_DIR, twice")):
            ov_core.compile_model(model, ov_device_name)
            req = ov_core.compile_model(model, ov_device_name).create_infer_request()
    finally:
        ov_core.set_property({P.CACHE_DIR: ""})
    model.input(0).set_names({"updated_input0"})
    model.get_parameters()[0].set_layout("????")
    model.output(0).set_names({"updated_output0"})
    where = call(ov_device_name, "InferRequest.set_tensors/set_tensor", "old names after the model changed")
    with no_error(where):
        req.set_tensors("tensor_input0", [Tensor(Type.f32, [1, 3, 3, 3]) for _ in range(2)])
        req.set_tensor("tensor_output0", Tensor(Type.f32, [2, 3, 3, 3]))
