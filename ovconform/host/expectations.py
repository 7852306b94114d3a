"""Expectation files: the known failures of a device, as data.

Format, one entry a line::

    # comment lines and blank lines are ignored
    test_infer_request_callback.py::test_callback_runs_once   # reason, ideally with an issue link
    test_plugin_caching.py::*                                 # whole module: reason

The pattern is matched (fnmatch) against the test's stable id (``test_x.py::test_y[DEVICE-...]``,
see :mod:`ovconform.reports.collection`: the same from any folder) with and without its ``[...]``
parameters, and as a test-id prefix. Every entry needs a reason after ``#``. A matching test is
expected to fail (``xfail(strict=True)``): if it passes, it is reported as xpassed and fails the
run. A reason starting with ``flaky:`` marks a test that fails in some runs and passes in others
(a device returning uninitialised memory, say): ``xfail(strict=False)``, so either outcome is
accepted, and such entries are never pruned. A reason starting with ``crash:`` marks a test that
kills the device's process (a segfault, a floating-point exception): ``xfail(run=False)``, so it is
recorded xfailed without running, and a run without ``-n`` is not ended by it (the op suite leaves
such a case out of its op version's batch too). Such an entry never learns that the device was
fixed: it is never pruned, and only running the test without the entry tells.

A reason may start with a condition on the device's properties, in brackets: the entry applies
only to a device whose properties meet it, read from the device when the run starts. A device's
behaviour often depends on its hardware (OpenVINO CPU computes f16 natively only where the ISA
has it, and reports ``FP16`` in ``OPTIMIZATION_CAPABILITIES`` then)::

    *::test_op_inference?MVN-2-case6-*  # [OPTIMIZATION_CAPABILITIES has FP16] why it fails there
    *::test_x.py::test_y                # [DEVICE_ARCHITECTURE is intel64 and OPTIMIZATION_CAPABILITIES lacks BF16] why

Clauses are ``NAME has VALUE`` / ``NAME lacks VALUE`` (an item of a list property, compared
without case), ``NAME is VALUE`` / ``NAME is not VALUE`` (the value's text, without case), joined by
``and``. A property the device cannot answer makes the condition false, and the run says so. An
entry whose condition holds on none of the run's devices is out of its scope: never stale. The
name ``ovconform-depth`` is the run's op-suite depth rather than a property, for the cases only
one depth runs, and ``ovconform-models`` the run's ``--ovconform-models`` tier (quick, full), for
the architectures only the full tier runs::

    *::test_op_inference?Roll-7-boundary-f64-*  # [ovconform-depth is exhaustive] why it fails there
    *::test_real_model?llama_decoder_1b_u4-*      # [ovconform-models is full] why it fails there

At the end of the run, every entry that matches no collected test (deselected tests count as
collected) is named (:meth:`Expectations.unmatched`): *stale* when its module (or, for a
``*::name...`` pattern, its test function) was collected, and *unknown* when its module matches
no test module of the suites nor of the run (a misspelled name). An entry for a module of the
suites that the run did not collect (a run of a few modules) is out of scope and not named.
``--ovconform-update-expectations`` removes entries whose tests all passed, but only when nothing
failed unexpectedly.

``--ovconform-expectations`` takes a file path (relative to the folder pytest runs from) or the
name of a file bundled with the suites (``ovconform/suites/expectations/<name>.txt``), e.g.
``--ovconform-expectations openvino-CPU``, which works from any folder.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ovconform.errors import ExpectationError

key = pytest.StashKey["Expectations"]()
#: The condition name that reads the run's ``--ovconform-depth`` (quick, standard, exhaustive).
DEPTH_CLAUSE = "ovconform-depth"
#: The condition name that reads the run's ``--ovconform-models`` tier (quick, full).
MODELS_CLAUSE = "ovconform-models"


_CLAUSE = re.compile(r"^\s*([A-Za-z_][\w.:-]*)\s+(has|lacks|is not|is)\s+(\S(?:.*\S)?)\s*$")


@dataclass(frozen=True)
class Clause:
    """One clause of an entry's condition: ``NAME has|lacks|is|is not VALUE``."""

    name: str
    op: str
    value: str

    def __str__(self) -> str:
        return f"{self.name} {self.op} {self.value}"

    def holds(self, got: Any) -> bool:
        want = self.value.upper()
        if self.op in ("has", "lacks"):
            items = got if isinstance(got, (list, tuple, set, frozenset)) else str(got).replace(",", " ").split()
            found = any(_text(item).upper() == want for item in items)
            return found if self.op == "has" else not found
        same = _text(got).upper() == want
        return same if self.op == "is" else not same


def _text(value: Any) -> str:
    name = getattr(value, "name", None)  # an element type or an enum: its name
    return name if isinstance(name, str) else str(value)


def parse_condition(text: str, source: str) -> tuple[Clause, ...]:
    """The clauses of ``[...]`` (without the brackets).

    :raises ExpectationError: naming the entry, the bad clause and the allowed forms.
    """
    clauses = []
    for part in re.split(r"\s+and\s+", text.strip()):
        m = _CLAUSE.match(part)
        if m is None:
            raise ExpectationError(f"{source}: condition clause {part.strip()!r} is not 'NAME has VALUE', "
                                   "'NAME lacks VALUE', 'NAME is VALUE' or 'NAME is not VALUE' (clauses joined "
                                   "by 'and').")
        clauses.append(Clause(m.group(1), m.group(2), m.group(3)))
    return tuple(clauses)


def required_text(pattern: str) -> str:
    """A run of ``pattern``'s text that every test id it matches contains: the last non-empty run
    outside its wildcards (``*``, ``?``) and character classes (``[...]``), read as
    :func:`fnmatch.translate` reads them (a ``[`` without a closing ``]`` is literal); the last,
    because an id's parameters, at its end, tell its tests apart. An id matches an entry in no way
    without it (fnmatch, equality, or as a ``pattern::`` prefix), so matching tries it first: a
    run's 13,347 tests against 367 entries took 8 s with fnmatch alone."""
    runs: list[str] = []
    current: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c in "*?":
            runs.append("".join(current))
            current = []
        elif c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                current.append(c)  # no closing bracket: a literal '['
            else:
                runs.append("".join(current))
                current = []
                i = j + 1
        else:
            current.append(c)
    runs.append("".join(current))
    return next((r for r in reversed(runs) if r), "")


@dataclass
class Entry:
    pattern: str
    reason: str
    source: str  # "file:line" or "hook:<device>:line" (shown in messages)
    device: str | None = None  # None: applies to every device under test
    matched: list[str] = field(default_factory=list)
    file: str | None = None  # the file the entry is on (pruning rewrites it); None for hook entries
    line: int = 0
    when: tuple[Clause, ...] = ()  # the condition on the device's properties (empty: always)
    holds_on: dict[str, bool] = field(default_factory=dict)  # device name (upper case) -> condition met

    @property
    def condition(self) -> str:
        return " and ".join(str(c) for c in self.when)

    def applies_to(self, device: str | None) -> bool:
        """The condition holds on ``device`` (always for an unconditioned entry; a device never
        evaluated does not meet a condition)."""
        if not self.when:
            return True
        return device is not None and self.holds_on.get(device.upper(), False)

    @property
    def flaky(self) -> bool:
        """The test fails in some runs only: a non-strict xfail."""
        return self.reason.lower().startswith("flaky:")

    @property
    def crashes(self) -> bool:
        """The test kills the device's process: an xfail that is not run."""
        return self.reason.lower().startswith("crash:")

    def __post_init__(self) -> None:
        self.needle = required_text(self.pattern)

    def matches(self, test_id: str, device: str | None = None) -> bool:
        if self.needle not in test_id:  # cheap and exact: a test id without it matches in no way
            return False
        if self.device is not None and device is not None and self.device.upper() != device.upper():
            return False
        if self.when and not self.applies_to(device):
            return False
        bare = test_id.split("[", 1)[0]
        return any(fnmatch.fnmatchcase(n, self.pattern) or n == self.pattern or n.startswith(self.pattern + "::")
                   for n in (test_id, bare))


def parse_lines(lines: list[str], source: str, device: str | None = None, file: str | None = None) -> list[Entry]:
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
        when: tuple[Clause, ...] = ()
        if reason.startswith("["):
            condition, bracket, reason = reason[1:].partition("]")
            reason = reason.strip()
            if not bracket or not reason:
                raise ExpectationError(f"{source}:{number}: entry {pattern!r} has a condition without a closing ']' "
                                       "or without a reason after it; write "
                                       f"'{pattern}  # [NAME has VALUE] why it fails'.")
            when = parse_condition(condition, f"{source}:{number}")
        entries.append(Entry(pattern, reason, f"{source}:{number}", device, file=file, line=number, when=when))
    return entries


def load_file(path: str | Path, label: str | None = None) -> list[Entry]:
    """The entries of one file; ``label`` names it in messages (default: the path)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ExpectationError(f"cannot read expectation file {str(path)!r}: {e.strerror}.") from None
    return parse_lines(text.splitlines(), label or str(path), file=str(path))


def load(value: str, base: Path, bundled_folder: Path) -> list[Entry]:
    """The entries ``--ovconform-expectations value`` names (:func:`locate`); a bundled file is
    named in messages by its file name (``openvino-CPU.txt:12``), the same on every machine."""
    path = locate(value, base, bundled_folder)
    return load_file(path, path.name if path.parent == bundled_folder else value)


def bundled(folder: Path) -> dict[str, Path]:
    """The expectation files bundled in ``folder`` (the suites' ``expectations/``), by name."""
    return {p.stem: p for p in sorted(folder.glob("*.txt"))} if folder.is_dir() else {}


def locate(value: str, base: Path, bundled_folder: Path) -> Path:
    """The file ``--ovconform-expectations value`` means: a path (relative to ``base``, the folder
    pytest runs from), else the name of a bundled file (``openvino-CPU`` or ``openvino-CPU.txt``).

    :raises ExpectationError: naming the value, where it was looked for and the bundled names.
    """
    path = Path(value) if Path(value).is_absolute() else base / value
    if path.is_file():
        return path
    files = bundled(bundled_folder)
    name = value.removesuffix(".txt")
    if "/" not in value and "\\" not in value and name in files:
        return files[name]
    raise ExpectationError(f"--ovconform-expectations {value!r}: no such file (looked in {str(base)!r}) and no "
                           f"bundled expectation file of that name (bundled: {', '.join(files) or 'none'}).")


class Expectations:
    """The entries of one run: which test each entry marks, and which entries match nothing."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self._collected: set[str] = set()  # collected test ids without parameters
        self._modules: set[str] = set()  # test modules of the suites (paths inside the package)
        self.observed = False
        self.condition_errors: list[str] = []  # conditions a device could not answer

    @property
    def conditional(self) -> bool:
        return any(e.when for e in self.entries)

    def evaluate(self, device: str, read: Callable[[str], Any]) -> None:
        """Decide each conditioned entry for ``device``; ``read(name)`` gives the device's property
        (an error makes the condition false and is kept in :attr:`condition_errors`)."""
        values: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for entry in self.entries:
            if not entry.when or (entry.device is not None and entry.device.upper() != device.upper()):
                continue
            held = True
            for clause in entry.when:
                if clause.name not in values and clause.name not in errors:
                    try:
                        values[clause.name] = read(clause.name)
                    except Exception as e:  # noqa: BLE001 - any device error: the condition is unknown
                        errors[clause.name] = f"{type(e).__name__}: {e}"
                        self.condition_errors.append(
                            f"ovconform expectation condition: {device} cannot answer {clause.name} "
                            f"({errors[clause.name]}); the entries conditioned on it do not apply")
                held = held and clause.name in values and clause.holds(values[clause.name])
            entry.holds_on[device.upper()] = held

    def find(self, test_id: str, device: str | None = None) -> Entry | None:
        for e in self.entries:
            if e.needle in test_id and e.matches(test_id, device):  # the needle first: no call for most
                return e
        return None

    @staticmethod
    def xfail(entry: Entry) -> pytest.MarkDecorator:
        """The mark a test matching ``entry`` gets."""
        when = f" (when {entry.condition})" if entry.when else ""
        return pytest.mark.xfail(reason=f"{entry.reason}{when} [{entry.source}]", strict=not entry.flaky,
                                 run=not entry.crashes)

    def observe(self, collected: Iterable[tuple[str, str]], suite_modules: Iterable[str] = ()) -> None:
        """Record which entry each collected ``(test id, device)`` matches (the first that matches,
        as at marking), and the suites' test modules (to tell a misspelled module from one this run
        did not collect)."""
        for entry in self.entries:
            entry.matched.clear()
        self._collected = set()
        for test_id, device in collected:
            self._collected.add(test_id.split("[", 1)[0])
            found = self.find(test_id, device)
            if found is not None:
                found.matched.append(test_id)
        self._modules = set(suite_modules)
        self.observed = True

    def unmatched(self) -> list[tuple[Entry, str]]:
        """Entries that match no collected test, with what to say about each (see the module
        docstring); entries out of the run's scope are left out. Empty until :meth:`observe` ran."""
        if not self.observed:
            return []
        modules = {n.split("::", 1)[0] for n in self._collected}

        def seen(pattern: str, names: Iterable[str]) -> bool:
            return any(fnmatch.fnmatchcase(n, pattern) or fnmatch.fnmatchcase(n, pattern + "::*") for n in names)

        out = []
        for e in self.entries:
            if e.matched or (e.when and not any(e.holds_on.values())):  # matched, or out of this run's scope
                continue
            module, _, rest = e.pattern.partition("::")
            if not module.strip("*") and rest:  # "*::test_x?...": the test function decides
                function = "*::" + re.split(r"[?\[:]", rest, maxsplit=1)[0]
                if seen(function, self._collected):
                    out.append((e, "matches no collected test: stale entries should be removed"))
            elif seen(module, modules):
                out.append((e, "matches no collected test: stale entries should be removed"))
            elif not seen(module, self._modules):
                out.append((e, f"matches no collected test, and no test module of the suites or of this run matches "
                               f"{module!r} (a misspelled module?)"))
        return out

    def warnings(self) -> list[str]:
        """One line per :meth:`unmatched` entry, naming it, and per condition a device could not answer."""
        unmatched = [f"ovconform expectation {e.pattern!r} ({e.source}) {why}" for e, why in self.unmatched()]
        return self.condition_errors + unmatched

    def prune(self, statuses: dict[str, str]) -> dict[str, list[str]]:
        """Rewrite each file without the entries whose tests all passed (xpassed); ``statuses`` by
        test id. Returns the removed lines per file. Call only when nothing failed unexpectedly."""
        fixed = [e for e in self.entries if e.file is not None and e.matched and not e.flaky
                 and all(statuses.get(n) == "xpassed" for n in e.matched)]
        removed: dict[str, list[str]] = {}
        for path in sorted({str(e.file) for e in fixed}):
            lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
            drop = {e.line for e in fixed if e.file == path}
            removed[path] = [lines[i - 1].rstrip("\n") for i in sorted(drop)]
            Path(path).write_text("".join(ln for i, ln in enumerate(lines, 1) if i not in drop), encoding="utf-8")
        return removed
