"""Variable states (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/memory_states.cpp``.

* OVInferRequestVariableStateTest — M.
* Beyond OpenVINO (–, optional; OpenVINO's API documentation): ``VariableState.reset()`` goes back
  to the ReadValue initializer ("a value specified as default for the corresponding ReadValue
  node"), which OpenVINO's zero-initialised model cannot tell from writing zeros; ``set_state``
  takes a copy (the state does not follow later writes into the caller's tensor);
  ``InferRequest.reset_state()`` resets every variable of the request.

The model (:func:`ovconform.suites._models.state_model`) has the variables ``c_1-3`` and
``r_1-3`` ([1, 2] f32, zero-initialised); each run sets ``v = v + data`` and outputs
``sigmoid(c + r)``. So with ``data = 0`` a reset request outputs sigmoid(0) = 0.5 and keeps its
states at 0, while a request whose states are 13 outputs sigmoid(26) and keeps 13. The
initializer test uses the same model with initializers :data:`INITIAL` (``state_model(INITIAL)``).
What ``get_state()`` shows between a reset and the next run is not checked: OpenVINO CPU shows
zeros there, and its next run still starts from the initializer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
from ovconform.assertions import assert_equal, assert_outputs_close, call, no_error
from ovconform.suites import _models

pytestmark = pytest.mark.entity("ov_infer_request")

ZERO = np.zeros((1, 2), np.float32)
THIRTEEN = np.full((1, 2), 13.0, np.float32)
#: The initializer of the variables of the initializer test (not 0, so that a reset to zeros shows).
INITIAL = 2.0


def _sigmoid(v: float) -> np.ndarray:
    return np.full((1, 2), 1.0 / (1.0 + np.exp(-v)), np.float32)


@pytest.fixture
def compiled(ov_core: Any, ov_device_name: str) -> Any:
    model = _models.state_model()
    with no_error(call(ov_device_name, "compile_model", model.friendly_name)):
        return ov_core.compile_model(model, ov_device_name)


def _states(request: Any, device: str) -> dict[str, Any]:
    """The request's states by name; exactly the model's variables, or an explained failure."""
    where = call(device, "InferRequest.query_state")
    with no_error(where):
        states = {s.get_name(): s for s in request.query_state()}
    assert_equal(sorted(states), sorted(_models.STATE_VARIABLES), "state names", where)
    return states


def _values(request: Any, device: str) -> dict[str, list[list[float]]]:
    return {name: np.asarray(s.get_state().data).tolist() for name, s in sorted(_states(request, device).items())}


def _set_all(request: Any, device: str, value: np.ndarray) -> None:
    for name, state in _states(request, device).items():
        with no_error(call(device, "VariableState.set_state", name, value.tolist())):
            state.set_state(Tensor(value.copy()))


def _infer_zero(request: Any, device: str) -> np.ndarray:
    with no_error(call(device, "InferRequest.infer", "data=0")):
        return np.asarray(list(request.infer({"data": ZERO}).values())[0])


@pytest.mark.mandatory
def test_query_state(compiled: Any, ov_device_name: str) -> None:
    """inferreq_smoke_VariableState_QueryState: exactly the model's variables, zero-initialised."""
    request = compiled.create_infer_request()
    where = call(ov_device_name, "InferRequest.query_state")
    assert_equal(sorted(_states(request, ov_device_name)), sorted(_models.STATE_VARIABLES), "state names", where)
    for name, state in _states(request, ov_device_name).items():
        assert_outputs_close(state.get_state().data, ZERO, f"initial {name}", where, rtol=0, atol=0)


@pytest.mark.mandatory
def test_set_state(compiled: Any, ov_device_name: str) -> None:
    """inferreq_smoke_VariableState_SetState: set_state / get_state round trip, and the next run uses it."""
    request = compiled.create_infer_request()
    values = {"c_1-3": np.array([[1.0, 2.0]], np.float32), "r_1-3": np.array([[3.0, 4.0]], np.float32)}
    for name, state in _states(request, ov_device_name).items():
        state.set_state(Tensor(values[name].copy()))
    where = call(ov_device_name, "VariableState.get_state") + " after set_state"
    assert_equal(_values(request, ov_device_name), {k: v.tolist() for k, v in values.items()}, "states", where)
    got = _infer_zero(request, ov_device_name)
    assert_outputs_close(got, (1 / (1 + np.exp(-np.array([[4.0, 6.0]])))).astype(np.float32), "output",
                         call(ov_device_name, "InferRequest.infer") + " after set_state", rtol=1e-5, atol=1e-6)


@pytest.mark.mandatory
def test_reset(compiled: Any, ov_device_name: str) -> None:
    """inferreq_smoke_VariableState_Reset: reset() clears one state only."""
    request = compiled.create_infer_request()
    _set_all(request, ov_device_name, THIRTEEN)
    with no_error(call(ov_device_name, "VariableState.reset", "c_1-3")):
        _states(request, ov_device_name)["c_1-3"].reset()
    assert_equal(_values(request, ov_device_name), {"c_1-3": ZERO.tolist(), "r_1-3": THIRTEEN.tolist()},
                 "states after resetting c_1-3", call(ov_device_name, "VariableState.reset", "c_1-3"))


@pytest.mark.mandatory
def test_two_requests_set(compiled: Any, ov_device_name: str) -> None:
    """inferreq_smoke_VariableState_2infers_set: states belong to one request each."""
    first, second = compiled.create_infer_request(), compiled.create_infer_request()
    _set_all(first, ov_device_name, THIRTEEN)
    out_first, out_second = _infer_zero(first, ov_device_name), _infer_zero(second, ov_device_name)
    where = call(ov_device_name, "InferRequest.infer", "data=0") + " on two requests, the first with states 13"
    assert_outputs_close(out_first, _sigmoid(26.0), "first request output", where)
    assert_outputs_close(out_second, _sigmoid(0.0), "second request output", where)
    assert_equal(_values(first, ov_device_name), {n: THIRTEEN.tolist() for n in _models.STATE_VARIABLES},
                 "first request states", where)
    assert_equal(_values(second, ov_device_name), {n: ZERO.tolist() for n in _models.STATE_VARIABLES},
                 "second request states", where)


@pytest.mark.mandatory
def test_two_requests_reset(compiled: Any, ov_device_name: str) -> None:
    """inferreq_smoke_VariableState_2infers: after infer on a reset request the output is
    sigmoid(0) = 0.5 and its states stay 0, while the other request keeps 13."""
    first, second = compiled.create_infer_request(), compiled.create_infer_request()
    _set_all(first, ov_device_name, THIRTEEN)
    _set_all(second, ov_device_name, THIRTEEN)
    with no_error(call(ov_device_name, "InferRequest.reset_state")):
        for state in _states(second, ov_device_name).values():
            state.reset()
    out_second = _infer_zero(second, ov_device_name)
    where = call(ov_device_name, "InferRequest.infer", "data=0") + " on a reset request"
    assert_outputs_close(out_second, _sigmoid(0.0), "reset request output", where)
    assert_equal(_values(second, ov_device_name), {n: ZERO.tolist() for n in _models.STATE_VARIABLES},
                 "reset request states", where)
    assert_equal(_values(first, ov_device_name), {n: THIRTEEN.tolist() for n in _models.STATE_VARIABLES},
                 "other request states", where)


def test_reset_restores_the_initializer(ov_core: Any, ov_device_name: str) -> None:
    """(–) VariableState.reset() goes back to the ReadValue initializer, not to zeros: with
    initializers 2, a request whose states were set to 13 and then reset outputs sigmoid(2 + 2)
    for data=0 and holds 2 afterwards."""
    model = _models.state_model(INITIAL)
    with no_error(call(ov_device_name, "compile_model", model.friendly_name, f"initializers {INITIAL}")):
        request = ov_core.compile_model(model, ov_device_name).create_infer_request()
    _set_all(request, ov_device_name, THIRTEEN)
    for name, state in _states(request, ov_device_name).items():
        with no_error(call(ov_device_name, "VariableState.reset", name)):
            state.reset()
    got = _infer_zero(request, ov_device_name)
    where = (call(ov_device_name, "InferRequest.infer", "data=0") +
             f" after set_state(13) and reset() of every variable (initializers {INITIAL})")
    assert_outputs_close(got, _sigmoid(2 * INITIAL), "output (sigmoid of the two initializers)", where)
    initial = np.full((1, 2), INITIAL, np.float32).tolist()
    assert_equal(_values(request, ov_device_name), {n: initial for n in _models.STATE_VARIABLES},
                 "states after the run (initializer + 0)", where)


def test_set_state_takes_a_copy(compiled: Any, ov_device_name: str) -> None:
    """(–) set_state copies the value: writing into the caller's tensor afterwards changes neither
    get_state() nor the next run (states 3 and 4, then the tensors overwritten with 99)."""
    request = compiled.create_infer_request()
    values = {"c_1-3": np.full((1, 2), 3.0, np.float32), "r_1-3": np.full((1, 2), 4.0, np.float32)}
    given = {name: Tensor(value.copy()) for name, value in values.items()}
    for name, state in _states(request, ov_device_name).items():
        with no_error(call(ov_device_name, "VariableState.set_state", name, values[name].tolist())):
            state.set_state(given[name])
    for tensor in given.values():
        tensor.data[...] = 99.0
    where = call(ov_device_name, "VariableState.get_state") + " after set_state(t) and then writing 99 into t"
    assert_equal(_values(request, ov_device_name), {k: v.tolist() for k, v in values.items()}, "states", where)
    got = _infer_zero(request, ov_device_name)
    where = call(ov_device_name, "InferRequest.infer", "data=0") + " after set_state(t) and writing into t"
    assert_outputs_close(got, _sigmoid(7.0), "output (sigmoid(3 + 4))", where)


def test_request_reset_state_resets_every_variable(compiled: Any, ov_device_name: str) -> None:
    """(–) InferRequest.reset_state() resets every variable of the request (OpenVINO's
    InferRequest::reset_state), not only some: states 13, reset_state(), then data=0 outputs
    sigmoid(0) = 0.5 and every state is 0."""
    request = compiled.create_infer_request()
    _set_all(request, ov_device_name, THIRTEEN)
    with no_error(call(ov_device_name, "InferRequest.reset_state")):
        request.reset_state()
    got = _infer_zero(request, ov_device_name)
    where = call(ov_device_name, "InferRequest.infer", "data=0") + " after set_state(13) and InferRequest.reset_state()"
    assert_outputs_close(got, _sigmoid(0.0), "output", where)
    assert_equal(_values(request, ov_device_name), {n: ZERO.tolist() for n in _models.STATE_VARIABLES},
                 "states", where)
