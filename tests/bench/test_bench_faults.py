"""Devices whose counters lie are flagged: by the runner's findings, by ``ovconform bench``
(``--fail-on``) and by the perf suite (``tests/plugins/perf_faulty_devices.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import plugins.perf_faulty_devices as faulty
import pytest
from _paths import PLUGINS

from ovconform import Core
from ovconform.bench import report
from ovconform.bench.models import resolve_model
from ovconform.bench.runner import BenchConfig, run_benchmark
from ovconform.cli import main

FAULTY = str(PLUGINS / "perf_faulty_devices.py")


def _doc(device_class: type) -> dict[str, Any]:
    core = Core(discover=False)
    core.register_plugin(device_class, device_class.device_name)
    result = run_benchmark(core, device_class.device_name, resolve_model("cnn"), BenchConfig(niter=2, api="sync"))
    return report.perf_document(result)


@pytest.mark.parametrize("name", sorted(faulty.FAULTS))
def test_each_faulty_device_is_flagged_by_its_check(name: str) -> None:
    fault, check = faulty.FAULTS[name]
    doc = _doc(getattr(faulty, name))
    by_check = {f["check"]: f for f in doc["findings"]}
    assert by_check[check]["status"] == "error", f"{name} ({fault}) not flagged: {doc['findings']}"
    assert doc["verdict"] == "error"
    assert doc["results"]["iterations"] == 2  # the stats are still measured and reported


def test_messages_name_the_nodes() -> None:
    missing = {f["check"]: f for f in _doc(faulty.MissingCountersDevice)["findings"]}["executed_ops_present"]
    assert missing["nodes"] == ["conv1", "conv2", "conv3", "fc"]
    assert "4 executed op(s) have no counter: conv1 (Convolution)" in missing["message"]
    negative = {f["check"]: f for f in _doc(faulty.NegativeCountersDevice)["findings"]}["non_negative"]
    assert negative["nodes"] == ["conv1"] and "negative real or CPU time: conv1" in negative["message"]


def test_counters_off_on_a_device_that_refuses_them_is_an_error_finding() -> None:
    class Broken(faulty.MissingCountersDevice):
        device_name = "PERF_REFUSED"

    from ovconform.errors import NotEnabledError

    class _Req(faulty.MissingCountersDevice.fault_compiled_class.sync_request_class):  # type: ignore[name-defined]
        def get_profiling_info(self) -> list[Any]:
            raise NotEnabledError("this device keeps its counters to itself")

    Broken.fault_compiled_class = type("C", (faulty.MissingCountersDevice.fault_compiled_class,),
                                       {"sync_request_class": _Req})
    doc = _doc(Broken)
    assert doc["counters"] == {"available": False, "error": "NotEnabledError: this device keeps its counters to itself"}
    assert doc["findings"][0]["check"] == "counters_available" and doc["verdict"] == "error"


def test_cli_fail_on_error_exits_1_and_reports_every_device(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["bench", "--plugin", FAULTY, "--model", "cnn", "-niter", "2", "-api", "sync",
                 "-report_folder", str(tmp_path), "--fail-on", "error"])
    out = capsys.readouterr().out
    assert code == 1
    assert "[ ERROR] non_negative:" in out and "[ ERROR] executed_ops_present:" in out
    assert "[ ERROR] sum_within_latency:" in out
    for device in ("PERF_NEGATIVE", "PERF_MISSING", "PERF_INFLATED"):
        doc = json.loads((tmp_path / device / "cnn" / "perf.json").read_text())
        assert doc["verdict"] == "error"
    table = json.loads((tmp_path / "comparison.json").read_text())
    assert table["baseline"] == table["devices"][0] and len(table["rows"]) == 3  # the first device that ran
    assert set(table["devices"]) == {"PERF_NEGATIVE", "PERF_MISSING", "PERF_INFLATED"}
    page = (tmp_path / "bench.html").read_text()
    assert page.count('<details class="perf-run" open>') == 3 and 'id="perf-comparison"' in page


def test_cli_without_fail_on_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["bench", "--plugin", FAULTY, "--model", "mlp", "-niter", "2", "-report_folder", str(tmp_path)])
    assert code == 0 and "[ ERROR]" in capsys.readouterr().out


def test_perf_suite_fails_on_faulty_counters(tmp_path: Path) -> None:
    env = {**os.environ, "OVCONFORM_PERF_NITER": "2"}
    proc = subprocess.run([sys.executable, "-m", "pytest", f"--plugin={FAULTY}", "-m", "perf", "-k",
                           "test_benchmark and cnn-sync", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           "--ovconform-report-dir", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:]
    assert "3 failed" in out
    for check in ("non_negative", "executed_ops_present", "sum_within_latency"):
        assert f"counter consistency='{check}:" in out
    record = json.loads((tmp_path / "PERF_MISSING" / "conformance.json").read_text())["records"][0]
    assert record["entity"] == "perf" and record["status"] == "failed"
    assert record["facts"]["perf"]["verdict"] == "error"
