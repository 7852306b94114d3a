"""``ovconform bench --model llama_decoder``: the prefill and each decode step timed apart, every decode
step on the KV cache the prefill and the steps before it filled (``ovconform.bench.runner.time_decode``),
reported in perf.json, benchmark_report.json/csv and on the console."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ovconform import Core
from ovconform.bench import report
from ovconform.bench.models import resolve_model
from ovconform.bench.runner import BenchConfig, run_benchmark, time_decode
from ovconform.cli import main
from ovconform.errors import ValidationError
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

PREFILL, STEPS = 32, 16
#: The timing device's prefill and per-cached-token sleeps (s).
PREFILL_SLEEP, TOKEN_SLEEP = 0.03, 0.001


class _CacheTimedRequest(ReferenceSyncInferRequest):
    """Records the KV-cache length each run starts from, and sleeps PREFILL_SLEEP for a prefill
    and TOKEN_SLEEP per token past the prefill for a decode step: a step's time tells how full
    the cache it ran on was."""

    def _start_pipeline(self) -> None:
        cached = max((s.get_state().data.shape[-2] for s in self._states.values()
                      if s.is_written and s.get_state().data.ndim >= 3), default=0)
        tokens = self._input_arrays[0].shape[-1]
        self._compiled_model.seen.append((cached, tokens))  # type: ignore[attr-defined]
        time.sleep(PREFILL_SLEEP if tokens > 1 else TOKEN_SLEEP * (cached - PREFILL + 1))
        super()._start_pipeline()


class _CacheTimedCompiled(ReferenceCompiledModel):
    sync_request_class = _CacheTimedRequest


class CacheTimed(ReferencePlugin):
    device_name = "BENCH_CACHE_TIMED"

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        compiled = super()._compile_model(model, config, context)
        compiled.__class__ = _CacheTimedCompiled
        compiled.seen = []
        return compiled


def test_the_decoder_has_its_decode_steps_and_other_models_none() -> None:
    decoder = resolve_model("llama_decoder")
    assert decoder.example_inputs is not None and decoder.example_inputs["input_ids"].shape == (1, PREFILL)
    assert len(decoder.decode_steps) == STEPS
    assert all(step["input_ids"].shape == (1, 1) for step in decoder.decode_steps)
    assert resolve_model("mlp").decode_steps == () and resolve_model("resnet_basic_block").decode_steps == ()


def test_each_decode_step_is_timed_on_the_cache_the_prefill_filled() -> None:
    core = Core(discover=False)
    core.register_plugin(CacheTimed, CacheTimed.device_name)
    decoder = resolve_model("llama_decoder")
    compiled = core.compile_model(decoder.model, CacheTimed.device_name)
    timed = time_decode(compiled, decoder, rounds=2)
    # a warm-up sequence, then two timed ones: the prefill on an empty cache, step i on PREFILL + i - 1 tokens
    sequence = [(0, PREFILL), *((PREFILL + i, 1) for i in range(STEPS))]
    assert compiled.seen == sequence * 3
    assert (timed["rounds"], timed["steps"], len(timed["step_ms"])) == (2, STEPS, STEPS)
    assert len(timed["prefill_ms_all"]) == 2
    assert timed["prefill_ms"] >= PREFILL_SLEEP * 1000
    for i, ms in enumerate(timed["step_ms"]):  # step i waited for its i + 1 cached tokens past the prefill
        assert ms >= (i + 1) * TOKEN_SLEEP * 1000, (i, ms)
    assert min(timed["step_ms"]) <= timed["decode_median_ms"] <= max(timed["step_ms"])
    assert timed["decode_tokens_per_s"] == pytest.approx(1000 / timed["decode_median_ms"])


def test_bad_rounds_and_models_without_decode_steps() -> None:
    with pytest.raises(ValidationError, match=r"decode_rounds must be an integer >= 1, not 0"):
        BenchConfig(decode_rounds=0).resolved()
    core = Core(discover=False)
    core.register_plugin(ReferencePlugin, "REFERENCE")
    mlp = resolve_model("mlp")
    compiled = core.compile_model(mlp.model, "REFERENCE")
    with pytest.raises(ValidationError, match=r"model 'mlp' has no decode steps to time"):
        time_decode(compiled, mlp)
    with pytest.raises(ValidationError, match=r"decode_rounds must be an integer >= 1, not 0"):
        time_decode(compiled, resolve_model("llama_decoder"), rounds=0)


def test_bench_reports_prefill_and_decode_step_times(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "--plugin", "REFERENCE", "--model", "llama_decoder", "-niter", "2", "-api", "sync",
                 "-report_folder", str(tmp_path), "--decode-rounds", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    folder = tmp_path / "REFERENCE" / "llama_decoder"
    decode = json.loads((folder / "perf.json").read_text())["results"]["decode"]
    assert decode["steps"] == STEPS and decode["rounds"] == 2 and len(decode["step_ms"]) == STEPS
    assert decode["prefill_ms"] > 0 and decode["decode_median_ms"] > 0
    results = json.loads((folder / "benchmark_report.json").read_text())["execution_results"]
    assert float(results["prefill time (ms)"]) == pytest.approx(decode["prefill_ms"], abs=0.01)
    assert float(results["decode step time, median (ms)"]) == pytest.approx(decode["decode_median_ms"], abs=0.01)
    assert results["decode steps timed"] == f"{STEPS} x 2 round(s)"
    assert "prefill time (ms)" in (folder / "benchmark_report.csv").read_text()
    assert "Prefill:" in out and "Decode step:" in out


def test_models_without_decode_steps_report_no_decode() -> None:
    core = Core(discover=False)
    core.register_plugin(ReferencePlugin, "REFERENCE")
    result = run_benchmark(core, "REFERENCE", resolve_model("mlp"), BenchConfig(api="sync", niter=2, perf_count=False))
    assert result.decode is None
    doc = report.perf_document(result)
    assert "decode" not in doc["results"]
    assert not any(name.startswith(("prefill", "decode")) for name, _ in report.execution_results(doc))
