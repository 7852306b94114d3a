"""REFERENCE on the real architectures of ``ovconform.models`` (issues #24 and #26): time per
inference against OpenVINO CPU, memory, and the same-process penalty.

    python benchmarks/architectures.py [--models default|NAME,...] [--rounds 5] [--calls 5]
                                       [--out benchmarks/results/architectures.json] [--quick]

Needs ``pip install -e '.[benchmarks]'`` (openvino). ``--models`` takes architecture names
(``ovconform models`` lists them) and ``default``: every architecture of the quick and full tiers
except ``llama_decoder_1b`` (1.1B weights: building and serializing it needs ~10 GB, so it runs
only when named). Each architecture is built once and serialized to IR v11 in a temporary
folder with the inputs the model suite feeds it (``Architecture.make_steps``: an image, token ids
and a padding mask, a decoder's 32-token prefill and 16 one-token decode steps); every
measurement then runs in a **fresh process** that reads that IR (REFERENCE through
``ovconform.read_model``, OpenVINO through ``openvino.Core.read_model``: the same bytes), so no
process pays the build and no runtime shares a process with another (a REFERENCE process never
imports openvino).

A run is the model suite's steps in turn on one request (``ovconform.bench.steps.time_steps``,
the code ``ovconform bench`` times a decoder with): each step's inputs are set (not timed), then
``infer()`` is timed; a stateful model (a decoder's ReadValue/Assign KV cache) has its state reset
before each run, so every run is a prefill on an empty cache and the decode steps on the cache it
fills. The time per inference of a run is its time over its steps (a one-step model: its one
inference); a decoder also reports its prefill and the median of its decode steps.

Speed: three runtimes — REFERENCE (its defaults: LATENCY hint, BLAS threads = cores), OpenVINO
CPU ``INFERENCE_PRECISION_HINT=f32`` with its default threads, and the same with
``INFERENCE_NUM_THREADS=1`` — each process compiles, makes ``--warmup`` untimed runs, then
``--calls`` timed ones and reports their median. Rounds go over every architecture and runtime,
the runtime order rotated per round, so machine noise hits every runtime alike. The figure is
the **median of the per-process medians** (a process that lands next to a noisy neighbour is
one vote of ``--rounds``; the minimum would reward whichever runtime varies most).

Memory (in the REFERENCE processes): RSS after compile and warm-up, then the high-water mark
reset (``/proc/self/clear_refs`` ← "5"), the timed runs, VmHWM read from
``/proc/self/status``; nothing subtracted (the interpreter, numpy and ovconform are in it). The
budget is computed from the graph: bytes of Constants plus the largest sum of bytes of values
alive at once over the model's topological order, a value released after its last reader (as
REFERENCE's program does); a model with dynamic shapes is measured at the shapes of each of its
steps (one REFERENCE probe run per step, state carried), the largest step counting.

Same-process penalty: one process compiles the model on REFERENCE and on OpenVINO CPU (f32,
default threads), warms both up (``--warmup`` runs each) and alternates, ``--penalty-rounds``
times: REFERENCE alone (after a 0.5 s pause: OpenVINO's workers asleep), then OpenVINO for
``--calls`` runs and REFERENCE right after (its workers just busy). The ratio is
median(right after) / median(alone).

Per-op split (``--perop``): REFERENCE with PERF_COUNT, real time summed by op type over every
inference of the timed runs (per inference), in its own process per architecture, with OpenVINO
CPU's total from its counters.

``--quick`` (for the test that keeps this script from rotting): ShuffleNet v2 at a 64x64 input
(its builder's ``size``) and the Llama-style decoder (token ids, stateful: prefill and decode
steps), one round, one timed run.
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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np

HERE = Path(__file__).resolve().parent
#: Needs ~10 GB to build and serialize: measured only when named in ``--models``.
OPT_IN = ("llama_decoder_1b", "llama_decoder_1b_u4", "llama_decoder_1b_i4")
#: The architectures issue #26 measured first (ImageNet classifiers): their geomeans stay reported apart.
ISSUE26_MODELS = ("resnet50", "densenet121", "inception_v2", "shufflenet_v2", "mobilenet_v3_small",
                  "efficientnet_b0")
#: ``--quick``: each architecture with its builder's size argument (None: the builder's own size).
QUICK_MODELS: dict[str, int | None] = {"shufflenet_v2": 64, "llama_decoder": None}
RUNTIMES = ("REFERENCE", "OpenVINO CPU f32", "OpenVINO CPU f32 1 thread")
#: Result keys of each runtime (JSON-friendly).
KEYS = {"REFERENCE": "reference", "OpenVINO CPU f32": "openvino", "OpenVINO CPU f32 1 thread": "openvino_1t"}
ALONE_PAUSE_S = 0.5
#: The protocol the committed results should come from (a quiet machine, every default).
COMMITTED_COMMAND = "python benchmarks/architectures.py --perop"


def default_models() -> list[str]:
    """Every architecture of the quick and full tiers but the opt-in ones, in zoo order."""
    from ovconform import models

    return [a.name for a in models.architectures("full") if a.name not in OPT_IN]


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


def _steps(folder: Path) -> tuple[list[dict[str, np.ndarray]], bool]:
    """The inputs of each step (by parameter name) and whether the model is stateful."""
    meta = json.loads((folder / "steps.json").read_text())
    with np.load(folder / "steps.npz", allow_pickle=False) as arrays:
        steps = [{name: arrays[f"step{i}.{name}"] for name in meta["inputs"]} for i in range(meta["steps"])]
    return steps, bool(meta["stateful"])


class _Runs:
    """A request of one runtime with each step's inputs ready as that runtime's tensors, by the
    position of the parameter of that name in the model the runtime read."""

    def __init__(self, request: Any, names: list[str], make_tensor: Callable[[np.ndarray], Any],
                 steps: list[dict[str, np.ndarray]], stateful: bool) -> None:
        self.request, self.stateful = request, stateful
        self.tensors = [[(i, make_tensor(np.ascontiguousarray(step[n]))) for i, n in enumerate(names)]
                        for step in steps]

    def set_step(self, step: int) -> None:
        for index, tensor in self.tensors[step]:
            self.request.set_input_tensor(index, tensor)

    def run(self, calls: int, warmup: int = 0, after: Callable[[int], None] | None = None) -> list[list[float]]:
        """``warmup`` untimed then ``calls`` timed runs of every step (ms per step per run)."""
        from ovconform.bench.steps import time_steps

        return time_steps(self.request, self.set_step, len(self.tensors), calls, warmup=warmup,
                          reset=self.stateful, after=after)


def _per_inference(runs: list[list[float]]) -> list[float]:
    """Each run's time over its steps (ms per inference)."""
    return [sum(r) / len(r) for r in runs]


def _reference_runs(folder: Path, perf_count: bool = False) -> _Runs:
    from ovconform import Core, Tensor, read_model

    model = read_model(folder / "model.xml", folder / "model.bin")
    config: dict[str, Any] = {"PERFORMANCE_HINT": "LATENCY"}
    if perf_count:
        config["PERF_COUNT"] = True
    request = Core().compile_model(model, "REFERENCE", config).create_infer_request()
    steps, stateful = _steps(folder)
    return _Runs(request, [p.friendly_name for p in model.get_parameters()], Tensor, steps, stateful)


def _openvino_runs(folder: Path, threads: int | None, perf_count: bool = False) -> _Runs:
    import openvino as ov

    core = ov.Core()
    config: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    if threads:
        config["INFERENCE_NUM_THREADS"] = threads
    if perf_count:
        config["PERF_COUNT"] = True
    model = core.read_model(str(folder / "model.xml"))
    request = core.compile_model(model, "CPU", config).create_infer_request()
    steps, stateful = _steps(folder)
    return _Runs(request, [p.get_friendly_name() for p in model.get_parameters()], ov.Tensor, steps, stateful)


def _timing(runs: list[list[float]], stateful: bool) -> dict[str, Any]:
    """What a time child reports of its timed runs."""
    from ovconform.bench.steps import decode_summary

    out: dict[str, Any] = {"ms": _per_inference(runs), "steps": len(runs[0]),
                           "step_ms": [statistics.median(r[i] for r in runs) for i in range(len(runs[0]))]}
    if stateful and len(runs[0]) > 1:
        out["decode"] = decode_summary(runs)
    return out


def child_time(folder: Path, runtime: str, warmup: int, calls: int) -> dict[str, Any]:
    empty = None
    if runtime == "REFERENCE":
        import reference_plugin.plugin  # noqa: F401  (the interpreter with everything REFERENCE imports)

        empty = _status_kib("VmRSS")
        runner = _reference_runs(folder)
    else:
        runner = _openvino_runs(folder, 1 if runtime.endswith("1 thread") else None)
    if warmup:
        runner.run(warmup)
    out: dict[str, Any] = {"runtime": runtime}
    if runtime == "REFERENCE":
        out["rss_empty_kib"] = empty
        out["rss_before_kib"] = _status_kib("VmRSS")
        out["hwm_reset"] = _reset_hwm()
    out.update(_timing(runner.run(calls), runner.stateful))
    if runtime == "REFERENCE":
        out["hwm_kib"] = _status_kib("VmHWM")
        out["openvino_loaded"] = "openvino" in sys.modules
    return out


def child_penalty(folder: Path, rounds: int, calls: int, warmup: int = 2) -> dict[str, Any]:
    ref = _reference_runs(folder)
    ov = _openvino_runs(folder, None)
    for _ in range(warmup):
        ref.run(1)
        ov.run(1)
    alone: list[float] = []
    after: list[float] = []
    for _ in range(rounds):
        time.sleep(ALONE_PAUSE_S)
        alone += _per_inference(ref.run(calls))
        ov.run(calls)
        after += _per_inference(ref.run(calls))
    return {"alone_ms": alone, "after_openvino_ms": after}


def _counters(request: Any, by_type: dict[str, float], by_node: dict[str, tuple[str, float]] | None,
              scale: float) -> Callable[[int], None]:
    """An ``after`` hook adding the last inference's profiling info (ms times ``scale``) by op type
    (and by node)."""
    def add(_step: int) -> None:
        for p in request.get_profiling_info():
            ms = p.real_time.total_seconds() * 1e3 * scale
            by_type[p.node_type] = by_type.get(p.node_type, 0.0) + ms
            if by_node is not None:
                prev = by_node.get(p.node_name, (p.node_type, 0.0))
                by_node[p.node_name] = (p.node_type, prev[1] + ms)
    return add


def child_perop(folder: Path, warmup: int, calls: int) -> dict[str, Any]:
    ref = _reference_runs(folder, perf_count=True)
    per_run = 1.0 / (calls * len(ref.tensors))  # the counters per inference
    if warmup:
        ref.run(warmup)
    by_type: dict[str, float] = {}
    by_node: dict[str, tuple[str, float]] = {}
    wall = _per_inference(ref.run(calls, after=_counters(ref.request, by_type, by_node, per_run)))
    ov = _openvino_runs(folder, None, perf_count=True)
    if warmup:
        ov.run(warmup)
    ov_types: dict[str, float] = {}
    ov_wall = _per_inference(ov.run(calls, after=_counters(ov.request, ov_types, None, per_run)))
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
        out = child_penalty(args.folder, args.rounds, args.calls, args.warmup)
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

Shapes = dict[tuple[int, int], tuple[int, ...]]


def memory_budget(model: Any, shapes: list[Shapes] | None = None) -> dict[str, int]:
    """``weights``: bytes of every Constant (those of If/Loop bodies too); ``activations``: the
    largest sum of bytes of values alive at once over ``model.get_ordered_ops()`` (a node's
    outputs live from the node until their last reader has run; while a node runs, its inputs and
    outputs are alive together; Result outputs are the values they read, held to the end, and so
    are the values an Assign stores for the next run; the values inside a control-flow body are
    not counted).

    :param shapes: for a model with dynamic shapes, the shape of every output ``(id(node), index)``
        at each step (:func:`step_shapes`); the activations are the largest over the steps.
        None: the model's static shapes.
    """
    order = model.get_ordered_ops()
    last: dict[tuple[int, int], int] = {}
    for pos, node in enumerate(order):
        for v in node.input_values():
            last[(id(v.node), v.index)] = pos
    held = {(id(v.node), v.index) for r in [*model.get_results(), *model.get_sinks()] for v in r.input_values()}

    def nbytes(node: Any, i: int, at: Shapes | None) -> int:
        shape = at.get((id(node), i)) if at is not None else None
        if shape is None:  # a static shape (the model's, or a Constant-only subgraph's: not probed)
            shape = node.get_output_partial_shape(i).to_shape()
        return int(math.prod(shape)) * node.get_output_element_type(i).bitwidth // 8

    from ovconform.ir._subgraph import all_nodes

    weights = sum(nbytes(n, 0, None) for n in all_nodes(model) if n.type_name == "Constant")
    peak = 0
    each: list[Shapes | None] = list(shapes) if shapes else [None]
    for at in each:
        live: dict[tuple[int, int], int] = {}
        for pos, node in enumerate(order):
            if node.type_name in ("Constant", "Result", "Assign"):
                continue
            for i in range(node.get_output_size()):
                live[(id(node), i)] = nbytes(node, i, at)
            peak = max(peak, sum(live.values()))
            for key in [k for k in live if last.get(k, -1) <= pos and k not in held]:
                del live[key]
    return {"weights": weights, "activations": peak, "budget": weights + peak}


def step_shapes(model: Any, steps: list[dict[str, np.ndarray]]) -> list[Shapes]:
    """The shape of every output of ``model`` at each step: one REFERENCE run per step with every
    output a Result (state carried from step to step, as on one request). The probe's Results
    join ``model``'s nodes: call it on a model that has been serialized already."""
    from ovconform import Model, opset
    from ovconform.ir._subgraph import constant_subgraph_nodes
    from reference_plugin.evaluate import ModelRunner

    # a Constant-only subgraph (weight decompression) has static shapes and would hold a decompressed
    # copy of every weight as Results (tens of GB for a 1.1B decoder): its shapes come from the model
    constant = {id(n) for n in constant_subgraph_nodes(model.get_ordered_ops())}
    outputs = [o for n in model.get_ordered_ops()
               if n.type_name not in ("Result", "Assign", "Constant") and id(n) not in constant for o in n.outputs()]
    probe = Model([opset.result(o) for o in outputs], model.get_sinks(), model.get_parameters(), "shape_probe")
    runner = ModelRunner(probe)
    names = [p.friendly_name for p in model.get_parameters()]
    state: dict[str, np.ndarray] = {}
    found = []
    for step in steps:
        values = runner.run([step[n] for n in names], state)
        found.append({(id(o.node), o.index): tuple(np.shape(v)) for o, v in zip(outputs, values, strict=True)})
        del values
    return found


def _is_static(model: Any) -> bool:
    return all(n.get_output_partial_shape(i).is_static for n in model.get_ordered_ops()
               for i in range(n.get_output_size()))


def write_folder(folder: Path, model: Any, steps: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    """Serialize ``model`` to ``folder/model.{xml,bin}`` and the inputs of its ``steps`` (by
    parameter name) to ``folder/steps.npz`` (read without pickle) with ``steps.json``; return
    ``{"steps", "stateful", "input_shapes"}``."""
    from ovconform import serialize

    folder.mkdir(parents=True, exist_ok=True)
    xml, weights = serialize(model)
    (folder / "model.xml").write_bytes(xml.encode() if isinstance(xml, str) else xml)
    (folder / "model.bin").write_bytes(weights or b"")
    del xml, weights
    inputs = [p.friendly_name for p in model.get_parameters()]
    stateful = bool(model.get_sinks())
    np.savez(folder / "steps.npz", allow_pickle=False,
             **{f"step{i}.{n}": np.asarray(step[n]) for i, step in enumerate(steps) for n in inputs})
    (folder / "steps.json").write_text(json.dumps({"inputs": inputs, "steps": len(steps), "stateful": stateful}))
    return {"steps": len(steps), "stateful": stateful,
            "input_shapes": {n: list(np.shape(steps[0][n])) for n in inputs}}


def prepare(names: list[str], sizes: Mapping[str, int | None], root: Path) -> dict[str, dict[str, Any]]:
    """Build each architecture (at ``sizes[name]`` when given) and write it with the inputs of the
    model suite's steps to ``root/name`` (:func:`write_folder`), with its memory budget."""
    from ovconform import models

    info: dict[str, dict[str, Any]] = {}
    for name in names:
        arch = models.get(name)
        size = sizes.get(name)
        t0 = time.perf_counter()
        model = arch.build() if size is None else cast(Callable[[int], Any], arch.build)(size)
        build_s = time.perf_counter() - t0
        steps = arch.make_steps(model)
        folder = root / name
        written = write_folder(folder, model, steps)
        budget = memory_budget(model, None if _is_static(model) else step_shapes(model, steps))
        info[name] = {"folder": folder, "build_s": build_s, **written, **budget}
        del model
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


def _medians(samples: dict[str, list[float]]) -> dict[str, float]:
    return {k: statistics.median(v) for k, v in samples.items()}


def run(names: list[str], rounds: int, calls: int, warmup: int, penalty_rounds: int,
        sizes: Mapping[str, int | None] | None = None, perop: bool = False, log: Any = print) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ovconform-arch-") as tmp:
        info = prepare(names, sizes or {}, Path(tmp))
        per: dict[str, dict[str, Any]] = {n: {"samples": {KEYS[r]: [] for r in RUNTIMES}, "rss_before_kib": [],
                                              "rss_empty_kib": [], "hwm_kib": [],
                                              "step_samples": {KEYS[r]: [] for r in RUNTIMES}} for n in names}
        for name in names:
            if info[name]["stateful"]:
                per[name]["prefill_samples"] = {KEYS[r]: [] for r in RUNTIMES}
                per[name]["decode_samples"] = {KEYS[r]: [] for r in RUNTIMES}
        for rnd in range(rounds):
            order = RUNTIMES[rnd % len(RUNTIMES):] + RUNTIMES[:rnd % len(RUNTIMES)]
            for name in names:
                p = per[name]
                for rt in order:
                    res = _spawn("time", str(info[name]["folder"]), "--runtime", rt, "--warmup", str(warmup),
                                 "--calls", str(calls))
                    key = KEYS[rt]
                    p["samples"][key].append(statistics.median(res["ms"]))
                    p["step_samples"][key].append(res["step_ms"])
                    if "decode" in res:
                        p["prefill_samples"][key].append(res["decode"]["prefill_ms"])
                        p["decode_samples"][key].append(res["decode"]["decode_median_ms"])
                    if rt == "REFERENCE":
                        if res["openvino_loaded"]:
                            raise RuntimeError("the REFERENCE process loaded openvino")
                        p["rss_before_kib"].append(res["rss_before_kib"])
                        p["rss_empty_kib"].append(res["rss_empty_kib"])
                        p["hwm_kib"].append(res["hwm_kib"] if res["hwm_reset"] else None)
                extra = ""
                if "prefill_samples" in p:
                    extra = "; prefill " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in p["prefill_samples"].items()) + \
                        " ms; decode step " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in p["decode_samples"].items()) + \
                        " ms"
                log(f"round {rnd + 1}/{rounds} {name}: " + ", ".join(
                    f"{k} {v[-1]:.1f} ms" for k, v in p["samples"].items()) + extra)
        for name in names:
            p = per[name]
            p["ms"] = _medians(p["samples"])
            p["best_ms"] = {k: min(v) for k, v in p["samples"].items()}
            p["step_ms"] = {k: [statistics.median(s[i] for s in v) for i in range(info[name]["steps"])]
                            for k, v in p.pop("step_samples").items()}
            if "prefill_samples" in p:
                p["prefill_ms"] = _medians(p["prefill_samples"])
                p["decode_step_ms"] = _medians(p["decode_samples"])
            hwm = [h for h in p["hwm_kib"] if h is not None]
            p["peak_rss_mib"] = _mib(statistics.median(hwm)) if hwm else None
            p["rss_before_mib"] = _mib(statistics.median(p["rss_before_kib"]))
            p["rss_empty_mib"] = _mib(statistics.median(p["rss_empty_kib"]))
            for key in ("weights", "activations", "budget", "input_shapes", "build_s", "steps", "stateful"):
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
                         str(calls), "--warmup", str(warmup))
            alone, after = statistics.median(res["alone_ms"]), statistics.median(res["after_openvino_ms"])
            per[name]["same_process"] = {**res, "alone_median_ms": alone, "after_openvino_median_ms": after,
                                         "ratio": after / alone}
            log(f"same process {name}: alone {alone:.1f} ms, right after OpenVINO {after:.1f} ms")
        if perop:
            for name in names:
                per[name]["perop"] = _spawn("perop", str(info[name]["folder"]), "--warmup", str(warmup),
                                            "--calls", str(calls))
    geo = geomeans(per, names)
    issue26 = [n for n in names if n in ISSUE26_MODELS]
    doc: dict[str, Any] = {"architectures": per, "geomeans": geo}
    if issue26 and issue26 != names:
        doc["geomeans_issue26"] = {"architectures": issue26, **geomeans(per, issue26)}
    return doc


def geomeans(per: dict[str, dict[str, Any]], names: list[str]) -> dict[str, float]:
    """The geometric means over ``names`` of the speed ratios, the same-process ratio and peak/budget."""
    geo = {"reference_over_openvino": _geomean([per[n]["ratio_openvino"] for n in names]),
           "reference_over_openvino_1t": _geomean([per[n]["ratio_openvino_1t"] for n in names]),
           "same_process_ratio": _geomean([per[n]["same_process"]["ratio"] for n in names])}
    ratios = [per[n]["peak_over_budget"] for n in names if per[n]["peak_over_budget"] is not None]
    geo["peak_over_budget"] = _geomean(ratios)
    return geo


# -- reports ---------------------------------------------------------------------------------------

def _fmt(v: float | None, d: int = 1) -> str:
    return "n/a" if v is None else f"{v:.{d}f}"


def _three(ms: dict[str, float] | None, d: int = 1) -> str:
    """REFERENCE / OV / OV 1-thread in one cell ("" when the model has no such figure)."""
    return "" if ms is None else " / ".join(_fmt(ms[KEYS[r]], d) for r in RUNTIMES)


def _inferences(p: dict[str, Any]) -> str:
    steps = p.get("steps", 1)
    return f"1 + {steps - 1}" if p.get("stateful") and steps > 1 else str(steps)


def _geomean_row(label: str, g: dict[str, float]) -> str:
    return (f"| {label} | | | | | **{g['reference_over_openvino']:.2f}** | **{g['reference_over_openvino_1t']:.2f}** "
            f"| | | | | **{g['peak_over_budget']:.2f}** | **{g['same_process_ratio']:.2f}** | | |")


def table(doc: dict[str, Any]) -> str:
    rows = ["| architecture | inferences per run | REFERENCE ms | OV f32 ms | OV f32 1-thread ms | REF/OV | REF/OV-1t "
            "| prefill ms REF / OV / OV-1t | decode step ms REF / OV / OV-1t | RSS before MiB "
            "| peak RSS MiB | budget MiB (weights + activations) | peak/budget | same-process ratio "
            "| RSS no model MiB | (peak - no model)/budget |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    f = _fmt
    for name, p in doc["architectures"].items():
        ms = p["ms"]
        rows.append(f"| {name} | {_inferences(p)} | {f(ms['reference'])} | {f(ms['openvino'])} | "
                    f"{f(ms['openvino_1t'])} | {f(p['ratio_openvino'], 2)} | {f(p['ratio_openvino_1t'], 2)} | "
                    f"{_three(p.get('prefill_ms'))} | {_three(p.get('decode_step_ms'), 2)} | "
                    f"{f(p['rss_before_mib'])} | {f(p['peak_rss_mib'])} | {f(p['budget_mib'])} "
                    f"({p['weights'] / 2 ** 20:.1f} + {p['activations'] / 2 ** 20:.1f}) | "
                    f"{f(p['peak_over_budget'], 2)} | {f(p['same_process']['ratio'], 2)} | "
                    f"{f(p['rss_empty_mib'])} | {f(p['model_peak_over_budget'], 2)} |")
    rows.append(_geomean_row("**geomean**", doc["geomeans"]))
    if doc.get("geomeans_issue26"):
        g26 = doc["geomeans_issue26"]
        rows.append(_geomean_row(f"**geomean, issue #26's ImageNet classifiers ({len(g26['architectures'])})**", g26))
    return "\n".join(rows)


def perop_markdown(doc: dict[str, Any], top: int = 8) -> str:
    lines = []
    for name, p in doc["architectures"].items():
        po = p.get("perop")
        if not po:
            continue
        total = sum(po["reference_by_type_ms"].values())
        lines += [f"### {name}: REFERENCE {po['reference_wall_ms']:.1f} ms wall per inference (counters sum "
                  f"{total:.1f} ms), OpenVINO CPU f32 {po['openvino_wall_ms']:.1f} ms", "",
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
             f"a temporary folder with the inputs the model suite feeds it); a run is the model suite's steps in "
             f"turn on one request (one inference for most; a decoder's 32-token prefill then 16 one-token decode "
             f"steps, its KV-cache state reset before each run; the greedy decoder's two inputs), inputs set before "
             f"each timed infer(); {proto['warmup']} untimed then {proto['calls']} timed runs per process; "
             f"{proto['rounds']} rounds over every architecture and runtime, the runtime order rotated per round; "
             "ms = time per inference (a run's time over its inferences), the median of the per-process medians "
             "(best per-process medians and each step's time in the JSON); a decoder's prefill and decode step: "
             "the median over processes of each process's median prefill and median decode step. REFERENCE runs "
             "its defaults (LATENCY hint, BLAS threads = cores); OpenVINO CPU reads the same IR with "
             "INFERENCE_PRECISION_HINT=f32, default threads or INFERENCE_NUM_THREADS=1. Peak RSS: VmHWM of the "
             "REFERENCE process over its timed runs, the mark reset after compile and warm-up "
             "(/proc/self/clear_refs), nothing subtracted (the interpreter, numpy and ovconform are in it: "
             "compare the RSS before, and the last two columns: the RSS of the same process with everything "
             "imported and no model read, and the peak above it, for reading only). Budget: Constant bytes + "
             "the largest bytes alive at once in the model's topological order, values released after their "
             "last reader (a model with dynamic shapes: at each step's shapes, the largest step). Same-process "
             f"ratio: in one process, {proto['penalty_rounds']} times REFERENCE alone (after {ALONE_PAUSE_S} s "
             f"idle) then OpenVINO CPU {proto['calls']} runs and REFERENCE right after; median(after) / "
             "median(alone).", ""]
    if doc.get("note"):
        lines += [doc["note"], ""]
    lines += [table(doc), "",
              "Targets (issue #26, set on its six ImageNet classifiers): geomean REF/OV <= 2.0, peak/budget <= 1.5, "
              "same-process ratio <= 1.3.", ""]
    po = perop_markdown(doc)
    if po:
        lines += ["## Where REFERENCE's time goes (PERF_COUNT, per op type)", "", po]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        return _child_main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="default",
                        help="comma-separated architecture names and 'default' (every architecture of the quick "
                             f"and full tiers but {', '.join(OPT_IN)}, which runs only when named: ~10 GB)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5, help="timed runs per process (default 5)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs per process (default 2)")
    parser.add_argument("--penalty-rounds", type=int, default=5)
    parser.add_argument("--perop", action="store_true", help="add REFERENCE's per-op-type time split")
    parser.add_argument("--note", default="", help="a sentence for the results file (e.g. the machine's load)")
    parser.add_argument("--quick", action="store_true",
                        help=f"{', '.join(f'{n} at {s}x{s}' if s else n for n, s in QUICK_MODELS.items())}, "
                             "1 round, 1 call")
    parser.add_argument("--out", default=str(HERE / "results" / "architectures.json"))
    args = parser.parse_args(argv)
    for option, least in (("rounds", 1), ("calls", 1), ("warmup", 0), ("penalty_rounds", 1)):
        if getattr(args, option) < least:
            parser.error(f"--{option.replace('_', '-')} must be >= {least}, not {getattr(args, option)}")
    from ovconform import models

    known = [a.name for a in models.ARCHITECTURES]
    names: list[str] = []
    for token in (list(QUICK_MODELS) if args.quick else [t.strip() for t in args.models.split(",") if t.strip()]):
        names += [n for n in (default_models() if token == "default" else [token]) if n not in names]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        parser.error(f"--models {args.models!r}: unknown architecture(s) {unknown}; known: 'default', "
                     f"{', '.join(known)}")
    sizes = {n: s for n, s in QUICK_MODELS.items() if s} if args.quick else {}
    if args.quick:
        args.rounds, args.calls, args.warmup, args.penalty_rounds = 1, 1, 1, 1
    result = run(names, args.rounds, args.calls, args.warmup, args.penalty_rounds, sizes, args.perop)
    doc = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "command": "python benchmarks/architectures.py " + " ".join(argv),
           "environment": environment(), "note": args.note,
           "protocol": {"rounds": args.rounds, "calls": args.calls, "warmup": args.warmup,
                        "penalty_rounds": args.penalty_rounds, "input_size": sizes or "architecture's own",
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
