"""The pytest host: --plugin resolution, records, reports, outcomes and expectation files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _session import fake_device_module

pytest_plugins = ["pytester"]

DEVICE_MODULE = fake_device_module("MYDEV", "MyDev")

SUITE = """
import os, time
import pytest

pytestmark = pytest.mark.entity("ov_plugin")

@pytest.mark.mandatory
def test_name(ov_plugin, ov_device_name, record_ov_fact):
    record_ov_fact("full_name", ov_plugin.get_property("FULL_DEVICE_NAME"))
    assert ov_device_name == "MYDEV"

def test_broken(ov_plugin):
    assert ov_plugin.get_property("PERF_COUNT") is True, "PERF_COUNT=False, but should be True"

@pytest.mark.capability("WINOGRAD")
def test_needs_capability(ov_plugin):
    pass

@pytest.mark.entity("ov_infer_request")
def test_other_entity(ov_core):
    assert "MYDEV" in ov_core.available_devices[0]

def test_plain_test_without_device():
    pass
"""


def _report(pytester: pytest.Pytester, device: str = "MYDEV") -> dict[str, Any]:
    return json.loads((pytester.path / "reports" / device / "conformance.json").read_text())


def _statuses(doc: dict[str, Any]) -> dict[str, str]:
    return {r["nodeid"].split("::")[-1]: r["status"] for r in doc["records"]}


@pytest.fixture
def device_file(pytester: pytest.Pytester) -> Path:
    return pytester.makepyfile(mydev=DEVICE_MODULE)


def test_unknown_plugin_is_a_usage_error_listing_what_exists(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--plugin=nosuchdevice")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--plugin='nosuchdevice' matches no installed device or plugin; available: "
                                 "*REFERENCE (plugin 'reference')*"])


def test_py_file_plugin_records_and_report(pytester: pytest.Pytester, device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py", "--junitxml=j.xml")
    result.assert_outcomes(passed=3, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*ovconform conformance: MYDEV*", "*mandatory pass rate: 100.00%*",
                                 "*generated conformance report:*MYDEV*conformance.json*"])
    doc = _report(pytester)
    assert doc["schema_version"] == "1.0"
    assert _statuses(doc) == {"test_name[MYDEV]": "passed", "test_broken[MYDEV]": "failed",
                              "test_needs_capability[MYDEV]": "skipped", "test_other_entity[MYDEV]": "passed"}
    by_name = {r["nodeid"].split("::")[-1]: r for r in doc["records"]}
    assert by_name["test_name[MYDEV]"]["scope"] == "mandatory"
    assert by_name["test_name[MYDEV]"]["facts"] == {"full_name": "Fake test device"}
    assert by_name["test_other_entity[MYDEV]"]["entity"] == "ov_infer_request"
    assert "PERF_COUNT=False, but should be True" in by_name["test_broken[MYDEV]"]["message"]
    assert "MYDEV: capability 'WINOGRAD' not in OPTIMIZATION_CAPABILITIES" in \
        by_name["test_needs_capability[MYDEV]"]["message"]
    assert doc["summary"]["entities"]["ov_plugin"]["statuses"] == {"failed": 1, "passed": 1, "skipped": 1}
    assert doc["device"]["name"] == "MYDEV" and doc["device"]["full_name"]
    assert (pytester.path / "j.xml").exists()


def test_k_selects_and_module_attr_form(pytester: pytest.Pytester, device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess("--plugin=mydev:MyDev", "test_suite.py", "-k", "name")
    result.assert_outcomes(passed=1, deselected=4)
    assert _statuses(_report(pytester)) == {"test_name[MYDEV]": "passed"}


def test_all_skipped_pass_rate_is_not_applicable(pytester: pytest.Pytester, device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py", "-k", "capability")
    doc = _report(pytester)
    assert doc["summary"]["pass_rate"] is None and doc["summary"]["mandatory_pass_rate"] is None


def test_crash_under_xdist_is_recorded_and_others_kept(pytester: pytest.Pytester, device_file: Path) -> None:
    pytester.makepyfile(test_crash="""
        import os
        import pytest
        pytestmark = pytest.mark.entity("ov_plugin")

        def test_before(ov_plugin):
            pass

        def test_segfault_like(ov_plugin):
            os.abort()

        def test_after(ov_plugin):
            pass
    """)
    pytester.runpytest_subprocess(f"--plugin={device_file}", "test_crash.py", "-n", "2", "-p", "no:randomly")
    assert _statuses(_report(pytester)) == {"test_before[MYDEV]": "passed", "test_segfault_like[MYDEV]": "crashed",
                                            "test_after[MYDEV]": "passed"}


def test_hang_is_recorded_after_the_timeout(pytester: pytest.Pytester, device_file: Path) -> None:
    pytester.makepyfile(test_hang="""
        import time
        import pytest
        pytestmark = pytest.mark.entity("ov_plugin")

        def test_hangs(ov_plugin):
            time.sleep(60)

        def test_fine(ov_plugin):
            pass
    """)
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_hang.py", "--ovconform-test-timeout=1")
    result.assert_outcomes(passed=1, failed=1)
    records = {r["nodeid"].split("::")[-1]: r for r in _report(pytester)["records"]}
    assert records["test_hangs[MYDEV]"]["status"] == "hanged"
    assert records["test_fine[MYDEV]"]["status"] == "passed"


# -- expectation files ------------------------------------------------------------------------------

def test_expectations_xfail_strict_xpass_and_stale(pytester: pytest.Pytester, device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    exp = pytester.makefile(".txt", expect="""
        # known failures of MYDEV
        test_suite.py::test_broken     # PERF_COUNT defaults to False (issue #1)
        test_suite.py::test_name       # wrongly listed: it passes
        test_suite.py::test_gone       # a test that no longer exists
    """)
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           f"--ovconform-expectations={exp}")
    result.assert_outcomes(passed=2, failed=1, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines(["*expectation 'test_suite.py::test_gone' (*expect.txt:4) matches no collected test*"])
    records = {r["nodeid"].split("::")[-1]: r for r in _report(pytester)["records"]}
    assert records["test_broken[MYDEV]"]["status"] == "xfailed"
    assert records["test_name[MYDEV]"]["status"] == "xpassed"
    assert "expected to fail (wrongly listed: it passes" in records["test_name[MYDEV]"]["message"]


def test_entries_for_tests_the_run_did_not_select_are_not_stale(pytester: pytest.Pytester,
                                                                device_file: Path) -> None:
    """A slice of the suites: entries for other modules of the suites (or, for ``*::`` patterns,
    other test functions) are out of scope; an entry naming a missing test of a collected module
    is stale, and one whose module exists nowhere (misspelled) is named as such."""
    pytester.makepyfile(test_suite=SUITE)
    exp = pytester.makefile(".txt", expect="""
        test_suite.py::test_broken          # PERF_COUNT defaults to False
        *test_plugin_version.py::test_x     # a module of the suites this run does not collect
        *::test_op_inference?Tanh-1-case0-*  # a function this run does not collect
        *::test_broken?NOPE*                # a collected function, but no such parameters
        *test_suite.py::test_gone           # a collected module, but no such test
        *test_plugin_verison.py::test_x     # a misspelled module
    """)
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           f"--ovconform-expectations={exp}")
    warned = [line for line in result.outlines if "matches no collected test" in line]
    assert len(warned) == 3, warned
    assert any("test_broken?NOPE" in w and "stale" in w for w in warned)
    assert any("test_gone" in w and "stale" in w for w in warned)
    assert any("test_plugin_verison.py" in w and "misspelled" in w for w in warned)


def test_flaky_expectations_accept_either_outcome_and_are_never_pruned(pytester: pytest.Pytester,
                                                                     device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    text = ("test_suite.py::test_broken  # flaky: fails in some runs\n"
            "test_suite.py::test_name  # flaky: uninitialised output, right in some runs\n")
    exp = pytester.makefile(".txt", expect=text)
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           f"--ovconform-expectations={exp}", "--ovconform-update-expectations")
    result.assert_outcomes(passed=2, skipped=1, xfailed=1, xpassed=1)  # the xpass does not fail the run
    assert result.ret == pytest.ExitCode.OK
    assert exp.read_text().strip() == text.strip()  # nothing pruned


def test_crash_expectations_are_recorded_xfailed_without_running(pytester: pytest.Pytester,
                                                                   device_file: Path) -> None:
    """A ``crash:`` entry: the test would end a run without ``-n`` (here it exits the process), so it
    is recorded xfailed without running; the session goes on and writes its report."""
    pytester.makepyfile(test_suite=SUITE + "\ndef test_dies(ov_plugin):\n    os._exit(3)\n")
    exp = pytester.makefile(".txt", expect="test_suite.py::test_dies  # crash: kills the device's process (SIGFPE)\n")
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           f"--ovconform-expectations={exp}", "-rx")
    result.assert_outcomes(passed=3, failed=1, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines(["*XFAIL*test_dies*NOTRUN*crash: kills the device's process*"])
    assert _statuses(_report(pytester))["test_dies[MYDEV]"] == "xfailed"


def test_bundled_expectation_file_is_found_by_name_from_any_folder(pytester: pytest.Pytester,
                                                                   device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           "--ovconform-expectations", "openvino-CPU")
    result.assert_outcomes(passed=3, failed=1, skipped=1)  # read; its entries are for suites this run did not collect
    assert not [line for line in result.outlines if "matches no collected test" in line]
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           "--ovconform-expectations", "openvino-GPU")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ovconform-expectations 'openvino-GPU': no such file (looked in *) and no bundled "
                                 "expectation file of that name (bundled: *openvino-CPU*)*"])


def test_a_bundled_file_is_named_the_same_on_every_machine(tmp_path: Path) -> None:
    """Its entries say ``openvino-CPU.txt:N`` in messages (not a site-packages path), and pruning
    still knows the file."""
    from ovconform.host import expectations
    from ovconform.reports.collection import suites_root

    bundled = suites_root() / "expectations"
    entries = expectations.load("openvino-CPU", tmp_path, bundled)
    assert entries and all(e.source.startswith("openvino-CPU.txt:") for e in entries)
    assert {e.file for e in entries} == {str(bundled / "openvino-CPU.txt")}
    mine = tmp_path / "mine.txt"
    mine.write_text("# known\ntest_x.py::test_y  # why\n")
    (entry,) = expectations.load("mine.txt", tmp_path, bundled)
    assert (entry.source, entry.file, entry.line) == ("mine.txt:2", str(mine), 2)


def test_expectations_under_xdist_mark_on_workers_and_warn_on_the_controller(pytester: pytest.Pytester,
                                                                              device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    exp = pytester.makefile(".txt", expect="""
        test_suite.py::test_broken     # PERF_COUNT defaults to False (issue #1)
        test_suite.py::test_gone       # a test that no longer exists
    """)
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py", "-n", "2",
                                           f"--ovconform-expectations={exp}")
    result.assert_outcomes(passed=3, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines(["*expectation 'test_suite.py::test_gone' (*expect.txt:2) matches no collected test*"])
    assert _statuses(_report(pytester))["test_broken[MYDEV]"] == "xfailed"


def test_expectation_without_reason_is_a_usage_error(pytester: pytest.Pytester, device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    exp = pytester.makefile(".txt", expect="test_suite.py::test_broken\n")
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           f"--ovconform-expectations={exp}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*expect.txt:1: entry 'test_suite.py::test_broken' has no reason*"])


def test_update_prunes_fixed_entries_only_when_nothing_new_failed(pytester: pytest.Pytester,
                                                                   device_file: Path) -> None:
    pytester.makepyfile(test_suite=SUITE)
    exp = pytester.makefile(".txt", expect="test_suite.py::test_broken  # known\ntest_suite.py::test_name  # fixed\n")
    # test_broken fails as expected and test_name now passes: nothing new failed -> prune test_name
    pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py", f"--ovconform-expectations={exp}",
                                  "--ovconform-update-expectations")
    assert exp.read_text() == "test_suite.py::test_broken  # known\n"
    # now a new failure: the file must stay as it is
    exp.write_text("test_suite.py::test_name  # fixed\n")
    result = pytester.runpytest_subprocess(f"--plugin={device_file}", "test_suite.py",
                                           f"--ovconform-expectations={exp}", "--ovconform-update-expectations")
    result.stdout.fnmatch_lines(["*expectations not updated: 1 test(s) failed unexpectedly*"])
    assert exp.read_text() == "test_suite.py::test_name  # fixed\n"
