"""The asynchronous infer request (``ov::IAsyncInferRequest``), which is also the public
``InferRequest`` of OpenVINO's Python API.

A pipeline is a list of ``(executor, stage)`` pairs; by default one stage that runs the sync
request's stages on the compiled model's task executor. The request is busy from
``start_async`` until the callback has run; calls that need an idle request raise
:class:`~ovconform.errors.BusyError` meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ovconform.contract.executors import ImmediateExecutor, ITaskExecutor, Task
from ovconform.contract.sync_infer_request import ProfilingInfo, SyncInferRequest, VariableState
from ovconform.contract.tensor import Tensor
from ovconform.errors import BusyError, InferError, NotFoundError, OVConformError, ValidationError
from ovconform.ir import Output

if TYPE_CHECKING:
    from ovconform.contract.compiled_model import CompiledModel

__all__ = ["AsyncInferRequest", "InferRequest", "Results"]

_NO_USERDATA = object()
Callback = Callable[[Any], None]


class Results(dict[Output, np.ndarray]):
    """Outputs of one inference: ``{Output port: array}``, also indexable by output index or
    tensor name (like OpenVINO's ``OVDict``)."""

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            values = list(self.values())
            if not -len(values) <= key < len(values):
                raise NotFoundError(f"results have {len(values)} outputs; there is no output {key}.")
            return values[key]
        if isinstance(key, Output) and dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        names = set(key.get_names()) if isinstance(key, Output) else {key}
        for port, value in self.items():
            if names & port.get_names():
                return value
        known = sorted(n for p in self for n in p.get_names())
        raise NotFoundError(f"results have no output {key!r}; output names: {known}.")

    def to_tuple(self) -> tuple[np.ndarray, ...]:
        return tuple(self.values())

    def names(self) -> list[set[str]]:
        return [p.get_names() for p in self]


class _Future:
    """Completion of one run: an event plus the exception it ended with."""

    __slots__ = ("error", "event")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.error: BaseException | None = None

    def finish(self, error: BaseException | None) -> None:
        self.error = error
        self.event.set()

    def result(self) -> None:
        if self.error is not None:
            raise self.error


class AsyncInferRequest:
    """Runs a :class:`SyncInferRequest` as a pipeline of stages on executors.

    Subclasses with several device stages override :meth:`_create_pipeline`.

    :param sync_request: the device's synchronous request.
    :param task_executor: the executor of the default single-stage pipeline.
    :param callback_executor: where the completion callback runs (immediately after the last
        stage, on the stage's thread, when None).
    """

    def __init__(self, sync_request: SyncInferRequest, task_executor: ITaskExecutor,
                 callback_executor: ITaskExecutor | None = None) -> None:
        self._sync = sync_request
        self._callback_executor = callback_executor or ImmediateExecutor()
        self._pipeline = self._create_pipeline(task_executor)
        if not self._pipeline:
            raise ValidationError("an infer request pipeline needs at least one (executor, stage) pair.")
        self._lock = threading.RLock()
        self._busy = False
        self._future: _Future | None = None
        self._callback: Callback | None = None
        self._started = 0.0
        self._latency_ms = 0.0
        self._in_callback = threading.local()  # .active is True on a thread running our callback

    def _create_pipeline(self, task_executor: ITaskExecutor) -> list[tuple[ITaskExecutor, Task]]:
        """The ``(executor, stage)`` pairs of one asynchronous run."""
        return [(task_executor, self._sync.run_stages)]

    # -- state ----------------------------------------------------------------------------------
    def _check_idle(self, what: str) -> None:
        if self._busy:
            raise BusyError(f"Infer Request is busy: {what}() is refused while request "
                            f"{self._sync.request_id} runs.")

    @property
    def sync_request(self) -> SyncInferRequest:
        return self._sync

    def get_compiled_model(self) -> CompiledModel:
        return self._sync.compiled_model

    @property
    def model_inputs(self) -> list[Output]:
        return self._sync.inputs

    @property
    def model_outputs(self) -> list[Output]:
        return self._sync.outputs

    # -- running --------------------------------------------------------------------------------
    def infer(self, inputs: Any = None) -> Results:
        """Set ``inputs`` (dict by name/index/port, list by index, or one array), run on this
        thread, and return the outputs. The callback is not called."""
        with self._lock:
            self._check_idle("infer")
            self._apply_inputs(inputs)
            self._busy, self._future = True, None
            self._started = time.perf_counter()
        try:
            self._sync.infer()
        finally:
            with self._lock:
                self._latency_ms = (time.perf_counter() - self._started) * 1000.0
                self._busy = False
        return self.results

    def start_async(self, inputs: Any = None) -> None:
        """Set ``inputs``, check the tensors and start the pipeline; returns at once."""
        with self._lock:
            self._check_idle("start_async")
            self._apply_inputs(inputs)
            self._sync.check_tensors()
            self._sync.clear_cancel()
            future = self._future = _Future()
            self._busy = True
            self._started = time.perf_counter()
        self._schedule(0, future)

    def _schedule(self, index: int, future: _Future) -> None:
        executor, stage = self._pipeline[index]

        def task() -> None:
            try:
                self._sync.check_cancelled()
                stage()
            except BaseException as e:  # noqa: BLE001 - the run ends with this error
                self._complete(future, _as_infer_error(e, self))
                return
            if index + 1 < len(self._pipeline):
                self._schedule(index + 1, future)
            else:
                self._complete(future, None)

        try:
            executor.run(task)
        except BaseException as e:  # noqa: BLE001 - e.g. an executor that is shut down
            self._complete(future, _as_infer_error(e, self))

    def _complete(self, future: _Future, error: BaseException | None) -> None:
        def last() -> None:
            err = error
            with self._lock:
                self._busy = False
                self._latency_ms = (time.perf_counter() - self._started) * 1000.0
                callback = self._callback
            if callback is not None:
                self._in_callback.active = True
                try:
                    callback(err)
                except BaseException as e:  # noqa: BLE001 - surfaces from wait()
                    err = e
                finally:
                    self._in_callback.active = False
            future.finish(err)

        try:
            self._callback_executor.run(last)
        except BaseException:  # noqa: BLE001 - never leave a run unfinished
            last()

    def _check_not_in_callback(self, what: str) -> None:
        if getattr(self._in_callback, "active", False):
            raise ValidationError(f"{what}() inside the request's own callback would wait for itself forever; "
                                  "use wait_for(0) to poll, or wait from another thread.")

    def wait(self) -> None:
        """Block until the current run (if any) has finished; raise its error."""
        self._check_not_in_callback("wait")
        with self._lock:
            future = self._future
        if future is not None:
            future.event.wait()
            future.result()

    def wait_for(self, timeout: float) -> bool:
        """Wait up to ``timeout`` milliseconds; True when finished (0 polls without blocking)."""
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)):
            raise ValidationError(f"wait_for() timeout must be a number of milliseconds, not {timeout!r}.")
        if timeout < 0:
            raise ValidationError(f"Timeout can't be less than 0 for InferRequest::wait_for(); got {timeout} ms.")
        if timeout > 0:
            self._check_not_in_callback("wait_for")
        with self._lock:
            future = self._future
        if future is None:
            return True
        if not future.event.wait(timeout / 1000.0):
            return False
        future.result()
        return True

    def cancel(self) -> None:
        """Ask the current run to stop: its wait() raises CancelledError, unless it already
        completed. Cancelling an idle request does nothing."""
        self._sync.cancel()

    def set_callback(self, callback: Callback | None, userdata: Any = _NO_USERDATA) -> None:
        """Call ``callback(error_or_None)`` once after each asynchronous run, on the callback
        executor; with ``userdata``, call ``callback(userdata)`` as OpenVINO's Python API does.
        An exception raised by the callback surfaces from :meth:`wait`."""
        if callback is not None and not callable(callback):
            raise ValidationError(f"the callback must be callable or None, not {type(callback).__name__}.")
        if callback is not None and userdata is not _NO_USERDATA:
            user_fn = callback

            def callback(_error: Any) -> None:
                user_fn(userdata)

        with self._lock:
            self._callback = callback

    @property
    def latency(self) -> float:
        """Milliseconds the last run took (start to completion, before the callback)."""
        return self._latency_ms

    # -- tensors --------------------------------------------------------------------------------
    def get_tensor(self, key: Output | str) -> Tensor:
        with self._lock:
            self._check_idle("get_tensor")
            return self._sync.get_tensor(key)

    def set_tensor(self, key: Output | str, tensor: Tensor) -> None:
        with self._lock:
            self._check_idle("set_tensor")
            self._sync.set_tensor(key, tensor)

    def get_input_tensor(self, index: int | None = None) -> Tensor:
        with self._lock:
            self._check_idle("get_input_tensor")
            return self._sync.get_input_tensor(index)

    def get_output_tensor(self, index: int | None = None) -> Tensor:
        with self._lock:
            self._check_idle("get_output_tensor")
            return self._sync.get_output_tensor(index)

    def set_input_tensor(self, *args: Any) -> None:
        """``set_input_tensor(tensor)`` for a one-input model, or ``(index, tensor)``."""
        index, tensor = _index_and_tensor(args, "set_input_tensor")
        with self._lock:
            self._check_idle("set_input_tensor")
            self._sync.set_input_tensor(index, tensor)

    def set_output_tensor(self, *args: Any) -> None:
        index, tensor = _index_and_tensor(args, "set_output_tensor")
        with self._lock:
            self._check_idle("set_output_tensor")
            self._sync.set_output_tensor(index, tensor)

    def set_tensors(self, *args: Any) -> None:
        """``set_tensors({port_or_name: tensor, ...})`` sets several tensors;
        ``set_tensors(port_or_name, [tensor, ...])`` gives a batched input one tensor per batch item."""
        if len(args) == 2:
            with self._lock:
                self._check_idle("set_tensors")
                self._sync.set_tensors(args[0], args[1])
            return
        if len(args) != 1 or not isinstance(args[0], Mapping):
            raise ValidationError("set_tensors() takes a dict {port or name: Tensor} or (port or name, "
                                  f"[Tensor, ...]); got {len(args)} argument(s).")
        with self._lock:
            self._check_idle("set_tensors")
            for key, tensor in args[0].items():
                self._sync.set_tensor(key, tensor)

    def set_input_tensors(self, *args: Any) -> None:
        """``set_input_tensors([tensor, ...])`` for a one-input model, or ``(index, [tensor, ...])``:
        one tensor per batch item of a batched input."""
        if len(args) not in (1, 2):
            raise ValidationError(f"set_input_tensors() takes ([tensor, ...]) or (index, [tensor, ...]); "
                                  f"got {len(args)} arguments.")
        index, tensors = (None, args[0]) if len(args) == 1 else (args[0], args[1])
        with self._lock:
            self._check_idle("set_input_tensors")
            self._sync.set_input_tensors(index, tensors)

    @property
    def input_tensors(self) -> list[Tensor]:
        return [self.get_input_tensor(i) for i in range(len(self._sync.inputs))]

    @property
    def output_tensors(self) -> list[Tensor]:
        return [self.get_output_tensor(i) for i in range(len(self._sync.outputs))]

    @property
    def results(self) -> Results:
        """Copies of the output tensors' values, keyed by output port."""
        with self._lock:
            self._check_idle("results")
            return Results((port, self._sync.get_output_tensor(i)._host_array().copy())
                           for i, port in enumerate(self._sync.outputs))

    def _apply_inputs(self, inputs: Any) -> None:
        if inputs is None:
            return
        for key, value in _input_items(inputs, len(self._sync.inputs)):
            is_index = isinstance(key, (int, np.integer)) and not isinstance(key, bool)
            index = self._sync._index(True, key) if is_index else self._input_index(key)
            if isinstance(value, Tensor):
                self._sync.set_input_tensor(index, value)
            else:
                self._sync.copy_input(index, value)

    def _input_index(self, key: Output | str) -> int:
        is_input, index = self._sync.find_port(key)
        if not is_input:
            raise ValidationError(f"{key!r} names an output; inputs are set by input name, index or port.")
        return index

    # -- profiling and states ---------------------------------------------------------------------
    def get_profiling_info(self) -> list[ProfilingInfo]:
        with self._lock:
            self._check_idle("get_profiling_info")
            return self._sync.get_profiling_info()

    @property
    def profiling_info(self) -> list[ProfilingInfo]:
        return self.get_profiling_info()

    def query_state(self) -> list[VariableState]:
        with self._lock:
            self._check_idle("query_state")
            return self._sync.query_state()

    def reset_state(self) -> None:
        for state in self.query_state():
            state.reset()

    def __repr__(self) -> str:
        return f"<InferRequest {self._sync.request_id} of {self._sync.compiled_model.model_name!r}>"


#: OpenVINO's Python name for the asynchronous request.
InferRequest = AsyncInferRequest


def _as_infer_error(error: BaseException, request: AsyncInferRequest) -> BaseException:
    if isinstance(error, OVConformError) or not isinstance(error, Exception):
        return error
    wrapped = InferError(f"infer request {request.sync_request.request_id}: a pipeline stage failed: "
                         f"{type(error).__name__}: {error}")
    wrapped.__cause__ = error
    return wrapped


def _index_and_tensor(args: Sequence[Any], what: str) -> tuple[int | None, Tensor]:
    if len(args) == 1:
        return None, args[0]
    if len(args) == 2:
        return args[0], args[1]
    raise ValidationError(f"{what}() takes (tensor) or (index, tensor); got {len(args)} arguments.")


def _input_items(inputs: Any, n_inputs: int) -> Iterable[tuple[Any, Any]]:
    if isinstance(inputs, Mapping):
        return inputs.items()
    if isinstance(inputs, (list, tuple)):
        if len(inputs) > n_inputs:
            raise ValidationError(f"got {len(inputs)} inputs; the model has {n_inputs}.")
        return enumerate(inputs)
    if n_inputs != 1:
        raise ValidationError(f"a single input value needs a one-input model; this one has {n_inputs}. "
                              "Pass a dict or a list.")
    return [(0, inputs)]
