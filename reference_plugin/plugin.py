"""The REFERENCE plugin (seed 002): properties, compile with transformations, query, import.

``compile_model`` works on a deep copy (the base class clones the caller's model), runs the
transformation pipeline of :mod:`reference_plugin._transformations` unless
DISABLE_TRANSFORMATIONS is set, and builds a :class:`ReferenceCompiledModel`. Configuration
merges as the seed says: the plugin's values (``set_property``) under the call's properties.
An imported blob brings back its compile configuration, which sits between the two: plugin
values < blob configuration < the ``import_model`` call's properties.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import ovconform
from ovconform import properties as P
from ovconform.api import Plugin
from ovconform.errors import ImportModelError, OVConformError, PropertyError, ValidationError
from ovconform.ir import Model, Node, Type
from reference_plugin import properties as RP
from reference_plugin._blob import unpack
from reference_plugin._transformations import fused_names, transform_model
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.fast import make_kernel
from reference_plugin.ops import load_op

if TYPE_CHECKING:
    from ovconform.contract.tensor import RemoteContext

__all__ = ["ReferencePlugin"]

_HOUSEKEEPING: Final = ("Parameter", "Constant", "Result")
#: Names of the properties passed to the import_model call running in this context.
_IMPORT_KEYS: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("import_keys", default=frozenset())


class ReferencePlugin(Plugin):
    """The REFERENCE device: ovconform's numpy oracle, built like the TEMPLATE plugin."""

    device_name = RP.DEVICE_NAME
    full_device_name = RP.FULL_DEVICE_NAME
    device_architecture = RP.ARCHITECTURE
    device_type = P.DeviceType.INTEGRATED
    device_ids = ("",)
    capabilities = (P.Capability.FP32, P.Capability.FP16, P.Capability.EXPORT_IMPORT)
    inference_precisions = (Type.f32, Type.f16)
    range_for_async_infer_requests = (1, 1, 1)
    compiled_model_class = ReferenceCompiledModel

    # -- properties -----------------------------------------------------------------------------
    def _declare_properties(self) -> list[P.Declared]:
        """The base class's read-write properties with REFERENCE's DEVICE_ID, then its own
        (:data:`reference_plugin.properties.OWN_PROPERTIES`)."""
        inherited = [RP.device_id_property(self.get_device_name()) if d.name == P.DEVICE_ID else d
                     for d in super()._declare_properties()]
        return [*inherited, *RP.OWN_PROPERTIES]

    def processes_follow_hint(self) -> bool:
        """Whether the THROUGHPUT hints may run this device's streams in worker processes
        (:func:`reference_plugin.properties.resolve_process_streams`): REFERENCE itself only. A
        derived device may wrap kernels or requests in its own process, where a worker built from
        the IR would not see them; it sets REFERENCE_PROCESS_STREAMS itself to have workers."""
        return type(self) is ReferencePlugin

    def _ro_property_names(self) -> list[str]:
        return list(RP.PLUGIN_RO)

    def _get_ro_property(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == P.EXECUTION_DEVICES:
            return [self.device_name]
        return super()._get_ro_property(name, arguments)

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        """A node is supported when a REFERENCE kernel exists for its op type and version."""
        try:
            load_op(node.type_name, node.version)
        except OVConformError:
            return False
        return True

    # -- compile --------------------------------------------------------------------------------
    def _compile_model(self, model: Model, config: P.PropertyStore,
                       context: RemoteContext | None) -> ReferenceCompiledModel:
        start = time.perf_counter()
        before = len(model.get_ordered_ops())
        if not config.get(P.DISABLE_TRANSFORMATIONS):
            transform_model(model, config)
        compiled = ReferenceCompiledModel(model, self, config, context=context)
        RP.log(config, P.LogLevel.INFO, "REFERENCE: compiled model %r (%d -> %d nodes) in %.3f ms",
               model.friendly_name, before, len(model.get_ordered_ops()), (time.perf_counter() - start) * 1e3)
        return compiled

    # -- query ----------------------------------------------------------------------------------
    def query_model(self, model: Model, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        """``{original friendly name: "REFERENCE.<id>"}`` for every op the device supports."""
        if not isinstance(model, Model):
            raise ValidationError(f"query_model needs an ovconform Model, not {type(model).__name__}.")
        config = self._config.merged(properties)
        target = self.execution_device(config.get(P.DEVICE_ID))
        return dict.fromkeys(sorted(self._query(model, config)), target)

    def _query(self, model: Model, config: P.PropertyStore) -> set[str]:
        """The seeds' algorithm (seed 002 steps 1-4, seed 001 rules 5-6)."""
        ops = model.get_ordered_ops()  # 1. the original ops by friendly name
        originals: dict[str, list[Node]] = {}
        for node in ops:
            originals.setdefault(node.friendly_name, []).append(node)
        transformed = model.clone()  # 2. the same transformations as compile_model
        if not config.get(P.DISABLE_TRANSFORMATIONS):
            transform_model(transformed, config)
        supported: set[str] = set()
        unsupported: set[str] = set()  # 3. map back through the fused names
        for node in transformed.get_ordered_ops():
            builds = _kernel_builds(node)
            for name in (n for n in fused_names(node) if n in originals):
                ok = builds and all(self._is_node_supported(o, config) for o in originals[name])
                (supported if ok else unsupported).add(name)
        supported -= unsupported  # 4. only fully supported ops
        _add_housekeeping(ops, supported)  # 5.
        _drop_housekeeping_only(ops, supported)  # 6.
        return supported

    # -- import ---------------------------------------------------------------------------------
    def import_model(self, stream: Any, properties: Mapping[str, Any] | None = None,
                     context: RemoteContext | None = None) -> ReferenceCompiledModel:
        """Rebuild a compiled model from :meth:`ReferenceCompiledModel.export_model`'s blob."""
        token = _IMPORT_KEYS.set(frozenset(properties or {}) - {P.LOADED_FROM_CACHE})
        try:
            return super().import_model(stream, properties, context)  # type: ignore[return-value]
        finally:
            _IMPORT_KEYS.reset(token)

    def _import_model(self, blob: bytes, config: P.PropertyStore,
                      context: RemoteContext | None) -> ReferenceCompiledModel:
        prefix = f"device {self.device_name!r} cannot import the blob"
        try:
            parts = unpack(blob)
        except ImportModelError as e:
            raise ImportModelError(f"{prefix}: {e}") from e
        ours = (type(self).device_name, self.get_property(P.DEVICE_ARCHITECTURE))
        if (parts.device, parts.architecture) != ours:
            raise ImportModelError(f"{prefix}: it was exported by device {parts.device!r} (architecture "
                                   f"{parts.architecture!r}); this device is {ours[0]!r} (architecture {ours[1]!r}).")
        try:
            config.set(config.parse({k: v for k, v in parts.config.items() if k not in _IMPORT_KEYS.get()}))
        except PropertyError as e:
            raise ImportModelError(f"{prefix}: its compile configuration is not valid here: {e}") from e
        model = ovconform.read_model(parts.xml, parts.weights)
        return ReferenceCompiledModel(model, self, config, context=context)


def _kernel_builds(node: Node) -> bool:
    try:
        make_kernel(node)
    except OVConformError:
        return False
    return True


def _add_housekeeping(ops: list[Node], supported: set[str]) -> None:
    """Rule 5: a supported op brings its Constant/Parameter inputs and its Result consumers."""
    for node in ops:
        if node.friendly_name not in supported:
            continue
        for value in node.input_values():
            if value.node.type_name in ("Constant", "Parameter"):
                supported.add(value.node.friendly_name)
        for out in node.outputs():
            for target in out.get_target_inputs():
                if target.get_node().type_name == "Result":
                    supported.add(target.get_node().friendly_name)


def _drop_housekeeping_only(ops: list[Node], supported: set[str]) -> None:
    """Rule 6: a Constant/Parameter whose consumers are all unsupported, and a Result whose
    producer is unsupported, are removed (the seed looks at the first consumer only; consumers
    have no order here, so any supported consumer keeps the node)."""
    live = {id(n) for n in ops}
    for node in ops:
        if node.type_name in ("Constant", "Parameter"):
            consumers = [t.get_node() for o in node.outputs() for t in o.get_target_inputs()
                         if id(t.get_node()) in live]
            if consumers and not any(c.friendly_name in supported for c in consumers):
                supported.discard(node.friendly_name)
        elif node.type_name == "Result" and node.input_value(0).node.friendly_name not in supported:
            supported.discard(node.friendly_name)
