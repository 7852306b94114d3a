"""The HTML report a CI user keeps (issue #25 item 4), in headless Chromium: run metadata, each
test's time, sortable tables, failures grouped by cause with their traceback and captured output,
the repro embedded (script shown, folder downloadable as a zip, no absolute path) and the "since
the baseline" view."""

from __future__ import annotations

import base64
import copy
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from test_reports_browser import CHROMIUM, _dump, rows
from test_reports_core import RUN, document, record

from ovconform.reports import render
from ovconform.reports.html_parts import cause, relative_repro

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium found")


def _failure(device: str, name: str, message: str, duration: float, **facts: Any) -> dict[str, Any]:
    r = record(device, name, "failed", "op" if "op_type" in facts else "ov_plugin", "mandatory", facts)
    r["message"], r["duration"] = message, duration
    r["details"] = (f"Traceback of {name}\n  File suite.py, line 3\nAssertionError: {message}\n"
                    f"----- Captured stdout call -----\nprinted by {name}")
    return r


def _doc(tmp: Path) -> tuple[dict[str, Any], Path]:
    """Three Relu failures of one cause (numbers differ), one Add failure, one API failure, passes
    with distinct times; the Relu-case0 repro folder written under ``tmp/reports/DEV/repro``."""
    folder = tmp / "reports" / "DEV" / "repro" / "relu_case0"
    folder.mkdir(parents=True)
    (folder / "repro.py").write_text("print('reproducing Relu case 0')\n")
    (folder / "inputs.npz").write_bytes(b"\x93NUMPY-fake")
    records = [
        _failure("DEV", f"test_op_inference_Relu_case{i}", f"Relu-1 output 0: got={i}.5, but should be {i} ['DEV']",
                 0.1 * (i + 1), op_type="Relu", version="opset1", repro=str(folder / "repro.py") if i == 0 else None)
        for i in range(3)
    ] + [
        _failure("DEV", "test_op_inference_Add_case0", "Add-1 output 0: got=1, but should be 2", 0.05,
                 op_type="Add", version="opset1"),
        _failure("DEV", "test_api_bad", "PERF_COUNT='NO', but should be 'YES'", 2.5),
        record("DEV", "test_api_slow", "passed"), record("DEV", "test_api_fast", "passed"),
    ]
    for r in records:
        if r["facts"].get("repro") is None:
            r["facts"].pop("repro", None)
    next(r for r in records if r["nodeid"].startswith("test_x.py::test_api_slow"))["duration"] = 7.25
    doc = document("DEV", records)
    doc["run"] = dict(RUN, command_line=["pytest", "--plugin=dev", "-n", "2"], python="3.11.7",
                      platform="Linux-x86_64", machine="x86_64")
    doc["device"]["properties"] = {"OPTIMIZATION_CAPABILITIES": ["FP32", "INT8"], "FULL_DEVICE_NAME": "DEV device"}
    return doc, tmp / "reports"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("ci")
    doc, base = _doc(tmp)
    baseline = copy.deepcopy(doc)
    for r in baseline["records"]:
        if "Relu_case1" in r["nodeid"] or "test_api_bad" in r["nodeid"]:
            r["status"], r["message"] = "passed", ""
    baseline["records"] = [r for r in baseline["records"] if "Add_case0" not in r["nodeid"]]
    baseline["records"].append(record("DEV", "test_api_gone", "passed"))
    out = tmp / "report.html"
    out.write_text(render.render(doc, "html", base=base, baseline=baseline, baseline_label="main@abc"))
    return out, doc


def test_the_page_shows_the_run_metadata(page: tuple[Path, dict[str, Any]]) -> None:
    html = _dump(page[0])
    meta = html.split('id="metadata"', 1)[1].split("</details>", 1)[0]
    for text in ("2026-01-01T00:00:00.000Z", "pytest --plugin=dev -n 2", "3.11.7", "Linux-x86_64", "DEV device"):
        assert text in meta, text
    assert "OPTIMIZATION_CAPABILITIES" in html and "FP32 INT8" in html


def test_each_test_shows_its_time_and_the_tables_sort_by_a_column(page: tuple[Path, dict[str, Any]]) -> None:
    html = _dump(page[0], "sort=tests.3.desc")
    names = [re.search(r"<th>(.*?)</th>", r).group(1) for r in rows(html, "test-row")]  # type: ignore[union-attr]
    times = [float(re.findall(r'<td class="time">(.*?)</td>', r)[0]) for r in rows(html, "test-row")]
    assert times == sorted(times, reverse=True) and times[0] == 7.25, times
    assert names[0] == "test_x.py::test_api_slow", names
    html = _dump(page[0], "sort=tests.0")
    names = [re.search(r"<th>(.*?)</th>", r).group(1) for r in rows(html, "test-row")]  # type: ignore[union-attr]
    assert names == sorted(names)
    assert 'class="sorted"' in html


def test_failures_are_grouped_by_cause_with_traceback_and_output(page: tuple[Path, dict[str, Any]]) -> None:
    html = _dump(page[0])
    groups = re.findall(r'<details class="cause" data-cause="([^"]*)" data-count="(\d+)"', html)
    counts = {c.replace("&#39;", "'"): int(n) for c, n in groups}
    assert counts["Relu-opset1: Relu-1 output N: got=N, but should be N [S]"] == 3, counts
    assert len(groups) == 3 and sorted(counts.values()) == [1, 1, 3]
    assert re.search(r'id="count-causes">3<', html) and re.search(r'id="count-failures">5<', html)
    assert "Traceback of test_api_bad" in html and "printed by test_api_bad" in html
    assert "(2.500 s)" in html


def test_the_repro_is_embedded_with_a_relative_path(page: tuple[Path, dict[str, Any]]) -> None:
    out, doc = page
    html = _dump(out)
    assert "repro: <code class=\"repro\">DEV/repro/relu_case0/repro.py</code>" in html
    assert "print('reproducing Relu case 0')" in html.replace("&#39;", "'")
    assert 'data-name="relu_case0.zip"' in html
    assert str(out.parent) not in html  # no absolute path of this machine in what is shown
    data = json.loads(re.search(r'<script id="ovc-data" type="application/json">(.*?)</script>',
                                out.read_text(), re.S).group(1))  # type: ignore[union-attr]
    (rp,) = [r["rp"] for r in data["records"] if "rp" in r]
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(rp["zip"]))) as z:
        assert sorted(z.namelist()) == ["relu_case0/inputs.npz", "relu_case0/repro.py"]
        assert z.read("relu_case0/inputs.npz") == b"\x93NUMPY-fake"


def test_the_baseline_view_lists_each_kind_of_change(page: tuple[Path, dict[str, Any]]) -> None:
    html = _dump(page[0])
    section = html.split('id="baseline"', 1)[1].split("</section>", 1)[0]
    assert "main@abc" in section
    counts = dict(re.findall(r'data-kind="(\w+)">[^<]*: <b>(\d+)</b>', section))
    assert counts == {"regressions": "2", "new_failures": "3", "fixed": "0", "added": "1", "missing": "1"}, counts
    regressed = re.findall(r'<tr class="bl-row" data-kind="regressions">(.*?)</tr>', section)
    assert len(regressed) == 2 and all("passed" in r and "failed" in r for r in regressed)


def test_without_a_baseline_or_repro_folder_the_page_says_so(tmp_path: Path) -> None:
    doc, _ = _doc(tmp_path)
    out = tmp_path / "plain.html"
    out.write_text(render.render(doc, "html"))  # no base: the recorded absolute path still finds the folder
    html = _dump(out)
    assert 'id="baseline"' not in html
    moved = tmp_path / "moved.html"
    doc["records"][0]["facts"]["repro"] = "/elsewhere/reports/DEV/repro/relu_case0/repro.py"
    moved.write_text(render.render(doc, "html", base=tmp_path / "nowhere"))
    assert "the repro folder is not beside this report" in _dump(moved)


def test_cause_and_relative_path_helpers() -> None:
    r = record("D", "test_y", "failed")
    r["message"] = "x='a', got 1.5e-3 but should be 2 [call('b')]\nsecond line 7"
    assert cause(r) == "test_x.py::test_y: x=S, got N but should be N [call(S)]"
    assert relative_repro("/home/ci/w/reports/openvino-CPU/repro/t/repro.py") == "openvino-CPU/repro/t/repro.py"
    assert relative_repro("repro.py") == "repro.py"
