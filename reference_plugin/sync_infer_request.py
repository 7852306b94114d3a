"""The REFERENCE synchronous infer request (seed 003): four timed stages, per-node profiling,
variable states.

Stages (their durations are in ``stage_durations``): *preprocess* takes the input tensors as
arrays and snapshots the variable states; *start_pipeline* executes the compiled program
(the device work: nodes in order, each timed when PERF_COUNT is on, cancellation checked
between nodes) and commits the variable writes when the whole run succeeded; *wait_pipeline*
waits for the device (the computation is synchronous, so there is nothing left to wait for);
*postprocess* writes the results into the output tensors, resizing dynamic ones.

Each request owns its variable states: ``query_state()`` lists one state per model variable;
a state that was never written (or was reset) lets ReadValue use its initializer, or zeros.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from ovconform.api import ProfilingInfo, ProfilingStatus, RemoteTensor, SyncInferRequest, Tensor, VariableState
from ovconform.errors import ValidationError
from reference_plugin.fast.blas import set_blas_threads

if TYPE_CHECKING:
    from reference_plugin.compiled_model import Program, ReferenceCompiledModel, Timing

__all__ = ["ReferenceSyncInferRequest", "ReferenceVariableState"]

_ZERO = timedelta(0)


class ReferenceVariableState(VariableState):
    """A variable state that knows whether it holds a value written since the last reset."""

    def __init__(self, name: str, initial: Tensor) -> None:
        super().__init__(name, initial)
        self._written = False

    @property
    def is_written(self) -> bool:
        """False after construction and reset: ReadValue then uses its initializer (or zeros)."""
        return self._written

    def set_state(self, value: Tensor | np.ndarray) -> None:
        super().set_state(value)
        self._written = True

    def reset(self) -> None:
        super().reset()
        self._written = False


class ReferenceSyncInferRequest(SyncInferRequest):
    """Runs a :class:`~reference_plugin.compiled_model.Program` in the base class's stages."""

    def __init__(self, compiled_model: ReferenceCompiledModel) -> None:
        self._program: Program = compiled_model.program
        self._timings: list[Timing | None] | None = None
        self._run_state: dict[str, np.ndarray] = {}
        #: True when a stream worker process computes the runs (REFERENCE_PROCESS_STREAMS)
        self.runs_in_worker = compiled_model.runner is not compiled_model.program
        super().__init__(compiled_model)

    def _create_states(self) -> list[VariableState]:
        states: list[VariableState] = []
        for var in self._program.variables:
            shape = var.data_shape.get_min_shape() if var.data_shape.has_rank() else ()
            states.append(ReferenceVariableState(var.variable_id, Tensor(var.data_type, shape)))
        return states

    def _check_tensor(self, is_input: bool, index: int, tensor: Any) -> None:
        """The base class's checks, and a remote tensor must live in a context of this device (its
        memory is this device's): one of another device's context is refused."""
        super()._check_tensor(is_input, index, tensor)
        if isinstance(tensor, RemoteTensor):
            owner = str(tensor.get_device_name())
            ours = str(self._compiled_model.plugin.device_name)
            if owner.split(".")[0].upper() != ours.upper():
                raise ValidationError(f"the remote tensor for {self._label(is_input, index)} belongs to a context of "
                                      f"device {owner!r}; this request runs on {ours!r}, which takes only host "
                                      f"tensors and remote tensors of its own contexts.")

    # -- stages ---------------------------------------------------------------------------------
    def _preprocess(self) -> None:
        super()._preprocess()
        self._run_state = {name: state.get_state().data for name, state in self._states.items()
                           if isinstance(state, ReferenceVariableState) and state.is_written}

    def _start_pipeline(self) -> None:
        cm: ReferenceCompiledModel = self._compiled_model  # type: ignore[assignment]
        timings: list[Timing | None] | None = [None] * len(self._program.steps) if cm.profiling_enabled else None
        self._timings = timings
        runner = cm.runner
        if runner is self._program:
            set_blas_threads(cm.blas_threads)
            # the output tensors' memory: a result computed by a chain is written straight there
            dests = [self._tensor(False, i)._host_array() for i in range(len(self._outputs))]
            outputs, writes = runner.run(self._input_arrays, self._run_state, timings=timings,
                                         check=self.check_cancelled, threads=cm.blas_threads, outputs=dests)
        else:
            outputs, writes = runner.run(self._input_arrays, self._run_state, timings=timings,
                                         check=self.check_cancelled)
        self._output_arrays = outputs
        for name, value in writes.items():
            self._states[name].set_state(value)
        if timings is not None:
            cm.record_timings(timings)

    # -- profiling ------------------------------------------------------------------------------
    def _profiling_info(self) -> list[ProfilingInfo]:
        """One entry per executed node (NOT_RUN before a profiled run), then one OPTIMIZED_OUT
        entry per original op that a transformation fused or folded away."""
        cm: ReferenceCompiledModel = self._compiled_model  # type: ignore[assignment]
        timings: Sequence[Timing | None] = self._timings or [None] * len(self._program.steps)
        out = []
        for step, t in zip(self._program.steps, timings, strict=True):
            node = step.node
            if t is None:
                out.append(ProfilingInfo(node.friendly_name, node.type_name, cm.impl_type(node), _ZERO, _ZERO,
                                         ProfilingStatus.NOT_RUN))
            else:
                out.append(ProfilingInfo(node.friendly_name, node.type_name, cm.impl_type(node),
                                         timedelta(seconds=t[0]), timedelta(seconds=t[1]), ProfilingStatus.EXECUTED))
        for name, absorber in cm.optimized_out:
            out.append(ProfilingInfo(name, absorber.type_name, f"optimized_out_into:{absorber.friendly_name}",
                                     _ZERO, _ZERO, ProfilingStatus.OPTIMIZED_OUT))
        return out
