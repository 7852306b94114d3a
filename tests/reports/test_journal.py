"""The crash-safe journal: a run killed with SIGKILL is rebuilt by ``ovconform report rebuild``.

Each kill test starts a real pytest run (in its own process group), waits until a blocking test
is running and every other test has finished, kills the whole group with SIGKILL, and checks
that ``ovconform report rebuild`` recovers every finished test with its status, and records the
interrupted one as crashed. Without xdist the one process's journal has everything; with xdist
(``--dist loadfile``) the workers' journals have it too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _session import fake_device_module, subprocess_env

from ovconform.reports import _doc, journal
from ovconform.reports import records as _records

DEVICE_MODULE = fake_device_module("JDEV", "JDev")

SUITE_A = """
import os, time
from pathlib import Path
import pytest
pytestmark = pytest.mark.entity("ov_plugin")

def test_a_pass(ov_plugin):
    pass

def test_a_fail(ov_plugin):
    assert ov_plugin.get_property("PERF_COUNT") is True, "PERF_COUNT=False, but should be True"

def test_a_skip(ov_plugin):
    pytest.skip("not here")

@pytest.mark.mandatory
def test_a_pass2(ov_device_name):
    assert ov_device_name == "JDEV"

def test_block(ov_plugin):
    Path("blocking").write_text("x")
    time.sleep(120)

def test_z_never_started(ov_plugin):
    pass
"""

SUITE_B = """
from pathlib import Path
import pytest
pytestmark = pytest.mark.entity("ov_infer_request")

@pytest.mark.parametrize("i", range(6))
def test_b(ov_plugin, i):
    assert i != 4, "i=4, but should be anything else"

def test_b_last(ov_plugin):
    Path("b_done").write_text("x")
"""

FINISHED_A = {"test_a_pass": "passed", "test_a_fail": "failed", "test_a_skip": "skipped", "test_a_pass2": "passed"}
FINISHED_B = {**{f"test_b[JDEV-{i}]": "passed" for i in range(6) if i != 4}, "test_b[JDEV-4]": "failed",
              "test_b_last": "passed"}


def _short(nodeid: str) -> str:
    name = nodeid.split("::")[-1]
    return name.removesuffix("[JDEV]")


def _journaled(folder: Path, names: list[str]) -> bool:
    """Whether the journal already holds a record of each test named (its report was made)."""
    text = "".join(p.read_text(errors="replace") for p in folder.rglob("*.jsonl")) if folder.is_dir() else ""
    records = [line for line in text.splitlines() if line.startswith('{"kind":"record"')]
    return all(any(f"::{name}[" in line for line in records) for name in names)


def _run_and_kill(tmp_path: Path, files: dict[str, str], extra: list[str], wait_for: list[str],
                  last_finished: list[str]) -> float:
    (tmp_path / "jdev.py").write_text(DEVICE_MODULE)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cmd = [sys.executable, "-m", "pytest", "--plugin=jdev.py", *files, "-q", "-p", "no:cacheprovider",
           "-p", "no:randomly", "--ovconform-report-dir=out", *extra]
    env = subprocess_env(tmp_path)
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not all((tmp_path / m).exists() for m in wait_for):
            assert proc.poll() is None, f"pytest ended (exit {proc.returncode}) before the blocking test ran"
            assert time.monotonic() < deadline, "the blocking test never started"
            time.sleep(0.05)
        # the last finished tests' records follow their end by milliseconds (more on a loaded machine)
        settle = time.monotonic() + 10
        while not _journaled(tmp_path / "out" / "journal", last_finished) and time.monotonic() < settle:
            time.sleep(0.05)
        killed_at = time.monotonic()
        os.killpg(proc.pid, signal.SIGKILL)  # the group this test started: pytest and its workers
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return killed_at


def _rebuild(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ovconform.cli", "report", "rebuild", str(folder)],
                          capture_output=True, text=True, timeout=120, check=False, env=subprocess_env())


def _statuses(path: Path) -> dict[str, str]:
    doc = _doc.load(path)  # validates against the schema
    return {_short(r["nodeid"]): r["status"] for r in doc["records"]}


@pytest.mark.timeout(180)
def test_sigkill_without_xdist_rebuild_recovers_every_finished_test(tmp_path: Path) -> None:
    _run_and_kill(tmp_path, {"test_a.py": SUITE_A}, [], ["blocking"], ["test_a_pass2"])
    report = tmp_path / "out" / "JDEV" / "conformance.json"
    unfinished = json.loads(report.read_text())  # written when the run collected, never replaced
    assert unfinished["run"]["unfinished"] is True and unfinished["records"] == [], unfinished["run"]
    proc = _rebuild(tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "4 finished test(s), 1 interrupted" in proc.stdout
    assert _statuses(report) == {**FINISHED_A, "test_block": "crashed"}
    doc = json.loads(report.read_text())
    block = next(r for r in doc["records"] if "test_block" in r["nodeid"])
    assert block["message"] == journal.INTERRUPTED
    assert (block["entity"], block["scope"]) == ("ov_plugin", "optional")  # as collected, though it never ended
    assert doc["run"]["partial"] is True and doc["run"]["selection"]["not_run"] == 1  # test_z_never_started
    assert "1 selected test(s) never started" in proc.stdout
    assert doc["run"]["rebuilt_from_journal"] is True and doc["device"]["full_name"] == "Fake test device"
    assert doc["summary"]["statuses"] == {"crashed": 1, "failed": 1, "passed": 2, "skipped": 1}
    assert next(r for r in doc["records"] if "test_a_fail" in r["nodeid"])["message"].startswith(
        "AssertionError: PERF_COUNT=False, but should be True")


@pytest.mark.timeout(240)
def test_sigkill_under_xdist_rebuild_recovers_every_finished_test(tmp_path: Path) -> None:
    _run_and_kill(tmp_path, {"test_a.py": SUITE_A, "test_b.py": SUITE_B}, ["-n", "2", "--dist", "loadfile"],
                  ["blocking", "b_done"], ["test_a_pass2", "test_b_last"])
    assert json.loads((tmp_path / "out" / "JDEV" / "conformance.json").read_text())["run"]["unfinished"] is True
    proc = _rebuild(tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert _statuses(tmp_path / "out" / "JDEV" / "conformance.json") == {**FINISHED_A, **FINISHED_B,
                                                                        "test_block": "crashed"}
    (run,) = journal.runs(tmp_path / "out")
    workers = {p.name for p in run.glob("*.jsonl")}
    assert {"main.jsonl", "gw0.jsonl", "gw1.jsonl"} <= workers


def test_complete_run_journal_rebuilds_the_same_records(tmp_path: Path) -> None:
    (tmp_path / "jdev.py").write_text(DEVICE_MODULE)
    (tmp_path / "test_b.py").write_text(SUITE_B)
    subprocess.run([sys.executable, "-m", "pytest", "--plugin=jdev.py", "test_b.py", "-q", "-p", "no:cacheprovider",
                    "--ovconform-report-dir=out"], cwd=tmp_path, env=subprocess_env(), capture_output=True, timeout=120,
                   check=False)
    report = tmp_path / "out" / "JDEV" / "conformance.json"
    live = json.loads(report.read_text())
    report.unlink()
    assert _rebuild(tmp_path / "out").returncode == 0
    rebuilt = json.loads(report.read_text())
    assert rebuilt["records"] == live["records"] and rebuilt["summary"] == live["summary"]
    assert rebuilt["device"] == live["device"]
    assert rebuilt["run"]["started_at"] == live["run"]["started_at"]


def test_a_completed_run_removes_the_journals_of_earlier_runs(tmp_path: Path) -> None:
    (tmp_path / "jdev.py").write_text(DEVICE_MODULE)
    (tmp_path / "test_b.py").write_text(SUITE_B)
    stale = tmp_path / "out" / "journal" / "gw7.jsonl"  # the layout before journals had a folder per run
    earlier = tmp_path / "out" / "journal" / "20000101T000000.000Z-1" / "main.jsonl"
    earlier.parent.mkdir(parents=True)
    entry = {"kind": "start", "nodeid": "old.py::test_x[JDEV]", "device": "JDEV", "at": 1}
    for path in (stale, earlier):
        path.write_text(json.dumps(entry) + "\n")
    subprocess.run([sys.executable, "-m", "pytest", "--plugin=jdev.py", "test_b.py", "-q", "-p", "no:cacheprovider",
                    "--ovconform-report-dir=out", "-k", "last"], cwd=tmp_path, env=subprocess_env(),
                   capture_output=True, timeout=120, check=False)
    assert not stale.exists() and not earlier.parent.exists()
    (run,) = journal.runs(tmp_path / "out")
    assert set(_records_of(journal.read(run))) == {"test_b.py::test_b_last[JDEV]"}


def _records_of(entries: journal.Entries) -> dict[str, dict[str, Any]]:
    return journal.fold(entries)


# -- units -------------------------------------------------------------------------------------------

def _record(nodeid: str, status: str, phase: str = "call", at: float = 1.0) -> dict[str, Any]:
    return {"nodeid": nodeid, "device": "D", "entity": "ov_plugin", "scope": "optional", "status": status,
            "phase": phase, "duration": 0.1, "message": "", "facts": {}, "finished_at": at}


def test_fold_uses_the_live_precedence_and_marks_unfinished_tests_crashed(tmp_path: Path) -> None:
    j = journal.Journal(tmp_path, "main")
    j.write("start", nodeid="t::a[D]", device="D", at=1.0)
    j.write("record", record=_record("t::a[D]", "passed", at=2.0))
    j.write("record", record=_record("t::a[D]", "error", "teardown", at=3.0))  # a failing teardown decides
    j.write("start", nodeid="t::b[D]", device="D", at=4.0)
    j.write("record", record=_record("t::b[D]", "failed", at=5.0))
    j.write("start", nodeid="t::c[D]", device="D", at=6.0)  # never finished
    j.close()
    with open(tmp_path / "main.jsonl", "a") as f:
        f.write('{"kind": "record", "record": {"nodeid": "t::d[D]", "dev')  # a torn last line
    entries = journal.read(tmp_path)
    assert entries.torn_lines == 1
    folded = journal.fold(entries)
    assert {k: (v["status"], v["phase"]) for k, v in folded.items()} == {
        "t::a[D]": ("error", "teardown"), "t::b[D]": ("failed", "call"), "t::c[D]": ("crashed", "call")}
    assert folded["t::c[D]"]["message"] == journal.INTERRUPTED


def test_supersedes_matches_the_controller_rule() -> None:
    assert _records.supersedes(None, _record("a", "failed"))
    assert _records.supersedes(_record("a", "passed"), _record("a", "failed"))
    assert not _records.supersedes(_record("a", "failed"), _record("a", "passed"))
    assert _records.supersedes(_record("a", "failed"), _record("a", "error", "teardown"))


def test_rebuild_without_a_journal_is_a_clear_error(tmp_path: Path) -> None:
    proc = _rebuild(tmp_path)
    assert proc.returncode == 2
    assert "no journal in" in proc.stderr and "journal" in proc.stderr and "*.jsonl" in proc.stderr


def test_one_write_per_line_under_threads(tmp_path: Path) -> None:
    """Lines from many threads never interleave (one O_APPEND write each)."""
    import threading

    j = journal.Journal(tmp_path, "main")

    def writer(k: int) -> None:
        for i in range(200):
            j.write("record", record=_record(f"t::x{k}_{i}[D]", "passed", at=float(i)), pad="y" * 3000)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    j.close()
    entries = journal.read(tmp_path)
    assert entries.torn_lines == 0 and len(entries.records) == 1600
