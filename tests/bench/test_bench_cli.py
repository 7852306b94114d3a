"""``ovconform bench``: options, the zoo on REFERENCE, files, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ovconform.bench.models import zoo_names
from ovconform.cli import main


def test_every_zoo_model_prints_stats_and_writes_json_and_csv(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture) -> None:
    code = main(["bench", "--plugin", "REFERENCE", "--model", "zoo", "-niter", "3", "-report_folder", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    names = zoo_names()
    assert out.count("First inference took") == len(names) == out.count("Throughput:")
    for name in names:
        folder = tmp_path / "REFERENCE" / name
        results = json.loads((folder / "benchmark_report.json").read_text())["execution_results"]
        assert int(results["total number of iterations"]) >= 3 and float(results["throughput"]) > 0
        assert (folder / "benchmark_report.csv").read_text().startswith("Command line parameters")
        assert (folder / "benchmark_average_counters_report.csv").stat().st_size > 0
    assert (tmp_path / "bench.html").read_text().count('<tr class="perf-row">') == len(names)


def test_options_reach_the_run(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["bench", "--plugin", "reference", "--model", "dynamic_batch", "-niter", "4", "-api", "sync",
                 "-latency_percentile", "90", "--inputs", "random", "--seed", "3", "--data-shape", "[5,8]",
                 "--property", "INFERENCE_PRECISION_HINT=f32", "-report_type", "detailed_counters", "-pcsort",
                 "simple_sort", "--no-progress", "-report_folder", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "90 percentile:" in out
    folder = tmp_path / "REFERENCE" / "dynamic_batch"
    doc = json.loads((folder / "perf.json").read_text())
    assert doc["inputs"]["x"]["shape"] == [5, 8] and doc["inputs"]["mode"] == "random" and doc["inputs"]["seed"] == 3
    assert doc["config"]["percentile"] == 90 and doc["compile_config"]["INFERENCE_PRECISION_HINT"] == "f32"
    results = json.loads((folder / "benchmark_report.json").read_text())
    assert "latency (90 percentile) (ms)" in results["execution_results"]
    assert results["cmd_options"]["-latency_percentile"] == "90"
    assert (folder / "benchmark_detailed_counters_report.json").exists()
    assert json.loads((folder / "benchmark_sorted_report.json").read_text())["report_type"] == "sorted"


def test_list_models(capsys: pytest.CaptureFixture) -> None:
    assert main(["bench", "--list-models"]) == 0
    names = capsys.readouterr().out.split()
    assert "cnn" in names and "anchor:mlp" in names and "mlp" in names


@pytest.mark.parametrize(("argv", "message"), [
    (["bench", "--model", "cnn"], "--plugin and --model are required"),
    (["bench", "--plugin", "NOPE", "--model", "cnn"], "--plugin='NOPE' matches no installed device"),
    (["bench", "--plugin", "REFERENCE", "--model", "cnn", "--property", "PERF_COUNT"],
     "--property 'PERF_COUNT' must be KEY=VALUE"),
])
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["-niter", "0"], ["-latency_percentile", "101"], ["-t", "-1"], ["-api", "x"]])
def test_bad_values_are_refused_by_the_parser(argv: list[str], capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--plugin", "REFERENCE", "--model", "cnn", *argv])
    assert exc.value.code == 2
    assert "error: argument" in capsys.readouterr().err


def test_a_failed_run_writes_the_error_report_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["bench", "--plugin", "REFERENCE", "--model", "resnet51", "--model", "mlp", "-niter", "2",
                 "-report_folder", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 1
    assert "[ ERROR ] REFERENCE / resnet51: NotFoundError: --model 'resnet51' names no model" in captured.err
    report = json.loads((tmp_path / "REFERENCE" / "resnet51" / "benchmark_report.json").read_text())
    assert report["execution_results"]["error"].startswith("NotFoundError: --model 'resnet51'")
    assert (tmp_path / "REFERENCE" / "mlp" / "perf.json").exists()  # the other model still ran

    code = main(["bench", "--plugin", "REFERENCE", "--model", "cnn", "-nstreams", "2", "-niter", "1",
                 "-report_folder", str(tmp_path)])
    assert code == 1 and "needs hint 'none'" in capsys.readouterr().err


def test_exec_graph_dump(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from ovconform import Core

    assert main(["bench", "--plugin", "REFERENCE", "--model", "lenet", "-niter", "2", "-exec_graph",
                 "-report_folder", str(tmp_path)]) == 0
    graph = Core(discover=False).read_model(str(tmp_path / "REFERENCE" / "lenet" / "exec_graph.xml"))
    conv = next(n for n in graph.get_ordered_ops() if n.friendly_name == "conv1")
    assert conv.rt_info["originalLayersNames"] == "conv1" and float(conv.rt_info["execTimeMcs"]) > 0
