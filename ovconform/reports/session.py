"""The pytest side of the conformance report: records in, one report per device out (controller only).

:class:`ConformanceReport` is registered by the pytest plugin when ``--plugin`` is given, on the
controller and on every xdist worker:

* the collecting process (the only one without xdist, each worker with it) sums up its collection
  (:class:`~ovconform.reports.collection.Collection`) and journals it; the xdist controller reads
  it from the worker's journal when that worker reports its collection finished, so it knows each
  test's stable id, entity and scope before any test runs;
* every process appends each record, as its test ends, to the run's crash-safe journal
  (:mod:`ovconform.reports.journal`), from which ``ovconform report rebuild`` makes the report of
  a run that was killed;
* the controller keeps one record per test (a report that lost its record — a crashed worker —
  becomes ``crashed`` with the metadata collected), writes each device's report at the end with
  ``run.selection`` and ``run.partial`` (:mod:`ovconform.reports.selection`), removes the journals
  of earlier runs once this one completed, and prints a summary.

A collection-only run (``--co``, ``--setup-only``, ``--setup-plan``) writes nothing: no report,
no journal, and the journals and reports of earlier runs stay as they are.
"""

from __future__ import annotations

import gc
import os
import platform
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ovconform.reports import journal, selection, shard
from ovconform.reports import records as _records
from ovconform.reports.collection import Collection, DeviceTest, unknown_meta
from ovconform.reports.conformance import device_metadata, fmt_rate, iso_time, summarize, write_document

if TYPE_CHECKING:
    from ovconform.host.plugin_specs import DeviceUnderTest

#: exit statuses after which a run counts as completed (its journal replaces the earlier ones)
_COMPLETED = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)


def runs_tests(config: pytest.Config) -> bool:
    """False for the runs that only collect or plan (``--co``, ``--setup-only``, ``--setup-plan``)."""
    return not any(config.getoption(name, False) for name in ("collectonly", "setuponly", "setupplan"))


class ConformanceReport:
    """pytest plugin object; see the module docstring."""

    def __init__(self, config: pytest.Config, devices: list[DeviceUnderTest]) -> None:
        self.config = config
        self.devices = devices
        self.records: dict[str, dict[str, Any]] = {}  # pytest node id -> record
        self.started = time.time()
        self.active = runs_tests(config)
        self.run_id = journal.run_id(self.started)
        self.written: list[Path] = []
        self.run: dict[str, Any] = {}
        self.collection: Collection | None = None
        self._collected: list[pytest.Item] = []
        self._selection = selection.declared(config)
        self._device_meta: dict[str, dict[str, Any]] = {}
        self._journal_error: str | None = None
        self.journal = self._open_journal() if self.active else None

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
                return journal.Journal(journal.run_folder(self._base(), self.run_id), "main")
            folder = Path(workerinput.get("ovconform_journal_dir") or journal.run_folder(self._base(), self.run_id))
            return journal.Journal(folder, str(workerinput.get("workerid", f"worker-{os.getpid()}")))
        except OSError as e:  # an unwritable report folder must not stop the run; say so at the end
            self._journal_error = f"{type(e).__name__}: {e}"
            return None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist controller: tell each worker where the run's journal is (its cwd may differ)."""
        node.workerinput["ovconform_journal_dir"] = str(journal.run_folder(self._base(), self.run_id))

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self._is_controller() and self.journal is not None:
            run = self._run_metadata(time.time())
            run.pop("duration_s", None)
            self.journal.write("session", run=run, devices={d.name: self._metadata(d) for d in self.devices})

    # -- collection ------------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Every item collected, before any selection removes some."""
        self._collected = list(items)

    @pytest.hookimpl(tryfirst=True)  # before xdist tells the controller that collection finished
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        markexpr = str(self.config.getoption("markexpr", "") or "")
        self.collection = Collection.of(self._collected, list(session.items), markexpr,
                                        self.config.stash.get(shard.removed_key, set()))
        self._collected = []
        if self.journal is not None:
            self.journal.write("collection", **self.collection.to_entry())
        if self._is_controller():
            self._write_unfinished()
        # The collected tests, their cases and models live to the end of the run: out of the cyclic
        # collector's view, so a suite's gc.collect() (lifetime checks) does not walk them every time.
        gc.collect()
        gc.freeze()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """xdist controller: read the worker's collection from its journal."""
        if self.collection is None:
            folder = Path(node.workerinput["ovconform_journal_dir"])
            self.collection = journal.read_collection(folder / f"{node.workerinput['workerid']}{journal.SUFFIX}")
            self._write_unfinished()

    def _write_unfinished(self) -> None:
        """Each device's report says, until the run writes the real one at its end, that the run has
        not finished (``run.unfinished``, no records): a process that dies without reaching the end
        (a device calling ``exit(0)``, a kill) leaves that report, not an earlier run's, nor none."""
        if not self.active or self.collection is None:
            return
        run = self._run_metadata(time.time())  # finished_at: when this report was written
        run.pop("duration_s", None)
        selected = {m["test_id"] for m in self.collection.tests.values()}
        run.update(selection.finish(self._selection, self.collection, selected))  # partial as selected
        run["selection"]["not_run"] = len(selected)
        run["unfinished"] = True
        for dut in self.devices:
            try:
                write_document(self._base(), self._metadata(dut), run, [], hooks=False)
            except OSError as e:  # the end of the run says so (it fails to write there too)
                self._journal_error = self._journal_error or f"{type(e).__name__}: {e}"

    def _meta(self, nodeid: str) -> DeviceTest | None:
        """The collected metadata of a device test (by pytest node id), or None for other tests. Without
        the collection (no journal to read it from), the device from the node id, entity unknown."""
        meta = self.collection.tests.get(nodeid) if self.collection is not None else None
        if meta is not None:
            return meta
        device = self._device_in(nodeid)
        return None if device is None else unknown_meta(nodeid, device, self.config.rootpath)

    def _device_in(self, nodeid: str) -> str | None:
        params = nodeid.rpartition("[")[2].rstrip("]") if nodeid.endswith("]") else ""
        return next((d.name for d in self.devices if f"-{d.name}-" in f"-{params}-"), None)

    # -- records ---------------------------------------------------------------------------------
    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        meta = self._meta(nodeid)
        if meta is not None and self.journal is not None:
            self.journal.write("start", nodeid=meta["test_id"], device=meta["device"], entity=meta["entity"],
                               scope=meta["scope"], at=time.time())

    def _metadata(self, dut: DeviceUnderTest) -> dict[str, Any]:
        if dut.name not in self._device_meta:
            self._device_meta[dut.name] = device_metadata(dut)
        return self._device_meta[dut.name]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = _records.record_of(report)
        if record is None:
            # xdist reports a worker's death (phase "???") for the test it was running, also when
            # that test's call already reported: the process died in its teardown
            died = report.when not in _records.PHASES
            if report.passed or report.skipped:
                return
            if not died and report.when != "call" and report.nodeid in self.records:
                return
            if died and (self.records.get(report.nodeid) or {}).get("status") == "hanged":
                return  # the watchdog ended the worker of a hanged test (ovconform/reports/watchdog.py)
            meta = self._meta(report.nodeid)
            if meta is None:
                return
            record = _records.crashed_record(report, meta, before=self.records.get(report.nodeid) if died else None)
        if self.journal is not None:
            self.journal.write("record", record=record)
        if _records.supersedes(self.records.get(report.nodeid), record):
            self.records[report.nodeid] = record

    # -- the end ---------------------------------------------------------------------------------
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.journal is not None:
            self.journal.close()
        if not self._is_controller() or not self.active:
            return
        run = self._run_metadata(time.time())
        ran = {r["nodeid"] for r in self.records.values()}
        run.update(selection.finish(self._selection, self.collection, ran))
        for dut in self.devices:
            records = sorted((r for r in self.records.values() if r["device"] == dut.name), key=lambda r: r["nodeid"])
            self.written.append(write_document(self._base(), self._metadata(dut), run, records))
        self.run = run
        if exitstatus in _COMPLETED and self.journal is not None:
            journal.forget_earlier(self._base(), self.run_id)

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
            "selection": self._selection,
        }

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._is_controller() or not self.active:
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
            counts = summary["statuses"]
            tr.write_line(f"mandatory pass rate: {fmt_rate(summary['mandatory_pass_rate'])} "
                          f"({summary['total']} tests: crashed {counts.get('crashed', 0)}, "
                          f"hanged {counts.get('hanged', 0)})")
        partial = selection.describe(self.run)
        if partial:
            tr.write_line(f"ovconform: {partial}")
        for path in self.written:
            tr.write_line(f"generated conformance report: {path}")
        if self._journal_error:
            tr.write_line(f"ovconform: no journal was kept ({self._journal_error}); a killed run cannot be rebuilt")


__all__ = ["ConformanceReport", "runs_tests"]
