"""The graph fuzz (``suites/test_graph_fuzz.py``, ``-m graphfuzz``) finds the devices of
``tests/plugins/fusion_faulty_devices.py``, shrinks each failure to a small graph that holds the
fused chain, and writes it as IR with a repro script that fails standalone; REFERENCE passes.
Without ``-m graphfuzz`` the fuzz is left out and the run is not called partial for it.

One pytest run (from a temporary folder, the installed suites, :data:`EXAMPLES` graphs per device).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _session import once_per_session, subprocess_env
from plugins import fusion_faulty_devices as faults

import ovconform.suites

PLUGINS = Path(faults.__file__).resolve().parent
EXAMPLES = 100
#: fault class -> an op type its shrunk graph must hold, and the most ops that graph may have.
SHRUNK = {"ConvBiasReluDropsLastBlock": ("Convolution", 4), "AttentionIgnoresMask": ("Softmax", 16),
          "DecompressionDropsZeroPoint": ("Subtract", 7)}


def _pytest(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in subprocess_env(PLUGINS).items() if not k.startswith("OVCONFORM_")}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
           *args]
    workdir.mkdir(parents=True, exist_ok=True)
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=900, check=False)


def _run(workdir: Path) -> dict[str, Any]:
    specs = ["reference", *[f"fusion_faulty_devices:{name}" for name in faults.FAULTS]]
    proc = _pytest(workdir, *[f"--plugin={s}" for s in specs], "-m", "graphfuzz",
                   "--ovconform-graphfuzz-examples", str(EXAMPLES))
    out: dict[str, Any] = {}
    for report in (workdir / "reports").glob("*/conformance.json"):
        doc = json.loads(report.read_text())
        name = doc["device"]["name"] if isinstance(doc["device"], dict) else doc["device"]
        out[name] = [r for r in doc["records"]]
    assert len(out) == len(specs), f"reports for {sorted(out)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return once_per_session(tmp_path_factory, "graph_fuzz_fault_runs", _run)


def test_reference_passes_the_fuzz(runs: dict[str, Any]) -> None:
    (record,) = runs["REFERENCE"]
    assert record["status"] == "passed", record["message"]
    assert record["entity"] == "graph" and record["facts"]["graphs_run"] == EXAMPLES


@pytest.mark.parametrize("fault", sorted(SHRUNK))
def test_fuzz_finds_and_shrinks_each_fault(runs: dict[str, Any], fault: str) -> None:
    (record,) = runs[getattr(faults, fault).device_name]
    assert record["status"] == "failed"
    assert record["message"].startswith("Failed: declared supported but failed: graph fuzz: shrunk failing graph")
    assert "unfused control: fused path only (" in record["message"], record["message"]
    op_type, most = SHRUNK[fault]
    ops = record["facts"]["graph_ops"]
    assert any(line.startswith(f"{op_type} ") for line in ops) and len(ops) <= most, ops
    repro = Path(record["facts"]["repro"])
    assert (repro.parent / "model.xml").is_file() and (repro.parent / "model.bin").is_file()
    env = subprocess_env(PLUGINS)
    proc = subprocess.run([sys.executable, str(repro)], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 1 and "MISMATCH" in proc.stdout, proc.stdout + proc.stderr


def test_fuzz_is_opt_in(tmp_path: Path) -> None:
    """Without -m graphfuzz the fuzz test is left out, and not counted as deselected by the user."""
    suites = Path(ovconform.suites.__file__).parent
    proc = _pytest(tmp_path, "--plugin=reference", str(suites / "test_graph_fuzz.py"),
                   str(suites / "test_plugin_version.py"))
    doc = json.loads((tmp_path / "reports" / "REFERENCE" / "conformance.json").read_text())
    assert doc["records"] and not any("test_graph_fuzz" in r["nodeid"] for r in doc["records"]), proc.stdout[-2000:]
    assert doc["run"]["selection"]["deselected"] == 0


def test_budget_below_one_is_a_usage_error(tmp_path: Path) -> None:
    proc = _pytest(tmp_path, "--plugin=reference", "-m", "graphfuzz", "--ovconform-graphfuzz-examples", "0")
    assert proc.returncode == 4 and "--ovconform-graphfuzz-examples 0" in proc.stderr, proc.stderr[-2000:]
