"""Stimulus cases of control-flow port maps and run-time conditions, and of broadcasting along
dimensions dynamic in both operands (:mod:`ovconform.opcases._stimulus_flow`), and the dynamic mode's
last inference (the first, smallest shape again after the largest: :func:`suites._op_runner.case_steps`).

In process: the cases reach what their labels claim (no iteration on a false execution condition or
a zero trip count, pass-through back edges, the current-iteration Parameter last, sequences sliced
along other axes than 0, an inner If that changes branch, If bodies whose Parameters and Results
are not in port order, TensorIterators with two slice geometries, concatenations along another
axis, partial ranges, run-time broadcasting) and stay small. One pytest run (standard depth, the
Inference test only, ``-p no:xdist``) runs REFERENCE on every case of the module and each device
of ``tests/plugins/stimulus_faults_flow.py`` (a round-3 red team's bugs, each passing every test
of its ops at standard depth before) on its ops' generated cases and these cases (the devices of
dynamic shapes: on the dynamic cases of a few ops): REFERENCE passes all, each device fails exactly
the cases its bug is in, nothing outside its ops, and no generated case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import (
    FAILING,
    assert_fails_only_its_ops,
    by_test,
    case_statuses,
    once_per_session,
    op_version_key,
    run_devices,
)
from plugins import stimulus_faults_flow as faults

from ovconform.ir._subgraph import ConcatOutputDescription, SliceInputDescription
from ovconform.opcases import _stimulus_flow as M
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import build_stimulus, stimuli
from ovconform.suites import _op_runner as R

KEYS = sorted(M.RECIPES)


def _case(op: str, version: int, label: str) -> Any:
    return build_stimulus(op, version, label)


def _outputs(op: str, version: int, label: str) -> list[list[np.ndarray]]:
    case = _case(op, version, label)
    return [[np.asarray(o) for o in step] for step in R.run_reference(case.model, R.case_steps(case))]


def _node(op: str, version: int, label: str) -> Any:
    return R.ops_under_test(_case(op, version, label).model, op)[0]


# -- in process: the cases are what their labels say --------------------------------------------------------

def test_every_case_runs_at_standard_depth_and_is_small() -> None:
    assert {op for op, _ in KEYS} == {"Loop", "If", "TensorIterator", *M.BINARY_OPS}
    total = 0
    for op, version in KEYS:
        labels = M.labels(op, version)
        assert labels and set(labels) <= {s.label for s in stimuli(op, version, Depth.STANDARD)}, (op, version)
        for label in labels:
            case = _case(op, version, label)
            arrays = [np.asarray(v) for step in R.case_steps(case) for v in step.values()]
            assert all(a.size <= 64 for a in arrays), (op, label)
            total += 1
    assert 20 <= total <= 35


def test_loops_that_run_no_iteration_give_the_initial_value_and_an_empty_concatenation() -> None:
    for label in ("exec-cond-false", "trip-count-0"):
        case = _case("Loop", 5, label)
        last, every = _outputs("Loop", 5, label)[0]
        np.testing.assert_array_equal(last, case.inputs["acc"])
        assert every.shape == (0, M.WIDTH), label
    exec_false = _case("Loop", 5, "exec-cond-false").inputs
    assert exec_false["execution_condition"].item() is False and int(exec_false["trip_count"]) == M.STEPS
    assert int(_case("Loop", 5, "trip-count-0").inputs["trip_count"]) == 0


def test_an_unlimited_loop_stops_on_its_body_condition_mid_way() -> None:
    node = _node("Loop", 5, "no-limit-body-stops")
    assert int(np.asarray(node.input_value(0).node.data)) == -1
    last, every = _outputs("Loop", 5, "no-limit-body-stops")[0]
    assert every.shape == (4, M.WIDTH)
    np.testing.assert_array_equal(every[-1], last)


def _loop_steps(op_label: str) -> dict[str, np.ndarray]:
    return dict(_case("Loop", 5, op_label).inputs)


def test_swapped_back_edges_read_the_iteration_before() -> None:
    inputs = _loop_steps("swap-back-edges")
    a, b, c, d = (inputs[k].astype(np.float64) for k in "abcd")
    seen = []
    for _ in range(M.STEPS):
        seen.append(a)
        a, b, c, d = b, a + b, d, c
    got = _outputs("Loop", 5, "swap-back-edges")[0]
    for value, want in zip(got[:4], (a, b, c, d), strict=True):
        np.testing.assert_allclose(value, want, rtol=1e-5)
    np.testing.assert_allclose(got[4], np.stack(seen), rtol=1e-5)
    assert not np.allclose(got[2], got[3])  # a swap done in place would make c and d equal


def test_the_current_iteration_parameter_is_the_last_body_parameter() -> None:
    node = _node("Loop", 5, "iteration-param-last")
    body = node.attrs["bodies"][0]
    assert node.attrs["special_body_ports"].current_iteration_input_idx == len(body.get_parameters()) - 1 > 0
    inputs = _loop_steps("iteration-param-last")
    acc = inputs["acc"].astype(np.float64)
    for i in range(M.STEPS):
        acc = acc * 0.5 + inputs["xs"][i].reshape(-1) * (i + 1)
    np.testing.assert_allclose(_outputs("Loop", 5, "iteration-param-last")[0][0], acc, rtol=1e-5)


@pytest.mark.parametrize(("label", "axis", "backward"), [("slice-axis1", 1, False),
                                                         ("slice-last-axis-backward", 2, True)])
def test_loops_slice_along_other_axes_than_0(label: str, axis: int, backward: bool) -> None:
    (sliced,) = [d for d in _node("Loop", 5, label).attrs["input_descriptions"][0]
                 if isinstance(d, SliceInputDescription)]
    assert sliced.axis == axis != 0 and (sliced.stride < 0) == backward
    inputs = _loop_steps(label)
    xs, acc = inputs["xs"].astype(np.float64), inputs["acc"].astype(np.float64)
    order = range(xs.shape[axis])[::-1] if backward else range(xs.shape[axis])
    every = []
    for t in order:
        acc = acc * 0.5 + np.take(xs, [t], axis=axis)
        every.append(acc)
    last, got = _outputs("Loop", 5, label)[0]
    np.testing.assert_allclose(last, acc, rtol=1e-5)
    np.testing.assert_allclose(got, np.concatenate(every, axis=axis), rtol=1e-5)


def test_the_inner_if_changes_branch_on_every_iteration() -> None:
    inputs = _loop_steps("nested-if-alternating")
    acc, x = inputs["acc"].astype(np.float64), inputs["x"].astype(np.float64)
    every = []
    for i in range(M.STEPS):
        acc = acc + x if i % 2 == 0 else acc - x
        every.append(acc)
    last, got = _outputs("Loop", 5, "nested-if-alternating")[0]
    np.testing.assert_allclose(got, np.stack(every), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(last, acc, rtol=1e-5, atol=1e-6)


def test_if_bodies_bind_parameters_and_results_by_the_port_map() -> None:
    for label, want in (("params-reordered-then", lambda x, y: [x - y]),
                        ("params-skip-else", lambda x, y: [2 * y - 1]),
                        ("results-reordered-then", lambda x, y: [x - y, x * y]),
                        ("results-reordered-else", lambda x, y: [x + y, x / y])):
        node = _node("If", 8, label)
        taken = 0 if bool(_case("If", 8, label).inputs["cond"]) else 1
        ins, outs = node.attrs["input_descriptions"][taken], node.attrs["output_descriptions"][taken]
        out_of_order = (any(d.input_index - 1 != d.body_parameter_index for d in ins) if "params" in label
                        else any(d.output_index != d.body_value_index for d in outs))
        assert out_of_order, label
        inputs = _case("If", 8, label).inputs
        x, y = inputs["x"].astype(np.float64), inputs["y"].astype(np.float64)
        for got, expected in zip(_outputs("If", 8, label)[0], want(x, y), strict=True):
            np.testing.assert_allclose(got, expected, rtol=1e-6)


def _ti_slices(label: str) -> list[SliceInputDescription]:
    return [d for d in _node("TensorIterator", 1, label).attrs["input_descriptions"][0]
            if isinstance(d, SliceInputDescription)]


def test_tensor_iterators_with_two_slice_geometries() -> None:
    forward, backward = _ti_slices("bidirectional")
    assert forward.stride > 0 > backward.stride and forward.axis == backward.axis
    inputs = _case("TensorIterator", 1, "bidirectional").inputs
    seq, h = inputs["seq"].astype(np.float64), inputs["h0"].astype(np.float64)
    steps = seq.shape[1]
    for t in range(steps):
        h = np.tanh(0.7 * h + seq[:, t:t + 1]) + 0.3 * seq[:, steps - 1 - t:steps - t]
    np.testing.assert_allclose(_outputs("TensorIterator", 1, "bidirectional")[0][0], h, rtol=1e-5, atol=1e-6)
    assert {d.axis for d in _ti_slices("two-axes")} == {0, 1}


@pytest.mark.parametrize("label", ["concat-axis0-from-axis1", "concat-axis1-from-axis0"])
def test_concatenations_along_another_axis_than_the_slices(label: str) -> None:
    (sliced,) = _ti_slices(label)
    (cat,) = [d for d in _node("TensorIterator", 1, label).attrs["output_descriptions"][0]
              if isinstance(d, ConcatOutputDescription)]
    assert cat.axis != sliced.axis
    seq = _case("TensorIterator", 1, label).inputs["seq"].astype(np.float64)
    want = np.tanh(seq).transpose(1, 0, 2)
    np.testing.assert_allclose(_outputs("TensorIterator", 1, label)[0][0], want, rtol=1e-6)


@pytest.mark.parametrize(("label", "steps"), [("sub-range", [1, 2, 3, 4]), ("sub-range-backward", [4, 3, 2, 1])])
def test_tensor_iterators_over_part_of_the_axis(label: str, steps: list[int]) -> None:
    inputs = _case("TensorIterator", 1, label).inputs
    seq, h = inputs["seq"].astype(np.float64), inputs["h0"].astype(np.float64)
    every = []
    for t in steps:
        h = np.tanh(0.7 * h + seq[:, t:t + 1])
        every.append(h)
    last, got = _outputs("TensorIterator", 1, label)[0]
    np.testing.assert_allclose(got, np.concatenate(every, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(last, h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", M.BINARY_OPS)
def test_dynamic_broadcast_cases_broadcast_a_run_time_1(op: str) -> None:
    case = _case(op, 1, "dynamic-bcast")
    assert [str(p.get_output_partial_shape(0)) for p in case.model.get_parameters()] == ["[?,?]", "[?,?]"]
    steps = R.case_steps(case)
    pairs = [(s["a"].shape, s["b"].shape) for s in steps]
    assert pairs[:3] == list(M.BCAST_STEPS) and pairs[3] == pairs[0]
    fn = {"Add": np.add, "Subtract": np.subtract, "Multiply": np.multiply, "Maximum": np.maximum}[op]
    for step, (got,) in zip(steps, R.run_reference(case.model, steps), strict=True):
        np.testing.assert_allclose(got, fn(step["a"], step["b"]), rtol=1e-6)


def test_dynamic_mode_infers_the_first_shape_again_after_the_largest() -> None:
    case = _case("If", 8, "dynamic-branch-shapes")
    shapes = [np.shape(s["x"]) for s in R.case_steps(case)]
    assert shapes == [(1, 7), (2, 65), (5, 129), (1, 7)]
    widened = [o[0].shape for o in R.run_reference(case.model, R.case_steps(case))]
    assert widened == [(1, 7), (2, 130), (5, 129), (1, 7)]


# -- one run of the suites --------------------------------------------------------------------------------------

#: fault -> op version -> the cases it must fail (every other selected case of the op version passes).
MUST_FAIL: dict[str, dict[str, set[str]]] = {
    "LoopIgnoresExecutionCondition": {"Loop-5": {"exec-cond-false"}},
    "LoopZeroTripRunsOnce": {"Loop-5": {"trip-count-0"}},
    "LoopNegativeTripRunsNothing": {"Loop-5": {"no-limit-body-stops"}},
    "LoopSlicesAxis0Only": {"Loop-5": {"slice-axis1", "slice-last-axis-backward"}},
    "LoopBackEdgesInPlace": {"Loop-5": {"swap-back-edges"}},
    "LoopIterationIsParameter0": {"Loop-5": {"iteration-param-last"}},
    "LoopSpecialisesNestedIf": {"Loop-5": {"nested-if-alternating"}},
    "IfPositionalInputs": {"If-8": {"params-reordered-then", "params-skip-else"}},
    "IfPositionalOutputs": {"If-8": {"results-reordered-then", "results-reordered-else"}},
    "TensorIteratorIgnoresStartEnd": {"TensorIterator-1": {"sub-range", "sub-range-backward"}},
    "TensorIteratorFirstSliceGeometry": {"TensorIterator-1": {"bidirectional", "two-axes"}},
    "TensorIteratorConcatOnInputAxis": {"TensorIterator-1": {"concat-axis0-from-axis1", "concat-axis1-from-axis0"}},
    "DynamicBroadcastAssumesEqualDims": {op: {"dynamic-bcast"} for op in ("Add-1", "Subtract-1", "Multiply-1",
                                                                        "Maximum-1")},
    "DynamicOutputsNeverShrink": {"Relu-1": {"dynamic"}, "Add-1": {"dynamic"},
                                  "If-8": {"dynamic-both-branches", "dynamic-branch-shapes"},
                                  "Loop-5": {"dynamic"}},
}
#: faults a generated case already reached (the red team's runs: Loop-5 case2/3/4/7 run with trip count -1):
#: their generated failures are allowed, not required.
GENERATED_MAY_FAIL = {"LoopNegativeTripRunsNothing"}
#: the devices of dynamic shapes run these cases of their ops (the generated ones too); the others
#: run their ops' generated cases and this module's.
DYNAMIC_LABELS: dict[str, tuple[str, ...]] = {
    "DynamicOutputsNeverShrink": ("dynamic", "dynamic-bcast", "dynamic-both-branches", "dynamic-branch-shapes"),
}


def _name(fault: str) -> str:
    return str(getattr(faults, fault).device_name)


def _new(fault: str, op_version: str) -> set[str]:
    """The selected non-generated cases of ``op_version`` for ``fault``."""
    mine = set(M.labels(*op_version_key(op_version)))
    if fault in DYNAMIC_LABELS:
        known = {s.label for s in stimuli(*op_version_key(op_version), Depth.STANDARD)}
        return known & set(DYNAMIC_LABELS[fault])
    return mine


def _selection() -> str:
    parts = []
    for fault, ops in faults.FAULTS.items():
        terms = [f"[{op}-case" for op in ops]
        terms += [f"[{op}-{label}-" for op in ops for label in sorted(_new(fault, op))]
        parts.append(f"({_name(fault)} and ({' or '.join(terms)}))")
    mine = " or ".join(f"[{op}-{v}-{label}-" for op, v in KEYS for label in M.labels(op, v))
    parts.append(f"(REFERENCE and ({mine}))")
    return f"test_op_inference and ({' or '.join(parts)})"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults_flow:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", _selection(), "--ovconform-depth", "standard",
                       timeout=900)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "stimulus_flow_runs", _run)


def test_reference_passes_every_new_case(runs: dict[str, Any]) -> None:
    for op, version in KEYS:
        ran = case_statuses(runs["REFERENCE"], "REFERENCE", f"{op}-{version}")
        assert set(ran) == set(M.labels(op, version)), (op, version)
        assert set(ran.values()) == {"passed"}, {k: s for k, s in ran.items() if s != "passed"}


def test_every_fault_has_its_cases() -> None:
    assert set(MUST_FAIL) == set(faults.FAULTS)
    for fault, ops in faults.FAULTS.items():
        assert set(MUST_FAIL[fault]) == set(ops), fault
        for op_version, must in MUST_FAIL[fault].items():
            assert must <= _new(fault, op_version), (fault, op_version)


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_each_fault_fails_exactly_its_new_cases(runs: dict[str, Any], fault: str) -> None:
    device = _name(fault)
    records = runs[device]
    assert_fails_only_its_ops(records, fault, list(faults.FAULTS[fault]))
    for op_version, must in MUST_FAIL[fault].items():
        ran = case_statuses(records, device, op_version)
        new = _new(fault, op_version)
        assert new <= set(ran), (op_version, sorted(new - set(ran)))
        failed = {k for k, s in ran.items() if s in FAILING}
        assert failed & new == must, (op_version, sorted(failed & new ^ must))
        generated = {k for k in ran if R.generated_index(k) is not None}
        assert len(generated) >= 10 and set(ran) == new | generated, op_version
        if fault not in GENERATED_MAY_FAIL:
            assert not generated & failed, (op_version, sorted(generated & failed))
