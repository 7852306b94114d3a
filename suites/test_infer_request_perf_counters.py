"""Performance counters (``ov_infer_request`` entity): OpenVINO's ``ov_infer_request/perf_counters.cpp``.

* OVInferRequestPerfCountersTest — M: with PERF_COUNT on, get_profiling_info() is non-empty after
  a synchronous and an asynchronous run, and every non-Constant op's friendly name appears as a
  node_name (exactly, or as the prefix ``name_``).
* OVInferRequestPerfCountersExceptionTest.perfCountWereNotEnabledExceptionTest (–): with
  PERF_COUNT off, get_profiling_info() raises.
* Beyond OpenVINO (–, optional; behaviours.md §5.2 "consistency between counters and latency"):
  counters are non-negative, at least one node is EXECUTED, and the summed real time does not
  exceed the longest measured run (OpenVINO CPU reports averages over all runs of a request).
* Beyond OpenVINO (–, optional): a run is profiled however it was started: after infer() and
  after start_async + wait, some node is EXECUTED (a list of NOT_RUN entries is not empty, yet it
  says nothing about the run).

Not checked: that a request's counters are its own. OpenVINO CPU keeps them in the graph its
requests share (a request that never ran shows another request's EXECUTED nodes and times), and
OpenVINO documents no per-request guarantee.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest

from ovconform import properties as P
from ovconform.assertions import assert_not_empty, assert_raises_ov_error, assert_that, call, fail, no_error
from ovconform.errors import OVConformError
from ovconform.suites import _models

pytestmark = pytest.mark.entity("ov_infer_request")

NAME = "split_conv_concat"
RUNS = 5


def _request(core: Any, device: str, profiling: bool = True) -> tuple[Any, Any]:
    model = _models.build(NAME)
    config = {P.PERF_COUNT: profiling}
    with no_error(call(device, "compile_model", model.friendly_name, config)):
        return core.compile_model(model, device, config).create_infer_request(), model


def _profile(request: Any, device: str, how: str) -> list[Any]:
    inputs = _models.make_inputs(_models.build(NAME))
    where = call(device, "InferRequest.get_profiling_info") + f" after {how} (PERF_COUNT on)"
    with no_error(where):
        if how == "infer":
            request.infer(inputs)
        else:
            request.start_async(inputs)
            request.wait()
        return list(request.get_profiling_info())


@pytest.mark.mandatory
@pytest.mark.parametrize("how", ["infer", "start_async"])
def test_not_empty_after_run(ov_core: Any, ov_device_name: str, how: str) -> None:
    """NotEmptyAfterSyncInfer / NotEmptyAfterAsyncInfer."""
    request, _ = _request(ov_core, ov_device_name)
    assert_not_empty(_profile(request, ov_device_name, how), "get_profiling_info()",
                     call(ov_device_name, "InferRequest.get_profiling_info") + f" after {how}")


@pytest.mark.mandatory
def test_check_operation_in_profiling_info(ov_core: Any, ov_device_name: str) -> None:
    """CheckOperationInProfilingInfo: each non-Constant op appears by name."""
    request, model = _request(ov_core, ov_device_name)
    names = [str(info.node_name) for info in _profile(request, ov_device_name, "infer")]
    where = call(ov_device_name, "InferRequest.get_profiling_info")
    for op in model.get_ordered_ops():
        if op.type_name == "Constant":
            continue
        name = op.friendly_name
        if not any(n == name or n.startswith(name + "_") for n in names):
            fail(f"profiling entry for {name!r} ({op.type_name})", "missing", f"a node_name {name!r} or '{name}_*'",
                 f"{where}; node names: {sorted(names)}")


@pytest.mark.parametrize("how", ["infer", "start_async"])
def test_run_is_profiled(ov_core: Any, ov_device_name: str, how: str) -> None:
    """(–) with PERF_COUNT on, the counters after one run of a fresh request, started either way,
    have an EXECUTED node (the Convolutions and the Concat of split_conv_concat ran)."""
    request, _ = _request(ov_core, ov_device_name)
    infos = _profile(request, ov_device_name, how)
    statuses = sorted({str(getattr(i.status, "name", i.status)) for i in infos})
    assert_that("EXECUTED" in statuses, "statuses of the counters", statuses, "some node EXECUTED",
                call(ov_device_name, "InferRequest.get_profiling_info") + f" after one {how} run (PERF_COUNT on)")


def test_perf_count_not_enabled_throws(ov_core: Any, ov_device_name: str) -> None:
    """OVInferRequestPerfCountersExceptionTest.perfCountWereNotEnabledExceptionTest (–)."""
    request, model = _request(ov_core, ov_device_name, profiling=False)
    request.infer(_models.make_inputs(model))
    assert_raises_ov_error(OVConformError, request.get_profiling_info,
                           call=call(ov_device_name, "InferRequest.get_profiling_info") + " with PERF_COUNT off")


def test_counters_are_consistent_with_latency(ov_core: Any, ov_device_name: str) -> None:
    """(–) counters are non-negative timedeltas, some node is EXECUTED, and the summed real time
    is no more than the longest of the request's measured runs.

    The bound is the longest run, not the last: OpenVINO CPU reports each node's average over
    every run of the request (its PerfCount keeps total/count), so after a slow first run the
    counters may exceed the last run's latency. The model is the slow chain (tens of ms a run on
    REFERENCE, nearly all of it in the nodes), so a device that sums its counters over runs
    without averaging exceeds the bound by about RUNS times, far beyond machine noise."""
    model = _models.slow_model()
    config = {P.PERF_COUNT: True}
    with no_error(call(ov_device_name, "compile_model", model.friendly_name, config)):
        request = ov_core.compile_model(model, ov_device_name, config).create_infer_request()
    inputs = _models.make_inputs(model)
    latencies = []
    for _ in range(RUNS):
        start = time.perf_counter()
        request.infer(inputs)
        latencies.append(timedelta(seconds=time.perf_counter() - start))
    infos = list(request.get_profiling_info())
    where = call(ov_device_name, "InferRequest.get_profiling_info") + f" after {RUNS} infer() runs"
    for info in infos:
        for field in ("real_time", "cpu_time"):
            value = getattr(info, field)
            assert_that(isinstance(value, timedelta) and value >= timedelta(0), f"{info.node_name}.{field}", value,
                        "a timedelta >= 0", where)
    executed = [i for i in infos if str(getattr(i.status, "name", i.status)) == "EXECUTED"]
    assert_not_empty(executed, "EXECUTED entries", where)
    total = sum((i.real_time for i in infos), timedelta(0))
    assert_that(total <= max(latencies), "sum of real_time", total,
                f"<= the longest run's latency {max(latencies)} (runs: {[str(t) for t in latencies]})", where)
