"""The real architectures (``ovconform.models``) and their model suite (``suites/test_real_models.py``).

One pytest run (from a temporary folder, the installed suites, ``-k test_real_model``) tests
REFERENCE and the devices of ``tests/plugins/model_faulty_devices.py`` on the quick tier.
REFERENCE passes every architecture and records the error of every decode step. The KV cache
that drops its oldest entry after 8 runs fails the decoder only, from decode step 9 on, with the
cache's ReadValue named; the Convolution wrong from 512 input channels fails ResNet-50 (first
reached in layer2, after 14 convolutions) and the squeeze-excite convs of MobileNetV3/EfficientNet
that reach 512 channels, with that Convolution named and a single-op reproducer; the decoder
(no convolution) passes. In process: the tiers, the errors for unknown names, the op/weight/FLOP
counts, ``ovconform models``, and the locator on the KV fault.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import once_per_session, run_devices
from plugins import model_faulty_devices as faults

from ovconform import Core, models
from ovconform.cli import main
from ovconform.errors import NotFoundError
from ovconform.suites import _locate

QUICK = ("mobilenet_v3_small", "resnet50_64px", "efficientnet_b0", "llama_decoder")
#: device -> the architectures it must fail (every other quick one passes).
EXPECTED_FAILURES = {
    "REFERENCE": set(),
    faults.KvCacheDropsOldest.device_name: {"llama_decoder"},
    faults.WideConvolutionWrong.device_name: {"resnet50_64px", "mobilenet_v3_small", "efficientnet_b0"},
}


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"model_faulty_devices:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", "test_real_model")
    out = {name: {r["facts"]["model"]: r for r in doc["records"]} for name, doc in docs.items()}
    assert set(out) == set(EXPECTED_FAILURES), f"reports {sorted(out)}"
    return out


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "real_model_runs", _run)


@pytest.mark.parametrize("device", sorted(EXPECTED_FAILURES))
def test_each_device_fails_exactly_its_architectures(records: dict[str, dict[str, dict[str, Any]]],
                                                     device: str) -> None:
    got = records[device]
    assert set(got) == set(QUICK)
    failing = {name for name, r in got.items() if r["status"] != "passed"}
    assert failing == EXPECTED_FAILURES[device], {n: got[n]["message"][:300] for n in failing}
    assert all(got[n]["status"] == "failed" for n in failing)


def test_reference_records_the_error_of_every_decode_step(records: dict[str, dict[str, dict[str, Any]]]) -> None:
    steps = records["REFERENCE"]["llama_decoder"]["facts"]["step_errors"]
    assert [s["step"] for s in steps] == list(range(17))  # the prefill, then 16 decode steps
    assert all(s["passed"] and s["max_abs_err"] is not None for s in steps)


def test_kv_cache_fault_names_the_cache_read_from_step_9(records: dict[str, dict[str, dict[str, Any]]]) -> None:
    r = records[faults.KvCacheDropsOldest.device_name]["llama_decoder"]
    steps = r["facts"]["step_errors"]
    assert [s["step"] for s in steps if not s["passed"]] == list(range(faults.KV_GOOD_RUNS + 1, 17))
    good = max(s["max_abs_err"] for s in steps[: faults.KV_GOOD_RUNS + 1])
    assert min(s["max_abs_err"] for s in steps[faults.KV_GOOD_RUNS + 1:]) > 100 * good
    assert "first diverging op: ReadValue 'layers.0.self_attn.key_cache.read' at step 9" in r["message"]
    assert "shape mismatch: got [1, 2, 39, 32], expected [1, 2, 40, 32]" in r["message"]


def test_wide_convolution_fault_names_the_first_wide_convolution(
        records: dict[str, dict[str, dict[str, Any]]]) -> None:
    device = faults.WideConvolutionWrong.device_name
    r = records[device]["resnet50_64px"]
    # layer2's blocks output 512 channels: layer2.1.conv1 is the first convolution that reads 512
    assert "first diverging op: Convolution 'layer2.1.conv1' at step 0" in r["message"]
    for name in ("mobilenet_v3_small", "efficientnet_b0"):
        assert "first diverging op: Convolution 'features." in records[device][name]["message"]
        assert ".se.fc1' at step 0" in records[device][name]["message"]
    repro = Path(r["facts"]["repro"]).parent
    meta = json.loads((repro / "meta.json").read_text())
    assert meta["parameters"] == ["in0"] and meta["steps"] == 1  # the op alone, fed its real input
    inputs = np.load(repro / "inputs.npz", allow_pickle=False)
    assert inputs["s0__in0"].shape[1] == faults.WIDE_CHANNELS


def test_tiers_and_unknown_names() -> None:
    quick = [a.name for a in models.architectures("quick")]
    full = [a.name for a in models.architectures("full")]
    assert quick == list(QUICK)
    assert set(quick) < set(full)
    assert {"resnet50", "bert_base", "whisper_tiny_encoder", "yolo_detector", "rnn_tagger",
            "llama_decoder_1b"} <= set(full)
    with pytest.raises(NotFoundError, match=r"model tier 'nightly' does not exist; allowed: quick, full"):
        models.architectures("nightly")
    with pytest.raises(NotFoundError, match=r"architecture 'resnet51' does not exist; known: .*resnet50"):
        models.get("resnet51")


def test_counts_static_and_dynamic_models() -> None:
    mobilenet = models.stats(models.get("mobilenet_v3_small"))
    assert mobilenet["weights"] > 2_500_000 and 100e6 < mobilenet["flops"] < 140e6  # ~56M MACs, plus eltwise
    llama = models.get("llama_decoder")
    counted = models.stats(llama)
    lm_head = 256 * 2048
    assert counted["flops"] > 2 * 32 * lm_head  # counted at the 32-token prefill: the dynamic shapes resolved
    assert counted["ops"] > 100
    # LSTM (2 directions, 4 gates) and GRU (3 gates) MatMuls of 4 sequences x 64 steps, then the dense head
    lstm, gru, head = 2 * 4 * 64 * 2 * 1024 * (256 + 256), 2 * 4 * 64 * 768 * (512 + 256), 2 * 4 * 64 * 256 * 32
    assert models.stats(models.get("rnn_tagger"))["flops"] >= lstm + gru + head


def test_models_command_lists_the_architectures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "--tier", "quick"]) == 0
    out = capsys.readouterr().out
    for name in QUICK:
        assert name in out
    assert "GFLOPs" in out and "weights" in out
    assert main(["models", "--tier", "quick", "--no-counts"]) == 0
    assert "resnet50_64px" in capsys.readouterr().out


def test_locator_finds_the_kv_cache_in_process() -> None:
    core = Core(discover=False)
    core.register_plugin(faults.KvCacheDropsOldest, faults.KvCacheDropsOldest.device_name)
    arch = models.get("llama_decoder")
    model = arch.build()
    steps = arch.make_steps(model)
    found = _locate.first_divergence(core, faults.KvCacheDropsOldest.device_name, model, steps, 9)
    assert found is not None and found.inputs_agree
    assert (found.op_type, found.name, found.step) == ("ReadValue", "layers.0.self_attn.key_cache.read", 9)
    assert _locate.first_divergence(core, faults.KvCacheDropsOldest.device_name, model, steps, 8) is None


@pytest.mark.parametrize("name", ["whisper_tiny_encoder", "yolo_detector", "rnn_tagger"])
def test_full_tier_architectures_build(name: str) -> None:
    arch = models.get(name)
    model = arch.build()
    steps = arch.make_steps(model)
    assert {p.friendly_name for p in model.get_parameters()} == set(steps[0])
