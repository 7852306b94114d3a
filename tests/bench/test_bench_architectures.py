"""``ovconform bench --model NAME`` for the real architectures of ``ovconform.models``: listed in
``--help`` and ``--list-models``, run on REFERENCE fed their first step; a stateful model runs from
its initial state at every run (a model whose state grows by its input fails on a second run
otherwise), with the sync and the async API."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ovconform import Core, Model, models
from ovconform import opset as ops
from ovconform.bench.models import BenchModel, available, resolve_model
from ovconform.bench.runner import BenchConfig, run_benchmark
from ovconform.cli import main
from ovconform.errors import NotFoundError, OVConformError
from ovconform.ir import Type
from reference_plugin.plugin import ReferencePlugin


def test_help_and_list_name_every_architecture(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert main(["bench", "--list-models"]) == 0
    listed = capsys.readouterr().out.split()
    for arch in models.ARCHITECTURES:
        assert arch.name in help_text and arch.name in listed
    assert set(available()) >= {a.name for a in models.ARCHITECTURES}


def test_resolve_builds_the_architecture_with_its_first_step() -> None:
    bench_model = resolve_model("arch:llama_decoder_u4")
    assert bench_model.source == "ovconform.models" and bench_model.name == "llama_decoder_u4"
    assert bench_model.example_inputs is not None and bench_model.example_inputs["input_ids"].shape == (1, 32)
    with pytest.raises(NotFoundError, match=r"--model 'arch:resnet51' names no model; available: .*resnet50"):
        resolve_model("arch:resnet51")


def _growing_state() -> Model:
    """out = Reshape(Concat(state, x), [1, 8]); state = that Concat: a second run on the same state
    has 16 values to reshape into 8 and fails."""
    x = ops.parameter([1, 8], Type.f32, name="x")
    past = ops.read_value(ops.constant(np.zeros((1, 0), np.float32), Type.f32), "cache", Type.f32, [1, -1],
                          name="cache.read")
    full = ops.concat([past, x], 1, name="cache.concat")
    out = ops.reshape(full, ops.constant(np.array([1, 8], np.int64), Type.i64), False, name="out")
    return Model([out], [ops.assign(full, "cache", name="cache.assign")], [x], "growing_state")


@pytest.mark.parametrize("api", ["sync", "async"])
def test_a_stateful_model_runs_from_its_initial_state(api: str) -> None:
    core = Core(discover=False)
    core.register_plugin(ReferencePlugin, "REFERENCE")
    bench_model = BenchModel("growing_state", _growing_state(), "test")
    cfg = BenchConfig(api=api, niter=6, nireq=2 if api == "async" else None, progress=False)
    result = run_benchmark(core, "REFERENCE", bench_model, cfg)
    assert result.stats.count >= 6
    plain = core.compile_model(bench_model.model, "REFERENCE").create_infer_request()
    plain.infer({0: np.ones((1, 8), np.float32)})
    with pytest.raises(OVConformError):  # what the bench would hit without the reset
        plain.infer({0: np.ones((1, 8), np.float32)})


def test_a_decoder_benchmarks_its_prefill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "--plugin", "REFERENCE", "--model", "llama_decoder", "-niter", "12", "-api", "sync",
                 "--no-progress", "-report_folder", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    doc = json.loads((tmp_path / "REFERENCE" / "llama_decoder" / "perf.json").read_text())
    assert doc["inputs"]["input_ids"]["shape"] == [1, 32]
    results = json.loads((tmp_path / "REFERENCE" / "llama_decoder" / "benchmark_report.json").read_text())
    assert int(results["execution_results"]["total number of iterations"]) == 12


def test_async_requests_of_a_decoder_reset_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "--plugin", "REFERENCE", "--model", "llama_decoder", "-niter", "12", "-api", "async",
                 "-nireq", "2", "--no-pc", "--no-progress", "-report_folder", str(tmp_path)])
    assert code == 0, capsys.readouterr().out[-2000:]


def test_architectures_keyword_runs_the_quick_tier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "--plugin", "REFERENCE", "--model", "architectures", "-niter", "1", "-api", "sync",
                 "--no-pc", "--no-progress", "-report_folder", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    assert out.count("Throughput:") == len(models.architectures("quick"))
    assert {p.name for p in (tmp_path / "REFERENCE").iterdir()} == {a.name for a in models.architectures("quick")}
