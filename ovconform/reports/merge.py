"""Merge several conformance documents (devices and/or runs) into one matrix document.

Like OpenVINO's ``merge_xmls``, counters are summed: the records of every input are pooled and each
device's summary is recomputed over its pooled records, so runs split across processes or
machines (disjoint tests) add up. The same test of the same device met twice (a re-run) is counted
once: the record that finished last wins, and ``merge.duplicates`` says how many were dropped.
With ``merge_device_suffixes`` the device ids ``GPU.0``, ``GPU.1`` fold into ``GPU`` (their records
keep their node ids, so both are counted, as OpenVINO sums GPU.0 and GPU.1 into GPU).
Merged documents can be merged again.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ovconform.reports import _doc, _validate
from ovconform.reports.conformance import SCHEMA_VERSION, summarize

_SUFFIX = re.compile(r"^(?P<base>.+)\.(?P<id>\d+)$")


def base_device(name: str) -> str:
    """``GPU.1`` -> ``GPU``; names without a numeric ``.N`` suffix are returned unchanged."""
    m = _SUFFIX.match(name)
    return m.group("base") if m else name


def merge(docs: list[dict[str, Any]], sources: list[str] | None = None,
          merge_device_suffixes: bool = False) -> dict[str, Any]:
    """One merged document from ``docs`` (single-device or merged documents, already validated)."""
    sources = sources if sources is not None else [f"<document {i}>" for i in range(len(docs))]
    runs: list[dict[str, Any]] = []
    meta: dict[str, dict[str, Any]] = {}
    folded: dict[str, set[str]] = {}
    chosen: dict[tuple[str, str], dict[str, Any]] = {}
    duplicates = 0
    for doc in docs:
        runs.extend(doc["runs"] if "runs" in doc else [doc["run"]])
        for name, mapped in _doc.device_map(doc).items():
            target = base_device(name) if merge_device_suffixes else name
            meta.setdefault(target, dict(mapped["device"], name=target))
            folded.setdefault(target, set()).update(mapped.get("merged_from", [name]))
        for record in doc["records"]:
            r = dict(record)
            if merge_device_suffixes:
                r["device"] = base_device(r["device"])
            key = (r["device"], r["nodeid"])
            old = chosen.get(key)
            if old is not None:
                duplicates += 1
                if old.get("finished_at", 0) > r.get("finished_at", 0):
                    continue
            chosen[key] = r
    records = [chosen[k] for k in sorted(chosen)]
    devices = {}
    for name in sorted(meta):
        entry: dict[str, Any] = {"device": meta[name],
                                 "summary": summarize([r for r in records if r["device"] == name])}
        if folded[name] != {name}:
            entry["merged_from"] = sorted(folded[name])
        devices[name] = entry
    out = {
        "schema_version": SCHEMA_VERSION,
        "merge": {"sources": list(sources), "merge_device_suffixes": merge_device_suffixes,
                  "duplicates": duplicates},
        "runs": runs,
        "devices": devices,
        "records": records,
    }
    _validate.validate(out, name="the merged document")
    return out


def merge_files(paths: list[str | Path], merge_device_suffixes: bool = False) -> dict[str, Any]:
    """Load, validate and merge report files."""
    docs = [_doc.load(p) for p in paths]
    return merge(docs, [str(p) for p in paths], merge_device_suffixes)


__all__ = ["base_device", "merge", "merge_files"]
