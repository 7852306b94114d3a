"""The op table (``ovconform.ir.opset_table``) is OpenVINO's own opset table, and what ovconform lacks
of it is listed here, explicitly.

OpenVINO keeps one table per opset, ``include/openvino/opsets/opsetN_tbl.hpp`` (a line
``_OPENVINO_OP_REG(Reverse, ov::op::v1)`` per op; ``opset17`` holds only its new ops and Parameter,
Convert, ShapeOf), shipped in the openvino wheel. The test reads every such table of the installed
openvino (skipped without openvino; it is a ``test`` extra, so CI runs it), checks each entry
against the runtime (``NodeFactory("opsetN").create(name)`` makes that type), derives op type ->
versions (a version is the first opset holding its class) and compares with
:data:`~ovconform.ir.opset_table.OPSET_VERSIONS`. A future opset18, or any op the table misses
(as it once missed Reverse-1, Xor-1 and the five ExperimentalDetectron ops of opset6), fails here.

:data:`KNOWN_MISSING` lists every op version of the table that ovconform does not implement (no
op definition or no REFERENCE kernel). The test fails when one appears that is not listed and when
a listed one gets implemented: the list must shrink, never go stale. ``ovconform ops`` shows these
rows with status "no" (``ovconform ops --missing``).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from ovconform.ir.opset_table import LATEST_OPSET, OPSET_VERSIONS
from ovconform.opcases.coverage import NOT_PLANNED, NOT_YET, coverage

#: Op versions of OpenVINO's opset1..17 that ovconform does not implement, and why (issue #22).
KNOWN_MISSING: dict[tuple[str, int], str] = {
    # new in opset17 (OpenVINO 2026.x)
}

_REG = re.compile(r"^\s*_OPENVINO_OP_REG\(\s*(\w+)\s*,\s*([\w:]+)\s*\)", re.MULTILINE)


def _openvino_opset_dir() -> Path:
    ov = pytest.importorskip("openvino", reason="reading OpenVINO's opset tables needs openvino")
    folder = Path(ov.__file__).parent / "include" / "openvino" / "opsets"
    if not (folder / "opset1_tbl.hpp").is_file():
        pytest.fail(f"the installed openvino has no opset tables under {folder} (include/openvino/opsets/"
                    "opsetN_tbl.hpp); the table cannot be checked against it")
    return folder


def openvino_tables() -> dict[int, list[tuple[str, str]]]:
    """opset number -> its (op type, C++ namespace) entries, for every opsetN_tbl.hpp installed."""
    folder = _openvino_opset_dir()
    tables: dict[int, list[tuple[str, str]]] = {}
    n = 1
    while (path := folder / f"opset{n}_tbl.hpp").is_file():
        tables[n] = _REG.findall(path.read_text(encoding="utf-8"))
        n += 1
    return tables


def versions_from(tables: dict[int, list[tuple[str, str]]]) -> dict[str, tuple[int, ...]]:
    """Op type -> versions, a version being the first opset whose table holds its class."""
    first: dict[tuple[str, str], int] = {}
    for n in sorted(tables):
        for entry in tables[n]:
            first.setdefault(entry, n)
    found: dict[str, set[int]] = {}
    for (name, _), n in first.items():
        found.setdefault(name, set()).add(n)
    return {name: tuple(sorted(v)) for name, v in sorted(found.items())}


def test_the_tables_are_the_runtimes() -> None:
    """Every table entry is an op the runtime's NodeFactory of that opset makes (Constant, which it
    refuses to make without a value, aside), and nothing the header comments out is."""
    from openvino._pyopenvino import NodeFactory

    tables = openvino_tables()
    for n, entries in tables.items():
        factory = NodeFactory(f"opset{n}")
        for name, _ in entries:
            if name == "Constant":
                continue
            assert factory.create(name).get_type_info().name == name, f"opset{n} {name}"
    with pytest.raises(RuntimeError, match="Couldn't create operation: Reverse"):
        NodeFactory("opset2").create("Reverse")  # "// _OPENVINO_OP_REG(Reverse, ...)" in opset2_tbl.hpp


def test_opset_table_is_openvinos() -> None:
    tables = openvino_tables()
    assert max(tables) == LATEST_OPSET, (f"openvino has opset1..{max(tables)}; ovconform's table covers "
                                        f"opset1..{LATEST_OPSET}: regenerate ovconform/ir/opset_table.py")
    theirs = versions_from(tables)
    missing = {k: v for k, v in theirs.items() if OPSET_VERSIONS.get(k) != v}
    extra = {k: v for k, v in OPSET_VERSIONS.items() if k not in theirs}
    assert not missing and not extra, (f"op versions OpenVINO has that ovconform's table lacks or lists "
                                       f"differently: {missing}; not in OpenVINO: {extra}")
    assert OPSET_VERSIONS["ErfInv"] == OPSET_VERSIONS["GroupedMatMul"] == (17,)  # the opset17 additions
    assert OPSET_VERSIONS["Reverse"] == OPSET_VERSIONS["Xor"] == (1,)


def test_python_opset_modules_stop_where_the_tables_do() -> None:
    """``openvino.opsetN`` exists for every table and no further (a new opset shows up both ways)."""
    tables = openvino_tables()
    assert all(importlib.util.find_spec(f"openvino.opset{n}") is not None for n in tables)
    assert importlib.util.find_spec(f"openvino.opset{max(tables) + 1}") is None


def test_known_missing_is_exactly_what_is_not_implemented() -> None:
    """Runs without openvino too: the rows of ``ovconform ops`` that lack a version."""
    lacking = {(r.op, v) for r in coverage() for v in r.versions if v not in r.implemented}
    new = sorted(lacking - set(KNOWN_MISSING))
    done = sorted(set(KNOWN_MISSING) - lacking)
    assert not new, f"op versions not implemented and not in KNOWN_MISSING (implement them or list them): {new}"
    assert not done, f"implemented now: remove them from KNOWN_MISSING in {Path(__file__).name}: {done}"


def test_every_missing_op_says_why_in_ovconform_ops() -> None:
    rows = {r.op: r for r in coverage()}
    for op, _ in KNOWN_MISSING:
        assert rows[op].status in ("no", "partial") and (op in NOT_YET or op in NOT_PLANNED), op
        assert rows[op].notes, op
