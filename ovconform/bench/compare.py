"""Device comparison: several devices ran the same models; ratios against a baseline device.

For each model, each device's latency (at the chosen percentile), average latency and
throughput, with ``latency_ratio = latency / baseline latency`` (below 1: faster) and
``throughput_ratio = throughput / baseline throughput`` (above 1: faster). The baseline is the
first device given. Runs pair up by model, API and hint (a row's ``model`` names the API and hint
when they are not async + throughput). Geometric means over the rows with a baseline close the
table.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["comparison", "comparison_csv", "comparison_text"]


def _geomean(values: Sequence[float]) -> float | None:
    vals = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def _label(doc: dict[str, Any]) -> str:
    """The model, with the API and hint when they are not benchmark_app's defaults (async, throughput)."""
    cfg = doc.get("config") or {}
    mode = (cfg.get("api"), cfg.get("hint"))
    return doc["model"] if mode in ((None, None), ("async", "throughput")) else f"{doc['model']} ({mode[0]}, {mode[1]})"


def comparison(docs: Sequence[dict[str, Any]], baseline: str | None = None) -> dict[str, Any]:
    """``{"baseline", "devices", "rows": [...], "geomean": {device: {latency_ratio, throughput_ratio}}}``."""
    devices = list(dict.fromkeys(d["device"] for d in docs))
    base = baseline or (devices[0] if devices else "")
    by_key = {(_label(d), d["device"]): d for d in docs}
    models = list(dict.fromkeys(_label(d) for d in docs))
    rows: list[dict[str, Any]] = []
    ratios: dict[str, tuple[list[float], list[float]]] = {dev: ([], []) for dev in devices}
    for model in models:
        ref = by_key.get((model, base))
        for dev in devices:
            d = by_key.get((model, dev))
            if d is None:
                continue
            lat, tput = d["results"]["latency_ms"]["at_percentile"], d["results"]["throughput_fps"]
            lr = lat / ref["results"]["latency_ms"]["at_percentile"] if ref and ref["results"]["latency_ms"][
                "at_percentile"] > 0 else None
            tr = tput / ref["results"]["throughput_fps"] if ref and ref["results"]["throughput_fps"] > 0 else None
            rows.append({"model": model, "device": dev, "latency_ms": lat,
                         "average_latency_ms": d["results"]["latency_ms"]["average"], "throughput_fps": tput,
                         "latency_ratio": lr, "throughput_ratio": tr, "verdict": d.get("verdict", "")})
            if lr is not None and tr is not None:
                ratios[dev][0].append(lr)
                ratios[dev][1].append(tr)
    geo = {dev: {"latency_ratio": _geomean(lr), "throughput_ratio": _geomean(tr), "models": len(lr)}
           for dev, (lr, tr) in ratios.items()}
    return {"baseline": base, "devices": devices, "rows": rows, "geomean": geo}


def _fmt(value: float | None, digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def comparison_csv(table: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(["model", "device", "latency (ms)", "avg latency (ms)", "throughput (FPS)",
                     f"latency / {table['baseline']}", f"throughput / {table['baseline']}"])
    for r in table["rows"]:
        writer.writerow([r["model"], r["device"], _fmt(r["latency_ms"]), _fmt(r["average_latency_ms"]),
                         _fmt(r["throughput_fps"], 2), _fmt(r["latency_ratio"]), _fmt(r["throughput_ratio"])])
    for dev, g in table["geomean"].items():
        writer.writerow(["geomean", dev, "", "", "", _fmt(g["latency_ratio"]), _fmt(g["throughput_ratio"])])
    return out.getvalue()


def comparison_text(table: dict[str, Any]) -> str:
    from tabulate import tabulate

    rows = [[r["model"], r["device"], _fmt(r["latency_ms"]), _fmt(r["throughput_fps"], 2), _fmt(r["latency_ratio"]),
             _fmt(r["throughput_ratio"])] for r in table["rows"]]
    rows += [["geomean", dev, "", "", _fmt(g["latency_ratio"]), _fmt(g["throughput_ratio"])]
             for dev, g in table["geomean"].items()]
    return tabulate(rows, headers=["model", "device", "latency ms", "FPS", f"latency / {table['baseline']}",
                                   f"FPS / {table['baseline']}"])
