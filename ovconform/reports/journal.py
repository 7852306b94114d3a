"""The crash-safe journal: every record appended as its test ends, so a killed run loses nothing.

``conformance.json`` is written once, at the end of the session. A run that is killed (SIGKILL,
OOM killer, a CI job timeout, a device that takes the whole process down without xdist) never
gets there, so each process that sees a record also appends it to a JSON-lines file the moment
the test ends: one ``os.write`` of one whole line to a file opened with ``O_APPEND`` (no
user-space buffer, so nothing is pending when the process dies; a SIGKILL cannot tear the line, a
power loss could lose the last lines, as there is no fsync).

Each run has its own folder, ``<report-dir>/journal/<run id>/`` (the run id is its start time in
UTC and the controller's pid, so names sort by start): ``main.jsonl`` (the controller, or the only
process without xdist) and ``<worker id>.jsonl`` per xdist worker (a worker's file also keeps
records whose report was still on its way to a controller that died). A run's journal is kept
until a later run of the same report folder completes; then that run removes the journals of the
runs that started before it. A collection-only run (``--co``) keeps no journal and removes none.
Entries (one JSON object a line, ``kind`` first):

* ``{"kind": "session", "run": {...}, "devices": {name: metadata}}`` — the controller, at session start;
* ``{"kind": "collection", "tests": [...], "unselected": [...], "deselected": N}`` — the collecting
  process (each worker under xdist), when collection ends (:class:`~ovconform.reports.collection.Collection`);
* ``{"kind": "start", "nodeid", "device", "entity", "scope", "at"}`` — a device test started
  (``nodeid`` is its stable test id);
* ``{"kind": "record", "record": {...}}`` — a test's record, exactly as ``conformance.json`` holds it.

:func:`rebuild` (``ovconform report rebuild DIR``) folds the newest run's entries back into one
report per device, with the same precedence as the live report: every finished test keeps its
record, and a test that started but never finished becomes ``crashed`` ("the run stopped while
this test was running") with its entity and scope. Selected tests that never started make the
rebuilt report partial (``run.selection.not_run``).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ovconform.errors import ValidationError
from ovconform.reports.collection import Collection

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


def run_id(started: float) -> str:
    """A run's journal folder name: its start in UTC (to the millisecond) and the controller's pid."""
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(started)) + f".{int(started % 1 * 1000):03d}Z-{os.getpid()}"


def run_folder(report_dir: Path, run: str) -> Path:
    return report_dir / JOURNAL_DIR / run


def runs(report_dir: Path) -> list[Path]:
    """The journal folders of the runs in ``report_dir``, oldest first. Files directly in
    ``journal/`` (the layout before journals had a folder per run) count as the oldest run."""
    top = report_dir / JOURNAL_DIR
    if not top.is_dir():
        return []
    folders = sorted(p for p in top.iterdir() if p.is_dir() and any(p.glob(f"*{SUFFIX}")))
    return ([top] if any(top.glob(f"*{SUFFIX}")) else []) + folders


def forget_earlier(report_dir: Path, run: str) -> None:
    """Remove the journals of the runs that started before ``run`` (a run that completed calls this)."""
    top = report_dir / JOURNAL_DIR
    if not top.is_dir():
        return
    for path in top.iterdir():
        if path.is_dir() and path.name < run:
            shutil.rmtree(path, ignore_errors=True)
        elif path.is_file() and path.suffix == SUFFIX:
            path.unlink(missing_ok=True)


def read_collection(path: Path) -> Collection | None:
    """The ``collection`` entry of one journal file (a worker's), or None when it has none (yet)."""
    found = None
    if path.is_file():
        for line in _lines(path):
            if line.startswith('{"kind":"collection"'):
                entry = _parse(line)
                found = Collection.from_entry(entry) if entry is not None else found
    return found


@dataclass
class Entries:
    """What a run's journal folder holds, ready to fold."""

    session: dict[str, Any] | None = None
    collection: Collection | None = None
    starts: dict[str, dict[str, Any]] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    torn_lines: int = 0
    files: int = 0


def _lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from f


def read(folder: Path) -> Entries:
    """Every entry of every journal file in ``folder`` (one run's); a line that is not a whole JSON
    object (the last line of a file written when a power loss hit) is counted in ``torn_lines``
    and skipped.

    :raises ValidationError: when the folder has no journal file.
    """
    files = sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    if not files:
        raise ValidationError(f"no journal in {str(folder)!r}: expected *{SUFFIX} files written by "
                              "`pytest --plugin=X` (its --ovconform-report-dir, folder journal/<run>/)")
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
    elif kind == "collection" and isinstance(entry.get("tests"), list):
        out.collection = out.collection or Collection.from_entry(entry)  # every worker collects the same
    elif kind == "start" and isinstance(entry.get("nodeid"), str) and isinstance(entry.get("device"), str):
        out.starts.setdefault(entry["nodeid"], entry)
    elif kind == "record" and _is_record(entry.get("record")):
        out.records.append(entry["record"])


def _is_record(record: Any) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("nodeid"), str)
            and isinstance(record.get("device"), str) and isinstance(record.get("status"), str))


def fold(entries: Entries) -> dict[str, dict[str, Any]]:
    """test id -> its record, with the live report's precedence; unfinished tests become crashed."""
    from ovconform.reports import records as _records

    records: dict[str, dict[str, Any]] = {}
    for record in entries.records:
        if _records.supersedes(records.get(record["nodeid"]), record):
            records[record["nodeid"]] = record
    for nodeid, start in entries.starts.items():
        if nodeid not in records:
            records[nodeid] = _records.interrupted_record(start, INTERRUPTED)
    return records


def rebuild(report_dir: str | Path) -> tuple[list[Path], dict[str, Any]]:
    """Write each device's report from the journal of the newest run in ``report_dir``
    (``conformance.json``, or beside it ``conformance.partial.json`` when the rebuilt run is partial
    and a full report is there: :func:`ovconform.reports.conformance.write_document`).

    :return: the files written, and counts: ``records`` (finished tests recovered), ``interrupted``
        (started, never finished: crashed), ``not_run`` (selected, never started), ``torn_lines``,
        ``files``, and ``run`` (the run's journal folder).
    :raises ValidationError: when ``report_dir`` has no journal.
    """
    from ovconform.reports import conformance, selection

    base = Path(report_dir)
    found = runs(base)
    if not found:
        raise ValidationError(f"no journal in {str(base / JOURNAL_DIR)!r}: expected journal/<run>/*{SUFFIX} "
                              "files written by `pytest --plugin=X` (its --ovconform-report-dir)")
    entries = read(found[-1])
    records = fold(entries)
    session = entries.session or {}
    devices: dict[str, Any] = dict(session.get("devices") or {})
    for record in records.values():
        devices.setdefault(record["device"], {"name": record["device"]})
    run = _run_metadata(session.get("run"), list(records.values()))
    run.update(selection.finish(run.get("selection") or {}, entries.collection, set(records)))
    written = []
    for name, meta in sorted(devices.items()):
        mine = sorted((r for r in records.values() if r["device"] == name), key=lambda r: r["nodeid"])
        written.append(conformance.write_document(base, meta, run, mine))
    interrupted = sum(1 for r in records.values() if r["message"] == INTERRUPTED)
    return written, {"records": len(records) - interrupted, "interrupted": interrupted,
                     "not_run": run["selection"].get("not_run") or 0, "torn_lines": entries.torn_lines,
                     "files": entries.files, "run": str(found[-1])}


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


__all__ = ["INTERRUPTED", "JOURNAL_DIR", "Entries", "Journal", "fold", "forget_earlier", "read", "read_collection",
           "rebuild", "run_folder", "run_id", "runs"]
