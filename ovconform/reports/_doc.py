"""Reading conformance documents and the tables every renderer shares.

A document is either one device's run (``device`` + ``run``) or a merged one (``merge`` +
``devices``); :func:`device_map` gives both the same view: device name -> metadata and summary.

Counter columns (OpenVINO summarize style) map our eight statuses onto five counters:
passed = passed + xpassed, failed = failed + error + xfailed, skipped, crashed, hanged, so their
sum is the number of records. ``passrate`` is the project's pass rate (passed / non-skipped,
``n/a`` when nothing ran); ``relative_passrate`` is the same over mandatory records (OpenVINO's
relative pass rate with weight 1 for mandatory tests and 0 otherwise, but ``n/a`` instead of
100 % when there are no mandatory tests).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from ovconform.errors import ValidationError
from ovconform.reports import _validate
from ovconform.reports.conformance import fmt_rate, pass_rate
from ovconform.reports.statuses import BAD, COUNTERS, GOOD
from ovconform.reports.statuses import COUNTER_OF as _COUNTER_OF


def load(path: str | Path) -> dict[str, Any]:
    """Read and validate a conformance document; a clear :class:`ValidationError` when it is not one."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValidationError(f"report file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValidationError(f"report file {str(p)!r} is not readable JSON: {e}") from None
    _validate.validate(doc, name=f"report file {str(p)!r}")
    return doc


def device_map(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Device name -> ``{"device": metadata, "summary": summary}`` for single and merged documents."""
    if "devices" in doc:
        return dict(doc["devices"])
    return {doc["device"]["name"]: {"device": doc["device"], "summary": doc["summary"]}}


def device_names(doc: dict[str, Any]) -> list[str]:
    return list(device_map(doc))


def op_key(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(op_type, version)`` of an op record (entity ``op``, or any record whose facts name an op)."""
    facts = record.get("facts") or {}
    op = facts.get("op_type") or facts.get("op")
    if not op:
        return _op_key_of_id(record) if record.get("entity") == "op" else None
    version = facts.get("version", facts.get("opset", ""))
    return str(op), "" if version is None else str(version)


#: an op test's case parameter: ``<op type>-<version>-<case label>`` (``PRelu-1-case3``)
_OP_CASE = re.compile(r"\[([A-Za-z][A-Za-z0-9_]*)-(\d+)-[^\]]+\]$")


def _op_key_of_id(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(op_type, version)`` from an op test's id, for a record without facts: a test whose process
    died (a crashed record, from xdist or the journal) is still counted under its op."""
    found = _OP_CASE.search(test_name(record))
    return (found.group(1), found.group(2)) if found else None


def test_name(record: dict[str, Any]) -> str:
    """The test id without the device parameter: the same test on every device has the same name.

    The device's parameter id is the device name, whatever it holds (``openvino-CPU``, ``GPU.0``,
    ``HETERO:CPU,GPU``), or one of its device ids (``GPU.0`` of a record folded into ``GPU`` by
    ``--merge-device-suffixes``); it is removed as a whole between the ``-`` that pytest puts
    between parameter ids."""
    nodeid, device = record["nodeid"], record["device"]
    head, sep, last = nodeid.rpartition("::")
    name, bracket, params = last.partition("[")
    if not bracket or not params.endswith("]"):
        return nodeid
    dev = re.escape(device) + r"(?:\.\d+)?"
    rest = re.sub(rf"^{dev}(?:-|$)|-{dev}(?=-|$)", "", params[:-1], count=1)
    return f"{head}{sep}{name}" + (f"[{rest}]" if rest else "")


def partial_runs(doc: dict[str, Any]) -> list[str]:
    """One line per partial run of the document (none for a full run): what it selected. A shard
    whose sibling shards 1..N are all in the document is not partial on that account."""
    from ovconform.reports.selection import describe

    return [line for line in (describe(run) for run in _partial(doc)) if line]


def is_partial(doc: dict[str, Any]) -> bool:
    """Whether any run of the document is partial (``run.partial``; see :func:`partial_runs`)."""
    return bool(_partial(doc))


def _partial(doc: dict[str, Any]) -> list[dict[str, Any]]:
    from ovconform.reports.selection import partial_besides_shard
    from ovconform.reports.shard import complete_groups

    runs = [run or {} for run in (doc["runs"] if "runs" in doc else [doc["run"]])]
    complete = complete_groups(runs)
    out = []
    for run in runs:
        sel = run.get("selection") or {}
        if run.get("unfinished"):
            out.append(run)
            continue
        if not run.get("partial"):
            continue
        shard = sel.get("shard")
        if shard and int(str(shard).split("/")[1]) in complete:
            if not partial_besides_shard(sel):
                continue
            run = dict(run, selection={k: v for k, v in sel.items() if k not in ("shard", "shard_out")})
        out.append(run)
    return out


def counters(records: list[dict[str, Any]]) -> dict[str, Any]:
    """OpenVINO-style counters plus passrate and relative (mandatory) passrate."""
    out: dict[str, Any] = dict.fromkeys(COUNTERS, 0)
    for r in records:
        out[_COUNTER_OF[r["status"]]] += 1
    out["passrate"] = pass_rate(records)
    out["relative_passrate"] = pass_rate([r for r in records if r["scope"] == "mandatory"])
    return out


def op_table(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (device, op, version) over op records, sorted."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in doc["records"]:
        key = op_key(r)
        if key is not None:
            groups[(r["device"], *key)].append(r)
    return [{"device": d, "op": op, "opset": v, **counters(recs)} for (d, op, v), recs in sorted(groups.items())]


def entity_table(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (device, entity) plus an ``all`` row per device."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in doc["records"]:
        by[(r["device"], r["entity"])].append(r)
        by[(r["device"], "\uffffall")].append(r)
    rows = []
    for (device, entity), recs in sorted(by.items()):
        rows.append({"device": device, "entity": entity.lstrip("\uffff"), "total": len(recs), **counters(recs)})
    return rows


def failures(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Records that count against the device (failed, error, crashed, hanged, xpassed)."""
    return [r for r in doc["records"] if r["status"] in BAD]


def rate(value: float | None) -> str:
    return fmt_rate(value)


__all__ = ["BAD", "COUNTERS", "GOOD", "counters", "device_map", "device_names", "entity_table", "failures",
           "is_partial", "load", "op_key", "op_table", "partial_runs", "rate", "test_name"]
