"""The REFERENCE plugin (seed 002): properties, compile with transformations, query, import.

``compile_model`` works on a deep copy (the base class clones the caller's model), runs the
transformation pipeline of :mod:`reference_plugin._transformations` unless
DISABLE_TRANSFORMATIONS is set, and builds a :class:`ReferenceCompiledModel`. Configuration
merges as the seed says: the plugin's values (``set_property``) under the call's properties.
An imported blob brings back its compile configuration, which sits between the two: plugin
values < blob configuration < the ``import_model`` call's properties.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import ovconform
from ovconform import properties as P
from ovconform.api import Plugin, RemoteContext
from ovconform.errors import ImportModelError, OVConformError, PropertyError, ValidationError
from ovconform.ir import Model, Node, Type
from ovconform.ir._subgraph import bodies_supported
from reference_plugin import properties as RP
from reference_plugin._blob import unpack
from reference_plugin._transformations import fused_names, transform_model
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.fast import make_kernel
from reference_plugin.ops import load_op

__all__ = ["ReferencePlugin"]

_HOUSEKEEPING: Final = ("Parameter", "Constant", "Result")


class ReferencePlugin(Plugin):
    """The REFERENCE device: ovconform's numpy oracle, built like the TEMPLATE plugin."""

    device_name = RP.DEVICE_NAME
    full_device_name = RP.FULL_DEVICE_NAME
    device_architecture = RP.ARCHITECTURE
    device_type = P.DeviceType.INTEGRATED
    device_ids = ("",)
    #: REMOTE_CONTEXT: the harness's declaration of remote contexts (see suites/test_plugin_remote.py);
    #: REFERENCE's contexts are host memory (ovconform.contract.tensor.RemoteContext).
    capabilities = (P.Capability.FP32, P.Capability.FP16, P.Capability.EXPORT_IMPORT, "REMOTE_CONTEXT")
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
        if name == P.CACHING_PROPERTIES:
            return list(RP.CACHING)
        return super()._get_ro_property(name, arguments)

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        """A node is supported when a REFERENCE kernel exists for its op type and version."""
        try:
            load_op(node.type_name, node.version)
        except OVConformError:
            return False
        return True

    # -- remote contexts --------------------------------------------------------------------------
    def get_default_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext:
        """The device's one default context (host memory), the same object at every call."""
        context = self.__dict__.get("_default_context")
        if context is None:
            context = self.__dict__.setdefault("_default_context", RemoteContext(self.device_name))
        return context

    def create_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext:
        """A new host-memory context of this device keeping ``params``."""
        if params is not None and not isinstance(params, Mapping):
            raise ValidationError(f"create_context on {self.device_name!r}: params must be a mapping, "
                                  f"not {type(params).__name__}.")
        return RemoteContext(self.device_name, params)

    # -- compile --------------------------------------------------------------------------------
    def _compile_model(self, model: Model, config: P.PropertyStore,
                       context: RemoteContext | None) -> ReferenceCompiledModel:
        start = time.perf_counter()
        before = len(model.get_ordered_ops())
        source = model.clone() if RP.weightless(config) else None  # what a weightless export writes
        if not config.get(P.DISABLE_TRANSFORMATIONS):
            transform_model(model, config)
        compiled = ReferenceCompiledModel(model, self, config, context=context, source_model=source)
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
                ok = builds and all(self._is_node_supported(o, config)  # a control-flow op: its bodies too
                                    and bodies_supported(o, lambda b: self._is_node_supported(b, config))
                                    for o in originals[name])
                (supported if ok else unsupported).add(name)
        supported -= unsupported  # 4. only fully supported ops
        _add_housekeeping(ops, supported)  # 5.
        _drop_housekeeping_only(ops, supported)  # 6.
        return supported

    # -- import ---------------------------------------------------------------------------------
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
            config.set_unless_given(parts.config)
        except PropertyError as e:
            raise ImportModelError(f"{prefix}: its compile configuration is not valid here: {e}") from e
        if parts.weights_size is not None:
            return self._import_weightless(parts.xml, parts.weights_size, config, context, prefix)
        model = ovconform.read_model(parts.xml, parts.weights)
        return ReferenceCompiledModel(model, self, config, context=context)

    def _import_weightless(self, xml: bytes, size: int, config: P.PropertyStore, context: RemoteContext | None,
                           prefix: str) -> ReferenceCompiledModel:
        """A weightless blob: the model's weights come from WEIGHTS_PATH, then it is compiled again."""
        path = config.get(P.WEIGHTS_PATH)
        if not path:
            raise ImportModelError(f"{prefix}: it is a weightless blob (exported with CACHE_MODE=OPTIMIZE_SIZE or "
                                   f"ENABLE_WEIGHTLESS) and WEIGHTS_PATH is not set; give WEIGHTS_PATH, the "
                                   f"weights file ({size} bytes) of the model it was compiled from.")
        try:
            weights = Path(path).read_bytes()
        except OSError as e:
            raise ImportModelError(f"{prefix}: WEIGHTS_PATH {path!r} cannot be read: {e}") from e
        if len(weights) != size:
            raise ImportModelError(f"{prefix}: WEIGHTS_PATH {path!r} has {len(weights)} bytes; the blob's model "
                                   f"needs a weights file of {size} bytes.")
        return self._compile_model(ovconform.read_model(xml, weights), config, context)


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
