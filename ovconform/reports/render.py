"""Render a conformance document (single-device or merged) as Markdown, CSV, text or HTML.

Renders are deterministic: they depend only on the document, so a committed sample render can
be re-made and compared.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ovconform.errors import ValidationError
from ovconform.reports import _doc

FORMATS = ("md", "csv", "text", "html")
#: CSV columns: OpenVINO summarize's op table (device, op, opset, counters, passrate, relative
#: passrate) with an ``entity`` column first, so API entities and ops share one file.
CSV_COLUMNS = ("entity", "device", "op", "opset", "passed", "failed", "skipped", "crashed", "hanged", "passrate",
               "relative_passrate")


def render(doc: dict[str, Any], fmt: str, *, base: Path | None = None, baseline: dict[str, Any] | None = None,
           baseline_label: str = "") -> str:
    """``doc`` rendered as ``fmt`` (one of :data:`FORMATS`). For html: ``base`` is the report folder
    (repros are embedded from it), ``baseline`` a previous document ("since the baseline" view)."""
    if fmt == "md":
        return render_markdown(doc)
    if fmt == "csv":
        return render_csv(doc)
    if fmt == "text":
        return render_text(doc)
    if fmt == "html":
        from ovconform.reports.html import render_html

        return render_html(doc, base=base, baseline=baseline, baseline_label=baseline_label)
    raise ValidationError(f"unknown report format {fmt!r}; allowed: {', '.join(FORMATS)}")


def _entity_rows(doc: dict[str, Any]) -> list[list[Any]]:
    return [[r["device"], r["entity"], r["total"], *[r[c] for c in _doc.COUNTERS], _doc.rate(r["passrate"]),
             _doc.rate(r["relative_passrate"])] for r in _doc.entity_table(doc)]


_ENTITY_HEADERS = ["device", "entity", "total", *_doc.COUNTERS, "pass rate", "mandatory pass rate"]
_OP_HEADERS = ["op", "opset", "device", *_doc.COUNTERS, "pass rate", "mandatory pass rate"]


def _op_rows(doc: dict[str, Any]) -> list[list[Any]]:
    return [[r["op"], r["opset"], r["device"], *[r[c] for c in _doc.COUNTERS], _doc.rate(r["passrate"]),
             _doc.rate(r["relative_passrate"])] for r in _doc.op_table(doc)]


def _device_lines(doc: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for name, entry in _doc.device_map(doc).items():
        s = entry["summary"]
        rows.append([name, entry["device"].get("full_name", ""), s["total"], _doc.rate(s["pass_rate"]),
                     _doc.rate(s["mandatory_pass_rate"])])
    return rows


_DEVICE_HEADERS = ["device", "full name", "tests", "pass rate", "mandatory pass rate"]


def _failure_rows(doc: dict[str, Any], width: int) -> list[list[Any]]:
    rows = []
    for r in _doc.failures(doc):
        msg = " ".join(r["message"].split())
        repro = (r.get("facts") or {}).get("repro", "")
        rows.append([r["device"], r["nodeid"], r["status"], msg[:width] + ("..." if len(msg) > width else ""), repro])
    return rows


_FAILURE_HEADERS = ["device", "test", "status", "message", "repro"]


def _md_escape(rows: list[list[Any]]) -> list[list[Any]]:
    return [[str(c).replace("|", "\\|") if isinstance(c, str) else c for c in row] for row in rows]


def render_markdown(doc: dict[str, Any]) -> str:
    out = ["# ovconform conformance report", "",
           "Pass rate = (passed + xpassed) / tests that ran (not skipped); n/a when none ran. "
           "Mandatory pass rate: the same over mandatory tests.", "",
           *[f"**{line[0].upper()}{line[1:]}** (not every test of the suites)." for line in _doc.partial_runs(doc)],
           *([""] if _doc.partial_runs(doc) else []), "## Devices", "",
           tabulate(_md_escape(_device_lines(doc)), headers=_DEVICE_HEADERS, tablefmt="github"), "",
           "## Entities", "", tabulate(_entity_rows(doc), headers=_ENTITY_HEADERS, tablefmt="github"), ""]
    ops = _op_rows(doc)
    if ops:
        out += ["## Ops", "", tabulate(ops, headers=_OP_HEADERS, tablefmt="github"), ""]
    fails = _failure_rows(doc, 300)
    out += ["## Failures", ""]
    out += [tabulate(_md_escape(fails), headers=_FAILURE_HEADERS, tablefmt="github") if fails else "None.", ""]
    return "\n".join(out)


def render_text(doc: dict[str, Any]) -> str:
    out = ["ovconform conformance report", "", *_doc.partial_runs(doc),
           tabulate(_device_lines(doc), headers=_DEVICE_HEADERS), "",
           tabulate(_entity_rows(doc), headers=_ENTITY_HEADERS), ""]
    ops = _op_rows(doc)
    if ops:
        out += [tabulate(ops, headers=_OP_HEADERS), ""]
    fails = _failure_rows(doc, 100)
    out += [f"failures: {len(fails)}"]
    if fails:
        out += [tabulate(fails, headers=_FAILURE_HEADERS)]
    return "\n".join(out) + "\n"


def render_csv(doc: dict[str, Any]) -> str:
    """Entity rows (op/opset empty) then op rows (entity ``op``); rates as numbers, empty for n/a."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)

    def num(v: float | None) -> str:
        return "" if v is None else f"{v:.2f}"

    for r in _doc.entity_table(doc):
        writer.writerow([r["entity"], r["device"], "", "", *[r[c] for c in _doc.COUNTERS], num(r["passrate"]),
                         num(r["relative_passrate"])])
    for r in _doc.op_table(doc):
        writer.writerow(["op", r["device"], r["op"], r["opset"], *[r[c] for c in _doc.COUNTERS], num(r["passrate"]),
                         num(r["relative_passrate"])])
    return buf.getvalue()


__all__ = ["CSV_COLUMNS", "FORMATS", "render", "render_csv", "render_markdown", "render_text"]
