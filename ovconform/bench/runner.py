"""The benchmark runner: compile, first inference, the timed loop, counters — benchmark_app's flow.

1. compile the model with PERFORMANCE_HINT (``latency``, ``throughput``/``tput``,
   ``cumulative_throughput``/``ctput``; ``none`` sets no hint, and only then may NUM_STREAMS be
   given, as in benchmark_app), PERF_COUNT and any extra properties; read back
   OPTIMAL_NUMBER_OF_INFER_REQUESTS, NUM_STREAMS and EXECUTION_DEVICES;
2. create the requests: one for the ``sync`` API, ``nireq`` (default: the device's
   OPTIMAL_NUMBER_OF_INFER_REQUESTS) for ``async``;
3. one untimed-in-the-stats first inference ("First inference took X ms"), then, with several
   requests, one warm-up run of every request, all started together so that every stream is
   busy at once ("Warm-up of N request(s) took X ms"): what a device does on a stream's first
   run (a REFERENCE stream's worker process builds its program) is never inside a latency or
   the throughput;
4. the loop, until ``niter`` iterations or ``duration`` seconds (whichever comes first); the
   async loop also continues until ``iterations % nireq == 0`` (benchmark_app's rule). Inputs are
   set before each run starts and are never part of a latency: ``sync`` times ``infer()``;
   ``async`` times ``start_async()`` to the completion callback;
5. with PERF_COUNT, each request's ``get_profiling_info()`` of its last run, and that run's latency
   (the consistency checks compare the two), plus the runtime model for ORIGINAL_NAMES mapping.
   With the sync API, ``counter_samples`` more runs (default 4, after the loop, not in the
   statistics) add (counters, latency) pairs so the checks do not rest on one run;
6. a model with ``decode_steps`` (a decoder, :class:`~ovconform.bench.models.BenchModel`): on a new
   request, ``decode_rounds`` times (default 3): reset the state, time the prefill (the example
   inputs), then time each decode step on the cache the prefill and the steps before it filled
   (inputs set before each timed ``infer()``). ``BenchResult.decode`` holds the prefill's median,
   each step's median over the rounds and the median of all decode steps (:func:`time_decode`).

BLAS threads: ``blas_threads`` pins them before the run; the result records the count at the
start and after the run (``threads``) — a device may set its own per inference (REFERENCE gives
each stream ``cores // streams``), and the figures were measured with what it set.
"""

from __future__ import annotations

import dataclasses
import queue
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ovconform import properties as P
from ovconform.bench import inputs as I
from ovconform.bench.blas import blas_info, set_blas_threads
from ovconform.bench.models import BenchModel
from ovconform.bench.progress import Progress
from ovconform.bench.stats import LatencyStats, check_percentile, summarize
from ovconform.bench.steps import decode_summary, time_steps
from ovconform.errors import InferError, OVConformError, ValidationError

__all__ = ["APIS", "HINTS", "BenchConfig", "BenchResult", "run_benchmark", "time_decode"]

APIS = ("sync", "async")
#: -hint spellings (benchmark_app's) -> PERFORMANCE_HINT value (None: no hint set)
HINTS: dict[str, str | None] = {
    "latency": "LATENCY", "throughput": "THROUGHPUT", "tput": "THROUGHPUT",
    "cumulative_throughput": "CUMULATIVE_THROUGHPUT", "ctput": "CUMULATIVE_THROUGHPUT", "none": None,
}
DEFAULT_DURATION_S = 5.0
#: The async loop gives up when no request completes for this long (a device that never calls back).
COMPLETION_TIMEOUT_S = 300.0
#: Execution-graph layer types of constants (OpenVINO CPU's exec graph says "Const").
CONSTANT_TYPES = frozenset({"Constant", "Const"})
#: ORIGINAL_NAMES: the runtime model's rt_info key listing the original ops a node stands for.
ORIGINAL_NAMES = "originalLayersNames"


@dataclass
class BenchConfig:
    """How to run: benchmark_app's options under their long names.

    ``api``/``hint`` default as in benchmark_app: ``async`` + ``throughput``; with only one given,
    ``sync`` goes with ``latency`` and ``async`` with ``throughput``.
    """

    api: str | None = None
    hint: str | None = None
    nireq: int | None = None
    nstreams: int | None = None
    niter: int | None = None
    duration_s: float | None = None
    inputs: str = "fixed"
    seed: int = 0
    pool: int = 32
    percentile: int = 50
    perf_count: bool = True
    properties: dict[str, Any] = field(default_factory=dict)
    #: the tensors' shapes of dynamic inputs: one {name: dims}, or several used in turn
    #: (benchmark_app's -data_shape groups)
    data_shape: dict[str, list[int]] | list[dict[str, list[int]]] | None = None
    progress: bool | None = False
    counter_samples: int = 4
    blas_threads: int | None = None
    #: INFERENCE_PRECISION_HINT (benchmark_app's -infer_precision)
    infer_precision: str | None = None
    #: properties under every other setting (benchmark_app's -load_config entry of the device:
    #: the command line has the higher priority)
    base_config: dict[str, Any] = field(default_factory=dict)
    #: prefill + decode sequences timed for a model with decode steps (step 6 of the module doc)
    decode_rounds: int = 3

    def resolved(self) -> BenchConfig:
        """A copy with defaults filled in and every value checked (ValidationError otherwise)."""
        api, hint = self.api, self.hint
        if api is not None and api not in APIS:
            raise ValidationError(f"api {api!r} is not one of {', '.join(APIS)}.")
        if hint is not None and hint not in HINTS:
            raise ValidationError(f"performance hint {hint!r} is not one of {', '.join(HINTS)}.")
        if api is None:
            api = "sync" if hint == "latency" else "async"
        if hint is None:
            hint = "latency" if api == "sync" else "throughput"
        for name in ("nireq", "nstreams", "niter", "pool", "decode_rounds"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValidationError(f"{name} must be an integer >= 1, not {value!r}.")
        if self.nstreams is not None and hint != "none":
            raise ValidationError(f"nstreams={self.nstreams} is a fine-tuning option that needs hint 'none' "
                                  f"(hint is {hint!r}), as in benchmark_app.")
        if self.duration_s is not None and not self.duration_s > 0:
            raise ValidationError(f"duration must be a positive number of seconds, not {self.duration_s!r}.")
        if api == "sync" and self.nireq not in (None, 1):
            raise ValidationError(f"nireq={self.nireq} needs the async API; the sync API runs one request.")
        check_percentile(self.percentile)
        duration = self.duration_s if (self.duration_s or self.niter) else DEFAULT_DURATION_S
        return dataclasses.replace(self, api=api, hint=hint, duration_s=duration, properties=dict(self.properties),
                                   counter_samples=max(int(self.counter_samples), 0),
                                   base_config=dict(self.base_config))


@dataclass
class BenchResult:
    """Everything one run measured (see :mod:`ovconform.bench.report` for the files made of it)."""

    device: str
    model: BenchModel
    config: BenchConfig
    compile_ms: float
    first_inference_ms: float
    stats: LatencyStats
    nireq: int
    device_properties: dict[str, Any]
    compile_config: dict[str, Any]
    inputs: dict[str, Any]
    blas: dict[str, Any]
    counters: list[list[Any]] = field(default_factory=list)
    counter_latencies_ms: list[float] = field(default_factory=list)
    counters_error: str = ""
    #: (counters, latency ms) of every counted run: the requests' last runs, plus (sync API) the
    #: extra sample runs; the consistency checks use these
    counter_samples: list[tuple[list[Any], float]] = field(default_factory=list)
    #: for each counted run, the mean latency (ms) of every run its request made since compile
    #: (first inference included): the bound for counters a device averages over its runs, as
    #: OpenVINO CPU does
    counter_means_ms: list[float] = field(default_factory=list)
    runtime_originals: dict[str, list[str]] | None = None
    runtime_types: dict[str, str] = field(default_factory=dict)
    #: wall time of the warm-up run of every request (0 with one request)
    warmup_ms: float = 0.0
    #: consumers of each runtime-model node that no execution node accounts for (empty ORIGINAL_NAMES)
    runtime_consumers: dict[str, list[str]] = field(default_factory=dict)
    runtime_error: str = ""
    runtime_model: Any = None
    #: a model with decode steps: the prefill and per-decode-step times (:func:`time_decode`); else None
    decode: dict[str, Any] | None = None

    @property
    def model_name(self) -> str:
        return self.model.name


def _compile_config(cfg: BenchConfig, supported: Mapping[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = dict(cfg.base_config)
    hint = HINTS[cfg.hint or "throughput"]
    if hint is not None and P.PERFORMANCE_HINT in supported:
        config[P.PERFORMANCE_HINT] = hint
    if cfg.nstreams is not None:
        config[P.NUM_STREAMS] = cfg.nstreams
    if cfg.perf_count or P.PERF_COUNT in config or P.PERF_COUNT in supported:
        config[P.PERF_COUNT] = cfg.perf_count  # set either way, as benchmark_app does
    if cfg.infer_precision is not None:
        config[P.INFERENCE_PRECISION_HINT] = cfg.infer_precision
    config.update(cfg.properties)
    return config


def _read_back(compiled: Any, names: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        try:
            value = compiled.get_property(name)
        except Exception:  # noqa: BLE001 - a property the device does not have: leave it out
            continue
        out[name] = P.to_string(value) if not isinstance(value, (int, float, str, bool)) else value
    return out


def _runtime_map(compiled: Any) -> tuple[Any, dict[str, list[str]] | None, dict[str, str], dict[str, list[str]],
                                          str]:
    """The runtime model, its ORIGINAL_NAMES per node, each node's type (``Constant`` for what is
    computed from constants only), the consumers of each node with empty ORIGINAL_NAMES, and the
    error that prevented reading it."""
    try:
        runtime = compiled.get_runtime_model()
    except Exception as e:  # noqa: BLE001 - no runtime model: counters map by name only
        return None, None, {}, {}, f"{type(e).__name__}: {e}"
    originals: dict[str, list[str]] = {}
    types: dict[str, str] = {}
    consumers: dict[str, list[str]] = {}
    constant: set[int] = set()
    for node in runtime.get_ordered_ops():
        names = [n for n in str(node.rt_info.get(ORIGINAL_NAMES, node.friendly_name) or "").split(",") if n]
        originals[node.friendly_name] = names
        if not names:  # no execution node accounts for it: judged by its consumers (counters.check)
            consumers[node.friendly_name] = [i.get_node().friendly_name for o in node.outputs()
                                             for i in o.get_target_inputs()]
        layer_type = str(node.rt_info.get("layerType", node.type_name))
        inputs = [v.node for v in node.input_values()]
        if node.type_name == "Constant" or layer_type in CONSTANT_TYPES or (
                inputs and all(id(i) in constant for i in inputs)):
            constant.add(id(node))
            layer_type = "Constant"  # computed once, before any inference: no counter expected
        types[node.friendly_name] = layer_type
    return runtime, originals, types, consumers, ""


def _set_inputs(request: Any, tensors: Sequence[Any]) -> None:
    for index, tensor in enumerate(tensors):
        request.set_input_tensor(index, tensor)


def _sync_loop(request: Any, pool: list[list[Any]], cfg: BenchConfig, progress: Progress) -> tuple[list[float], float]:
    latencies: list[float] = []
    start = time.perf_counter()
    elapsed, i = 0.0, 0
    while _more(cfg, i, elapsed, 1):
        if len(pool) > 1:
            _set_inputs(request, pool[i % len(pool)])
        t0 = time.perf_counter()
        request.infer()
        latencies.append((time.perf_counter() - t0) * 1000.0)
        i += 1
        elapsed = time.perf_counter() - start
        progress.update(i)
    return latencies, max(time.perf_counter() - start, 1e-9)


def _more(cfg: BenchConfig, iteration: int, elapsed: float, nireq: int) -> bool:
    by_iter = cfg.niter is not None and iteration < cfg.niter
    by_time = cfg.duration_s is not None and elapsed < cfg.duration_s
    if cfg.niter is not None and cfg.duration_s is not None:
        go = by_iter and by_time
    else:
        go = by_iter or by_time
    return go or iteration % nireq != 0


class _AsyncState:
    """Completion bookkeeping shared with the callbacks."""

    def __init__(self, n: int) -> None:
        self.idle: queue.Queue[int] = queue.Queue()
        self.started = [0.0] * n
        self.latency = [0.0] * n

    def callback_for(self, index: int) -> Any:
        def done(_userdata: Any) -> None:
            self.latency[index] = (time.perf_counter() - self.started[index]) * 1000.0
            self.idle.put(index)

        return done


def _async_loop(requests: list[Any], pool: list[list[Any]], cfg: BenchConfig, progress: Progress,
                history: list[list[float]]) -> tuple[list[float], float, list[float]]:
    """The timed asynchronous loop; each completed run's latency is also appended to its
    request's ``history``."""
    n = len(requests)
    state = _AsyncState(n)
    for i, request in enumerate(requests):
        request.set_callback(state.callback_for(i), i)
        state.idle.put(i)
    latencies: list[float] = []
    in_flight: set[int] = set()
    start = time.perf_counter()
    elapsed, iteration = 0.0, 0
    while _more(cfg, iteration, elapsed, n):
        try:
            i = state.idle.get(timeout=COMPLETION_TIMEOUT_S)
        except queue.Empty:
            raise InferError(f"no infer request completed within {COMPLETION_TIMEOUT_S:g} s (its callback never "
                             f"ran) after {iteration} started run(s) of {n} request(s).") from None
        if i in in_flight:
            requests[i].wait()  # raises the run's error, if any
            latencies.append(state.latency[i])
            history[i].append(state.latency[i])
        in_flight.add(i)
        if len(pool) > 1:
            _set_inputs(requests[i], pool[iteration % len(pool)])
        state.started[i] = time.perf_counter()
        requests[i].start_async()
        iteration += 1
        elapsed = time.perf_counter() - start
        progress.update(iteration)
    for i in sorted(in_flight):
        requests[i].wait()
    duration = max(time.perf_counter() - start, 1e-9)
    for i in sorted(in_flight):
        latencies.append(state.latency[i])
        history[i].append(state.latency[i])
    for request in requests:
        request.set_callback(None)
    return latencies, duration, list(state.latency)


def run_benchmark(core: Any, device: str, bench_model: BenchModel, config: BenchConfig | None = None,
                  *, label: str = "") -> BenchResult:
    """Benchmark ``bench_model`` on ``device`` of ``core`` (see the module doc for the steps).

    :raises ValidationError: for a bad configuration; device errors propagate (OVConformError).
    """
    cfg = (config or BenchConfig()).resolved()
    if cfg.blas_threads is not None:
        set_blas_threads(cfg.blas_threads)
    blas_at_start = blas_info().get("threads")
    model = bench_model.model
    pool_sets = cfg.niter if cfg.niter is not None else cfg.pool
    groups = cfg.data_shape if isinstance(cfg.data_shape, list) else [cfg.data_shape]
    pool = [tensors for group in groups or [None]
            for tensors in I.make_pool(model, cfg.inputs, cfg.seed, min(pool_sets, cfg.pool),
                                       example=bench_model.example_inputs, data_shape=group or None)]
    supported = dict(core.get_property(device, P.SUPPORTED_PROPERTIES))
    compile_config = _compile_config(cfg, supported)
    t0 = time.perf_counter()
    compiled = core.compile_model(model, device, compile_config)
    compile_ms = (time.perf_counter() - t0) * 1000.0
    props = _read_back(compiled, (P.PERFORMANCE_HINT, P.NUM_STREAMS, P.OPTIMAL_NUMBER_OF_INFER_REQUESTS,
                                  P.EXECUTION_DEVICES, P.PERF_COUNT, P.INFERENCE_PRECISION_HINT,
                                  P.LOADED_FROM_CACHE))
    nireq = 1 if cfg.api == "sync" else (cfg.nireq or _optimal(props))
    requests = [compiled.create_infer_request() for _ in range(nireq)]
    if model.get_sinks():  # a stateful model (a decoder's KV cache): every run starts from the initial state
        requests = [_FromInitialState(r) for r in requests]
    for request in requests:
        _set_inputs(request, pool[0])
    t0 = time.perf_counter()
    requests[0].infer()
    first_ms = (time.perf_counter() - t0) * 1000.0
    progress = Progress(cfg.niter, cfg.duration_s, enabled=cfg.progress, label=label)
    history: list[list[float]] = [[first_ms], *([] for _ in requests[1:])]  # every run of each request
    warmup_ms = _warm_up(requests, history) if len(requests) > 1 else 0.0
    if cfg.api == "sync":
        latencies, duration = _sync_loop(requests[0], pool, cfg, progress)
        history[0].extend(latencies)
        last = [latencies[-1]]
    else:
        latencies, duration, last = _async_loop(requests, pool, cfg, progress, history)
    progress.close(len(latencies))
    result = BenchResult(device, bench_model, cfg, compile_ms, first_ms, summarize(latencies, duration, cfg.percentile),
                         nireq, props, {k: P.to_string(v) if not isinstance(v, (int, bool, str)) else v
                                        for k, v in compile_config.items()},
                         I.describe(pool, model) | {"mode": cfg.inputs, "sets": len(pool), "seed": cfg.seed},
                         blas_info() | {"requested": cfg.blas_threads, "threads_at_start": blas_at_start})
    result.warmup_ms = warmup_ms
    if cfg.perf_count:
        _collect_counters(result, requests, last, history)
        if cfg.api == "sync" and not result.counters_error:
            _sample_counters(result, requests[0], cfg.counter_samples, history[0])
        (result.runtime_model, result.runtime_originals, result.runtime_types, result.runtime_consumers,
         result.runtime_error) = _runtime_map(compiled)
    if bench_model.decode_steps:
        result.decode = time_decode(compiled, bench_model, cfg.decode_rounds, cfg.seed)
    return result


def time_decode(compiled: Any, bench_model: BenchModel, rounds: int = 3, seed: int = 0) -> dict[str, Any]:
    """Prefill and decode-step times of a model with decode steps, on one new request.

    Each round resets the state (a new sequence), times ``infer()`` on the example inputs (the
    prefill, filling the cache), then ``infer()`` on each decode step in turn, each on the cache
    the runs before it filled; inputs are set before the clock starts. One untimed sequence runs
    first (a device's first run of each new shape is not a decode step's time).

    :return: ``{"rounds", "steps", "prefill_ms" (median), "prefill_ms_all", "step_ms" (median of each
        step over the rounds), "decode_median_ms" (median of every decode step's time),
        "decode_tokens_per_s"}`` (times in ms).
    :raises ValidationError: for ``rounds`` < 1 or a model without decode steps.
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValidationError(f"decode_rounds must be an integer >= 1, not {rounds!r}.")
    if not bench_model.decode_steps:
        raise ValidationError(f"model {bench_model.name!r} has no decode steps to time (a stateful model with "
                              "several steps, such as the llama_decoder architecture, has).")
    model = bench_model.model
    feeds = [bench_model.example_inputs, *bench_model.decode_steps]
    tensors = [I.make_pool(model, "fixed", seed, 1, example=feed)[0] for feed in feeds]
    request = compiled.create_infer_request()
    runs = time_steps(request, lambda i: _set_inputs(request, tensors[i]), len(tensors), rounds, warmup=1, reset=True)
    return decode_summary(runs)


class _FromInitialState:
    """A request of a stateful model that resets its state before each run (``reset_state``, as a
    new sequence would), so that every run infers the same thing: a decoder's prefill on an empty
    KV cache, not on a cache that grows by the prefill's length at every iteration. The reset is
    inside the timed run (microseconds next to an inference)."""

    def __init__(self, request: Any) -> None:
        self._request = request

    def infer(self, *args: Any, **kwargs: Any) -> Any:
        self._request.reset_state()
        return self._request.infer(*args, **kwargs)

    def start_async(self, *args: Any, **kwargs: Any) -> Any:
        self._request.reset_state()
        return self._request.start_async(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


def _warm_up(requests: list[Any], history: list[list[float]]) -> float:
    """One run of each request, all started together; each run's latency goes to its request's
    ``history``. Returns the wall time (ms)."""
    if not requests:
        return 0.0
    start = time.perf_counter()
    started = []
    for request in requests:
        started.append(time.perf_counter())
        request.start_async()
    for request, t0, runs in zip(requests, started, history, strict=True):
        request.wait()
        runs.append((time.perf_counter() - t0) * 1000.0)
    return (time.perf_counter() - start) * 1000.0


def _optimal(props: Mapping[str, Any]) -> int:
    try:
        value = int(props.get(P.OPTIMAL_NUMBER_OF_INFER_REQUESTS, 1))
    except (TypeError, ValueError):
        return 1
    return max(value, 1)


def _collect_counters(result: BenchResult, requests: list[Any], last_ms: list[float],
                      history: list[list[float]]) -> None:
    for request, latency, runs in zip(requests, last_ms, history, strict=True):
        try:
            infos = list(request.get_profiling_info())
        except OVConformError as e:
            result.counters_error = f"{type(e).__name__}: {e}"
            return
        result.counters.append(infos)
        result.counter_latencies_ms.append(latency)
        result.counter_samples.append((infos, latency))
        result.counter_means_ms.append(statistics.fmean(runs or [latency]))


def _sample_counters(result: BenchResult, request: Any, runs: int, history: list[float]) -> None:
    """More (counters, latency) pairs from extra synchronous runs after the timed loop (not in the
    statistics), so the coverage figure does not rest on one run."""
    for _ in range(runs):
        t0 = time.perf_counter()
        request.infer()
        latency = (time.perf_counter() - t0) * 1000.0
        history.append(latency)
        result.counter_samples.append((list(request.get_profiling_info()), latency))
        result.counter_means_ms.append(statistics.fmean(history))
