"""Broken variants of REFERENCE that a second red-team review (api2) found passing every API
behaviour test (adapted from its devices): input shapes, layouts and element types, the model
cache, compile-time configuration and property writes. ``tests/suites/test_api_faults_redteam2.py``
checks that exactly the tests added for each fail, as failures, while REFERENCE passes them.

:data:`FAULTS` maps each class name to its fault. Device names share no substring with one
another (a ``-k`` expression selects a device by name). The plumbing (a REFERENCE plugin whose
compiled models make requests of a given class) is that of ``api_faulty_devices_redteam.py``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import ovconform
from ovconform import properties as P
from ovconform.api import SyncInferRequest, Tensor
from ovconform.errors import PropertyError
from ovconform.ir import Type
from reference_plugin._blob import unpack
from reference_plugin.async_infer_request import ReferenceAsyncInferRequest
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


# -- plumbing (as in api_faulty_devices_redteam.py; each module of tests/plugins stands alone) ---------
class _Compiled(ReferenceCompiledModel):
    """A REFERENCE compiled model whose requests are of the class attribute below."""

    fault_sync: ClassVar[type[ReferenceSyncInferRequest]] = ReferenceSyncInferRequest

    def create_sync_infer_request(self) -> SyncInferRequest:
        return self.fault_sync(self)

    def create_infer_request(self) -> ReferenceAsyncInferRequest:
        plugin: Any = self.plugin
        return ReferenceAsyncInferRequest(self.create_sync_infer_request(), self.task_executor, plugin.wait_executor,
                                          self.callback_executor)


def _compiled_with(sync: type[ReferenceSyncInferRequest]) -> type[_Compiled]:
    return type("FaultyCompiledModel", (_Compiled,), {"fault_sync": sync})


class _Faulty(ReferencePlugin):
    """ReferencePlugin whose compiled and imported models become ``fault_compiled``."""

    fault_compiled: ClassVar[type[ReferenceCompiledModel] | None] = None

    def _recast(self, compiled: Any) -> Any:
        if self.fault_compiled is not None:
            compiled.__class__ = self.fault_compiled
        return compiled

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        return self._recast(super()._compile_model(model, config, context))

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        return self._recast(super()._import_model(blob, config, context))


# -- the model cache ------------------------------------------------------------------------------------
class ImportProgramCacheByTopology(_Faulty):
    """import_model looks the program up in a process-wide cache keyed by the blob's graph without
    names: a blob of the same topology with other constants gets the first one's program."""

    device_name = "API2_CACHE_TOPO"
    _programs: ClassVar[dict[str, Any]] = {}

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        compiled = super()._import_model(blob, config, context)
        parts = unpack(blob)
        if parts.weights_size is not None:
            return compiled
        key = hashlib.sha256(re.sub(rb'(name|names)="[^"]*"', b"", parts.xml)).hexdigest()
        model = self._programs.setdefault(key, ovconform.read_model(parts.xml, parts.weights))
        return ReferenceCompiledModel(model.clone(), self, config, context=context)


class StaleCachingProperties(ReferencePlugin):
    """REFERENCE before the fix: CACHING_PROPERTIES lists DEVICE_ARCHITECTURE only, so after a
    plugin-level INFERENCE_PRECISION_HINT f16 -> f32 the Core loads the f16 blob (its configuration
    wins on import)."""

    device_name = "API2_STALE_KEY"

    def _get_ro_property(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == P.CACHING_PROPERTIES:
            return [P.DEVICE_ARCHITECTURE]
        return super()._get_ro_property(name, arguments)


class _TwoIds(ReferencePlugin):
    device_ids = ("0", "1")  # type: ignore[assignment]

    def _declare_properties(self) -> list[P.Declared]:
        ids = self.device_ids
        return [P.Declared(P.DEVICE_ID, "0", check=lambda v: None if v in ids else f"no such id; Supported values: "
                                                                                  f"{list(ids)}.")
                if d.name == P.DEVICE_ID else d for d in super()._declare_properties()]

    def _get_ro_property(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == P.CACHING_PROPERTIES:
            return [*super()._get_ro_property(name, arguments), P.DEVICE_ID]
        return super()._get_ro_property(name, arguments)


class CachingIgnoresDeviceId(_TwoIds):
    """Two devices ("0", "1"), DEVICE_ID honoured, but CACHING_PROPERTIES does not list DEVICE_ID:
    with CACHE_DIR, a model compiled after set_property(DEVICE_ID=1) is the blob cached for "0"."""

    device_name = "API2_IGNORES_DEVID"

    def _get_ro_property(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == P.CACHING_PROPERTIES:  # REFERENCE's list: no DEVICE_ID
            return ReferencePlugin._get_ro_property(self, name, arguments)
        return super()._get_ro_property(name, arguments)


class CachingKeysDeviceId(_TwoIds):
    """Control: the same two-id device listing DEVICE_ID in CACHING_PROPERTIES."""

    device_name = "API2_KEYS_DEVID"


# -- input tensors and arrays -------------------------------------------------------------------------
class _NumelCheck(ReferenceSyncInferRequest):
    def _check_tensor(self, is_input: bool, index: int, tensor: Any) -> None:
        spec = self._specs[0 if is_input else 1][index]
        if (isinstance(tensor, Tensor) and spec.static is not None and tensor.element_type == spec.element_type
                and tensor.size == int(np.prod(spec.static)) and tensor.size > 0):
            return  # "the buffer is big enough": only the element count is compared
        super()._check_tensor(is_input, index, tensor)

    def _preprocess(self) -> None:
        super()._preprocess()
        self._input_arrays = [a.reshape(s.static) if s.static is not None and a.shape != s.static else a
                              for a, s in zip(self._input_arrays, self._specs[0], strict=True)]


class StaticShapeByElementCount(_Faulty):
    """set_tensor on a static port compares the element count, not the shape: a [1, 4, 3, 4]
    tensor is taken for a [1, 3, 4, 4] port and read as flat memory."""

    device_name = "API2_NUMEL"
    fault_compiled = _compiled_with(_NumelCheck)


class _StridesIgnored(ReferenceSyncInferRequest):
    def copy_input(self, index: int, value: Any) -> None:
        if isinstance(value, np.ndarray) and value.ndim > 1 and not value.flags.c_contiguous \
                and value.dtype == self._specs[0][index].dtype:
            value = value.ravel(order="K").reshape(value.shape)  # the elements as they lie in memory
        super().copy_input(index, value)


class StridesIgnoredOnInput(_Faulty):
    """A non-contiguous numpy input given to infer is read in memory order, ignoring its strides."""

    device_name = "API2_STRIDES"
    fault_compiled = _compiled_with(_StridesIgnored)


class _MemcpyInputs(ReferenceSyncInferRequest):
    def copy_input(self, index: int, value: Any) -> None:
        spec = self._specs[0][index]
        if (isinstance(value, np.ndarray) and value.dtype != spec.dtype
                and value.dtype.itemsize == spec.dtype.itemsize and spec.fits(value.shape)):
            tensor = self._tensor(True, index)
            if value.shape != tensor.shape:
                tensor.set_shape(value.shape)
            tensor._host_array()[...] = np.ascontiguousarray(value).view(spec.dtype)  # memcpy fast path
            return
        super().copy_input(index, value)


class InputArrayBytesReinterpreted(_Faulty):
    """infer({0: int32 array}) on an f32 input copies the bytes instead of converting the values."""

    device_name = "API2_MEMCPY"
    fault_compiled = _compiled_with(_MemcpyInputs)



class _AnyRemote(ReferenceSyncInferRequest):
    def _check_tensor(self, is_input: bool, index: int, tensor: Any) -> None:
        SyncInferRequest._check_tensor(self, is_input, index, tensor)  # REFERENCE before the fix: no owner check


class RemoteTensorOfAnyContext(_Faulty):
    """set_tensor takes a remote tensor of another device's context (REFERENCE before the fix)."""

    device_name = "API2_ANY_REMOTE"
    fault_compiled = _compiled_with(_AnyRemote)

# -- configuration ------------------------------------------------------------------------------------
class CompileConfigLenient(_Faulty):
    """compile_model drops a known property with an invalid value (NUM_STREAMS=-5,
    PERFORMANCE_HINT='FAST', INFERENCE_PRECISION_HINT='i4') instead of refusing it."""

    device_name = "API2_LENIENT"

    def compile_model(self, model: Any, properties: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        kept = {}
        for k, v in dict(properties or {}).items():
            if k in self.config.rw_names() and k != P.DEVICE_ID:
                try:
                    self.config.parse({k: v})
                except PropertyError:
                    continue  # "ignored with a warning"
            kept[k] = v
        return super().compile_model(model, kept, context)


class PluginModelPriorityFrozen(_Faulty):
    """SUPPORTED_PROPERTIES lists MODEL_PRIORITY as RW, but set_property takes only its current value."""

    device_name = "API2_FROZEN_PRIORITY"

    def set_property(self, properties: Mapping[str, Any]) -> None:
        props = dict(properties)
        if P.MODEL_PRIORITY in props:
            want = P.to_string(P.parse_value(P.MODEL_PRIORITY, props[P.MODEL_PRIORITY]))
            if want != P.to_string(self.config.get(P.MODEL_PRIORITY)):
                raise PropertyError(f"device {self.device_name!r}: {P.MODEL_PRIORITY} cannot be changed on the "
                                    "device; pass it to compile_model.")
        super().set_property(props)



class PrecisionHintAnyType(_Faulty):
    """INFERENCE_PRECISION_HINT takes any element type (i4, u1, f64...) and reads it back; a model
    compiled with an unsupported one silently runs (and reports) f32."""

    device_name = "API2_ANY_PRECISION"

    def _declare_properties(self) -> list[P.Declared]:
        return [P.Declared(P.INFERENCE_PRECISION_HINT, Type.f32) if d.name == P.INFERENCE_PRECISION_HINT else d
                for d in super()._declare_properties()]

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        if config.get(P.INFERENCE_PRECISION_HINT) not in self.inference_precisions:
            config.set({P.INFERENCE_PRECISION_HINT: Type.f32})
        return super()._compile_model(model, config, context)


class _PrecisionByType(ReferenceCompiledModel):
    def runtime_precision(self, node: Any) -> str:
        types = [node.get_output_element_type(i) for i in range(node.get_output_size())]
        if not types and node.get_input_size():
            types = [node.get_input_element_type(0)]
        return str(types[0]) if types else "undefined"


class RuntimePrecisionIgnoresHint(_Faulty):
    """The runtime model's runtimePrecision reports the nodes' declared types: under
    INFERENCE_PRECISION_HINT=f16 it says f32 while the device runs f16."""

    device_name = "API2_RT_PRECISION"
    fault_compiled = _PrecisionByType

FAULTS: dict[str, str] = {
    "ImportProgramCacheByTopology": "import_model reuses a program of the same topology with other constants",
    "StaleCachingProperties": "CACHING_PROPERTIES omits INFERENCE_PRECISION_HINT: a stale f16 blob is loaded",
    "CachingIgnoresDeviceId": "CACHING_PROPERTIES omits DEVICE_ID: the blob of id 0 serves id 1",
    "StaticShapeByElementCount": "set_tensor on a static input checks the element count, not the shape",
    "StridesIgnoredOnInput": "a non-contiguous numpy input is read in memory order",
    "InputArrayBytesReinterpreted": "an int32 array for an f32 input is read as f32 bytes",
    "RemoteTensorOfAnyContext": "set_tensor takes a remote tensor of another device's context",
    "CompileConfigLenient": "compile_model drops invalid property values instead of refusing them",
    "PrecisionHintAnyType": "INFERENCE_PRECISION_HINT takes any type; the compiled model runs and reports f32",
    "RuntimePrecisionIgnoresHint": "runtimePrecision says f32 under INFERENCE_PRECISION_HINT=f16",
    "PluginModelPriorityFrozen": "MODEL_PRIORITY is listed RW but cannot be changed",
}


CONTROLS: dict[str, str] = {
    "CachingKeysDeviceId": "the two-id device keying its blobs by DEVICE_ID (correct)",
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    """Register every device of this module (for ``--plugin=path/to/api_faulty_devices_redteam2.py``)."""
    for name in (*FAULTS, *CONTROLS):
        registry.add(globals()[name])


__all__ = [*CONTROLS, *FAULTS, "CONTROLS", "FAULTS"]
