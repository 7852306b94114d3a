"""The stimulus batches of the op suite (``suites/_batch.py``): which cases join one, how their
graphs sit side by side in one model, and that a batch runs at most once per worker."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Core
from ovconform.opcases import OpCase
from ovconform.opcases.depth import Depth
from ovconform.suites import _batch
from ovconform.suites import _op_runner as R


def _stimuli(op: str, version: int) -> list[tuple[str, OpCase]]:
    return [(label, case) for label, case in R.suite_cases(op, version, 3, Depth.STANDARD)
            if R.generated_index(label) is None]


def test_the_batch_model_holds_each_case_under_its_own_names() -> None:
    cases = _stimuli("Add", 1)[:4]
    merged = _batch.merge(cases)
    names = [n.friendly_name for n in merged.model.get_ordered_ops()]
    assert len(names) == len(set(names))
    assert len(merged.model.get_parameters()) == sum(len(c.model.get_parameters()) for _, c in cases)
    for i, (label, case) in enumerate(cases):
        assert merged.prefixes[label] == f"c{i}."
        start, stop = merged.results[label]
        assert stop - start == len(case.model.get_results())
        for name, value in case.inputs.items():
            assert merged.inputs[f"c{i}." + name] is value
    # the cases' own models are untouched (the batch holds clones)
    assert all(not n.friendly_name.startswith("c0.") for n in cases[0][1].model.get_ordered_ops())


def test_each_case_gets_its_own_outputs_from_the_batch_on_reference() -> None:
    cases = _stimuli("Relu", 1)
    labels = [label for label, case in cases if _batch.batchable(case)]
    batch = _batch.Batch(labels)
    batch.run(Core(), "REFERENCE", dict(cases))
    for label, case in cases:
        if label not in labels:
            continue
        assert batch.declared(label, case)
        got = batch.outputs_of(label)
        assert got is not None
        want = R.run_reference(case.model, R.case_steps(case))
        for g, w in zip(got[0], want[0], strict=True):
            assert g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True), label


def test_what_joins_a_batch() -> None:
    cases = dict(_stimuli("Add", 1))
    assert not _batch.batchable(cases["dynamic"])  # several inferences on one request
    state = dict(_stimuli("Assign", 6))
    assert not any(_batch.batchable(c) for c in state.values())  # state carried across inferences
    big = [label for label, c in cases.items() if _batch._input_bytes(c) > _batch.MAX_CASE_BYTES]
    assert all(not _batch.batchable(cases[label]) for label in big)
    plan = _batch.plan(list(cases.items()))
    assert all(len(b) > 1 for b in plan)
    assert [label for b in plan for label in b] == [label for label, c in cases.items() if _batch.batchable(c)]


def test_a_batch_never_holds_more_than_its_byte_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _stimuli("Add", 1)
    small = [(label, c) for label, c in cases if _batch.batchable(c)]
    sizes = [_batch._input_bytes(c) for _, c in small]
    limit = max(max(sizes), sum(sizes) // 3)
    monkeypatch.setattr(_batch, "MAX_BATCH_BYTES", limit)
    plan = _batch.plan(small)
    by_label = dict(small)
    assert len(plan) > 1
    assert all(sum(_batch._input_bytes(by_label[label]) for label in b) <= limit for b in plan)


def test_a_batch_that_cannot_be_compiled_sends_its_cases_alone() -> None:
    class Refusing:
        def query_model(self, model: Any, device: str) -> dict[str, str]:
            return {n.friendly_name: device for n in model.get_ordered_ops()}

        def compile_model(self, model: Any, device: str) -> Any:
            raise RuntimeError("no")

    cases = _stimuli("Relu", 1)[:3]
    batch = _batch.Batch([label for label, _ in cases])
    batch.run(Refusing(), "X", dict(cases))
    label, case = cases[0]
    assert batch.declared(label, case)  # declared, but no outputs: the test goes the one-case way
    assert batch.outputs_of(label) is None


def test_a_batch_runs_once_and_an_op_version_met_again_runs_alone() -> None:
    runs: list[list[str]] = []
    memo = _batch.BatchMemo()
    add, relu = _stimuli("Add", 1), _stimuli("Relu", 1)

    def run(batch: _batch.Batch, cases: dict[str, OpCase]) -> None:
        runs.append(batch.labels)

    first = add[0][0]
    b1 = memo.batch_of(("D", "Add", 1, 3), first, lambda: add, run)
    b2 = memo.batch_of(("D", "Add", 1, 3), add[1][0], lambda: add, run)
    assert b1 is not None and b1 is b2 and len(runs) == 1
    memo.batch_of(("D", "Relu", 1, 3), relu[0][0], lambda: relu, run)
    assert len(runs) == 2
    # Add's tests come back after Relu's (a shuffled order): they run alone, no batch is run again
    assert memo.batch_of(("D", "Add", 1, 3), add[2][0], lambda: add, run) is None
    assert len(runs) == 2
