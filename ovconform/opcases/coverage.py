"""The op coverage table behind ``ovconform ops``: per op type of OpenVINO's opset1..opset17 tables
(:data:`ovconform.ir.opset_table.OPSET_VERSIONS`, kept equal to the installed OpenVINO's own tables by
``tests/ir/test_openvino_opset_table.py``), its versions, which of them the IR and REFERENCE implement,
which are cross-checked against OpenVINO CPU, and notes. An op type OpenVINO has and ovconform lacks is
a row with status "no" (``ovconform ops --missing`` lists only those and the partial ones).

A version counts as **implemented** when the op-definition table knows it (builder, validation,
shape inference, IR v11 read/write) and REFERENCE resolves a kernel for it. It counts as
**cross-checked** when it has a case strategy: ``tests/reference/test_crosscheck_openvino.py``
runs every case strategy against OpenVINO CPU (25 cases per version in CI, 50 for the committed
table) and fails when a kernel has none. With ``--junit FILE`` (the JUnit XML of such a run) the
table shows the cases each version passed, from that run's recorded properties.

``ovconform ops --stimulus`` prints, per op version, what the op suite feeds it at a depth: the
size classes, value classes and element types of its cases and its dynamic cases
(:func:`stimulus_rows`; :mod:`ovconform.opcases.stimulus`). ``reports/ops/stimulus.md`` is made
by ``ovconform ops --stimulus --format md -o reports/ops/stimulus.md``.

``ovconform ops --report conformance.json`` shows a device's op coverage from a conformance
report (:func:`device_coverage`): per op version whether the device implements it (its
query_model declares it: the Implemented tests pass, as in OpenVINO's op table) and how many
Inference cases pass. An op version the device does not implement counts against its coverage;
a device whose query_model declares nothing has op coverage 0 %, not n/a.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ovconform.errors import OVConformError, ValidationError
from ovconform.ir.opset_table import LATEST_OPSET, OPSET_VERSIONS

if TYPE_CHECKING:
    from ovconform.opcases import OpCase

#: Op types with no REFERENCE kernel by decision, and why.
NOT_PLANNED: dict[str, str] = {
}
#: Op types not implemented yet, and what stands in the way.
NOT_YET: dict[str, str] = {
}
#: Notes shown next to an op (how it is checked, known OpenVINO quirks).
NOTES: dict[str, str] = {
    "BinaryConvolution": "OpenVINO CPU reads the u1 filter bits in another order (a recorded deviation) and OpenVINO "
                         "has no evaluate() for it: checked against CPU's Convolution of 2x-1 and 2w-1 "
                         "(tests/ops/test_opset_completion.py)",
    "GroupedMatMul": "OpenVINO 2026.4's form: mat_b [G, N, K], 2D x 3D with offsets or 3D x 3D; CPU runs only "
                     "f32/f16 with constant weights (the rest a recorded refusal)",
    "RGBtoNV12": "OpenVINO CPU has no kernel and no evaluate() (a recorded refusal): checked against CPU running "
                 "the spec's formulas with AvgPool (tests/ops/test_opset_completion.py)",
    "BGRtoNV12": "as RGBtoNV12 (a recorded refusal; checked against CPU running the formulas)",
    "StringTensorPack": "cases draw no empty string: OpenVINO CPU packs one from stale memory (not reproducible)",
    "RandomUniform": "random: the spec's Philox4x32-10 / MT19937 streams bit for bit (equal to OpenVINO CPU for "
                     "f32/i32); also tested for determinism under a seed and by distribution; REFERENCE restarts "
                     "the stream at every inference",
    "Multinomial": "random: REFERENCE draws the uniform numbers with RandomUniform-8's Philox, as OpenVINO's "
                   "reference code does (the spec leaves the generator open); OpenVINO CPU uses std::mt19937, so "
                   "devices are checked on the samples (class indices in range, never a zero-probability class, no "
                   "repeat without replacement), not by value; also tested for determinism and by distribution; "
                   "OpenVINO CPU can repeat a class without replacement on skewed rows (a recorded deviation)",
    "LogicalXor": "OpenVINO writes version opset2 for it; it is in opset1 (we write opset1, OpenVINO reads it)",
    "Xor": "opset1 only (ov::op::v0::Xor, LogicalXor's older form); no builder in OpenVINO's Python API",
    "Reverse": "opset1 only; no builder in OpenVINO's Python API (its ONNX frontend emits it for ArgMax/ArgMin "
               "with select_last_index)",
    "ErfInv": "OpenVINO CPU approximates it inside (-1, 1) (relative error up to ~1e-4, ~5e-3 near ±1; a recorded "
              "deviation): its cases of the spec's special inputs are compared with CPU, the others skipped",
    "GenerateProposals": "nms_eta other than 1: OpenVINO refuses the model (a recorded deviation); REFERENCE adapts "
                         "the NMS threshold as the spec says",
    "ExperimentalDetectronDetectionOutput": "OpenVINO CPU never returns the background class 0 and clips boxes only at "
                                            "0 (recorded deviations: the spec keeps class 0 when "
                                            "class_agnostic_box_regression is false and clips to the image)",
    "ExperimentalDetectronGenerateProposalsSingleImage": "OpenVINO CPU zeroes the score of a box below min_size "
                                                         "instead of removing it (a recorded deviation)",
    "MatrixNms": "sort_result_type classid per image: OpenVINO CPU keeps score order (a recorded deviation); cases "
                 "never draw 'none' (no order to compare)",
    "MulticlassNms": "OpenVINO CPU suppresses at an IoU equal to the threshold and, with nms_eta < 1, under the "
                     "threshold lowered by later selections (recorded deviations); cases never draw "
                     "sort_result_type 'none'",
    "NMSRotated": "OpenVINO CPU drops a score equal to score_threshold (a recorded deviation); REFERENCE's rotated "
                  "IoU is the spec's polygon construction, tested against polygon clipping",
    "Loop": "OpenVINO CPU needs each iteration's concatenated value to be 1 wide along the axis (cases keep to it); "
            "trip count -1 with a body condition, do-while and a false execution condition are drawn",
    "ReduceMin": "over no elements: +inf for floats, as OpenVINO's reference code (OpenVINO CPU gives f32's largest "
                 "finite value; a recorded deviation)",
}

_CROSSCHECK_TEST = "test_openvino_cpu_agrees_with_reference"
#: Ops present in every cross-checked case (no strategy of their own).
IN_EVERY_CASE = frozenset({"Parameter", "Constant", "Result"})


@dataclass
class OpCoverage:
    """One row: ``versions`` in opset1..17; ``implemented`` / ``cross_checked`` subsets of them."""

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
        elif (skipped := case.find("skipped")) is not None:
            found[(op, int(version))] = "skipped: " + (skipped.get("message") or "")[:60]
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


# -- what the op suite feeds each op version (issue #20) ---------------------------------------------------

@dataclass
class StimulusRow:
    """One op version's cases at a depth: their count and classes."""

    op: str
    version: int
    generated: int
    stimulus: int
    size_classes: tuple[str, ...]
    value_classes: tuple[str, ...]
    element_types: tuple[str, ...]
    dynamic: int
    dynamic_shapes: int

    @property
    def dynamic_text(self) -> str:
        if not self.dynamic:
            return "-"
        return f"{self.dynamic} ({self.dynamic_shapes} shape{'s' if self.dynamic_shapes != 1 else ''} each)"


_SIZE_ORDER = ("tiny", "remainder", "large")
_VALUE_ORDER = ("ordinary", "large-magnitude", "long-reduction", "cancellation", "special", "int-boundary")
_TYPE_ORDER = ("f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "boolean")


def _ordered(values: set[str], order: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(values, key=lambda v: (order.index(v) if v in order else len(order), v)))


def _generated_facts(case: OpCase) -> tuple[set[str], bool, bool]:
    """(element types, has a NaN/inf input, has a dynamic Parameter) of a generated case."""
    import numpy as np

    from ovconform.ir import Node, constant_value

    nodes = [n for n in case.model.get_ordered_ops() if n.type_name == case.op_type]
    types: set[str] = set()
    for node in nodes:
        types.update(node.get_input_element_type(i).name for i in range(node.get_input_size()))
        types.update(node.get_output_element_type(i).name for i in range(node.get_output_size()))
    arrays = list(case.inputs.values()) + [constant_value(n.output(0)) for n in case.model.get_ordered_ops()
                                           if isinstance(n, Node) and n.type_name == "Constant"]
    special = any(a is not None and np.asarray(a).dtype.kind == "f" and not np.isfinite(np.asarray(a)).all()
                  for a in arrays)
    dynamic = any(p.get_output_partial_shape(0).is_dynamic for p in case.model.get_parameters())
    return types, special, dynamic


def stimulus_rows(depth: Any = "standard", examples: int | None = None) -> list[StimulusRow]:
    """Per op version with a case strategy: the generated cases (``examples``, default the depth's)
    and the stimulus cases ``depth`` runs, with their size classes, value classes, element types
    and dynamic cases. Generated cases are of the tiny size class; their element types and special
    values come from the cases themselves (drawn as the op suite draws them)."""
    from ovconform.opcases import all_case_keys, generate_cases
    from ovconform.opcases.depth import DEFAULT_EXAMPLES, parse_depth
    from ovconform.opcases.stimulus import stimuli

    d = parse_depth(depth, "depth")
    n = examples or DEFAULT_EXAMPLES[d]
    rows = []
    for op, version in all_case_keys():
        sizes, values, types = {"tiny"}, {"ordinary"}, set()
        dynamic = shapes = 0
        generated = generate_cases(op, version, n)
        for case in generated:
            case_types, special, is_dynamic = _generated_facts(case)
            types |= case_types
            if special:
                values.add("special")
            if is_dynamic:
                dynamic, shapes = dynamic + 1, max(shapes, 1)
        stims = stimuli(op, version, d) if d > 0 else []
        for s in stims:
            sizes.add(s.size)
            values.add(s.values)
            types.add(s.element_type.name)
            if s.dynamic:
                dynamic, shapes = dynamic + 1, max(shapes, 3)
        rows.append(StimulusRow(op, version, len(generated), len(stims), _ordered(sizes, _SIZE_ORDER),
                                _ordered(values, _VALUE_ORDER), _ordered(types, _TYPE_ORDER), dynamic, shapes))
    return rows


STIMULUS_HEADERS = ["op", "version", "cases (generated + stimulus)", "size classes", "value classes", "element types",
                    "dynamic cases"]


def render_stimulus(rows: list[StimulusRow], fmt: str = "text", depth: str = "standard") -> str:
    """The per-op-version stimulus table as ``text``, ``md``, ``csv`` or ``json``."""
    if fmt == "json":
        return json.dumps({"depth": depth, "op_versions": [asdict(r) for r in rows]}, indent=2) + "\n"
    table = [[r.op, r.version, f"{r.generated} + {r.stimulus}", ", ".join(r.size_classes), ", ".join(r.value_classes),
              ", ".join(r.element_types), r.dynamic_text] for r in rows]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(STIMULUS_HEADERS)
        writer.writerows(table)
        return buf.getvalue()
    from tabulate import tabulate

    with_stimulus = sum(1 for r in rows if r.stimulus)
    head = (f"{len(rows)} op versions with a case strategy; {with_stimulus} with stimulus cases at depth {depth} "
            f"({sum(r.generated for r in rows)} generated + {sum(r.stimulus for r in rows)} stimulus cases).")
    if fmt == "md":
        return ("# What the op suite feeds each op version\n\n"
                f"Made by `ovconform ops --stimulus --format md --depth {depth}`. {head} Size classes: tiny (the "
                "generated cases), remainder (an axis of 7..129 elements, one short of or past a vector/tile width), "
                "large (>= 64K elements, K or channels >= 256, 56x56 spatial). Value classes: see "
                "`ovconform.opcases.stimulus`. A dynamic case of the stimulus compiles once and infers 3 shapes on one "
                "request.\n\n" + tabulate(table, headers=STIMULUS_HEADERS, tablefmt="github") + "\n")
    if fmt == "text":
        return tabulate(table, headers=STIMULUS_HEADERS) + "\n\n" + head + "\n"
    raise ValidationError(f"unknown table format {fmt!r}; allowed: text, md, csv, json.")


# -- a device's op coverage from its conformance report (issue #20 item 6) --------------------------------------

@dataclass
class DeviceOpRow:
    """One op version in a device's conformance report."""

    op: str
    version: int
    implemented_passed: int
    implemented_ran: int
    inference_passed: int
    inference_ran: int

    @property
    def implemented(self) -> bool:
        """The device implements the op version: its query_model declares it (an Implemented test passes)."""
        return self.implemented_passed > 0

    @property
    def complete(self) -> bool:
        """Implemented, and every Inference case that ran passed."""
        return self.implemented and self.inference_passed == self.inference_ran


def device_coverage(doc: Mapping[str, Any]) -> tuple[list[DeviceOpRow], dict[str, Any]]:
    """Rows per op version from a conformance report's op records, and the coverage summary:
    ``implemented_percent`` (op versions implemented / op versions tested) and ``complete_percent``
    (implemented with every Inference case passing / tested). A device that implements nothing has
    0.0 %, never None, as long as any op was tested.

    :raises ValidationError: when ``doc`` is not a conformance report with records.
    """
    records = doc.get("records") if isinstance(doc, Mapping) else None
    if not isinstance(records, list):
        raise ValidationError("the document is not an ovconform conformance report (no 'records' list).")
    counts: dict[tuple[str, int], list[int]] = {}
    for r in records:
        facts = r.get("facts") or {}
        if r.get("entity") != "op" or "op_type" not in facts or "sub_entity" not in facts:
            continue
        key = (str(facts["op_type"]), int(facts["version"]))
        c = counts.setdefault(key, [0, 0, 0, 0])
        ran, passed = r.get("status") not in ("skipped", "xfailed"), r.get("status") in ("passed", "xpassed")
        if facts["sub_entity"] == "Implemented":
            c[0], c[1] = c[0] + passed, c[1] + ran
        elif facts["sub_entity"] == "Inference":
            c[2], c[3] = c[2] + passed, c[3] + ran
    rows = [DeviceOpRow(op, v, *c) for (op, v), c in sorted(counts.items())]
    tested = len(rows)

    def percent(n: int) -> float | None:
        return None if tested == 0 else round(100.0 * n / tested, 2)

    implemented = sum(1 for r in rows if r.implemented)
    complete = sum(1 for r in rows if r.complete)
    device = doc.get("device")
    name = device.get("name") if isinstance(device, Mapping) else device
    return rows, {"device": name, "op_versions": tested, "implemented": implemented, "complete": complete,
                  "implemented_percent": percent(implemented), "complete_percent": percent(complete)}


DEVICE_HEADERS = ["op", "version", "implemented", "Implemented passed", "Inference passed"]


def render_device(rows: list[DeviceOpRow], summary: Mapping[str, Any], fmt: str = "text") -> str:
    """A device's op coverage table (``text``, ``md``, ``csv`` or ``json``)."""
    if fmt == "json":
        return json.dumps({"summary": dict(summary), "ops": [asdict(r) for r in rows]}, indent=2) + "\n"
    table = [[r.op, r.version, "yes" if r.implemented else "not implemented",
              f"{r.implemented_passed}/{r.implemented_ran}", f"{r.inference_passed}/{r.inference_ran}"] for r in rows]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(DEVICE_HEADERS)
        writer.writerows(table)
        return buf.getvalue()
    from tabulate import tabulate

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.2f} %"

    head = (f"{summary['device']}: op coverage {pct(summary['implemented_percent'])} ({summary['implemented']} of "
            f"{summary['op_versions']} op versions implemented); {pct(summary['complete_percent'])} implemented with "
            f"every Inference case passing ({summary['complete']}).")
    if fmt == "md":
        return f"# Op coverage\n\n{head}\n\n" + tabulate(table, headers=DEVICE_HEADERS, tablefmt="github") + "\n"
    if fmt == "text":
        return tabulate(table, headers=DEVICE_HEADERS) + "\n\n" + head + "\n"
    raise ValidationError(f"unknown table format {fmt!r}; allowed: text, md, csv, json.")


def _read_report(path: str | Path) -> Mapping[str, Any]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValidationError(f"cannot read the conformance report {str(path)!r}: {e}") from None
    if not isinstance(doc, Mapping):
        raise ValidationError(f"{str(path)!r} is not a conformance report (a JSON object with records).")
    return doc


def run(args: Any) -> int:
    """``ovconform ops``: print (or write) the table; exit 0."""
    if getattr(args, "report", None):
        text = render_device(*device_coverage(_read_report(args.report)), args.format)
    elif getattr(args, "stimulus", False):
        text = render_stimulus(stimulus_rows(args.depth), args.format, args.depth)
    else:
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
    p.add_argument("--stimulus", action="store_true",
                   help="per op version: the size classes, value classes, element types and dynamic cases the op "
                        "suite feeds it at --depth")
    p.add_argument("--depth", choices=("quick", "standard", "exhaustive"), default="standard",
                   help="the op suite depth of --stimulus (default standard)")
    p.add_argument("--report", metavar="FILE",
                   help="a device's conformance.json: its op coverage (implemented = declared by query_model)")
    p.add_argument("--output", "-o", metavar="PATH", help="write the table to PATH instead of printing it")
