"""Stimulus cases of the layout and index op versions (issue #20; :mod:`ovconform.opcases._stimulus_layout`).

In process: every op version of the batch has remainder, large and dynamic cases and its spec's
element types, the cases reach the sizes they claim (rows past 64 elements, 64-bit shift counts
past 31, three output lengths on one Range model) and their values stay where the spec defines
the result. One pytest run (``-p no:xdist``, standard depth, the Inference test only) runs
REFERENCE on every stimulus case of the batch and each device of
``tests/plugins/stimulus_faults_layout.py`` on its ops' generated and stimulus cases: REFERENCE
passes all, each fault fails only its ops' stimulus cases where it is wrong, and no generated case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import FAILING, assert_fails_only_its_ops, by_test, once_per_session, run_devices
from plugins import stimulus_faults_layout as faults

from ovconform.ir import Type
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import all_stimulus_keys, build_stimulus, stimuli
from ovconform.suites import _op_runner as R

BATCH = (("Gather", 1), ("Gather", 7), ("GatherElements", 6), ("GatherND", 5), ("GatherND", 8), ("GatherTree", 1),
         ("DepthToSpace", 1), ("SpaceToDepth", 1), ("ShuffleChannels", 1), ("BatchToSpace", 2), ("SpaceToBatch", 2),
         ("Roll", 7), ("Reverse", 1), ("ReverseSequence", 1), ("Split", 1), ("VariadicSplit", 1), ("Reshape", 1),
         ("Squeeze", 1), ("Squeeze", 15), ("Unsqueeze", 1), ("ShapeOf", 1), ("ShapeOf", 3), ("SliceScatter", 15),
         ("Identity", 16), ("ConvertPromoteTypes", 14), ("BitwiseLeftShift", 15), ("BitwiseRightShift", 15),
         ("ExtractImagePatches", 3), ("Col2Im", 15), ("Eye", 9), ("OneHot", 1), ("OneHot", 16), ("Range", 1),
         ("Range", 4))


@pytest.mark.parametrize(("op", "version"), BATCH)
def test_every_op_version_has_remainder_large_and_dynamic_cases(op: str, version: int) -> None:
    assert (op, version) in all_stimulus_keys()
    cases = stimuli(op, version, Depth.STANDARD)
    assert {s.size for s in cases} >= {"remainder", "large"}, (op, version)
    assert any(s.dynamic for s in cases), (op, version)
    assert len({s.element_type for s in stimuli(op, version, Depth.EXHAUSTIVE)}) >= 2, (op, version)
    labels = {s.label for s in stimuli(op, version, Depth.EXHAUSTIVE)}
    assert labels > {s.label for s in cases}  # exhaustive adds the other remainders and types


def _largest_input(op: str, version: int, label: str) -> int:
    case = build_stimulus(op, version, label)
    sizes = [np.asarray(v).size for v in case.inputs.values()]
    sizes += [int(np.prod(r.get_input_partial_shape(0).to_shape())) for r in case.model.get_results()
              if r.get_input_partial_shape(0).is_static]
    return max(sizes)


@pytest.mark.parametrize(("op", "version"), [k for k in BATCH if k[0] not in ("Eye", "Range", "OneHot")])
def test_large_cases_reach_64k_elements(op: str, version: int) -> None:
    large = [s.label for s in stimuli(op, version, Depth.STANDARD) if s.size == "large"]
    assert max(_largest_input(op, version, label) for label in large) >= 1 << 16


@pytest.mark.parametrize(("op", "version", "label"), [("Eye", 9, "large"), ("Range", 1, "large"),
                                                      ("Range", 4, "i64-large"), ("OneHot", 16, "large")])
def test_value_made_outputs_reach_64k_elements(op: str, version: int, label: str) -> None:
    case = build_stimulus(op, version, label)
    (out,) = R.run_reference(case.model, R.case_steps(case))[0]
    assert out.size >= 1 << 16


def test_gather_copies_rows_past_the_block_widths() -> None:
    rows = set()
    for s in stimuli("Gather", 7, Depth.STANDARD):
        case = build_stimulus("Gather", 7, s.label)
        node = R.ops_under_test(case.model)[0]
        shape = case.inputs["data"].shape
        axis = int(np.asarray(node.input_value(2).get_node().data)) % len(shape)
        rows.add(int(np.prod(shape[axis + 1:])))
    assert {7, 17, 63, 129, 1025} <= rows  # short of and past 8-, 16-, 64- and 128-wide copies


@pytest.mark.parametrize("op", ["BitwiseLeftShift", "BitwiseRightShift"])
def test_shift_counts_cover_the_whole_width_and_nothing_undefined(op: str) -> None:
    for s in stimuli(op, 15, Depth.EXHAUSTIVE):
        case = build_stimulus(op, 15, s.label)
        for a, b in [(step["a"], step["b"]) for step in R.case_steps(case)]:
            bits = a.dtype.itemsize * 8
            counts = b.astype(np.int64)
            assert counts.min() >= 0 and counts.max() < bits, s.label  # the spec's defined counts
            if s.element_type in (Type.i64, Type.u64, Type.i8):
                assert counts.max() == bits - 1, s.label
            if op == "BitwiseLeftShift" and a.dtype.kind == "i":  # no signed overflow
                wide = a.astype(object) * (2 ** np.broadcast_to(counts, np.broadcast_shapes(a.shape, b.shape))
                                           .astype(object))
                info = np.iinfo(a.dtype)
                assert all(info.min <= int(v) <= info.max for v in np.ravel(wide)), s.label
    boundary = build_stimulus(op, 15, "boundary-i64" if op == "BitwiseRightShift" else "boundary-u64").inputs["a"]
    info = np.iinfo(boundary.dtype)
    assert {int(info.min), int(info.max)} <= {int(v) for v in boundary.ravel()}


@pytest.mark.parametrize("version", [1, 4])
def test_range_dynamic_case_infers_three_lengths_on_one_model(version: int) -> None:
    case = build_stimulus("Range", version, "dynamic")
    lengths = [R.run_reference(case.model, [step])[0][0].size for step in R.case_steps(case)]
    assert lengths == [7, 65, 129, 7]


# -- one run of the suites --------------------------------------------------------------------------------------

def _name(fault: str) -> str:
    return str(getattr(faults, fault).device_name)


def _selection() -> str:
    parts = [f"({_name(fault)} and ({' or '.join(f'[{op}-' for op in ops)}))" for fault, ops in faults.FAULTS.items()]
    mine = " or ".join(f"[{op}-{v}-" for op, v in BATCH)
    parts.append(f"(REFERENCE and ({mine}) and not case)")
    return f"test_op_inference and ({' or '.join(parts)})"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults_layout:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", _selection(), "--ovconform-depth", "standard",
                       timeout=900)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "stimulus_layout_runs", _run)


def _labels(records: dict[str, Any], device: str, op_version: str) -> dict[str, str]:
    """``label -> status`` of the inference tests of ``op_version`` (``"Gather-7"``)."""
    out = {}
    for test_id, r in records.items():
        key = test_id.partition("[")[2].removesuffix("]").removesuffix(f"-{device}")
        if key.startswith(f"{op_version}-"):
            out[key.removeprefix(f"{op_version}-")] = r["status"]
    return out


def test_reference_passes_every_stimulus_case_of_the_batch(runs: dict[str, Any]) -> None:
    for op, version in BATCH:
        ran = _labels(runs["REFERENCE"], "REFERENCE", f"{op}-{version}")
        assert set(ran) == {s.label for s in stimuli(op, version, Depth.STANDARD)}, (op, version)
        assert set(ran.values()) == {"passed"}, {k: s for k, s in ran.items() if s != "passed"}


#: fault -> the stimulus labels it must fail (each of its op versions) and the ones it must pass.
MUST_FAIL = {
    "GatherDropsPartialBlock": {"n129", "large-n1025", "f16-n65", "i8-n65", "i64-n65", "boolean-n65", "dynamic"},
    "ShiftCountMaskedTo5Bits": {"i64-n65", "u64-n65", "boundary-u64"},
    "RangeKeepsFirstLength": {"dynamic"},
    "RollCanonicalisesNaN": {"special-f32", "special-f16"},
    "DepthToSpaceLosesNegativeZero": {"special-f32", "special-f16"},
}
MUST_PASS = {
    "GatherDropsPartialBlock": {"n7", "n17", "n63", "special-f32", "last-axis-n129", "i32-indices-n63"},
    "ShiftCountMaskedTo5Bits": {"n129", "large", "i8-n65", "u8-n65", "boundary-u8", "dynamic"},
    "RangeKeepsFirstLength": {"n129", "large", "down-n65", "f16-n65"},
    "RollCanonicalisesNaN": {"n7", "n129", "large", "f16-n65", "dynamic"},
    "DepthToSpaceLosesNegativeZero": {"n7", "n129", "large", "f16-n65", "dynamic"},
}


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_each_fault_fails_only_its_ops_stimulus_cases(runs: dict[str, Any], fault: str) -> None:
    device = _name(fault)
    records = runs[device]
    ops = list(faults.FAULTS[fault])
    assert_fails_only_its_ops(records, fault, ops)
    for op_version in ops:
        ran = _labels(records, device, op_version)
        failed = {k for k, s in ran.items() if s in FAILING}
        assert MUST_FAIL[fault] <= failed, (op_version, sorted(MUST_FAIL[fault] - failed))
        assert not MUST_PASS[fault] & failed, (op_version, sorted(MUST_PASS[fault] & failed))
        generated = {k for k, s in ran.items() if R.generated_index(k) is not None}
        assert len(generated) >= 10 and not generated & failed, (op_version, sorted(generated & failed))
        assert all(ran[k] == "failed" for k in failed)


@pytest.mark.parametrize(("fault", "op_version"), [("RollCanonicalisesNaN", "Roll-7"),
                                                   ("DepthToSpaceLosesNegativeZero", "DepthToSpace-1")])
def test_a_copy_that_loses_bits_fails_saying_so_and_its_repro_does_too(runs: dict[str, Any], fault: str,
                                                                       op_version: str) -> None:
    """Every value right, bits lost: the special cases fail by their bits, and the reproducer
    the failure names compares bits too (exit 1)."""
    import os
    import subprocess
    import sys

    device = _name(fault)
    record = runs[device][f"test_op_inference[{op_version}-special-f32-{device}]"]
    assert record["status"] == "failed" and "bits differ at" in record["message"], record["message"]
    script = Path(record["facts"]["repro"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(faults.__file__).parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120,
                          check=False, cwd=script.parent)
    assert proc.returncode == 1 and "bits differ" in proc.stdout, proc.stdout + proc.stderr
