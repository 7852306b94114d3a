"""A device that segfaults in mandatory tests under ``-n 2``: each crash is a ``crashed`` record with
the test id, entity and scope it was collected with, the crashes count against the mandatory pass
rate in the terminal and in every report, and the file is one that render, merge and diff accept.

The device (``faulty_devices:ProfilingSegfaults``) segfaults in ``get_profiling_info()`` with
PERF_COUNT on: in the perf-counter module that kills the worker in three mandatory tests and three
optional ones; the other tests of the run pass.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _paths import PLUGINS
from _session import once_per_session, subprocess_env

from ovconform.reports import _doc, _validate

DEVICE = "FAULT_SEGV_PERF"
SELECTION = "test_infer_request_perf_counters or test_plugin_version"
PERF = "test_infer_request_perf_counters.py"
MANDATORY_CRASHES = {f"{PERF}::test_not_empty_after_run[{DEVICE}-infer]",
                     f"{PERF}::test_not_empty_after_run[{DEVICE}-start_async]",
                     f"{PERF}::test_check_operation_in_profiling_info[{DEVICE}]"}
OPTIONAL_CRASHES = {f"{PERF}::test_counters_are_consistent_with_latency[{DEVICE}]",
                    f"{PERF}::test_run_is_profiled[{DEVICE}-infer]",
                    f"{PERF}::test_run_is_profiled[{DEVICE}-start_async]"}


def _run(folder: Path) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "pytest", "--plugin=faulty_devices:ProfilingSegfaults", "-n", "2",
                           "-k", SELECTION, "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "--ovconform-report-dir=out", "--ovconform-test-timeout=120"],
                          cwd=folder, env=subprocess_env(PLUGINS), capture_output=True, text=True, timeout=900,
                          check=False)
    return {"stdout": proc.stdout, "stderr": proc.stderr, "report": str(folder / "out" / DEVICE / "conformance.json")}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return once_per_session(tmp_path_factory, "segv_perf_run", _run)


@pytest.fixture(scope="module")
def doc(run: dict[str, Any]) -> dict[str, Any]:
    assert Path(run["report"]).exists(), f"no report; pytest said:\n{run['stdout'][-3000:]}\n{run['stderr'][-2000:]}"
    return json.loads(Path(run["report"]).read_text())


def test_the_report_validates(doc: dict[str, Any]) -> None:
    assert _validate.errors(doc) == []


def test_crashed_records_keep_their_id_entity_and_scope(doc: dict[str, Any]) -> None:
    crashed = {r["nodeid"]: r for r in doc["records"] if r["status"] == "crashed"}
    assert set(crashed) == MANDATORY_CRASHES | OPTIONAL_CRASHES
    for nodeid, r in crashed.items():
        assert (r["entity"], r["phase"]) == ("ov_infer_request", "call"), r
        assert r["scope"] == ("mandatory" if nodeid in MANDATORY_CRASHES else "optional"), r
        name = nodeid.split("::")[1].split("[")[0]
        assert re.search(rf"worker 'gw\d+' crashed while running '.*{name}\[", r["message"]), r
    others = {r["nodeid"]: r["status"] for r in doc["records"] if r["status"] != "crashed"}
    assert others and set(others.values()) == {"passed"}, others


def test_crashes_count_against_the_mandatory_pass_rate(doc: dict[str, Any], run: dict[str, Any]) -> None:
    mandatory = [r for r in doc["records"] if r["scope"] == "mandatory"]
    passed = sum(r["status"] == "passed" for r in mandatory)
    assert passed >= 1 and len(mandatory) == passed + len(MANDATORY_CRASHES)
    rate = round(100 * passed / len(mandatory), 2)
    assert doc["summary"]["mandatory_pass_rate"] == rate < 100
    assert doc["summary"]["entities"]["ov_infer_request"]["mandatory_pass_rate"] == 0.0
    assert doc["summary"]["statuses"]["crashed"] == len(MANDATORY_CRASHES | OPTIONAL_CRASHES)
    # the terminal: the table, the mandatory pass rate, and the crash count
    assert f"mandatory pass rate: {rate:.2f}% ({len(doc['records'])} tests: crashed 6, hanged 0)" in run["stdout"]


def test_render_merge_and_diff_accept_the_file(doc: dict[str, Any], run: dict[str, Any], tmp_path: Path) -> None:
    report = run["report"]

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ovconform.cli", "report", *args], capture_output=True,
                              text=True, timeout=120, check=False, env=subprocess_env(PLUGINS))

    for fmt in ("md", "csv", "html", "text"):
        out = tmp_path / f"r.{fmt}"
        proc = cli("render", report, "-f", fmt, "-o", str(out))
        assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text())))
    request = next(r for r in rows if r["entity"] == "ov_infer_request")
    crashes = len(MANDATORY_CRASHES | OPTIONAL_CRASHES)
    assert (request["crashed"], request["relative_passrate"]) == (str(crashes), "0.00")
    md = (tmp_path / "r.md").read_text()
    rate = doc["summary"]["mandatory_pass_rate"]
    assert re.search(rf"\| {DEVICE}\s*\|[^|]*\|\s*\d+\s*\|[^|]*\|\s*{rate:.2f}%", md), md
    page = (tmp_path / "r.html").read_text()
    payload = re.search(r'<script id="ovc-data" type="application/json">(.*?)</script>', page, re.S)
    assert payload is not None
    data = json.loads(payload.group(1))
    assert {(r["n"], r["s"]) for r in data["records"] if r["st"] == "crashed"} >= {(n, "mandatory")
                                                                                   for n in MANDATORY_CRASHES}
    merged = tmp_path / "merged.json"
    proc = cli("merge", report, "-o", str(merged))
    assert proc.returncode == 0, proc.stderr
    assert _doc.load(merged)["devices"][DEVICE]["summary"]["mandatory_pass_rate"] == doc["summary"][
        "mandatory_pass_rate"]
    proc = cli("diff", report, report, "--fail-on", "regression", "--fail-on", "missing")
    assert proc.returncode == 0, proc.stdout + proc.stderr
