"""HETERO export and import: a compiled model to a :mod:`ovconform.hetero.blob` blob and back.

Export writes the model's IR, the plan (the steps in run order, each part's device and op names)
and per part the part device's own blob, or the part's IR when that device cannot export
(:class:`~ovconform.errors.NotImplementedByDeviceError`). Export is deterministic: two exports
of one compiled model are the same bytes.

Import reads the model back, rebuilds the steps from the plan (no query_model), checks the plan
covers every op once in an order that can run, then imports each part's blob on its device (or
compiles its IR there) and checks the part's inputs and outputs (types, compatible shapes) fit
the plan. Every failure is an :class:`~ovconform.errors.ImportModelError` naming what is wrong;
devices the Core does not have are named together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ovconform import properties as P
from ovconform.contract.plugin import _read_stream
from ovconform.errors import ImportModelError, NotImplementedByDeviceError, OVConformError
from ovconform.hetero.blob import HeteroBlob, Part, pack, unpack
from ovconform.hetero.plugin import (
    _HOST_OPS,
    _HOUSEKEEPING,
    DEVICE_PRIORITIES,
    HETERO,
    Stage,
    Step,
    build_parts,
    plan_steps,
)
from ovconform.ir import Model, Node
from ovconform.ir._serialize import serialize

if TYPE_CHECKING:
    from ovconform.hetero.plugin import HeteroCompiledModel, HeteroPlugin

__all__ = ["export_compiled", "import_compiled", "import_properties"]

_PREFIX = f"device {HETERO!r} cannot import the blob"


# -- export -----------------------------------------------------------------------------------------
def export_compiled(compiled: HeteroCompiledModel) -> bytes:
    from ovconform import __version__
    xml, weights = serialize(compiled.model)
    steps = tuple(_export_step(s) for s in compiled.steps)
    config = {name: P.to_string(value) for name, value in sorted(compiled.config.values().items())}
    return pack(HeteroBlob(tuple(compiled.devices), xml, weights, steps, config,
                           f"ovconform {__version__}"))


def _export_step(step: Step) -> Part:
    if step.stage is not None:
        return _export_part(step.stage)
    assert step.node is not None  # a step is a device stage or a host op
    return Part(host=step.node.friendly_name)


def _export_part(stage: Stage) -> Part:
    names = tuple(n.friendly_name for n in stage.nodes)
    try:
        return Part(stage.device, names, "blob", (stage.compiled.export_model(),))
    except NotImplementedByDeviceError:
        assert stage.model is not None  # built with the stage, before it was compiled
        xml, weights = serialize(stage.model)
        return Part(stage.device, names, "ir", (xml, weights))


# -- import -----------------------------------------------------------------------------------------
def _unpack(data: bytes) -> HeteroBlob:
    try:
        return unpack(data)
    except ImportModelError as e:
        raise ImportModelError(f"{_PREFIX}: {e}") from e


def import_properties(plugin: HeteroPlugin, stream: Any, properties: Mapping[str, Any] | None
                      ) -> tuple[bytes, dict[str, Any]]:
    """The blob's bytes and the import properties: the blob's configuration under the call's,
    with the blob's own devices."""
    data = _read_stream(stream)
    if not data:
        return data, dict(properties or {})  # the base refuses an empty stream
    blob = _unpack(data)
    return data, {**blob.config, **dict(properties or {}), DEVICE_PRIORITIES: ",".join(blob.devices)}


def import_compiled(plugin: HeteroPlugin, data: bytes, config: P.PropertyStore) -> HeteroCompiledModel:
    from ovconform.hetero.plugin import HeteroCompiledModel

    blob = _unpack(data)
    core = plugin._core()
    _check_devices(core, blob)
    try:
        model = core.read_model(blob.xml, blob.weights)
    except OVConformError as e:
        raise ImportModelError(f"{_PREFIX}: its model cannot be read: {e}") from e
    steps = rebuild_steps(model, blob)
    sub = plugin._sub_config(config)
    parts = blob.parts

    def import_part(i: int, stage: Stage) -> Any:
        part = parts[i]
        where = f"{_PREFIX}: part {i} ({len(stage.nodes)} ops) on {stage.device!r}"
        try:
            if part.payload == "blob":
                compiled = core.import_model(part.sections[0], stage.device, sub)
            else:
                compiled = core.compile_model(core.read_model(*part.sections), stage.device, sub)
        except OVConformError as e:
            raise ImportModelError(f"{where} could not be rebuilt: {type(e).__name__}: {e}") from e
        if not (_fits(compiled.inputs, stage.inputs) and _fits(compiled.outputs, stage.outputs)):
            raise ImportModelError(f"{where} has inputs {_sig(compiled.inputs)} and outputs {_sig(compiled.outputs)}; "
                                   f"the plan needs {_sig(stage.inputs)} and {_sig(stage.outputs)}.")
        return compiled

    build_parts(model, steps, import_part)
    return HeteroCompiledModel(model, plugin, config, steps)


def _sig(ports: list[Any]) -> list[str]:
    return [f"{p.get_element_type()}{p.get_partial_shape()}" for p in ports]


def _fits(got: list[Any], want: list[Any]) -> bool:
    """A part fits its place in the plan: as many ports, the same element types, compatible
    shapes (a device may refine a shape, e.g. fold a ShapeOf)."""
    return len(got) == len(want) and all(
        g.get_element_type() == w.get_element_type() and g.get_partial_shape().compatible(w.get_partial_shape())
        for g, w in zip(got, want, strict=True))


def _check_devices(core: Any, blob: HeteroBlob) -> None:
    missing = []
    for device in dict.fromkeys(p.device for p in blob.parts):
        try:
            core.get_plugin(device)
        except OVConformError as e:
            missing.append(f"{device} ({type(e).__name__})")
    if missing:
        raise ImportModelError(f"{_PREFIX}: its parts run on device(s) {missing}, which are not available "
                               f"in this Core (registered: {core.registered_devices()}).")


def rebuild_steps(model: Model, blob: HeteroBlob) -> list[Step]:
    """The steps of the plan over ``model``'s nodes, checked to cover every op once and run in
    order. Names that several ops share fall back to :func:`plan_steps` with the plan's devices."""
    by_name: dict[str, list[Node]] = {}
    for node in model.get_ordered_ops():
        if node.type_name not in _HOUSEKEEPING:
            by_name.setdefault(node.friendly_name, []).append(node)
    named = [n for s in blob.steps for n in ((s.host,) if s.host else s.ops)]
    unknown = sorted(set(named) - set(by_name))
    if unknown:
        raise ImportModelError(f"{_PREFIX}: its plan names op(s) {unknown[:10]} that its model does not have.")
    if any(len(by_name[n]) > 1 for n in named):
        device_of = {id(node): s.device for s in blob.parts for n in s.ops for node in by_name[n]}
        steps = plan_steps(model, device_of)
    else:
        steps = [Step(node=by_name[s.host][0]) if s.host
                 else Step(stage=Stage(s.device, [by_name[n][0] for n in s.ops])) for s in blob.steps]
    _check_plan(model, steps)
    return steps


def _check_plan(model: Model, steps: list[Step]) -> None:
    """Every op in exactly one step, host ops as host steps, each op after its producers."""
    ready = {id(n) for n in model.get_ordered_ops() if n.type_name in ("Parameter", "Constant")}
    seen: set[int] = set()
    for i, step in enumerate(steps):
        nodes = step.stage.nodes if step.stage is not None else [step.node]
        for node in nodes:
            assert node is not None
            if (node.type_name in _HOST_OPS) != (step.stage is None):
                raise ImportModelError(f"{_PREFIX}: its plan puts {node.friendly_name!r} ({node.type_name}) "
                                       f"in the wrong kind of step {i}.")
            late = [v.node.friendly_name for v in node.input_values() if id(v.node) not in ready]
            if late or id(node) in seen:
                raise ImportModelError(f"{_PREFIX}: its plan runs {node.friendly_name!r} in step {i} "
                                       + (f"before its input(s) {late}." if late else "twice."))
            seen.add(id(node))
            ready.add(id(node))
    left = [n.friendly_name for n in model.get_ordered_ops()
            if n.type_name not in _HOUSEKEEPING and id(n) not in seen]
    if left:
        raise ImportModelError(f"{_PREFIX}: its plan leaves out op(s) {left[:10]}.")
