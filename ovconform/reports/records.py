"""One conformance record per test, carried on pytest's test report.

The record is built in ``pytest_runtest_makereport`` (on whichever process ran the test) and put
in ``report.user_properties`` as ``("ovconform", record)``, so it reaches the xdist controller
with the report. Its ``nodeid`` is the test's stable id (:mod:`ovconform.reports.collection`),
not pytest's node id. A report that arrives without one — a worker that crashed mid-test — becomes
a ``crashed`` record on the controller, with the test id, entity and scope known at collection
(:func:`crashed_record`). Every record is also appended to the crash-safe journal as its test
ends (:mod:`ovconform.reports.journal`); a test that started but never ended — the whole run was
killed — becomes a ``crashed`` record when the report is rebuilt from it
(:func:`interrupted_record`). :func:`supersedes` is the one precedence rule both use.

Statuses: passed, failed, error (setup/teardown), skipped, xfailed, xpassed, crashed, hanged.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from ovconform.reports.collection import DeviceTest, device_of, meta_of
from ovconform.reports.statuses import BAD, STATUSES

facts_key = pytest.StashKey[dict[str, Any]]()
USER_PROPERTY = "ovconform"
PHASES = ("setup", "call", "teardown")
#: In the message of a test stopped by ovconform's own per-test limit (when pytest-timeout is not loaded).
TIMEOUT_MARK = "from ovconform --ovconform-test-timeout"
_MESSAGE_LIMIT = 2000
#: The traceback and captured output kept of a failure: its last characters (where the error is).
DETAILS_LIMIT = 6000


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
    if "Timeout" in text and "pytest-timeout" in text or "+++ Timeout +++" in text or TIMEOUT_MARK in text:
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
    decisive = report.when == "call" or (report.when == "setup" and not report.passed) or (
        report.when == "teardown" and report.failed)
    meta = meta_of(item) if decisive else None
    if meta is None:
        return
    record = {
        "nodeid": meta["test_id"],
        "device": meta["device"],
        "entity": meta["entity"],
        "scope": meta["scope"],
        "status": classify(report),
        "phase": report.when,
        "duration": round(report.duration, 6),
        "message": _message(report),
        "facts": jsonable_facts(item.stash.get(facts_key, {})),
        "finished_at": time.time(),
    }
    if record["status"] in BAD:
        record["details"] = details(report)
    report.user_properties.append((USER_PROPERTY, record))


def details(report: pytest.TestReport) -> str:
    """A failure's traceback and captured output (pytest's sections: stdout, stderr, log), the
    last :data:`DETAILS_LIMIT` characters, for the reports a CI user keeps."""
    parts = [report.longreprtext.rstrip()] if report.longreprtext else []
    parts += [f"----- {title} -----\n{content.rstrip()}" for title, content in report.sections if content.strip()]
    text = "\n".join(parts)
    return text if len(text) <= DETAILS_LIMIT else "[...]\n" + text[-DETAILS_LIMIT:]


def jsonable_facts(facts: dict[str, Any]) -> dict[str, Any]:
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


def crashed_record(report: pytest.TestReport, meta: DeviceTest,
                   before: dict[str, Any] | None = None) -> dict[str, Any]:
    """A record for a report that lost its own (the process running the test died): the test's
    id, entity and scope as collected, status crashed (or hanged), the phase it died in (``call``
    when unknown: xdist reports a worker's death as phase ``???``).

    ``before``: the test's record from its call, when the process died after it (in the test's
    teardown, e.g. a driver aborting as the objects the test made are released): the test is
    ``crashed`` in phase ``teardown`` — a hanged one stays hanged — and keeps its facts, the
    message saying how the call ended."""
    status = classify(report)
    message = _message(report) or "the test never finished"
    record = {
        "nodeid": meta["test_id"], "device": meta["device"], "entity": meta["entity"], "scope": meta["scope"],
        "status": status if status in ("crashed", "hanged") else "crashed",
        "phase": report.when if report.when in PHASES else "call",
        "duration": round(report.duration, 6), "message": message,
        "facts": {}, "finished_at": time.time(), "details": details(report),
    }
    if before is not None:
        record.update(status="hanged" if before["status"] == "hanged" else "crashed", phase="teardown",
                      duration=before.get("duration", 0.0), facts=dict(before.get("facts") or {}),
                      message=(f"its call ended {before['status']}, then the process running it died (in the "
                               f"test's teardown or right after it): {message}")[:_MESSAGE_LIMIT])
    return record


def interrupted_record(start: dict[str, Any], message: str) -> dict[str, Any]:
    """A record for a test that started (journal ``start`` entry: its test id as ``nodeid``, device,
    entity, scope, ``at``) but whose process (or the whole run) stopped before it ended."""
    return {
        "nodeid": start["nodeid"], "device": start["device"], "entity": str(start.get("entity") or "unknown"),
        "scope": "mandatory" if start.get("scope") == "mandatory" else "optional", "status": "crashed",
        "phase": "call", "duration": 0.0, "message": message, "facts": {}, "finished_at": float(start.get("at") or 0.0),
    }


def supersedes(previous: dict[str, Any] | None, record: dict[str, Any]) -> bool:
    """Whether ``record`` (arriving later) replaces ``previous`` as a test's record: the first
    record stands, except that a failing teardown, or any record after a passed or skipped one,
    decides the outcome."""
    return previous is None or record.get("phase") == "teardown" or previous["status"] in ("passed", "skipped")


__all__ = ["PHASES", "STATUSES", "TIMEOUT_MARK", "attach", "classify", "crashed_record", "device_of",
           "interrupted_record", "jsonable_facts", "record_of", "supersedes"]
