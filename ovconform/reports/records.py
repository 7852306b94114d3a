"""One conformance record per test, carried on pytest's test report.

The record is built in ``pytest_runtest_makereport`` (on whichever process ran the test) and put
in ``report.user_properties`` as ``("ovconform", record)``, so it reaches the xdist controller
with the report. A report that arrives without one — a worker that crashed mid-test — becomes a
``crashed`` record on the controller. Every record is also appended to the crash-safe journal as
its test ends (:mod:`ovconform.reports.journal`); a test that started but never ended — the whole
run was killed — becomes a ``crashed`` record when the report is rebuilt from it
(:func:`interrupted_record`). :func:`supersedes` is the one precedence rule both use.

Statuses: passed, failed, error (setup/teardown), skipped, xfailed, xpassed, crashed, hanged.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

facts_key = pytest.StashKey[dict[str, Any]]()
USER_PROPERTY = "ovconform"
STATUSES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed", "crashed", "hanged")
_MESSAGE_LIMIT = 2000


def device_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get("ov_device_name")


def _entity(item: pytest.Item) -> str:
    mark = item.get_closest_marker("entity")
    return str(mark.args[0]) if mark and mark.args else "other"


def _scope(item: pytest.Item) -> str:
    return "mandatory" if item.get_closest_marker("mandatory") else "optional"


def classify(report: pytest.TestReport) -> str:
    """The record status of a report (any phase)."""
    text = str(report.longrepr or "")
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed and text.startswith("[XPASS(strict)]"):
        return "xpassed"
    if report.skipped:
        return "skipped"
    if report.passed:
        return "passed"
    if "Timeout" in text and "pytest-timeout" in text or "+++ Timeout +++" in text:
        return "hanged"
    if "crashed while running" in text or "worker crashed" in text:
        return "crashed"
    return "failed" if report.when == "call" else "error"


def _message(report: pytest.TestReport) -> str:
    if report.passed and not hasattr(report, "wasxfail"):
        return ""
    if hasattr(report, "wasxfail") and report.passed:
        return f"expected to fail ({report.wasxfail}) but passed"
    if report.failed and str(report.longrepr).startswith("[XPASS(strict)]"):
        return f"expected to fail ({str(report.longrepr).removeprefix('[XPASS(strict)]').strip()}) but passed"
    lr = report.longrepr
    if isinstance(lr, tuple):  # skip: (path, line, reason)
        return str(lr[2]).removeprefix("Skipped: ")
    crash = getattr(getattr(lr, "reprcrash", None), "message", None)
    text = crash or str(lr or "")
    return text[:_MESSAGE_LIMIT]


def attach(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Attach this phase's record when it decides the test's outcome."""
    device = device_of(item)
    if device is None:
        return
    decisive = report.when == "call" or (report.when == "setup" and not report.passed) or (
        report.when == "teardown" and report.failed)
    if not decisive:
        return
    record = {
        "nodeid": item.nodeid,
        "device": device,
        "entity": _entity(item),
        "scope": _scope(item),
        "status": classify(report),
        "phase": report.when,
        "duration": round(report.duration, 6),
        "message": _message(report),
        "facts": _jsonable(item.stash.get(facts_key, {})),
        "finished_at": time.time(),
    }
    report.user_properties.append((USER_PROPERTY, record))


def _jsonable(facts: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in facts.items():
        try:
            json.dumps(v)
            out[str(k)] = v
        except (TypeError, ValueError):
            out[str(k)] = repr(v)
    return out


def record_of(report: pytest.TestReport) -> dict[str, Any] | None:
    for key, value in getattr(report, "user_properties", []):
        if key == USER_PROPERTY:
            return dict(value)
    return None


def crashed_record(report: pytest.TestReport, device: str) -> dict[str, Any]:
    """A record for a report that lost its own (the process running the test died)."""
    status = classify(report)
    return {
        "nodeid": report.nodeid, "device": device, "entity": "unknown", "scope": "optional",
        "status": status if status in ("crashed", "hanged") else "crashed", "phase": report.when,
        "duration": round(report.duration, 6), "message": _message(report) or "the test never finished",
        "facts": {}, "finished_at": time.time(),
    }


def interrupted_record(nodeid: str, device: str, message: str, started_at: float) -> dict[str, Any]:
    """A record for a test that started but whose process (or the whole run) stopped before it ended."""
    return {
        "nodeid": nodeid, "device": device, "entity": "unknown", "scope": "optional", "status": "crashed",
        "phase": "call", "duration": 0.0, "message": message, "facts": {}, "finished_at": started_at,
    }


def supersedes(previous: dict[str, Any] | None, record: dict[str, Any]) -> bool:
    """Whether ``record`` (arriving later) replaces ``previous`` as a test's record: the first
    record stands, except that a failing teardown, or any record after a passed or skipped one,
    decides the outcome."""
    return previous is None or record.get("phase") == "teardown" or previous["status"] in ("passed", "skipped")


__all__ = ["STATUSES", "attach", "classify", "crashed_record", "interrupted_record", "record_of", "supersedes"]
