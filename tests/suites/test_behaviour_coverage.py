"""The OpenVINO behaviour coverage table (``suites/ov_behaviour_coverage.csv``, rendered by
``python -m ovconform.suites._coverage`` to ``reports/coverage/openvino-behaviour.md``) stays true:
every ovconform test it lists exists in the suites, and the committed Markdown is what the data
gives (so its percentages are current)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from ovconform.suites import _coverage

REPO = Path(__file__).resolve().parents[2]
SUITES = Path(_coverage.__file__).resolve().parent


def _functions(module_file: str) -> set[str]:
    module = importlib.import_module(f"ovconform.suites.{module_file.removesuffix('.py')}")
    return {name for name in vars(module) if name.startswith("test_") and callable(getattr(module, name))}


def test_every_listed_test_exists() -> None:
    rows = _coverage.load()
    missing = []
    for module_file, function in sorted(_coverage.referenced_tests(rows), key=str):
        if not (SUITES / module_file).exists():
            missing.append(module_file)
            continue
        if function is None:
            continue
        names = _functions(module_file)
        found = any(n.startswith(function[:-1]) for n in names) if function.endswith("*") else function in names
        if not found:
            missing.append(f"{module_file}::{function}")
    assert missing == [], f"the coverage table lists tests the suites no longer have: {missing}"


def test_committed_table_is_current() -> None:
    committed = REPO / _coverage.DEFAULT_OUT
    assert committed.read_text(encoding="utf-8") == _coverage.render(_coverage.load()), (
        f"{committed} is out of date: run python -m ovconform.suites._coverage")


def test_rows_count_the_bodies_read() -> None:
    """The table accounts for all 273 OpenVINO bodies read and the guide's 36 requirements."""
    rows = _coverage.load()
    bodies = _coverage.totals(rows, _coverage.ENTITIES[:3])
    guide = _coverage.totals(rows, ("guide",))
    assert (sum(bodies.counts.values()), sum(guide.counts.values())) == (273, 36)


@pytest.mark.parametrize("bad", ["entity", "status", "test"])
def test_malformed_rows_are_refused(tmp_path: Path, bad: str) -> None:
    header = "entity,openvino,n,scope,tests,status,note\n"
    row = {"entity": "nope,X,1,M,test_plugin_version.py::test_x,covered,",
           "status": "ov_plugin,X,1,M,test_plugin_version.py::test_x,done,",
           "test": "ov_plugin,X,1,M,plugin_version::x,covered,"}[bad]
    path = tmp_path / "bad.csv"
    path.write_text(header + row + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        _coverage.load(path)
