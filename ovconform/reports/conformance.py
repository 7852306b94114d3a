"""The conformance report document: summaries, pass rates, and writing one JSON per device.

The pytest side that collects the records is :mod:`ovconform.reports.session`.

Pass rate (documented in the README): ``passed / ran``, where passed counts passed and xpassed
records and ran counts every record that is not skipped. A device or entity whose tests were all
skipped has pass rate ``None`` (shown "n/a"), not 0. The mandatory pass rate is the same over
mandatory-scope records only.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ovconform.host.plugin_specs import DeviceUnderTest

SCHEMA_VERSION = "1.0"
REPORT_NAME = "conformance.json"
#: where a partial run's report goes when a full report is already there
PARTIAL_NAME = "conformance.partial.json"


def pass_rate(records: list[dict[str, Any]]) -> float | None:
    counts = Counter(r["status"] for r in records)
    ran = sum(n for status, n in counts.items() if status != "skipped")
    if ran == 0:
        return None
    return round(100.0 * (counts["passed"] + counts["xpassed"]) / ran, 2)


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_entity: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_entity[r["entity"]].append(r)
    mandatory = [r for r in records if r["scope"] == "mandatory"]
    return {
        "total": len(records),
        "statuses": dict(sorted(Counter(r["status"] for r in records).items())),
        "pass_rate": pass_rate(records),
        "mandatory_pass_rate": pass_rate(mandatory),
        "entities": {
            entity: {
                "statuses": dict(sorted(Counter(r["status"] for r in recs).items())),
                "total": len(recs),
                "pass_rate": pass_rate(recs),
                "mandatory_pass_rate": pass_rate([r for r in recs if r["scope"] == "mandatory"]),
            }
            for entity, recs in sorted(by_entity.items())
        },
    }


def fmt_rate(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.2f}%"


def write_document(base: Path, device: dict[str, Any], run: dict[str, Any], records: list[dict[str, Any]],
                   hooks: bool = True) -> Path:
    """Write one device's report under ``base/<device name>/`` and call the
    ``ovconform_report_written`` hook with it.

    The file is ``conformance.json``, except that a partial run (``run["partial"]``) never replaces
    a full report: when ``conformance.json`` holds a full run, the partial report goes beside it as
    ``conformance.partial.json``. Writing ``conformance.json`` removes a ``conformance.partial.json``
    left by an earlier run. The write is atomic (a temporary file, then a rename). ``hooks=False``:
    the ``ovconform_report_written`` hook is not called (the report a run writes when it starts,
    saying it has not finished).
    """
    doc = {"schema_version": SCHEMA_VERSION, "run": run, "device": device, "summary": summarize(records),
           "records": records}
    folder = base / device["name"]
    path = folder / (PARTIAL_NAME if run.get("partial") and holds_full_run(folder / REPORT_NAME) else REPORT_NAME)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=False, default=str) + "\n")
    os.replace(tmp, path)
    if path.name == REPORT_NAME:
        (folder / PARTIAL_NAME).unlink(missing_ok=True)
    if hooks:
        _report_written(path, doc)
    return path


def holds_full_run(path: Path) -> bool:
    """Whether ``path`` is a readable report of a run that was not partial."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(doc, dict) and isinstance(doc.get("run"), dict) and not doc["run"].get("partial")


def _report_written(path: Path, doc: dict[str, Any]) -> None:
    """The ``ovconform_report_written`` hook of the installed ovconform plugins (entry points)."""
    from ovconform.host.manager import get_plugin_manager

    get_plugin_manager().hook.ovconform_report_written(path=str(path), report=doc)


def device_metadata(dut: DeviceUnderTest) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": dut.name, "plugin_spec": dut.spec, "plugin": dut.entry.source,
                            "distribution": dut.entry.distribution}
    try:
        plugin = dut.create()
        meta["full_name"] = str(plugin.get_property("FULL_DEVICE_NAME"))
        version = plugin.get_version()
        meta["version"] = {"build_number": str(getattr(version, "build_number", "")),
                           "description": str(getattr(version, "description", ""))}
        props = {}
        for name in dict(plugin.get_property("SUPPORTED_PROPERTIES")):
            if name == "SUPPORTED_PROPERTIES":
                continue
            try:
                value = plugin.get_property(name)
                props[str(name)] = _jsonable_value(value)
            except Exception as e:  # a device's broken property must not lose the report
                props[str(name)] = f"<error: {type(e).__name__}: {e}>"
        meta["properties"] = props
    except Exception as e:  # same: record it, keep the report
        meta["error"] = f"{type(e).__name__}: {e}"
    return meta


def _jsonable_value(value: Any) -> Any:
    from ovconform.properties import to_string

    if isinstance(value, (bool, int, float)) and not hasattr(value, "value"):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable_value(v) for k, v in value.items()}
    return to_string(value)


def iso_time(ts: float) -> str:
    """``ts`` (seconds since the epoch) as ISO 8601 UTC with milliseconds, as the schema wants."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"
