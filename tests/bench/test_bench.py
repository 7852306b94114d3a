"""ovconform.bench: statistics, counters, FLOPs, inputs, the runner and benchmark_app's report files."""

from __future__ import annotations

import csv
import json
import math
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovconform import Core
from ovconform.api import ProfilingInfo, ProfilingStatus
from ovconform.bench import counters as C
from ovconform.bench import inputs as I
from ovconform.bench import report
from ovconform.bench.blas import blas_info, set_blas_threads
from ovconform.bench.compare import comparison, comparison_csv
from ovconform.bench.flops import model_flops
from ovconform.bench.models import available, resolve_model, zoo_names
from ovconform.bench.progress import Progress
from ovconform.bench.runner import BenchConfig, run_benchmark
from ovconform.bench.stats import percentile, summarize
from ovconform.errors import NotFoundError, ValidationError


@pytest.fixture(scope="module")
def core() -> Core:
    return Core()


# ---- statistics ---------------------------------------------------------------------------------

def test_percentile_is_benchmark_apps_formula() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(values, 50) == 3.0  # sorted[ceil(5*0.5)-1] = sorted[2]
    assert percentile(values, 90) == 5.0 and percentile(values, 1) == 1.0 and percentile(values, 100) == 5.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0  # not the interpolated 2.5


def test_summary_and_bad_values() -> None:
    s = summarize([2.0, 4.0, 6.0, 8.0], duration_s=0.5, p=75)
    assert (s.count, s.median_ms, s.average_ms, s.min_ms, s.max_ms) == (4, 4.0, 5.0, 2.0, 8.0)
    assert s.latency_percentile_ms == 6.0 and s.throughput_fps == 8.0 and s.duration_ms == 500.0
    with pytest.raises(ValidationError, match=r"percentile must be an integer in 1\.\.100, not 0"):
        summarize([1.0], 1.0, p=0)
    with pytest.raises(ValidationError, match="no latencies"):
        summarize([], 1.0)
    with pytest.raises(ValidationError, match="duration must be positive"):
        summarize([1.0], 0.0)


# ---- counters -----------------------------------------------------------------------------------

def _info(name: str, ms: float, node_type: str = "Add", status: ProfilingStatus = ProfilingStatus.EXECUTED) -> Any:
    t = timedelta(milliseconds=ms)
    return ProfilingInfo(name, node_type, "ref_f32", t, t, status)


def test_average_and_sort_modes_follow_benchmark_app() -> None:
    r1 = C.rows([_info("a", 1.0), _info("b", 3.0), _info("c", 0.0, status=ProfilingStatus.NOT_RUN)])
    r2 = C.rows([_info("a", 3.0), _info("b", 5.0), _info("c", 0.0, status=ProfilingStatus.NOT_RUN)])
    avg = C.average([r1, r2])
    assert [(r.name, r.real_ms) for r in avg] == [("a", 2.0), ("b", 4.0), ("c", 0.0)]
    assert avg[0].status == "Status.EXECUTED" and avg[2].status == "Status.NOT_RUN"
    assert [r.name for r in C.sort_rows(avg, "sort")] == ["b", "a", "c"]
    assert [r.name for r in C.sort_rows(avg, "no_sort")] == ["a", "b", "c"]
    simple = C.sort_rows(avg, "simple_sort")
    assert [r.name for r in simple] == ["b", "a"] and math.isclose(simple[0].share or 0, 100 * 4 / 6)
    with pytest.raises(ValidationError, match="counter sort mode 'up' is not one of sort, no_sort, simple_sort"):
        C.sort_rows(avg, "up")


def test_totals_over_a_second_are_not_truncated() -> None:
    """benchmark_app's printer takes timedelta.microseconds of the sum: 1.5 s would read 0.5 s."""
    rows = C.rows([_info("a", 900.0), _info("b", 600.0)])
    assert sum(r.real_ms for r in rows) == pytest.approx(1500.0)


def test_fused_node_time_is_shown_under_each_original_op() -> None:
    avg = C.rows([_info("conv1_relu", 6.0, "Convolution"), _info("fc", 2.0, "MatMul")])
    originals = {"conv1_relu": ["conv1", "conv1_bias", "conv1_relu"], "fc": ["fc"]}
    types = {"conv1": "Convolution", "conv1_bias": "Add", "conv1_relu": "Relu", "fc": "MatMul"}
    flops = {"conv1": {"flops": 6_000_000, "macs": 3_000_000}, "conv1_bias": {"flops": 1000, "macs": 0},
             "fc": {"flops": 4000, "macs": 2000}}
    ops = {o["op"]: o for o in C.original_ops(avg, originals, types, flops)}
    assert ops["conv1"]["executed_as"] == ops["conv1_bias"]["executed_as"] == ["conv1_relu"]
    assert ops["conv1"]["real_time_ms"] == ops["conv1_relu"]["real_time_ms"] == 6.0
    assert ops["conv1"]["shared_with"] == ["conv1_bias", "conv1_relu"] and ops["conv1"]["share_percent"] == 75.0
    assert ops["conv1"]["gflops_per_s"] == pytest.approx((6_000_000 + 1000) / 0.006 / 1e9, rel=1e-3)
    assert ops["fc"]["gflops_per_s"] == pytest.approx(4000 / 0.002 / 1e9, rel=1e-3)


def _checks(per_request: list[list[Any]], latencies: list[float], executed: dict[str, str],
            originals: dict[str, list[str]] | None = None) -> dict[str, dict[str, Any]]:
    rows = [C.rows(r) for r in per_request]
    found = C.check(rows, latencies, executed_ops=executed, originals=originals, original_types=executed)
    return {f["check"]: f for f in found}


def test_consistent_counters_pass_every_check() -> None:
    got = _checks([[_info("x", 0.1, "Parameter"), _info("a", 4.0), _info("b", 5.0)]], [10.0],
                  {"x": "Parameter", "a": "Add", "b": "Relu"}, {"x": ["x"], "a": ["a"], "b": ["b"]})
    assert {k: v["status"] for k, v in got.items()} == dict.fromkeys(
        ["non_negative", "executed_ops_present", "sum_within_latency", "latency_coverage", "original_ops_mapped"], "ok")
    assert got["latency_coverage"]["coverage_percent"] == pytest.approx(91.0)
    assert "91.0% of the measured latency" in got["latency_coverage"]["message"] and "within 80-100%" in \
        got["latency_coverage"]["message"]


def test_negative_missing_and_oversized_counters_are_errors() -> None:
    executed = {"a": "Add", "b": "Relu", "c": "MatMul"}
    got = _checks([[_info("a", -1.0), _info("b", 30.0)]], [10.0], executed, {k: [k] for k in executed})
    assert got["non_negative"]["status"] == "error" and got["non_negative"]["nodes"] == ["a"]
    assert got["executed_ops_present"]["status"] == "error" and "c (MatMul)" in got["executed_ops_present"]["message"]
    assert got["sum_within_latency"]["status"] == "error" and "29.000 ms > 10.000 ms" in \
        got["sum_within_latency"]["message"]
    assert got["original_ops_mapped"]["status"] == "warning" and got["original_ops_mapped"]["nodes"] == ["c"]


def test_an_op_fused_into_a_counted_node_is_covered_but_one_that_vanished_is_not() -> None:
    """As OpenVINO CPU reports an MLP: the FullyConnected counter ``fc1_bias`` lists
    ``fc1_bias,relu1`` but not the MatMul ``fc1`` it absorbed (empty ORIGINAL_NAMES: judged by its
    reader ``fc1_bias``); an LSTMSequence ``lstm`` decomposed leaves ``lstm.0``. A MatMul ``fc2``
    that nothing counts and whose reader is a Result has no counter."""
    rows = [[C.rows([_info("fc1_bias", 1.0, "FullyConnected"), _info("lstm.0", 1.0, "Concat")])]]
    executed = {"fc1": "MatMul", "fc1_bias": "FullyConnected", "relu1": "FullyConnected", "lstm": "LSTMSequence",
                "fc2": "MatMul", "out": "Result"}
    originals = {"fc1": [], "fc1_bias": ["fc1_bias", "relu1"], "relu1": ["fc1_bias", "relu1"], "lstm": [],
                 "fc2": [], "out": ["out"]}
    found = {f["check"]: f for f in C.check(rows[0], [5.0], executed_ops=executed, originals=originals,
                                            original_types=executed,
                                            consumers={"fc1": ["fc1_bias"], "lstm": ["out"], "fc2": ["out"]})}
    assert found["executed_ops_present"]["nodes"] == ["fc2"], found["executed_ops_present"]
    executed.pop("fc2")
    found = {f["check"]: f for f in C.check(rows[0], [5.0], executed_ops=executed, originals=originals,
                                            original_types=executed, consumers={"fc1": ["fc1_bias"]})}
    assert found["executed_ops_present"]["status"] == "ok"


def test_counters_averaged_since_compile_are_bounded_by_the_mean_latency() -> None:
    """OpenVINO CPU reports each node's time averaged over every run since compile, so after a slow
    first run the last run's counters sum above its own latency: accepted when within the mean
    latency of the request's runs, and the finding says so; counters above both are an error."""
    executed = {"a": "Add"}
    averaged = C.check([C.rows([_info("a", 3.0)])], [1.0], executed_ops=executed, originals={"a": ["a"]},
                       original_types=executed, means_ms=[3.5])
    by = {f["check"]: f for f in averaged}
    assert by["sum_within_latency"]["status"] == "ok"
    assert "averages over every run" in by["sum_within_latency"]["message"]
    assert by["latency_coverage"]["coverage_percent"] == round(100 * 3.0 / 3.5, 2)
    inflated = C.check([C.rows([_info("a", 4.0)])], [1.0], executed_ops=executed, originals={"a": ["a"]},
                       original_types=executed, means_ms=[3.5])
    by = {f["check"]: f for f in inflated}
    assert by["sum_within_latency"]["status"] == "error" and "mean since compile 3.500 ms" in \
        by["sum_within_latency"]["message"]


def test_low_coverage_is_a_warning_and_no_executed_counter_an_error() -> None:
    got = _checks([[_info("a", 1.0)]], [10.0], {"a": "Add"})
    assert got["latency_coverage"]["status"] == "warning" and "below 80%" in got["latency_coverage"]["message"]
    got = _checks([[_info("a", 0.0, status=ProfilingStatus.NOT_RUN)]], [10.0], {"a": "Add"})
    assert got["executed_ops_present"]["status"] == "error" and "no EXECUTED counter" in \
        got["executed_ops_present"]["message"]


def test_name_prefix_counts_only_without_a_runtime_model() -> None:
    per_request = [[_info("conv1_bias", 1.0)]]
    assert _checks(per_request, [2.0], {"conv1": "Add"})["executed_ops_present"]["status"] == "ok"
    assert _checks(per_request, [2.0], {"conv1": "Add"},
                   {"conv1_bias": ["conv1_bias"]})["executed_ops_present"]["status"] == "error"


# ---- FLOPs --------------------------------------------------------------------------------------

def test_flops_of_the_cnn_anchor() -> None:
    f = model_flops(resolve_model("cnn").model)
    assert f["conv1"] == {"macs": 16 * 64 * 64 * 3 * 9, "flops": 2 * 16 * 64 * 64 * 3 * 9}
    assert f["conv3"]["macs"] == 64 * 32 * 32 * 32 * 9
    assert f["fc"] == {"macs": 64 * 10, "flops": 2 * 64 * 10}
    assert f["conv1_relu"] == {"flops": 16 * 64 * 64, "macs": 0}
    assert f["pool"]["flops"] == 32 * 32 * 32 * 4 and f["global_avg"]["flops"] == 64 * 32 * 32
    assert f["image"] == {"flops": 0, "macs": 0}


def test_flops_of_a_transposed_matmul_and_unknown_dynamic_shapes() -> None:
    f = model_flops(resolve_model("attention").model)
    assert f["qk"]["macs"] == 4 * 128 * 128 * 64  # [1,4,128,64] x [1,4,64,128]^T... K = 64
    assert f["ff_gelu"]["flops"] == 8 * 128 * 1024
    dyn = model_flops(resolve_model("dynamic_batch").model)
    assert "fc" not in dyn and dyn["x"] == {"flops": 0, "macs": 0}


# ---- models and inputs --------------------------------------------------------------------------

def test_model_names() -> None:
    names = available()
    assert {"mlp", "lenet", "cnn", "attention", "eltwise", "anchor:mlp"} <= set(names)
    from ovconform.suites import _zoo

    assert [n for n in names if ":" not in n][:len(zoo_names())] == zoo_names()
    assert zoo_names() == [z.name for z in _zoo.builtin() if not z.skip]  # models with a skip reason are left out
    assert resolve_model("mlp").model.get_parameters()[0].get_output_shape(0) == (2, 16)
    assert resolve_model("anchor:mlp").model.get_parameters()[0].get_output_shape(0) == (8, 784)
    assert resolve_model("zoo:lenet").source == "zoo" and resolve_model("cnn").source == "anchor"
    with pytest.raises(NotFoundError, match=r"--model 'resnet51' names no model; available: mlp, lenet"):
        resolve_model("resnet51")
    with pytest.raises(NotFoundError, match=r"--model 'nowhere/m\.xml': file .* does not exist"):
        resolve_model("nowhere/m.xml")


def test_model_from_an_ir_file(tmp_path: Path, core: Core) -> None:
    import ovconform

    xml, weights = ovconform.serialize(resolve_model("lenet").model)
    (tmp_path / "lenet.xml").write_text(xml) if isinstance(xml, str) else (tmp_path / "lenet.xml").write_bytes(xml)
    (tmp_path / "lenet.bin").write_bytes(weights)
    bm = resolve_model(str(tmp_path / "lenet.xml"))
    assert bm.source.endswith("lenet.xml") and len(bm.model.get_ordered_ops()) > 10
    result = run_benchmark(core, "REFERENCE", bm, BenchConfig(niter=2, api="sync"))
    assert result.stats.count == 2


def test_input_pools() -> None:
    mlp = resolve_model("mlp")
    fixed = I.make_pool(mlp.model, "fixed", 0, 10, example=mlp.example_inputs)
    assert len(fixed) == 1 and np.array_equal(fixed[0][0].data, mlp.example_inputs["x"])
    pool = I.make_pool(mlp.model, "random", 7, 5)
    again = I.make_pool(mlp.model, "random", 7, 5)
    assert len(pool) == 5 and all(np.array_equal(a[0].data, b[0].data) for a, b in zip(pool, again, strict=True))
    assert not np.array_equal(pool[0][0].data, pool[1][0].data)
    with pytest.raises(ValidationError, match="input mode 'file' is not one of fixed, random"):
        I.make_pool(mlp.model, "file", 0, 1)


def test_dynamic_shapes_and_data_shape() -> None:
    dyn = resolve_model("dynamic_batch").model
    assert I.input_shapes(dyn, None) == {"x": (1, 8)}
    assert I.parse_data_shape("[4,8]", ["x"]) == {"x": [4, 8]}
    assert I.input_shapes(dyn, None, {"x": [4, 8]}) == {"x": (4, 8)}
    with pytest.raises(ValidationError, match=r"--data-shape \[4, 9\] for input 'x' does not fit its shape \[\?,8\]"):
        I.input_shapes(dyn, None, {"x": [4, 9]})
    with pytest.raises(ValidationError, match="names input 'y'; the model's inputs are \\['x'\\]"):
        I.parse_data_shape("y[1]", ["x"])
    with pytest.raises(ValidationError, match="dimensions of 'x' must be integers"):
        I.parse_data_shape("x[a,b]", ["x"])


# ---- configuration ------------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "message"), [
    ({"api": "batch"}, "api 'batch' is not one of sync, async"),
    ({"hint": "fast"}, "performance hint 'fast' is not one of latency"),
    ({"nstreams": 2, "hint": "latency"}, "nstreams=2 is a fine-tuning option that needs hint 'none'"),
    ({"niter": 0}, "niter must be an integer >= 1, not 0"),
    ({"api": "sync", "nireq": 4}, "nireq=4 needs the async API"),
    ({"duration_s": -1.0}, "duration must be a positive number of seconds"),
    ({"percentile": 101}, r"percentile must be an integer in 1\.\.100, not 101"),
])
def test_bad_configuration_is_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        BenchConfig(**kwargs).resolved()


def test_defaults_follow_benchmark_app() -> None:
    assert (BenchConfig().resolved().api, BenchConfig().resolved().hint) == ("async", "throughput")
    assert BenchConfig(hint="latency").resolved().api == "sync"
    assert BenchConfig(api="sync").resolved().hint == "latency"
    assert BenchConfig().resolved().duration_s == 5.0 and BenchConfig(niter=3).resolved().duration_s is None


# ---- the runner on REFERENCE -------------------------------------------------------------------

def test_sync_run_on_reference(core: Core) -> None:
    result = run_benchmark(core, "REFERENCE", resolve_model("lenet"), BenchConfig(niter=7, api="sync"))
    assert result.stats.count == 7 and result.nireq == 1 and result.first_inference_ms > 0
    assert result.compile_config == {"PERFORMANCE_HINT": "LATENCY", "PERF_COUNT": True}
    assert result.device_properties["PERFORMANCE_HINT"] == "LATENCY"
    assert len(result.counters) == 1 and len(result.counter_samples) == 1 + 4
    assert result.runtime_originals is not None and "conv1" in result.runtime_originals
    assert result.blas["threads"] is None or result.blas["threads"] >= 1


def test_async_run_rounds_up_to_whole_request_rounds(core: Core) -> None:
    cfg = BenchConfig(niter=5, api="async", hint="none", nstreams=2, nireq=3, perf_count=False)
    result = run_benchmark(core, "REFERENCE", resolve_model("mlp"), cfg)
    assert result.nireq == 3 and result.stats.count == 6  # benchmark_app: until iteration % nireq == 0
    assert str(result.device_properties["NUM_STREAMS"]) == "2" and "PERFORMANCE_HINT" not in result.compile_config
    assert result.counters == [] and result.stats.throughput_fps > 0


def test_duration_bound_run(core: Core) -> None:
    result = run_benchmark(core, "REFERENCE", resolve_model("mlp"), BenchConfig(duration_s=0.2, api="sync",
                                                                               inputs="random", pool=4))
    assert result.stats.count > 1 and result.stats.duration_ms >= 200.0 and result.inputs["sets"] == 4


def test_progress_bar_draws_when_enabled() -> None:
    import io

    out = io.StringIO()
    bar = Progress(10, None, enabled=True, stream=out, label="X ")
    bar.update(5)
    bar.close(10)
    text = out.getvalue()
    assert "X [###############---------------]  50.0% 5 it" in text and "100.0% 10 it" in text
    silent = Progress(10, None, stream=io.StringIO())
    silent.update(5)
    assert not silent.enabled and silent.draws == 0 and silent.fraction == 0.5


def test_blas_info_and_pinning() -> None:
    info = blas_info()
    assert set(info) == {"source", "libraries", "threads", "env"}
    if info["threads"] is None:
        pytest.skip(f"no BLAS thread control here: {info['source']}")
    before = info["threads"]
    try:
        assert set_blas_threads(1)["threads"] == 1
    finally:
        set_blas_threads(before)
    with pytest.raises(ValidationError, match="BLAS threads must be an integer >= 1, not 0"):
        set_blas_threads(0)


# ---- documents and files ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cnn_doc(core: Core) -> dict[str, Any]:
    result = run_benchmark(core, "REFERENCE", resolve_model("cnn"), BenchConfig(niter=5, api="sync"))
    return report.perf_document(result, command_line=["ovconform", "bench", "--plugin", "REFERENCE", "-niter", "5"])


def test_perf_document(cnn_doc: dict[str, Any]) -> None:
    assert cnn_doc["results"]["iterations"] == 5 and cnn_doc["config"]["api"] == "sync"
    counters = cnn_doc["counters"]
    assert counters["available"] and counters["checked_runs"] == 5 and counters["total_flops"] > 1e7
    assert counters["sorted"][0]["node_type"] == "Convolution"
    ops = {o["op"]: o for o in counters["original_ops"]}
    assert ops["conv1"]["gflops_per_s"] > 0 and ops["conv1"]["macs"] == 16 * 64 * 64 * 27
    assert {f["check"] for f in cnn_doc["findings"]} >= {"non_negative", "executed_ops_present", "sum_within_latency",
                                                         "latency_coverage", "original_ops_mapped"}
    assert not [f for f in cnn_doc["findings"] if f["status"] == "error"]
    small = report.compact(cnn_doc, top=3)
    assert len(small["counters"]["sorted"]) == 3 and "detailed" not in small["counters"]
    json.dumps(small)


def test_benchmark_app_files(cnn_doc: dict[str, Any], tmp_path: Path) -> None:
    paths = report.write_reports(cnn_doc, tmp_path, report_type="detailed_counters", sorted_report=True)
    names = {p.name for p in paths}
    assert names == {"benchmark_report.csv", "benchmark_report.json", "perf.json",
                     "benchmark_detailed_counters_report.csv", "benchmark_detailed_counters_report.json",
                     "benchmark_original_ops_report.csv",
                     "benchmark_sorted_report.csv", "benchmark_sorted_report.json"}
    main = json.loads((tmp_path / "benchmark_report.json").read_text())
    assert set(main) == {"cmd_options", "configuration_setup", "execution_results"}
    assert main["cmd_options"] == {"--plugin": "REFERENCE", "-niter": "5"}
    for key in ("topology", "target device", "API", "number of parallel infer requests", "BLAS threads"):
        assert key in main["configuration_setup"]
    results = main["execution_results"]
    for key in ("first inference time (ms)", "total execution time (ms)", "total number of iterations", "latency (ms)",
                "avg latency", "min latency", "max latency", "throughput", "counters coverage of latency (%)"):
        assert key in results
    assert results["total number of iterations"] == "5"
    csv_text = (tmp_path / "benchmark_report.csv").read_text()
    assert csv_text.startswith("Command line parameters\n") and "Execution results\nfirst" not in csv_text
    assert "\nlatency (ms);" in csv_text and "\nthroughput;" in csv_text
    detailed = json.loads((tmp_path / "benchmark_detailed_counters_report.json").read_text())
    assert detailed["report_type"] == "detailed" and len(detailed["detailed_performance"]) == 1
    node = detailed["detailed_performance"][0]["nodes"][0]
    assert set(node) == {"name", "node_type", "status", "real_time", "cpu_time", "exec_type"}
    assert node["status"].startswith("Status.")
    counters_csv = (tmp_path / "benchmark_detailed_counters_report.csv").read_text().splitlines()
    assert counters_csv[0] == "layerName;execStatus;layerType;execType;realTime (ms);cpuTime (ms)"
    assert any(line.startswith("Total;;;;") for line in counters_csv)
    sorted_rows = list(csv.reader((tmp_path / "benchmark_sorted_report.csv").read_text().splitlines()))
    assert sorted_rows[0][-1] == "proportion (%)" and sorted_rows[1][2] == "Convolution"
    assert sorted_rows[1][-1].endswith("%")
    ops_csv = (tmp_path / "benchmark_original_ops_report.csv").read_text().splitlines()
    assert ops_csv[0].split(";")[-3:] == ["FLOPs", "MACs", "GFLOP/s"]
    assert json.loads((tmp_path / "perf.json").read_text())["model"] == "cnn"


def test_average_report_and_no_counters(cnn_doc: dict[str, Any], tmp_path: Path) -> None:
    report.write_reports(cnn_doc, tmp_path / "a")
    avg = json.loads((tmp_path / "a" / "benchmark_average_counters_report.json").read_text())
    assert avg["report_type"] == "average" and avg["avg_performance"]["nodes"]
    names = {p.name for p in report.write_reports(cnn_doc, tmp_path / "n", report_type="no_counters")}
    assert names == {"benchmark_report.csv", "benchmark_report.json", "perf.json"}
    with pytest.raises(ValidationError, match="report type 'sorted' is not one of no_counters"):
        report.write_reports(cnn_doc, tmp_path / "x", report_type="sorted")


def test_console_text(cnn_doc: dict[str, Any]) -> None:
    text = report.console_text(cnn_doc)
    for line in ("First inference took", "Count:            5 iterations", "Median:", "Throughput:",
                 "Per-op counters", "latency_coverage: per-op counters sum to"):
        assert line in text


def test_device_comparison_ratios() -> None:
    def doc(device: str, lat: float, fps: float, model: str = "cnn") -> dict[str, Any]:
        return {"device": device, "model": model, "config": {"api": "async", "hint": "throughput"},
                "results": {"latency_ms": {"at_percentile": lat, "average": lat}, "throughput_fps": fps}}

    table = comparison([doc("A", 10.0, 100.0), doc("B", 5.0, 250.0), doc("A", 2.0, 50.0, "mlp"),
                        doc("B", 4.0, 25.0, "mlp")])
    rows = {(r["model"], r["device"]): r for r in table["rows"]}
    assert table["baseline"] == "A" and rows[("cnn", "B")]["latency_ratio"] == 0.5
    assert rows[("cnn", "B")]["throughput_ratio"] == 2.5 and rows[("mlp", "B")]["latency_ratio"] == 2.0
    assert table["geomean"]["B"]["latency_ratio"] == pytest.approx(1.0)
    assert "geomean;B;;;;1.000;1.118" in comparison_csv(table)


def test_a_zoo_model_with_a_skip_reason_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from ovconform.suites import _zoo

    real = _zoo.builtin()
    skipped = _zoo.ZooModel("rnn", real[0].build, skip="RNNSequence is not in ovconform.opset yet")
    monkeypatch.setattr(_zoo, "builtin", lambda: [*real, skipped])
    assert "rnn" not in zoo_names() and "mlp" in zoo_names()
    with pytest.raises(NotFoundError, match=r"zoo model 'rnn' cannot be built: RNNSequence is not in ovconform"):
        resolve_model("rnn")


def test_blas_pin_and_what_the_run_used_are_recorded(core: Core) -> None:
    if blas_info()["threads"] is None:
        pytest.skip("no BLAS thread control here")
    before = blas_info()["threads"]
    try:
        result = run_benchmark(core, "REFERENCE", resolve_model("mlp"), BenchConfig(niter=2, api="sync",
                                                                                   blas_threads=1))
    finally:
        set_blas_threads(before)
    assert result.blas["requested"] == 1 and result.blas["threads_at_start"] == 1
    assert result.blas["threads"] >= 1  # after the run: what the device left (REFERENCE sets its own)
    text = report.console_text(report.perf_document(result))
    assert "BLAS threads" in text and "pinned to 1" in text


def test_a_fused_node_is_shown_under_each_original_op(core: Core) -> None:
    """REFERENCE fuses Relu(Relu(x)) into one node whose ORIGINAL_NAMES are both Relus."""
    from ovconform import opset as ops
    from ovconform.bench.models import BenchModel
    from ovconform.ir import Model, Type

    x = ops.parameter([1, 64], Type.f32, name="x")
    a = ops.add(x, ops.constant(np.ones(64, np.float32), Type.f32), name="a")
    model = Model([ops.relu(ops.relu(a, name="r1"), name="r2")], [x], "fused")
    result = run_benchmark(core, "REFERENCE", BenchModel("fused", model, "test"), BenchConfig(niter=3, api="sync"))
    assert result.runtime_originals is not None and result.runtime_originals["r2"] == ["r1", "r2"]
    doc = report.perf_document(result)
    ops_by_name = {o["op"]: o for o in doc["counters"]["original_ops"]}
    assert ops_by_name["r1"]["executed_as"] == ops_by_name["r2"]["executed_as"] == ["r2"]
    assert ops_by_name["r1"]["real_time_ms"] == ops_by_name["r2"]["real_time_ms"] > 0
    assert ops_by_name["r1"]["shared_with"] == ["r2"] and ops_by_name["a"]["shared_with"] == []
    assert doc["verdict"] in ("ok", "warning")
    assert {f["check"]: f["status"] for f in doc["findings"]}["original_ops_mapped"] == "ok"


def test_constant_subgraphs_of_the_runtime_model_need_no_counter() -> None:
    """OpenVINO CPU's execution graph keeps e.g. Reshape(Const) nodes that run once at compile
    time and never get a counter; they must not be reported as missing."""
    from ovconform import opset as ops
    from ovconform.bench.runner import _runtime_map
    from ovconform.ir import Model, Type

    x = ops.parameter([1, 4], Type.f32, name="x")
    w = ops.reshape(ops.constant(np.ones(4, np.float32), Type.f32), ops.constant(np.array([1, 4], np.int64)), False,
                    name="w_reshape")
    graph = Model([ops.add(x, w, name="add")], [x], "g")
    graph.get_ordered_ops()[-2].rt_info["layerType"] = "Eltwise"

    class Compiled:
        def get_runtime_model(self) -> Model:
            return graph

    _, originals, types, _, error = _runtime_map(Compiled())
    assert error == "" and types["w_reshape"] == "Constant" and types["add"] == "Eltwise"
    found = C.check([C.rows([_info("add", 1.0)])], [1.1], executed_ops=types, originals=originals,
                    original_types=types)
    assert {f["check"]: f["status"] for f in found}["executed_ops_present"] == "ok"


def test_async_loop_gives_up_when_no_request_completes(core: Core, monkeypatch: pytest.MonkeyPatch) -> None:
    from ovconform.bench import runner
    from ovconform.errors import InferError

    monkeypatch.setattr(runner, "COMPLETION_TIMEOUT_S", 0.2)
    compiled = core.compile_model(resolve_model("mlp").model, "REFERENCE")
    silent = compiled.create_infer_request()
    silent.set_callback = lambda *args: None  # a device that never calls back
    silent.start_async = lambda: None
    with pytest.raises(InferError, match=r"no infer request completed within 0\.2 s .* after 1 started run"):
        runner._async_loop([silent], [[]], BenchConfig(niter=3).resolved(),
                           runner.Progress(3, None, enabled=False), [[]])


def test_every_request_is_warmed_together_before_the_timed_loop(core: Core, monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmark_app warms every request before timing: with several requests, each has completed a
    run, all started together, when the timed loop begins (a REFERENCE stream's worker builds its
    program on its first run; that run used to land inside a latency: cnn's max latency was the
    whole run), and the warm-up time is reported apart."""
    from ovconform.bench import runner

    runs: dict[int, int] = {}
    at_loop: dict[int, int] = {}
    real_loop = runner._async_loop

    def watched_loop(requests: list[Any], *args: Any) -> Any:
        at_loop.update({id(r): runs.get(id(r), 0) for r in requests})
        return real_loop(requests, *args)

    real_wait = runner._warm_up

    def counting_warm_up(requests: list[Any], history: list[list[float]]) -> float:
        for r in requests:
            runs[id(r)] = runs.get(id(r), 0) + 1
        return real_wait(requests, history)

    monkeypatch.setattr(runner, "_async_loop", watched_loop)
    monkeypatch.setattr(runner, "_warm_up", counting_warm_up)
    result = run_benchmark(core, "REFERENCE", resolve_model("mlp"), BenchConfig(niter=6, api="async", nireq=3))
    assert len(at_loop) == 3 and set(at_loop.values()) == {1}
    assert result.warmup_ms > 0
    doc = report.perf_document(result)
    assert doc["results"]["warmup_ms"] > 0 and "Warm-up of 3 request(s) took" in report.console_text(doc)
    sync = run_benchmark(core, "REFERENCE", resolve_model("mlp"), BenchConfig(niter=3, api="sync"))
    assert sync.warmup_ms == 0.0
