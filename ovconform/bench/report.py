"""Benchmark documents and files: ovconform's perf document, and benchmark_app's report files.

:func:`perf_document` turns a :class:`~ovconform.bench.runner.BenchResult` into one JSON-able
document (numbers as numbers; counters, original-op table, FLOPs, findings, BLAS settings).
:func:`write_reports` writes, into one folder:

* ``benchmark_report.csv`` / ``.json``: benchmark_app's sections and keys ("Command line
  parameters" / ``cmd_options``, "Configuration setup" / ``configuration_setup``, "Execution
  results" / ``execution_results``), values formatted as benchmark_app formats them, plus a few
  additive keys (BLAS threads, input mode, counter coverage);
* ``benchmark_average_counters_report.*`` or ``benchmark_detailed_counters_report.*`` (report type),
  ``benchmark_sorted_report.*`` (with a sort mode): benchmark_app's columns and keys;
* ``benchmark_original_ops_report.csv``: the counters per original op with FLOPs and GFLOP/s;
* ``perf.json``: the whole perf document.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ovconform.bench import counters as C
from ovconform.bench.flops import model_flops
from ovconform.bench.runner import BenchResult
from ovconform.errors import ValidationError

__all__ = ["PERF_SCHEMA_VERSION", "REPORT_TYPES", "cmd_options", "compact", "console_text", "execution_results",
           "perf_document", "write_error_report", "write_reports"]

PERF_SCHEMA_VERSION = "1.0"
REPORT_TYPES = ("no_counters", "average_counters", "detailed_counters")
SEP = ";"


def _row_dict(r: C.Row, with_share: bool = False) -> dict[str, Any]:
    d: dict[str, Any] = {"name": r.name, "node_type": r.node_type, "status": r.status,
                         "real_time_ms": round(r.real_ms, 6), "cpu_time_ms": round(r.cpu_ms, 6),
                         "exec_type": r.exec_type}
    if with_share and r.share is not None:
        d["share_percent"] = round(r.share, 3)
    return d


def _types(model: Any) -> dict[str, str]:
    return {n.friendly_name: n.type_name for n in model.get_ordered_ops()}


def perf_document(result: BenchResult, *, pcsort: str = "sort", coverage_min: float = C.COVERAGE_MIN,
                  command_line: Sequence[str] = ()) -> dict[str, Any]:
    """The perf document of one run (see the module doc)."""
    cfg, st = result.config, result.stats
    doc: dict[str, Any] = {
        "perf_schema_version": PERF_SCHEMA_VERSION,
        "device": result.device, "model": result.model_name, "model_source": result.model.source,
        "command_line": list(command_line),
        "config": {"api": cfg.api, "hint": cfg.hint, "nireq": result.nireq, "nstreams": cfg.nstreams,
                   "niter": cfg.niter, "duration_s": cfg.duration_s, "inputs": cfg.inputs, "seed": cfg.seed,
                   "percentile": cfg.percentile, "perf_count": cfg.perf_count, "properties": cfg.properties},
        "compile_config": result.compile_config, "device_properties": result.device_properties,
        "inputs": result.inputs, "blas": result.blas,
        "results": {"compile_ms": round(result.compile_ms, 4),
                    "first_inference_ms": round(result.first_inference_ms, 4),
                    "warmup_ms": round(result.warmup_ms, 4),
                    "iterations": st.count, "duration_ms": round(st.duration_ms, 4),
                    "latency_ms": {"median": st.median_ms, "average": st.average_ms, "min": st.min_ms,
                                   "max": st.max_ms, "percentile": st.percentile,
                                   "at_percentile": st.latency_percentile_ms},
                    "throughput_fps": st.throughput_fps},
        "counters": None, "findings": [], "verdict": "ok", "coverage_percent": None,
    }
    if result.decode is not None:  # a decoder: prefill and decode-step times (runner.time_decode)
        doc["results"]["decode"] = _rounded_decode(result.decode)
    if cfg.perf_count:
        _add_counters(doc, result, pcsort, coverage_min)
    return doc


def _rounded_decode(decode: dict[str, Any]) -> dict[str, Any]:
    def r(x: Any) -> Any:
        return round(x, 4) if isinstance(x, float) else x

    return {k: [r(x) for x in v] if isinstance(v, list) else r(v) for k, v in decode.items()}


def _add_counters(doc: dict[str, Any], result: BenchResult, pcsort: str, coverage_min: float) -> None:
    if result.counters_error or not result.counters:
        doc["counters"] = {"available": False, "error": result.counters_error or "no counters were returned"}
        doc["findings"] = [{"check": "counters_available", "status": "error", "nodes": [],
                            "message": "PERF_COUNT was on but get_profiling_info() failed: "
                                       f"{doc['counters']['error']}"}]
        doc["verdict"] = "error"
        return
    per_request = [C.rows(infos) for infos in result.counters]
    avg = C.average(per_request)
    original_types = _types(result.model.model)
    executed = result.runtime_types if result.runtime_originals is not None else original_types
    samples = result.counter_samples or list(zip(result.counters, result.counter_latencies_ms, strict=True))
    means = result.counter_means_ms if len(result.counter_means_ms) == len(samples) else None
    findings = C.check([C.rows(infos) for infos, _ in samples], [lat for _, lat in samples], executed_ops=executed,
                       originals=result.runtime_originals, original_types=original_types, coverage_min=coverage_min,
                       means_ms=means, consumers=result.runtime_consumers)
    flops = model_flops(result.model.model)
    doc["counters"] = {
        "available": True, "requests": len(per_request), "sort": pcsort,
        "total_real_time_ms": round(sum(r.real_ms for r in avg), 6),
        "total_cpu_time_ms": round(sum(r.cpu_ms for r in avg), 6),
        "run_latencies_ms": [round(x, 6) for x in result.counter_latencies_ms],
        "checked_runs": len(samples),
        "average": [_row_dict(r, True) for r in C.sort_rows(avg, "no_sort")],
        "sorted": [_row_dict(r, True) for r in C.sort_rows(avg, pcsort)],
        "detailed": [[_row_dict(r) for r in rs] for rs in per_request],
        "original_ops": C.original_ops(avg, result.runtime_originals, original_types, flops),
        "runtime_model": "" if result.runtime_originals is not None else result.runtime_error,
        "total_flops": sum(f["flops"] for f in flops.values()),
    }
    doc["findings"] = findings
    doc["verdict"] = C.worst(findings)
    cov = next((f.get("coverage_percent") for f in findings if f["check"] == "latency_coverage"), None)
    doc["coverage_percent"] = cov


def compact(doc: dict[str, Any], top: int = 30) -> dict[str, Any]:
    """``doc`` small enough for a conformance record's facts: no per-request blocks, the top
    ``top`` sorted counters and original ops (by time), no command line."""
    out = {k: v for k, v in doc.items() if k != "command_line"}
    counters = doc.get("counters")
    if counters and counters.get("available"):
        ops = sorted(counters["original_ops"], key=lambda o: o["real_time_ms"], reverse=True)[:top]
        out["counters"] = {**{k: v for k, v in counters.items() if k not in ("average", "detailed", "sorted",
                                                                             "original_ops")},
                           "sorted": counters["sorted"][:top], "original_ops": ops}
    return out


# -- benchmark_app's files --------------------------------------------------------------------------
def cmd_options(argv: Sequence[str]) -> list[tuple[str, str]]:
    """benchmark_app's ``get_command_line_arguments``: ``(-flag, value)`` pairs."""
    out: list[tuple[str, str]] = []
    name = value = ""
    for arg in argv:
        if "=" in arg and arg.startswith("-"):
            if name:
                out.append((name, value))
            k, _, v = arg.partition("=")
            out.append((k, v))
            name = value = ""
        elif arg.startswith("-"):
            if name:
                out.append((name, value))
            name, value = arg, ""
        else:
            value = arg
    if name:
        out.append((name, value))
    return out


def configuration_setup(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    cfg, props = doc["config"], doc["device_properties"]
    duration = cfg["duration_s"] * 1000.0 if cfg["duration_s"] else 0
    rows: list[tuple[str, Any]] = [
        ("topology", doc["model"]), ("target device", doc["device"]), ("API", cfg["api"]),
        ("inference_only", cfg["inputs"] == "fixed"), ("precision", str(props.get("INFERENCE_PRECISION_HINT",
                                                                                    "UNSPECIFIED"))),
        ("batch size", "1"), ("number of iterations", str(cfg["niter"] or 0)),
        ("number of parallel infer requests", str(cfg["nireq"])), ("duration (ms)", str(int(duration))),
    ]
    if "NUM_STREAMS" in props:
        rows.append((f"number of {doc['device']} streams", str(props["NUM_STREAMS"])))
    blas = doc["blas"]
    rows += [("BLAS threads", str(blas.get("threads"))), ("BLAS threads at start", str(blas.get("threads_at_start"))),
             ("BLAS source", str(blas.get("source"))),
             ("input mode", cfg["inputs"]), ("input seed", str(cfg["seed"])), ("performance hint", cfg["hint"])]
    return rows


def execution_results(doc: dict[str, Any]) -> list[tuple[str, str]]:
    res, lat = doc["results"], doc["results"]["latency_ms"]
    p = lat["percentile"]
    rows = [("compile model time (ms)", f"{res['compile_ms']:.2f}"),
            ("first inference time (ms)", f"{res['first_inference_ms']:.2f}"),
            ("total execution time (ms)", f"{res['duration_ms']:.2f}"),
            ("total number of iterations", str(res["iterations"])),
            ("latency (ms)" if p == 50 else f"latency ({p} percentile) (ms)", f"{lat['at_percentile']:.2f}"),
            ("avg latency", f"{lat['average']:.2f}"), ("min latency", f"{lat['min']:.2f}"),
            ("max latency", f"{lat['max']:.2f}"), ("throughput", f"{res['throughput_fps']:.2f}")]
    decode = res.get("decode")
    if decode:
        rows += [("prefill time (ms)", f"{decode['prefill_ms']:.2f}"),
                 ("decode step time, median (ms)", f"{decode['decode_median_ms']:.2f}"),
                 ("decode steps timed", f"{decode['steps']} x {decode['rounds']} round(s)")]
    if doc.get("coverage_percent") is not None:
        rows.append(("counters coverage of latency (%)", f"{doc['coverage_percent']:.2f}"))
    if doc.get("error"):
        rows.append(("error", str(doc["error"])))
    return rows


def _csv_sections(sections: Iterable[tuple[str, list[tuple[str, Any]]]]) -> str:
    out = io.StringIO()
    for title, pairs in sections:
        out.write(f"{title}\n")
        for k, v in pairs:
            out.write(f"{k}{SEP}{v}\n")
        out.write("\n")
    return out.getvalue()


def _counter_csv_block(rows: Sequence[dict[str, Any]]) -> str:
    lines = [SEP.join(["layerName", "execStatus", "layerType", "execType", "realTime (ms)", "cpuTime (ms)"])]
    for r in rows:
        lines.append(SEP.join([r["name"], r["status"], r["node_type"], r["exec_type"], f"{r['real_time_ms']:.3f}",
                               f"{r['cpu_time_ms']:.3f}"]))
    lines.append(SEP.join(["Total", "", "", "", f"{sum(r['real_time_ms'] for r in rows):.3f}",
                           f"{sum(r['cpu_time_ms'] for r in rows):.3f}"]))
    return "\n".join(lines) + "\n\n"


def _counter_json(rows: Sequence[dict[str, Any]], share: bool = False) -> dict[str, Any]:
    nodes = []
    for r in rows:
        node = {"name": r["name"], "node_type": r["node_type"], "status": r["status"],
                "real_time": f"{r['real_time_ms']:.3f}", "cpu_time": f"{r['cpu_time_ms']:.3f}",
                "exec_type": r["exec_type"]}
        if share:
            node["%"] = f"{r.get('share_percent', 0.0):.2f}%"
        nodes.append(node)
    return {"nodes": nodes, "total_real_time": f"{sum(r['real_time_ms'] for r in rows):.3f}",
            "total_cpu_time": f"{sum(r['cpu_time_ms'] for r in rows):.3f}"}


def _sorted_csv(rows: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["layerName", "execStatus", "layerType", "execType", "realTime (ms)", "cpuTime (ms)",
                     "proportion (%)"])
    for r in rows:
        writer.writerow([r["name"], r["status"], r["node_type"], r["exec_type"], f"{r['real_time_ms']:.3f}",
                         f"{r['cpu_time_ms']:.3f}", f"{r.get('share_percent', 0.0):.2f}%"])
    writer.writerow([])
    writer.writerow([f"Total time: {sum(r['real_time_ms'] for r in rows):.2f} milliseconds"])
    writer.writerow([f"Total CPU time: {sum(r['cpu_time_ms'] for r in rows):.2f} milliseconds"])
    return out.getvalue()


def _original_ops_csv(ops: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=SEP, lineterminator="\n")
    writer.writerow(["op", "type", "executedAs", "execType", "realTime (ms)", "proportion (%)", "sharedWith",
                     "FLOPs", "MACs", "GFLOP/s"])
    for o in ops:
        writer.writerow([o["op"], o["type"], ",".join(o["executed_as"]), ",".join(o["exec_types"]),
                         f"{o['real_time_ms']:.3f}", "" if o["share_percent"] is None else f"{o['share_percent']:.2f}",
                         ",".join(o["shared_with"]), "" if o["flops"] is None else o["flops"],
                         "" if o["macs"] is None else o["macs"],
                         "" if o["gflops_per_s"] is None else o["gflops_per_s"]])
    return out.getvalue()


def _write(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_reports(doc: dict[str, Any], folder: str | Path, *, report_type: str = "average_counters",
                  sorted_report: bool = False) -> list[Path]:
    """Write the files of the module doc into ``folder`` (created); returns their paths."""
    if report_type not in REPORT_TYPES:
        raise ValidationError(f"report type {report_type!r} is not one of {', '.join(REPORT_TYPES)}.")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    cmd, setup, results = cmd_options(doc.get("command_line", [])), configuration_setup(doc), execution_results(doc)
    written = [
        _write(out / "benchmark_report.csv", _csv_sections([("Command line parameters", cmd),
                                                             ("Configuration setup", setup),
                                                             ("Execution results", results)])),
        _write(out / "benchmark_report.json", json.dumps({"cmd_options": dict(cmd),
                                                          "configuration_setup": dict(setup),
                                                          "execution_results": dict(results)})),
        _write(out / "perf.json", json.dumps(doc, indent=1, default=str) + "\n"),
    ]
    counters = doc.get("counters") or {}
    if counters.get("available") and report_type != "no_counters":
        written += _write_counters(out, counters, report_type, sorted_report)
    return written


def _write_counters(out: Path, counters: dict[str, Any], report_type: str, sorted_report: bool) -> list[Path]:
    js: dict[str, Any]
    if report_type == "average_counters":
        csv_text = _counter_csv_block(counters["average"])
        js = {"report_type": "average", "avg_performance": _counter_json(counters["average"])}
    else:
        csv_text = "".join(_counter_csv_block(rs) for rs in counters["detailed"])
        js = {"report_type": "detailed", "detailed_performance": [_counter_json(rs) for rs in counters["detailed"]]}
    written = [_write(out / f"benchmark_{report_type}_report.csv", csv_text),
               _write(out / f"benchmark_{report_type}_report.json", json.dumps(js, indent=4)),
               _write(out / "benchmark_original_ops_report.csv", _original_ops_csv(counters["original_ops"]))]
    if sorted_report:
        written += [_write(out / "benchmark_sorted_report.csv", _sorted_csv(counters["sorted"])),
                    _write(out / "benchmark_sorted_report.json",
                           json.dumps({"report_type": "sorted",
                                       "avg_performance": _counter_json(counters["sorted"], True)}, indent=4))]
    return written


def write_error_report(folder: str | Path, device: str, model: str, error: str, argv: Sequence[str]) -> list[Path]:
    """benchmark_app's failed-run report: the command line, the topology and device, and ``error``."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    cmd = cmd_options(argv)
    setup = [("topology", model), ("target device", device)]
    results = [("error", error)]
    return [_write(out / "benchmark_report.csv", _csv_sections([("Command line parameters", cmd),
                                                                 ("Configuration setup", setup),
                                                                 ("Execution results", results)])),
            _write(out / "benchmark_report.json", json.dumps({"cmd_options": dict(cmd),
                                                              "configuration_setup": dict(setup),
                                                              "execution_results": dict(results)}))]


def _blas_text(blas: dict[str, Any]) -> str:
    text = f"{blas.get('threads')}"
    start, asked = blas.get("threads_at_start"), blas.get("requested")
    if asked is not None:
        text += f" (pinned to {asked}"
        text += ")" if blas.get("threads") == asked else "; the device set its own during the run)"
    elif start is not None and start != blas.get("threads"):
        text += f" (at start: {start})"
    return text


# -- console ------------------------------------------------------------------------------------------
def console_text(doc: dict[str, Any], *, top: int = 15) -> str:
    """benchmark_app's closing lines, then the top counters and the findings."""
    res, lat = doc["results"], doc["results"]["latency_ms"]
    p = lat["percentile"]
    lines = [f"[ INFO ] {doc['device']} / {doc['model']}: api {doc['config']['api']}, hint {doc['config']['hint']}, "
             f"{doc['config']['nireq']} request(s), inputs {doc['config']['inputs']}, "
             f"BLAS threads {_blas_text(doc['blas'])}",
             f"[ INFO ] Compile model took {res['compile_ms']:.2f} ms",
             f"[ INFO ] First inference took {res['first_inference_ms']:.2f} ms",
             *([f"[ INFO ] Warm-up of {doc['config']['nireq']} request(s) took {res['warmup_ms']:.2f} ms"]
               if res.get("warmup_ms") else []),
             f"[ INFO ] Execution Devices:{doc['device_properties'].get('EXECUTION_DEVICES', doc['device'])}",
             f"[ INFO ] Count:            {res['iterations']} iterations",
             f"[ INFO ] Duration:         {res['duration_ms']:.2f} ms",
             "[ INFO ] Latency:",
             f"[ INFO ]    {('Median' if p == 50 else f'{p} percentile') + ':':<15}{lat['at_percentile']:.2f} ms",
             f"[ INFO ]    Average:       {lat['average']:.2f} ms",
             f"[ INFO ]    Min:           {lat['min']:.2f} ms",
             f"[ INFO ]    Max:           {lat['max']:.2f} ms",
             f"[ INFO ] Throughput:   {res['throughput_fps']:.2f} FPS"]
    decode = res.get("decode")
    if decode:
        lines += [f"[ INFO ] Prefill:          {decode['prefill_ms']:.2f} ms (median of {decode['rounds']})",
                  f"[ INFO ] Decode step:      {decode['decode_median_ms']:.2f} ms (median of {decode['steps']} steps "
                  f"x {decode['rounds']}, each on the cache the runs before it filled)"]
    counters = doc.get("counters") or {}
    if counters.get("available"):
        lines.append(f"[ INFO ] Per-op counters (average over {counters['requests']} request(s), "
                     f"{counters['sort']}, top {top}):")
        for r in counters["sorted"][:top]:
            lines.append(f"    {r['name'][:28]:<28} {r['node_type'][:16]:<16} {r['exec_type'][:14]:<14} "
                         f"{r['real_time_ms']:10.3f} ms {r.get('share_percent', 0.0):6.2f}%")
        lines.append(f"    {'Total':<60} {counters['total_real_time_ms']:10.3f} ms")
    for f in doc.get("findings", []):
        lines.append(f"[ {f['status'].upper():<5}] {f['check']}: {f['message']}")
    return "\n".join(lines)
