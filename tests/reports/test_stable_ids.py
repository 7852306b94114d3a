"""Test ids are stable keys: the same subset run on REFERENCE from the repository root (with
``-n 2``), from ``suites/``, from an empty folder with another ``--rootdir``, and with the package
installed (not editable) gives the same record ids, although pytest's own node ids differ
(``suites/test_x.py::...``, ``main/suites/test_x.py::...``, ``test_x.py::...``); and ``ovconform
report diff --fail-on missing`` between any two of them passes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _paths import REPO
from _session import once_per_session, subprocess_env

SELECTION = "test_plugin_version or test_plugin_query_model"


def _pytest(cwd: Path, out: Path, env: dict[str, str], *extra: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "pytest", "--plugin=reference", "-k", SELECTION, "-rA", "-q",
                           "-p", "no:cacheprovider", "-p", "no:randomly", f"--ovconform-report-dir={out}", *extra],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    report = out / "REFERENCE" / "conformance.json"
    assert report.exists(), f"no report from {cwd}:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
    return {"report": str(report), "pytest_ids": sorted(re.findall(r"^PASSED (\S+)", proc.stdout, re.M))}


def _runs(folder: Path) -> dict[str, dict[str, Any]]:
    site = folder / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(REPO)], check=True, timeout=600, env=subprocess_env())
    empty = folder / "empty"
    empty.mkdir()
    where = subprocess.run([sys.executable, "-c", "import ovconform.suites; print(ovconform.suites.__file__)"],
                           cwd=empty, env=subprocess_env(site), capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(site)), f"the installed copy is not the one imported: {where}"
    return {
        "root": _pytest(REPO, folder / "root", subprocess_env(), "-n", "2"),
        "suites": _pytest(REPO / "suites", folder / "suites", subprocess_env()),
        "rootdir": _pytest(empty, folder / "rootdir", subprocess_env(), f"--rootdir={REPO.parent}"),
        "installed": _pytest(empty, folder / "installed", subprocess_env(site)),
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return once_per_session(tmp_path_factory, "stable_id_runs", _runs)


def _ids(run: dict[str, Any]) -> list[str]:
    return sorted(r["nodeid"] for r in json.loads(Path(run["report"]).read_text())["records"])


def test_record_ids_are_the_same_wherever_pytest_ran(runs: dict[str, dict[str, Any]]) -> None:
    ids = {name: _ids(run) for name, run in runs.items()}
    assert len(ids["root"]) >= 20
    assert all(i == ids["root"] for i in ids.values()), {k: v[:2] for k, v in ids.items()}
    assert all(i.startswith(("test_plugin_version.py::", "test_plugin_query_model.py::")) for i in ids["root"])
    # pytest's own node ids were not the same: the records do not take them
    forms = {run["pytest_ids"][0].split("::")[0] for run in runs.values() if run["pytest_ids"]}
    assert len(forms) >= 2, forms


@pytest.mark.parametrize("new", ["suites", "rootdir", "installed"])
def test_diff_fail_on_missing_passes_between_folders(runs: dict[str, dict[str, Any]], new: str) -> None:
    cmd = [sys.executable, "-m", "ovconform.cli", "report", "diff", runs["root"]["report"], runs[new]["report"],
           "--fail-on", "missing", "--fail-on", "regression", "--partial-as-missing"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False, env=subprocess_env())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "missing from NEW: 0" in proc.stdout and "new tests" not in proc.stdout
