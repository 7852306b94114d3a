"""REFERENCE speed against its anchors (../shared/perf-anchors.md), in one interleaved run.

    python benchmarks/run_anchors.py [--repeats 30] [--models mlp,cnn,...] [--out benchmarks/results/anchors.json]

Needs ``pip install -e '.[benchmarks]'`` (openvino, onnx, threadpoolctl). The anchor models are the
ones ``ovconform bench`` runs (``ovconform.bench.models.ANCHORS``); their ONNX twins come from
``to_onnx.py``. For every anchor model it times, in rounds over every runtime (blocks of
calls) so machine noise hits every runtime alike: REFERENCE (LATENCY hint), OpenVINO
CPU f32 with 1 thread and with its default threads (both reading OUR IR v11), and onnx.reference
on the equivalent ONNX model. It checks that the outputs agree (REFERENCE vs OpenVINO f32 within
the op tolerances' scale, onnx.reference likewise), prints a table of medians and ratios with the
geometric means the targets use, measures REFERENCE's THROUGHPUT-hint vs LATENCY-hint throughput
on cnn, records BLAS threads and versions, and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from to_onnx import to_onnx  # noqa: E402

import ovconform  # noqa: E402
from ovconform import Core, serialize  # noqa: E402
from ovconform.bench.models import ANCHORS as MODELS  # noqa: E402


def build(name: str) -> tuple[Any, Any, dict[str, np.ndarray]]:
    """The anchor ``name`` (one definition: ovconform.bench.models), its ONNX equivalent and
    seeded standard-normal inputs."""
    model = MODELS[name]()
    rng = np.random.default_rng(0)
    feed = {p.friendly_name: rng.standard_normal(tuple(p.get_output_partial_shape(0).to_shape())).astype(np.float32)
            for p in model.get_parameters()}
    return model, to_onnx(model), feed


#: Shortest untimed settling per turn, seconds. OpenBLAS's idle threads spin (sched_yield) for
#: 2**28 cycles, about 0.1 s here, after the previous runtime's last BLAS call, and take the core
#: another runtime's second thread needs: REFERENCE's eltwise right after onnx.reference's
#: attention timed 8.0 ms for the first 100 ms, then 5.6 ms (measured 2026-11-22).
SETTLE_SECONDS = 0.15

RUNTIMES = ("REFERENCE", "OpenVINO CPU f32 1 thread", "OpenVINO CPU f32", "onnx.reference")
#: Agreement bound between runtimes: relative to the output's magnitude.
AGREE_RTOL = 1e-4


def _reference_runner(model: Any, feed: dict[str, np.ndarray]) -> Callable[[], list[np.ndarray]]:
    compiled = Core().compile_model(model, "REFERENCE", {"PERFORMANCE_HINT": "LATENCY"})
    request = compiled.create_infer_request()
    values = [feed[p.friendly_name] for p in model.get_parameters()]

    def run() -> list[np.ndarray]:
        request.infer(values)
        return [np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))]

    return run


def _openvino_runner(model: Any, feed: dict[str, np.ndarray], threads: int | None) -> Callable[[], list[np.ndarray]]:
    import openvino as ov

    xml, weights = serialize(model)
    core = ov.Core()
    ov_model = core.read_model(model=xml, weights=ov.Tensor(np.frombuffer(weights or b"\0", np.uint8)))
    config: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    if threads:
        config["INFERENCE_NUM_THREADS"] = threads
    compiled = core.compile_model(ov_model, "CPU", config)
    request = compiled.create_infer_request()
    values = [feed[p.friendly_name] for p in model.get_parameters()]

    def run() -> list[np.ndarray]:
        request.infer(values)
        return [np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))]

    return run


def _onnx_runner(onnx_model: Any, feed: dict[str, np.ndarray]) -> Callable[[], list[np.ndarray]]:
    from onnx.reference import ReferenceEvaluator

    evaluator = ReferenceEvaluator(onnx_model)
    return lambda: [np.asarray(o) for o in evaluator.run(None, feed)]


def _agree(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    """The largest error relative to the output's largest magnitude."""
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        scale = max(float(np.max(np.abs(w))), 1e-30)
        worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w))) / scale)
    return worst


def time_models(names: list[str], repeats: int, warmup: int = 3, settle: int = 3, block: int = 5,
                settle_seconds: float = SETTLE_SECONDS) -> dict[str, Any]:
    """Median times in one interleaved run: rounds go over every runtime of every model, and in
    each round a runtime makes untimed calls (at least ``settle`` of them and for at least
    ``settle_seconds``) and then ``block`` timed ones (``repeats`` timed calls in all). Rounds
    spread machine noise over every runtime alike; the settling keeps the previous runtime's
    leftovers (OpenBLAS and OpenVINO worker threads still spinning, its cache contents) off the
    timed calls (see :data:`SETTLE_SECONDS`)."""
    runners: dict[str, dict[str, Callable[[], list[np.ndarray]]]] = {}
    agreement: dict[str, dict[str, float]] = {}
    for name in names:
        model, onnx_model, feed = build(name)
        runners[name] = {
            "REFERENCE": _reference_runner(model, feed),
            "OpenVINO CPU f32 1 thread": _openvino_runner(model, feed, 1),
            "OpenVINO CPU f32": _openvino_runner(model, feed, None),
            "onnx.reference": _onnx_runner(onnx_model, feed),
        }
        outs = {rt: run() for rt, run in runners[name].items()}
        agreement[name] = {rt: _agree(outs[rt], outs["OpenVINO CPU f32"]) for rt in RUNTIMES}
        for _ in range(warmup - 1):
            for run in runners[name].values():
                run()
    times: dict[str, dict[str, list[float]]] = {n: {rt: [] for rt in RUNTIMES} for n in names}
    for _ in range(max(1, -(-repeats // block))):  # rounds, interleaved over runtimes and models
        for name in names:
            for rt in RUNTIMES:
                calls, until = 0, time.perf_counter() + settle_seconds
                while calls < settle or time.perf_counter() < until:
                    runners[name][rt]()
                    calls += 1
                for _ in range(block):
                    t0 = time.perf_counter()
                    runners[name][rt]()
                    times[name][rt].append((time.perf_counter() - t0) * 1e3)
    medians = {n: {rt: statistics.median(ts) for rt, ts in by_rt.items()} for n, by_rt in times.items()}
    return {"medians_ms": medians, "agreement_rel_err_vs_openvino": agreement,
            "samples_ms": times}


def throughput(name: str, hint: str, seconds: float, processes: bool | None = None) -> dict[str, Any]:
    """Inferences per second of REFERENCE under ``hint`` with its optimal number of requests, all
    kept busy with start_async for ``seconds``; ``processes``: REFERENCE_PROCESS_STREAMS set so
    (None: the hint decides, worker processes under THROUGHPUT)."""
    model, _, feed = build(name)
    values = [feed[p.friendly_name] for p in model.get_parameters()]
    config: dict[str, Any] = {"PERFORMANCE_HINT": hint}
    if processes is not None:
        config["REFERENCE_PROCESS_STREAMS"] = processes
    compiled = Core().compile_model(model, "REFERENCE", config)
    processes = bool(compiled.get_property("REFERENCE_PROCESS_STREAMS"))
    n = int(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
    streams = compiled.get_property("NUM_STREAMS")
    requests = [compiled.create_infer_request() for _ in range(n)]
    finished: list[float] = []  # completion times
    lock = threading.Lock()
    stop = math.inf

    def again(request: Any) -> Callable[[Any], None]:
        def callback(_: Any) -> None:
            now = time.perf_counter()
            with lock:
                finished.append(now)
            if now < stop:
                request.start_async(values)

        return callback

    for r in requests:
        r.infer(values)  # warm-up
        r.set_callback(again(r))
    t0 = time.perf_counter()
    stop = t0 + seconds
    for r in requests:
        r.start_async(values)
    time.sleep(seconds)
    for r in requests:
        while not r.wait_for(1.0):  # the last runs, started before the stop time
            pass
    time.sleep(0.05)
    for r in requests:
        r.wait()
    with lock:
        done = len(finished)
        elapsed = max(finished) - t0
    return {"hint": hint, "processes": processes, "requests": n, "streams": str(streams), "inferences": done,
            "fps": done / elapsed}


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def environment() -> dict[str, Any]:
    env: dict[str, Any] = {
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "numpy": np.__version__, "ovconform": ovconform.__version__,
        "env": {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
                if k in os.environ},
    }
    for mod in ("openvino", "onnx", "threadpoolctl"):
        try:
            env[mod] = __import__(mod).__version__
        except ImportError:
            env[mod] = None
    try:
        from threadpoolctl import threadpool_info

        env["blas"] = [{k: i.get(k) for k in ("internal_api", "num_threads", "version", "architecture")}
                       for i in threadpool_info()]
    except ImportError:
        env["blas"] = "threadpoolctl not installed"
    return env


def _markdown(doc: dict[str, Any], table: str) -> str:
    r, env, tp = doc["ratios"], doc["environment"], doc["cnn_throughput"]
    lines = [f"# REFERENCE speed against its anchors ({doc['when']})", "",
             "Made by `python benchmarks/run_anchors.py` (medians of "
             f"{doc['repeats']} timed calls per runtime, in rounds over every runtime and model, each "
             f"turn at least {doc['settle']} untimed calls and {doc.get('settle_seconds', 0)} s, then {doc['block']} "
             "timed; ratios from one run).", "", table, "",
             f"- geomean REFERENCE / OpenVINO-CPU-f32-1-thread: **{r['geomean_reference_over_openvino_1_thread']:.2f}**"
             " (target <= 2.0)",
             f"- geomean onnx.reference / REFERENCE: **{r['geomean_onnx_reference_over_reference']:.2f}**"
             " (target >= 6)"]
    if tp:
        lines.append(f"- cnn REFERENCE THROUGHPUT / LATENCY throughput: **{tp['ratio']:.2f}** (target >= 1.5; "
                     f"{tp['THROUGHPUT']['fps']:.1f} vs {tp['LATENCY']['fps']:.1f} inferences/s; the hint's "
                     f"streams: {tp['THROUGHPUT']['streams']} worker processes)")
        if "ratio_threads" in tp:
            lines.append(f"- the same with REFERENCE_PROCESS_STREAMS=false (streams as threads): "
                         f"**{tp['ratio_threads']:.2f}** ({tp['THROUGHPUT_threads']['fps']:.1f} inferences/s)")
    lines += ["- outputs vs OpenVINO CPU f32 (max error / max |output|): "
              + ", ".join(f"{n} {max(v.values()):.1e}" for n, v in doc["agreement_rel_err_vs_openvino"].items()),
              f"- machine: {env['cpus']} CPUs, {env['machine']}; numpy {env['numpy']}, openvino {env['openvino']}, "
              f"onnx {env['onnx']}; BLAS {env['blas']}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--throughput-seconds", type=float, default=5.0)
    # 3, not 1: with one settle call the previous runtime's spinning threads still landed on the
    # clock (OpenVINO with its default threads timed slower than with one: eltwise 9.3 vs 8.9 ms;
    # with 3: 5.3 vs 8.7, and every runtime faster)
    parser.add_argument("--settle", type=int, default=3, help="untimed calls before each block (default 3)")
    parser.add_argument("--settle-seconds", type=float, default=SETTLE_SECONDS,
                        help=f"least untimed time before each block (default {SETTLE_SECONDS})")
    parser.add_argument("--block", type=int, default=5, help="timed calls per runtime per round (default 5)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "anchors.json"))
    args = parser.parse_args(argv)
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {unknown}; known: {list(MODELS)}")
    result = time_models(names, args.repeats, settle=args.settle, block=args.block,
                         settle_seconds=args.settle_seconds)
    med = result["medians_ms"]
    from tabulate import tabulate

    rows = [[n, *(f"{med[n][rt]:.3f}" for rt in RUNTIMES),
             f"{med[n]['REFERENCE'] / med[n]['OpenVINO CPU f32 1 thread']:.2f}",
             f"{med[n]['onnx.reference'] / med[n]['REFERENCE']:.2f}"] for n in names]
    ratios = {
        "geomean_reference_over_openvino_1_thread": _geomean(
            [med[n]["REFERENCE"] / med[n]["OpenVINO CPU f32 1 thread"] for n in names]),
        "geomean_onnx_reference_over_reference": _geomean(
            [med[n]["onnx.reference"] / med[n]["REFERENCE"] for n in names]),
    }
    headers = ["model", *(f"{rt} ms" for rt in RUNTIMES), "REF/OV-1t", "onnx.ref/REF"]
    print(tabulate(rows, headers=headers))
    print(f"\ngeomean REFERENCE / OpenVINO-CPU-f32-1-thread = {ratios['geomean_reference_over_openvino_1_thread']:.2f}"
          " (target <= 2.0)")
    print(f"geomean onnx.reference / REFERENCE = {ratios['geomean_onnx_reference_over_reference']:.2f}"
          " (target >= 6)")
    worst = {n: max(v for rt, v in a.items() if rt != "OpenVINO CPU f32")
             for n, a in result["agreement_rel_err_vs_openvino"].items()}
    print("outputs agree with OpenVINO CPU f32 (max error / max |output|): "
          + ", ".join(f"{n} {e:.1e}" for n, e in worst.items()))
    tp = {}
    if "cnn" in names and args.throughput_seconds > 0:
        lat = throughput("cnn", "LATENCY", args.throughput_seconds)
        thr = throughput("cnn", "THROUGHPUT", args.throughput_seconds)
        threads = throughput("cnn", "THROUGHPUT", args.throughput_seconds, processes=False)
        tp = {"LATENCY": lat, "THROUGHPUT": thr, "ratio": thr["fps"] / lat["fps"],
              "THROUGHPUT_threads": threads, "ratio_threads": threads["fps"] / lat["fps"]}
        print(f"cnn REFERENCE throughput: LATENCY {lat['fps']:.1f} fps ({lat['requests']} request(s)), THROUGHPUT "
              f"{thr['fps']:.1f} fps ({thr['requests']} requests, {thr['streams']} streams, worker processes "
              f"{thr['processes']}): ratio {tp['ratio']:.2f} (target >= 1.5); THROUGHPUT with streams as threads "
              f"{threads['fps']:.1f} fps: ratio {tp['ratio_threads']:.2f}")
    env = environment()
    from reference_plugin.fast.blas import blas_info

    env["reference_blas_after_run"] = blas_info()
    print(f"BLAS: {env['blas']} (REFERENCE sets cores // streams threads per inference)")
    doc = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "repeats": args.repeats, "settle": args.settle,
           "block": args.block, "settle_seconds": args.settle_seconds,
           "environment": env, "medians_ms": med, "ratios": ratios,
           "agreement_rel_err_vs_openvino": result["agreement_rel_err_vs_openvino"],
           "agree_within": AGREE_RTOL, "cnn_throughput": tp}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    md = out.with_suffix(".md")
    md.write_text(_markdown(doc, tabulate(rows, headers=headers, tablefmt="github")), encoding="utf-8")
    print(f"wrote {out} and {md}")
    bad = {n: e for n, e in worst.items() if e > AGREE_RTOL}
    if bad:
        print(f"OUTPUTS DISAGREE beyond {AGREE_RTOL}: {bad}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
