"""FAKE: a small device built on the plugin contract's base classes, for the project's own tests.

It evaluates Parameter, Constant, Result, Add, Multiply and Relu with numpy, reports one
profiling entry per node, exports/imports through IR v11 (``ovconform.serialize`` /
``ovconform.read_model``) behind a device header, and offers a host-memory RemoteContext.

Tests steer timing without sleeps: ``compiled.gate`` (a threading.Event) holds every run at its
start until set (cancellation is still honoured), and ``compiled.started`` is set when a run
reaches that point.
"""

from __future__ import annotations

import json
import struct
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

import numpy as np

import ovconform
from ovconform import properties as P
from ovconform.api import CompiledModel, Plugin, ProfilingInfo, ProfilingStatus, RemoteContext, SyncInferRequest
from ovconform.errors import ImportModelError, UnsupportedOpError
from ovconform.ir import Model, Node

MAGIC = b"FAKEDEV\x01"
Kernel = Callable[[Node, list[np.ndarray]], np.ndarray]

KERNELS: dict[str, Kernel] = {
    "Constant": lambda node, args: np.asarray(node.data),
    "Result": lambda node, args: args[0],
    "Add": lambda node, args: np.add(args[0], args[1]),
    "Multiply": lambda node, args: np.multiply(args[0], args[1]),
    "Relu": lambda node, args: np.maximum(args[0], args[0].dtype.type(0)),
}
SUPPORTED_OPS = frozenset({"Parameter", *KERNELS})


class FakeSyncInferRequest(SyncInferRequest):
    """Interprets the plan node by node, timing each node and checking for cancellation."""

    def __init__(self, compiled_model: FakeCompiledModel) -> None:
        super().__init__(compiled_model)
        self._node_times: list[float] = [0.0] * len(compiled_model.plan)
        self._ran = False

    def _run_model(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        cm: FakeCompiledModel = self._compiled_model  # type: ignore[assignment]
        cm.started.set()
        while cm.gate is not None and not cm.gate.wait(0.005):
            self.check_cancelled()
        values: list[np.ndarray] = []
        for step, (node, kernel, refs) in enumerate(cm.plan):
            self.check_cancelled()
            start = time.perf_counter()
            if node.type_name == "Parameter":
                value = inputs[cm.param_index[step]]
            else:
                value = kernel(node, [values[r] for r in refs])
            values.append(np.asarray(value, dtype=node.get_output_element_type(0).to_dtype()))
            self._node_times[step] = time.perf_counter() - start
        self._ran = True
        return [values[i] for i in cm.result_steps]

    def _profiling_info(self) -> list[ProfilingInfo]:
        cm: FakeCompiledModel = self._compiled_model  # type: ignore[assignment]
        out = []
        for step, (node, _kernel, _refs) in enumerate(cm.plan):
            executed = self._ran and node.type_name not in ("Parameter", "Constant", "Result")
            t = timedelta(seconds=self._node_times[step] if executed else 0.0)
            status = ProfilingStatus.EXECUTED if executed else ProfilingStatus.NOT_RUN
            exec_type = f"ref_{node.get_output_element_type(0)}"
            out.append(ProfilingInfo(node.friendly_name, node.type_name, exec_type, t, t, status))
        return out


class FakeCompiledModel(CompiledModel):
    sync_request_class = FakeSyncInferRequest

    def _compile(self, model: Model) -> None:
        self.gate: threading.Event | None = None
        self.started = threading.Event()
        ops = model.get_ordered_ops()
        bad = sorted({n.type_name for n in ops} - SUPPORTED_OPS)
        if bad:
            raise UnsupportedOpError(f"device {self.device_name!r} has no kernel for {bad}; "
                                     f"supported ops: {sorted(SUPPORTED_OPS)}.")
        step_of = {id(n): i for i, n in enumerate(ops)}
        self.plan: list[tuple[Node, Kernel | None, list[int]]] = [
            (n, KERNELS.get(n.type_name), [step_of[id(v.node)] for v in n.input_values()]) for n in ops]
        self.param_index = {step_of[id(p)]: i for i, p in enumerate(model.get_parameters())}
        self.result_steps = [step_of[id(r)] for r in model.get_results()]

    def _export(self) -> bytes:
        xml, weights = ovconform.serialize(self._model)
        header = json.dumps({"device": self.plugin.device_architecture or self.device_name}).encode()
        return MAGIC + b"".join(struct.pack("<Q", len(part)) + part for part in (header, xml, weights))


def _split_blob(blob: bytes) -> list[bytes]:
    if not blob.startswith(MAGIC):
        raise ImportModelError(f"the blob has no FAKE device header (starts with {blob[:8]!r}).")
    parts, pos = [], len(MAGIC)
    for what in ("header", "xml", "weights"):
        if pos + 8 > len(blob):
            raise ImportModelError(f"the FAKE blob is truncated before its {what} section.")
        (size,) = struct.unpack_from("<Q", blob, pos)
        if pos + 8 + size > len(blob):
            raise ImportModelError(f"the FAKE blob's {what} section is truncated.")
        parts.append(blob[pos + 8:pos + 8 + size])
        pos += 8 + size
    return parts


class FakePlugin(Plugin):
    device_name = "FAKE"
    full_device_name = "Fake test device"
    device_architecture = "FAKE-ARCH-1"
    device_ids = ("0", "1")
    capabilities = (P.Capability.FP32, P.Capability.EXPORT_IMPORT)
    supported_ops = SUPPORTED_OPS
    compiled_model_class = FakeCompiledModel

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: RemoteContext | None) -> CompiledModel:
        header, xml, weights = _split_blob(blob)
        arch = json.loads(header.decode()).get("device")
        if arch != self.device_architecture:
            raise ImportModelError(f"the blob was made for {arch!r}; this device is {self.device_architecture!r}.")
        model = ovconform.read_model(xml, weights)
        return self.compiled_model_class(model, self, config, context=context)

    def create_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext:
        return RemoteContext(self.device_name, params)

    def get_default_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext:
        return RemoteContext(self.device_name, {"default": True})


class NoExportCompiledModel(FakeCompiledModel):
    _export = CompiledModel._export  # the base: "cannot export"


class NoExportPlugin(FakePlugin):
    """FAKE without EXPORT_IMPORT: the Core must not cache it."""

    device_name = "NOEXPORT"
    capabilities = (P.Capability.FP32,)
    compiled_model_class = NoExportCompiledModel
    _import_model = Plugin._import_model  # the base: "cannot import"


class BrokenBackendPlugin(FakePlugin):
    """A device whose backend cannot initialise."""

    device_name = "BROKEN"

    def _init_backend(self) -> None:
        raise OSError("libfakedriver.so.1: cannot open shared object file")


# -- small models the tests share --------------------------------------------------------------
def relu_model(shape: Any = (2, 3), name: str = "relu_model", scale: float = 2.0) -> Model:
    """``relu((x + 1) * scale)`` with input tensor name "x" and output tensor name "y"."""
    from ovconform import opset as ops

    x = ops.parameter(list(shape) if not isinstance(shape, str) else shape, np.float32, name="x")
    s = ops.multiply(ops.add(x, ops.constant(np.float32(1.0), name="one"), name="add"),
                     ops.constant(np.float32(scale), name="scale"), name="mul")
    y = ops.relu(s, name="relu")
    y.output(0).set_names({"y"})
    return Model([y], [x], name)


def relu_expected(x: np.ndarray, scale: float = 2.0) -> np.ndarray:
    return np.maximum((x.astype(np.float32) + np.float32(1.0)) * np.float32(scale), np.float32(0))


def two_io_model() -> Model:
    """Inputs "a", "b" (f32 [2]); outputs "sum" = a + b and "prod" = a * b."""
    from ovconform import opset as ops

    a = ops.parameter([2], np.float32, name="a")
    b = ops.parameter([2], np.float32, name="b")
    s, p = ops.add(a, b, name="add"), ops.multiply(a, b, name="mul")
    s.output(0).set_names({"sum"})
    p.output(0).set_names({"prod"})
    return Model([s, p], [a, b], "two_io")
