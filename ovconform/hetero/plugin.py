"""HETERO in the host: one model over several devices (``Core.compile_model(m, "HETERO:A,B")``).

The split, as OpenVINO's HETERO plugin does it:

1. every device in ``MULTI_DEVICE_PRIORITIES`` answers ``query_model`` for the whole model; each op
   goes to the first device (in priority order) that declares it supported — an op no device
   supports is an :class:`~ovconform.errors.UnsupportedOpError` naming it;
2. the ops, in topological order, are grouped into stages: an op joins the earliest stage of
   its device that is not before any of its producers' stages, else opens a new stage; stages
   only depend on earlier stages, so running them in order is always possible;
3. each stage becomes a model of its own (values from other stages enter as Parameters,
   Constants are copied in, values other stages or the model's Results need leave as Results)
   and is compiled on its device.

Variables stay with HETERO: ReadValue and Assign are run by the HETERO request itself between
stages (the state belongs to the HETERO request; writes are applied when the whole run succeeded),
so a variable's ReadValue and Assign may sit on different devices.

``query_model`` answers, as every device does, with the device queried ("HETERO") for each op
some device supports (and, as OpenVINO, nothing when there are no devices);
:meth:`HeteroPlugin.query_devices` gives each op's device (OpenVINO's HETERO answer), and a
compiled model's ``stages`` and runtime model (rt_info "execDevice") show the split.

Names, as OpenVINO's Core has them: the devices are the property ``MULTI_DEVICE_PRIORITIES``
(``ov::device::priorities``; ``"HETERO:A,B"`` sets it for one compile_model / query_model call);
``get_property`` / ``set_property`` take ``"HETERO"`` only — ``"HETERO:A,B"`` there is refused
(:func:`check_property_device`). ``import_model`` on ``"HETERO"`` or ``"HETERO:A,B"`` runs the
blob on the blob's own devices (the name's list is ignored, as OpenVINO does).

Export/import (EXPORT_IMPORT): the blob (:mod:`ovconform.hetero.blob`) holds the devices, the
model's IR, the plan (the steps and each op's part) and per part the part device's own blob
(or the part's IR when that device cannot export), so import rebuilds the same split without
asking the devices again (:mod:`ovconform.hetero.io`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Final

import numpy as np

from ovconform import properties as P
from ovconform.contract.compiled_model import CompiledModel
from ovconform.contract.plugin import Plugin, _read_stream
from ovconform.contract.sync_infer_request import ProfilingInfo, ProfilingStatus, SyncInferRequest, VariableState
from ovconform.contract.tensor import Tensor
from ovconform.errors import CompileError, OVConformError, UnsupportedOpError, ValidationError
from ovconform.ir import Model, Node, Output
from ovconform.ir._graph import make_node

__all__ = ["DEVICE_PRIORITIES", "HETERO", "NUMBER_OF_SUBMODELS", "HeteroCompiledModel", "HeteroPlugin",
           "check_property_device", "parse_priorities", "split_meta_device"]

HETERO: Final = "HETERO"
#: ``ov::device::priorities``: OpenVINO's name for the devices of HETERO (and AUTO/MULTI).
DEVICE_PRIORITIES: Final = "MULTI_DEVICE_PRIORITIES"
#: ``ov::hetero::number_of_submodels``: the device parts of a compiled model.
NUMBER_OF_SUBMODELS: Final = "HETERO_NUMBER_OF_SUBMODELS"
P.register_property(P.PropertySpec(DEVICE_PRIORITIES, P.parse_str, "a comma-separated list of device names",
                                   P.Mutability.RW, "HETERO: the devices, in priority order"))
P.register_property(P.PropertySpec(NUMBER_OF_SUBMODELS, P.parse_int, "read-only", P.Mutability.RO,
                                   "HETERO: how many device parts a compiled model has"))
_HOUSEKEEPING: Final = ("Parameter", "Constant", "Result")
_HOST_OPS: Final = ("ReadValue", "Assign")
Key = tuple[int, int]  # (id(node), output index)


def parse_priorities(value: Any) -> list[str]:
    return [d.strip() for d in P.parse_str_list(value) if d.strip()]


def split_meta_device(device: Any) -> tuple[Any, dict[str, Any]]:
    """``"HETERO:A,B"`` -> ``("HETERO", {DEVICE_PRIORITIES: "A,B"})``; anything else unchanged."""
    if isinstance(device, str) and device.upper().startswith(HETERO + ":"):
        return HETERO, {DEVICE_PRIORITIES: device.split(":", 1)[1]}
    return device, {}


def check_property_device(device: Any, call: str) -> None:
    """Refuse ``"HETERO:A,B"`` in ``get_property`` / ``set_property``, as OpenVINO's Core does
    ("You can only get_property of the HETERO itself (without devices)")."""
    name, meta = split_meta_device(device)
    if meta:
        raise ValidationError(
            f"{call}({device!r}): {call} is supported only for {name} itself (without devices); use "
            f"{call}({name!r}, ...) (its devices are the property {DEVICE_PRIORITIES}) or {call} on each device.")


def _key(out: Output) -> Key:
    return (id(out.node), out.index)


# -- the plan ---------------------------------------------------------------------------------------
@dataclass
class Stage:
    """One part of the model on one device: where its inputs come from and what its outputs are."""

    device: str
    nodes: list[Node]
    inputs: list[Output] = field(default_factory=list)  # original outputs feeding its Parameters
    outputs: list[Output] = field(default_factory=list)  # original outputs its Results give back
    model: Model | None = None
    compiled: Any = None


@dataclass
class Step:
    """One step of a HETERO run: a device stage, or a ReadValue/Assign run by the host."""

    stage: Stage | None = None
    node: Node | None = None


def assign_devices(model: Model, answers: Sequence[tuple[str, set[str]]]) -> dict[int, str]:
    """``{id(node): device}`` for every op that is not housekeeping nor a variable op."""
    out: dict[int, str] = {}
    missing: list[str] = []
    for node in model.get_ordered_ops():
        if node.type_name in _HOUSEKEEPING or node.type_name in _HOST_OPS:
            continue
        device = next((d for d, names in answers if node.friendly_name in names), None)
        if device is None:
            missing.append(f"{node.friendly_name} ({node.type_name}-{node.version})")
        else:
            out[id(node)] = device
    if missing:
        raise UnsupportedOpError(f"HETERO: no device of {[d for d, _ in answers]} supports {missing}.")
    return out


def plan_steps(model: Model, device_of: Mapping[int, str]) -> list[Step]:
    """Group the ops into ordered steps (see the module docstring)."""
    steps: list[Step] = []
    step_of: dict[int, int] = {}
    for node in model.get_ordered_ops():
        if node.type_name in _HOUSEKEEPING:
            continue
        after = max((step_of.get(id(v.node), -1) for v in node.input_values()), default=-1)
        if node.type_name in _HOST_OPS:
            steps.append(Step(node=node))
            step_of[id(node)] = len(steps) - 1
            continue
        device = device_of[id(node)]
        start = max(after, 0)
        index, stage = next(((i, s.stage) for i, s in enumerate(steps[start:], start)
                             if s.stage is not None and s.stage.device == device), (len(steps), None))
        if stage is None:
            stage = Stage(device, [])
            steps.append(Step(stage=stage))
        stage.nodes.append(node)
        step_of[id(node)] = index
    return steps


def build_stage_model(stage: Stage, name: str, needed_outside: Callable[[Output, set[int]], bool]) -> Model:
    """The stage's own model: its nodes copied, boundary values as Parameters and Results."""
    from ovconform import opset

    inside = {id(n) for n in stage.nodes}
    made: dict[Key, Output] = {}
    params: list[Node] = []
    for node in stage.nodes:
        args = []
        for src in node.input_values():
            key = _key(src)
            if key not in made:
                if src.node.type_name == "Constant":
                    made[key] = _copy(src.node, []).output(0)
                else:
                    param = opset.parameter(src.get_partial_shape(), src.get_element_type(),
                                            name=f"hetero_input_{len(params)}")
                    params.append(param)
                    stage.inputs.append(src)
                    made[key] = param.output(0)
            args.append(made[key])
        copy = _copy(node, args)
        for i, out in enumerate(node.outputs()):
            made[_key(out)] = copy.output(i)
    results = []
    for node in stage.nodes:
        for out in node.outputs():
            if needed_outside(out, inside):
                stage.outputs.append(out)
                results.append(made[_key(out)])
    return Model(results, params, name)


def _copy(node: Node, inputs: list[Output]) -> Node:
    copy = make_node(node.type_name, node.version, inputs, node.get_attributes(), node.friendly_name, node.data)
    copy.rt_info.update(node.rt_info)
    return copy


# -- the compiled model and its request -------------------------------------------------------------
class HeteroSyncInferRequest(SyncInferRequest):
    """Runs the steps in order, passing values between the stages' own requests."""

    def __init__(self, compiled_model: HeteroCompiledModel) -> None:
        self._hetero_model = compiled_model  # _compiled_model, with its HETERO type
        self._requests = {id(s.stage): s.stage.compiled.create_infer_request()
                          for s in compiled_model.steps if s.stage is not None}
        self._current: Any = None
        super().__init__(compiled_model)

    def _create_states(self) -> list[VariableState]:
        cm = self._hetero_model
        return [VariableState(vid, Tensor(et, shape)) for vid, (et, shape) in cm.variables.items()]

    def _run_model(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        cm = self._hetero_model
        model = cm.model
        env: dict[Key, np.ndarray] = {_key(p.output(0)): a for p, a in zip(model.get_parameters(), inputs, strict=True)}
        writes: dict[str, np.ndarray] = {}
        for step in cm.steps:
            self.check_cancelled()
            if step.stage is not None:
                self._run_stage(step.stage, env)
            else:
                assert step.node is not None  # a step is a device stage or a host op
                self._run_host(step.node, env, writes)
        outputs = [_value(env, r.input_value(0)) for r in model.get_results()]
        for vid, value in writes.items():
            self._states[vid].set_state(value)
        return outputs

    def _run_stage(self, stage: Stage, env: dict[Key, np.ndarray]) -> None:
        request = self._current = self._requests[id(stage)]
        try:
            results = request.infer([_value(env, src) for src in stage.inputs])
        finally:
            self._current = None
        for i, out in enumerate(stage.outputs):
            env[_key(out)] = results[i]

    def _run_host(self, node: Node, env: dict[Key, np.ndarray], writes: dict[str, np.ndarray]) -> None:
        vid = node.attrs["variable_id"]
        if node.type_name == "Assign":
            writes[vid] = np.array(_value(env, node.input_value(0)))
            if node.get_output_size():
                env[_key(node.output(0))] = writes[vid]
            return
        state = self._states[vid]
        if state.is_written:
            value = np.array(state.get_state().data)
        elif node.get_input_size():
            value = _value(env, node.input_value(0))
        else:
            value = np.array(state.get_state().data)  # zeros of the variable's shape
        env[_key(node.output(0))] = value

    def _on_cancel(self) -> None:
        current = self._current
        if current is not None:
            current.cancel()

    def _profiling_info(self) -> list[ProfilingInfo]:
        """The parts' counters for the model's own ops (their boundary Parameters and Results
        left out), plus NOT_RUN entries for the model's Parameters and Results, which HETERO
        passes itself, and its ReadValue/Assign."""
        cm = self._hetero_model
        own = {n.friendly_name for n in cm.model.get_ordered_ops() if n.type_name not in _HOUSEKEEPING}
        out: list[ProfilingInfo] = []
        for request in self._requests.values():
            out += [p for p in request.get_profiling_info() if p.node_name in own]
        zero = timedelta(0)
        for node in cm.model.get_ordered_ops():
            if node.type_name in ("Parameter", "Result") or node.type_name in _HOST_OPS:
                out.append(ProfilingInfo(node.friendly_name, node.type_name, "hetero", zero, zero,
                                         ProfilingStatus.NOT_RUN))
        return out


def _value(env: Mapping[Key, np.ndarray], out: Output) -> np.ndarray:
    if out.node.type_name == "Constant":
        return np.asarray(out.node.data)
    return env[_key(out)]


class HeteroCompiledModel(CompiledModel):
    """The stages' compiled models behind one compiled model."""

    sync_request_class = HeteroSyncInferRequest

    def __init__(self, model: Model, plugin: HeteroPlugin, config: P.PropertyStore, steps: list[Step]) -> None:
        self.steps = steps
        self.devices = parse_priorities(config.get(DEVICE_PRIORITIES))
        self.variables: dict[str, tuple[Any, tuple[int, ...]]] = {}
        for node in model.get_ordered_ops():
            if node.type_name == "ReadValue" and node.attrs["variable_id"] not in self.variables:
                shape = node.attrs.get("variable_shape") or node.get_output_partial_shape(0)
                dims = shape.get_min_shape() if shape.has_rank() else ()
                et = node.attrs.get("variable_type") or node.get_output_element_type(0)
                self.variables[node.attrs["variable_id"]] = (et, tuple(dims))
        super().__init__(model, plugin, config)

    @property
    def stages(self) -> list[Stage]:
        return [s.stage for s in self.steps if s.stage is not None]

    def get_runtime_model(self) -> Model:
        """The model with each op's execution info from the runtime model of its part."""
        runtime = super().get_runtime_model()
        info: dict[str, dict[str, Any]] = {}
        for stage in self.stages:
            for node in stage.compiled.get_runtime_model().get_ordered_ops():
                if node.type_name not in _HOUSEKEEPING:
                    info.setdefault(node.friendly_name, {**node.rt_info, "execDevice": stage.device})
        for node in runtime.get_ordered_ops():
            node.rt_info.setdefault("outputLayouts", "")
            node.rt_info.update(info.get(node.friendly_name, {}))
        return runtime

    def get_property(self, name: str) -> Any:
        if name == P.EXECUTION_DEVICES:
            return list(dict.fromkeys(s.device for s in self.stages))
        return super().get_property(name)

    def _ro_property_names(self) -> list[str]:
        return [NUMBER_OF_SUBMODELS]

    def _get_ro_property(self, name: str) -> Any:
        if name == NUMBER_OF_SUBMODELS:
            return len(self.stages)
        return super()._get_ro_property(name)

    def _export(self) -> bytes:
        from ovconform.hetero.io import export_compiled

        return export_compiled(self)


class HeteroPlugin(Plugin):
    """The HETERO device: splits a model over the devices of DEVICE_PRIORITIES.

    :param priorities: the default DEVICE_PRIORITIES.
    :param core: the Core whose devices HETERO runs on; when None, the Core that registers HETERO
        (a Core is handed in, never imported: ``hetero/`` builds on ``contract/`` only).
    """

    device_name = HETERO
    full_device_name = "ovconform HETERO (splits a model over devices)"
    compiled_model_class = HeteroCompiledModel
    #: as OpenVINO's HETERO: it exports and imports (the precisions are its devices' business)
    capabilities = (P.Capability.EXPORT_IMPORT,)

    def __init__(self, device_name: str | None = None, priorities: str = "", core: Any = None) -> None:
        self._default_priorities = priorities
        self._own_core: Any = core
        super().__init__(device_name)

    def _declare_properties(self) -> list[P.Declared]:
        return [*super()._declare_properties(), P.Declared(DEVICE_PRIORITIES, self._default_priorities)]

    def _core(self) -> Any:
        core = self._own_core or self.get_core()
        if core is None:
            raise CompileError("HETERO is not registered in a Core, so it cannot reach its devices.")
        return core

    def _devices(self, config: P.PropertyStore) -> list[str]:
        devices = parse_priorities(config.get(DEVICE_PRIORITIES))
        if not devices:
            raise CompileError(f"HETERO needs devices: compile on 'HETERO:DEV1,DEV2' or set {DEVICE_PRIORITIES}.")
        if any(d.split(".")[0].upper() == HETERO for d in devices):
            raise CompileError(f"HETERO cannot run on itself; DEVICE_PRIORITIES={devices}.")
        return devices

    def _sub_config(self, config: P.PropertyStore) -> dict[str, Any]:
        return {P.PERF_COUNT: config.get(P.PERF_COUNT)} if config.get(P.PERF_COUNT) else {}

    def _answers(self, model: Model, config: P.PropertyStore) -> list[tuple[str, set[str]]]:
        core, sub = self._core(), self._sub_config(config)
        answers = []
        for device in self._devices(config):
            try:
                answers.append((device, set(core.query_model(model, device, sub))))
            except OVConformError as e:
                raise CompileError(f"HETERO: query_model on {device!r} failed: {e}") from e
        return answers

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> HeteroCompiledModel:
        steps = plan_steps(model, assign_devices(model, self._answers(model, config)))
        core, sub = self._core(), self._sub_config(config)

        def compile_part(i: int, stage: Stage) -> Any:
            try:
                return core.compile_model(stage.model, stage.device, sub)
            except OVConformError as e:
                raise CompileError(f"HETERO: compiling part {i} ({len(stage.nodes)} ops) on {stage.device!r} "
                                   f"failed: {e}") from e

        build_parts(model, steps, compile_part)
        return HeteroCompiledModel(model, self, config, steps)

    def import_model(self, stream: Any, properties: Mapping[str, Any] | None = None,
                     context: Any = None) -> CompiledModel:
        """Rebuild a :class:`HeteroCompiledModel` from :meth:`HeteroCompiledModel.export_model`'s
        blob. Its configuration comes back under the call's properties; its devices are the blob's
        own (a device list in the name or in ``properties`` is ignored, as OpenVINO does)."""
        from ovconform.contract import encryption
        from ovconform.hetero.io import import_properties

        given = dict(properties or {})
        callbacks = encryption.pop_callbacks(given)  # an encrypted blob is opened before it is read
        data, props = import_properties(self, encryption.decrypt_blob(_read_stream(stream), callbacks,
                                                                      self.device_name), given)
        compiled = super().import_model(data, props, context)
        compiled._encryption = callbacks
        return compiled

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> HeteroCompiledModel:
        from ovconform.hetero.io import import_compiled

        return import_compiled(self, blob, config)

    def query_model(self, model: Model, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        """``{op: "HETERO"}`` for every op some device of DEVICE_PRIORITIES supports (the
        contract's answer names the device queried; :meth:`query_devices` tells which device
        each op goes to, as OpenVINO's HETERO answers)."""
        if not isinstance(model, Model):
            return super().query_model(model, properties)
        config = self._config.merged(properties)
        target = self.execution_device(config.get(P.DEVICE_ID))
        return dict.fromkeys(self.query_devices(model, properties), target)

    def query_devices(self, model: Model, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        """``{op: device}``: each op to the first device (in priority order) that supports it;
        ReadValue/Assign to HETERO itself. No devices: ``{}`` (OpenVINO's answer)."""
        config = self._config.merged(properties)
        if not parse_priorities(config.get(DEVICE_PRIORITIES)):
            return {}
        answers = self._answers(model, config)
        out: dict[str, str] = {}
        for node in model.get_ordered_ops():
            if node.type_name in _HOST_OPS:
                out[node.friendly_name] = HETERO
                continue
            device = next((d for d, names in answers if node.friendly_name in names), None)
            if device is not None:
                out[node.friendly_name] = device
        return dict(sorted(out.items()))


def build_parts(model: Model, steps: list[Step], make: Callable[[int, Stage], Any]) -> None:
    """Give every stage its own model and its compiled model (``make(index, stage)``)."""
    consumers = _consumers(model)

    def outside(out: Output, inside: set[int]) -> bool:
        return any(id(n) not in inside for n in consumers.get(_key(out), []))

    for i, step in enumerate(s for s in steps if s.stage is not None):
        stage = step.stage
        assert stage is not None
        stage.model = build_stage_model(stage, f"{model.friendly_name}/{i}:{stage.device}", outside)
        stage.compiled = make(i, stage)


def _consumers(model: Model) -> dict[Key, list[Node]]:
    out: dict[Key, list[Node]] = {}
    for node in model.get_ordered_ops():
        for src in node.input_values():
            out.setdefault(_key(src), []).append(node)
    return out
