"""Performance (``perf`` entity, opt-in): ``pytest --plugin=X -m perf``; never under xdist ``-n``.

Each test runs :func:`ovconform.bench.runner.run_benchmark` on the device and stores the perf
document (latency statistics, throughput, per-op counters mapped to the original ops, FLOPs,
consistency findings, BLAS threads) in its record as ``facts["perf"]``; the conformance HTML
shows them in its perf section. A test fails when the run fails, when a statistic is not
finite and ordered (min <= median <= max, throughput > 0), or when a counter consistency check
is an *error* (negative counters, an executed op without a counter, counters summing above the
measured latency). Coverage below 80 % of the latency is a warning in the report, not a failure.

Models: the zoo (sync + LATENCY and async + THROUGHPUT) and the four perf anchors (sync +
LATENCY; cnn also async + THROUGHPUT). Iterations per run: ``OVCONFORM_PERF_NITER`` (default 20).
"""

from __future__ import annotations

import math
import os
from typing import Any

import pytest

from ovconform import properties as P
from ovconform.assertions import fail
from ovconform.bench import report
from ovconform.bench.models import ANCHORS, resolve_model, zoo_names
from ovconform.bench.runner import BenchConfig, run_benchmark

pytestmark = [pytest.mark.perf, pytest.mark.entity("perf")]


def _niter() -> int:
    raw = os.environ.get("OVCONFORM_PERF_NITER", "20")
    try:
        value = int(raw)
    except ValueError:
        raise pytest.UsageError(f"OVCONFORM_PERF_NITER must be an integer >= 1, not {raw!r}") from None
    if value < 1:
        raise pytest.UsageError(f"OVCONFORM_PERF_NITER must be an integer >= 1, not {value}")
    return value


def _anchor(name: str) -> str:
    return f"anchor:{name}" if name in zoo_names() else name


_RUNS = ([(m, "sync", "latency") for m in zoo_names()] + [(m, "async", "throughput") for m in zoo_names()]
         + [(_anchor(m), "sync", "latency") for m in ANCHORS] + [("cnn", "async", "throughput")])


def _bench(core: Any, device: str, spec: str, record: Any, **options: Any) -> dict[str, Any]:
    cfg = BenchConfig(niter=_niter(), **options)
    result = run_benchmark(core, device, resolve_model(spec), cfg)
    doc = report.perf_document(result)
    record("perf", report.compact(doc))
    record("model", result.model_name)
    return doc


def _check_stats(doc: dict[str, Any], where: str) -> None:
    lat, res = doc["results"]["latency_ms"], doc["results"]
    values = [lat["min"], lat["median"], lat["average"], lat["max"], res["throughput_fps"]]
    if not all(math.isfinite(v) and v > 0 for v in values):
        fail("latency min/median/average/max, throughput", values, "finite and > 0", where)
    if not lat["min"] <= lat["median"] <= lat["max"]:
        fail("latency min <= median <= max", (lat["min"], lat["median"], lat["max"]), "ordered", where)


def _check_counters(doc: dict[str, Any], where: str) -> None:
    errors = [f for f in doc["findings"] if f["status"] == "error"]
    if errors:
        fail("counter consistency", "; ".join(f"{f['check']}: {f['message']}" for f in errors), "no error", where)


@pytest.mark.parametrize(("model", "api", "hint"), _RUNS, ids=[f"{m}-{a}-{h}" for m, a, h in _RUNS])
def test_benchmark(ov_core: Any, ov_device_name: str, record_ov_fact: Any, model: str, api: str, hint: str) -> None:
    """Latency statistics, throughput and consistent per-op counters for one model and mode."""
    doc = _bench(ov_core, ov_device_name, model, record_ov_fact, api=api, hint=hint)
    where = f"{ov_device_name}: ovconform bench --model {model} -api {api} -hint {hint} -niter {_niter()}"
    _check_stats(doc, where)
    _check_counters(doc, where)


@pytest.mark.requires_property(P.PERFORMANCE_HINT)
@pytest.mark.parametrize("hint", ["cumulative_throughput", "none"])
def test_hint_modes(ov_core: Any, ov_device_name: str, record_ov_fact: Any, hint: str) -> None:
    """CUMULATIVE_THROUGHPUT, and no hint with explicit NUM_STREAMS=2 and 2 requests."""
    extra = {"nstreams": 2, "nireq": 2} if hint == "none" else {}
    doc = _bench(ov_core, ov_device_name, "lenet", record_ov_fact, api="async", hint=hint, **extra)
    where = f"{ov_device_name}: ovconform bench --model lenet -api async -hint {hint}"
    _check_stats(doc, where)
    if hint == "none" and str(doc["device_properties"].get(P.NUM_STREAMS)) != "2":
        fail("NUM_STREAMS read back", doc["device_properties"].get(P.NUM_STREAMS), 2, where + " -nstreams 2")


def test_random_inputs_per_iteration(ov_core: Any, ov_device_name: str, record_ov_fact: Any) -> None:
    """Seeded random inputs, a new set each iteration (data-dependent timing)."""
    doc = _bench(ov_core, ov_device_name, "mlp", record_ov_fact, api="sync", hint="latency", inputs="random")
    where = f"{ov_device_name}: ovconform bench --model mlp --inputs random"
    _check_stats(doc, where)
    if doc["inputs"]["sets"] < 2:
        fail("random input sets", doc["inputs"]["sets"], ">= 2", where)
