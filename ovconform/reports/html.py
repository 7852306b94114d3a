"""A single self-contained HTML report: inline CSS and JS, the data inline, nothing fetched.

The page shows a per-entity summary (entity x device), the perf section (when perf records carry
``facts["perf"]``: results, device comparison and per-op SVG bar charts, see
:mod:`ovconform.reports.perf_html`), an op x device matrix (when op records exist), a test x
device matrix and the failure details (message, tolerance, error, repro path).
Filters: op/test name, opset, device, status, and a scope toggle (all / mandatory / optional).
The status filter picks the rows (ops and tests with a record of that status) and the failure
details; the matrix cells and the summary count every record that passes the other filters.
The filter state lives in the URL hash (``#status=failed&scope=mandatory&device=GPU``), so a link
or ``chromium --headless --dump-dom 'file://.../report.html#status=failed'`` opens a filtered view.
"""

from __future__ import annotations

import html
import json
from typing import Any

from ovconform.reports import _doc
from ovconform.reports.statuses import BAD, COUNTER_OF, STATUSES


def _compact(record: dict[str, Any]) -> dict[str, Any]:
    facts = record.get("facts") or {}
    out: dict[str, Any] = {"d": record["device"], "n": record["nodeid"], "t": _doc.test_name(record),
                           "e": record["entity"], "s": record["scope"], "st": record["status"]}
    key = _doc.op_key(record)
    if key is not None:
        out["op"], out["v"] = key
        if facts.get("sub_entity"):
            out["sub"] = str(facts["sub_entity"])
    if record["status"] not in ("passed",):
        out["m"] = record["message"]
        for fact in ("repro", "tolerance", "tolerances", "max_abs_err", "max_rel_err"):
            if facts.get(fact) not in (None, ""):
                out[fact] = facts[fact]
    return out


def _payload(doc: dict[str, Any]) -> str:
    devices = {name: {"full_name": e["device"].get("full_name", ""), "merged_from": e.get("merged_from", [])}
               for name, e in _doc.device_map(doc).items()}
    data = {"devices": devices, "records": [_compact(r) for r in doc["records"]],
            "statuses": {"all": list(STATUSES), "bad": list(BAD), "counter": dict(COUNTER_OF)}}
    # "<" escaped so no "</script>" or "<!--" inside the data can end the script element
    return json.dumps(data, separators=(",", ":"), sort_keys=True).replace("<", "\\u003c")


def render_html(doc: dict[str, Any], title: str = "ovconform conformance report") -> str:
    devices = ", ".join(_doc.device_names(doc))
    from ovconform.reports.perf_html import perf_docs, perf_section

    # the perf section (records with facts["perf"], from the perf suite) is static markup; "" without one
    return (_TEMPLATE.replace("@TITLE@", html.escape(f"{title}: {devices}")).replace("@CSP@", _CSP)
            .replace("@CSS@", _CSS).replace("@JS@", _JS).replace("@PERF@", perf_section(perf_docs(doc)))
            .replace("@PARTIAL@", "".join(f'<p class="warn partial">{html.escape(line)} (not every test of the '
                                          'suites)</p>' for line in _doc.partial_runs(doc)))
            .replace("@DATA@", _payload(doc)))


#: nothing may be fetched: only the inline style and script run
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="@CSP@">
<title>@TITLE@</title>
<style>@CSS@</style>
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
<h2>Summary per entity</h2>
<table id="summary"><thead></thead><tbody></tbody></table>
@PERF@<section id="ops-section">
<h2>Ops (<span id="count-ops">0</span>)</h2>
<table id="ops" class="matrix"><thead></thead><tbody></tbody></table>
</section>
<h2>Tests (<span id="count-tests">0</span>)</h2>
<table id="tests" class="matrix"><thead></thead><tbody></tbody></table>
<h2>Failure details (<span id="count-failures">0</span>)</h2>
<div id="failures"></div>
<script id="ovc-data" type="application/json">@DATA@</script>
<script>@JS@</script>
</body>
</html>
"""

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}
.legend{color:#555;font-size:.9em}
form{display:flex;flex-wrap:wrap;gap:.8em;align-items:center;padding:.6em;background:#f3f3f3;position:sticky;top:0}
table{border-collapse:collapse;font-size:.85em}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#e8e8e8}
td.rate-100{background:#c8f0c8}td.rate-mid{background:#fbe7a8}td.rate-low{background:#f7b8b8}td.rate-na{color:#888}
td.st-passed,td.st-xfailed{background:#c8f0c8}td.st-skipped{background:#eee;color:#666}
td.st-failed,td.st-error,td.st-crashed,td.st-hanged,td.st-xpassed{background:#f7b8b8}
.failure{border-left:4px solid #d33;margin:.5em 0;padding:.3em .6em;background:#fdf3f3}
.failure pre{white-space:pre-wrap;margin:.3em 0;font-size:.85em}
.warn{color:#a00}.toggle label{margin-right:.4em}
"""

_JS = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("ovc-data").textContent);
  var RECS = DATA.records, DEVICES = Object.keys(DATA.devices).sort();
  // statuses come with the data (ovconform/reports/statuses.py), never written out here
  var BAD = DATA.statuses.bad, STATUSES = DATA.statuses.all, COUNTER = DATA.statuses.counter;
  var KEYS = ["name", "opset", "device", "status", "scope"];
  var state = {name: "", opset: "", device: "", status: "", scope: "all"};

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function uniq(xs) { return xs.filter(function (x, i) { return xs.indexOf(x) === i; }).sort(); }
  function fill(select, values) {
    values.forEach(function (v) { var o = el("option", v); o.value = v; select.appendChild(o); });
  }
  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    KEYS.forEach(function (k) { if (p.has(k)) state[k] = p.get(k); });
    if (["all", "mandatory", "optional"].indexOf(state.scope) < 0) state.scope = "all";
  }
  function writeHash() {
    var p = new URLSearchParams();
    KEYS.forEach(function (k) { if (state[k] && !(k === "scope" && state[k] === "all")) p.set(k, state[k]); });
    var h = p.toString();
    history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
  }
  function syncControls() {
    document.getElementById("f-name").value = state.name;
    document.getElementById("f-opset").value = state.opset;
    document.getElementById("f-device").value = state.device;
    document.getElementById("f-status").value = state.status;
    Array.prototype.forEach.call(document.querySelectorAll("input[name=scope]"), function (r) {
      r.checked = r.value === state.scope;
    });
  }
  // every filter but status: the summary keeps all statuses so its rates stay meaningful
  function inScope(r) {
    if (state.scope !== "all" && r.s !== state.scope) return false;
    if (state.device && r.d !== state.device) return false;
    if (state.opset && r.v !== state.opset) return false;
    if (state.name) {
      var q = state.name.toLowerCase();
      if ((r.op || "").toLowerCase().indexOf(q) < 0 && r.t.toLowerCase().indexOf(q) < 0) return false;
    }
    return true;
  }
  function shown(r) { return inScope(r) && (!state.status || r.st === state.status); }
  function counters(rs) {
    var c = {passed: 0, failed: 0, skipped: 0, crashed: 0, hanged: 0, total: rs.length, good: 0, ran: 0};
    rs.forEach(function (r) {
      c[COUNTER[r.st]] += 1;
      if (r.st !== "skipped") c.ran += 1;
      if (r.st === "passed" || r.st === "xpassed") c.good += 1;
    });
    c.rate = c.ran ? Math.round(10000 * c.good / c.ran) / 100 : null;
    return c;
  }
  function rateCell(rate, extra) {
    var td = el("td", (rate === null ? "n/a" : rate.toFixed(2) + "%") + (extra || ""));
    td.className = rate === null ? "rate-na" : rate === 100 ? "rate-100" : rate >= 50 ? "rate-mid" : "rate-low";
    return td;
  }
  function head(table, cells) {
    var thead = table.querySelector("thead"), tr = el("tr");
    thead.textContent = "";
    cells.forEach(function (c) { tr.appendChild(el("th", c)); });
    thead.appendChild(tr);
  }
  function group(rs, keyf) {
    var m = {};
    rs.forEach(function (r) { var k = keyf(r); (m[k] = m[k] || []).push(r); });
    return m;
  }
  function devicesShown() { return state.device ? [state.device] : DEVICES; }

  function renderSummary() {
    var t = document.getElementById("summary"), body = t.querySelector("tbody");
    head(t, ["entity"].concat(devicesShown().map(function (d) { return d + " pass rate"; }),
                              devicesShown().map(function (d) { return d + " mandatory"; })));
    body.textContent = "";
    var rs = RECS.filter(inScope), by = group(rs, function (r) { return r.e; });
    Object.keys(by).sort().concat(["all"]).forEach(function (entity) {
      var ers = entity === "all" ? rs : by[entity], tr = el("tr", null, "summary-row");
      tr.dataset.entity = entity;
      tr.appendChild(el("th", entity));
      devicesShown().forEach(function (d) {
        var c = counters(ers.filter(function (r) { return r.d === d; }));
        tr.appendChild(rateCell(c.rate, " (" + c.good + "/" + c.ran + ")"));
      });
      devicesShown().forEach(function (d) {
        var c = counters(ers.filter(function (r) { return r.d === d && r.s === "mandatory"; }));
        tr.appendChild(rateCell(c.rate));
      });
      body.appendChild(tr);
    });
  }
  function renderOps() {
    var t = document.getElementById("ops"), body = t.querySelector("tbody");
    var ops = RECS.filter(function (r) { return r.op; });
    document.getElementById("ops-section").hidden = ops.length === 0;
    head(t, ["op", "opset"].concat(devicesShown()));
    body.textContent = "";
    // rows: ops with a record that passes every filter; cells: counted over the records in scope
    var key = function (r) { return r.op + "\u0000" + r.v; }, n = 0;
    var by = group(ops.filter(inScope), key), keep = group(ops.filter(shown), key);
    Object.keys(keep).sort().forEach(function (k) {
      var tr = el("tr", null, "op-row"), parts = k.split("\u0000");
      tr.dataset.op = parts[0]; tr.dataset.opset = parts[1];
      tr.appendChild(el("th", parts[0])); tr.appendChild(el("td", parts[1]));
      devicesShown().forEach(function (d) {
        var c = counters(by[k].filter(function (r) { return r.d === d; }));
        var td = c.total ? rateCell(c.rate, " (" + c.good + "/" + c.ran + ")") : el("td", "");
        td.title = "passed " + c.passed + ", failed " + c.failed + ", skipped " + c.skipped +
                   ", crashed " + c.crashed + ", hanged " + c.hanged;
        tr.appendChild(td);
      });
      body.appendChild(tr); n += 1;
    });
    document.getElementById("count-ops").textContent = n;
  }
  function renderTests() {
    var t = document.getElementById("tests"), body = t.querySelector("tbody");
    head(t, ["test", "entity", "scope"].concat(devicesShown()));
    body.textContent = "";
    var rs = RECS.filter(function (r) { return !r.op; });
    var by = group(rs.filter(inScope), function (r) { return r.t; }), n = 0;
    var keep = group(rs.filter(shown), function (r) { return r.t; });
    Object.keys(keep).sort().forEach(function (k) {
      var tr = el("tr", null, "test-row"), first = by[k][0];
      tr.dataset.status = uniq(by[k].map(function (r) { return r.st; })).join(" ");
      tr.appendChild(el("th", k)); tr.appendChild(el("td", first.e)); tr.appendChild(el("td", first.s));
      devicesShown().forEach(function (d) {
        var sts = uniq(by[k].filter(function (r) { return r.d === d; }).map(function (r) { return r.st; }));
        tr.appendChild(el("td", sts.join(", "), sts.length === 1 ? "st-" + sts[0] : ""));
      });
      body.appendChild(tr); n += 1;
    });
    document.getElementById("count-tests").textContent = n;
  }
  function renderFailures() {
    var box = document.getElementById("failures");
    box.textContent = "";
    var rs = RECS.filter(function (r) { return BAD.indexOf(r.st) >= 0 && shown(r); });
    rs.forEach(function (r) {
      var div = el("div", null, "failure");
      div.dataset.status = r.st; div.dataset.device = r.d;
      div.appendChild(el("b", r.d + " \u2014 " + r.st + ": "));
      div.appendChild(el("code", r.n));
      if (r.op) div.appendChild(el("div", "op " + r.op + " " + r.v + (r.sub ? " (" + r.sub + ")" : "")));
      if (r.tolerance !== undefined) div.appendChild(el("div", "tolerance: " + JSON.stringify(r.tolerance)));
      if (r.tolerances !== undefined) div.appendChild(el("div", "tolerances: " + JSON.stringify(r.tolerances)));
      if (r.max_abs_err !== undefined) div.appendChild(el("div", "max abs error: " + r.max_abs_err));
      if (r.max_rel_err !== undefined) div.appendChild(el("div", "max rel error: " + r.max_rel_err));
      if (r.repro) { var p = el("div", "repro: "); p.appendChild(el("code", r.repro, "repro")); div.appendChild(p); }
      div.appendChild(el("pre", r.m || ""));
      box.appendChild(div);
    });
    if (!rs.length) box.appendChild(el("p", "None."));
    document.getElementById("count-failures").textContent = rs.length;
  }
  function renderAll() { renderSummary(); renderOps(); renderTests(); renderFailures(); }
  function onChange() {
    state.name = document.getElementById("f-name").value;
    state.opset = document.getElementById("f-opset").value;
    state.device = document.getElementById("f-device").value;
    state.status = document.getElementById("f-status").value;
    var r = document.querySelector("input[name=scope]:checked");
    state.scope = r ? r.value : "all";
    writeHash(); renderAll();
  }

  var opsets = RECS.filter(function (r) { return r.op; }).map(function (r) { return r.v; });
  fill(document.getElementById("f-opset"), uniq(opsets));
  fill(document.getElementById("f-device"), DEVICES);
  fill(document.getElementById("f-status"), STATUSES);
  readHash(); syncControls(); renderAll();
  document.getElementById("filters").addEventListener("input", onChange);
  document.getElementById("filters").addEventListener("change", onChange);
  document.getElementById("f-reset").addEventListener("click", function () {
    state = {name: "", opset: "", device: "", status: "", scope: "all"};
    syncControls(); writeHash(); renderAll();
  });
  window.addEventListener("hashchange", function () {
    state = {name: "", opset: "", device: "", status: "", scope: "all"};
    readHash(); syncControls(); renderAll();
  });
})();
"""

__all__ = ["render_html"]
