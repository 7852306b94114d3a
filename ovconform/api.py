"""The plugin contract: the base classes a device builds on, and Protocols describing it.

A device package subclasses :class:`Plugin`, :class:`CompiledModel` and :class:`SyncInferRequest`
(and :class:`AsyncInferRequest` for multi-stage pipelines)::

    class MyRequest(SyncInferRequest):
        def _run_model(self, inputs):            # numpy arrays in port order
            return [...]                         # one array per output port

    class MyCompiledModel(CompiledModel):
        sync_request_class = MyRequest
        def _compile(self, model): ...           # build kernels

    class MyPlugin(Plugin):
        device_name = "MYDEV"
        compiled_model_class = MyCompiledModel

The base classes validate arguments and properties, run the named stages with timing, handle
busy/cancel/callback logic and raise the errors of :mod:`ovconform.errors`. The Protocols
(:class:`PluginContract`, :class:`CompiledModelContract`, :class:`InferRequestContract`) say what
the host and the suites call, so a device that does not use the base classes can be checked.
:func:`variable_infos` lists a model's variables (:class:`VariableInfo`: id, type, shape), for a
request's :meth:`SyncInferRequest._create_states`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, BinaryIO, Protocol, runtime_checkable

from ovconform.contract.async_infer_request import AsyncInferRequest, InferRequest, Results
from ovconform.contract.compiled_model import CompiledModel
from ovconform.contract.executors import (
    ExecutorManager,
    ImmediateExecutor,
    ITaskExecutor,
    StreamsExecutor,
    StreamsExecutorConfig,
    get_executor_manager,
)
from ovconform.contract.plugin import Plugin, Version
from ovconform.contract.sync_infer_request import (
    STAGES,
    ProfilingInfo,
    ProfilingStatus,
    SyncInferRequest,
    VariableState,
)
from ovconform.contract.tensor import RemoteContext, RemoteTensor, Tensor
from ovconform.ir import Model, Output
from ovconform.opset._infrastructure import VariableInfo, variable_infos

__all__ = [
    "STAGES", "AsyncInferRequest", "CompiledModel", "CompiledModelContract", "ExecutorManager", "ITaskExecutor",
    "ImmediateExecutor", "InferRequest", "InferRequestContract", "Plugin", "PluginContract", "ProfilingInfo",
    "ProfilingStatus", "RemoteContext", "RemoteTensor", "Results", "StreamsExecutor", "StreamsExecutorConfig",
    "SyncInferRequest", "Tensor", "VariableInfo", "VariableState", "Version", "get_executor_manager",
    "variable_infos",
]


@runtime_checkable
class InferRequestContract(Protocol):
    """What the host calls on an infer request (OpenVINO's ``InferRequest``)."""

    def infer(self, inputs: Any = None) -> Mapping[Output, Any]: ...
    def start_async(self, inputs: Any = None) -> None: ...
    def wait(self) -> None: ...
    def wait_for(self, timeout: float) -> bool: ...
    def set_callback(self, callback: Any, userdata: Any = ...) -> None: ...
    def cancel(self) -> None: ...
    def get_tensor(self, key: Output | str) -> Tensor: ...
    def set_tensor(self, key: Output | str, tensor: Tensor) -> None: ...
    def get_input_tensor(self, index: int | None = None) -> Tensor: ...
    def get_output_tensor(self, index: int | None = None) -> Tensor: ...
    def get_profiling_info(self) -> list[ProfilingInfo]: ...
    def query_state(self) -> list[VariableState]: ...


@runtime_checkable
class CompiledModelContract(Protocol):
    """What the host calls on a compiled model (``ov::ICompiledModel``)."""

    @property
    def inputs(self) -> list[Output]: ...
    @property
    def outputs(self) -> list[Output]: ...
    def input(self, key: Any = None) -> Output: ...
    def output(self, key: Any = None) -> Output: ...
    def create_infer_request(self) -> InferRequestContract: ...
    def export_model(self, stream: BinaryIO | None = None) -> bytes: ...
    def get_runtime_model(self) -> Model: ...
    def set_property(self, properties: dict[str, Any]) -> None: ...
    def get_property(self, name: str) -> Any: ...


@runtime_checkable
class PluginContract(Protocol):
    """What the Core calls on a plugin (``ov::IPlugin``)."""

    device_name: str

    def compile_model(self, model: Model, properties: Mapping[str, Any] | None = None,
                      context: RemoteContext | None = None) -> CompiledModelContract: ...
    def query_model(self, model: Model, properties: Mapping[str, Any] | None = None) -> dict[str, str]: ...
    def import_model(self, stream: Any, properties: Mapping[str, Any] | None = None,
                     context: RemoteContext | None = None) -> CompiledModelContract: ...
    def set_property(self, properties: Mapping[str, Any]) -> None: ...
    def get_property(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any: ...
    def create_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext: ...
    def get_default_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext: ...
    def get_version(self) -> Version: ...
