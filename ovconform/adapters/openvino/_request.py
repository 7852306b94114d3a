"""Infer requests over an ``openvino.InferRequest``.

The sync request binds the caller's input tensors to OpenVINO (sharing memory when contiguous),
runs ``start_async`` + ``wait`` (so ``cancel`` reaches OpenVINO) and copies the outputs into the
output tensors. The async request starts OpenVINO's own asynchronous run; OpenVINO's completion
callback hands the rest of the run (wait, copy outputs, the user's callback) to a new thread,
since nothing may wait for a request inside its own OpenVINO callback.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from ovconform.adapters.openvino._convert import (
    fill_ov_tensor,
    from_ov_tensor,
    our_type,
    to_ov_tensor,
    translate,
    zero_tensor,
)
from ovconform.contract.async_infer_request import AsyncInferRequest, _as_infer_error, _Future
from ovconform.contract.executors import ImmediateExecutor, ITaskExecutor, Task
from ovconform.contract.sync_infer_request import (
    POSTPROCESS,
    PREPROCESS,
    START_PIPELINE,
    WAIT_PIPELINE,
    ProfilingInfo,
    ProfilingStatus,
    SyncInferRequest,
    VariableState,
)
from ovconform.contract.tensor import Tensor
from ovconform.errors import InferError, NotEnabledError, ValidationError

if TYPE_CHECKING:
    from ovconform.adapters.openvino._compiled import OVCompiledModel

__all__ = ["OVAsyncInferRequest", "OVSyncInferRequest", "OVVariableState"]

#: How long a cancelled OpenVINO request may take to become idle again.
_SETTLE_S = 5.0
_STATUS = {"NOT_RUN": ProfilingStatus.NOT_RUN, "OPTIMIZED_OUT": ProfilingStatus.OPTIMIZED_OUT,
           "EXECUTED": ProfilingStatus.EXECUTED}


class OVVariableState(VariableState):
    """A view of one ``openvino.VariableState`` (reads and writes go to OpenVINO)."""

    def __init__(self, ov_state: Any) -> None:  # no super().__init__: the value lives in OpenVINO
        self._ov = ov_state
        self._name = ov_state.name
        self._lock = threading.Lock()
        self._written = False

    @property
    def _type(self) -> Any:
        return our_type(self._ov.state.element_type)

    def get_state(self) -> Tensor:
        with self._lock:
            et = self._type
            return Tensor(from_ov_tensor(self._ov.state, et), element_type=et)

    def set_state(self, value: Tensor | np.ndarray) -> None:
        new = value if isinstance(value, Tensor) else Tensor(np.asarray(value))
        et = self._type
        if new.element_type != et:
            raise ValidationError(f"variable {self._name!r} holds {et}; got a value of {new.element_type}.")
        with self._lock:
            self._ov.state = to_ov_tensor(np.array(new.data), et)
            self._written = True

    def reset(self) -> None:
        with self._lock:
            self._ov.reset()
            self._written = False

    def __repr__(self) -> str:
        return f"<VariableState {self._name!r} (OpenVINO)>"


class OVSyncInferRequest(SyncInferRequest):
    """Runs one inference on an ``openvino.InferRequest``."""

    def __init__(self, compiled_model: OVCompiledModel) -> None:
        try:
            self._ov = compiled_model.ov_compiled.create_infer_request()
        except Exception as e:  # noqa: BLE001 - OpenVINO raises RuntimeError
            raise translate(e, f"device {compiled_model.device_name!r}: create_infer_request", InferError) from e
        self._on_done: tuple[int, Task] | None = None  # (run number, what finishes that run)
        self._runs = 0
        self._after_cancel = False
        self._bound: dict[int, tuple[Any, Any]] = {}  # port -> ((shape, type), its OpenVINO tensor)
        self._ov_batched: dict[int, list[Any]] = {}  # batched input -> the OpenVINO tensors given to set_tensors
        self._armed = threading.Lock()
        # no completion callback is given to OpenVINO (see _await_run)
        super().__init__(compiled_model)
        self._bind_static_outputs()

    def _bind_static_outputs(self) -> None:
        """Give OpenVINO zero-filled memory for every static-shape output: OpenVINO's own
        output buffers are not initialised, so an output element it never writes would read back
        as whatever that memory held (sometimes even a right-looking value); with zeroed buffers
        such an element reads 0 on every run. Outputs are still copied into the request's
        tensors after each run."""
        for i, port in enumerate(self._outputs):
            ps = port.get_partial_shape()
            if not ps.is_static:
                continue
            try:
                self._ov.set_output_tensor(i, zero_tensor(port.get_element_type(), tuple(ps.to_shape())))
            except Exception:  # noqa: BLE001, S112 - a type OpenVINO cannot allocate: keep its own buffer
                continue

    @property
    def ov_request(self) -> Any:
        return self._ov

    # -- completion ---------------------------------------------------------------------------------
    def arm(self, on_done: Task) -> None:
        """Call ``on_done`` (once, on a new thread) when the next OpenVINO run completes."""
        with self._armed:
            self._runs += 1
            self._on_done = (self._runs, on_done)

    def disarm(self) -> None:
        with self._armed:
            self._on_done = None

    def _claim(self, run: int | None = None) -> Task | None:
        """Take what finishes the armed run (only if it is run ``run``, when given): whoever
        claims it first (the waiting thread or a cancel) finishes the run, once."""
        with self._armed:
            if self._on_done is None or (run is not None and self._on_done[0] != run):
                return None
            on_done, self._on_done = self._on_done[1], None
            return on_done

    def _await_run(self, run: int) -> None:
        """Wait for OpenVINO's run to end (the GIL released), then finish ours.

        OpenVINO gets no Python callback: it destroys its copy of a request's callback on its
        own thread after the run, which needs the GIL, and that deadlocked the process whenever
        the thread holding the GIL was destroying the compiled model at that moment (CI, twice:
        MainThread in ~CompiledModel -> ~CPUStreamsExecutor -> std::thread::join, an OpenVINO
        thread waiting for the GIL inside pyopenvino)."""
        try:
            self._ov.wait()
        except Exception:  # noqa: BLE001, S110 - the run's error is raised by the wait stage on_done runs
            pass
        on_done = self._claim(run)
        if on_done is not None:
            on_done()

    # -- stages ---------------------------------------------------------------------------------
    def _where(self, what: str) -> str:
        return f"device {self._compiled_model.device_name!r}, model {self._model_name()!r}: {what}"

    def set_batched_input(self, index: int, tensors: Any) -> None:
        """``set_tensors`` goes to OpenVINO's ``set_input_tensors`` (its checks, its batching),
        with one OpenVINO-owned tensor per item, refilled from the caller's tensors at each run."""
        items = list(tensors) if isinstance(tensors, (list, tuple)) else None
        if not items or len(items) < 2 or not all(isinstance(t, Tensor) for t in items):
            super().set_batched_input(index, tensors)  # the base's checks and errors
            return
        ov_items = [to_ov_tensor(t._host_array(), t.element_type) for t in items]
        try:
            self._settled(self._ov.set_input_tensors, index, ov_items)
        except Exception as e:  # noqa: BLE001 - OpenVINO refused: its binding is unchanged
            raise translate(e, self._where(f"set_tensors for input {index}"), ValidationError) from e
        # OpenVINO's binding of this input changed: should the base refuse what OpenVINO took,
        # the next run binds the input anew
        self._bound.pop(index, None)
        self._ov_batched.pop(index, None)
        super().set_batched_input(index, items)
        self._ov_batched[index] = ov_items

    def _preprocess(self) -> None:
        """Copy the input tensors' values into OpenVINO-owned tensors (see ``to_ov_tensor``: no
        numpy memory is ever handed to OpenVINO). A port whose bound tensor still has the
        shape is refilled in place, so the common case (same shapes, new values) costs no call
        into OpenVINO; values written into a tensor after set_tensor reach the next run. A batched
        input (set_tensors) refills the OpenVINO tensors given to OpenVINO's set_input_tensors."""
        batched = self._batched
        if any(i not in self._ov_batched for i in batched):
            self.gather_batched_inputs()  # bound below as one batch tensor
        for i, port in enumerate(self._inputs):
            et = port.get_element_type()
            if i in batched and i in self._ov_batched:
                for ours, theirs in zip(batched[i][1], self._ov_batched[i], strict=True):
                    fill_ov_tensor(theirs, ours._host_array(), et)
                continue
            if i not in batched and self._ov_batched.pop(i, None) is not None:  # set_tensor replaced the batch
                self._bound.pop(i, None)
            array = self._tensor(True, i)._host_array()
            bound = self._bound.get(i)
            if bound is not None and bound[0] == (array.shape, et):
                fill_ov_tensor(bound[1], array, et)
                continue
            ov_tensor = to_ov_tensor(array, et)
            try:
                self._settled(self._ov.set_input_tensor, i, ov_tensor)
            except Exception as e:  # noqa: BLE001
                raise translate(e, self._where(f"binding input {i}"), InferError) from e
            self._bound[i] = ((array.shape, et), ov_tensor)

    def _start_pipeline(self) -> None:
        try:
            self._settled(self._ov.start_async)
        except Exception as e:  # noqa: BLE001
            raise translate(e, self._where("start_async"), InferError) from e
        with self._armed:
            run = self._on_done[0] if self._on_done is not None else None
        if run is not None:
            threading.Thread(target=self._await_run, args=(run,), name="ovconform-openvino-completion",
                             daemon=True).start()

    def _wait_pipeline(self) -> None:
        deadline = time.monotonic() + _SETTLE_S
        while True:
            try:
                self._ov.wait()
            except Exception as e:  # noqa: BLE001
                raise translate(e, self._where("inference"), InferError) from e
            if not self._after_cancel or self._idle() or time.monotonic() > deadline:
                break
            time.sleep(0.001)  # after a cancel OpenVINO's wait() can return while still busy
        self.check_cancelled()

    def _idle(self) -> bool:
        try:
            self._ov.get_output_tensor(0)
        except Exception as e:  # noqa: BLE001
            return "busy" not in str(e).lower()
        return True

    def _settled(self, call: Any, *args: Any) -> Any:
        """``call(*args)``; right after a cancelled run, retried while OpenVINO still says
        "canceled": its wait() raises before its pipeline has finished, and until then the
        request refuses start_async and set_tensor (those refusals have no side effect)."""
        if not self._after_cancel:
            return call(*args)
        deadline = time.monotonic() + _SETTLE_S
        while True:
            try:
                result = call(*args)
            except Exception as e:  # noqa: BLE001
                if "cancel" not in str(e).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.001)
                continue
            return result

    def _postprocess(self) -> None:
        for i, port in enumerate(self._outputs):
            try:
                array = from_ov_tensor(self._ov.get_output_tensor(i), port.get_element_type())
            except Exception as e:  # noqa: BLE001
                raise translate(e, self._where(f"reading output {i}"), InferError) from e
            self.store_output(i, array)
        self._after_cancel = False  # a whole run went through: OpenVINO is past the cancel

    def _on_cancel(self) -> None:
        self._after_cancel = True
        try:
            self._ov.cancel()
        except Exception:  # noqa: BLE001, S110 - cancelling an idle request may refuse; nothing to stop
            pass
        on_done = self._claim()  # finish the cancelled run now (OpenVINO's wait may not return for it)
        if on_done is not None:
            threading.Thread(target=on_done, name="ovconform-openvino-completion", daemon=True).start()

    def get_profiling_info(self) -> list[ProfilingInfo]:
        """OpenVINO's counters, as OpenVINO answers (with PERF_COUNT off, whatever the device
        does: raise, or return counters)."""
        return list(self._profiling_info())

    # -- profiling and states --------------------------------------------------------------------
    def _profiling_info(self) -> list[ProfilingInfo]:
        try:
            infos = self._ov.get_profiling_info()
        except Exception as e:  # noqa: BLE001
            raise translate(e, self._where("get_profiling_info"), NotEnabledError) from e
        return [ProfilingInfo(p.node_name, p.node_type, p.exec_type, _delta(p.real_time), _delta(p.cpu_time),
                              _STATUS.get(getattr(p.status, "name", str(p.status)), ProfilingStatus.EXECUTED))
                for p in infos]

    def _create_states(self) -> list[VariableState]:
        return [OVVariableState(s) for s in self._ov.query_state()]


def _delta(value: Any) -> timedelta:
    return value if isinstance(value, timedelta) else timedelta(microseconds=float(value))


class OVAsyncInferRequest(AsyncInferRequest):
    """``start_async`` starts OpenVINO's asynchronous run; its completion finishes ours."""

    def __init__(self, sync_request: OVSyncInferRequest, task_executor: ITaskExecutor,
                 callback_executor: ITaskExecutor | None = None) -> None:
        self._ov_sync = sync_request  # _sync, with its OpenVINO type
        super().__init__(sync_request, task_executor, callback_executor)

    def _create_pipeline(self, task_executor: ITaskExecutor) -> list[tuple[ITaskExecutor, Task]]:
        return [(ImmediateExecutor(), self._sync.run_stages)]  # unused: _schedule drives OpenVINO

    def _schedule(self, index: int, future: _Future) -> None:
        sync = self._ov_sync
        try:
            sync.check_cancelled()
            sync.run_stage(PREPROCESS, sync._preprocess)
            sync.arm(lambda: self._finish(future))
            sync.run_stage(START_PIPELINE, sync._start_pipeline)
        except BaseException as e:  # noqa: BLE001 - the run ends with this error
            sync.disarm()
            self._complete(future, _as_infer_error(e, self))

    def _finish(self, future: _Future) -> None:
        sync = self._ov_sync
        try:
            sync.run_stage(WAIT_PIPELINE, sync._wait_pipeline)
            sync.run_stage(POSTPROCESS, sync._postprocess)
        except BaseException as e:  # noqa: BLE001
            self._complete(future, _as_infer_error(e, self))
            return
        self._complete(future, None)
