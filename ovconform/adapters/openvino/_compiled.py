"""The compiled model over an ``openvino.CompiledModel``.

Its ports are the ovconform model's ports (OpenVINO's are the same, in the same order). Every
property is OpenVINO's (values converted to ovconform's canonical values). The exported blob is
a small ovconform header, the model's IR v11 (for the ports) and OpenVINO's own blob.
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from typing import TYPE_CHECKING, Any

from ovconform import properties as P
from ovconform.adapters.openvino._convert import from_ov_value, to_ov_props, translate
from ovconform.adapters.openvino._request import OVAsyncInferRequest, OVSyncInferRequest
from ovconform.contract.blob import Reader, json_header
from ovconform.contract.compiled_model import CompiledModel
from ovconform.contract.executors import ImmediateExecutor
from ovconform.errors import CompileError, ImportModelError, PropertyError
from ovconform.ir import Model

if TYPE_CHECKING:
    from ovconform.adapters.openvino._plugin import OVPlugin

__all__ = ["MAGIC", "OVCompiledModel", "pack_blob", "unpack_blob"]

MAGIC = b"OVCONFORM-OPENVINO\x01"
_EXEC_KEYS = ("layerType", "execOrder", "primitiveType", "execTimeMcs", "outputPrecisions", "runtimePrecision",
              "outputLayouts")


def pack_blob(header: dict[str, Any], *parts: bytes) -> bytes:
    sections = [json.dumps({**header, "crc32": _crc(parts)}).encode(), *parts]
    return MAGIC + b"".join(struct.pack("<Q", len(p)) + p for p in sections)


def unpack_blob(blob: bytes) -> tuple[dict[str, Any], list[bytes]]:
    """``(header, [xml, weights, openvino blob])``; ImportModelError for anything else."""
    if not blob.startswith(MAGIC):
        raise ImportModelError(f"the blob has no ovconform OpenVINO-adapter header (starts with {blob[:16]!r}).")
    reader = Reader(blob, "OpenVINO-adapter blob")
    reader.take(len(MAGIC), "magic")
    parts = [reader.section(what, "<Q") for what in ("header", "xml", "weights", "openvino blob")]
    header = json_header(parts[0], "OpenVINO-adapter blob")
    if header.get("crc32") != _crc(parts[1:]):
        raise ImportModelError("the blob is damaged: its CRC-32 does not match its content.")
    return header, parts[1:]


def _crc(parts: Any) -> int:
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    return crc


class OVCompiledModel(CompiledModel):
    """An ``openvino.CompiledModel`` behind the ovconform contract."""

    sync_request_class = OVSyncInferRequest
    async_request_class = OVAsyncInferRequest
    rw_properties = ()

    def __init__(self, model: Model, plugin: OVPlugin, ov_compiled: Any, *, loaded_from_cache: bool = False) -> None:
        self._ov = ov_compiled
        self._ov_plugin = plugin  # _plugin, with its OpenVINO type
        store = P.PropertyStore(f"compiled model {model.friendly_name!r} on {plugin.device_name!r}", [])
        super().__init__(model, plugin, store, task_executor=ImmediateExecutor(),
                         loaded_from_cache=loaded_from_cache)

    @property
    def ov_compiled(self) -> Any:
        return self._ov

    @property
    def profiling_enabled(self) -> bool:
        try:
            return bool(from_ov_value(P.PERF_COUNT, self._ov.get_property(P.PERF_COUNT)))
        except Exception:  # noqa: BLE001 - a device without PERF_COUNT never profiles
            return False

    # -- properties -------------------------------------------------------------------------------
    def _where(self, what: str) -> str:
        return f"compiled model {self.model_name!r} on {self.device_name!r}: {what}"

    def get_property(self, name: str) -> Any:
        plugin = self._ov_plugin
        if name == P.SUPPORTED_PROPERTIES:
            return self._supported()
        if name == P.MODEL_NAME:
            name = P.NETWORK_NAME
        if name == P.EXECUTION_DEVICES:
            return [plugin.map_execution_device(str(d)) for d in self._raw(name)]
        if name == P.LOADED_FROM_CACHE and self._loaded_from_cache:
            return True
        return from_ov_value(name, self._raw(name))

    def _supported(self) -> dict[str, str]:
        """OpenVINO's list; MODEL_NAME is OpenVINO's NETWORK_NAME (``ov::model_name`` is the
        string "NETWORK_NAME"), so it is listed under both names."""
        raw = {str(k): str(v) for k, v in self._raw(P.SUPPORTED_PROPERTIES).items()}
        if P.NETWORK_NAME in raw:
            raw.setdefault(P.MODEL_NAME, raw[P.NETWORK_NAME])
        return {k: ("RO" if v == "RO" else "RW") for k, v in raw.items()}

    def _raw(self, name: str) -> Any:
        try:
            return self._ov.get_property(name)
        except Exception as e:  # noqa: BLE001
            raise translate(e, self._where(f"get_property({name!r})"), PropertyError) from e

    def set_property(self, properties: dict[str, Any]) -> None:
        if not isinstance(properties, dict):
            raise PropertyError(self._where(f"properties must be a dict, not {type(properties).__name__}."))
        try:
            self._ov.set_property(to_ov_props(properties))
        except Exception as e:  # noqa: BLE001
            raise translate(e, self._where(f"set_property({sorted(properties)})"), PropertyError) from e

    # -- export and runtime model -------------------------------------------------------------------
    def _export(self) -> bytes:
        import ovconform

        try:
            stream = io.BytesIO()
            self._ov.export_model(stream)
            ov_blob = stream.getvalue()
        except Exception as e:  # noqa: BLE001
            raise translate(e, self._where("export_model"), CompileError) from e
        xml, weights = ovconform.serialize(self._model)
        plugin = self._ov_plugin
        return pack_blob({"device": plugin.ov_device, "architecture": plugin.architecture}, xml, weights,
                         ov_blob)

    def get_runtime_model(self) -> Model:
        """Our model with OpenVINO's execution info: each node gets the rt_info of the
        execution-graph node whose ``originalLayersNames`` lists it, including that list (the ops
        fused with it, whose counter is the execution node's). A node no execution node lists
        (OpenVINO CPU's FullyConnected ``fc1_bias`` lists ``fc1_bias,relu1`` but not the MatMul
        ``fc1`` it absorbed) gets an empty ``originalLayersNames`` and ``execTimeMcs``
        "not_executed"."""
        runtime = super().get_runtime_model()
        try:
            ov_runtime = self._ov.get_runtime_model()
        except Exception as e:  # noqa: BLE001
            raise translate(e, self._where("get_runtime_model"), CompileError) from e
        info_of: dict[str, dict[str, str]] = {}
        for ov_node in ov_runtime.get_ordered_ops():
            info = {k: str(v) for k, v in _rt_info(ov_node).items()}
            for name in filter(None, info.get("originalLayersNames", "").split(",")):
                info_of.setdefault(name, info)
        for node in runtime.get_ordered_ops():
            found = info_of.get(node.friendly_name)
            node.rt_info.setdefault("outputLayouts", "")
            if found is None:
                node.rt_info.update({"originalLayersNames": "", "execTimeMcs": "not_executed"})
                continue
            node.rt_info.update({k: found[k] for k in (*_EXEC_KEYS, "originalLayersNames") if k in found})
        return runtime

    def __repr__(self) -> str:
        return f"<CompiledModel {self.model_name!r} on {self.device_name!r} (OpenVINO)>"


def _rt_info(ov_node: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    rt = ov_node.get_rt_info()
    for key in rt:
        try:
            value = rt[key]
            out[str(key)] = value.astype(str) if hasattr(value, "astype") else value
        except Exception:  # noqa: BLE001, S112 - a value the Python API cannot convert
            continue
    return out
