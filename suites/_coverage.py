"""The OpenVINO behaviour-test coverage table: data in ``ov_behaviour_coverage.csv`` (next to this
file), rendered to Markdown.

Each row is one OpenVINO behaviour-test body (or a group of bodies, ``n`` of them) from
``src/tests/functional/plugin/shared/{include,src}/behavior/{ov_plugin,compiled_model,ov_infer_request}``,
or one requirement of the plugin developer guide (entity ``guide``), with its OpenVINO scope (M,
M(HW), O, -), the ovconform tests that check it (``module.py::test_function``, ``[...]`` for
parameters, ``test_prefix_*`` for every test whose name starts so, ``module.py`` or
``module.py::*`` for a whole module), a status — ``covered``,
``partial`` (the note says what is missing), ``missing`` or ``n/a`` (needs PrePostProcessor, a
meta plugin or several devices; left out of the percentage) — and a note.

Write the Markdown (``reports/coverage/openvino-behaviour.md`` by default)::

    python -m ovconform.suites._coverage [--out PATH] [--check]

``--check`` writes nothing and exits 1 when the file differs from what the data gives.
``tests/suites/test_behaviour_coverage.py`` checks that every listed test exists in the suites and
that the committed Markdown is up to date.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DATA", "ENTITIES", "STATUSES", "Row", "Totals", "load", "render", "referenced_tests", "totals"]

DATA = Path(__file__).with_name("ov_behaviour_coverage.csv")
ENTITIES = ("ov_plugin", "ov_compiled_model", "ov_infer_request", "guide")
STATUSES = ("covered", "partial", "missing", "n/a")
DEFAULT_OUT = Path("reports") / "coverage" / "openvino-behaviour.md"
_TEST = re.compile(r"^(test_\w+\.py)(?:::(\*|test_\w+\*?)(\[[^\]]*\])?)?$")
_TITLES = {"ov_plugin": "Plugin / Core (`ov_plugin`)", "ov_compiled_model": "Compiled model (`ov_compiled_model`)",
           "ov_infer_request": "Infer request (`ov_infer_request`)",
           "guide": "Developer-guide requirements (the seeds)"}


@dataclass(frozen=True)
class Row:
    """One OpenVINO body (or group of ``n`` bodies) or guide requirement."""

    entity: str
    openvino: str
    n: int
    scope: str
    tests: tuple[str, ...]
    status: str
    note: str


@dataclass(frozen=True)
class Totals:
    """Body counts per status."""

    counts: dict[str, int]

    @property
    def applicable(self) -> int:
        return sum(v for k, v in self.counts.items() if k != "n/a")

    @property
    def covered_share(self) -> float:
        return self.counts["covered"] / self.applicable if self.applicable else 1.0


def load(path: Path = DATA) -> list[Row]:
    """The rows of the CSV; a malformed row raises ValueError naming its line and what is wrong."""
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for line, record in enumerate(csv.DictReader(f), 2):
            where = f"{path.name} line {line}"
            if record["entity"] not in ENTITIES:
                raise ValueError(f"{where}: entity {record['entity']!r} is not one of {ENTITIES}")
            if record["status"] not in STATUSES:
                raise ValueError(f"{where}: status {record['status']!r} is not one of {STATUSES}")
            tests = tuple(record["tests"].split())
            for test in tests:
                if not _TEST.match(test):
                    raise ValueError(f"{where}: test {test!r} is not 'module.py', 'module.py::*' or "
                                     "'module.py::test_name[params]'")
            if record["status"] in ("covered", "partial") and not tests:
                raise ValueError(f"{where}: a {record['status']} row names no test")
            rows.append(Row(record["entity"], record["openvino"], int(record["n"]), record["scope"], tests,
                            record["status"], record["note"]))
    return rows


def referenced_tests(rows: Sequence[Row]) -> set[tuple[str, str | None]]:
    """``(module file, test function or None)`` for every test the rows name (a function name
    ending in ``*`` stands for the functions it starts)."""
    refs: set[tuple[str, str | None]] = set()
    for row in rows:
        for test in row.tests:
            m = _TEST.match(test)
            assert m is not None  # load() checked the form
            refs.add((m.group(1), None if m.group(2) in (None, "*") else m.group(2)))
    return refs


def totals(rows: Sequence[Row], entities: Sequence[str]) -> Totals:
    counts = dict.fromkeys(STATUSES, 0)
    for row in rows:
        if row.entity in entities:
            counts[row.status] += row.n
    return Totals(counts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _tests(row: Row) -> str:
    return "<br>".join(f"`{t}`" for t in row.tests) or "–"


def render(rows: Sequence[Row]) -> str:
    """The Markdown page."""
    bodies = ENTITIES[:3]
    out = ["# OpenVINO behaviour tests vs ovconform's API suites", "",
           "Generated by `python -m ovconform.suites._coverage` from `suites/ov_behaviour_coverage.csv`; "
           "do not edit by hand. Each row is an OpenVINO behaviour-test body (or `n` bodies) of "
           "`src/tests/functional/plugin/shared/{include,src}/behavior/{ov_plugin,compiled_model,ov_infer_request}`, "
           "or a requirement of the plugin developer guide, with the ovconform tests that check it. "
           "`n/a` rows (PrePostProcessor, meta plugins, several devices) are left out of the percentages. "
           "`tests/suites/test_behaviour_coverage.py` fails when a listed test no longer exists.", "",
           "| entity | covered | partial | missing | n/a | bodies | covered of applicable |",
           "|---|---|---|---|---|---|---|"]
    groups = [*((e, (e,)) for e in bodies), ("**all bodies**", bodies), ("guide requirements", ("guide",))]
    for label, entities in groups:
        t = totals(rows, entities)
        out.append(f"| {label} | {t.counts['covered']} | {t.counts['partial']} | {t.counts['missing']} | "
                   f"{t.counts['n/a']} | {sum(t.counts.values())} | {t.counts['covered']}/{t.applicable} "
                   f"({100 * t.covered_share:.1f} %) |")
    everything = totals(rows, bodies)
    at_least = everything.counts["covered"] + everything.counts["partial"]
    out += ["", f"Of the {everything.applicable} applicable OpenVINO bodies, {everything.counts['covered']} are "
            f"covered ({100 * everything.covered_share:.1f} %) and {at_least} at least partly "
            f"({100 * at_least / everything.applicable:.1f} %). The missing ones are, by count: "
            + _missing_summary(rows, bodies) + "."]
    for entity in ENTITIES:
        out += ["", f"## {_TITLES[entity]}", "", "| OpenVINO body | n | OV scope | ovconform test(s) | status | note |",
                "|---|---|---|---|---|---|"]
        out += [f"| {_cell(r.openvino)} | {r.n} | {r.scope} | {_tests(r)} | {r.status} | {_cell(r.note)} |"
                for r in rows if r.entity == entity]
    return "\n".join(out) + "\n"


def _missing_summary(rows: Sequence[Row], entities: Sequence[str]) -> str:
    missing = sorted(((r.n, r.openvino.split("(")[0].strip()) for r in rows
                      if r.entity in entities and r.status == "missing"), reverse=True)
    return "; ".join(f"{name} ({n})" for n, name in missing) or "none"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ovconform.suites._coverage", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"Markdown file (default {DEFAULT_OUT})")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file is out of date")
    args = parser.parse_args(argv)
    text = render(load())
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run python -m ovconform.suites._coverage", file=sys.stderr)
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    t = totals(load(), ENTITIES[:3])
    print(f"wrote {args.out}: {t.counts['covered']}/{t.applicable} applicable OpenVINO bodies covered "
          f"({100 * t.covered_share:.1f} %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
