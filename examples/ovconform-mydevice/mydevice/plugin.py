"""The device: Plugin, CompiledModel and SyncInferRequest subclasses, nothing more."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import timedelta

import numpy as np

from ovconform import properties as P
from ovconform.api import (
    CompiledModel,
    Plugin,
    ProfilingInfo,
    ProfilingStatus,
    SyncInferRequest,
    Tensor,
    VariableState,
    variable_infos,
)
from ovconform.ir import Model, Node
from reference_plugin.ops import RunContext, make_kernel, registered_ops


class MyInferRequest(SyncInferRequest):
    """Runs the compiled plan node by node and keeps per-node times for profiling."""

    def __init__(self, compiled_model: MyCompiledModel) -> None:
        super().__init__(compiled_model)
        self._times = [0.0] * len(compiled_model.plan)

    def _create_states(self) -> list[VariableState]:
        """One state per model variable (ReadValue/Assign), per request."""
        cm: MyCompiledModel = self._compiled_model  # type: ignore[assignment]
        return [VariableState(v.variable_id, Tensor(v.data_type, v.data_shape.get_min_shape()))
                for v in variable_infos(cm.model)]

    def _run_model(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        cm: MyCompiledModel = self._compiled_model  # type: ignore[assignment]
        # a ReadValue sees a state only once something was written to it (else its initializer)
        ctx = RunContext(state={n: s.get_state().data for n, s in self._states.items() if s.is_written})
        values: dict[int, tuple[np.ndarray, ...]] = {}
        for step, (node, kernel, sources) in enumerate(cm.plan):
            self.check_cancelled()
            start = time.perf_counter()
            if node.type_name == "Parameter":
                values[step] = (inputs[cm.parameter_index[step]],)
            else:
                args = [values[s][i] for s, i in sources]
                values[step] = kernel.run(args, ctx) if kernel.needs_ctx else kernel.run(args)
            for done in cm.last_use[step]:  # free what no later node reads: memory stays flat
                del values[done]
            self._times[step] = time.perf_counter() - start
        for name, value in ctx.updates.items():
            self._states[name].set_state(value)
        return [values[step][0] for step in cm.result_steps]

    def _profiling_info(self) -> list[ProfilingInfo]:
        cm: MyCompiledModel = self._compiled_model  # type: ignore[assignment]
        return [ProfilingInfo(node.friendly_name, node.type_name, "mydevice_numpy",
                              timedelta(seconds=t), timedelta(seconds=t), ProfilingStatus.EXECUTED)
                for (node, _k, _s), t in zip(cm.plan, self._times, strict=True)]


class MyCompiledModel(CompiledModel):
    sync_request_class = MyInferRequest

    def _compile(self, model: Model) -> None:
        """Turn the graph into a flat plan: (node, kernel, [(source step, output index)])."""
        ops = model.get_ordered_ops()
        step_of = {id(n): i for i, n in enumerate(ops)}
        self.plan: list[tuple[Node, object, list[tuple[int, int]]]] = [
            (n, None if n.type_name == "Parameter" else make_kernel(n),
             [(step_of[id(v.node)], v.index) for v in n.input_values()]) for n in ops]
        self.parameter_index = {step_of[id(p)]: i for i, p in enumerate(model.get_parameters())}
        self.result_steps = [step_of[id(r)] for r in model.get_results()]
        # last_use[step]: the steps whose outputs nothing after ``step`` reads (results are kept)
        last = {s: step for step, (_n, _k, sources) in enumerate(self.plan) for s, _i in sources}
        self.last_use: list[list[int]] = [[] for _ in self.plan]
        for source, step in last.items():
            if source not in self.result_steps:
                self.last_use[step].append(source)


class MyDevicePlugin(Plugin):
    device_name = "MYDEVICE"
    full_device_name = "Example device (numpy)"
    device_architecture = "MYDEVICE-1"
    capabilities = (P.Capability.FP32,)
    supported_ops = frozenset(registered_ops())
    compiled_model_class = MyCompiledModel
