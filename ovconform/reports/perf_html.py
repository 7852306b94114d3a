"""The perf section of the HTML reports: tables and inline SVG bar charts, rendered server-side.

Input: perf documents (:func:`ovconform.bench.report.perf_document`, or the compact form the
perf suite stores in a record's ``facts["perf"]``). Output: one ``<section id="perf-section">``
with

* a results table (device, model, API / hint / requests, latency median / average / min / max,
  throughput, first inference, counter coverage, verdict, BLAS threads);
* when several devices ran: the device comparison table (ratios against the first device) and a
  bar chart of latency ratios per model;
* per run (a ``<details>`` block, open when a check failed): a bar chart of the top nodes' share
  of the counted time, and the consistency findings.

Everything is static markup (no script, nothing fetched); text is escaped. The section's style
is ``assets/perf.css`` and the standalone page's ``assets/bench.css``, inlined when rendered.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from ovconform.reports._assets import asset

__all__ = ["perf_docs", "perf_page", "perf_section"]

TOP = 12
_BAR_W = 320
_LABEL_W = 150
_LABEL_CHARS = 56
_ROW_H = 16


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any, digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def perf_docs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The perf documents carried by a conformance document's records (``facts["perf"]``)."""
    out = []
    for record in doc.get("records", []):
        perf = (record.get("facts") or {}).get("perf")
        if isinstance(perf, dict) and isinstance(perf.get("results"), dict):
            out.append(perf)
    return out


def _bars(items: Sequence[tuple[str, float, str]], unit: str, scale_max: float | None = None,
          title: str = "") -> str:
    """A horizontal bar chart: ``(label, value, css class)`` per bar."""
    if not items:
        return ""
    top = scale_max or max((v for _, v, _ in items), default=1.0) or 1.0
    label_w = min(max(_LABEL_W, int(6.2 * max(len(label[:_LABEL_CHARS]) for label, _, _ in items)) + 8), 360)
    height = _ROW_H * len(items) + 4
    width = label_w + _BAR_W + 90
    parts = [f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{_e(title)}"><title>{_e(title)}</title>']
    for i, (label, value, cls) in enumerate(items):
        y = i * _ROW_H + 2
        w = max(0.0, min(value / top, 1.0)) * _BAR_W
        parts.append(f'<text x="{label_w - 4}" y="{y + 11}" text-anchor="end">{_e(label[:_LABEL_CHARS])}</text>'
                     f'<rect class="{cls}" x="{label_w}" y="{y}" width="{w:.1f}" height="{_ROW_H - 4}"/>'
                     f'<text x="{label_w + w + 4:.1f}" y="{y + 11}">{_e(f"{value:.2f}{unit}")}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _results_table(docs: Sequence[dict[str, Any]]) -> str:
    head = ["device", "model", "api", "hint", "requests", "inputs", "median ms", "average ms", "min ms", "max ms",
            "throughput FPS", "first inference ms", "counter coverage", "verdict", "BLAS threads"]
    rows = []
    for d in docs:
        cfg, res, lat = d.get("config", {}), d["results"], d["results"]["latency_ms"]
        cov = d.get("coverage_percent")
        cells = [d.get("device"), d.get("model"), cfg.get("api"), cfg.get("hint"), cfg.get("nireq"), cfg.get("inputs"),
                 _num(lat.get("median")), _num(lat.get("average")), _num(lat.get("min")), _num(lat.get("max")),
                 _num(res.get("throughput_fps"), 2), _num(res.get("first_inference_ms")),
                 "" if cov is None else f"{cov:.1f}%", d.get("verdict", ""), (d.get("blas") or {}).get("threads")]
        tds = "".join(f'<td class="f-{_e(c)}">{_e(c)}</td>' if i == 13 else f"<td>{_e('' if c is None else c)}</td>"
                      for i, c in enumerate(cells))
        rows.append(f'<tr class="perf-row">{tds}</tr>')
    heads = "".join(f"<th>{_e(h)}</th>" for h in head)
    return (f'<table id="perf-results" class="sortable"><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _comparison(docs: Sequence[dict[str, Any]]) -> str:
    from ovconform.bench.compare import comparison

    table = comparison(docs)
    if len(table["devices"]) < 2:
        return ""
    base = table["baseline"]
    rows = "".join(
        f'<tr class="cmp-row"><td>{_e(r["model"])}</td><td>{_e(r["device"])}</td><td>{_num(r["latency_ms"])}</td>'
        f'<td>{_num(r["throughput_fps"], 2)}</td><td>{_num(r["latency_ratio"])}</td>'
        f'<td>{_num(r["throughput_ratio"])}</td></tr>'
        for r in table["rows"])
    rows += "".join(f'<tr class="cmp-geomean"><th>geomean</th><td>{_e(dev)}</td><td></td><td></td>'
                    f'<td>{_num(g["latency_ratio"])}</td><td>{_num(g["throughput_ratio"])}</td></tr>'
                    for dev, g in table["geomean"].items())
    head = ["model", "device", "latency ms", "FPS", f"latency / {base}", f"FPS / {base}"]
    bars = [(f'{r["model"]} {r["device"]}', r["latency_ratio"], "bar-base" if r["device"] == base else
             "bar-over" if r["latency_ratio"] > 1 else "bar") for r in table["rows"] if r["latency_ratio"] is not None]
    chart = _bars(bars, "x", title=f"latency relative to {base} (lower is faster)")
    return (f'<h3>Device comparison (baseline {_e(base)})</h3><table id="perf-comparison" class="sortable"><thead><tr>'
            f'{"".join(f"<th>{_e(h)}</th>" for h in head)}</tr></thead><tbody>{rows}</tbody></table>'
            f'<div class="perf-chart" id="perf-comparison-chart">{chart}</div>')


def _run_detail(d: dict[str, Any]) -> str:
    counters = d.get("counters") or {}
    cfg = d.get("config") or {}
    verdict = d.get("verdict", "")
    title = (f'{d.get("device")} / {d.get("model")} ({cfg.get("api")}, {cfg.get("hint")}): per-op time share, '
             f'counters {verdict}')
    parts = [f'<details class="perf-run"{" open" if verdict == "error" else ""}>'
             f'<summary class="f-{_e(verdict)}">{_e(title)}</summary>']
    if counters.get("available"):
        nodes = [n for n in counters.get("sorted", []) if n.get("status", "").endswith("EXECUTED")][:TOP]
        items = [(f'{n["name"]} ({n["node_type"]})', float(n.get("share_percent") or 0.0), "bar") for n in nodes]
        parts.append(f'<div class="perf-chart">{_bars(items, "%", 100.0, "share of counted time per node")}</div>')
        parts.append(f'<p>Counted time {_num(counters.get("total_real_time_ms"))} ms over '
                     f'{_e(counters.get("requests"))} request(s); {_e(len(counters.get("sorted", [])))} counters.</p>')
    elif counters:
        parts.append(f'<p class="f-error">counters unavailable: {_e(counters.get("error", ""))}</p>')
    else:
        parts.append("<p>Performance counters were not collected (PERF_COUNT off).</p>")
    findings = d.get("findings") or []
    if findings:
        lines = "".join(f'<li class="f-{_e(f["status"])}" data-check="{_e(f["check"])}">{_e(f["status"])}: '
                        f'{_e(f["check"])} — {_e(f["message"])}</li>' for f in findings)
        parts.append(f'<ul class="perf-findings">{lines}</ul>')
    parts.append("</details>")
    return "".join(parts)


def perf_section(docs: Sequence[dict[str, Any]]) -> str:
    """The perf section for ``docs`` ('' when there are none)."""
    if not docs:
        return ""
    runs = f'{len(docs)} run{"s" if len(docs) != 1 else ""}'
    return (f'<section id="perf-section"><style>\n{asset("perf.css")}</style><h2>Performance ({runs})</h2>'
            '<p class="legend">Latency at the run\'s percentile statistics in ms; throughput in inferences per '
            'second; counter coverage = summed per-op counters / measured latency of the same runs.</p>'
            f"{_results_table(docs)}{_comparison(docs)}{''.join(_run_detail(d) for d in docs)}</section>\n")


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>@TITLE@</title>
<style>@CSS@</style>
</head>
<body>
<h1>@TITLE@</h1>
@BODY@</body>
</html>
"""


def perf_page(docs: Sequence[dict[str, Any]], title: str = "ovconform benchmark report") -> str:
    """A standalone page with the perf section (``ovconform bench`` writes it as bench.html)."""
    # the page's own style, inline like the rest (its file ends in a newline the page never had)
    return (_PAGE.replace("@CSS@", asset("bench.css").removesuffix("\n")).replace("@TITLE@", _e(title))
            .replace("@BODY@", perf_section(docs) or "<p>No runs.</p>"))
