"""``benchmarks/architectures.py`` (issue #26's real-architecture benchmark) and the classic
architectures it measures: the graph's memory budget counted by hand on small graphs, the
``--quick`` run end to end (so the script does not rot), and DenseNet-121, Inception-v2 and
ShuffleNet v2 at their published sizes."""

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


@pytest.mark.openvino
def test_quick_run_writes_the_table(tmp_path: Path) -> None:
    pytest.importorskip("openvino")
    out = tmp_path / "architectures.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)], capture_output=True, text=True,
                          timeout=300, check=False, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert list(doc["architectures"]) == ["shufflenet_v2", "mobilenet_v3_small"]
    assert doc["protocol"]["input_size"] == 64 and doc["command"].endswith("--quick --out " + str(out))
    for name, p in doc["architectures"].items():
        assert set(p["ms"]) == {"reference", "openvino", "openvino_1t"} and min(p["ms"].values()) > 0, name
        assert p["input_shape"] == [1, 3, 64, 64]
        assert p["peak_rss_mib"] >= p["rss_before_mib"] > p["rss_empty_mib"] > 0
        assert 0 < p["weights"] < p["budget"]
        assert p["same_process"]["ratio"] > 0 and len(p["same_process"]["alone_ms"]) == 1
    assert set(doc["geomeans"]) == {"reference_over_openvino", "reference_over_openvino_1t", "same_process_ratio",
                                    "peak_over_budget"}
    md = out.with_suffix(".md").read_text()
    assert "| shufflenet_v2 |" in md and "| **geomean** |" in md and "python benchmarks/architectures.py" in md


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
