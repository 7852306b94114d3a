"""Compare two conformance documents: status changes, new failures, fixes and pass-rate deltas.

Tests are matched by (device, test id: the record's ``nodeid``). Definitions (also in the README):

* good = passed or xfailed; bad = failed, error, crashed, hanged or xpassed; skipped is neither.
* **regression**: a test that was good in BASE and is bad in NEW.
* **new failure**: a test that is bad in NEW and was not bad in BASE (a regression, a skipped test
  that now runs and fails, or a test that is new and fails).
* **fixed**: a test that was bad in BASE and is good in NEW.
* **missing**: a test of BASE absent from NEW (reported; a gate only with ``--fail-on missing``).
* **not selected**: when NEW is a partial run (``run.partial``: ``-k``, ``-m``, test paths, ``--lf``,
  ...), a test of BASE absent from NEW is outside NEW's narrower selection, not missing; pass
  ``partial_as_missing`` (``--partial-as-missing``) to count it as missing all the same. The
  pass-rate deltas then compare NEW with BASE's records of the same tests.

Tests are matched by their stable test id (:mod:`ovconform.reports.collection`), so runs made
from different folders, installed or editable, with or without ``-n``, match test for test.

``ovconform report diff --fail-on KIND`` exits 1 when any change of that kind exists
(``regression``, ``new-failure`` or ``missing``; repeatable), 0 otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from ovconform.errors import ValidationError
from ovconform.reports import _doc
from ovconform.reports.conformance import fmt_rate

FAIL_ON = ("regression", "new-failure", "missing")


@dataclass
class Change:
    device: str
    nodeid: str
    before: str | None
    after: str | None
    message: str = ""


@dataclass
class RateDelta:
    device: str
    key: str  # entity name, "all", or "op:<type>-<version>"
    before: float | None
    after: float | None
    mandatory_before: float | None = None
    mandatory_after: float | None = None

    @property
    def delta(self) -> float | None:
        return None if self.before is None or self.after is None else round(self.after - self.before, 2)


@dataclass
class Diff:
    changed: list[Change] = field(default_factory=list)
    regressions: list[Change] = field(default_factory=list)
    new_failures: list[Change] = field(default_factory=list)
    fixed: list[Change] = field(default_factory=list)
    missing: list[Change] = field(default_factory=list)
    not_selected: list[Change] = field(default_factory=list)
    added: list[Change] = field(default_factory=list)
    rates: list[RateDelta] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)  # what NEW selected, when it is a partial run

    def fails(self, kinds: list[str]) -> bool:
        found = {"regression": self.regressions, "new-failure": self.new_failures, "missing": self.missing}
        return any(found[k] for k in kinds)

    def to_json(self) -> dict[str, Any]:
        def changes(items: list[Change]) -> list[dict[str, Any]]:
            return [vars(c) for c in items]

        return {"changed": changes(self.changed), "regressions": changes(self.regressions),
                "new_failures": changes(self.new_failures), "fixed": changes(self.fixed),
                "missing": changes(self.missing), "not_selected": changes(self.not_selected),
                "added": changes(self.added), "rates": [dict(vars(r), delta=r.delta) for r in self.rates],
                "new_is_partial": self.partial}


def diff(base: dict[str, Any], new: dict[str, Any], partial_as_missing: bool = False) -> Diff:
    """The differences from ``base`` to ``new`` (both validated documents); see the module docstring
    for a partial ``new``."""
    for label, doc in (("BASE", base), ("NEW", new)):
        if any(run.get("unfinished") for run in (doc["runs"] if "runs" in doc else [doc["run"]])):
            raise ValidationError(f"{label} is the report of a run that did not finish (run.unfinished: its process "
                                  "died before writing its results); `ovconform report rebuild <its report folder>` "
                                  "writes the results its journal kept.")
    before = {(r["device"], r["nodeid"]): r for r in base["records"]}
    after = {(r["device"], r["nodeid"]): r for r in new["records"]}
    narrower = _doc.is_partial(new) and not partial_as_missing
    out = Diff(partial=_doc.partial_runs(new))
    for key in sorted(before.keys() | after.keys()):
        b, a = before.get(key), after.get(key)
        change = Change(key[0], key[1], b and b["status"], a and a["status"], (a or {}).get("message", ""))
        if a is None:
            (out.not_selected if narrower else out.missing).append(change)
            continue
        if b is None:
            out.added.append(change)
        elif b["status"] != a["status"]:
            out.changed.append(change)
        was, now = change.before, change.after
        if was in _doc.GOOD and now in _doc.BAD:
            out.regressions.append(change)
        if now in _doc.BAD and was not in _doc.BAD:
            out.new_failures.append(change)
        if was in _doc.BAD and now in _doc.GOOD:
            out.fixed.append(change)
    if narrower:  # compare the rates over the tests NEW selected
        base = dict(base, records=[r for r in base["records"] if (r["device"], r["nodeid"]) in after])
    out.rates = _rates(base, new)
    return out


def _rates(base: dict[str, Any], new: dict[str, Any]) -> list[RateDelta]:
    def table(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
        rows = {(r["device"], r["entity"]): r for r in _doc.entity_table(doc)}
        rows.update({(r["device"], f"op:{r['op']}-{r['opset']}"): r for r in _doc.op_table(doc)})
        return rows

    tb, tn = table(base), table(new)
    out = []
    for key in sorted(tb.keys() | tn.keys()):
        b, n = tb.get(key, {}), tn.get(key, {})
        out.append(RateDelta(key[0], key[1], b.get("passrate"), n.get("passrate"), b.get("relative_passrate"),
                             n.get("relative_passrate")))
    return out


def render_text(d: Diff, fail_on: list[str] | None = None) -> str:
    """Human-readable diff for a terminal or CI log."""
    parts = []
    for title, items in (("REGRESSIONS", d.regressions), ("new failures", d.new_failures), ("fixed", d.fixed),
                         ("missing from NEW", d.missing), ("status changes", d.changed)):
        parts.append(f"{title}: {len(items)}")
        if items:
            rows = [[c.device, c.nodeid, c.before or "-", c.after or "-", c.message[:100]] for c in items]
            parts.append(tabulate(rows, headers=["device", "test", "before", "after", "message"]))
    if d.added:
        parts.append(f"new tests: {len(d.added)}")
    if d.partial:
        parts.append(f"NEW is a {'; '.join(d.partial)}")
    if d.not_selected:
        parts.append(f"not in NEW's narrower selection (not counted as missing; --partial-as-missing counts them): "
                     f"{len(d.not_selected)}")
    rows = [[r.device, r.key, fmt_rate(r.before), fmt_rate(r.after), _signed(r.delta),
             fmt_rate(r.mandatory_before), fmt_rate(r.mandatory_after)]
            for r in d.rates if _worth_showing(r)]
    parts.append("pass rates:")
    parts.append(tabulate(rows, headers=["device", "entity/op", "before", "after", "delta", "mandatory before",
                                         "mandatory after"], disable_numparse=True))
    if fail_on:
        verdict = "FAIL" if d.fails(fail_on) else "OK"
        parts.append(f"gate --fail-on {','.join(fail_on)}: {verdict}")
    return "\n".join(parts) + "\n"


def _worth_showing(r: RateDelta) -> bool:
    """Entity rows always; op rows only when a rate changed (there may be thousands)."""
    return not r.key.startswith("op:") or r.before != r.after or r.mandatory_before != r.mandatory_after


def _signed(delta: float | None) -> str:
    return "n/a" if delta is None else f"{delta:+.2f}"


def render_json(d: Diff) -> str:
    return json.dumps(d.to_json(), indent=1) + "\n"


__all__ = ["FAIL_ON", "Change", "Diff", "RateDelta", "diff", "render_json", "render_text"]
