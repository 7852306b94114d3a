"""Stimulus cases of the detection, image, state and string op versions (issue #20;
:mod:`ovconform.opcases._stimulus_image`).

In process: every op version has remainder and large cases, they reach the sizes that matter (more
than 64 ROIs, chroma rows past a vector, 64K-element inputs) and their REFERENCE outputs are not
degenerate (proposals fill their rows, detections are found, strings are empty and multi-byte). One
pytest run (standard depth, ``-p no:xdist``) runs REFERENCE on every stimulus case of these ops and
the devices of ``tests/plugins/stimulus_faults_image.py`` on their ops: each fails only its ops'
stimulus cases, as "failed", and passes every generated case (which never reach 64 ROIs or a chroma
row of more than 8 values).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import by_test, once_per_session, run_devices
from plugins import stimulus_faults_image as faults

from ovconform.ir import Type
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import LARGE_ELEMENTS, all_stimulus_keys, build_stimulus, stimuli
from ovconform.suites import _op_runner as R

FAIL = ("failed", "error", "crashed", "hanged")
NEW = (("ROIAlign", 3), ("ROIAlign", 9), ("ROIAlignRotated", 15), ("ROIPooling", 2), ("PSROIPooling", 1),
       ("DeformablePSROIPooling", 1), ("PriorBox", 1), ("PriorBox", 8), ("PriorBoxClustered", 1), ("Proposal", 1),
       ("Proposal", 4), ("RegionYolo", 1), ("ReorgYolo", 2), ("GenerateProposals", 9),
       ("ExperimentalDetectronDetectionOutput", 6), ("ExperimentalDetectronGenerateProposalsSingleImage", 6),
       ("ExperimentalDetectronPriorGridGenerator", 6), ("ExperimentalDetectronROIFeatureExtractor", 6),
       ("ExperimentalDetectronTopKROIs", 6), ("I420toBGR", 8), ("I420toRGB", 8), ("NV12toBGR", 8),
       ("NV12toRGB", 8), ("RGBtoNV12", 17), ("BGRtoNV12", 17), ("Assign", 3), ("Assign", 6), ("ReadValue", 3),
       ("ReadValue", 6), ("StringTensorPack", 15), ("StringTensorUnpack", 15))
#: Op versions whose inputs hold sizes, not data (the large class is in their outputs).
SIZE_INPUTS = {"PriorBox", "PriorBoxClustered"}
#: Op versions with a dynamic-shape case: all but PriorBox* (the output shape follows a Constant's value) and
#: ReadValue/Assign-3 (a static variable shape, as OpenVINO CPU requires).
DYNAMIC = {op_v for op_v in NEW if op_v[0] not in SIZE_INPUTS and op_v not in (("ReadValue", 3), ("Assign", 3))}


@pytest.mark.parametrize(("op", "version"), NEW)
def test_every_op_version_has_remainder_large_and_dynamic_cases(op: str, version: int) -> None:
    assert (op, version) in all_stimulus_keys()
    cases = stimuli(op, version, Depth.STANDARD)
    assert {s.size for s in cases} >= {"remainder", "large"}
    if not op.startswith("String"):
        assert len({s.element_type for s in stimuli(op, version, Depth.EXHAUSTIVE)}) >= 2
    assert any(s.dynamic for s in cases) == ((op, version) in DYNAMIC)
    largest = 0
    for s in cases:
        case = build_stimulus(op, version, s.label)
        largest = max(largest, *(np.asarray(v).size for v in case.inputs.values()))
        if s.size == "large" and op in SIZE_INPUTS:
            out = case.model.get_results()[0].get_input_partial_shape(0).to_shape()
            assert int(np.prod(out)) >= LARGE_ELEMENTS, (s.label, out)
    if op not in SIZE_INPUTS and not op.startswith(("String", "ExperimentalDetectronDetection",
                                                     "ExperimentalDetectronTopK", "Proposal",
                                                     "GenerateProposals", "ExperimentalDetectronGenerate")):
        assert largest >= LARGE_ELEMENTS, largest


def _roi_counts(op: str, version: int) -> set[int]:
    counts = set()
    for s in stimuli(op, version, Depth.STANDARD):
        case = build_stimulus(op, version, s.label)
        for inputs in [case.inputs, *case.extra.get("dynamic_inputs", [])]:
            counts.add(int(inputs["rois"].shape[0]))
    return counts


@pytest.mark.parametrize(("op", "version"), [("ROIAlign", 3), ("ROIAlign", 9), ("ROIAlignRotated", 15),
                                             ("ROIPooling", 2), ("PSROIPooling", 1), ("DeformablePSROIPooling", 1)])
def test_roi_ops_reach_past_two_tiles_of_rois(op: str, version: int) -> None:
    assert {65, 129} <= _roi_counts(op, version)


@pytest.mark.parametrize("op", ["NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR"])
def test_colour_cases_have_remainder_chroma_rows_and_large_images(op: str) -> None:
    widths, pixels = set(), 0
    for s in stimuli(op, 8, Depth.STANDARD):
        out = build_stimulus(op, 8, s.label).model.get_results()[0].get_input_partial_shape(0)
        if out.is_static:
            shape = out.to_shape()
            widths.add(shape[2] // 2)
            pixels = max(pixels, shape[1] * shape[2])
    assert {17, 33, 65} <= widths and pixels >= 224 * 224


def _outputs(op: str, version: int, label: str) -> list[np.ndarray]:
    case = build_stimulus(op, version, label)
    return R.run_reference(case.model, R.case_steps(case))[0]


@pytest.mark.parametrize("version", [1, 4])
def test_proposals_fill_every_row(version: int) -> None:
    for label in ("map17x33", "map38x50"):
        rois = _outputs("Proposal", version, label)[0]
        widths = rois[:, 3] - rois[:, 1]
        assert rois.shape[0] >= 32 and (widths > 0).all(), label  # no zero padding row: enough boxes survive


def test_generated_proposals_and_detections_are_not_degenerate() -> None:
    rois, _, count = _outputs("GenerateProposals", 9, "map38x50")
    assert int(count.sum()) == 300 and rois.shape[0] == 300
    rois, scores = _outputs("ExperimentalDetectronGenerateProposalsSingleImage", 6, "map38x50")
    assert (scores > 0).all() and len(np.unique(scores)) == scores.size
    boxes, classes, scores = _outputs("ExperimentalDetectronDetectionOutput", 6, "clusters144-c5")
    assert (scores > 0).sum() == 500 and set(np.unique(classes[scores > 0])) == {1, 2, 3, 4}
    rois, = _outputs("ExperimentalDetectronTopKROIs", 6, "rois16385-top1000")
    assert rois.shape == (1000, 4)


def test_state_cases_accumulate_and_the_dynamic_state_changes_shape() -> None:
    case = build_stimulus("ReadValue", 6, "dynamic-state")
    steps = R.case_steps(case)
    got = R.run_reference(case.model, steps)
    assert [o[0].shape for o in got] == [(1, 65), (1, 65), (3, 65), (5, 65)]  # the previous input, the first its own
    np.testing.assert_array_equal(got[2][0], steps[1]["x"])
    case = build_stimulus("Assign", 3, "f16-rem65")
    assert case.model.get_parameters()[0].get_output_element_type(0) == Type.f16
    sums = R.run_reference(case.model, R.case_steps(case))
    x = case.inputs["x"].astype(np.float64)
    np.testing.assert_array_equal(sums[2][0].astype(np.float64) - sums[1][0].astype(np.float64), x)


def test_string_cases_hold_empty_long_and_multibyte_strings() -> None:
    data = build_stimulus("StringTensorUnpack", 15, "strings4097").inputs["data"]
    assert data.size == 4097 and "" in set(data.tolist())
    assert any(len(t.encode()) == 4 * len(t) > 0 for t in data.tolist() if set(t) <= {"😀", "🚀"}) or any(
        len(t.encode()) > len(t) for t in data.tolist())
    long = build_stimulus("StringTensorPack", 15, "long-strings-i64").inputs
    assert int((long["ends"] - long["begins"]).max()) >= 5000


# -- one run of the suites --------------------------------------------------------------------------------------

def _name(fault: str) -> str:
    return str(getattr(faults, fault).device_name)


def _selection() -> str:
    parts = []
    for fault, ops in faults.FAULTS.items():
        parts.append(f"({_name(fault)} and ({' or '.join(f'[{op}-' for op in ops)}))")
    everything = " or ".join(f"[{op}-{v}-" for op, v in NEW)
    parts.append(f"(REFERENCE and ({everything}) and not -case)")
    return f"test_op_inference and ({' or '.join(parts)})"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults_image:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", _selection(), "--ovconform-depth", "standard",
                       "--ovconform-examples", "10", timeout=900)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "stimulus_image_runs", _run)


def _labels(runs: dict[str, Any], device: str) -> dict[str, str]:
    out = {}
    for test_id, r in runs[device].items():
        key = test_id.partition("[")[2].removesuffix("]").removesuffix(f"-{device}")
        out[key] = r["status"]
    return out


def test_reference_passes_every_new_case(runs: dict[str, Any]) -> None:
    ran = _labels(runs, "REFERENCE")
    for op, version in NEW:
        mine = {k: s for k, s in ran.items() if k.startswith(f"{op}-{version}-")}
        assert {k.removeprefix(f"{op}-{version}-") for k in mine} == {s.label for s in stimuli(op, version)}
        assert set(mine.values()) == {"passed"}, {k: s for k, s in mine.items() if s != "passed"}


#: fault -> the stimulus labels it must fail (per op version) and the ones it must pass.
MUST_FAIL = {
    "RoiAlignStaleTile": {"rois65", "rois129", "rois129-max", "f16-rois65", "dynamic"},
    "Nv12ChromaTail": {"hw56", "single-h56-w130", "h58-w34", "f32-h56-w66", "f16-single-h56-w66", "dynamic"},
}
MUST_PASS = {
    "RoiAlignStaleTile": {"c65-adaptive", "hw56"},
    "Nv12ChromaTail": {"h256-w320"},  # 160 chroma values a row: whole vectors
}


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_faults_are_caught_by_the_new_stimulus_only(runs: dict[str, Any], fault: str) -> None:
    device = _name(fault)
    ran = _labels(runs, device)
    for op_version in faults.FAULTS[fault]:
        mine = {k.removeprefix(f"{op_version}-"): s for k, s in ran.items() if k.startswith(f"{op_version}-")}
        failed = {k for k, s in mine.items() if s in FAIL}
        assert MUST_FAIL[fault] <= failed, (op_version, sorted(MUST_FAIL[fault] - failed))
        assert not MUST_PASS[fault] & failed, (op_version, sorted(MUST_PASS[fault] & failed))
        generated = [k for k in mine if R.generated_index(k) is not None]
        assert len(generated) >= 10 and not failed & set(generated), (op_version, sorted(failed & set(generated)))
        for k in failed:
            record = runs[device][f"test_op_inference[{op_version}-{k}-{device}]"]
            assert record["status"] == "failed", (k, record["status"])
            assert record["message"].startswith(f"Failed: declared supported but failed: {op_version}"), record
    others = {k: s for k, s in ran.items() if not k.startswith(tuple(f"{o}-" for o in faults.FAULTS[fault]))}
    assert not others, sorted(others)[:5]  # the run selects only its ops
