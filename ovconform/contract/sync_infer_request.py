"""The synchronous infer request base (``ov::ISyncInferRequest``), ProfilingInfo and VariableState.

A device subclasses :class:`SyncInferRequest` and implements :meth:`SyncInferRequest._run_model`
(input arrays in, output arrays out); the base resolves ports, validates tensors, runs the named
stages with timing and cancellation checks, and writes outputs into the output tensors
(resizing dynamic ones). Devices with real pipelines override the stage methods instead.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Final

import numpy as np

from ovconform.contract.tensor import Tensor
from ovconform.errors import CancelledError, InferError, NotEnabledError, NotFoundError, OVConformError, ValidationError
from ovconform.ir import Layout, Output
from ovconform.ir._layout import get_batch_index, has_batch

if TYPE_CHECKING:
    from ovconform.contract.compiled_model import CompiledModel

__all__ = ["STAGES", "ProfilingInfo", "ProfilingStatus", "SyncInferRequest", "VariableState"]

PREPROCESS: Final = "preprocess"
START_PIPELINE: Final = "start_pipeline"
WAIT_PIPELINE: Final = "wait_pipeline"
POSTPROCESS: Final = "postprocess"
#: The stages of one inference, in order (their durations are recorded by name).
STAGES: Final = (PREPROCESS, START_PIPELINE, WAIT_PIPELINE, POSTPROCESS)


class ProfilingStatus(enum.Enum):
    """``ProfilingInfo.Status``: what happened to a node in the last run."""

    NOT_RUN = 0
    OPTIMIZED_OUT = 1
    EXECUTED = 2


@dataclass
class ProfilingInfo:
    """One performance counter (OpenVINO's ``ProfilingInfo``)."""

    Status: ClassVar[type[ProfilingStatus]] = ProfilingStatus

    node_name: str
    node_type: str
    exec_type: str
    real_time: timedelta
    cpu_time: timedelta
    status: ProfilingStatus = ProfilingStatus.EXECUTED


class VariableState:
    """The value of one model variable inside one infer request (``ov::VariableState``).

    :param name: the variable id.
    :param initial: the value :meth:`reset` restores (copied).
    """

    def __init__(self, name: str, initial: Tensor) -> None:
        self._name = name
        self._initial = Tensor(initial.data)
        self._state = Tensor(initial.data)
        self._lock = threading.Lock()
        self._written = False

    @property
    def is_written(self) -> bool:
        """False after construction and after :meth:`reset`: a ReadValue then uses its
        initializer (or zeros) instead of this state; True once a value was set."""
        return self._written

    @property
    def name(self) -> str:
        return self._name

    def get_name(self) -> str:
        return self._name

    @property
    def state(self) -> Tensor:
        return self.get_state()

    @state.setter
    def state(self, value: Tensor | np.ndarray) -> None:
        self.set_state(value)

    def get_state(self) -> Tensor:
        with self._lock:
            return self._state

    def set_state(self, value: Tensor | np.ndarray) -> None:
        """Replace the value with a copy of ``value`` (same element type required)."""
        new = Tensor(value.data if isinstance(value, Tensor) else np.asarray(value))
        if new.element_type != self._initial.element_type:
            raise ValidationError(f"variable {self._name!r} holds {self._initial.element_type}; "
                                  f"got a value of {new.element_type}.")
        with self._lock:
            self._state = new
            self._written = True

    def reset(self) -> None:
        with self._lock:
            self._state = Tensor(self._initial.data)
            self._written = False

    def __repr__(self) -> str:
        return f"<VariableState {self._name!r} {self._state}>"


def _port_label(is_input: bool, index: int, port: Output) -> str:
    names = sorted(port.get_names())
    return f"{'input' if is_input else 'output'} {index}" + (f" {names[0]!r}" if names else "")


class _PortSpec:
    """What a request checks a port's tensors against, worked out once per request: the
    element type and its dtype, the partial shape, and the shape when it is static."""

    __slots__ = ("dtype", "element_type", "partial_shape", "static")

    def __init__(self, port: Output) -> None:
        self.element_type = port.get_element_type()
        self.dtype = self.element_type.to_dtype()
        self.partial_shape = port.get_partial_shape()
        self.static: tuple[int, ...] | None = tuple(self.partial_shape.to_shape()) \
            if self.partial_shape.is_static else None

    def fits(self, shape: tuple[int, ...]) -> bool:
        """``partial_shape.fits(shape)``, without walking the dimensions for a static port."""
        return shape == self.static if self.static is not None else self.partial_shape.fits(shape)


def _default_tensor(port: Output) -> Tensor:
    """A tensor for ``port``: its shape when static, zero-sized dynamic dimensions otherwise."""
    ps = port.get_partial_shape()
    if ps.is_static:
        return Tensor(port.get_element_type(), ps.to_shape())
    dims = [d.get_length() if d.is_static else 0 for d in ps] if ps.has_rank() else [0]
    return Tensor(port.get_element_type(), dims)


class SyncInferRequest:
    """Base of a device's synchronous infer request.

    Subclasses implement :meth:`_run_model`, and may override the stage methods
    (:meth:`_preprocess`, :meth:`_start_pipeline`, :meth:`_wait_pipeline`, :meth:`_postprocess`),
    :meth:`_profiling_info`, :meth:`_create_states` and :meth:`_on_cancel`.

    :param compiled_model: the compiled model this request runs.
    """

    def __init__(self, compiled_model: CompiledModel) -> None:
        self._compiled_model = compiled_model
        self._inputs: list[Output] = list(compiled_model.inputs)
        self._outputs: list[Output] = list(compiled_model.outputs)
        self._in_tensors: list[Tensor | None] = [None] * len(self._inputs)
        self._batched: dict[int, tuple[int, list[Tensor]]] = {}  # input -> (batch axis, its N tensors)
        self._out_tensors: list[Tensor | None] = [None] * len(self._outputs)
        self._by_name = self._index_names()
        self._specs = ([_PortSpec(p) for p in self._inputs], [_PortSpec(p) for p in self._outputs])
        self._durations: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self._cancel = threading.Event()
        self._input_arrays: list[np.ndarray] = []
        self._output_arrays: list[np.ndarray] = []
        self.request_id = compiled_model.next_request_id()
        self._states = {s.name: s for s in self._create_states()}

    # -- ports --------------------------------------------------------------------------------
    @property
    def compiled_model(self) -> CompiledModel:
        return self._compiled_model

    @property
    def inputs(self) -> list[Output]:
        return list(self._inputs)

    @property
    def outputs(self) -> list[Output]:
        return list(self._outputs)

    def _index_names(self) -> dict[str, tuple[bool, int]]:
        found: dict[str, tuple[bool, int]] = {}
        for is_input, ports in ((False, self._outputs), (True, self._inputs)):  # inputs win
            for i, port in enumerate(ports):
                for name in port.get_names():
                    found[name] = (is_input, i)
        return found

    def find_port(self, key: Output | str) -> tuple[bool, int]:
        """``(is_input, index)`` of a port given as an Output (compiled or model port) or a
        tensor name."""
        if isinstance(key, str):
            if key in self._by_name:
                return self._by_name[key]
            raise NotFoundError(
                f"Port for tensor name {key!r} was not found; input names: "
                f"{sorted(n for n, (i, _) in self._by_name.items() if i)}, output names: "
                f"{sorted(n for n, (i, _) in self._by_name.items() if not i)}.")
        if isinstance(key, Output):
            for is_input, ports in ((True, self._inputs), (False, self._outputs)):
                for i, port in enumerate(ports):
                    if port == key:
                        return is_input, i
            for name in sorted(key.get_names()):
                if name in self._by_name:
                    return self._by_name[name]
            raise NotFoundError(f"{key!r} is not a port of compiled model {self._model_name()!r}.")
        raise ValidationError(f"a port must be an Output or a tensor name, not {type(key).__name__}.")

    def _port(self, is_input: bool, index: int) -> Output:
        return (self._inputs if is_input else self._outputs)[index]

    def _index(self, is_input: bool, index: int | None) -> int:
        ports = self._inputs if is_input else self._outputs
        what = "input" if is_input else "output"
        if index is None:
            if len(ports) != 1:
                raise NotFoundError(f"compiled model {self._model_name()!r} has {len(ports)} {what}s; give an index.")
            return 0
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(ports):
            raise NotFoundError(f"compiled model {self._model_name()!r} has no {what} {index!r}; "
                                f"it has {len(ports)}.")
        return int(index)

    def _model_name(self) -> str:
        return self._compiled_model.model_name

    # -- tensors ------------------------------------------------------------------------------
    def get_tensor(self, key: Output | str) -> Tensor:
        is_input, index = self.find_port(key)
        if is_input:
            self._check_not_batched(index)
        return self._tensor(is_input, index)

    def get_input_tensor(self, index: int | None = None) -> Tensor:
        i = self._index(True, index)
        self._check_not_batched(i)
        return self._tensor(True, i)

    def _check_not_batched(self, index: int) -> None:
        if index in self._batched:
            raise ValidationError(
                f"get_tensor cannot be used for {self._label(True, index)}: it was given "
                f"{len(self._batched[index][1])} tensors with set_tensors (a batched input); read those "
                "tensors, or call set_tensor first.")

    def get_output_tensor(self, index: int | None = None) -> Tensor:
        return self._tensor(False, self._index(False, index))

    def _tensor(self, is_input: bool, index: int) -> Tensor:
        slots = self._in_tensors if is_input else self._out_tensors
        tensor = slots[index]
        if tensor is None:
            tensor = slots[index] = _default_tensor(self._port(is_input, index))
        return tensor

    def set_tensor(self, key: Output | str, tensor: Tensor) -> None:
        self._set(*self.find_port(key), tensor)

    def set_input_tensor(self, index: int | None, tensor: Tensor) -> None:
        self._set(True, self._index(True, index), tensor)

    def set_output_tensor(self, index: int | None, tensor: Tensor) -> None:
        self._set(False, self._index(False, index), tensor)

    def _set(self, is_input: bool, index: int, tensor: Tensor) -> None:
        self._check_tensor(is_input, index, tensor)
        if is_input:
            self._batched.pop(index, None)
        (self._in_tensors if is_input else self._out_tensors)[index] = tensor

    # -- batched inputs (set_tensors) --------------------------------------------------------------
    def set_tensors(self, key: Output | str, tensors: Sequence[Tensor]) -> None:
        """``set_tensors(port_or_name, tensors)``: give an input whose layout has a batch
        dimension ``N`` one tensor per batch item (each of batch 1); one tensor is ``set_tensor``.

        :raises NotFoundError: when ``key`` names no input.
        :raises ValidationError: for no tensors, an input without ``N`` in its layout, a count
            that is not the batch size, or a tensor whose element type or shape does not fit.
        """
        is_input, index = self.find_port(key)
        if not is_input:
            raise NotFoundError(f"set_tensors sets inputs; {key!r} is {self._label(False, index)} of compiled "
                                f"model {self._model_name()!r}.")
        self.set_batched_input(index, tensors)

    def set_input_tensors(self, index: int | None, tensors: Sequence[Tensor]) -> None:
        """``set_input_tensors([index,] tensors)``: :meth:`set_tensors` by input index (``None``:
        the only input)."""
        self.set_batched_input(self._index(True, index), tensors)

    def set_batched_input(self, index: int, tensors: Sequence[Tensor]) -> None:
        """Check ``tensors`` against input ``index`` and keep them: each run gathers them into one
        batch tensor (:meth:`gather_batched_inputs`), so values written into them between runs
        are seen."""
        items = self._check_batch(index, tensors)
        if len(items) == 1:
            self._set(True, index, items[0])
            return
        axis = self._batch_axis(index)
        shape = list(items[0].shape)
        shape[axis] = len(items)
        self._in_tensors[index] = Tensor(self._specs[0][index].element_type, shape)
        self._batched[index] = (axis, items)

    @property
    def batched_inputs(self) -> dict[int, list[Tensor]]:
        """Input index -> the tensors set with :meth:`set_tensors` (inputs with more than one)."""
        return {i: list(ts) for i, (_, ts) in self._batched.items()}

    def _batch_axis(self, index: int) -> int:
        port = self._inputs[index]
        layout: Layout = port.get_node().get_layout()
        rank = port.get_partial_shape().rank
        if not has_batch(layout) or not rank.is_static:
            raise ValidationError(
                f"set_tensors needs an input whose layout has a batch dimension 'N'; "
                f"{self._label(True, index)} has layout {layout.to_string() or '(none)'!r} and shape "
                f"{port.get_partial_shape()} (set one with Parameter.set_layout('N...')).")
        return get_batch_index(layout, rank.get_length())

    def _check_batch(self, index: int, tensors: Any) -> list[Tensor]:
        label = self._label(True, index)
        if isinstance(tensors, (Tensor, str, bytes)) or not isinstance(tensors, Sequence):
            raise ValidationError(f"set_tensors for {label} takes a list of Tensors, not {type(tensors).__name__}.")
        items = list(tensors)
        if not items:
            raise ValidationError(f"set_tensors for {label} got no tensors; give one per batch item.")
        for i, t in enumerate(items):
            if not isinstance(t, Tensor):
                raise ValidationError(f"set_tensors for {label}: item {i} is a {type(t).__name__}, not a Tensor.")
        if len(items) == 1:
            return items
        spec = self._specs[0][index]
        axis = self._batch_axis(index)
        first = items[0].shape
        for i, t in enumerate(items):
            if t.element_type != spec.element_type:
                raise ValidationError(f"set_tensors for {label}: tensor {i} has element type {t.element_type}; "
                                      f"the port's element type is {spec.element_type}.")
            if len(t.shape) != len(first) or t.shape[axis:axis + 1] != (1,) or t.shape != first:
                raise ValidationError(f"set_tensors for {label}: tensor {i} has shape {list(t.shape)}; every "
                                      f"tensor must have shape {[*first[:axis], 1, *first[axis + 1:]]} "
                                      f"(batch 1 on axis {axis}, the same shape for all).")
        batch = (*first[:axis], len(items), *first[axis + 1:])
        if not spec.fits(batch):
            raise ValidationError(f"set_tensors for {label}: {len(items)} tensors of shape {list(first)} make "
                                  f"a batch of shape {list(batch)}, which does not fit the port's shape "
                                  f"{spec.partial_shape} (give one tensor per batch item).")
        return items

    def gather_batched_inputs(self) -> None:
        """Copy each batched input's tensors into its batch tensor (the base's preprocess does
        this; a device that overrides :meth:`_preprocess` calls it first)."""
        for index, (axis, items) in self._batched.items():
            target = self._tensor(True, index)._host_array()
            try:
                np.concatenate([t._host_array() for t in items], axis=axis, out=target)
            except ValueError as e:  # a tensor was reshaped after set_tensors
                raise ValidationError(f"set_tensors for {self._label(True, index)}: the tensors no longer "
                                      f"make a batch of shape {list(target.shape)}: {e}") from None

    def _check_tensor(self, is_input: bool, index: int, tensor: Any) -> None:
        spec = self._specs[0 if is_input else 1][index]
        if not isinstance(tensor, Tensor):
            raise ValidationError(f"the tensor for {self._label(is_input, index)} must be a Tensor, "
                                  f"not {type(tensor).__name__}.")
        if tensor.element_type != spec.element_type:
            raise ValidationError(f"the tensor for {self._label(is_input, index)} has element type "
                                  f"{tensor.element_type}; the port's element type is {spec.element_type}.")
        shape = tensor.shape
        if spec.static is not None and shape != spec.static:
            raise ValidationError(f"the tensor for {self._label(is_input, index)} has shape {list(shape)}; "
                                  f"the port's shape is {spec.partial_shape}.")
        if is_input and not spec.fits(shape):
            raise ValidationError(f"the tensor for {self._label(is_input, index)} has shape {list(shape)}, "
                                  f"which does not fit the port's shape {spec.partial_shape}.")

    def _label(self, is_input: bool, index: int) -> str:
        return _port_label(is_input, index, self._port(is_input, index))

    def copy_input(self, index: int, value: Any) -> None:
        """Copy ``value`` (an array, or anything numpy turns into one) into input ``index``'s
        tensor, resizing it for a dynamic port.

        :raises ValidationError: naming the input, when the value is no array (ragged nesting),
            its shape does not fit the port or its values cannot be stored as its element type.
        """
        try:
            array = np.asarray(value)
        except (ValueError, TypeError) as e:  # ragged nesting, say
            raise ValidationError(f"input {index} {sorted(self._inputs[index].get_names())}: the value is not an "
                                  f"array numpy can build ({e}).") from None
        spec = self._specs[0][index]
        self._batched.pop(index, None)
        tensor = self._tensor(True, index)
        if not spec.fits(array.shape):
            raise ValidationError(f"input {index} {sorted(self._inputs[index].get_names())}: array shape "
                                  f"{list(array.shape)} does not fit the port's shape {spec.partial_shape}.")
        try:
            if array.shape != tensor.shape:
                tensor.set_shape(array.shape)
            np.copyto(tensor._host_array(), array, casting="same_kind")
        except TypeError as e:
            raise ValidationError(f"input {index}: cannot store {array.dtype} values in a "
                                  f"{spec.element_type} tensor: {e}") from None

    def check_tensors(self) -> None:
        """Check every input and output tensor against its port (the first step of infer)."""
        for is_input, ports in ((True, self._inputs), (False, self._outputs)):
            for i in range(len(ports)):
                self._check_tensor(is_input, i, self._tensor(is_input, i))

    # -- running ------------------------------------------------------------------------------
    def infer(self) -> None:
        """Run the stages synchronously on the calling thread."""
        self._cancel.clear()
        self.run_stages()

    def run_stages(self) -> None:
        """Check tensors, then run preprocess, start_pipeline, wait_pipeline and postprocess,
        recording each duration; a cancel request stops the run between stages."""
        self.check_tensors()
        for name, stage in self.stages():
            self.run_stage(name, stage)

    def stages(self) -> list[tuple[str, Callable[[], None]]]:
        return [(PREPROCESS, self._preprocess), (START_PIPELINE, self._start_pipeline),
                (WAIT_PIPELINE, self._wait_pipeline), (POSTPROCESS, self._postprocess)]

    def run_stage(self, name: str, stage: Callable[[], None]) -> None:
        """Run one named stage with timing; non-ovconform errors become InferError."""
        self.check_cancelled()
        start = time.perf_counter()
        try:
            stage()
        except OVConformError:
            raise
        except Exception as e:
            raise InferError(f"device {self._compiled_model.device_name!r}, model {self._model_name()!r}: "
                             f"stage {name!r} failed: {type(e).__name__}: {e}") from e
        finally:
            self._durations[name] = time.perf_counter() - start
        if name == POSTPROCESS:  # a run completed: the runtime model's execTimeMcs come from it
            self._compiled_model.record_run(self)

    def _preprocess(self) -> None:
        self.gather_batched_inputs()
        self._input_arrays = [np.require(self._tensor(True, i)._host_array(), requirements="C")  # 0-d stays 0-d
                              for i in range(len(self._inputs))]

    def _start_pipeline(self) -> None:
        self._output_arrays = list(self._run_model(self._input_arrays))

    def _wait_pipeline(self) -> None:
        """Wait for the device (nothing to wait for in a synchronous backend)."""

    def _postprocess(self) -> None:
        if len(self._output_arrays) != len(self._outputs):
            raise InferError(f"device {self._compiled_model.device_name!r} returned "
                             f"{len(self._output_arrays)} outputs; the model has {len(self._outputs)}.")
        for i, array in enumerate(self._output_arrays):
            self.store_output(i, array)

    def _run_model(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        """Compute the outputs from the inputs (one array per port, in port order)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _run_model() or the stage methods.")

    def store_output(self, index: int, array: np.ndarray) -> None:
        """Write ``array`` into output ``index``'s tensor (resizing it for dynamic ports; the
        tensor's memory is kept when the shape allows)."""
        spec = self._specs[1][index]
        tensor = self._tensor(False, index)
        arr = np.asarray(array)
        if arr.dtype != spec.dtype:
            raise InferError(f"device produced dtype {arr.dtype} for {self._label(False, index)}; its element "
                             f"type is {spec.element_type}.")
        if not spec.fits(arr.shape):
            raise InferError(f"device produced shape {list(arr.shape)} for {self._label(False, index)}; "
                             f"the port allows {spec.partial_shape}.")
        if arr.shape != tensor.shape:
            try:
                tensor.set_shape(arr.shape)
            except ValidationError as e:
                raise InferError(f"{self._label(False, index)}: {e}") from e
        host = tensor._host_array()
        if arr is not host:  # a device that wrote the tensor's own memory has nothing to copy
            np.copyto(host, arr)

    # -- cancellation ---------------------------------------------------------------------------
    def cancel(self) -> None:
        """Ask the current run to stop; it raises CancelledError at the next check."""
        self._cancel.set()
        self._on_cancel()

    def _on_cancel(self) -> None:
        """Device hook: interrupt a running backend (the flag alone stops between stages)."""

    def clear_cancel(self) -> None:
        self._cancel.clear()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        """Raise CancelledError when a cancel was requested (devices call this between nodes)."""
        if self._cancel.is_set():
            raise CancelledError(f"infer request {self.request_id} of model {self._model_name()!r} "
                                 f"on {self._compiled_model.device_name!r} was cancelled.")

    # -- profiling and states ---------------------------------------------------------------------
    @property
    def stage_durations(self) -> dict[str, float]:
        """Seconds spent in each stage in the last run."""
        return dict(self._durations)

    def get_profiling_info(self) -> list[ProfilingInfo]:
        if not self._compiled_model.profiling_enabled:
            raise NotEnabledError(f"profiling is off for model {self._model_name()!r} on "
                                  f"{self._compiled_model.device_name!r}; compile with PERF_COUNT=True.")
        return list(self._profiling_info())

    def _profiling_info(self) -> list[ProfilingInfo]:
        """Default counters: one per stage (a device overrides this with per-node counters)."""
        out = []
        for i, stage in enumerate(STAGES, 1):
            t = timedelta(seconds=self._durations[stage])
            out.append(ProfilingInfo(f"{i}. {stage}", "Stage", "stage", t, t, ProfilingStatus.EXECUTED))
        return out

    def query_state(self) -> list[VariableState]:
        return list(self._states.values())

    def _create_states(self) -> list[VariableState]:
        """Device hook: the request's variable states (none by default)."""
        return []
