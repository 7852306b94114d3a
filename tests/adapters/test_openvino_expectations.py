"""The bundled OpenVINO CPU expectations (``suites/expectations/openvino-CPU.txt``) against the
tests the suites collect for ``--plugin=openvino:CPU`` at the default depth.

A run names an entry that matches no test only when it runs tests (a collect-only run writes no
report and says nothing), so these tests match the entries against the collected test ids
themselves: every entry marks at least one test (a misspelled op, label or test name, or a case
that no longer exists, marks none), and an op-suite entry marks the tests of one case only (one
op version and label), so it cannot hide a regression of another case.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from _paths import REPO

pytest.importorskip("openvino")

from ovconform.host.expectations import Entry, Expectations, load_file, parse_lines  # noqa: E402
from ovconform.reports.collection import stable_id_from_nodeid  # noqa: E402

pytestmark = [pytest.mark.openvino]
CPU = "openvino-CPU"
EXPECTATIONS = REPO / "suites" / "expectations" / "openvino-CPU.txt"
#: A -m expression that selects every test and names the opt-in markers, so nothing is deselected.
EVERYTHING = "perf or graphfuzz or not (perf or graphfuzz)"
OP_TESTS = ("test_op_implemented", "test_op_query_model", "test_op_inference", "test_op_import_export")


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The stable ids of every test ``pytest --plugin=openvino:CPU`` collects (all suites, the full
    model tier: entries name full-tier architectures), the opt-in ``perf`` and ``graphfuzz`` tests
    included (a run deselects them, and deselected tests count as collected when entries are matched)."""
    folder = tmp_path_factory.mktemp("collect")
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
                           "-p", "no:cacheprovider", "--plugin=openvino:CPU", "-m", EVERYTHING,
                           "--ovconform-models", "full"],
                          cwd=folder, capture_output=True, text=True, timeout=500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ids = [stable_id_from_nodeid(line.strip(), folder) for line in proc.stdout.splitlines() if "::" in line]
    assert len(ids) > 1000, proc.stdout[-2000:]
    return ids


def marked(entries: list[Entry], ids: list[str]) -> Expectations:
    """``entries`` matched against ``ids`` as a run matches them (each test by its first entry). An
    entry conditioned on the device's properties (an ISA-dependent one) is taken as holding: each
    must still mark a test on a machine where it applies."""
    for entry in entries:
        if entry.when:
            entry.holds_on[CPU.upper()] = True
    expectations = Expectations(entries)
    expectations.observe([(i, CPU) for i in ids])
    return expectations


def marking_nothing(expectations: Expectations) -> list[str]:
    return [f"{e.source}: {e.pattern}" for e in expectations.entries if not e.matched]


def case_of(test_id: str) -> tuple[str, str] | None:
    """``(test function, case)`` of an op-suite test id (``Relu-1-special-f32`` for
    ``test_op_conformance.py::test_op_inference[Relu-1-special-f32-openvino-CPU]``), else None."""
    name = test_id.rpartition("::")[2]
    function, _, param = name.partition("[")
    if function not in OP_TESTS or not param.endswith(f"-{CPU}]"):
        return None
    return function, param[: -len(f"-{CPU}]")]


def wider_than_one_case(expectations: Expectations) -> list[str]:
    """Op-suite entries that mark tests of more than one case (op version and label)."""
    out = []
    for e in expectations.entries:
        cases = {c[1] for c in map(case_of, e.matched) if c is not None}
        if len(cases) > 1:
            out.append(f"{e.source}: {e.pattern} marks {len(cases)} cases, e.g. {sorted(cases)[:3]}")
    return out


def test_every_entry_marks_a_collected_test(collected: list[str]) -> None:
    """Entries conditioned on ``[ovconform-depth is exhaustive]`` name stimulus cases only that depth
    runs: each must name one that exists there and not at the default depth (collected here)."""
    import re

    from ovconform.host.expectations import DEPTH_CLAUSE
    from ovconform.opcases.depth import Depth
    from ovconform.opcases.stimulus import stimuli

    entries = load_file(EXPECTATIONS)
    assert entries and all(e.reason for e in entries)
    deep = [e for e in entries if any(c.name == DEPTH_CLAUSE for c in e.when)]
    assert marking_nothing(marked([e for e in entries if e not in deep], collected)) == []
    wrong = []
    for e in deep:
        m = re.fullmatch(r"\*::test_op_\w+\?([A-Za-z0-9]+)-(\d+)-(.+)-\*", e.pattern)
        exhaustive, standard = (({s.label for s in stimuli(m.group(1), int(m.group(2)), d)}
                                  for d in (Depth.EXHAUSTIVE, Depth.STANDARD)) if m else (set(), set()))
        if m is None or m.group(3) not in exhaustive or m.group(3) in standard:
            wrong.append(f"{e.source}: {e.pattern}")
    assert deep and wrong == []


def test_op_entries_mark_one_case_each(collected: list[str]) -> None:
    assert wider_than_one_case(marked(load_file(EXPECTATIONS), collected)) == []


def test_the_checks_catch_misspelled_stale_and_wide_entries(collected: list[str]) -> None:
    """The two checks above fail on a bad entry: a misspelled label, a case that does not exist,
    a test name that does not exist, an entry shadowed by an earlier one, and a label wildcard."""
    some_case = next(c for c in map(case_of, collected) if c is not None and c[0] == "test_op_inference")[1]
    op_version = "-".join(some_case.split("-")[:2])
    lines = [f"*::test_op_inference?{some_case}-*  # a real case",
             "*::test_op_inference?Relu-1-special-f33-*  # misspelled label",
             "*::test_op_inference?Relu-1-case99-*  # a case that does not exist",
             "*test_plugin_version.py::test_no_such_test  # a test that does not exist",
             f"*::test_op_inference?{some_case}-*  # the same entry again: shadowed, marks nothing",
             f"*::test_op_i*?{op_version}-*  # every case of an op version"]
    expectations = marked(parse_lines(lines, "bad.txt"), collected)
    assert [s.split(": ", 1)[0] for s in marking_nothing(expectations)] == ["bad.txt:2", "bad.txt:3", "bad.txt:4",
                                                                          "bad.txt:5"]
    wide = wider_than_one_case(expectations)
    assert len(wide) == 1 and wide[0].startswith("bad.txt:6:"), wide


def test_case_of_reads_op_suite_ids() -> None:
    assert case_of(f"test_op_conformance.py::test_op_inference[Relu-1-special-f32-{CPU}]") == \
        ("test_op_inference", "Relu-1-special-f32")
    assert case_of(f"test_plugin_version.py::test_version[{CPU}]") is None
    assert case_of("test_op_conformance.py::test_op_inference[Relu-1-case0-REFERENCE]") is None

