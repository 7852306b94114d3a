"""The op coverage table behind ``ovconform ops``: per op type of opset1..opset16, its versions, which
of them the IR and REFERENCE implement, which are cross-checked against OpenVINO CPU, and notes.

A version counts as **implemented** when the op-definition table knows it (builder, validation,
shape inference, IR v11 read/write) and REFERENCE resolves a kernel for it. It counts as
**cross-checked** when it has a case strategy: ``tests/reference/test_crosscheck_openvino.py``
runs every case strategy against OpenVINO CPU (50 cases per version in CI) and fails when a kernel
has none. With ``--junit FILE`` (the JUnit XML of such a run) the table shows the cases each
version passed, from that run's recorded properties.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ovconform.errors import OVConformError, ValidationError
from ovconform.ir.opset_table import LATEST_OPSET, OPSET_VERSIONS

#: Op types with no REFERENCE kernel by decision, and why.
NOT_PLANNED: dict[str, str] = {
    "StringTensorPack": "string tensors: ovconform's element types have no string type (numeric tensors only)",
    "StringTensorUnpack": "string tensors: ovconform's element types have no string type (numeric tensors only)",
}
#: Op types not implemented yet, and what stands in the way.
NOT_YET: dict[str, str] = {
    "BinaryConvolution": "not yet: needs the u1 (packed bit) element type in the IR",
    **dict.fromkeys(("If", "Loop", "TensorIterator"),
                    "not yet: needs sub-graph bodies (port maps, back edges) in the IR reader and writer"),
    **dict.fromkeys(("MatrixNms", "MulticlassNms", "NMSRotated", "GenerateProposals"), "not yet"),
}
#: Notes shown next to an op (how it is checked, known OpenVINO quirks).
NOTES: dict[str, str] = {
    "RandomUniform": "random: the spec's Philox4x32-10 / MT19937 streams bit for bit (equal to OpenVINO CPU for "
                     "f32/i32); also tested for determinism under a seed and by distribution; REFERENCE restarts "
                     "the stream at every inference",
    "Multinomial": "random: REFERENCE draws the uniform numbers with RandomUniform-8's Philox, as OpenVINO's "
                   "reference code does (the spec leaves the generator open); OpenVINO CPU uses std::mt19937, so "
                   "devices are checked on the samples (class indices in range, never a zero-probability class, no "
                   "repeat without replacement), not by value; also tested for determinism and by distribution; "
                   "OpenVINO CPU can repeat a class without replacement on skewed rows (a recorded deviation)",
    "LogicalXor": "OpenVINO writes version opset2 for it; it is in opset1 (we write opset1, OpenVINO reads it)",
}

_CROSSCHECK_TEST = "test_openvino_cpu_agrees_with_reference"
#: Ops present in every cross-checked case (no strategy of their own).
IN_EVERY_CASE = frozenset({"Parameter", "Constant", "Result"})


@dataclass
class OpCoverage:
    """One row: ``versions`` in opset1..16; ``implemented`` / ``cross_checked`` subsets of them."""

    op: str
    versions: tuple[int, ...]
    implemented: tuple[int, ...]
    cross_checked: tuple[int, ...]
    cases: dict[int, str] = field(default_factory=dict)
    notes: str = ""

    @property
    def complete(self) -> bool:
        """Every version implemented and cross-checked."""
        return set(self.versions) == set(self.implemented) == set(self.cross_checked)

    @property
    def status(self) -> str:
        if self.complete:
            return "yes"
        return "partial" if self.implemented else "no"


def _implemented(op: str, version: int) -> bool:
    import ovconform.opset  # noqa: F401 - fills the op-definition table
    from ovconform.ir import get_opdef
    from reference_plugin.ops import load_op

    try:
        get_opdef(op, version)
        kernel = load_op(op, version)
    except (OVConformError, KeyError):
        return False
    return kernel is not None


def coverage(junit: Mapping[tuple[str, int], str] | None = None) -> list[OpCoverage]:
    """The table's rows, one per op type of :data:`OPSET_VERSIONS`, in name order.

    :param junit: cases passed per (op, version), as :func:`read_junit` gives (optional).
    """
    from ovconform.opcases import all_case_keys

    keys = set(all_case_keys())
    rows = []
    for op, versions in sorted(OPSET_VERSIONS.items()):
        implemented = tuple(v for v in versions if _implemented(op, v))
        checked = tuple(v for v in implemented if (op, v) in keys or op in IN_EVERY_CASE)
        notes = [NOT_PLANNED.get(op, ""), NOT_YET.get(op, "") if not implemented else "", NOTES.get(op, ""),
                 "in every case" if op in IN_EVERY_CASE else ""]
        missing = [v for v in versions if v not in implemented]
        if implemented and missing:
            notes.append("missing versions: " + ", ".join(f"{op}-{v}" for v in missing))
        unchecked = [v for v in implemented if v not in checked]
        if unchecked:
            notes.append("no case strategy for: " + ", ".join(f"{op}-{v}" for v in unchecked))
        cases = {v: junit[(op, v)] for v in checked if junit and (op, v) in junit}
        rows.append(OpCoverage(op, versions, implemented, checked, cases, "; ".join(n for n in notes if n)))
    return rows


def read_junit(path: str | Path) -> dict[tuple[str, int], str]:
    """Cases checked per (op, version) from a JUnit XML of the OpenVINO cross-check
    (``pytest tests/reference/test_crosscheck_openvino.py --junitxml FILE``): ``"50/50"`` when all
    drawn cases agreed, ``"FAILED"`` for a failing version, ``"skipped: ..."`` when skipped.

    :raises OVConformError: when the file cannot be read or is not JUnit XML.
    """
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise OVConformError(f"cannot read the JUnit file {str(path)!r}: {e}") from None
    found: dict[tuple[str, int], str] = {}
    for case in root.iter("testcase"):
        name = case.get("name", "")
        if not name.startswith(_CROSSCHECK_TEST + "["):
            continue
        op, _, version = name[len(_CROSSCHECK_TEST) + 1:-1].rpartition("-")
        if not version.isdigit():
            continue
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        if case.find("failure") is not None or case.find("error") is not None:
            found[(op, int(version))] = "FAILED"
        elif case.find("skipped") is not None:
            found[(op, int(version))] = "skipped: " + (case.find("skipped").get("message") or "")[:60]
        else:
            found[(op, int(version))] = f"{props.get('cases_checked', '?')} cases agree"
    if not found:
        raise OVConformError(f"{str(path)!r} holds no {_CROSSCHECK_TEST} results; run "
                             "pytest tests/reference/test_crosscheck_openvino.py --junitxml FILE first.")
    return found


def summary(rows: Iterable[OpCoverage]) -> dict[str, int]:
    rows = list(rows)
    return {
        "op_types": len(rows),
        "implemented_all_versions": sum(1 for r in rows if set(r.implemented) == set(r.versions)),
        "implemented_some_versions": sum(1 for r in rows if r.implemented),
        "cross_checked_all_versions": sum(1 for r in rows if r.complete),
        "not_planned": sum(1 for r in rows if r.op in NOT_PLANNED),
    }


def _versions(vs: Iterable[int]) -> str:
    return ", ".join(map(str, vs)) or "-"


def _row(r: OpCoverage) -> list[str]:
    checked = _versions(r.cross_checked)
    if r.cases:
        checked = "; ".join(f"{v}: {r.cases[v]}" for v in r.cross_checked if v in r.cases)
    return [r.op, _versions(r.versions), r.status if r.implemented else "no", _versions(r.implemented), checked,
            r.notes]


HEADERS = ["op", f"versions (opset1..{LATEST_OPSET})", "implemented", "implemented versions",
           "cross-checked vs OpenVINO CPU", "notes"]


def render(rows: list[OpCoverage], fmt: str = "text", only_missing: bool = False) -> str:
    """The table as ``text`` (terminal), ``md`` (Markdown), ``csv`` or ``json``; the summary always
    counts every row, ``only_missing`` keeps the rows not complete."""
    shown = [r for r in rows if not (only_missing and r.complete)]
    if fmt == "json":
        return json.dumps({"summary": summary(rows), "ops": [asdict(r) for r in shown]}, indent=2) + "\n"
    table = [_row(r) for r in shown]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(HEADERS)
        writer.writerows(table)
        return buf.getvalue()
    from tabulate import tabulate

    s = summary(rows)
    head = (f"{s['implemented_all_versions']} of {s['op_types']} op types of opset1..{LATEST_OPSET} implemented "
            f"in every version ({s['implemented_some_versions']} in at least one); "
            f"{s['cross_checked_all_versions']} implemented and cross-checked in every version.")
    if fmt == "md":
        made = "`ovconform ops --format md`" + (
            " with `--junit` of a cross-check run (`pytest tests/reference/test_crosscheck_openvino.py --junitxml "
            "FILE`): the counts are cases of that run that agreed with OpenVINO CPU f32" if any(r.cases for r in rows)
            else "")
        return (f"# REFERENCE op coverage\n\nMade by {made}. {head}\n\n"
                + tabulate(table, headers=HEADERS, tablefmt="github") + "\n")
    if fmt == "text":
        return tabulate(table, headers=HEADERS) + "\n\n" + head + "\n"
    raise ValidationError(f"unknown table format {fmt!r}; allowed: text, md, csv, json.")


def run(args: Any) -> int:
    """``ovconform ops``: print (or write) the table; exit 0."""
    junit = read_junit(args.junit) if args.junit else None
    text = render(coverage(junit), args.format, only_missing=args.missing)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        print(text, end="")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("ops", help="print the op coverage table (op, versions, implemented, cross-checked, notes)")
    p.add_argument("--format", choices=("text", "md", "csv", "json"), default="text")
    p.add_argument("--junit", metavar="FILE", help="JUnit XML of a cross-check run: show the cases each version passed")
    p.add_argument("--missing", action="store_true", help="only ops not implemented and cross-checked in every version")
    p.add_argument("--output", "-o", metavar="PATH", help="write the table to PATH instead of printing it")
