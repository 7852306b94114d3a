"""The conformance report: collect records on the controller, write one JSON per device.

Pass rate (documented in the README): ``passed / ran``, where passed counts passed and xpassed
records and ran counts every record that is not skipped. A device or entity whose tests were all
skipped has pass rate ``None`` (shown "n/a"), not 0. The mandatory pass rate is the same over
mandatory-scope records only.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ovconform import _records

if TYPE_CHECKING:
    from ovconform._devices import DeviceUnderTest

SCHEMA_VERSION = "1.0"
REPORT_NAME = "conformance.json"


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


class ConformanceReport:
    """pytest plugin object: records in, ``conformance.json`` per device out (controller only)."""

    def __init__(self, config: pytest.Config, devices: list[DeviceUnderTest]) -> None:
        self.config = config
        self.devices = devices
        self.records: dict[str, dict[str, Any]] = {}
        self.started = time.time()
        self.written: list[Path] = []

    def _is_controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    def _device_in(self, nodeid: str) -> str | None:
        params = nodeid.rpartition("[")[2].rstrip("]").split("-") if nodeid.endswith("]") else []
        return next((d.name for d in self.devices if d.name in params), None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = _records.record_of(report)
        if record is None:
            if report.passed or report.skipped or (report.when != "call" and report.nodeid in self.records):
                return
            device = self._device_in(report.nodeid)
            if device is None:
                return
            record = _records.crashed_record(report, device)
        previous = self.records.get(report.nodeid)
        if previous is None or record["phase"] == "teardown" or previous["status"] in ("passed", "skipped"):
            self.records[report.nodeid] = record

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self._is_controller():
            return
        base = Path(self.config.getoption("ovconform_report_dir"))
        if not base.is_absolute():
            base = Path(self.config.invocation_params.dir) / base
        finished = time.time()
        for dut in self.devices:
            records = sorted((r for r in self.records.values() if r["device"] == dut.name), key=lambda r: r["nodeid"])
            doc = {
                "schema_version": SCHEMA_VERSION,
                "run": self._run_metadata(finished),
                "device": _device_metadata(dut),
                "summary": summarize(records),
                "records": records,
            }
            path = base / dut.name / REPORT_NAME
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(doc, indent=1, sort_keys=False, default=str) + "\n")
            os.replace(tmp, path)
            self.written.append(path)

    def _run_metadata(self, finished: float) -> dict[str, Any]:
        import numpy

        import ovconform

        workers = getattr(self.config.option, "numprocesses", None)
        return {
            "ovconform_version": str(ovconform.__version__),
            "python": sys.version.split()[0],
            "numpy": numpy.__version__,
            "pytest": pytest.__version__,
            "platform": platform.platform(),
            "machine": platform.machine(),
            "command_line": ["pytest", *self.config.invocation_params.args],
            "xdist_workers": workers,
            "started_at": _iso(self.started),
            "finished_at": _iso(finished),
            "duration_s": round(finished - self.started, 3),
        }

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._is_controller():
            return
        tr = terminalreporter
        from tabulate import tabulate

        for dut in self.devices:
            records = [r for r in self.records.values() if r["device"] == dut.name]
            summary = summarize(records)
            tr.write_sep("=", f"ovconform conformance: {dut.name}")
            statuses = [s for s in _records.STATUSES if s in summary["statuses"]]
            rows = [[entity, *[e["statuses"].get(s, 0) for s in statuses], fmt_rate(e["pass_rate"]),
                     fmt_rate(e["mandatory_pass_rate"])] for entity, e in summary["entities"].items()]
            rows.append(["all", *[summary["statuses"].get(s, 0) for s in statuses], fmt_rate(summary["pass_rate"]),
                         fmt_rate(summary["mandatory_pass_rate"])])
            tr.write_line(tabulate(rows, headers=["entity", *statuses, "pass rate", "mandatory"]))
            tr.write_line(f"mandatory pass rate: {fmt_rate(summary['mandatory_pass_rate'])}")
        for path in self.written:
            tr.write_line(f"generated conformance report: {path}")


def _device_metadata(dut: DeviceUnderTest) -> dict[str, Any]:
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


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"
