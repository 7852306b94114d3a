"""Reports: the schema and its validator, the renderers, merge, diff as a CI gate, the sample reports.

Documents are the committed sample (a real REFERENCE run, ``reports/REFERENCE/conformance.json``),
a faulty device derived from it (renamed, some results flipped), and small op documents built here.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from _paths import REPO

from ovconform.cli import main
from ovconform.errors import ValidationError
from ovconform.reports import _doc, _validate, diff, merge, render
from ovconform.reports.conformance import summarize

ROOT = REPO
SAMPLE = ROOT / "reports" / "REFERENCE" / "conformance.json"
RUN = {"ovconform_version": "0.1.0", "started_at": "2026-01-01T00:00:00.000Z",
       "finished_at": "2026-01-01T00:01:00.000Z", "duration_s": 60.0}


# ---- document builders (also used by test_reports_browser) ---------------------------------------

def record(device: str, name: str, status: str, entity: str = "ov_plugin", scope: str = "mandatory",
           facts: dict[str, Any] | None = None, finished_at: float = 1.0) -> dict[str, Any]:
    return {"nodeid": f"test_x.py::{name}[{device}]", "device": device, "entity": entity, "scope": scope,
            "status": status, "phase": "call", "duration": 0.01,
            "message": "" if status == "passed" else f"{name} is {status} on {device}",
            "facts": facts or {}, "finished_at": finished_at}


def document(device: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    records = sorted(records, key=lambda r: r["nodeid"])
    return {"schema_version": "1.0", "run": dict(RUN), "device": {"name": device, "full_name": f"{device} device"},
            "summary": summarize(records), "records": records}


def op(device: str, op_type: str, version: str, sub: str, status: str, scope: str = "mandatory",
       **facts: Any) -> dict[str, Any]:
    name = f"test_op[{op_type}-{version}-{sub}]".replace("[", "_").replace("]", "")
    return record(device, name, status, "op", scope, {"op_type": op_type, "version": version, "sub_entity": sub,
                                                       **facts})


def op_document(device: str, relu_status: str = "failed") -> dict[str, Any]:
    return document(device, [
        op(device, "Add", "opset1", "Inference", "passed"),
        op(device, "Add", "opset1", "QueryModel", "passed"),
        op(device, "Relu", "opset1", "Inference", relu_status, tolerance={"atol": 1e-5}, max_abs_err=0.5,
           repro=f"repro/{device}/relu.xml"),
        op(device, "Relu", "opset1", "QueryModel", "passed", scope="optional"),
        op(device, "Softmax", "opset8", "Inference", "skipped", scope="optional"),
        record(device, "test_api_ok", "passed"),
        record(device, "test_api_optional", "passed", "ov_compiled_model", "optional"),
        record(device, "test_api_bad", "failed", "ov_infer_request"),
        record(device, "test_api_skip", "skipped", "ov_infer_request", "optional"),
    ])


def sample() -> dict[str, Any]:
    return _doc.load(SAMPLE)


def faulty_from(doc: dict[str, Any], device: str = "FAULTY", flips: int = 3) -> dict[str, Any]:
    """``doc`` as if run on ``device``, with the first ``flips`` passed tests failed."""
    old = doc["device"]["name"]
    records = []
    for r in copy.deepcopy(doc["records"]):
        r["device"], r["nodeid"] = device, r["nodeid"].replace(f"[{old}", f"[{device}")
        if r["status"] == "passed" and flips > 0:
            r["status"], r["message"], flips = "failed", "AssertionError: injected", flips - 1
        records.append(r)
    return document(device, records) | {"run": doc["run"]}


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


# ---- schema and validator -------------------------------------------------------------------------

def test_sample_and_built_documents_are_valid() -> None:
    doc = json.loads(SAMPLE.read_text())
    assert _validate.errors(doc) == []
    assert doc["device"]["name"] == "REFERENCE" and len(doc["records"]) > 100
    assert _validate.errors(op_document("X")) == []
    assert _validate.errors(merge.merge([doc, op_document("X")])) == []


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda d: d.pop("records"), r"\$: missing required property 'records'"),
    (lambda d: d.update(schema_version="2.0"), r"\$.schema_version: \"2.0\" is not the allowed value \"1.0\""),
    (lambda d: d["records"][0].update(status="green"), r"\$.records\[0\].status: \"green\" is not one of \['passed'"),
    (lambda d: d["summary"].update(pass_rate=120), r"\$.summary.pass_rate: 120 is above the maximum 100"),
    (lambda d: d["summary"].update(pass_rate="100%"), r"\$.summary.pass_rate: expected number or null, got str"),
    (lambda d: d.update(extra=1), r"\$: unexpected property 'extra'"),
    (lambda d: d["records"][0].update(scope="sometimes"), r"records\[0\].scope: \"sometimes\" is not one of"),
    (lambda d: d["run"].update(started_at="yesterday"), r"\$.run.started_at: \"yesterday\" does not match"),
    (lambda d: d["summary"]["statuses"].update(fine=1), r"property name 'fine'.*is not one of"),
])
def test_invalid_documents_are_rejected_with_the_path_and_what_is_allowed(mutate: Any, expected: str) -> None:
    doc = op_document("X")
    mutate(doc)
    with pytest.raises(ValidationError) as info:
        _validate.validate(doc, name="report 'x.json'")
    assert "report 'x.json' is not a valid ovconform conformance report" in str(info.value)
    assert re.search(expected, str(info.value)), str(info.value)


def test_invalid_merged_document_is_checked_against_the_merged_shape() -> None:
    doc = merge.merge([op_document("X")])
    doc["merge"]["duplicates"] = -1
    del doc["devices"]["X"]["summary"]
    problems = _validate.errors(doc)
    assert "$.merge.duplicates: -1 is below the minimum 0" in problems
    assert "$.devices.X: missing required property 'summary'" in problems


def test_load_names_the_file_when_it_is_not_a_report(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValidationError, match=r"report file '.*bad.json' is not readable JSON"):
        _doc.load(bad)
    with pytest.raises(ValidationError, match=r"report file '.*missing.json' does not exist"):
        _doc.load(tmp_path / "missing.json")
    bad.write_text("[]")
    with pytest.raises(ValidationError, match=r"\$: expected object, got list"):
        _doc.load(bad)


def test_validator_refuses_schema_keywords_it_does_not_implement() -> None:
    with pytest.raises(ValidationError, match=r"unsupported keyword\(s\) \['oneOf'\]"):
        _validate.errors({}, {"oneOf": [{"type": "object"}]})


def test_every_schema_property_is_documented() -> None:
    def walk(node: Any, path: str) -> list[str]:
        missing = []
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                target = sub
                while "$ref" in target and "description" not in target:
                    target = _validate._resolve(_validate.schema(), target["$ref"])
                if "description" not in target:
                    missing.append(f"{path}.{name}")
            children = [*node.get("properties", {}).items(), *node.get("$defs", {}).items()]
            children += [(k, node[k]) for k in ("items", "additionalProperties", "then", "else") if k in node]
            for key, sub in children:
                missing += walk(sub, f"{path}/{key}")
        return missing

    assert walk(_validate.schema(), "#") == []


def test_schema_agrees_with_jsonschema_when_installed() -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (optional cross-check)")
    validator = jsonschema.Draft202012Validator(_validate.schema())
    assert list(validator.iter_errors(json.loads(SAMPLE.read_text()))) == []
    bad = op_document("X")
    bad["records"][0]["status"] = "green"
    assert list(validator.iter_errors(bad))


# ---- pass rates and rendering ---------------------------------------------------------------------

def test_all_skipped_shows_n_a_and_no_mandatory_tests_shows_n_a() -> None:
    doc = document("S", [record("S", "a", "skipped"), record("S", "b", "skipped", scope="optional")])
    assert doc["summary"]["pass_rate"] is None and doc["summary"]["mandatory_pass_rate"] is None
    text = render.render(doc, "text")
    assert re.search(r"S\s+ov_plugin\s+2\s+0\s+0\s+2\s+0\s+0\s+n/a\s+n/a", text), text
    assert "all,S,,,0,0,2,0,0,," in render.render(doc, "csv")


def test_counters_follow_the_documented_mapping() -> None:
    statuses = ["passed", "xpassed", "failed", "error", "xfailed", "skipped", "crashed", "hanged"]
    recs = [record("D", f"t{i}", s) for i, s in enumerate(statuses)]
    c = _doc.counters(recs)
    assert {k: c[k] for k in _doc.COUNTERS} == {"passed": 2, "failed": 3, "skipped": 1, "crashed": 1, "hanged": 1}
    assert c["passrate"] == round(200 / 7, 2)


def test_csv_has_summarize_columns_and_op_rows() -> None:
    rows = list(csv.DictReader(io.StringIO(render.render(op_document("X"), "csv"))))
    assert tuple(rows[0]) == render.CSV_COLUMNS
    relu = next(r for r in rows if r["op"] == "Relu")
    assert relu == {"entity": "op", "device": "X", "op": "Relu", "opset": "opset1", "passed": "1", "failed": "1",
                    "skipped": "0", "crashed": "0", "hanged": "0", "passrate": "50.00", "relative_passrate": "0.00"}
    softmax = next(r for r in rows if r["op"] == "Softmax")
    assert softmax["passrate"] == "" and softmax["skipped"] == "1"


def test_markdown_and_text_show_entities_ops_and_failures_with_repro() -> None:
    doc = op_document("X")
    md = render.render(doc, "md")
    assert "| device   | entity" in md and "## Ops" in md and "repro/X/relu.xml" in md
    assert "| X        | all" in md
    text = render.render(doc, "text")
    assert "failures: 2" in text and "test_api_bad" in text


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"unknown report format 'pdf'; allowed: md, csv, text, html"):
        render.render(op_document("X"), "pdf")


def test_html_is_self_contained_and_references_nothing_outside() -> None:
    page = render.render(merge.merge([sample(), faulty_from(sample())]), "html")
    data = re.search(r'<script id="ovc-data" type="application/json">(.*?)</script>', page, re.S)
    assert data and json.loads(data.group(1))["records"]
    assert "://" not in page.replace(data.group(1), "")  # messages in the data may quote URLs; nothing else does
    assert not re.search(r"<link|<img|<iframe|\bsrc\s*=|url\(|@import", page, re.I)
    assert "default-src 'none'" in page  # the CSP forbids any fetch even if data contained a URL
    hostile = op_document("X")
    hostile["records"][0]["message"] = "</script><script>alert(1)</script>"
    hostile["records"][0]["status"] = "failed"
    assert "</script><script>alert" not in render.render(hostile, "html")


# ---- merge ----------------------------------------------------------------------------------------

def test_merge_reference_and_faulty_renders_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    faulty = faulty_from(sample())
    out = tmp_path / "merged.json"
    assert main(["report", "merge", str(SAMPLE), write(tmp_path, "f.json", faulty), "-o", str(out)]) == 0
    merged = _doc.load(out)
    assert list(merged["devices"]) == ["FAULTY", "REFERENCE"]
    before = sample()["summary"]["statuses"].get("failed", 0)
    assert merged["devices"]["FAULTY"]["summary"]["statuses"]["failed"] == before + 3
    for fmt in render.FORMATS:
        assert main(["report", "render", str(out), "--format", fmt, "-o", str(tmp_path / f"m.{fmt}")]) == 0
        assert "FAULTY" in (tmp_path / f"m.{fmt}").read_text()
    rows = list(csv.DictReader(io.StringIO((tmp_path / "m.csv").read_text())))
    assert {r["device"] for r in rows} == {"FAULTY", "REFERENCE"}


def test_merge_sums_split_runs_and_keeps_the_latest_of_a_rerun() -> None:
    a = document("D", [record("D", "t1", "passed"), record("D", "t2", "failed", finished_at=1.0)])
    b = document("D", [record("D", "t3", "skipped"), record("D", "t2", "passed", finished_at=2.0)])
    m = merge.merge([a, b])
    assert m["merge"]["duplicates"] == 1 and len(m["runs"]) == 2
    assert m["devices"]["D"]["summary"]["statuses"] == {"passed": 2, "skipped": 1}
    older_last = merge.merge([b, a])  # order does not matter: the record that finished last wins
    assert older_last["devices"]["D"]["summary"]["statuses"] == {"passed": 2, "skipped": 1}


def test_merge_device_suffixes_folds_device_ids_and_sums_counters() -> None:
    g0 = document("GPU.0", [record("GPU.0", "t1", "passed"), record("GPU.0", "t2", "failed")])
    g1 = document("GPU.1", [record("GPU.1", "t1", "passed"), record("GPU.1", "t2", "passed")])
    kept = merge.merge([g0, g1])
    assert list(kept["devices"]) == ["GPU.0", "GPU.1"]
    folded = merge.merge([g0, g1], merge_device_suffixes=True)
    assert list(folded["devices"]) == ["GPU"] and folded["devices"]["GPU"]["merged_from"] == ["GPU.0", "GPU.1"]
    assert folded["devices"]["GPU"]["summary"]["statuses"] == {"failed": 1, "passed": 3}
    assert {_doc.test_name(r) for r in folded["records"]} == {"test_x.py::t1", "test_x.py::t2"}
    again = merge.merge([folded, document("CPU", [record("CPU", "t1", "passed")])])  # merged docs merge again
    assert list(again["devices"]) == ["CPU", "GPU"] and again["devices"]["GPU"]["merged_from"] == ["GPU.0", "GPU.1"]
    assert merge.base_device("GPU.10") == "GPU" and merge.base_device("HETERO:GPU,CPU") == "HETERO:GPU,CPU"


# ---- diff as a CI gate ----------------------------------------------------------------------------

def _flip(doc: dict[str, Any], index: int, status: str) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["records"][index]["status"] = status
    out["summary"] = summarize(out["records"])
    return out


def test_diff_exits_1_on_an_injected_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = sample()
    i = next(i for i, r in enumerate(base["records"]) if r["status"] == "passed")
    new = write(tmp_path, "new.json", _flip(base, i, "crashed"))
    assert main(["report", "diff", str(SAMPLE), new, "--fail-on", "regression"]) == 1
    out = capsys.readouterr().out
    assert "REGRESSIONS: 1" in out and base["records"][i]["nodeid"] in out and "gate --fail-on regression: FAIL" in out
    assert main(["report", "diff", str(SAMPLE), new]) == 0  # without --fail-on it only reports


def test_diff_reports_a_fixed_test_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = sample()
    i = next(i for i, r in enumerate(base["records"]) if r["status"] == "passed")
    old = write(tmp_path, "old.json", _flip(base, i, "failed"))
    assert main(["report", "diff", old, str(SAMPLE), "--fail-on", "regression", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [c["nodeid"] for c in result["fixed"]] == [base["records"][i]["nodeid"]]
    assert result["regressions"] == [] and result["new_failures"] == []


def test_diff_definitions_regression_new_failure_missing() -> None:
    base = document("D", [record("D", "a", "passed"), record("D", "b", "xfailed"), record("D", "c", "skipped"),
                          record("D", "d", "passed"), record("D", "e", "failed")])
    new = document("D", [record("D", "a", "passed"), record("D", "b", "xpassed"), record("D", "c", "failed"),
                         record("D", "e", "error"), record("D", "f", "hanged")])
    d = diff.diff(base, new)
    names = {k: [c.nodeid.split("::")[1][0] for c in getattr(d, k)]
             for k in ("regressions", "new_failures", "fixed", "missing", "added", "changed")}
    assert names == {"regressions": ["b"], "new_failures": ["b", "c", "f"], "fixed": [], "missing": ["d"],
                     "added": ["f"], "changed": ["b", "c", "e"]}
    assert d.fails(["regression"]) and d.fails(["missing"]) and d.fails(["new-failure"])
    calm = diff.diff(base, base)
    assert not calm.fails(list(diff.FAIL_ON))


def test_diff_gives_pass_rate_deltas_per_entity_and_per_op() -> None:
    d = diff.diff(op_document("X", relu_status="failed"), op_document("X", relu_status="passed"))
    rates = {r.key: r for r in d.rates}
    assert rates["op:Relu-opset1"].before == 50.0 and rates["op:Relu-opset1"].after == 100.0
    assert rates["op:Relu-opset1"].delta == 50.0 and rates["op:Add-opset1"].delta == 0.0
    assert rates["op"].mandatory_before == 66.67 and rates["op"].mandatory_after == 100.0
    assert [c.nodeid for c in d.fixed] == [r["nodeid"] for r in op_document("X")["records"] if "Relu" in r["nodeid"]
                                          and r["facts"]["sub_entity"] == "Inference"]
    text = diff.render_text(d)
    assert re.search(r"X\s+op:Relu-opset1\s+50.00%\s+100.00%\s+\+50.00", text), text


def test_cli_reports_bad_input_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.json", {"schema_version": "1.0"})
    assert main(["report", "diff", bad, str(SAMPLE), "--fail-on", "regression"]) == 2
    err = capsys.readouterr().err
    assert "ovconform report diff: error:" in err and "missing required property 'records'" in err
    assert main(["report", "validate", str(SAMPLE)]) == 0


# ---- the committed sample is the project's own output ---------------------------------------------

@pytest.mark.parametrize("fmt", ["md", "csv", "html"])
def test_committed_sample_renders_are_current(fmt: str) -> None:
    committed = (SAMPLE.parent / f"conformance.{fmt}").read_text()
    assert committed == render.render(sample(), fmt), f"re-run: ovconform report sample --from {SAMPLE}"


def test_sample_command_writes_the_four_files(tmp_path: Path) -> None:
    assert main(["report", "sample", "--out", str(tmp_path), "--from", str(SAMPLE)]) == 0
    for suffix in ("json", "md", "csv", "html"):
        assert (tmp_path / "REFERENCE" / f"conformance.{suffix}").stat().st_size > 0
    assert (tmp_path / "REFERENCE" / "conformance.json").read_text() == SAMPLE.read_text()


def test_sample_run_shows_pytest_progress_as_it_comes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ovconform report sample`` runs every suite for minutes: pytest's output is echoed to stderr
    line by line (it used to print nothing until the end), and its tail goes into an error."""
    import sys

    from ovconform.reports.cli import _run_showing_progress

    script = "import sys\nfor i in range(3):\n    print(f'[{i}] progress', flush=True)\nsys.exit(3)\n"
    code, tail = _run_showing_progress([sys.executable, "-c", script], str(tmp_path), dict(os.environ))
    assert code == 3 and tail.splitlines() == ["[0] progress", "[1] progress", "[2] progress"]
    assert capsys.readouterr().err.splitlines() == tail.splitlines()
