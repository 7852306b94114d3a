"""``ovconform ops``: the coverage rows follow the op-definition table, the kernels and the case
strategies, and the CLI renders every format. (The op table itself is checked against OpenVINO's
own opset tables in ``tests/ir/test_openvino_opset_table.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ovconform.cli import main
from ovconform.errors import OVConformError
from ovconform.ir.opset_table import LATEST_OPSET, OPSET_VERSIONS
from ovconform.opcases import all_case_keys
from ovconform.opcases import coverage as ops_table
from reference_plugin.ops import registered_ops


def test_every_reference_kernel_is_an_openvino_op_version() -> None:
    for op, versions in registered_ops().items():
        assert op in OPSET_VERSIONS, f"REFERENCE registers {op}, which opset1..{LATEST_OPSET} does not have"
        assert set(versions) <= set(OPSET_VERSIONS[op]), f"{op}: kernels {versions}, opsets {OPSET_VERSIONS[op]}"


def test_rows_follow_kernels_and_cases() -> None:
    rows = {r.op: r for r in ops_table.coverage()}
    assert set(rows) == set(OPSET_VERSIONS)
    keys = set(all_case_keys())
    for op, versions in registered_ops().items():
        row = rows[op]
        assert set(versions) <= set(row.implemented)
        if op not in ops_table.IN_EVERY_CASE:
            assert set(row.cross_checked) == {v for v in row.implemented if (op, v) in keys}
    assert rows["Gather"].complete and rows["Gather"].versions == (1, 7, 8)
    assert rows["Parameter"].complete and "in every case" in rows["Parameter"].notes
    assert rows["StringTensorPack"].complete and "empty string" in rows["StringTensorPack"].notes


def test_every_op_with_a_kernel_has_every_version_and_a_case_for_each() -> None:
    """For every family at once (each family's test module used to keep a hand list of its keys):
    an op REFERENCE implements has every version of opset1..17, each version has a case strategy
    (but the ops in every case), and every case strategy has a kernel."""
    keys = set(all_case_keys())
    rows = ops_table.coverage()
    incomplete = [(r.op, r.implemented, r.versions) for r in rows if r.implemented and not r.complete]
    assert not incomplete, f"ops with some versions unimplemented: {incomplete}"
    no_case = sorted((r.op, v) for r in rows for v in r.implemented
                     if (r.op, v) not in keys and r.op not in ops_table.IN_EVERY_CASE)
    assert not no_case, f"op versions without a case strategy: {no_case}"
    implemented = {(r.op, v) for r in rows for v in r.implemented}
    assert keys <= implemented, f"case strategies without a kernel: {sorted(keys - implemented)}"
    assert len(keys) >= 220


def test_missing_versions_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(OPSET_VERSIONS, "Relu", (1, 99))
    row = next(r for r in ops_table.coverage() if r.op == "Relu")
    assert row.status == "partial" and row.implemented == (1,) and "missing versions: Relu-99" in row.notes


def test_cli_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ops"]) == 0
    text = capsys.readouterr().out
    assert "Gather" in text and f"of {len(OPSET_VERSIONS)} op types" in text
    out = tmp_path / "ops.json"
    assert main(["ops", "--format", "json", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    doc = json.loads(out.read_text())
    summary = ops_table.summary(ops_table.coverage())
    assert doc["summary"] == summary and len(doc["ops"]) == len(OPSET_VERSIONS)
    assert main(["ops", "--format", "md", "--missing"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("# REFERENCE op coverage")
    missing = {r.op for r in ops_table.coverage() if r.status != "yes"}
    assert "| Gather " not in md and all(f"| {op} " in md for op in missing)
    assert main(["ops", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("op,versions")


def test_junit_results_fill_the_column(tmp_path: Path) -> None:
    name = ops_table._CROSSCHECK_TEST
    xml = tmp_path / "x.xml"
    xml.write_text(f"""<?xml version="1.0"?><testsuites><testsuite name="pytest">
      <testcase classname="t" name="{name}[Relu-1]"><properties><property name="cases_checked" value="50"/>
      </properties></testcase>
      <testcase classname="t" name="{name}[Gather-8]"><failure message="x"/></testcase>
      <testcase classname="t" name="{name}[Gather-7]"><skipped message="every drawn case matches"/></testcase>
      <testcase classname="t" name="test_other"/></testsuite></testsuites>""")
    found = ops_table.read_junit(xml)
    assert found == {("Relu", 1): "50 cases agree", ("Gather", 8): "FAILED",
                     ("Gather", 7): "skipped: every drawn case matches"}
    rows = {r.op: r for r in ops_table.coverage(found)}
    assert rows["Relu"].cases == {1: "50 cases agree"}
    assert "8: FAILED" in ops_table.render([rows["Gather"]], "md")


@pytest.mark.parametrize("content", ["not xml", "<testsuites/>"])
def test_bad_junit_is_a_clear_error(tmp_path: Path, content: str) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(content)
    with pytest.raises(OVConformError, match="bad.xml"):
        ops_table.read_junit(bad)
    with pytest.raises(OVConformError, match="cannot read"):
        ops_table.read_junit(tmp_path / "missing.xml")


@pytest.mark.parametrize("args", [["--report", "{missing}"], ["--report", "{notreport}"], ["--junit", "{notreport}"]])
def test_cli_bad_files_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    """``ovconform ops`` names the bad file and exits 2, as ``ovconform report`` does (no traceback)."""
    (tmp_path / "x.json").write_text("{}")
    paths = {"missing": str(tmp_path / "missing.json"), "notreport": str(tmp_path / "x.json")}
    argv = ["ops", *[a.format(**paths) for a in args]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ovconform ops: error: ") and err.count("\n") == 1 and "Traceback" not in err
