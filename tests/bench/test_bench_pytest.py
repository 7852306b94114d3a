"""The perf suite in pytest: opt-in with -m perf, refused under xdist -n, records in the report and
its HTML perf section."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _paths import REPO

from ovconform.bench.pytest_perf import selects_perf
from ovconform.reports import render
from ovconform.reports.perf_html import perf_docs, perf_page

pytest_plugins = ["pytester"]

_TESTS = """
import pytest

@pytest.mark.perf
def test_timed():
    pass

def test_plain():
    pass
"""


@pytest.mark.parametrize(("expr", "selected"), [("perf", True), ("perf or op", True), ("not perf", False),
                                                 ("", False), ("op", False), ("perf and not slow", True)])
def test_selects_perf(expr: str, selected: bool) -> None:
    assert selects_perf(expr) is selected


def test_perf_tests_are_opt_in_with_a_plugin(pytester: pytest.Pytester) -> None:
    path = str(pytester.makepyfile(_TESTS))  # a path: without one, --plugin runs the installed suites
    result = pytester.runpytest_subprocess("--plugin=REFERENCE", path, "-v", "-p", "no:randomly")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*test_plain PASSED*"])
    result = pytester.runpytest_subprocess("--plugin=REFERENCE", path, "-v", "-m", "perf", "-p", "no:randomly")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*test_timed PASSED*"])


def test_without_a_plugin_nothing_is_deselected(pytester: pytest.Pytester) -> None:
    path = str(pytester.makepyfile(_TESTS))
    result = pytester.runpytest_subprocess(path, "-q", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    result = pytester.runpytest_subprocess("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.perf: a performance measurement*"])


def test_perf_under_xdist_is_refused_with_a_usage_error(pytester: pytest.Pytester) -> None:
    path = str(pytester.makepyfile(_TESTS))
    result = pytester.runpytest_subprocess("--plugin=REFERENCE", path, "-m", "perf", "-n", "2", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the perf suite (-m 'perf') measures time and must run serially*(-n)*"
                                 "exclude them from the parallel run with -m 'not perf'*"])
    ok = pytester.runpytest_subprocess("--plugin=REFERENCE", path, "-m", "not perf", "-n", "2", "-q", "-p",
                                       "no:randomly")
    ok.assert_outcomes(passed=1)


@pytest.fixture(scope="module")
def suite_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed perf suite on REFERENCE: cnn (sync) and the random-input test, 3 iterations each."""
    out = tmp_path_factory.mktemp("perf")
    env = {**os.environ, "OVCONFORM_PERF_NITER": "3"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--plugin=REFERENCE", "-m", "perf", "-k",
                           "cnn-sync or random_inputs or hint_modes", "-q", "-p", "no:randomly", "-p",
                           "no:cacheprovider", "--ovconform-report-dir", str(out)],
                          cwd=out, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "4 passed" in proc.stdout
    return out / "REFERENCE" / "conformance.json"


def test_suite_records_carry_the_perf_document(suite_run: Path) -> None:
    from ovconform.reports import _doc

    doc = _doc.load(suite_run)  # validates against schema.json
    records = {r["nodeid"].split("::")[-1]: r for r in doc["records"]}
    cnn = records["test_benchmark[REFERENCE-cnn-sync-latency]"]
    assert cnn["entity"] == "perf" and cnn["facts"]["model"] == "cnn"
    perf = cnn["facts"]["perf"]
    assert perf["results"]["iterations"] == 3 and perf["counters"]["available"]
    assert perf["blas"]["source"] and "threads" in perf["blas"]
    coverage = next(f for f in perf["findings"] if f["check"] == "latency_coverage")
    assert coverage["coverage_percent"] == perf["coverage_percent"] > 0
    none = records["test_hint_modes[REFERENCE-none]"]["facts"]["perf"]
    assert none["config"]["nireq"] == 2 and str(none["device_properties"]["NUM_STREAMS"]) == "2"
    assert doc["summary"]["entities"]["perf"]["total"] == 4


def test_conformance_html_has_the_perf_section(suite_run: Path) -> None:
    from ovconform.reports import _doc

    doc = _doc.load(suite_run)
    page = render.render(doc, "html")
    section = re.search(r'<section id="perf-section">.*?</section>', page, re.S)
    assert section, "no perf section"
    text = section.group(0)
    assert text.count('<tr class="perf-row">') == 4 and text.count("<svg") == 4
    assert "conv" in text and "latency_coverage" in text
    assert "://" not in text and "<script" not in text  # static, nothing fetched
    assert len(perf_docs(doc)) == 4


def test_html_without_perf_records_is_unchanged() -> None:
    sample = REPO / "reports" / "REFERENCE" / "conformance.json"
    from ovconform.reports import _doc

    page = render.render(_doc.load(sample), "html")
    assert "perf-section" not in page and "@PERF@" not in page


def test_comparison_and_escaping_in_the_perf_page() -> None:
    def doc(device: str, lat: float) -> dict[str, object]:
        return {"device": device, "model": "<cnn>", "config": {"api": "async", "hint": "throughput", "nireq": 1},
                "results": {"latency_ms": {"median": lat, "average": lat, "min": lat, "max": lat, "at_percentile": lat},
                            "throughput_fps": 1000 / lat, "first_inference_ms": lat},
                "counters": {"available": True, "requests": 1, "total_real_time_ms": lat,
                             "sorted": [{"name": "n<1>", "node_type": "Add", "status": "Status.EXECUTED",
                                         "share_percent": 100.0}]},
                "findings": [{"check": "non_negative", "status": "ok", "message": "fine"}], "verdict": "ok",
                "coverage_percent": 90.0, "blas": {"threads": 1}}

    page = perf_page([doc("A", 10.0), doc("B", 20.0)])
    assert 'id="perf-comparison"' in page and "<td>2.000</td>" in page and "<td>0.500</td>" in page
    assert "&lt;cnn&gt;" in page and "n&lt;1&gt;" in page and "<cnn>" not in page
    json.dumps(page)
