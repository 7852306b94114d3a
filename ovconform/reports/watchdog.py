"""The per-test limit's last resort: a watchdog thread for a test the limit cannot stop.

``--ovconform-test-timeout`` stops a test by a ``SIGALRM`` handler (pytest-timeout's signal method,
or ovconform's own :class:`~ovconform.pytest_plugin.TestLimit`), which raises in the main thread
when the interpreter next runs Python code there. A test blocked in native code never gets there —
a driver deadlocked on a mutex, a C++ plugin's ``infer`` waiting on a fence that never signals —
and neither does one whose device replaced the ``SIGALRM`` handler. Such a run used to hang until
something outside killed it, with no report.

:class:`Watchdog` (registered with the limit, in every process that runs tests) watches the test
in progress from a daemon thread. When a test is still running :func:`grace` seconds after its
limit, the watchdog

* records the test ``hanged`` (phase ``call``, its facts so far, a message saying where the limit
  could not reach), through pytest's own report hook: in an xdist worker the record travels to the
  controller and the worker's journal, without xdist it joins the run's records;
* without xdist, writes the run's reports as the end of a run would (the tests that did not run
  make it partial) and prints where;
* ends the process with status 1 (the test never returns; nothing else can stop it). Under xdist
  the controller starts a new worker for the rest of the run and keeps the test ``hanged``.

:class:`ExitGuard` covers the end of the run: a device that leaves a non-daemon thread running (a
driver's poller never joined) keeps the interpreter waiting for it at exit, after the reports are
written, for good. When the interpreter starts to shut down, the guard gives the threads
:func:`grace` of the run's limit to end, then names the ones still running and ends the process
with the run's exit status (the reports are already complete).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ovconform.reports import records as _records
from ovconform.reports.collection import meta_of

#: How often the watchdog looks at the test in progress (seconds).
POLL_S = 0.25


def grace(limit: float) -> float:
    """Seconds past a test's limit before the watchdog acts: the signal-based limit's time to work."""
    return max(5.0, 0.2 * limit)


def limit_of(item: pytest.Item, default: float) -> float:
    """The test's limit: its ``timeout(seconds)`` marker, else pytest-timeout's ``--timeout`` when
    set, else ``default`` (``--ovconform-test-timeout``). 0 or less: no limit."""
    mark = item.get_closest_marker("timeout")
    seconds = (mark.args[0] if mark.args else mark.kwargs.get("timeout")) if mark is not None else None
    if seconds is None:
        seconds = getattr(item.config.option, "timeout", None) or default
    return float(seconds)


class Watchdog:
    """pytest plugin object; see the module docstring."""

    __test__ = False  # not a test class

    def __init__(self, config: pytest.Config, seconds: float) -> None:
        self.config = config
        self.seconds = seconds
        self._lock = threading.Lock()
        self._current: tuple[pytest.Item, float, float, float] | None = None  # item, started, limit, act at
        self._thread: threading.Thread | None = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        limit = limit_of(item, self.seconds)
        if limit > 0:
            self._start()
            now = time.monotonic()
            with self._lock:
                self._current = (item, now, limit, now + limit + grace(limit))
        try:
            return (yield)
        finally:
            with self._lock:
                self._current = None

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="ovconform-watchdog", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        while True:
            time.sleep(POLL_S)
            with self._lock:
                current = self._current
            if current is not None and time.monotonic() >= current[3]:
                self._act(*current[:3])
                return

    def _act(self, item: pytest.Item, started: float, limit: float) -> None:
        message = (f"Timeout (>{limit:.1f}s) {_records.TIMEOUT_MARK}: the test was still running {grace(limit):.0f} s "
                   "after its limit, blocked where the limit cannot stop it (in native code, or with the SIGALRM "
                   "handler replaced); ovconform's watchdog ended the process")
        try:
            self._report(item, message, time.monotonic() - started)
            if not hasattr(self.config, "workerinput"):
                self._write_reports()
            else:
                time.sleep(1.0)  # let the record reach the controller
        finally:
            self._say(f"\novconform: {item.nodeid}: {message}")
            os._exit(1)

    def _say(self, line: str) -> None:
        """Write to the terminal, past pytest's capture of the test's output (it is still on)."""
        capture: Any = self.config.pluginmanager.get_plugin("capturemanager")
        try:
            if capture is not None:
                capture.suspend_global_capture(in_=True)
        except Exception:  # noqa: BLE001, S110 - the line matters more than the capture's state
            pass
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def _report(self, item: pytest.Item, message: str, duration: float) -> None:
        report = pytest.TestReport(item.nodeid, item.location, {}, "failed", message, "call", duration=duration)
        meta = meta_of(item)
        if meta is not None:
            record = {"nodeid": meta["test_id"], "device": meta["device"], "entity": meta["entity"],
                      "scope": meta["scope"], "status": "hanged", "phase": "call", "duration": round(duration, 6),
                      "message": message, "facts": _records.jsonable_facts(item.stash.get(_records.facts_key, {})),
                      "finished_at": time.time()}
            report.user_properties.append((_records.USER_PROPERTY, record))
        self.config.hook.pytest_runtest_logreport(report=report)

    def _write_reports(self) -> None:
        """Without xdist: the reports the end of the run would write, from the records so far."""
        plugin: Any = self.config.pluginmanager.get_plugin("ovconform-conformance-report")
        if plugin is None:
            return
        plugin.pytest_sessionfinish(None, int(pytest.ExitCode.TESTS_FAILED))
        for path in plugin.written:
            self._say(f"ovconform: wrote the report of the run so far: {path}")


class ExitGuard:
    """pytest plugin object; see the module docstring. ``seconds``: how long the threads left
    running at exit get before the process is ended."""

    __test__ = False  # not a test class

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.exitstatus = 0

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.exitstatus = int(exitstatus)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        # called when the interpreter shuts down, before it joins the non-daemon threads (the hook
        # concurrent.futures uses): a run inside a longer-lived process (pytester) arms nothing now
        register = getattr(threading, "_register_atexit", None)
        if register is not None:
            try:
                register(self._arm)
            except RuntimeError:  # already shutting down
                self._arm()

    def _arm(self) -> None:
        threading.Thread(target=self._guard, name="ovconform-exit-guard", daemon=True).start()

    def _guard(self) -> None:
        time.sleep(self.seconds)
        left = [t.name for t in threading.enumerate()
                if t.is_alive() and not t.daemon and t is not threading.main_thread()]
        if not left:  # no thread holds the exit up: the interpreter is finishing by itself
            return
        sys.stdout.flush()
        sys.stderr.write(f"\novconform: the run is over and its reports are written, but the process was still "
                         f"running {self.seconds:.0f} s later, waiting for threads left running (not daemon threads, "
                         f"never ended; a device's?): {', '.join(map(repr, left))}; ovconform ended "
                         f"the process (exit status {self.exitstatus})\n")
        sys.stderr.flush()
        os._exit(self.exitstatus)


__all__ = ["POLL_S", "ExitGuard", "Watchdog", "grace", "limit_of"]
