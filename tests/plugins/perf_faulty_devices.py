"""REFERENCE variants whose performance counters are broken, one fault each.

``ovconform bench`` and the perf suite must flag each of them through a consistency finding
(``tests/test_bench_faults.py``); their outputs are REFERENCE's, only the counters lie.
:data:`FAULTS` maps each class to its fault and the check that must catch it.
Use as ``--plugin=tests/plugins/perf_faulty_devices.py`` or ``perf_faulty_devices:<Class>``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import ovconform
from ovconform import properties as P
from ovconform.api import ProfilingInfo, ProfilingStatus
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

_COMPUTE = frozenset({"Convolution", "MatMul", "GroupConvolution"})


class _NegativeRequest(ReferenceSyncInferRequest):
    def _profiling_info(self) -> list[ProfilingInfo]:
        out = super()._profiling_info()
        for info in out:
            if info.node_type in _COMPUTE and info.status is ProfilingStatus.EXECUTED:
                info.real_time = -info.real_time - timedelta(microseconds=5)
                break
        return out


class _MissingRequest(ReferenceSyncInferRequest):
    def _profiling_info(self) -> list[ProfilingInfo]:
        return [info for info in super()._profiling_info() if info.node_type not in _COMPUTE]


class _InflatedRequest(ReferenceSyncInferRequest):
    def _profiling_info(self) -> list[ProfilingInfo]:
        out = super()._profiling_info()
        for info in out:
            info.real_time = info.real_time * 3 + timedelta(milliseconds=1)
        return out


def _compiled(request: type[ReferenceSyncInferRequest]) -> type[ReferenceCompiledModel]:
    return type(f"{request.__name__}CompiledModel", (ReferenceCompiledModel,), {"sync_request_class": request})


class _PerfFaultPlugin(ReferencePlugin):
    fault_compiled_class: type[ReferenceCompiledModel] = ReferenceCompiledModel

    def _compile_model(self, model: Any, config: P.PropertyStore, context: Any) -> Any:
        compiled = super()._compile_model(model, config, context)
        compiled.__class__ = self.fault_compiled_class
        return compiled


class NegativeCountersDevice(_PerfFaultPlugin):
    """The first executed Convolution / MatMul reports a negative real time."""

    device_name = "PERF_NEGATIVE"
    fault_compiled_class = _compiled(_NegativeRequest)


class MissingCountersDevice(_PerfFaultPlugin):
    """Convolution / MatMul nodes run but have no counter."""

    device_name = "PERF_MISSING"
    fault_compiled_class = _compiled(_MissingRequest)


class InflatedCountersDevice(_PerfFaultPlugin):
    """Every counter is 3x its time plus 1 ms: they sum above the measured latency."""

    device_name = "PERF_INFLATED"
    fault_compiled_class = _compiled(_InflatedRequest)


#: class name -> (fault, the check that must flag it)
FAULTS = {
    "NegativeCountersDevice": ("negative real time", "non_negative"),
    "MissingCountersDevice": ("compute nodes without counters", "executed_ops_present"),
    "InflatedCountersDevice": ("counters above the latency", "sum_within_latency"),
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    for name in FAULTS:
        registry.add(globals()[name])


__all__ = [*FAULTS, "FAULTS"]
