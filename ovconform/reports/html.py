"""A single self-contained HTML report: inline CSS and JS, the data inline, nothing fetched.

The style and script are files (``assets/report.css``, ``assets/report.js``, see
:mod:`ovconform.reports._assets`), inlined when the page is rendered.

The page shows the run's metadata (when, command line, versions, machine, each device and its
properties), a "since the baseline" view when given a baseline document, a per-entity summary
(entity x device), the perf section (when perf records carry
``facts["perf"]``: results, device comparison and per-op SVG bar charts, see
:mod:`ovconform.reports.perf_html`), an op x device matrix (when op records exist), a test x
device matrix (with each test's time) and the failure details, grouped by cause (the same op or
test function and the same message shape, see :func:`ovconform.reports.html_parts.cause`): message,
duration, tolerance, error, the traceback and captured output, the repro (its path relative to the
report folder, its script, and the folder as a zip to download, embedded); for a failing ``graph``
record the graph op by op and the unfused control's sentence. Every table sorts by a click on a
column head (the sort is kept in the URL hash as ``sort=<table>.<column>[.desc]``).
Filters: op/test name, opset, device, status, and a scope toggle (all / mandatory / optional).
The status filter picks the rows (ops and tests with a record of that status) and the failure
details; the matrix cells and the summary count every record that passes the other filters.
The filter state lives in the URL hash (``#status=failed&scope=mandatory&device=GPU&sort=tests.3.desc``), so a link
or ``chromium --headless --dump-dom 'file://.../report.html#status=failed'`` opens a filtered view.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from ovconform.reports import _doc, html_parts
from ovconform.reports._assets import asset
from ovconform.reports.statuses import BAD, COUNTER_OF, STATUSES


def _compact(record: dict[str, Any], base: Path | None, budget: list[int]) -> dict[str, Any]:
    facts = record.get("facts") or {}
    out: dict[str, Any] = {"d": record["device"], "n": record["nodeid"], "t": _doc.test_name(record),
                           "e": record["entity"], "s": record["scope"], "st": record["status"],
                           "du": round(float(record.get("duration") or 0.0), 3)}
    key = _doc.op_key(record)
    if key is not None:
        out["op"], out["v"] = key
        if facts.get("sub_entity"):
            out["sub"] = str(facts["sub_entity"])
    if record["status"] not in ("passed",):
        out["m"] = record["message"]
        for fact in ("repro", "tolerance", "tolerances", "max_abs_err", "max_rel_err", "graph", "variant",
                     "graph_ops"):
            if facts.get(fact) not in (None, ""):
                out[fact] = facts[fact]
        control = facts.get("unfused_control")
        if isinstance(control, dict) and control.get("sentence"):
            out["unfused"] = str(control["sentence"])
    if record["status"] in BAD:
        out["c"] = html_parts.cause(record)
        if record.get("details"):
            out["det"] = record["details"]
        if isinstance(facts.get("repro"), str) and facts["repro"]:
            out["repro"] = html_parts.relative_repro(facts["repro"])
            out["rp"] = html_parts.repro_archive(facts["repro"], base, budget)
    return out


def _payload(doc: dict[str, Any], base: Path | None) -> str:
    devices = {name: {"full_name": e["device"].get("full_name", ""), "merged_from": e.get("merged_from", [])}
               for name, e in _doc.device_map(doc).items()}
    budget = [html_parts.REPRO_PAGE_LIMIT]
    data = {"devices": devices, "records": [_compact(r, base, budget) for r in doc["records"]],
            "statuses": {"all": list(STATUSES), "bad": list(BAD), "counter": dict(COUNTER_OF)}}
    # "<" escaped so no "</script>" or "<!--" inside the data can end the script element
    return json.dumps(data, separators=(",", ":"), sort_keys=True).replace("<", "\\u003c")


def render_html(doc: dict[str, Any], title: str = "ovconform conformance report", *, base: Path | None = None,
                baseline: dict[str, Any] | None = None, baseline_label: str = "") -> str:
    """The page. ``base``: the report folder repro paths are relative to (``<base>/<DEVICE>/repro/``),
    to embed the repros; ``baseline``: a previous document, for the "since the baseline" view."""
    devices = ", ".join(_doc.device_names(doc))
    from ovconform.reports.perf_html import perf_docs, perf_section

    # the perf section (records with facts["perf"], from the perf suite) is static markup; "" without one
    return (_TEMPLATE.replace("@TITLE@", html.escape(f"{title}: {devices}")).replace("@CSP@", _CSP)
            .replace("@CSS@", asset("report.css")).replace("@JS@", asset("report.js"))
            .replace("@META@", html_parts.metadata(doc))
            .replace("@BASELINE@", html_parts.baseline_section(doc, baseline, baseline_label))
            .replace("@PERF@", perf_section(perf_docs(doc)))
            .replace("@PARTIAL@", "".join(f'<p class="warn partial">{html.escape(line)} (not every test of the '
                                          'suites)</p>' for line in _doc.partial_runs(doc)))
            .replace("@DATA@", _payload(doc, base)))


#: nothing may be fetched: only the inline style and script run
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="@CSP@">
<title>@TITLE@</title>
<style>
@CSS@</style>
</head>
<body>
<h1>@TITLE@</h1>
<noscript><p class="warn">This report needs JavaScript (inline, nothing is downloaded).</p></noscript>
<p class="legend">Pass rate = (passed + xpassed) / tests that ran (skipped excluded); <b>n/a</b> when none ran.
Mandatory pass rate: the same over mandatory tests. Counters: failed = failed + error + xfailed.</p>@PARTIAL@
<form id="filters" onsubmit="return false">
<label>op / test name <input id="f-name" type="search" placeholder="substring"></label>
<label>opset <select id="f-opset"><option value="">all</option></select></label>
<label>device <select id="f-device"><option value="">all</option></select></label>
<label>status <select id="f-status"><option value="">all</option></select></label>
<span class="toggle" role="radiogroup" aria-label="scope">
<label><input type="radio" name="scope" value="all" checked> all</label>
<label><input type="radio" name="scope" value="mandatory"> mandatory</label>
<label><input type="radio" name="scope" value="optional"> optional</label>
</span>
<button id="f-reset" type="button">reset</button>
</form>
@META@
@BASELINE@
<h2>Summary per entity</h2>
<table id="summary" class="sortable"><thead></thead><tbody></tbody></table>
@PERF@<section id="ops-section">
<h2>Ops (<span id="count-ops">0</span>)</h2>
<table id="ops" class="matrix sortable"><thead></thead><tbody></tbody></table>
</section>
<h2>Tests (<span id="count-tests">0</span>)</h2>
<table id="tests" class="matrix sortable"><thead></thead><tbody></tbody></table>
<h2>Failure details (<span id="count-failures">0</span> in <span id="count-causes">0</span> causes)</h2>
<div id="failures"></div>
<script id="ovc-data" type="application/json">@DATA@</script>
<script>
@JS@</script>
</body>
</html>
"""

__all__ = ["render_html"]
