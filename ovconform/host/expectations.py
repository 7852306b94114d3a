"""Expectation files: the known failures of a device, as data.

Format, one entry a line::

    # comment lines and blank lines are ignored
    test_infer_request_callback.py::test_callback_runs_once   # reason, ideally with an issue link
    test_plugin_caching.py::*                                 # whole module: reason

The pattern is matched (fnmatch) against the test's node id with and without its ``[...]``
parameters, and as a node-id prefix. Every entry needs a reason after ``#``. A matching test is
expected to fail (``xfail(strict=True)``): if it passes, it is reported as xpassed and fails the
run. A reason starting with ``flaky:`` marks a test that fails in some runs and passes in others
(a device returning uninitialised memory, say): ``xfail(strict=False)``, so either outcome is
accepted, and such entries are never pruned. Entries that match no collected test although their
test function was collected are warned about (stale); entries for tests the run did not select
are out of scope. ``--ovconform-update-expectations`` removes entries whose tests all passed, but only when
nothing failed unexpectedly.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ovconform.errors import ExpectationError

key = pytest.StashKey["Expectations"]()


@dataclass
class Entry:
    pattern: str
    reason: str
    source: str  # "file:line" or "hook:<device>"
    device: str | None = None  # None: applies to every device under test
    matched: list[str] = field(default_factory=list)

    @property
    def flaky(self) -> bool:
        """The test fails in some runs only: a non-strict xfail."""
        return self.reason.lower().startswith("flaky:")

    def matches(self, nodeid: str, device: str | None = None) -> bool:
        if self.device is not None and device is not None and self.device.upper() != device.upper():
            return False
        bare = nodeid.split("[", 1)[0]
        return any(fnmatch.fnmatchcase(n, self.pattern) or n == self.pattern or n.startswith(self.pattern + "::")
                   for n in (nodeid, bare))


def parse_lines(lines: list[str], source: str, device: str | None = None) -> list[Entry]:
    entries = []
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, hash_, reason = line.partition("#")
        pattern, reason = pattern.strip(), reason.strip()
        if not hash_ or not reason:
            raise ExpectationError(f"{source}:{number}: entry {pattern!r} has no reason; write "
                                   f"'{pattern}  # why it fails (issue link)'.")
        if not pattern:
            raise ExpectationError(f"{source}:{number}: a reason without a node-id pattern.")
        entries.append(Entry(pattern, reason, f"{source}:{number}", device))
    return entries


def load_file(path: str) -> list[Entry]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ExpectationError(f"cannot read expectation file {path!r}: {e.strerror}.") from None
    return parse_lines(text.splitlines(), path)


class Expectations:
    """The entries of one run; marks items at collection and reports stale entries."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self._collected: set[str] = set()  # collected node ids without parameters

    def find(self, nodeid: str, device: str | None = None) -> Entry | None:
        return next((e for e in self.entries if e.matches(nodeid, device)), None)

    def mark(self, items: list[pytest.Item]) -> None:
        self._collected = {item.nodeid.split("[", 1)[0] for item in items}
        for item in items:
            callspec = getattr(item, "callspec", None)
            device = callspec.params.get("ov_device_name") if callspec else None
            if device is None:
                continue
            entry = self.find(item.nodeid, device)
            if entry is not None:
                entry.matched.append(item.nodeid)
                item.add_marker(pytest.mark.xfail(reason=f"{entry.reason} [{entry.source}]", strict=not entry.flaky))

    def stale(self) -> list[Entry]:
        """Entries that match no collected test although their scope was collected: the module
        (``test_x.py::...``), or the test function when the module part is only ``*``. An entry
        for a module or function the run did not select is out of scope, not stale."""

        def in_scope(entry: Entry) -> bool:
            module, _, rest = entry.pattern.partition("::")
            scope = module if module.strip("*") or not rest else "*::" + re.split(r"[?\[:]", rest, maxsplit=1)[0]
            return any(fnmatch.fnmatchcase(n, scope) or fnmatch.fnmatchcase(n, scope + "::*") for n in self._collected)

        return [e for e in self.entries if not e.matched and in_scope(e)]

    def prune(self, statuses: dict[str, str]) -> dict[str, list[str]]:
        """Rewrite each file without the entries whose tests all passed (xpassed). Returns the
        removed lines per file. Call only when nothing failed unexpectedly."""
        fixed = {e.source for e in self.entries
                 if e.matched and not e.flaky and all(statuses.get(n) == "xpassed" for n in e.matched)}
        removed: dict[str, list[str]] = {}
        for path in sorted({s.rsplit(":", 1)[0] for s in fixed if not s.startswith("hook:")}):
            lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
            drop = {int(s.rsplit(":", 1)[1]) for s in fixed if s.rsplit(":", 1)[0] == path}
            removed[path] = [lines[i - 1].rstrip("\n") for i in sorted(drop)]
            Path(path).write_text("".join(ln for i, ln in enumerate(lines, 1) if i not in drop), encoding="utf-8")
        return removed
