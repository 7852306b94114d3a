"""``ovconform bench``: benchmark_app for ovconform devices.

    ovconform bench --plugin REFERENCE --model cnn -niter 200 -api sync -hint latency

benchmark_app's option names are accepted with one dash (``-niter``, ``-nireq``, ``-nstreams``,
``-api``, ``-hint``, ``-t``, ``-report_type``, ``-report_folder``, ``-pcsort``,
``-latency_percentile``) as well as in ``--long`` form. ``--plugin`` and ``--model`` repeat; with
several devices a comparison table (ratios against the first device) is printed and written.
Files go to ``<report folder>/<DEVICE>/<model>/`` (see :mod:`ovconform.bench.report`), plus
``<report folder>/bench.html`` and, with several devices, ``comparison.csv`` / ``.json``.

Exit status: 0; 1 when a run failed or (with ``--fail-on``) a consistency finding reached the
given level; 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_bench_parser", "run_bench"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {value}")
    return value


def _percentile(text: str) -> int:
    value = _positive_int(text)
    if value > 100:
        raise argparse.ArgumentTypeError(f"the percentile must be in 1..100, got {value}")
    return value


def add_bench_parser(sub: Any) -> argparse.ArgumentParser:
    from ovconform.bench.counters import SORT_MODES
    from ovconform.bench.inputs import INPUT_MODES
    from ovconform.bench.report import REPORT_TYPES
    from ovconform.bench.runner import APIS, HINTS

    p = sub.add_parser("bench", help="benchmark a device on a model (benchmark_app's figures and reports)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--plugin", action="append", default=[], metavar="X",
                   help="device plugin, as pytest --plugin takes it (repeat to compare devices)")
    p.add_argument("--model", "-m", action="append", default=[], metavar="NAME|PATH",
                   help="zoo or perf-anchor model name, 'zoo:NAME', 'anchor:NAME', a path to an IR .xml, or 'zoo' "
                        "for every zoo model, 'anchors' for the four perf anchors (repeatable); see --list-models")
    p.add_argument("--list-models", action="store_true", help="print the model names and exit")
    p.add_argument("-api", "--api", choices=APIS, default=None, help="sync or async (default: async, or sync with "
                   "-hint latency)")
    p.add_argument("-hint", "--hint", choices=list(HINTS), default=None,
                   help="PERFORMANCE_HINT (default: throughput for async, latency for sync; none sets no hint)")
    p.add_argument("-nireq", "--nireq", type=_positive_int, default=None,
                   help="async requests (default: OPTIMAL_NUMBER_OF_INFER_REQUESTS)")
    p.add_argument("-nstreams", "--nstreams", type=_positive_int, default=None, help="NUM_STREAMS (needs -hint none)")
    p.add_argument("-niter", "--niter", type=_positive_int, default=None, help="iterations to run")
    p.add_argument("-t", "--time", type=_positive_float, default=None, dest="duration",
                   help="seconds to run (default 5 when -niter is not given; with both, the first limit reached)")
    p.add_argument("--inputs", choices=INPUT_MODES, default="fixed",
                   help="fixed: one input set (default); random: a new seeded set per iteration")
    p.add_argument("--seed", type=int, default=0, help="seed of the input values (default 0)")
    p.add_argument("--input-pool", type=_positive_int, default=32, help="at most this many random sets (default 32)")
    p.add_argument("--data-shape", default=None, help="shapes for dynamic inputs: [1,3,64,64] or name[1,8],other[2]")
    p.add_argument("-latency_percentile", "--latency-percentile", type=_percentile, default=50, dest="percentile",
                   help="latency percentile to report, 1..100 (default 50: the median)")
    p.add_argument("--no-pc", action="store_true", help="do not set PERF_COUNT (no per-op counters, no checks)")
    p.add_argument("-report_type", "--report-type", choices=REPORT_TYPES, default="average_counters",
                   dest="report_type",
                   help="counter report file to write (default average_counters)")
    p.add_argument("-pcsort", "--pcsort", choices=SORT_MODES, default=None,
                   help="also write benchmark_sorted_report.* in this order (console: sort)")
    p.add_argument("-report_folder", "--report-folder", default="reports/bench", dest="report_folder",
                   help="where the reports go (default reports/bench)")
    p.add_argument("-exec_graph", "--exec-graph", action="store_true", dest="exec_graph",
                   help="also write the runtime model (execution graph, per-node rt_info) as exec_graph.xml/.bin")
    p.add_argument("--property", action="append", default=[], metavar="KEY=VALUE",
                   help="extra compile property, e.g. INFERENCE_PRECISION_HINT=f32 (repeatable)")
    p.add_argument("--blas-threads", type=_positive_int, default=None,
                   help="pin numpy's BLAS threads before each run (the count at the start and after the run are "
                        "recorded either way; a device may set its own per inference)")
    p.add_argument("--coverage-min", type=float, default=80.0,
                   help="counter coverage (%% of latency) below which a warning is reported (default 80)")
    p.add_argument("--fail-on", choices=("never", "warning", "error"), default="never",
                   help="exit 1 when a consistency finding reaches this level (default never)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal, unless -t is under 1 s)")
    return p


def _properties(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--property {item!r} must be KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _model_specs(specs: list[str]) -> list[str]:
    from ovconform.bench.models import ANCHORS, zoo_names

    out: list[str] = []
    for spec in specs:
        if spec == "zoo":
            out += zoo_names()
        elif spec == "anchors":
            out += [n if n not in zoo_names() else f"anchor:{n}" for n in ANCHORS]
        else:
            out.append(spec)
    return list(dict.fromkeys(out))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "model"


def run_bench(args: argparse.Namespace, parser: argparse.ArgumentParser,
              argv: list[str] | None = None) -> int:
    from ovconform.bench.models import available

    if args.list_models:
        print("\n".join(available()))
        return 0
    if not args.plugin or not args.model:
        print("ovconform bench: error: --plugin and --model are required (see --list-models)", file=sys.stderr)
        return 2
    try:
        props = _properties(args.property)
        devices = _devices(args.plugin)
        specs = _model_specs(args.model)
    except (ValueError, _UsageError) as e:
        print(f"ovconform bench: error: {e}", file=sys.stderr)
        return 2
    command = ["ovconform", "bench", *(argv if argv is not None else sys.argv[1:])]
    docs, status = [], 0
    for dut in devices:
        for spec in specs:
            doc, ok = _run_one(dut, spec, args, props, command)
            status = max(status, 0 if ok else 1)
            if doc is not None:
                docs.append(doc)
                status = max(status, _fail_status(doc, args.fail_on))
    _write_summary(docs, Path(args.report_folder))
    return status


class _UsageError(Exception):
    pass


def _devices(specs: list[str]) -> list[Any]:
    from ovconform.host.plugin_specs import PluginSpecError, resolve

    try:
        return resolve(specs)
    except PluginSpecError as e:
        raise _UsageError(str(e)) from None


def _run_one(dut: Any, spec: str, args: argparse.Namespace, props: dict[str, str],
             command: list[str]) -> tuple[dict[str, Any] | None, bool]:
    from ovconform import Core
    from ovconform.bench import report
    from ovconform.bench.inputs import parse_data_shape
    from ovconform.bench.models import resolve_model
    from ovconform.bench.runner import BenchConfig, run_benchmark
    from ovconform.errors import OVConformError

    folder = Path(args.report_folder) / _slug(dut.name) / _slug(spec if not spec.endswith(".xml") else Path(spec).stem)
    try:
        bench_model = resolve_model(spec, args.seed)
        names = [p.friendly_name for p in bench_model.model.get_parameters()]
        data_shape = parse_data_shape(args.data_shape, names) if args.data_shape else None
        cfg = BenchConfig(api=args.api, hint=args.hint, nireq=args.nireq, nstreams=args.nstreams, niter=args.niter,
                          duration_s=args.duration, inputs=args.inputs, seed=args.seed, pool=args.input_pool,
                          percentile=args.percentile, perf_count=not args.no_pc, properties=props,
                          data_shape=data_shape, progress=args.progress, blas_threads=args.blas_threads)
        core = Core(discover=False)
        core.register_plugin(dut.entry.factory, dut.name)
        result = run_benchmark(core, dut.name, bench_model, cfg, label=f"{dut.name}/{bench_model.name} ")
    except OVConformError as e:
        message = f"{type(e).__name__}: {e}"
        print(f"[ ERROR ] {dut.name} / {spec}: {message}", file=sys.stderr)
        report.write_error_report(folder, dut.name, spec, message, command)
        return None, False
    doc = report.perf_document(result, pcsort=args.pcsort or "sort", coverage_min=args.coverage_min,
                               command_line=command)
    print(report.console_text(doc))
    paths = report.write_reports(doc, folder, report_type=args.report_type, sorted_report=args.pcsort is not None)
    if args.exec_graph:
        paths += _write_exec_graph(result, folder)
    print(f"[ INFO ] reports: {folder} ({', '.join(p.name for p in paths)})")
    return doc, True


def _write_exec_graph(result: Any, folder: Path) -> list[Path]:
    import ovconform

    if result.runtime_model is None:
        print(f"[ WARNING ] no execution graph: {result.runtime_error or 'counters were off (--no-pc)'}",
              file=sys.stderr)
        return []
    ovconform.serialize(result.runtime_model, folder / "exec_graph.xml")
    return [folder / "exec_graph.xml", folder / "exec_graph.bin"]


def _fail_status(doc: dict[str, Any], level: str) -> int:
    verdict = doc.get("verdict", "ok")
    if level == "error":
        return int(verdict == "error")
    if level == "warning":
        return int(verdict in ("warning", "error"))
    return 0


def _write_summary(docs: list[dict[str, Any]], folder: Path) -> None:
    from ovconform.bench.compare import comparison, comparison_csv, comparison_text
    from ovconform.reports.perf_html import perf_page

    if not docs:
        return
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bench.html").write_text(perf_page(docs), encoding="utf-8")
    if len({d["device"] for d in docs}) > 1:
        table = comparison(docs)
        print(comparison_text(table))
        (folder / "comparison.csv").write_text(comparison_csv(table), encoding="utf-8")
        (folder / "comparison.json").write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"[ INFO ] summary: {folder / 'bench.html'}")
