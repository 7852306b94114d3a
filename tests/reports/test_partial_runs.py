"""No run destroys a better report: ``--co`` writes nothing and keeps the report and the journal; a
subset run is marked partial (``run.partial``, ``run.selection``) and never replaces a full report;
``report diff`` reads a partial NEW as a narrower selection unless ``--partial-as-missing``."""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _paths import REPO
from _session import fake_device_module, subprocess_env

from ovconform.reports import _doc, conformance, journal, render, selection
from ovconform.reports.collection import Collection, DeviceTest

DEVICE_MODULE = fake_device_module("PDEV", "PDev")

SUITE = """
import pytest
pytestmark = pytest.mark.entity("ov_plugin")

@pytest.mark.mandatory
def test_a(ov_plugin):
    pass

def test_b(ov_plugin):
    assert ov_plugin.get_property("PERF_COUNT") is True, "PERF_COUNT=False, but should be True"

def test_c(ov_plugin):
    pass
"""

SAMPLE = REPO / "reports" / "REFERENCE" / "conformance.json"


def _pytest(cwd: Path, *args: str, plugin: str = "--plugin=pdev.py") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", plugin, "-q", "-p", "no:randomly",
                           "--ovconform-report-dir=out", *args], cwd=cwd, env=subprocess_env(), capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pdev.py").write_text(DEVICE_MODULE)
    (tmp_path / "test_p.py").write_text(SUITE)
    return tmp_path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _run(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text())["run"])


# -- collection only -----------------------------------------------------------------------------

def test_collect_only_writes_nothing_and_keeps_report_and_journal(project: Path) -> None:
    assert _pytest(project, "test_p.py").returncode == 1  # test_b fails
    before = _snapshot(project / "out")
    assert "PDEV/conformance.json" in before and any(k.startswith("journal/") for k in before)
    for flag in ("--co", "--setup-plan"):
        proc = _pytest(project, "test_p.py", flag)
        assert proc.returncode == 0, proc.stdout[-2000:]
        assert "generated conformance report" not in proc.stdout
        assert _snapshot(project / "out") == before, flag
    elsewhere = _pytest(project, "test_p.py", "--co", "--ovconform-report-dir=fresh")
    assert elsewhere.returncode == 0 and not (project / "fresh").exists()


# -- subset runs ---------------------------------------------------------------------------------

def test_k_run_is_partial_and_leaves_the_full_report(tmp_path: Path) -> None:
    """REFERENCE: the committed full report in the report folder, then a -k run."""
    full = tmp_path / "out" / "REFERENCE" / "conformance.json"
    full.parent.mkdir(parents=True)
    shutil.copyfile(SAMPLE, full)
    proc = _pytest(tmp_path, "-k", "test_plugin_version", plugin="--plugin=reference")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert full.read_bytes() == SAMPLE.read_bytes(), "the partial run replaced the full report"
    partial = full.with_name("conformance.partial.json")
    doc = _doc.load(partial)
    assert doc["run"]["partial"] is True and len(doc["records"]) == 2
    sel = doc["run"]["selection"]
    assert sel["keyword"] == "test_plugin_version" and sel["selected"] == 2 and sel["not_run"] == 0
    assert sel["deselected"] > 9000  # everything else the suites hold
    assert f"generated conformance report: {partial}" in proc.stdout
    assert "partial run: -k 'test_plugin_version'" in proc.stdout

    def diff(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ovconform.cli", "report", "diff", str(full), str(partial),
                               "--fail-on", "missing", *extra], capture_output=True, text=True, timeout=120,
                              check=False, env=subprocess_env())

    narrower = diff()
    assert narrower.returncode == 0, narrower.stdout[-2000:]
    assert "missing from NEW: 0" in narrower.stdout and "not in NEW's narrower selection" in narrower.stdout
    assert "NEW is a partial run: -k 'test_plugin_version'" in narrower.stdout
    assert diff("--partial-as-missing").returncode == 1
    line = selection.describe(doc["run"])  # the renders name the selection
    assert line.startswith("partial run: -k 'test_plugin_version'")
    assert line in render.render(doc, "text") and html.escape(line) in render.render(doc, "html")
    assert f"**P{line[1:]}**" in render.render(doc, "md")


def test_lf_and_x_are_recorded_in_the_selection(project: Path) -> None:
    env_run = [sys.executable, "-m", "pytest", "--plugin=pdev.py", "test_p.py", "-q", "-p", "no:randomly",
               "--ovconform-report-dir=out"]
    # the first run fills the cache --lf reads
    subprocess.run(env_run, cwd=project, env=subprocess_env(), capture_output=True, timeout=600, check=False)
    subprocess.run([*env_run, "--lf"], cwd=project, env=subprocess_env(), capture_output=True, timeout=600, check=False)
    run = _run(project / "out" / "PDEV" / "conformance.json")
    assert run["partial"] is True
    assert run["selection"]["last_failed"] is True and run["selection"]["deselected"] == 2
    assert run["selection"]["selected"] == 1 and run["selection"]["not_run"] == 0
    subprocess.run([*env_run, "-x", "-p", "no:cacheprovider"], cwd=project, env=subprocess_env(), capture_output=True,
                   timeout=600, check=False)
    run = _run(project / "out" / "PDEV" / "conformance.json")
    assert run["selection"]["not_run"] == 1 and run["selection"]["deselected"] == 0  # -x stopped before test_c


# -- the rules, one by one -----------------------------------------------------------------------

def _collection(selected: int, deselected: int = 0) -> Collection:
    tests = {f"t.py::t{i}[D]": DeviceTest(test_id=f"t.py::t{i}[D]", device="D", entity="x", scope="optional")
             for i in range(selected)}
    return Collection(tests, [(f"t.py::u{i}[D]", "D") for i in range(deselected)], deselected)


@pytest.mark.parametrize(("declared", "collection", "ran", "partial"), [
    ({}, _collection(3), 3, False),  # everything selected ran
    ({"keyword": "x"}, _collection(3), 3, False),  # a -k that removed nothing
    ({"keyword": "x"}, _collection(3, deselected=2), 3, True),
    ({}, _collection(3), 2, True),  # -x, an interrupted run
    ({"paths": ["suites/test_a.py"]}, _collection(3), 3, True),
    ({"ignore": ["suites/test_a.py"]}, _collection(3), 3, True),
    ({}, None, 0, False),  # the collection unknown: only what was declared counts
    ({"depth": "standard"}, _collection(3), 3, False),
    ({"depth": "exhaustive"}, _collection(3), 3, False),
    ({"depth": "quick"}, _collection(3), 3, True),  # the op suite without its stimulus cases
    ({"depth": "standard", "examples": 3}, _collection(3), 3, True),  # fewer generated op cases
    ({"depth": "standard", "examples": 30}, _collection(3), 3, False),
])
def test_partial_rule(declared: dict[str, Any], collection: Collection | None, ran: int, partial: bool) -> None:
    ids = {f"t.py::t{i}[D]" for i in range(ran)}
    out = selection.finish(declared, collection, ids)
    assert out["partial"] is partial
    assert bool(selection.describe(out)) is partial


def test_a_quick_depth_run_is_partial_and_leaves_the_full_report(tmp_path: Path) -> None:
    """--ovconform-depth quick runs fewer op cases than a full run: its report says so and does not
    replace the full one (the op tests only, to keep it short: -k narrows it further)."""
    full = tmp_path / "out" / "REFERENCE" / "conformance.json"
    full.parent.mkdir(parents=True)
    shutil.copyfile(SAMPLE, full)
    proc = _pytest(tmp_path, "--ovconform-depth=quick", "-k", "Relu-1", plugin="--plugin=reference")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert full.read_bytes() == SAMPLE.read_bytes(), "the quick run replaced the full report"
    doc = _doc.load(full.with_name("conformance.partial.json"))
    assert doc["run"]["partial"] is True and doc["run"]["selection"]["depth"] == "quick"
    assert "op suite at --ovconform-depth quick" in proc.stdout


def _write(base: Path, partial: bool, records: int) -> Path:
    recs = [{"nodeid": f"t.py::t{i}[D]", "device": "D", "entity": "x", "scope": "optional", "status": "passed",
             "phase": "call", "duration": 0.0, "message": "", "facts": {}, "finished_at": 1.0} for i in range(records)]
    run = {"ovconform_version": "0", "started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:01Z",
           "partial": partial, "selection": {}}
    return conformance.write_document(base, {"name": "D"}, run, recs)


def test_a_partial_report_never_replaces_a_full_one(tmp_path: Path) -> None:
    full, side = tmp_path / "D" / "conformance.json", tmp_path / "D" / "conformance.partial.json"
    assert _write(tmp_path, True, 1) == full  # nothing better there
    assert _write(tmp_path, True, 2) == full  # a partial replaces a partial
    assert _write(tmp_path, False, 5) == full and not side.exists()
    assert _write(tmp_path, True, 1) == side  # the full report stays
    assert len(json.loads(full.read_text())["records"]) == 5
    assert _write(tmp_path, False, 4) == full and not side.exists()  # a full run removes the stale partial one


def test_a_killed_runs_journal_is_kept_until_a_later_run_completes(project: Path) -> None:
    earlier = project / "out" / journal.JOURNAL_DIR / "20000101T000000.000Z-1" / "main.jsonl"
    earlier.parent.mkdir(parents=True)
    earlier.write_text(json.dumps({"kind": "start", "nodeid": "test_p.py::test_a[PDEV]", "device": "PDEV",
                                   "entity": "ov_plugin", "scope": "mandatory", "at": 1.0}) + "\n")
    _pytest(project, "test_p.py", "--co")
    assert earlier.exists()
    assert journal.runs(project / "out") == [earlier.parent]
    _pytest(project, "test_p.py", "-k", "test_a")  # completes
    assert not earlier.exists() and len(journal.runs(project / "out")) == 1
