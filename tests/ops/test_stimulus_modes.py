"""Stimulus cases of the attribute modes and values the generated cases do not draw
(:mod:`ovconform.opcases._stimulus_modes`).

In process: the cases reach what their labels claim (block sizes 3 and 4 where the two modes move
different elements, masks and begins past the end on negative-stride axes, repeated Einsum labels,
integers exactly on Bucketize's boundaries, an ``eps`` that makes NormalizeL2's and MVN's modes
differ, halves for Round), and stay small. One pytest run (standard depth, the Inference test only,
``-p no:xdist``) runs REFERENCE on every case of the module and each device of
``tests/plugins/stimulus_faults_modes.py`` (a red team's kernel bugs, each passing every test of its
ops at standard depth before these cases but two a generated case caught) on its ops' generated
cases and these cases: REFERENCE passes all, each device fails exactly the new cases its bug is in,
nothing outside its ops, and no generated case but the ones that already reached its bug.
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
from plugins import stimulus_faults_modes as faults

from ovconform.opcases import _stimulus_modes as M
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import build_stimulus, stimuli
from ovconform.suites import _op_runner as R

KEYS = sorted(M.RECIPES)


def _node(op: str, version: int, label: str) -> Any:
    return R.ops_under_test(build_stimulus(op, version, label).model, op)[0]


def _reference(op: str, version: int, label: str, **attrs: Any) -> np.ndarray:
    """REFERENCE's first output of the case, with ``attrs`` of the op under test changed first."""
    case = build_stimulus(op, version, label)
    _node_of = R.ops_under_test(case.model, op)[0]
    _node_of.attrs.update(attrs)
    return np.asarray(R.run_reference(case.model, R.case_steps(case))[0][0])


# -- in process: the cases are what their labels say --------------------------------------------------------

def test_every_case_runs_at_standard_depth_and_is_small() -> None:
    assert {op for op, _ in KEYS} == {"DepthToSpace", "SpaceToDepth", "StridedSlice", "Slice", "Einsum", "Bucketize",
                                      "NormalizeL2", "MVN", "Round"}
    for op, version in KEYS:
        labels = M.labels(op, version)
        assert labels and set(labels) <= {s.label for s in stimuli(op, version, Depth.STANDARD)}, (op, version)
        for label in labels:
            arrays = [np.asarray(v) for v in build_stimulus(op, version, label).inputs.values()]
            assert all(a.size <= 512 for a in arrays), (op, label)


@pytest.mark.parametrize("op", ["DepthToSpace", "SpaceToDepth"])
def test_block_cases_take_blocks_3_and_4_where_the_modes_differ(op: str) -> None:
    seen = set()
    for label in M.labels(op, 1):
        node = _node(op, 1, label)
        block, mode = int(node.attrs["block_size"]), node.attrs["mode"]
        assert block >= 3 and label.endswith(mode)
        other = "blocks_first" if mode == "depth_first" else "depth_first"
        assert not np.array_equal(_reference(op, 1, label), _reference(op, 1, label, mode=other)), label
        seen.add((block, mode))
    assert seen == {(b, m) for b in (3, 4) for m in ("depth_first", "blocks_first")}


def test_strided_slices_mask_or_overshoot_negative_stride_axes() -> None:
    kinds = set()
    for label, (shape, begin, end, strides, bm, em, _note) in M.STRIDED.items():
        for ax, stride in enumerate(strides):
            if stride > 0:
                continue
            if bm[ax]:
                kinds.add("begin_mask")
            elif begin[ax] >= shape[ax]:
                kinds.add("begin past end")
            if em[ax]:
                kinds.add("end_mask")
        index = tuple(slice(None if bm[i] else begin[i], None if em[i] else end[i], strides[i])
                      for i in range(len(shape)))
        data = build_stimulus("StridedSlice", 1, label).inputs["data"]
        assert np.array_equal(_reference("StridedSlice", 1, label), data[index]), label
    assert kinds == {"begin_mask", "end_mask", "begin past end"}
    for label, (dims, start, stop, step, axes, _note) in M.SLICES.items():
        assert step[0] < 0 and start[0] >= dims[axes[0]]
        slices = [slice(None)] * len(dims)
        slices[axes[0]] = slice(start[0], stop[0], step[0])
        data = build_stimulus("Slice", 8, label).inputs["data"]
        assert np.array_equal(_reference("Slice", 8, label), data[tuple(slices)]), label


def test_einsum_cases_repeat_a_label_inside_an_operand_as_numpy_does() -> None:
    for label, (equation, _shapes) in M.DIAGONALS.items():
        terms = equation.partition("->")[0].split(",")
        assert equation != "ii->i" and any(len(set(t.replace(".", ""))) < len(t.replace(".", "")) for t in terms)
        case = build_stimulus("Einsum", 7, label)
        operands = [case.inputs[f"in{i}"].astype(np.float64) for i in range(len(terms))]
        np.testing.assert_allclose(_reference("Einsum", 7, label), np.einsum(equation, *operands), rtol=1e-5,
                                   atol=1e-5)


def test_bucketize_cases_put_integers_on_the_boundaries() -> None:
    for label in M.labels("Bucketize", 3):
        case = build_stimulus("Bucketize", 3, label)
        data = case.inputs["data"]
        assert data.dtype.kind == "i" and np.isin(data, M.BUCKETS).mean() > 0.4
        right = _node("Bucketize", 3, label).attrs["with_right_bound"]
        expected = np.searchsorted(np.array(M.BUCKETS), data, side="left" if right else "right")
        assert np.array_equal(_reference("Bucketize", 3, label), expected), label
    assert {_node("Bucketize", 3, label).attrs["with_right_bound"] for label in M.labels("Bucketize", 3)} == {True,
                                                                                                             False}


@pytest.mark.parametrize(("op", "version", "attr", "modes"),
                         [("NormalizeL2", 1, "eps_mode", ("max", "add")),
                          ("MVN", 6, "eps_mode", ("INSIDE_SQRT", "OUTSIDE_SQRT")),
                          ("Round", 5, "mode", ("half_away_from_zero", "half_to_even"))])
def test_the_other_mode_changes_the_result_clearly(op: str, version: int, attr: str, modes: tuple[str, str]) -> None:
    seen = set()
    for label in M.labels(op, version):
        mode = str(_node(op, version, label).attrs[attr])
        seen.add(mode)
        other = modes[1] if mode == modes[0] else modes[0]
        mine, theirs = _reference(op, version, label), _reference(op, version, label, **{attr: other})
        rel = np.abs(mine.astype(np.float64) - theirs) / np.maximum(np.abs(mine.astype(np.float64)), 1e-3)
        assert rel.max() > 0.09, (label, rel.max())
    assert seen == set(modes)


# -- one run of the suites --------------------------------------------------------------------------------------

DEPTH_FIRST = {"b3-depth_first", "b4-depth_first", "5d-b3-depth_first"}
#: fault -> op version -> the new cases it must fail (every other new case of the op version passes).
MUST_FAIL: dict[str, dict[str, set[str]]] = {
    "DepthSpaceLargeBlockIgnoresMode": {"DepthToSpace-1": DEPTH_FIRST, "SpaceToDepth-1": DEPTH_FIRST},
    "StridedSliceMaskedBeginNegStride": {"StridedSlice-1": {"neg-stride-begin-mask", "neg-stride-begin-mask-3d"}},
    "NegStrideBeginPastEndClampsToDim": {"StridedSlice-1": {"neg-stride-begin-int64max", "neg-stride-begin-past-end"},
                                         "Slice-8": {"neg-step-start-int64max", "neg-step-start-past-end"}},
    "EinsumDiagonalOnlyForMatrices": {"Einsum-7": set(M.DIAGONALS)},
    "BucketizeIntegerIgnoresRightBound": {"Bucketize-3": {"int-right-bound", "int-right-bound-i64"}},
    "NormalizeL2MaxAsAdd": {"NormalizeL2-1": {"max-eps-dominates", "max-eps-axes12"}},
    "MvnAlwaysOutsideSqrt": {"MVN-6": {"inside-sqrt-eps"}},
    "RoundAwayAsFloorPlusHalf": {"Round-5": {"away-halves", "away-halves-f16"}},
}
#: faults a generated case already reached (the red team saw MVN-6-case2 and Round-5-case3 fail):
#: their generated failures are allowed, not required.
GENERATED_MAY_FAIL = {"MvnAlwaysOutsideSqrt", "RoundAwayAsFloorPlusHalf"}


def _name(fault: str) -> str:
    return str(getattr(faults, fault).device_name)



def _selection() -> str:
    parts = []
    for fault, ops in faults.FAULTS.items():
        terms = [f"[{op}-case" for op in ops]
        terms += [f"[{op}-{label}-" for op in ops for label in M.labels(*op_version_key(op))]
        parts.append(f"({_name(fault)} and ({' or '.join(terms)}))")
    mine = " or ".join(f"[{op}-{v}-{label}-" for op, v in KEYS for label in M.labels(op, v))
    parts.append(f"(REFERENCE and ({mine}))")
    return f"test_op_inference and ({' or '.join(parts)})"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults_modes:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", _selection(), "--ovconform-depth", "standard",
                       timeout=900)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "stimulus_modes_runs", _run)



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
            assert must <= set(M.labels(*op_version_key(op_version))), (fault, op_version)


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_each_fault_fails_exactly_its_new_cases(runs: dict[str, Any], fault: str) -> None:
    device = _name(fault)
    records = runs[device]
    assert_fails_only_its_ops(records, fault, list(faults.FAULTS[fault]))
    for op_version, must in MUST_FAIL[fault].items():
        ran = case_statuses(records, device, op_version)
        new = set(M.labels(*op_version_key(op_version)))
        assert new <= set(ran), (op_version, sorted(new - set(ran)))
        failed = {k for k, s in ran.items() if s in FAILING}
        assert failed & new == must, (op_version, sorted(failed & new ^ must))
        generated = {k for k in ran if R.generated_index(k) is not None}
        assert len(generated) >= 10 and set(ran) == new | generated, op_version
        if fault not in GENERATED_MAY_FAIL:
            assert not generated & failed, (op_version, sorted(generated & failed))
