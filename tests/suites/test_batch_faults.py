"""The op suite's stimulus batches (``suites/_batch.py``) change no verdict but passes: the devices
of ``tests/plugins/batch_faulty_devices.py``, which treat a model of several unconnected graphs
differently from a model of one, fail exactly the intended tests, and REFERENCE fails nothing.

One pytest run in a temporary folder (serial, standard depth, 3 generated cases per op) of the op
suite on Abs-1 and Add-1 (each with about twenty stimulus cases).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import once_per_session, run_devices
from plugins import batch_faulty_devices as faulty
from test_api_faults import assert_fails_exactly

from ovconform.opcases.depth import Depth
from ovconform.suites import _batch
from ovconform.suites import _op_runner as R

SELECT = "test_op_ and (Abs-1 or Add-1)"
OPS = (("Abs", 1), ("Add", 1))
EXAMPLES = 3

Records = dict[str, list[dict[str, Any]]]


def _device(name: str) -> str:
    return str(getattr(faulty, name).device_name)


def _run(workdir: Path) -> Records:
    specs = [*(f"batch_faulty_devices:{n}" for n in faulty.FAULTS), "reference"]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", SELECT, "--ovconform-examples", str(EXAMPLES),
                       "--ovconform-depth", "standard")
    return {name: docs[name if name == "REFERENCE" else _device(name)]["records"] for name in [*faulty.FAULTS,
                                                                                               "REFERENCE"]}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Records:
    return dict(once_per_session(tmp_path_factory, "batch_fault_run", _run))


def _stimulus_inference(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if "::test_op_inference[" in r["nodeid"] and "stimulus" in r["facts"]]


def _alone_stimuli() -> list[str]:
    """The stimulus cases of the two ops that never join a batch (several steps, state, size)."""
    return [f"{op}-{v}-{label}" for op, v in OPS for label in R.case_labels(op, v, EXAMPLES, Depth.STANDARD)
            if R.generated_index(label) is None and not _batch.batchable(R.get_case(op, v, label, EXAMPLES))]


def test_reference_passes_and_most_stimulus_cases_pass_in_a_batch(reports: Records) -> None:
    records = reports["REFERENCE"]
    assert [r["nodeid"] for r in records if r["status"] not in ("passed",)] == []
    stimulus = _stimulus_inference(records)
    batched = [r for r in stimulus if "batched_with" in r["facts"]]
    assert len(stimulus) >= 30 and len(batched) == len(stimulus) - len(_alone_stimuli())
    assert all(r["facts"]["batched_with"] >= 1 and r["facts"]["declared"] is True for r in batched)


@pytest.mark.parametrize("fault", ["RefusesDisconnected", "RunsFirstGraphOnly"])
def test_a_device_that_gets_batches_wrong_passes_as_each_case_alone(reports: Records, fault: str) -> None:
    records = reports[fault]
    assert_fails_exactly(records, _device(fault), [], f"{fault} ({faulty.FAULTS[fault]})")
    stimulus = _stimulus_inference(records)
    batched = [r for r in stimulus if "batched_with" in r["facts"]]
    if fault == "RefusesDisconnected":
        assert batched == []  # no batch compiled: every case went alone
    else:  # only the first case of each batch passes there (the others' outputs are zeros)
        assert 0 < len(batched) <= len(OPS) * 2, [r["nodeid"] for r in batched]
    assert len(stimulus) == len(_stimulus_inference(reports["REFERENCE"]))


def test_a_device_wrong_alone_is_failed_by_the_generated_cases(reports: Records) -> None:
    """A batch cannot see it on the stimulus cases it passes, so the op's generated cases (always
    compiled alone) and the stimulus cases that never join a batch are the tests that fail."""
    fault = "WrongWhenAlone"
    generated = [f"{op}-{v}-{label}" for op, v in OPS for label in R.case_labels(op, v, EXAMPLES, Depth.STANDARD)
                 if R.generated_index(label) is not None]
    patterns = [f"test_op_conformance.py::test_op_inference[{key}]" for key in [*generated, *_alone_stimuli()]]
    assert_fails_exactly(reports[fault], _device(fault), patterns, f"{fault} ({faulty.FAULTS[fault]})")
    failed = [r for r in reports[fault] if r["status"] == "failed"]
    assert all("declared supported but failed" in r["message"] for r in failed)


def test_table_covers_every_fault() -> None:
    assert set(faulty.FAULTS) == {"RefusesDisconnected", "RunsFirstGraphOnly", "WrongWhenAlone"}


def test_a_device_that_crashes_on_a_batch_costs_one_crashed_test_per_batch(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Under xdist a crash kills the worker, and the test that ran the batch is recorded crashed.
    The batch's marker makes the process that takes over run the batch's other cases alone (they
    pass), so the crash is not repeated on each of them."""
    device = faulty.CrashesOnSeveralGraphs.device_name
    docs = run_devices(tmp_path_factory.mktemp("batch_crash"), ["batch_faulty_devices:CrashesOnSeveralGraphs"],
                       "-n", "2", "-k", SELECT, "--ovconform-examples", str(EXAMPLES), "--ovconform-depth", "standard")
    records = docs[device]["records"]
    crashed = [r for r in records if r["status"] == "crashed"]
    assert crashed and all("::test_op_inference[" in r["nodeid"] and "-case" not in r["nodeid"] for r in crashed)
    # at most one crash per batch and worker that planned it (two workers may both start one)
    assert len(crashed) <= 2 * len(OPS), [r["nodeid"] for r in crashed]
    others = {r["nodeid"]: r["status"] for r in records if r["status"] != "crashed"}
    assert len(others) >= 40 and set(others.values()) == {"passed"}, others
