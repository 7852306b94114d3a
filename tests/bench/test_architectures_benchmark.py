"""``benchmarks/architectures.py`` (issues #24 and #26: every architecture's time per inference
on REFERENCE and OpenVINO CPU) and the classic architectures it measures: the graph's memory
budget counted by hand on small graphs (static, and a stateful one at each step's shapes), both
runtimes binding a step's inputs by parameter name and starting each run from the initial state,
the ``--quick`` run end to end (an image model and a stateful decoder with prefill and decode
steps: so the script does not rot), a model of several stateless steps (the greedy decoder's two
inputs) timed per inference, the ``--models`` selection, and
DenseNet-121, Inception-v2 and ShuffleNet v2 at their published sizes."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from _paths import REPO

from ovconform import Model, models
from ovconform import opset as ops
from ovconform.ir import Type

SCRIPT = REPO / "benchmarks" / "architectures.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_architectures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_budget_releases_a_value_after_its_last_reader() -> None:
    # x [1, 256] f32 = 1 KiB; a chain x -> relu -> multiply(const) -> result holds two values at a time
    x = ops.parameter([1, 256], Type.f32, name="x")
    scale = ops.constant(np.ones(256, np.float32), Type.f32)
    chain = Model([ops.multiply(ops.relu(x), scale)], [x], "chain")
    assert _script().memory_budget(chain) == {"weights": 1024, "activations": 2048, "budget": 3072}


def test_budget_keeps_a_value_until_its_last_reader_and_holds_results() -> None:
    # x feeds two branches: x, a and b alive together (3 KiB), then a, b and the sum; the first
    # branch is also a result, held to the end
    x = ops.parameter([1, 256], Type.f32, name="x")
    a = ops.relu(x)
    b = ops.sigmoid(x)
    total = ops.add(a, b)
    model = Model([ops.relu(total), a], [x], "branches")
    budget = _script().memory_budget(model)
    assert budget == {"weights": 0, "activations": 3072, "budget": 3072}


def _growing_state() -> Model:
    """out = Reshape(Concat(state, a - b), [1, 8]); state = that Concat. Parameters in the order
    (b, a): a runtime that binds inputs by position of the wrong model computes b - a; one that
    runs twice without resetting the state has 16 values to reshape into 8 and fails."""
    b = ops.parameter([1, 8], Type.f32, name="b")
    a = ops.parameter([1, 8], Type.f32, name="a")
    past = ops.read_value(ops.constant(np.zeros((1, 0), np.float32), Type.f32), "cache", Type.f32, [1, -1],
                          name="cache.read")
    full = ops.concat([past, ops.subtract(a, b, name="diff")], 1, name="cache.concat")
    out = ops.reshape(full, ops.constant(np.array([1, 8], np.int64), Type.i64), False, name="out")
    return Model([out], [ops.assign(full, "cache", name="cache.assign")], [b, a], "growing_state")


def test_budget_of_a_stateful_model_follows_each_steps_shapes() -> None:
    # step k: past holds 8k floats; x (32 B), past (32k B) and the Concat (32(k+1) B) are alive
    # together, then the Concat (held: the Assign stores it) and the Reshape: 64 + 64k bytes
    x = ops.parameter([1, 8], Type.f32, name="x")
    past = ops.read_value(ops.constant(np.zeros((1, 0), np.float32), Type.f32), "cache", Type.f32, [1, -1])
    full = ops.concat([past, x], 1)
    model = Model([ops.relu(full)], [ops.assign(full, "cache")], [x], "growing")
    script = _script()
    steps = [{"x": np.ones((1, 8), np.float32)} for _ in range(3)]
    assert not script._is_static(model)
    shapes = script.step_shapes(model, steps)
    assert [shapes[k][(id(full), 0)] for k in range(3)] == [(1, 8), (1, 16), (1, 24)]
    assert script.memory_budget(model, shapes) == {"weights": 0, "activations": 64 + 64 * 2, "budget": 192}
    assert script.memory_budget(model, shapes[:1])["activations"] == 64


def test_step_shapes_leave_out_constant_subgraphs_and_the_budget_counts_them_statically() -> None:
    # a u8 weight decompressed (Convert, Multiply: 4 KiB f32) feeding a MatMul on a growing state:
    # the probe must not hold the decompressed weight as a Result at every step (a decompressed copy
    # of every weight: what ran a 1.1B u4 decoder out of memory), yet the budget still counts it
    x = ops.parameter([1, 32], Type.f32, name="x")
    w8 = ops.constant(np.arange(1024, dtype=np.uint8).reshape(32, 32), Type.u8)
    weight = ops.multiply(ops.convert(w8, Type.f32), ops.constant(np.full((1, 32), 0.5, np.float32), Type.f32))
    past = ops.read_value(ops.constant(np.zeros((1, 0), np.float32), Type.f32), "cache", Type.f32, [1, -1])
    full = ops.concat([past, ops.matmul(x, weight, False, False)], 1)
    model = Model([ops.relu(full)], [ops.assign(full, "cache")], [x], "decompressed")
    script = _script()
    shapes = script.step_shapes(model, [{"x": np.ones((1, 32), np.float32)} for _ in range(2)])
    assert all((id(weight), 0) not in at for at in shapes)  # not probed: no Result held it
    assert [at[(id(full), 0)] for at in shapes] == [(1, 32), (1, 64)]
    # weights: 1 KiB u8 + 128 B scale; the decompressed weight (4 KiB) is alive with x, the MatMul,
    # past and the Concat
    budget = script.memory_budget(model, shapes)
    assert budget["weights"] == 1024 + 128
    assert budget["activations"] >= 4096 + 128 + 128 + 256


@pytest.mark.openvino
@pytest.mark.parametrize("runtime", ["REFERENCE", "OpenVINO"])
def test_a_runtime_binds_inputs_by_name_and_starts_each_run_from_the_initial_state(tmp_path: Path,
                                                                                   runtime: str) -> None:
    if runtime == "OpenVINO":
        pytest.importorskip("openvino")
    script = _script()
    a, b = np.arange(8, dtype=np.float32)[None], np.full((1, 8), 0.5, np.float32)
    written = script.write_folder(tmp_path, _growing_state(), [{"a": a, "b": b}])
    assert written == {"steps": 1, "stateful": True, "input_shapes": {"b": [1, 8], "a": [1, 8]}}
    runs = script._reference_runs(tmp_path) if runtime == "REFERENCE" else script._openvino_runs(tmp_path, None)
    timed = runs.run(3, warmup=1)
    assert len(timed) == 3 and all(len(t) == 1 and t[0] > 0 for t in timed)
    np.testing.assert_array_equal(np.asarray(runs.request.get_output_tensor(0).data), a - b)
    runs.stateful = False  # what a run without the reset meets: the state of the run before
    with pytest.raises(Exception):  # noqa: B017, PT011 - each runtime raises its own error type
        runs.run(2)


@pytest.mark.openvino
def test_quick_run_writes_the_table(tmp_path: Path) -> None:
    pytest.importorskip("openvino")
    out = tmp_path / "architectures.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)], capture_output=True, text=True,
                          timeout=300, check=False, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(out.read_text())
    arch = doc["architectures"]
    assert list(arch) == ["shufflenet_v2", "llama_decoder"]
    assert doc["protocol"]["input_size"] == {"shufflenet_v2": 64}
    assert doc["command"].endswith("--quick --out " + str(out))
    for name, p in arch.items():
        assert set(p["ms"]) == {"reference", "openvino", "openvino_1t"} and min(p["ms"].values()) > 0, name
        assert p["peak_rss_mib"] >= p["rss_before_mib"] > p["rss_empty_mib"] > 0
        assert 0 < p["weights"] < p["budget"]
        assert p["same_process"]["ratio"] > 0 and len(p["same_process"]["alone_ms"]) == 1
        assert all(len(v) == p["steps"] for v in p["step_ms"].values()), name
    assert arch["shufflenet_v2"]["input_shapes"] == {"image": [1, 3, 64, 64]}
    llama = arch["llama_decoder"]
    assert llama["input_shapes"] == {"input_ids": [1, 32]} and (llama["steps"], llama["stateful"]) == (17, True)
    for key in ("reference", "openvino", "openvino_1t"):
        # a run's time per inference is its prefill and 16 decode steps over 17
        assert llama["ms"][key] == pytest.approx(sum(llama["step_ms"][key]) / 17, rel=1e-9)
        assert llama["prefill_ms"][key] == llama["step_ms"][key][0] > 0
        assert llama["decode_step_ms"][key] > 0
    assert "prefill_ms" not in arch["shufflenet_v2"]
    assert set(doc["geomeans"]) == {"reference_over_openvino", "reference_over_openvino_1t", "same_process_ratio",
                                    "peak_over_budget"}
    assert doc["geomeans_issue26"]["architectures"] == ["shufflenet_v2"]
    md = out.with_suffix(".md").read_text()
    assert "| shufflenet_v2 | 1 |" in md and "| **geomean** |" in md and "python benchmarks/architectures.py" in md
    assert "| llama_decoder | 1 + 16 |" in md


@pytest.mark.openvino
@pytest.mark.parametrize("runtime", ["REFERENCE", "OpenVINO CPU f32 1 thread"])
def test_a_model_of_several_steps_is_timed_per_inference(tmp_path: Path, runtime: str) -> None:
    # the greedy decoder's two inputs (early exit, then the deep branch and the decoding Loop), in
    # this process: the child's timing, not its isolation, is under test
    if runtime != "REFERENCE":
        pytest.importorskip("openvino")
    script = _script()
    arch = models.get("greedy_decoder")
    model = arch.build()
    assert script.write_folder(tmp_path, model, arch.make_steps(model))["steps"] == 2
    out = script.child_time(tmp_path, runtime, warmup=1, calls=3)
    assert len(out["ms"]) == 3 and out["steps"] == 2 and len(out["step_ms"]) == 2 and "decode" not in out
    assert min(out["step_ms"]) > 0 and min(out["ms"]) > 0


def test_a_run_is_reported_per_inference_and_a_decoder_per_prefill_and_decode_step() -> None:
    script = _script()
    runs = [[1.0, 3.0, 5.0], [2.0, 4.0, 9.0], [3.0, 8.0, 7.0]]
    plain = script._timing(runs, stateful=False)
    assert plain == {"ms": [3.0, 5.0, 6.0], "steps": 3, "step_ms": [2.0, 4.0, 7.0]}
    decoder = script._timing(runs, stateful=True)["decode"]
    assert (decoder["prefill_ms"], decoder["step_ms"], decoder["decode_median_ms"]) == (2.0, [4.0, 7.0], 6.0)
    assert "decode" not in script._timing([[1.0], [2.0]], stateful=True)  # a stateful model of one step


def test_models_selects_every_architecture_but_the_opt_in_decoders(capsys: pytest.CaptureFixture[str]) -> None:
    script = _script()
    big = ("llama_decoder_1b", "llama_decoder_1b_u4", "llama_decoder_1b_i4")
    assert set(script.OPT_IN) == set(big) <= {a.name for a in models.architectures("full")}
    assert script.default_models() == [a.name for a in models.architectures("full") if a.name not in big]
    assert {"bert_base", "whisper_tiny_encoder", "yolo_detector", "rnn_tagger", "llama_decoder", "llama_decoder_u4",
            "llama_decoder_i4", "greedy_decoder", "resnet50"} <= set(script.default_models())
    with pytest.raises(SystemExit):
        script.main(["--models", "default,resnet51"])
    err = capsys.readouterr().err
    assert "unknown architecture(s) ['resnet51']" in err and "llama_decoder_1b" in err
    with pytest.raises(SystemExit):
        script.main(["--models", "rnn_tagger", "--calls", "0"])
    assert "--calls must be >= 1, not 0" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "weights", "gflops"), [
    # published: DenseNet-121 7.98M parameters, 2.87 GMACs; BN-Inception 11.3M (our BN counts 4 per
    # channel), ~2.0 GMACs; ShuffleNet v2 1.0x 2.28M, 146 MMACs
    ("densenet121", (7.9e6, 8.2e6), (5.6, 5.9)),
    ("inception_v2", (11.0e6, 11.4e6), (3.9, 4.2)),
    ("shufflenet_v2", (2.2e6, 2.4e6), (0.28, 0.31)),
])
def test_classic_architectures_at_their_published_size(name: str, weights: tuple[float, float],
                                                       gflops: tuple[float, float]) -> None:
    counted = models.stats(models.get(name))
    assert weights[0] < counted["weights"] < weights[1]
    assert gflops[0] < counted["flops"] / 1e9 < gflops[1]
    assert models.get(name).tier == "full"


def test_shufflenet_shuffles_channels_as_exported_models_do() -> None:
    model = models.get("shufflenet_v2").build()
    shuffles = [n for n in model.get_ordered_ops() if n.friendly_name.endswith(".shuffle_transpose")]
    assert len(shuffles) == 16
    for t in shuffles:
        before = t.input_value(0).node
        after = next(iter(t.output(0).get_target_inputs())).get_node()
        assert (before.type_name, after.type_name) == ("Reshape", "Reshape")
        assert t.input_value(1).node.data.tolist() == [0, 2, 1, 3, 4]
    assert sum(n.type_name == "Split" for n in model.get_ordered_ops()) == 13  # the stride-1 blocks
    assert list(model.output(0).get_partial_shape().to_shape()) == [1, 1000]


def test_densenet_concatenates_every_earlier_map() -> None:
    model = models.get("densenet121").build()
    concat = {n.friendly_name: n for n in model.get_ordered_ops() if n.type_name == "Concat"}
    # every dense layer after the first of its block reads a Concat, and each block ends in one
    assert len(concat) == 5 + 11 + 23 + 15 + 4
    assert concat["features.denseblock3.denselayer24.concat"].get_input_size() == 24
    assert list(concat["features.denseblock4"].get_output_partial_shape(0).to_shape()) == [1, 1024, 7, 7]
