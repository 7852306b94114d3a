"""``ovconform bench``: benchmark_app for ovconform devices.

    ovconform bench --plugin REFERENCE --model cnn -niter 200 -api sync -hint latency

benchmark_app's option names are accepted with one dash (``-d``, ``-niter``, ``-nireq``, ``-nstreams``,
``-api``, ``-hint``, ``-t``, ``-b``, ``-shape``, ``-data_shape``, ``-layout``, ``-infer_precision``,
``-load_config``, ``-dump_config``, ``-cache_dir``, ``-pc``, ``-report_type``, ``-report_folder``,
``-pcsort``, ``-latency_percentile``), with benchmark_app's meanings (see
:mod:`ovconform.bench.app_flags`), as well as in ``--long`` form. ``-load_config`` and
``-dump_config`` read and write benchmark_app's JSON (``{"CPU": {"NUM_STREAMS": "2"}}``); values
given on the command line win over the file's. Perf counters are on unless ``-pc false`` or
``--no-pc`` (a PERF_COUNT in a loaded file counts when neither is given). ``--plugin`` and
``--model`` repeat; with several devices a comparison table (ratios against the first device) is
printed and written. Files go to ``<report folder>/<DEVICE>/<model>/`` (see :mod:`ovconform.bench.report`), plus
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


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("true", "yes", "1", "y", "t"):
        return True
    if value in ("false", "no", "0", "n", "f"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


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
    p.add_argument("--plugin", "-d", action="append", default=[], metavar="X",
                   help="device plugin, as pytest --plugin takes it (repeat to compare devices); -d is "
                        "benchmark_app's spelling")
    from ovconform.bench.models import architecture_names

    p.add_argument("--model", "-m", action="append", default=[], metavar="NAME|PATH",
                   help="zoo or perf-anchor model name, 'zoo:NAME', 'anchor:NAME', a real architecture ("
                        f"{', '.join(architecture_names())}; 'arch:NAME'; 'ovconform models' describes them), a path "
                        "to an IR .xml, or 'zoo' for every zoo model, 'anchors' for the four perf anchors, "
                        "'architectures' for the quick tier's architectures (repeatable); see --list-models")
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
    p.add_argument("--decode-rounds", type=_positive_int, default=3, dest="decode_rounds",
                   help="stateful decoders: timed prefill + decode-step sequences, the state reset before each "
                        "(default 3)")
    p.add_argument("--input-pool", type=_positive_int, default=32, help="at most this many random sets (default 32)")
    p.add_argument("-data_shape", "--data-shape", default=None, dest="data_shape",
                   help="tensor shapes for dynamic inputs: [1,3,64,64] or name[1,8],other[2]; several per input "
                        "([1,8][4,8]) are used in turn")
    p.add_argument("-shape", "--shape", default=None,
                   help="reshape the model's inputs: [1,3,224,224] (every input) or name[1,3,224,224],other[1,4]; "
                        "'?' or -1 for a dynamic dimension, min..max for a bounded one")
    p.add_argument("-layout", "--layout", default=None,
                   help="input layouts for -b: [NCHW] (every input) or name[NCHW],other[NC]")
    p.add_argument("-b", "--batch-size", type=_positive_int, default=None, dest="batch_size",
                   help="batch size: the N dimension of each input's layout (from -layout, the model, or "
                        "benchmark_app's guess) is set to this value")
    p.add_argument("-infer_precision", "--infer-precision", default=None, dest="infer_precision",
                   help="INFERENCE_PRECISION_HINT: a type (f32, bf16, f16) or DEVICE:type,DEVICE:type")
    p.add_argument("-load_config", "--load-config", default=None, dest="load_config", metavar="JSON",
                   help="properties per device from benchmark_app's JSON ({\"CPU\": {\"NUM_STREAMS\": \"2\"}}); "
                        "the command line wins")
    p.add_argument("-dump_config", "--dump-config", default=None, dest="dump_config", metavar="JSON",
                   help="write the properties each device was compiled with, in benchmark_app's JSON")
    p.add_argument("-cache_dir", "--cache-dir", default=None, dest="cache_dir", metavar="DIR",
                   help="CACHE_DIR: compiled models are cached there (devices with EXPORT_IMPORT)")
    p.add_argument("-latency_percentile", "--latency-percentile", type=_percentile, default=50, dest="percentile",
                   help="latency percentile to report, 1..100 (default 50: the median)")
    p.add_argument("--no-pc", action="store_true", help="do not set PERF_COUNT (no per-op counters, no checks)")
    p.add_argument("-pc", "--perf-counts", nargs="?", const=True, default=None, type=_bool, dest="pc",
                   help="PERF_COUNT (benchmark_app's spelling; on by default here): -pc, -pc true, -pc false")
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
        elif spec == "architectures":
            from ovconform.models import architectures

            out += [a.name for a in architectures("quick")]
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
        flags = _app_flags(args, devices)
    except (ValueError, _UsageError) as e:
        print(f"ovconform bench: error: {e}", file=sys.stderr)
        return 2
    command = ["ovconform", "bench", *(argv if argv is not None else sys.argv[1:])]
    docs, status = [], 0
    dumped: dict[str, dict[str, Any]] = dict(flags.loaded)
    for dut in devices:
        for spec in specs:
            doc, code = _run_one(dut, spec, args, props, command, flags)
            if code == 2:
                return 2
            status = max(status, code)
            if doc is not None:
                docs.append(doc)
                status = max(status, _fail_status(doc, args.fail_on))
                names = _config_names(dut)
                for name in [k for k in dumped if k.upper() in {n.upper() for n in names}]:
                    del dumped[name]
                dumped[names[0]] = doc["compile_config"]
    _write_summary(docs, Path(args.report_folder))
    if args.dump_config:
        from ovconform.bench.app_flags import dump_config

        try:
            dump_config(args.dump_config, dumped)
        except ValueError as e:
            print(f"ovconform bench: error: {e}", file=sys.stderr)
            return 2
        print(f"[ INFO ] OpenVINO configuration settings were dumped to {args.dump_config}")
    return status


def _config_names(dut: Any) -> list[str]:
    """The names a device's entry may have in a -load_config file, the one -dump_config writes
    first: OpenVINO's own device name for ``openvino:X`` (as benchmark_app -d X writes it), else
    ovconform's device name; then the --plugin value."""
    spec = str(dut.spec)
    own = spec.split(":", 1)[1] if spec.lower().startswith("openvino:") else dut.name
    return list(dict.fromkeys([own, dut.name, spec]))


class _AppFlags:
    """benchmark_app's flags, parsed once for every device and model."""

    def __init__(self, loaded: dict[str, dict[str, Any]], precision: dict[str, str]) -> None:
        self.loaded = loaded
        self.precision = precision


def _app_flags(args: argparse.Namespace, devices: list[Any]) -> _AppFlags:
    from ovconform.bench.app_flags import infer_precision_per_device, load_config

    if args.pc is not None and args.no_pc:
        raise _UsageError(f"-pc {str(args.pc).lower()} and --no-pc both given; use one.")
    if args.cache_dir is not None and (not args.cache_dir or Path(args.cache_dir).exists()
                                       and not Path(args.cache_dir).is_dir()):
        raise _UsageError(f"-cache_dir {args.cache_dir!r} is not a directory (give a folder; it is created when "
                          "missing).")
    loaded = load_config(args.load_config) if args.load_config else {}
    precision = infer_precision_per_device(args.infer_precision, [d.name for d in devices]) \
        if args.infer_precision else {}
    return _AppFlags(loaded, precision)


class _UsageError(Exception):
    pass


def _devices(specs: list[str]) -> list[Any]:
    from ovconform.host.plugin_specs import PluginSpecError, resolve

    try:
        return resolve(specs)
    except PluginSpecError as e:
        raise _UsageError(str(e)) from None


def _run_one(dut: Any, spec: str, args: argparse.Namespace, props: dict[str, str],
             command: list[str], flags: _AppFlags) -> tuple[dict[str, Any] | None, int]:
    """One device on one model: (its perf document, 0), (None, 1) when the run failed, (None, 2)
    for a flag the model or the device refuses (one error line)."""
    from ovconform import Core
    from ovconform.bench import report
    from ovconform.bench.models import resolve_model
    from ovconform.bench.runner import run_benchmark
    from ovconform.errors import OVConformError

    folder = Path(args.report_folder) / _slug(dut.name) / _slug(spec if not spec.endswith(".xml") else Path(spec).stem)
    try:
        bench_model = resolve_model(spec, args.seed)
        core = Core(discover=False)
        core.register_plugin(dut.entry.factory, dut.name)
        try:
            bench_model, cfg = _configure(core, dut, bench_model, args, props, flags)
        except OVConformError as e:
            print(f"ovconform bench: error: {dut.name} / {spec}: {e}", file=sys.stderr)
            return None, 2
        result = run_benchmark(core, dut.name, bench_model, cfg, label=f"{dut.name}/{bench_model.name} ")
    except OVConformError as e:
        message = f"{type(e).__name__}: {e}"
        print(f"[ ERROR ] {dut.name} / {spec}: {message}", file=sys.stderr)
        report.write_error_report(folder, dut.name, spec, message, command)
        return None, 1
    doc = report.perf_document(result, pcsort=args.pcsort or "sort", coverage_min=args.coverage_min,
                               command_line=command)
    print(report.console_text(doc))
    paths = report.write_reports(doc, folder, report_type=args.report_type, sorted_report=args.pcsort is not None)
    if args.exec_graph:
        paths += _write_exec_graph(result, folder)
    print(f"[ INFO ] reports: {folder} ({', '.join(p.name for p in paths)})")
    return doc, 0


def _configure(core: Any, dut: Any, bench_model: Any, args: argparse.Namespace, props: dict[str, str],
               flags: _AppFlags) -> tuple[Any, Any]:
    """The model after -shape/-layout/-b and the run's BenchConfig (device entry of -load_config,
    -infer_precision, -pc, -cache_dir). Raises OVConformError for a value the model or device refuses."""
    import dataclasses

    from ovconform import properties as P
    from ovconform.bench.app_flags import apply_shapes, config_for, parse_data_shapes
    from ovconform.bench.runner import HINTS, BenchConfig
    from ovconform.errors import ValidationError

    model, warnings = apply_shapes(bench_model.model, shape=args.shape, layout=args.layout, batch=args.batch_size,
                                   data_shape_given=bool(args.data_shape))
    for warning in warnings:
        print(f"[ WARNING ] {warning}", file=sys.stderr)
    if model is not bench_model.model:  # reshaped: the example inputs no longer fit
        bench_model = dataclasses.replace(bench_model, model=model, example_inputs=None)
    data_shape = parse_data_shapes(args.data_shape, model) if args.data_shape else None
    base = config_for(flags.loaded, *_config_names(dut))
    supported = set(core.get_property(dut.name, P.SUPPORTED_PROPERTIES))
    unknown = sorted(k for k in base if k not in supported)
    if unknown:
        raise ValidationError(f"-load_config {args.load_config!r}: device {dut.name} has no propert"
                              f"{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)}; it supports "
                              f"{', '.join(sorted(supported))}.")
    hint = args.hint
    if hint is None and P.PERFORMANCE_HINT in base:
        wanted = str(base.pop(P.PERFORMANCE_HINT) or "none").lower()
        if wanted not in HINTS:
            raise ValidationError(f"-load_config {args.load_config!r}: PERFORMANCE_HINT {wanted!r} of device "
                                  f"{dut.name} is not one of {', '.join(HINTS)}.")
        hint = wanted
    perf_count = args.pc if args.pc is not None else (not args.no_pc and P.parse_value(
        P.PERF_COUNT, base.get(P.PERF_COUNT, True)))
    precision = next((flags.precision[n] for n in _config_names(dut) if n in flags.precision), None)
    if precision is not None and P.INFERENCE_PRECISION_HINT not in supported:
        raise ValidationError(f"-infer_precision {args.infer_precision!r}: device {dut.name} does not support "
                              "INFERENCE_PRECISION_HINT.")
    if args.cache_dir:
        core.set_property({P.CACHE_DIR: args.cache_dir})
    cfg = BenchConfig(api=args.api, hint=hint, nireq=args.nireq, nstreams=args.nstreams, niter=args.niter,
                      duration_s=args.duration, inputs=args.inputs, seed=args.seed, pool=args.input_pool,
                      percentile=args.percentile, perf_count=bool(perf_count), properties=props,
                      data_shape=data_shape, progress=args.progress, blas_threads=args.blas_threads,
                      infer_precision=precision, base_config=base, decode_rounds=args.decode_rounds)
    return bench_model, cfg


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
