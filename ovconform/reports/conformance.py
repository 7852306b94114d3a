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

from ovconform.reports import journal
from ovconform.reports import records as _records

if TYPE_CHECKING:
    from ovconform.host.plugin_specs import DeviceUnderTest

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
    """pytest plugin object: records in, ``conformance.json`` per device out (controller only).

    Every process also appends each record, as its test ends, to the crash-safe journal under
    ``<report-dir>/journal/`` (:mod:`ovconform.reports.journal`), from which ``ovconform report
    rebuild`` makes the same ``conformance.json`` after a run that was killed."""

    def __init__(self, config: pytest.Config, devices: list[DeviceUnderTest]) -> None:
        self.config = config
        self.devices = devices
        self.records: dict[str, dict[str, Any]] = {}
        self.started = time.time()
        self.written: list[Path] = []
        self._device_meta: dict[str, dict[str, Any]] = {}
        self._journal_error: str | None = None
        self.journal = self._open_journal()

    def _is_controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    # -- the crash-safe journal (ovconform.reports.journal) --------------------------------------
    def _base(self) -> Path:
        base = Path(self.config.getoption("ovconform_report_dir"))
        return base if base.is_absolute() else Path(self.config.invocation_params.dir) / base

    def _open_journal(self) -> journal.Journal | None:
        workerinput = getattr(self.config, "workerinput", None)
        try:
            if workerinput is None:
                folder = self._base() / journal.JOURNAL_DIR
                journal.clear(folder)
                return journal.Journal(folder, "main")
            folder = Path(workerinput.get("ovconform_journal_dir") or self._base() / journal.JOURNAL_DIR)
            return journal.Journal(folder, str(workerinput.get("workerid", f"worker-{os.getpid()}")))
        except OSError as e:  # an unwritable report folder must not stop the run; say so at the end
            self._journal_error = f"{type(e).__name__}: {e}"
            return None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist controller: tell each worker where the journal is (its cwd may differ)."""
        node.workerinput["ovconform_journal_dir"] = str(self._base() / journal.JOURNAL_DIR)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self._is_controller() and self.journal is not None:
            run = self._run_metadata(time.time())
            run.pop("duration_s", None)
            self.journal.write("session", run=run, devices={d.name: self._metadata(d) for d in self.devices})

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        device = self._device_in(nodeid)
        if device is not None and self.journal is not None:
            self.journal.write("start", nodeid=nodeid, device=device, at=time.time())

    def _metadata(self, dut: DeviceUnderTest) -> dict[str, Any]:
        if dut.name not in self._device_meta:
            self._device_meta[dut.name] = _device_metadata(dut)
        return self._device_meta[dut.name]

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
        if self.journal is not None:
            self.journal.write("record", record=record)
        if _records.supersedes(self.records.get(report.nodeid), record):
            self.records[report.nodeid] = record

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.journal is not None:
            self.journal.close()
        if not self._is_controller():
            return
        finished = time.time()
        for dut in self.devices:
            records = sorted((r for r in self.records.values() if r["device"] == dut.name), key=lambda r: r["nodeid"])
            self.written.append(write_document(self._base(), self._metadata(dut), self._run_metadata(finished),
                                               records))

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
            "started_at": iso_time(self.started),
            "finished_at": iso_time(finished),
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
        if self._journal_error:
            tr.write_line(f"ovconform: no journal was kept ({self._journal_error}); a killed run cannot be rebuilt")


def write_document(base: Path, device: dict[str, Any], run: dict[str, Any], records: list[dict[str, Any]]) -> Path:
    """Write ``base/<device name>/conformance.json`` atomically (a temporary file, then a rename)."""
    doc = {"schema_version": SCHEMA_VERSION, "run": run, "device": device, "summary": summarize(records),
           "records": records}
    path = base / device["name"] / REPORT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=False, default=str) + "\n")
    os.replace(tmp, path)
    return path


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


def iso_time(ts: float) -> str:
    """``ts`` (seconds since the epoch) as ISO 8601 UTC with milliseconds, as the schema wants."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"
