"""The API suites on the REFERENCE device, run the way a user runs them.

``pytest --plugin=reference`` is started in a subprocess from a temporary folder outside the
repository (so the installed ``ovconform.suites`` are collected, not a source checkout), once
serially and once with ``-n 2``; both runs happen at the same time to save wall time. The
checks: at least 250 test instances, no failure (REFERENCE is the oracle), the
conformance.json records (count, statuses, entities, scopes, skip reasons), and the same records
from both runs once timings are ignored.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from _paths import REPO
from _session import once_per_session

import ovconform.suites

SUITES = Path(ovconform.suites.__file__).resolve().parent
API_ENTITIES = {"ov_plugin", "ov_compiled_model", "ov_infer_request"}
ENTITIES = API_ENTITIES | {"op", "model", "graph"}
MIN_INSTANCES = 250
VOLATILE = ("duration", "finished_at")
#: the quick runs' selection: every test but the op suite's, and the op suite on a few op versions
QUICK_SELECTION = "not test_op_conformance or Add-1 or Convolution-1 or Softmax-8 or Loop-5 or TopK-11"


def _start(workdir: Path, name: str, extra: list[str]) -> tuple[subprocess.Popen[str], Path, float]:
    report_dir = workdir / name
    cmd = [sys.executable, "-m", "pytest", "--plugin=reference", "-q", "-p", "no:cacheprovider",
           f"--ovconform-report-dir={report_dir}", *extra]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    proc = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return proc, report_dir, time.monotonic()


def _both_runs(workdir: Path) -> dict[str, dict[str, Any]]:
    # serial and -n 2 are compared record for record at quick depth (the generated op cases only) on
    # every test but the op suite's, and on five op versions (the standard run holds REFERENCE to every
    # op case anyway; a quick op case is one of its standard ones), which keeps CI's concurrent runs
    # within budget; the third run, at the default (standard) depth, is the whole suite
    quick = ["--ovconform-depth=quick", "-k", QUICK_SELECTION]
    started = {"serial": _start(workdir, "serial", quick),
               "xdist": _start(workdir, "xdist", ["-n", "2", *quick]),
               "standard": _start(workdir, "standard", ["-n", "2"])}
    out: dict[str, dict[str, Any]] = {}
    for name, (proc, report_dir, t0) in started.items():
        output, _ = proc.communicate(timeout=900)
        report = report_dir / "REFERENCE" / "conformance.json"
        out[name] = {"returncode": proc.returncode, "output": output, "seconds": time.monotonic() - t0,
                     "report": json.loads(report.read_text()) if report.exists() else None, "cwd": str(workdir)}
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Both runs: ``{"serial": {...}, "xdist": {...}}`` with returncode, output, seconds and report."""
    return once_per_session(tmp_path_factory, "reference_runs", _both_runs)


def _doc(runs: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    doc = runs[name]["report"]
    assert doc is not None, f"the {name} run wrote no conformance.json; output:\n{runs[name]['output'][-3000:]}"
    return doc


def test_runs_from_outside_the_repository(runs: dict[str, dict[str, Any]]) -> None:
    cwd = Path(runs["serial"]["cwd"]).resolve()
    assert REPO not in cwd.parents and cwd != REPO, f"the run's folder {cwd} is inside the repository {REPO}"
    assert any(r["nodeid"].startswith("test_plugin_") for r in _doc(runs, "serial")["records"])


def test_standard_depth_adds_only_op_tests(runs: dict[str, dict[str, Any]]) -> None:
    quick = {r["nodeid"] for r in _doc(runs, "xdist")["records"]}
    standard = {r["nodeid"]: r for r in _doc(runs, "standard")["records"]}
    assert quick <= set(standard), f"only at quick depth: {sorted(quick - set(standard))[:10]}"
    extra = set(standard) - quick
    assert extra and all(standard[n]["entity"] == "op" for n in extra), (
        f"standard depth adds non-op tests: {sorted(n for n in extra if standard[n]['entity'] != 'op')[:10]}")


@pytest.mark.parametrize("name", ["serial", "xdist", "standard"])
def test_no_failures(runs: dict[str, dict[str, Any]], name: str) -> None:
    """REFERENCE is the oracle: every mandatory and optional test passes or is skipped by a marker."""
    doc = _doc(runs, name)
    bad = [(r["nodeid"], r["status"], r["message"][:300]) for r in doc["records"] if r["status"] not in
           ("passed", "skipped")]
    assert bad == [], f"{len(bad)} test(s) did not pass on REFERENCE:\n" + "\n".join(map(str, bad))
    assert runs[name]["returncode"] == 0, runs[name]["output"][-3000:]


def test_enough_instances_per_entity_and_scope(runs: dict[str, dict[str, Any]]) -> None:
    records = _doc(runs, "serial")["records"]
    assert len(records) >= MIN_INSTANCES, f"{len(records)} test instances, but should be >= {MIN_INSTANCES}"
    passed = [r for r in records if r["status"] == "passed"]
    assert len(passed) >= MIN_INSTANCES, f"{len(passed)} passed instances, but should be >= {MIN_INSTANCES}"
    counts = Counter((r["entity"], r["scope"]) for r in records)
    for entity in API_ENTITIES:
        for scope in ("mandatory", "optional"):
            assert counts[(entity, scope)] >= 5, f"{entity}/{scope} has {counts[(entity, scope)]} instances: {counts}"


def test_records_are_well_formed(runs: dict[str, dict[str, Any]]) -> None:
    doc = _doc(runs, "serial")
    records = doc["records"]
    assert len({r["nodeid"] for r in records}) == len(records), "duplicate node ids in the records"
    for r in records:
        assert r["device"] == "REFERENCE", r
        assert r["entity"] in ENTITIES, f"{r['nodeid']}: entity {r['entity']!r} not in {sorted(ENTITIES)}"
        assert r["scope"] in ("mandatory", "optional"), r
    summary = doc["summary"]
    assert summary["total"] == len(records)
    assert summary["statuses"] == dict(sorted(Counter(r["status"] for r in records).items()))
    assert set(summary["entities"]) == ENTITIES


#: Suite modules that are opt-in (deselected unless -m selects them; tests/test_bench_pytest.py and
#: tests/suites/test_graph_patterns_fuzz.py run them).
OPT_IN_MODULES = {"test_perf.py", "test_graph_fuzz.py"}


def test_every_suite_module_ran(runs: dict[str, dict[str, Any]]) -> None:
    modules = {p.name for p in SUITES.glob("test_*.py")} - OPT_IN_MODULES
    seen = {r["nodeid"].split("::")[0] for r in _doc(runs, "serial")["records"]}
    assert modules - seen == set(), f"suite modules without records: {sorted(modules - seen)}"


def test_skips_name_what_is_missing_and_where_from(runs: dict[str, dict[str, Any]]) -> None:
    """A skip comes from a marker and says which declaration lacks what (never a silent pass).
    (The model suite's skips for models whose ops ovconform lacks are checked in test_op_suite.)"""
    for r in _doc(runs, "serial")["records"]:
        if r["status"] == "skipped" and r["entity"] in API_ENTITIES:
            message = r["message"]
            assert message.startswith("REFERENCE: "), f"{r['nodeid']}: skip reason {message!r}"
            sources = ("not in OPTIMIZATION_CAPABILITIES", "not in SUPPORTED_PROPERTIES", "its plugin does not declare")
            assert any(source in message for source in sources), (
                f"{r['nodeid']}: skip reason {message!r} does not say where the declaration came from")


def test_xdist_run_gives_the_same_records(runs: dict[str, dict[str, Any]]) -> None:
    def strip(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {r["nodeid"]: {k: v for k, v in r.items() if k not in VOLATILE} for r in doc["records"]}

    serial, xdist = strip(_doc(runs, "serial")), strip(_doc(runs, "xdist"))
    assert set(serial) == set(xdist), (f"only serial: {sorted(set(serial) - set(xdist))[:10]}; "
                                       f"only -n 2: {sorted(set(xdist) - set(serial))[:10]}")
    differ = [(n, serial[n], xdist[n]) for n in serial if serial[n] != xdist[n]]
    assert differ == [], f"{len(differ)} record(s) differ between the serial and the -n 2 run: {differ[:3]}"
