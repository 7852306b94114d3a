"""Deliberately broken variants of REFERENCE for the behaviours issue #21 added to the API suites
(issue 21): EXCLUSIVE_ASYNC_REQUESTS and executor reuse, CACHE_ENCRYPTION_CALLBACKS, the
static-only declaration (``supports_dynamic_shapes = False``) and low-precision weights through the
weightless cache.

Each class in :data:`FAULTS` breaks exactly one behaviour a suite checks; :data:`CONTROLS` are correct
devices scored differently from REFERENCE (a static-only device: the dynamic-shape bodies skip and the
not-supported body runs). ``tests/suites/test_api_faults_coverage.py`` runs the suites against each
(``--plugin=api_faulty_devices_coverage:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``) and checks that
exactly the intended tests fail, as failures. Device names share no prefix with one another.
"""

from __future__ import annotations

import time
from typing import Any, BinaryIO

import numpy as np

import ovconform
from ovconform import properties as P
from ovconform.api import StreamsExecutor
from ovconform.ir import Model, Type
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


class ExclusiveIgnored(ReferencePlugin):
    """Accepts EXCLUSIVE_ASYNC_REQUESTS (and reads it back) but gives every compiled model a streams
    executor of its own: requests of two compiled models run at once."""

    device_name = "APIS8_EXCL_IGNORED"

    def acquire_task_executor(self, streams: int, config: P.PropertyStore) -> StreamsExecutor:
        return super().acquire_task_executor(streams, config.merged({P.EXCLUSIVE_ASYNC_REQUESTS: False}))


#: How long the accelerator-like device's run waits on its (simulated) hardware, seconds.
HARDWARE_WAIT_S = 0.1


class _WaitingRequest(ReferenceSyncInferRequest):
    """REFERENCE's request, plus a wait on the device (the host thread idles, as it does while an
    accelerator computes): runs of it that overlap take no longer together than one."""

    def _postprocess(self) -> None:
        time.sleep(HARDWARE_WAIT_S)
        super()._postprocess()


class _NoExecutorShown(ReferenceCompiledModel):
    """Requests that wait on the device (:class:`_WaitingRequest`), on an executor the compiled
    model does not show (no ``task_executor``)."""

    def create_sync_infer_request(self) -> Any:
        return _WaitingRequest(self)

    @property
    def task_executor(self) -> Any:
        raise AttributeError("this device does not show its executor")

    def create_infer_request(self) -> Any:
        from reference_plugin.async_infer_request import ReferenceAsyncInferRequest

        callbacks = None if self._workers is not None else self.callback_executor
        return ReferenceAsyncInferRequest(self.create_sync_infer_request(), self._task_executor,
                                          self.plugin.wait_executor, callbacks)


class AcceleratorOpaque(ReferencePlugin):
    """A correct accelerator-like device (each run waits on the device) whose compiled models do not
    show their executor: EXCLUSIVE_ASYNC_REQUESTS honoured, so the timing judge must pass it."""

    device_name = "APIS8_ACCEL_OPAQUE"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        compiled = super()._compile_model(model, config, context)
        compiled.__class__ = _NoExecutorShown
        return compiled


class ExclusiveIgnoredOpaque(ExclusiveIgnored, AcceleratorOpaque):
    """ExclusiveIgnored on AcceleratorOpaque's device (each run waits on the device, compiled models
    do not show their executor, as OpenVINO's do not): only the time the requests take together can
    tell that they overlap."""

    device_name = "APIS8_EXCL_OPAQUE"


class ExclusiveAlways(ReferencePlugin):
    """Puts every compiled model on the one exclusive executor, also with EXCLUSIVE_ASYNC_REQUESTS false."""

    device_name = "APIS8_EXCL_ALWAYS"

    def acquire_task_executor(self, streams: int, config: P.PropertyStore) -> StreamsExecutor:
        return super().acquire_task_executor(streams, config.merged({P.EXCLUSIVE_ASYNC_REQUESTS: True}))


class _PlainExport(ReferenceCompiledModel):
    def export_model(self, stream: BinaryIO | None = None) -> bytes:
        """Exports the device blob as is, whatever CACHE_ENCRYPTION_CALLBACKS were given."""
        blob = self._export()
        if stream is not None:
            stream.write(blob)
        return blob


class EncryptionIgnored(ReferencePlugin):
    """Accepts CACHE_ENCRYPTION_CALLBACKS but exports (and so caches) the blob in clear."""

    device_name = "APIS8_PLAIN_BLOB"

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        compiled = super()._compile_model(model, config, context)
        compiled.__class__ = _PlainExport
        return compiled


class WeightlessLowPrecisionZeroed(ReferencePlugin):
    """A weightless import keeps f32 weights but gives u8, i8 and f16 weights (compressed weights)
    as zeros, as a device that only reads f32 weights from WEIGHTS_PATH would."""

    device_name = "APIS8_ZEROED_LOW_WEIGHTS"

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        if getattr(self, "_importing_weightless", False):
            for node in model.get_ordered_ops():
                if node.type_name == "Constant" and node.get_output_element_type(0) in (Type.u8, Type.i8, Type.f16):
                    node.data = np.zeros_like(node.data)
        return super()._compile_model(model, config, context)

    def _import_weightless(self, *args: Any, **kwargs: Any) -> Any:
        self._importing_weightless = True
        try:
            return super()._import_weightless(*args, **kwargs)
        finally:
            self._importing_weightless = False


class StaticOnly(ReferencePlugin):
    """A correct static-only device: declares ``supports_dynamic_shapes = False``."""

    device_name = "APIS8_STATIC_ONLY"
    supports_dynamic_shapes = False


class DynamicAccepted(ReferencePlugin):
    """Declares ``supports_dynamic_shapes = False`` but compiles models with dynamic inputs anyway."""

    device_name = "APIS8_STATIC_LIAR"
    supports_dynamic_shapes = False

    def _check_static(self, model: Model) -> None:
        """Checks nothing."""


#: Device class name -> the fault it carries.
FAULTS: dict[str, str] = {
    "ExclusiveIgnored": "EXCLUSIVE_ASYNC_REQUESTS reads back true, but each compiled model has its own executor",
    "ExclusiveIgnoredOpaque": "the same, and the compiled models do not show their executor",
    "ExclusiveAlways": "every compiled model shares one executor, also with EXCLUSIVE_ASYNC_REQUESTS false",
    "EncryptionIgnored": "CACHE_ENCRYPTION_CALLBACKS accepted, the cached and exported blobs left in clear",
    "DynamicAccepted": "declares static shapes only, yet compiles a model with dynamic inputs",
    "WeightlessLowPrecisionZeroed": "a weightless import gives u8/i8/f16 weights as zeros (f32 weights are right)",
}

#: Correct devices scored differently from REFERENCE.
CONTROLS: dict[str, str] = {
    "StaticOnly": "a static-only device: the dynamic-shape bodies skip, the not-supported body passes",
    "AcceleratorOpaque": "runs that wait on the device, executor not shown, EXCLUSIVE_ASYNC_REQUESTS honoured",
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    """Register every device of this module (for ``--plugin=path/to/api_faulty_devices_coverage.py``)."""
    for name in (*FAULTS, *CONTROLS):
        registry.add(globals()[name])


__all__ = [*FAULTS, *CONTROLS, "CONTROLS", "FAULTS"]
