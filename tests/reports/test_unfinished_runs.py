"""Reports of runs whose process died where the reports used to say more than happened
(``tests/plugins/host_faulty_devices.py``):

* a run that ends with ``exit(0)`` from a device, without ``-n``: its report, written when the run
  collected, says ``run.unfinished`` in every format (not an earlier run's 100 %, nor nothing);
  ``ovconform report diff`` refuses it and ``ovconform report rebuild`` replaces it from the journal;
* a device that leaves a non-daemon thread running: the process ends 5 s after the run, with the
  run's status, naming the thread (it used to wait for it for good);
* under ``-n 2``, a worker that dies in a test's teardown after its call passed: the test is
  ``crashed`` (phase teardown, its facts kept), and the op table counts it under its op.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from _paths import PLUGINS
from _session import subprocess_env

from ovconform.reports import _doc, _validate


def _pytest(folder: Path, spec: str, select: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", f"--plugin=host_faulty_devices:{spec}", "-k", select, "-q",
                           "-p", "no:cacheprovider", "-p", "no:randomly", "--ovconform-depth", "quick",
                           "--ovconform-report-dir=out", *args], cwd=folder, env=subprocess_env(PLUGINS),
                          capture_output=True, text=True, timeout=timeout, check=False)


def _ovconform(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ovconform.cli", "report", *args], cwd=folder,
                          env=subprocess_env(PLUGINS), capture_output=True, text=True, timeout=120, check=False)


def _doc_of(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text())
    assert _validate.errors(doc) == []
    return doc


def test_a_run_a_device_ends_with_exit_0_leaves_a_report_that_says_it_did_not_finish(tmp_path: Path) -> None:
    report = tmp_path / "out" / "HOST_EXITS" / "conformance.json"
    first = _pytest(tmp_path, "ExitsOnPRelu", "test_plugin_version")  # a clean run first: its report is there
    assert first.returncode == 0 and _doc_of(report)["summary"]["pass_rate"] == 100.0, first.stdout[-2000:]
    died = _pytest(tmp_path, "ExitsOnPRelu", "test_plugin_version or (PRelu-1-case3 and implemented)")
    assert died.returncode == 0 and "generated conformance report" not in died.stdout  # exit(0): pytest never ended
    doc = _doc_of(report)
    assert doc["run"]["unfinished"] is True and doc["records"] == [], doc["run"]
    assert doc["run"]["selection"]["not_run"] == 3 and doc["summary"]["pass_rate"] is None
    for fmt in ("md", "html"):
        shown = _ovconform(tmp_path, "render", str(report), "-f", fmt)
        assert shown.returncode == 0 and "UNFINISHED run" in shown.stdout, (fmt, shown.stderr)
    csv = _ovconform(tmp_path, "render", str(report), "-f", "csv")
    assert csv.stdout.strip().count("\n") == 0, csv.stdout  # the header only: no row claims a pass
    refused = _ovconform(tmp_path, "diff", str(report), str(report))
    assert refused.returncode == 2 and "did not finish" in refused.stderr, refused.stderr
    assert _ovconform(tmp_path, "rebuild", "out").returncode == 0
    rebuilt = _doc_of(report)
    assert "unfinished" not in rebuilt["run"] and rebuilt["run"]["rebuilt_from_journal"] is True
    statuses = {r["nodeid"].split("::")[-1]: r["status"] for r in rebuilt["records"]}
    assert statuses["test_op_implemented[PRelu-1-case3-HOST_EXITS]"] == "crashed", statuses
    assert _doc.op_table(rebuilt)[0]["op"] == "PRelu", _doc.op_table(rebuilt)  # counted under its op, from its id


def test_a_worker_dying_in_a_teardown_after_a_passed_call_makes_the_test_crashed(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "AbortsOnRelease", "test_plugin_version or (PRelu-1-case3 and implemented)", "-n", "2")
    doc = _doc_of(tmp_path / "out" / "HOST_ABORTS" / "conformance.json")
    records = {r["nodeid"].split("::")[-1]: r for r in doc["records"]}
    crashed = records["test_op_implemented[PRelu-1-case3-HOST_ABORTS]"]
    assert (crashed["status"], crashed["phase"]) == ("crashed", "teardown"), (crashed, done.stdout[-2000:])
    assert crashed["message"].startswith("its call ended passed, then the process running it died")
    assert crashed["facts"]["op_type"] == "PRelu"  # the call's facts are kept
    assert {r["status"] for n, r in records.items() if r is not crashed} == {"passed"}
    assert doc["summary"]["pass_rate"] < 100.0
    row = next(r for r in _doc.op_table(doc) if r["op"] == "PRelu")
    assert row["crashed"] == 1 and row["passed"] == 0, row


def test_an_op_record_without_facts_is_counted_under_the_op_of_its_id() -> None:
    record = {"nodeid": "test_op_conformance.py::test_op_inference[MatMul-1-k65-openvino-CPU]",
              "device": "openvino-CPU", "entity": "op", "facts": {}}
    assert _doc.op_key(record) == ("MatMul", "1")
    assert _doc.op_key(dict(record, entity="api")) is None
    assert _doc.op_key(dict(record, nodeid="test_x.py::test_y[openvino-CPU]")) is None


def test_a_test_blocked_in_native_code_is_recorded_hanged_and_the_run_reports(tmp_path: Path) -> None:
    """A deadlock in C (no SIGALRM handler can run): the watchdog records the test hanged 5 s past its
    2 s limit, writes the report of the run so far and ends the process (status 1), where the run used
    to wait for good. pytest-timeout is loaded (its signal method, as in CI)."""
    done = _pytest(tmp_path, "DeadlocksInNativeCode", "test_plugin_version or (PRelu-1-case3 and implemented)",
                   "--ovconform-test-timeout=2")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "ovconform's watchdog ended the process" in done.stderr
    doc = _doc_of(tmp_path / "out" / "HOST_DEADLOCKS" / "conformance.json")
    assert "unfinished" not in doc["run"] and doc["run"]["partial"] is True  # the tests after it did not run
    hanged = next(r for r in doc["records"] if "PRelu-1-case3" in r["nodeid"])
    assert (hanged["status"], hanged["phase"]) == ("hanged", "call"), hanged
    assert hanged["facts"]["op_type"] == "PRelu" and "blocked where the limit cannot stop it" in hanged["message"]


def test_a_thread_a_device_leaves_running_does_not_keep_the_run_alive(tmp_path: Path) -> None:
    """Every test passes, then the interpreter waits for the device's poller thread: the exit guard
    ends the process grace(2 s) = 5 s later with the run's status, naming the thread."""
    done = _pytest(tmp_path, "LeavesAPollerRunning", "test_plugin_version or (PRelu-1-case3 and implemented)",
                   "--ovconform-test-timeout=2", timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "waiting for threads left running" in done.stderr and "'driver-poller'" in done.stderr, done.stderr[-2000:]
    doc = _doc_of(tmp_path / "out" / "HOST_LEAVES_THREAD" / "conformance.json")
    summary = doc["summary"]
    assert set(summary["statuses"]) == {"passed"} and summary["total"] >= 2 and "unfinished" not in doc["run"]
