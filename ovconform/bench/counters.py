"""Per-op performance counters: benchmark_app's report types, the original-op view, the checks.

Report types (benchmark_app's ``-report_type`` / ``-pcsort``):

* ``average_counters``: each node's real and CPU time averaged over the requests (by node name,
  in first-seen order), benchmark_app's ``get_average_performance_counters``;
* ``detailed_counters``: one block per request;
* sorted (``sort`` by real time, ``no_sort`` in device order, ``simple_sort`` only EXECUTED
  nodes) with each node's share of the total real time. Totals are summed as timedeltas in
  full, not through ``timedelta.microseconds`` as benchmark_app's Python printer does.

Original ops: a node's counter is shown under every original op in its ORIGINAL_NAMES
(``originalLayersNames`` in the runtime model's rt_info): a node that fused ``conv1``,
``conv1_bias`` and ``conv1_relu`` shows its full time under each, marked as shared.

Consistency checks, each a finding ``{check, status: ok|warning|error, message, nodes}``:

* ``non_negative``: no real or CPU time below zero (error);
* ``executed_ops_present``: every op of the executed graph (the runtime model; the original
  model when the device has none) other than Constant / Parameter / Result and nodes computed
  from constants only (a device folds those before inference) has a counter of
  that exact name, or is listed in the ORIGINAL_NAMES of a node that has one, or has in its own
  ORIGINAL_NAMES an op that has one (an op fused into another: OpenVINO CPU runs MatMul ``fc1``
  inside the FullyConnected node ``fc1_bias``, whose ORIGINAL_NAMES are ``fc1,fc1_bias``), or,
  without a runtime model, ``name_*`` as the API suite allows; error when one is missing; and
  every checked run has an EXECUTED counter;
* ``sum_within_latency``: per checked run (each request's last run; with the sync API a few more
  runs), the EXECUTED counters sum to no more than that run's measured latency — or, for a
  device that reports each node's time averaged over every run since compile (OpenVINO CPU
  does), no more than the mean latency of all the request's runs (first inference included);
  error when above, with :data:`SUM_SLACK_MS` slack for timer granularity. The finding says
  which of the two the counters are;
* ``latency_coverage``: how much of the latency the counters explain — the sum over the checked
  runs of counter totals divided by the sum of the same runs' latencies (their mean latencies
  since compile, for averaged counters); ``ok`` within [``coverage_min``, 100] %, a ``warning``
  below (time spent outside the counted nodes);
* ``original_ops_mapped``: every original op (not Constant / Parameter / Result) is accounted
  for by a counter's name or ORIGINAL_NAMES (warning otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ovconform.errors import ValidationError

__all__ = ["COVERAGE_MIN", "SORT_MODES", "SUM_SLACK_MS", "Row", "average", "check", "original_ops", "rows",
           "sort_rows", "status_name"]

SORT_MODES = ("sort", "no_sort", "simple_sort")
COVERAGE_MIN = 80.0
SUM_SLACK_MS = 0.05
#: types that need no counter (OpenVINO's execution graph names them Const, Input, Output)
_HOUSEKEEPING = frozenset({"Constant", "Parameter", "Result", "Const", "Input", "Output"})


def status_name(status: Any) -> str:
    """benchmark_app's spelling of a status: ``Status.EXECUTED``."""
    name = getattr(status, "name", None) or str(status).rpartition(".")[2]
    return f"Status.{name}"


@dataclass
class Row:
    """One counter with times in milliseconds (and its share of the total, once sorted)."""

    name: str
    status: str
    node_type: str
    exec_type: str
    real_ms: float
    cpu_ms: float
    share: float | None = None

    @property
    def executed(self) -> bool:
        return self.status == "Status.EXECUTED"


def _ms(value: Any) -> float:
    if isinstance(value, timedelta):
        return value / timedelta(milliseconds=1)
    return float(value) * 1000.0  # seconds, as some devices give plain numbers


def rows(infos: Sequence[Any]) -> list[Row]:
    """ProfilingInfo records as rows."""
    return [Row(str(i.node_name), status_name(i.status), str(i.node_type), str(i.exec_type), _ms(i.real_time),
                _ms(i.cpu_time)) for i in infos]


def average(per_request: Sequence[Sequence[Row]]) -> list[Row]:
    """benchmark_app's average counters: each node's times summed by name over the requests and
    divided by the number of requests (first-seen order)."""
    if not per_request:
        return []
    out: dict[str, Row] = {}
    for request_rows in per_request:
        for r in request_rows:
            if r.name in out:
                out[r.name].real_ms += r.real_ms
                out[r.name].cpu_ms += r.cpu_ms
            else:
                out[r.name] = Row(r.name, r.status, r.node_type, r.exec_type, r.real_ms, r.cpu_ms)
    n = len(per_request)
    for r in out.values():
        r.real_ms /= n
        r.cpu_ms /= n
    return list(out.values())


def sort_rows(source: Sequence[Row], mode: str = "sort") -> list[Row]:
    """Rows with ``share`` (% of the total real time) set, ordered by ``mode`` (:data:`SORT_MODES`)."""
    if mode not in SORT_MODES:
        raise ValidationError(f"counter sort mode {mode!r} is not one of {', '.join(SORT_MODES)}.")
    total = sum(r.real_ms for r in source)
    out = [Row(r.name, r.status, r.node_type, r.exec_type, r.real_ms, r.cpu_ms,
               100.0 * r.real_ms / total if total > 0 else 0.0) for r in source]
    if mode in ("sort", "simple_sort"):
        out.sort(key=lambda r: r.real_ms, reverse=True)
    if mode == "simple_sort":
        out = [r for r in out if r.executed]
    return out


def original_ops(avg_rows: Sequence[Row], originals: Mapping[str, list[str]] | None,
                 op_types: Mapping[str, str],
                 flops: Mapping[str, Mapping[str, int]] | None = None) -> list[dict[str, Any]]:
    """One row per original op (in the original model's order) with the time of the executed
    node(s) that stand for it, that node's share of the total, and FLOPs / GFLOP/s.

    A fused node's time is shown under each original op it absorbed (``shared_with`` lists the
    others); GFLOP/s of a fused node is the FLOPs of all its original ops over its time.
    """
    flops = flops or {}
    total = sum(r.real_ms for r in avg_rows if r.executed)
    by_original: dict[str, list[Row]] = {}
    absorbed: dict[str, list[str]] = {}
    for r in avg_rows:
        if not r.executed:
            continue
        names = (originals or {}).get(r.name) or [r.name]
        absorbed[r.name] = names
        for name in names:
            by_original.setdefault(name, []).append(r)
    out = []
    for name, op_type in op_types.items():
        nodes = by_original.get(name, [])
        real = sum(r.real_ms for r in nodes)
        node_flops = sum(flops.get(o, {}).get("flops", 0) for r in nodes for o in absorbed[r.name])
        shared = sorted({o for r in nodes for o in absorbed[r.name]} - {name})
        op_f = flops.get(name, {})
        out.append({
            "op": name, "type": op_type, "executed_as": [r.name for r in nodes],
            "exec_types": sorted({r.exec_type for r in nodes}), "real_time_ms": round(real, 6),
            "share_percent": round(100.0 * real / total, 3) if total > 0 and nodes else None,
            "shared_with": shared, "flops": op_f.get("flops"), "macs": op_f.get("macs"),
            "gflops_per_s": round(node_flops / (real / 1000.0) / 1e9, 3) if real > 0 and node_flops else None,
        })
    return out


def _finding(check: str, status: str, message: str, nodes: Sequence[str] = ()) -> dict[str, Any]:
    return {"check": check, "status": status, "message": message, "nodes": list(nodes)[:50]}


def _present(name: str, names: set[str], exact: bool) -> bool:
    return name in names or (not exact and any(n.startswith(name + "_") for n in names))


def check(per_request: Sequence[Sequence[Row]], latencies_ms: Sequence[float], *,
          executed_ops: Mapping[str, str], originals: Mapping[str, list[str]] | None,
          original_types: Mapping[str, str], coverage_min: float = COVERAGE_MIN,
          means_ms: Sequence[float] | None = None,
          consumers: Mapping[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """The consistency findings (see the module doc).

    :param per_request: the counters of each checked run.
    :param latencies_ms: the measured latency of the same runs.
    :param means_ms: for each checked run, the mean latency of every run its request made since
        compile (None: only per-run counters are accepted).
    :param consumers: for each executed op that no execution node accounts for (empty
        ORIGINAL_NAMES), the ops that read its output: it counts as fused into them when it has
        no counter of its own and every one of them is covered.
    :param executed_ops: ``{name: type}`` of the executed graph (runtime model, or the original).
    :param originals: runtime node name -> original op names (None without a runtime model).
    :param original_types: ``{name: type}`` of the original model.
    """
    findings = []
    all_rows = [r for rs in per_request for r in rs]
    negative = sorted({r.name for r in all_rows if r.real_ms < 0 or r.cpu_ms < 0})
    findings.append(_finding("non_negative", "error", f"{len(negative)} counter(s) report a negative real or CPU "
                             f"time: {', '.join(negative[:10])}", negative) if negative else
                    _finding("non_negative", "ok", f"all {len(all_rows)} counters are >= 0"))
    findings.append(_presence(per_request, executed_ops, originals, consumers or {}))
    findings.extend(_sums(per_request, latencies_ms, coverage_min, means_ms))
    findings.append(_mapped(all_rows, originals, original_types))
    return findings


def _presence(per_request: Sequence[Sequence[Row]], executed_ops: Mapping[str, str],
              originals: Mapping[str, list[str]] | None, consumers: Mapping[str, list[str]]) -> dict[str, Any]:
    required = [n for n, t in executed_ops.items() if t not in _HOUSEKEEPING]
    exact = originals is not None
    missing: set[str] = set()
    no_exec = 0
    for rs in per_request:
        names = {r.name for r in rs}
        for r in rs:  # an op fused into a counted node is covered by that node's counter
            names.update((originals or {}).get(r.name, []))
        missing |= {n for n in required if not _covered(n, names, exact, originals or {}, consumers, executed_ops)}
        no_exec += not any(r.executed for r in rs)
    if missing:
        ms = sorted(missing)
        return _finding("executed_ops_present", "error", f"{len(ms)} executed op(s) have no counter: "
                        f"{', '.join(f'{n} ({executed_ops[n]})' for n in ms[:10])}", ms)
    if no_exec or not per_request:
        return _finding("executed_ops_present", "error", f"{no_exec or 'every'} run(s) report no EXECUTED counter")
    return _finding("executed_ops_present", "ok", f"all {len(required)} executed ops have a counter")


def _covered(name: str, names: set[str], exact: bool, originals: Mapping[str, list[str]],
             consumers: Mapping[str, list[str]], types: Mapping[str, str], seen: frozenset[str] = frozenset()) -> bool:
    """Whether op ``name`` has a counter: its own, one of an op fused with it (its ORIGINAL_NAMES),
    or, for an op no execution node accounts for, through every op that reads it."""
    if _present(name, names, exact) or any(o in names for o in originals.get(name, [])):
        return True
    if any(n.startswith(name + ".") and n[len(name) + 1:].isdigit() for n in names):
        return True  # OpenVINO names the nodes a decomposed op leaves per output port <name>.<port>
    readers = consumers.get(name)
    if not readers or name in seen:
        return False
    return all(types.get(r) not in _HOUSEKEEPING and r in types
               and _covered(r, names, exact, originals, consumers, types, seen | {name}) for r in readers)


def _sums(per_request: Sequence[Sequence[Row]], latencies_ms: Sequence[float], coverage_min: float,
          means_ms: Sequence[float] | None) -> list[dict[str, Any]]:
    totals = [sum(r.real_ms for r in rs if r.executed) for rs in per_request]
    over = [(i, t, lat) for i, (t, lat) in enumerate(zip(totals, latencies_ms, strict=True))
            if t > lat + SUM_SLACK_MS]
    means = list(means_ms) if means_ms is not None and len(means_ms) == len(totals) else None
    averaged = bool(over) and means is not None and all(t <= m + SUM_SLACK_MS for t, m in zip(totals, means,
                                                                                              strict=True))
    out = []
    if averaged and means is not None:
        out.append(_finding("sum_within_latency", "ok", f"the counters are averages over every run since compile: "
                            f"{len(over)} of {len(totals)} run(s) sum above their own latency, every one within the "
                            f"mean latency of its request's runs"))
        latencies_ms = means
    elif over:
        detail = "; ".join(f"run {i}: {t:.3f} ms > {lat:.3f} ms"
                           + (f" (mean since compile {means[i]:.3f} ms)" if means else "") for i, t, lat in over[:5])
        out.append(_finding("sum_within_latency", "error", f"counters sum above the measured latency of the same "
                            f"run: {detail}"))
    else:
        out.append(_finding("sum_within_latency", "ok", f"every run's counters sum within its latency "
                            f"({len(totals)} run(s))"))
    lat_sum, total_sum = sum(latencies_ms), sum(totals)
    if lat_sum <= 0:
        return [*out, _finding("latency_coverage", "warning", "no latency measured for the counted runs")]
    cov = 100.0 * total_sum / lat_sum
    text = (f"per-op counters sum to {total_sum / len(totals):.3f} ms = {cov:.1f}% of the measured latency "
            f"({lat_sum / len(totals):.3f} ms, same runs, mean over {len(totals)} run(s))")
    if cov > 100.0 + 100.0 * SUM_SLACK_MS * len(totals) / lat_sum:
        out.append(_finding("latency_coverage", "error", f"{text}: above 100%"))
    elif cov < coverage_min:
        out.append(_finding("latency_coverage", "warning", f"{text}: below {coverage_min:g}%, time is spent "
                            "outside the counted nodes"))
    else:
        out.append(_finding("latency_coverage", "ok", f"{text}: within {coverage_min:g}-100%"))
    out[-1]["coverage_percent"] = round(cov, 2)
    return out


def _mapped(all_rows: Sequence[Row], originals: Mapping[str, list[str]] | None,
            original_types: Mapping[str, str]) -> dict[str, Any]:
    names = {r.name for r in all_rows}
    covered = set(names)
    for r in all_rows:
        covered.update((originals or {}).get(r.name, []))
    missing = sorted(n for n, t in original_types.items()
                     if t not in _HOUSEKEEPING and not _present(n, covered, originals is not None))
    if missing:
        return _finding("original_ops_mapped", "warning", f"{len(missing)} original op(s) are in no counter's name "
                        f"or ORIGINAL_NAMES: {', '.join(missing[:10])}", missing)
    return _finding("original_ops_mapped", "ok", "every original op maps to a counter"
                    + ("" if originals is not None else " by name (no runtime model)"))


def worst(findings: Sequence[Mapping[str, Any]]) -> str:
    """``error`` if any finding is an error, else ``warning`` if any is, else ``ok``."""
    statuses = {f["status"] for f in findings}
    return "error" if "error" in statuses else "warning" if "warning" in statuses else "ok"
