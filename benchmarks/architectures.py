"""REFERENCE on real ImageNet architectures (issue #26): speed against OpenVINO CPU, memory, and
the same-process penalty.

    python benchmarks/architectures.py [--models resnet50,...] [--rounds 5] [--calls 5]
                                       [--out benchmarks/results/architectures.json] [--quick]

Needs ``pip install -e '.[benchmarks]'`` (openvino). Each architecture of ``ovconform.models`` is
built once and serialized to IR v11 in a temporary folder; every measurement then runs in a
**fresh process** that reads that IR (REFERENCE through ``ovconform.read_model``, OpenVINO
through ``openvino.Core.read_model``: the same bytes), so no process pays the build and no runtime
shares a process with another (a REFERENCE process never imports openvino).

Speed: three runtimes — REFERENCE (its defaults: LATENCY hint, BLAS threads = cores), OpenVINO
CPU ``INFERENCE_PRECISION_HINT=f32`` with its default threads, and the same with
``INFERENCE_NUM_THREADS=1`` — each process compiles, makes ``--warmup`` untimed calls, then
``--calls`` timed ones and reports their median. Rounds go over every architecture and runtime,
the runtime order rotated per round, so machine noise hits every runtime alike. The figure is
the **median of the per-process medians** (a process that lands next to a noisy neighbour is
one vote of ``--rounds``; the minimum would reward whichever runtime varies most).

Memory (in the REFERENCE processes): RSS after compile and warm-up, then the high-water mark
reset (``/proc/self/clear_refs`` ← "5"), the timed inferences, VmHWM read from
``/proc/self/status``; nothing subtracted (the interpreter, numpy and ovconform are in it). The
budget is computed from the graph: bytes of Constants plus the largest sum of bytes of values
alive at once over the model's topological order, a value released after its last reader (as
REFERENCE's program does).

Same-process penalty: one process compiles the model on REFERENCE and on OpenVINO CPU (f32,
default threads) and alternates, ``--penalty-rounds`` times: REFERENCE alone (after a 0.5 s
pause: OpenVINO's workers asleep), then OpenVINO for ``--calls`` inferences and REFERENCE right
after (its workers just busy). The ratio is median(right after) / median(alone).

Per-op split (``--perop``): REFERENCE with PERF_COUNT, real time summed by op type, in its own
process per architecture, with OpenVINO CPU's total from its counters.

``--quick`` (for the test that keeps this script from rotting): two small architectures at a
64x64 input (their builders' ``size``), one round, one timed call.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np

HERE = Path(__file__).resolve().parent
#: The architectures measured by default, and the ones the issue named first.
DEFAULT_MODELS = ("resnet50", "densenet121", "inception_v2", "shufflenet_v2", "mobilenet_v3_small",
                  "efficientnet_b0")
QUICK_MODELS = ("shufflenet_v2", "mobilenet_v3_small")
QUICK_SIZE = 64
RUNTIMES = ("REFERENCE", "OpenVINO CPU f32", "OpenVINO CPU f32 1 thread")
#: Result keys of each runtime (JSON-friendly).
KEYS = {"REFERENCE": "reference", "OpenVINO CPU f32": "openvino", "OpenVINO CPU f32 1 thread": "openvino_1t"}
ALONE_PAUSE_S = 0.5
#: The protocol the committed results should come from (a quiet machine, every default).
COMMITTED_COMMAND = "python benchmarks/architectures.py --perop"


# -- the child processes --------------------------------------------------------------------------

def _status_kib(field: str) -> int | None:
    """``field`` of /proc/self/status in KiB (None off Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_hwm() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _feed(folder: Path) -> np.ndarray:
    return np.load(folder / "input.npy", allow_pickle=False)


def _reference_request(folder: Path, perf_count: bool = False) -> Any:
    from ovconform import Core, read_model

    model = read_model(folder / "model.xml", folder / "model.bin")
    config: dict[str, Any] = {"PERFORMANCE_HINT": "LATENCY"}
    if perf_count:
        config["PERF_COUNT"] = True
    return Core().compile_model(model, "REFERENCE", config).create_infer_request()


def _openvino_request(folder: Path, threads: int | None, perf_count: bool = False) -> Any:
    import openvino as ov

    core = ov.Core()
    config: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    if threads:
        config["INFERENCE_NUM_THREADS"] = threads
    if perf_count:
        config["PERF_COUNT"] = True
    compiled = core.compile_model(core.read_model(str(folder / "model.xml")), "CPU", config)
    return compiled.create_infer_request()


def _timed(request: Any, x: np.ndarray, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        request.infer([x])
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def child_time(folder: Path, runtime: str, warmup: int, calls: int) -> dict[str, Any]:
    x = _feed(folder)
    empty = None
    if runtime == "REFERENCE":
        import reference_plugin.plugin  # noqa: F401  (the interpreter with everything REFERENCE imports)

        empty = _status_kib("VmRSS")
        request = _reference_request(folder)
    else:
        request = _openvino_request(folder, 1 if runtime.endswith("1 thread") else None)
    for _ in range(warmup):
        request.infer([x])
    out: dict[str, Any] = {"runtime": runtime}
    if runtime == "REFERENCE":
        out["rss_empty_kib"] = empty
        out["rss_before_kib"] = _status_kib("VmRSS")
        out["hwm_reset"] = _reset_hwm()
    out["ms"] = _timed(request, x, calls)
    if runtime == "REFERENCE":
        out["hwm_kib"] = _status_kib("VmHWM")
        out["openvino_loaded"] = "openvino" in sys.modules
    return out


def child_penalty(folder: Path, rounds: int, calls: int) -> dict[str, Any]:
    x = _feed(folder)
    ref = _reference_request(folder)
    ov = _openvino_request(folder, None)
    for _ in range(2):
        ref.infer([x])
        ov.infer([x])
    alone: list[float] = []
    after: list[float] = []
    for _ in range(rounds):
        time.sleep(ALONE_PAUSE_S)
        alone += _timed(ref, x, calls)
        for _ in range(calls):
            ov.infer([x])
        after += _timed(ref, x, calls)
    return {"alone_ms": alone, "after_openvino_ms": after}


def child_perop(folder: Path, warmup: int, calls: int) -> dict[str, Any]:
    x = _feed(folder)
    ref = _reference_request(folder, perf_count=True)
    for _ in range(warmup):
        ref.infer([x])
    by_type: dict[str, float] = {}
    by_node: dict[str, tuple[str, float]] = {}
    wall = []
    for _ in range(calls):
        t0 = time.perf_counter()
        ref.infer([x])
        wall.append((time.perf_counter() - t0) * 1e3)
        for p in ref.get_profiling_info():
            ms = p.real_time.total_seconds() * 1e3 / calls
            by_type[p.node_type] = by_type.get(p.node_type, 0.0) + ms
            prev = by_node.get(p.node_name, (p.node_type, 0.0))
            by_node[p.node_name] = (p.node_type, prev[1] + ms)
    ov = _openvino_request(folder, None, perf_count=True)
    for _ in range(warmup):
        ov.infer([x])
    ov_wall = _timed(ov, x, calls)
    ov_types: dict[str, float] = {}
    for p in ov.get_profiling_info():
        ov_types[p.node_type] = ov_types.get(p.node_type, 0.0) + p.real_time.total_seconds() * 1e3
    top = sorted(by_node.items(), key=lambda kv: -kv[1][1])[:8]
    return {"reference_wall_ms": statistics.median(wall), "reference_by_type_ms": by_type,
            "reference_top_nodes_ms": [[n, t, ms] for n, (t, ms) in top],
            "openvino_wall_ms": statistics.median(ov_wall), "openvino_by_exec_type_ms": ov_types}


def _child_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("time", "penalty", "perop"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--runtime", choices=RUNTIMES, default="REFERENCE")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.mode == "time":
        out = child_time(args.folder, args.runtime, args.warmup, args.calls)
    elif args.mode == "penalty":
        out = child_penalty(args.folder, args.rounds, args.calls)
    else:
        out = child_perop(args.folder, args.warmup, args.calls)
    print("RESULT " + json.dumps(out))
    return 0


def _spawn(*args: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *args], capture_output=True,
                          text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"child {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
    return result


# -- the parent: build, budget, schedule ------------------------------------------------------------

def memory_budget(model: Any) -> dict[str, int]:
    """``weights``: bytes of every Constant; ``activations``: the largest sum of bytes of values
    alive at once over ``model.get_ordered_ops()`` (a node's outputs live from the node until
    their last reader has run; while a node runs, its inputs and outputs are alive together;
    Result outputs are the values they read, held to the end)."""
    order = model.get_ordered_ops()
    last: dict[tuple[int, int], int] = {}
    for pos, node in enumerate(order):
        for v in node.input_values():
            last[(id(v.node), v.index)] = pos
    held = {(id(v.node), v.index) for r in model.get_results() for v in r.input_values()}

    def nbytes(node: Any, i: int) -> int:
        shape = node.get_output_partial_shape(i).to_shape()
        return int(math.prod(shape)) * node.get_output_element_type(i).bitwidth // 8

    weights = sum(nbytes(n, 0) for n in order if n.type_name == "Constant")
    live: dict[tuple[int, int], int] = {}
    peak = 0
    for pos, node in enumerate(order):
        if node.type_name in ("Constant", "Result"):
            continue
        for i in range(node.get_output_size()):
            live[(id(node), i)] = nbytes(node, i)
        peak = max(peak, sum(live.values()))
        for key in [k for k in live if last.get(k, -1) <= pos and k not in held]:
            del live[key]
    return {"weights": weights, "activations": peak, "budget": weights + peak}


def prepare(names: list[str], size: int | None, root: Path) -> dict[str, dict[str, Any]]:
    """Build each architecture, serialize it to ``root/name/model.{xml,bin}`` with its input."""
    from ovconform import models, serialize

    info: dict[str, dict[str, Any]] = {}
    for name in names:
        arch = models.get(name)
        t0 = time.perf_counter()
        model = arch.build() if size is None else cast(Callable[[int], Any], arch.build)(size)
        build_s = time.perf_counter() - t0
        folder = root / name
        folder.mkdir(parents=True)
        xml, weights = serialize(model)
        (folder / "model.xml").write_bytes(xml.encode() if isinstance(xml, str) else xml)
        (folder / "model.bin").write_bytes(weights or b"")
        feed = arch.make_steps(model)[0]
        (x,) = feed.values()
        np.save(folder / "input.npy", x, allow_pickle=False)
        info[name] = {"folder": folder, "build_s": build_s, "input_shape": list(x.shape), **memory_budget(model)}
    return info


def environment() -> dict[str, Any]:
    import openvino

    import ovconform

    env: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine(),
                           "cpus": os.cpu_count(), "numpy": np.__version__, "openvino": openvino.__version__,
                           "ovconform": ovconform.__version__, "load_average_at_start": os.getloadavg(),
                           "env": {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                              "MKL_NUM_THREADS") if k in os.environ}}
    try:
        cpu = Path("/proc/cpuinfo").read_text()
        env["cpu_model"] = next((ln.split(":", 1)[1].strip() for ln in cpu.splitlines()
                                 if ln.startswith("model name")), None)
        env["avx512f"] = " avx512f " in cpu
    except OSError:
        pass
    try:
        from threadpoolctl import threadpool_info

        env["blas"] = [{k: i.get(k) for k in ("internal_api", "num_threads", "version", "architecture")}
                       for i in threadpool_info()]
    except ImportError:
        env["blas"] = "threadpoolctl not installed"
    return env


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def _mib(kib: float | None) -> float | None:
    return None if kib is None else kib / 1024


def run(names: list[str], rounds: int, calls: int, warmup: int, penalty_rounds: int, size: int | None,
        perop: bool, log: Any = print) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ovconform-arch-") as tmp:
        info = prepare(names, size, Path(tmp))
        per: dict[str, dict[str, Any]] = {n: {"samples": {KEYS[r]: [] for r in RUNTIMES}, "rss_before_kib": [],
                                              "rss_empty_kib": [], "hwm_kib": []} for n in names}
        for rnd in range(rounds):
            order = RUNTIMES[rnd % len(RUNTIMES):] + RUNTIMES[:rnd % len(RUNTIMES)]
            for name in names:
                for rt in order:
                    res = _spawn("time", str(info[name]["folder"]), "--runtime", rt, "--warmup", str(warmup),
                                 "--calls", str(calls))
                    per[name]["samples"][KEYS[rt]].append(statistics.median(res["ms"]))
                    if rt == "REFERENCE":
                        if res["openvino_loaded"]:
                            raise RuntimeError("the REFERENCE process loaded openvino")
                        per[name]["rss_before_kib"].append(res["rss_before_kib"])
                        per[name]["rss_empty_kib"].append(res["rss_empty_kib"])
                        per[name]["hwm_kib"].append(res["hwm_kib"] if res["hwm_reset"] else None)
                log(f"round {rnd + 1}/{rounds} {name}: " + ", ".join(
                    f"{k} {v[-1]:.1f} ms" for k, v in per[name]["samples"].items()))
        for name in names:
            p = per[name]
            p["ms"] = {k: statistics.median(v) for k, v in p["samples"].items()}
            p["best_ms"] = {k: min(v) for k, v in p["samples"].items()}
            hwm = [h for h in p["hwm_kib"] if h is not None]
            p["peak_rss_mib"] = _mib(statistics.median(hwm)) if hwm else None
            p["rss_before_mib"] = _mib(statistics.median(p["rss_before_kib"]))
            p["rss_empty_mib"] = _mib(statistics.median(p["rss_empty_kib"]))
            for key in ("weights", "activations", "budget", "input_shape", "build_s"):
                p[key] = info[name][key]
            p["budget_mib"] = info[name]["budget"] / 2 ** 20
            p["peak_over_budget"] = None if p["peak_rss_mib"] is None else p["peak_rss_mib"] / p["budget_mib"]
            # for reading only (the target's figure subtracts nothing): the peak above the process
            # with everything imported and no model read
            p["model_peak_over_budget"] = (None if p["peak_rss_mib"] is None or p["rss_empty_mib"] is None
                                           else (p["peak_rss_mib"] - p["rss_empty_mib"]) / p["budget_mib"])
            p["ratio_openvino"] = p["ms"]["reference"] / p["ms"]["openvino"]
            p["ratio_openvino_1t"] = p["ms"]["reference"] / p["ms"]["openvino_1t"]
        for name in names:
            res = _spawn("penalty", str(info[name]["folder"]), "--rounds", str(penalty_rounds), "--calls",
                         str(calls))
            alone, after = statistics.median(res["alone_ms"]), statistics.median(res["after_openvino_ms"])
            per[name]["same_process"] = {**res, "alone_median_ms": alone, "after_openvino_median_ms": after,
                                         "ratio": after / alone}
            log(f"same process {name}: alone {alone:.1f} ms, right after OpenVINO {after:.1f} ms")
        if perop:
            for name in names:
                per[name]["perop"] = _spawn("perop", str(info[name]["folder"]), "--warmup", str(warmup),
                                            "--calls", str(calls))
    geo = {"reference_over_openvino": _geomean([per[n]["ratio_openvino"] for n in names]),
           "reference_over_openvino_1t": _geomean([per[n]["ratio_openvino_1t"] for n in names]),
           "same_process_ratio": _geomean([per[n]["same_process"]["ratio"] for n in names])}
    ratios = [per[n]["peak_over_budget"] for n in names if per[n]["peak_over_budget"] is not None]
    geo["peak_over_budget"] = _geomean(ratios)
    return {"architectures": per, "geomeans": geo}


# -- reports ---------------------------------------------------------------------------------------

def table(doc: dict[str, Any]) -> str:
    rows = ["| architecture | REFERENCE ms | OV f32 ms | OV f32 1-thread ms | REF/OV | REF/OV-1t | RSS before MiB "
            "| peak RSS MiB | budget MiB (weights + activations) | peak/budget | same-process ratio "
            "| RSS no model MiB | (peak - no model)/budget |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def f(v: float | None, d: int = 1) -> str:
        return "n/a" if v is None else f"{v:.{d}f}"

    for name, p in doc["architectures"].items():
        ms = p["ms"]
        rows.append(f"| {name} | {f(ms['reference'])} | {f(ms['openvino'])} | {f(ms['openvino_1t'])} | "
                    f"{f(p['ratio_openvino'], 2)} | {f(p['ratio_openvino_1t'], 2)} | {f(p['rss_before_mib'])} | "
                    f"{f(p['peak_rss_mib'])} | {f(p['budget_mib'])} ({p['weights'] / 2 ** 20:.1f} + "
                    f"{p['activations'] / 2 ** 20:.1f}) | {f(p['peak_over_budget'], 2)} | "
                    f"{f(p['same_process']['ratio'], 2)} | {f(p['rss_empty_mib'])} | "
                    f"{f(p['model_peak_over_budget'], 2)} |")
    g = doc["geomeans"]
    rows.append(f"| **geomean** | | | | **{g['reference_over_openvino']:.2f}** | "
                f"**{g['reference_over_openvino_1t']:.2f}** | | | | **{g['peak_over_budget']:.2f}** | "
                f"**{g['same_process_ratio']:.2f}** | | |")
    return "\n".join(rows)


def perop_markdown(doc: dict[str, Any], top: int = 8) -> str:
    lines = []
    for name, p in doc["architectures"].items():
        po = p.get("perop")
        if not po:
            continue
        total = sum(po["reference_by_type_ms"].values())
        lines += [f"### {name}: REFERENCE {po['reference_wall_ms']:.1f} ms wall (counters sum {total:.1f} ms), "
                  f"OpenVINO CPU f32 {po['openvino_wall_ms']:.1f} ms", "",
                  "| op type | REFERENCE ms | share |", "|---|---|---|"]
        for t, ms in sorted(po["reference_by_type_ms"].items(), key=lambda kv: -kv[1])[:top]:
            lines.append(f"| {t} | {ms:.1f} | {100 * ms / total:.0f}% |")
        lines += ["", "Slowest nodes: " + "; ".join(f"{n} ({t}) {ms:.1f} ms" for n, t, ms in
                                                   po["reference_top_nodes_ms"]), ""]
    return "\n".join(lines)


def markdown(doc: dict[str, Any]) -> str:
    env, proto = doc["environment"], doc["protocol"]
    lines = [f"# REFERENCE on real architectures ({doc['when']})", "",
             f"Made by `{doc['command']}`. The committed protocol, to rerun on a quiet machine: "
             f"`{COMMITTED_COMMAND}`.", "",
             f"Machine: {env['cpus']} CPUs ({env.get('cpu_model')}, AVX-512 {env.get('avx512f')}), numpy "
             f"{env['numpy']}, openvino {env['openvino']}, BLAS {env['blas']}; load average at start "
             f"{', '.join(f'{v:.1f}' for v in env['load_average_at_start'])}.", "",
             f"Protocol: each figure in its own fresh process reading the model's IR v11 (built once, serialized to "
             f"a temporary folder); {proto['warmup']} untimed then {proto['calls']} timed inferences per process; "
             f"{proto['rounds']} rounds over every architecture and runtime, the runtime order rotated per round; "
             "ms = the median of the per-process medians (best per-process medians in the JSON). REFERENCE runs "
             "its defaults (LATENCY hint, BLAS threads = cores); OpenVINO CPU reads the same IR with "
             "INFERENCE_PRECISION_HINT=f32, default threads or INFERENCE_NUM_THREADS=1. Peak RSS: VmHWM of the "
             "REFERENCE process over its timed inferences, the mark reset after compile and warm-up "
             "(/proc/self/clear_refs), nothing subtracted (the interpreter, numpy and ovconform are in it: "
             "compare the RSS before, and the last two columns: the RSS of the same process with everything "
             "imported and no model read, and the peak above it, for reading only). Budget: Constant bytes + "
             "the largest bytes alive at once in the model's "
             "topological order, values released after their last reader. Same-process ratio: in one process, "
             f"{proto['penalty_rounds']} times REFERENCE alone (after {ALONE_PAUSE_S} s idle) then OpenVINO CPU "
             f"{proto['calls']} inferences and REFERENCE right after; median(after) / median(alone).", ""]
    if doc.get("note"):
        lines += [doc["note"], ""]
    lines += [table(doc), "",
              "Targets (issue #26): geomean REF/OV <= 2.0, peak/budget <= 1.5, same-process ratio <= 1.3.", ""]
    po = perop_markdown(doc)
    if po:
        lines += ["## Where REFERENCE's time goes (PERF_COUNT, per op type)", "", po]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        return _child_main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5, help="timed inferences per process (default 5)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--penalty-rounds", type=int, default=5)
    parser.add_argument("--perop", action="store_true", help="add REFERENCE's per-op-type time split")
    parser.add_argument("--note", default="", help="a sentence for the results file (e.g. the machine's load)")
    parser.add_argument("--quick", action="store_true",
                        help=f"{', '.join(QUICK_MODELS)} at {QUICK_SIZE}x{QUICK_SIZE}, 1 round, 1 call")
    parser.add_argument("--out", default=str(HERE / "results" / "architectures.json"))
    args = parser.parse_args(argv)
    from ovconform import models

    known = [a.name for a in models.ARCHITECTURES]
    names = list(QUICK_MODELS) if args.quick else [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown architecture(s) {unknown}; known: {known}")
    if args.quick:
        args.rounds, args.calls, args.warmup, args.penalty_rounds = 1, 1, 1, 1
    size = QUICK_SIZE if args.quick else None
    result = run(names, args.rounds, args.calls, args.warmup, args.penalty_rounds, size, args.perop)
    doc = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "command": "python benchmarks/architectures.py " + " ".join(argv),
           "environment": environment(), "note": args.note,
           "protocol": {"rounds": args.rounds, "calls": args.calls, "warmup": args.warmup,
                        "penalty_rounds": args.penalty_rounds, "input_size": size or "architecture's own",
                        "statistic": "median of per-process medians"},
           **result}
    print(table(doc))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(doc), encoding="utf-8")
    print(f"wrote {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
