"""Stimulus cases of the element-type corners (:mod:`ovconform.opcases._stimulus_types`) and the
boolean byte check of :func:`ovconform.tolerances.compare`.

In process: the cases reach what their labels claim (exact ties of the 8-bit floats, values past their
largest, NaN payloads in bf16's dropped bits, i64 values beyond i32, narrowing that wraps, f16 results
past 65504 from finite operands, i32 results past 2^24, NUL bytes and empty ranges in strings) and stay
small; ``compare`` refuses a boolean held as a byte other than 0 and 1. One pytest run (standard depth,
the Inference test only, ``-p no:xdist``) runs REFERENCE on every case of the module and each device of
``tests/plugins/stimulus_faults_types.py`` (a red team's element-type bugs, each passing every test of
its ops before) on its ops' generated cases and these cases: REFERENCE passes all, each device fails
exactly the new cases its bug is in, nothing outside its ops and no generated case; the device whose
booleans are 0xFF bytes fails Greater's cases that hold a true, with a message naming the byte.
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
from plugins import stimulus_faults_types as faults

from ovconform.assertions import assert_outputs_close
from ovconform.ir import Type
from ovconform.ir._element_codec import decode
from ovconform.opcases import _stimulus_types as M
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import build_stimulus, stimuli
from ovconform.suites import _op_runner as R
from ovconform.tolerances import Tolerance, compare

KEYS = sorted(M.RECIPES)


def _inputs(op: str, version: int, label: str) -> list[np.ndarray]:
    return [np.asarray(v) for v in build_stimulus(op, version, label).inputs.values()]


def _reference(op: str, version: int, label: str) -> list[np.ndarray]:
    case = build_stimulus(op, version, label)
    return [np.asarray(o) for o in R.run_reference(case.model, R.case_steps(case))[0]]


# -- in process: the cases are what their labels say --------------------------------------------------------

def test_every_case_runs_at_standard_depth_and_is_small() -> None:
    assert {op for op, _ in KEYS} == {"Convert", "FakeConvert", "Add", "Subtract", "Multiply", "Exp", "Power",
                                      "SquaredDifference", "StringTensorUnpack", "StringTensorPack"}
    total = 0
    for op, version in KEYS:
        labels = M.labels(op, version)
        total += len(labels)
        assert labels and set(labels) <= {s.label for s in stimuli(op, version, Depth.STANDARD)}, (op, version)
        for label in labels:
            assert all(a.size <= 512 for a in _inputs(op, version, label)), (op, label)
    assert 25 <= total <= 40, total


@pytest.mark.parametrize("dst", ["f8e4m3", "f8e5m2"])
def test_f8_cases_hold_exact_ties_and_values_past_the_largest(dst: str) -> None:
    et = getattr(Type, dst)
    grid = np.unique(np.abs(decode(np.arange(256, dtype=np.uint8), et)))
    grid = grid[np.isfinite(grid)]
    ties = (grid[:-1] + grid[1:]) / 2
    src_labels = [lbl for lbl in M.labels("Convert", 1) if lbl.endswith(f"{dst}-ties")]
    assert src_labels
    for label in src_labels:
        (x,) = _inputs("Convert", 1, label)
        v = np.abs(x.astype(np.float64))
        assert np.array_equal(v, v.astype(np.float16).astype(np.float64)), label  # f16-exact
        assert np.isin(v, ties).mean() > 0.2, label
        codes = _reference("Convert", 1, label)[0]
        at_tie = np.isin(v, ties)
        assert np.all(codes[at_tie] % 2 == 0), label  # ties to the even code
    (x,) = _inputs("Convert", 1, f"f32-{dst}-beyond-max")
    assert (np.abs(x[np.isfinite(x)]) > grid[-1]).mean() > 0.3


def test_bf16_case_hides_nan_payloads_in_the_dropped_bits() -> None:
    (x,) = _inputs("Convert", 1, "f32-bf16-nan-payloads")
    bits = x.view(np.uint32)
    low_only = ((bits & 0x7F800000) == 0x7F800000) & ((bits & 0x7FFFFF) != 0) & ((bits & 0x7F0000) == 0)
    assert low_only.mean() > 0.2 and np.signbit(x[low_only]).any() and (~np.signbit(x[low_only])).any()
    out = _reference("Convert", 1, "f32-bf16-nan-payloads")[0]
    assert np.all((out[np.isnan(x)] & 0x7F80) == 0x7F80) and np.all(out[np.isnan(x)] & 0x7F)


def test_wide_and_narrowing_converts_leave_the_narrow_range() -> None:
    for dst in ("f32", "f64", "boolean"):
        (x,) = _inputs("Convert", 1, f"i64-{dst}-wide")
        assert (np.abs(x) > 2 ** 31).mean() > 0.8 and x.dtype == np.int64
    (x,) = _inputs("Convert", 1, "i64-boolean-wide")
    assert np.all(x.astype(np.int32)[np.abs(x) > 2 ** 31] == 0)  # through 32 bits every wide value is false
    for label, (_src, dst, _bound) in M.NARROW.items():
        (x,) = _inputs("Convert", 1, label)
        info = np.iinfo(dst.to_dtype())
        outside = (x.astype(np.int64) > info.max) | (x.astype(np.int64) < info.min)
        assert outside.mean() > 0.3, label
        out = _reference("Convert", 1, label)[0]
        assert np.array_equal(out, x.astype(np.int64).astype(dst.to_dtype())), label  # modulo 2^N


def test_fake_convert_cases_scale_past_the_largest_value_inside_f16() -> None:
    for label, (_dest, largest, shift) in M.FAKE.items():
        case = build_stimulus("FakeConvert", 13, label)
        data = case.inputs["data"].astype(np.float64)
        scale = np.array(M.SCALES[:data.shape[0]]).reshape(-1, 1)
        scaled = data * scale - shift
        assert (np.abs(scaled) > largest).mean() > 0.2 and np.abs(scaled).max() < 65504, label
        out = _reference("FakeConvert", 13, label)[0].astype(np.float64) * scale - shift
        assert np.isfinite(out).all() and np.abs(out).max() == largest, label


@pytest.mark.parametrize("op", sorted(M.OVERFLOW))
def test_f16_cases_overflow_from_finite_operands_away_from_the_rounding_gap(op: str) -> None:
    args = _inputs(op, 1, "f16-overflow")
    assert all(a.dtype == np.float16 and np.isfinite(a).all() for a in args)
    exact = np.abs(M._exact(op, tuple(a.astype(np.float64) for a in args)))
    assert 0.25 < (exact >= M.F16_RANGE_GAP[1]).mean() < 0.85, op
    assert not ((exact > M.F16_RANGE_GAP[0]) & (exact < M.F16_RANGE_GAP[1])).any()
    out = _reference(op, 1, "f16-overflow")[0]
    assert np.array_equal(np.isinf(out), exact >= M.F16_RANGE_GAP[1]), op


@pytest.mark.parametrize("op", ["Add", "Subtract", "Multiply"])
def test_i32_cases_pass_2_to_the_24_without_overflow(op: str) -> None:
    a, b = (x.astype(np.int64) for x in _inputs(op, 1, "i32-beyond-2p24"))
    exact = {"Add": a + b, "Subtract": a - b, "Multiply": a * b}[op]
    assert (np.abs(exact) > 2 ** 24).mean() > 0.9 and np.abs(exact).max() < 2 ** 31, op
    assert np.array_equal(_reference(op, 1, "i32-beyond-2p24")[0], exact), op
    assert not np.array_equal(exact.astype(np.float32).astype(np.int64), exact), op  # an f32 detour shows


def test_string_cases_hold_nul_bytes_and_empty_ranges() -> None:
    (data,) = _inputs("StringTensorUnpack", 15, "embedded-nul")
    flat = list(data.reshape(-1))
    assert sum("\x00" in s for s in flat) >= 8 and "" in flat and not any(s.endswith("\x00") for s in flat)
    out = _reference("StringTensorPack", 15, "embedded-nul")[0].reshape(-1)
    assert all("\x00" in s and not s.endswith("\x00") for s in out)
    case = build_stimulus("StringTensorPack", 15, "empty-ranges")
    begins, ends = case.inputs["begins"], case.inputs["ends"]
    empty = np.flatnonzero(begins == ends)
    assert {0, begins.size - 1} <= set(empty) and np.any(np.diff(empty) == 1)
    out = _reference("StringTensorPack", 15, "empty-ranges")[0]
    assert all(out[i] == "" for i in empty) and all(out[i] for i in range(out.size) if i not in empty)


def test_compare_refuses_a_boolean_held_as_another_byte() -> None:
    expected = np.array([[True, False, True]])
    mask = expected.copy()
    mask.view(np.uint8)[...] *= 255
    assert np.array_equal(mask, expected)  # numpy's own comparison does not see it
    result = compare(mask, expected, Tolerance(0.0, 0.0), "boolean")
    assert not result.passed and result.worst_index == (0, 0) and result.mismatch_count == 2
    assert "byte 0xff at [0, 0]" in result.message and "0x00 (false) or 0x01 (true)" in result.message
    assert compare(expected.copy(), expected, Tolerance(0.0, 0.0), "boolean").passed
    with pytest.raises(AssertionError, match=r"out \(boolean bytes\)='boolean stored as the byte 0xff at \[0, 0\]"):
        assert_outputs_close(mask, expected, "out", "DEV.infer()")
    assert_outputs_close(expected.copy(), expected, "out", "DEV.infer()")


# -- one run of the suites --------------------------------------------------------------------------------------

F8_LABELS = {"f32-f8e4m3-ties", "f32-f8e5m2-ties", "f16-f8e4m3-ties", "f32-f8e4m3-beyond-max", "f32-f8e5m2-beyond-max"}
ARITH = ("Add-1", "Subtract-1", "Multiply-1", "Exp-1", "Power-1", "SquaredDifference-1")
#: fault -> op version -> the new cases it must fail (every other new case of the op version passes).
MUST_FAIL: dict[str, dict[str, set[str]]] = {
    "FakeConvertE5M2NoSaturation": {"FakeConvert-13": {"f8e5m2-beyond-max", "f8e5m2-beyond-max-shift"}},
    "BF16ConvertNoNaNCheck": {"Convert-1": {"f32-bf16-nan-payloads"}},
    "StringsCutAtNul": {"StringTensorUnpack-15": {"embedded-nul"}, "StringTensorPack-15": {"embedded-nul"}},
    "StringPackEmptyKeepsPrevious": {"StringTensorPack-15": {"empty-ranges"}},
    "F16ArithmeticSaturates": {op: {"f16-overflow"} for op in ARITH},
    "ConvertToF8Truncates": {"Convert-1": F8_LABELS},
    "ConvertI64ThroughI32": {"Convert-1": {"i64-f32-wide", "i64-f64-wide", "i64-boolean-wide"}},
    "ConvertNarrowingToSignedSaturates": {"Convert-1": set(M.NARROW)},
    "I32ArithmeticThroughF32": {op: {"i32-beyond-2p24"} for op in ("Add-1", "Subtract-1", "Multiply-1")},
}
#: the boolean-byte device runs on Greater's cases (a boolean output) and Add's generated ones (none)
BOOL_FAULT, BOOL_OP, BOOL_CONTROL = "BoolOutputsAs255", "Greater-1", "Add-1"


def _name(fault: str) -> str:
    return str(getattr(faults, fault).device_name)


def _selection() -> str:
    parts = []
    for fault, ops in faults.FAULTS.items():
        terms = [f"[{op}-case" for op in ops]
        terms += [f"[{op}-{label}-" for op in ops for label in M.labels(*op_version_key(op))]
        parts.append(f"({_name(fault)} and ({' or '.join(terms)}))")
    parts.append(f"({_name(BOOL_FAULT)} and ([{BOOL_OP}- or [{BOOL_CONTROL}-case))")
    mine = " or ".join(f"[{op}-{v}-{label}-" for op, v in KEYS for label in M.labels(op, v))
    parts.append(f"(REFERENCE and ({mine}))")
    return f"test_op_inference and ({' or '.join(parts)})"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults_types:{name}" for name in (*faults.FAULTS, BOOL_FAULT)]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", _selection(), "--ovconform-depth", "standard",
                       timeout=900)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "stimulus_types_runs", _run)


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
        assert not generated & failed, (op_version, sorted(generated & failed))


def test_boolean_mask_bytes_fail_every_case_with_a_true(runs: dict[str, Any]) -> None:
    device = _name(BOOL_FAULT)
    records = runs[device]
    assert_fails_only_its_ops(records, BOOL_FAULT, [BOOL_OP])
    ran = case_statuses(records, device, BOOL_OP)
    control = case_statuses(records, device, BOOL_CONTROL)
    assert len(control) >= 10 and set(control.values()) == {"passed"}
    stimulus = {k for k in ran if R.generated_index(k) is None}
    assert {"rem7", "rem17", "large"} <= stimulus
    assert all(ran[k] == "failed" for k in stimulus if not k.startswith("empty")), ran
    for test_id, record in records.items():
        if record["status"] == "failed":
            assert "boolean stored as the byte 0xff" in record["message"], (test_id, record["message"][:300])
