"""Expectation entries conditioned on the device's properties (``# [NAME has VALUE] reason``): an
entry applies only where its condition holds, so one bundled file is true on every CPU a device
runs on (OpenVINO CPU computes f16 natively only where the ISA has it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _session import fake_device_module

from ovconform.errors import ExpectationError
from ovconform.host.expectations import Expectations, parse_lines

pytest_plugins = ["pytester"]

PROPS = {"OPTIMIZATION_CAPABILITIES": ["FP32", "BF16", "INT8"], "DEVICE_ARCHITECTURE": "intel64"}


def _read(props: dict[str, Any]) -> Any:
    def read(name: str) -> Any:
        if name not in props:
            raise KeyError(f"Unsupported property {name}")
        return props[name]
    return read


def _one(line: str) -> Expectations:
    return Expectations(parse_lines([line], "exp.txt"))


def test_a_condition_is_parsed_off_the_reason() -> None:
    (entry,) = parse_lines(["t.py::test_a  # [OPTIMIZATION_CAPABILITIES has FP16 and DEVICE_ARCHITECTURE is not arm64]"
                            " f16 runs natively (issue 7)"], "exp.txt")
    assert entry.reason == "f16 runs natively (issue 7)"
    assert entry.condition == "OPTIMIZATION_CAPABILITIES has FP16 and DEVICE_ARCHITECTURE is not arm64"
    assert [(c.name, c.op, c.value) for c in entry.when] == [("OPTIMIZATION_CAPABILITIES", "has", "FP16"),
                                                             ("DEVICE_ARCHITECTURE", "is not", "arm64")]


@pytest.mark.parametrize("clause, holds", [
    ("OPTIMIZATION_CAPABILITIES has BF16", True),
    ("OPTIMIZATION_CAPABILITIES has bf16", True),  # without case
    ("OPTIMIZATION_CAPABILITIES has FP16", False),
    ("OPTIMIZATION_CAPABILITIES lacks FP16", True),
    ("OPTIMIZATION_CAPABILITIES lacks FP32", False),
    ("OPTIMIZATION_CAPABILITIES has FP", False),  # an item, not a substring
    ("DEVICE_ARCHITECTURE is INTEL64", True),
    ("DEVICE_ARCHITECTURE is not intel64", False),
    ("DEVICE_ARCHITECTURE is arm64", False),
    ("DEVICE_ARCHITECTURE is intel64 and OPTIMIZATION_CAPABILITIES has INT8", True),
    ("DEVICE_ARCHITECTURE is intel64 and OPTIMIZATION_CAPABILITIES has FP16", False),
])
def test_the_entry_marks_its_test_only_where_the_condition_holds(clause: str, holds: bool) -> None:
    expectations = _one(f"t.py::test_a  # [{clause}] why")
    expectations.evaluate("CPU", _read(PROPS))
    assert (expectations.find("t.py::test_a[CPU]", "CPU") is not None) is holds
    assert expectations.find("t.py::test_a[GPU]", "GPU") is None  # a device never evaluated meets no condition


def test_the_condition_is_decided_per_device() -> None:
    expectations = _one("t.py::test_a  # [OPTIMIZATION_CAPABILITIES has FP16] f16 natively")
    expectations.evaluate("SPR", _read({"OPTIMIZATION_CAPABILITIES": ["FP32", "FP16"]}))
    expectations.evaluate("ZEN4", _read({"OPTIMIZATION_CAPABILITIES": ["FP32", "BF16"]}))
    assert expectations.find("t.py::test_a[SPR]", "SPR") is not None
    assert expectations.find("t.py::test_a[ZEN4]", "ZEN4") is None


def test_a_property_the_device_cannot_answer_makes_the_condition_false_and_is_said() -> None:
    expectations = _one("t.py::test_a  # [EXECUTION_UNITS has 8] why")
    expectations.evaluate("CPU", _read(PROPS))
    assert expectations.find("t.py::test_a[CPU]", "CPU") is None
    (line,) = expectations.warnings()
    assert "CPU cannot answer EXECUTION_UNITS" in line and "Unsupported property EXECUTION_UNITS" in line


def test_the_xfail_reason_says_the_condition() -> None:
    expectations = _one("t.py::test_a  # [OPTIMIZATION_CAPABILITIES has BF16] bf16 rounding")
    expectations.evaluate("CPU", _read(PROPS))
    entry = expectations.find("t.py::test_a[CPU]", "CPU")
    assert entry is not None
    mark = expectations.xfail(entry).mark
    assert mark.kwargs["reason"] == "bf16 rounding (when OPTIMIZATION_CAPABILITIES has BF16) [exp.txt:1]"
    assert mark.kwargs["strict"] is True


def test_an_entry_whose_condition_holds_nowhere_is_out_of_scope_not_stale() -> None:
    expectations = Expectations(parse_lines([
        "t.py::test_a  # [OPTIMIZATION_CAPABILITIES has FP16] not this machine",
        "t.py::test_b  # [OPTIMIZATION_CAPABILITIES has BF16] holds here, but marks nothing",
    ], "exp.txt"))
    expectations.evaluate("CPU", _read(PROPS))
    expectations.observe([("t.py::test_a[CPU]", "CPU")], ["t.py"])
    assert [e.pattern for e, _ in expectations.unmatched()] == ["t.py::test_b"]


@pytest.mark.parametrize("line, says", [
    ("t.py::test_a  # [OPTIMIZATION_CAPABILITIES contains FP16] why",
     "'OPTIMIZATION_CAPABILITIES contains FP16' is not"),
    ("t.py::test_a  # [OPTIMIZATION_CAPABILITIES has FP16 why", "without a closing ']'"),
    ("t.py::test_a  # [OPTIMIZATION_CAPABILITIES has FP16]", "without a reason after it"),
    ("t.py::test_a  # [has FP16] why", "'has FP16' is not"),
])
def test_a_malformed_condition_is_an_error_naming_the_entry(line: str, says: str) -> None:
    with pytest.raises(ExpectationError, match="exp.txt:1") as info:
        parse_lines([line], "exp.txt")
    assert says in str(info.value)


SUITE = """
def test_broken(ov_plugin):
    assert ov_plugin.get_property("PERF_COUNT") is True, "PERF_COUNT=False, but should be True"

def test_fine(ov_plugin):
    pass
"""


def test_a_run_applies_the_entries_whose_condition_the_device_meets(pytester: pytest.Pytester) -> None:
    """The fake device reports OPTIMIZATION_CAPABILITIES [FP32, EXPORT_IMPORT]: the entry on FP32
    marks test_broken (xfailed); the one on FP16 does not apply (test_fine passes, not xpassed) and
    is not named stale; a bad condition is a usage error."""
    device = pytester.makepyfile(mydev=fake_device_module("MYDEV", "MyDev"))
    pytester.makepyfile(test_suite=SUITE)
    exp = pytester.makefile(".txt", expect="""
        test_suite.py::test_broken  # [OPTIMIZATION_CAPABILITIES has FP32] PERF_COUNT defaults to False
        test_suite.py::test_fine    # [OPTIMIZATION_CAPABILITIES has FP16] fails only where f16 is native
    """)
    result = pytester.runpytest_subprocess(f"--plugin={device}", "test_suite.py", f"--ovconform-expectations={exp}")
    result.assert_outcomes(passed=1, xfailed=1)
    assert not [line for line in result.outlines if "matches no collected test" in line]
    doc = json.loads((pytester.path / "reports" / "MYDEV" / "conformance.json").read_text())
    statuses = {r["nodeid"].split("::")[-1]: r["status"] for r in doc["records"]}
    assert statuses == {"test_broken[MYDEV]": "xfailed", "test_fine[MYDEV]": "passed"}

    bad = pytester.makefile(".txt", bad="test_suite.py::test_fine  # [OPTIMIZATION_CAPABILITIES with FP16] why\n")
    result = pytester.runpytest_subprocess(f"--plugin={device}", "test_suite.py", f"--ovconform-expectations={bad}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bad.txt:1: condition clause 'OPTIMIZATION_CAPABILITIES with FP16' is not*"])


@pytest.mark.parametrize(("condition", "option"), [("ovconform-depth is exhaustive", "--ovconform-depth=exhaustive"),
                                                  ("ovconform-models is full", "--ovconform-models=full")])
def test_an_entry_conditioned_on_the_run_applies_only_in_that_run(pytester: pytest.Pytester, condition: str,
                                                                  option: str) -> None:
    """``[ovconform-depth is exhaustive]`` / ``[ovconform-models is full]``: the run's depth or model
    tier, not a device property. In a default run the entry neither marks its test nor is named
    stale (its test runs only in that other run); in that run it marks it."""
    device = pytester.makepyfile(mydev=fake_device_module("MYDEV", "MyDev"))
    pytester.makepyfile(test_suite=SUITE)
    exp = pytester.makefile(".txt", expect=f"""
        test_suite.py::test_broken  # [{condition}] PERF_COUNT defaults to False
    """)
    default = pytester.runpytest_subprocess(f"--plugin={device}", "test_suite.py", f"--ovconform-expectations={exp}")
    default.assert_outcomes(passed=1, failed=1)
    assert not [line for line in default.outlines if "matches no collected test" in line]
    other = pytester.runpytest_subprocess(f"--plugin={device}", "test_suite.py", f"--ovconform-expectations={exp}",
                                          option)
    other.assert_outcomes(passed=1, xfailed=1)


@pytest.mark.parametrize("name", ["openvino-CPU", "openvino-HETERO-CPU"])
def test_the_bundled_files_parse(tmp_path: Path, name: str) -> None:
    from ovconform.host import expectations
    from ovconform.reports.collection import suites_root

    entries = expectations.load(name, tmp_path, suites_root() / "expectations")
    assert entries and all(c.name in ("OPTIMIZATION_CAPABILITIES", "DEVICE_ARCHITECTURE", expectations.DEPTH_CLAUSE,
                                      expectations.MODELS_CLAUSE) for e in entries for c in e.when)
