"""The crash-safe journal: every record appended as its test ends, so a killed run loses nothing.

``conformance.json`` is written once, at the end of the session. A run that is killed (SIGKILL,
OOM killer, a CI job timeout, a device that takes the whole process down without xdist) never
gets there, so each process that sees a record also appends it to a JSON-lines file under
``<report-dir>/journal/`` the moment the test ends: one ``os.write`` of one whole line to a file
opened with ``O_APPEND`` (no user-space buffer, so nothing is pending when the process dies; a
SIGKILL cannot tear the line, a power loss could lose the last lines, as there is no fsync).

Files: ``main.jsonl`` (the controller, or the only process without xdist) and ``<worker id>.jsonl``
per xdist worker (a worker's file also keeps records whose report was still on its way to a
controller that died). Entries (one JSON object a line, ``kind`` first):

* ``{"kind": "session", "run": {...}, "devices": {name: metadata}}`` — the controller, at session start;
* ``{"kind": "start", "nodeid", "device", "at"}`` — a device test started;
* ``{"kind": "record", "record": {...}}`` — a test's record, exactly as ``conformance.json`` holds it.

:func:`rebuild` (``ovconform report rebuild DIR``) folds the entries back into one
``conformance.json`` per device, with the same precedence as the live report: every finished
test keeps its record, and a test that started but never finished becomes ``crashed`` ("the run
stopped while this test was running"). The controller clears the journal when a run starts.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ovconform.errors import ValidationError

JOURNAL_DIR = "journal"
SUFFIX = ".jsonl"
INTERRUPTED = "the run stopped while this test was running (no result was recorded); rebuilt from the journal"


class Journal:
    """One process's append-only journal file (``<folder>/<name>.jsonl``)."""

    def __init__(self, folder: Path, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{name}{SUFFIX}"
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, kind: str, **fields: Any) -> None:
        """Append one entry as one line, in one write (so a killed process leaves whole lines)."""
        if self._fd is None:
            return
        line = json.dumps({"kind": kind, **fields}, default=str, separators=(",", ":")) + "\n"
        data = line.encode("utf-8")
        while data:
            written = os.write(self._fd, data)
            data = data[written:]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def clear(folder: Path) -> None:
    """Remove the journal files of an earlier run (the controller does this as a run starts)."""
    if folder.is_dir():
        for path in folder.glob(f"*{SUFFIX}"):
            path.unlink(missing_ok=True)


@dataclass
class Entries:
    """What a journal folder holds, ready to fold."""

    session: dict[str, Any] | None = None
    starts: dict[str, dict[str, Any]] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    torn_lines: int = 0
    files: int = 0


def _lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from f


def read(folder: Path) -> Entries:
    """Every entry of every journal file in ``folder``; a line that is not a whole JSON object
    (the last line of a file written when a power loss hit) is counted in ``torn_lines`` and skipped.

    :raises ValidationError: when the folder has no journal file.
    """
    files = sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    if not files:
        raise ValidationError(f"no journal in {str(folder)!r}: expected *{SUFFIX} files written by "
                              "`pytest --plugin=X` (its --ovconform-report-dir, folder journal/)")
    out = Entries(files=len(files))
    for path in files:
        for line in _lines(path):
            entry = _parse(line)
            if entry is None:
                out.torn_lines += bool(line.strip())
                continue
            _add(out, entry)
    out.records.sort(key=lambda r: float(r.get("finished_at") or 0.0))
    return out


def _parse(line: str) -> dict[str, Any] | None:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) and isinstance(entry.get("kind"), str) else None


def _add(out: Entries, entry: dict[str, Any]) -> None:
    kind = entry["kind"]
    if kind == "session" and isinstance(entry.get("run"), dict):
        out.session = entry
    elif kind == "start" and isinstance(entry.get("nodeid"), str) and isinstance(entry.get("device"), str):
        out.starts.setdefault(entry["nodeid"], entry)
    elif kind == "record" and _is_record(entry.get("record")):
        out.records.append(entry["record"])


def _is_record(record: Any) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("nodeid"), str)
            and isinstance(record.get("device"), str) and isinstance(record.get("status"), str))


def fold(entries: Entries) -> dict[str, dict[str, Any]]:
    """nodeid -> its record, with the live report's precedence; unfinished tests become crashed."""
    from ovconform.reports import records as _records

    records: dict[str, dict[str, Any]] = {}
    for record in entries.records:
        if _records.supersedes(records.get(record["nodeid"]), record):
            records[record["nodeid"]] = record
    for nodeid, start in entries.starts.items():
        if nodeid not in records:
            records[nodeid] = _records.interrupted_record(nodeid, start["device"], INTERRUPTED,
                                                          float(start.get("at") or 0.0))
    return records


def rebuild(report_dir: str | Path) -> tuple[list[Path], dict[str, Any]]:
    """Write ``<report_dir>/<DEVICE>/conformance.json`` for every device in the journal.

    :return: the files written, and counts: ``records`` (finished tests recovered), ``interrupted``
        (started, never finished: crashed), ``torn_lines``, ``files``.
    :raises ValidationError: when ``report_dir`` has no journal.
    """
    from ovconform.reports import conformance

    base = Path(report_dir)
    entries = read(base / JOURNAL_DIR)
    records = fold(entries)
    session = entries.session or {}
    devices: dict[str, Any] = dict(session.get("devices") or {})
    for record in records.values():
        devices.setdefault(record["device"], {"name": record["device"]})
    run = _run_metadata(session.get("run"), list(records.values()))
    written = []
    for name, meta in sorted(devices.items()):
        mine = sorted((r for r in records.values() if r["device"] == name), key=lambda r: r["nodeid"])
        written.append(conformance.write_document(base, meta, run, mine))
    interrupted = sum(1 for r in records.values() if r["message"] == INTERRUPTED)
    return written, {"records": len(records) - interrupted, "interrupted": interrupted,
                     "torn_lines": entries.torn_lines, "files": entries.files}


def _run_metadata(run: dict[str, Any] | None, records: list[dict[str, Any]]) -> dict[str, Any]:
    import ovconform
    from ovconform.reports.conformance import iso_time

    times = [float(r.get("finished_at") or 0.0) for r in records if r.get("finished_at")]
    out = dict(run or {"ovconform_version": str(ovconform.__version__),
                       "started_at": iso_time(min(times, default=time.time()))})
    finished = max(times, default=time.time())
    out["finished_at"] = iso_time(finished)
    out.pop("duration_s", None)
    out["rebuilt_from_journal"] = True
    return out


__all__ = ["INTERRUPTED", "JOURNAL_DIR", "Entries", "Journal", "clear", "fold", "read", "rebuild"]
