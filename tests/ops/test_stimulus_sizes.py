"""Stimulus cases for GroupConvolutionBackpropData-1, NonMaxSuppression-1/3/4/5/9 and
DetectionOutput-1/8 (issue #20; :mod:`ovconform.opcases._stimulus_detection`).

In process: the size classes they reach (channels per group of remainder length, >= 1,000 boxes,
>= 2,000 priors), the NMS cases' thresholds away from every IoU and score (no decision rests on
rounding), and that their REFERENCE outputs are not degenerate (boxes suppressed, detections
found). One pytest run (``-n 2``, standard depth) tests the devices of
``tests/plugins/stimulus_faults.py`` on those ops: each fails its op's stimulus cases where it
is wrong, and no generated case (which never reach 16 channels per group, 512 boxes or 1,024 priors).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import by_test, once_per_session, run_devices
from plugins import stimulus_faults as faults

from ovconform.ir import constant_value
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import all_stimulus_keys, build_stimulus, stimuli
from ovconform.suites import _op_runner as R

FAIL = ("failed", "error", "crashed", "hanged")
NEW = (("GroupConvolutionBackpropData", 1), *[("NonMaxSuppression", v) for v in (1, 3, 4, 5, 9)],
       ("DetectionOutput", 1), ("DetectionOutput", 8))


@pytest.mark.parametrize(("op", "version"), NEW)
def test_new_ops_have_remainder_and_large_cases(op: str, version: int) -> None:
    assert (op, version) in all_stimulus_keys()
    cases = stimuli(op, version, Depth.STANDARD)
    assert {s.size for s in cases} >= {"remainder", "large"}
    assert len({s.element_type for s in stimuli(op, version, Depth.EXHAUSTIVE)}) >= 2
    for s in cases:  # each builds, and REFERENCE computes it
        case = build_stimulus(op, version, s.label)
        assert R.run_reference(case.model, R.case_steps(case))


def test_group_deconvolution_reaches_the_channel_block_and_large_sizes() -> None:
    per_group = {}
    for s in stimuli("GroupConvolutionBackpropData", 1, Depth.STANDARD):
        node = R.ops_under_test(build_stimulus("GroupConvolutionBackpropData", 1, s.label).model)[0]
        ps = node.get_input_partial_shape(1)
        per_group[s.label] = ps.to_shape()[1] if ps.is_static else None
    assert {7, 17, 63, 129} <= set(per_group.values())
    assert per_group["depthwise-g65"] == 1
    out = build_stimulus("GroupConvolutionBackpropData", 1, "hw56-depthwise").model.get_results()[0]
    assert tuple(out.get_input_partial_shape(0).to_shape())[-2:] == (56, 56)


def _iou_matrix(boxes: np.ndarray) -> np.ndarray:
    y = np.sort(boxes[:, [0, 2]], axis=1)
    x = np.sort(boxes[:, [1, 3]], axis=1)
    ih = np.clip(np.minimum(y[:, None, 1], y[:, 1]) - np.maximum(y[:, None, 0], y[:, 0]), 0, None)
    iw = np.clip(np.minimum(x[:, None, 1], x[:, 1]) - np.maximum(x[:, None, 0], x[:, 0]), 0, None)
    area = (y[:, 1] - y[:, 0]) * (x[:, 1] - x[:, 0])
    inter = ih * iw
    return inter / (area[:, None] + area - inter)


@pytest.mark.parametrize("version", [1, 5, 9])
def test_nms_cases_are_large_and_their_thresholds_clear_of_every_iou_and_score(version: int) -> None:
    case = build_stimulus("NonMaxSuppression", version, "boxes1000")
    node = R.ops_under_test(case.model)[0]
    boxes, scores = case.inputs["boxes"].astype(np.float64), case.inputs["scores"].astype(np.float64)
    assert boxes.shape[1] >= 1000 and len(np.unique(scores)) == scores.size
    iou_threshold, score_threshold = float(constant_value(node.input_value(3))), float(
        constant_value(node.input_value(4)))
    gap = np.abs(_iou_matrix(boxes[0]) - iou_threshold).min()
    assert gap > 1e-6, gap  # f32 IoU arithmetic errs by ~1e-7
    assert np.abs(scores - score_threshold).min() > 1e-5
    selected = R.run_reference(case.model, R.case_steps(case))[0][0]
    kept = int((selected[:, 0] >= 0).sum())
    below = int((scores < score_threshold).sum())
    assert 0 < kept < scores.size - below  # the IoU threshold suppresses boxes; the limit is never reached


def test_detection_output_has_many_priors_and_finds_detections() -> None:
    for version in (1, 8):
        case = build_stimulus("DetectionOutput", version, "priors2000")
        assert case.inputs["proposals"].shape[-1] == 2000 * 4
        out = R.run_reference(case.model, R.case_steps(case))[0][0]
        found = out[0, 0][out[0, 0, :, 0] >= 0]
        assert len(found) == 200  # keep_top_k
        assert (found[:, 2] > 0).all()


# -- one run of the suites --------------------------------------------------------------------------------------

def _name(fault: str) -> str:
    return str(getattr(faults, fault).device_name)


def _selection() -> str:
    parts = []
    for fault, ops in faults.FAULTS.items():
        parts.append(f"({_name(fault)} and ({' or '.join(f'[{op}-' for op in ops)}))")
    everything = " or ".join(f"[{op}-{v}-" for op, v in NEW)
    parts.append(f"(REFERENCE and ({everything}))")
    return f"test_op_inference and ({' or '.join(parts)})"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-n", "2", "-k", _selection(), "--ovconform-depth", "standard", timeout=1500)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "stimulus_size_runs", _run)


def _labels(runs: dict[str, Any], device: str) -> dict[str, str]:
    out = {}
    for test_id, r in runs[device].items():
        key = test_id.partition("[")[2].removesuffix("]").removesuffix(f"-{device}")
        out[key] = r["status"]
    return out


def test_reference_passes_the_new_cases(runs: dict[str, Any]) -> None:
    ran = _labels(runs, "REFERENCE")
    for op, version in NEW:
        mine = {k: s for k, s in ran.items() if k.startswith(f"{op}-{version}-")}
        assert len(mine) >= 10, (op, version, sorted(mine))
        assert set(mine.values()) <= {"passed", "skipped"}, {k: s for k, s in mine.items() if s != "passed"}


#: fault -> the stimulus labels it must fail (per op version); every generated case passes.
MUST_FAIL = {
    "GroupDeconvolutionDropsLastChannel": {"g2-c17-s2", "g2-c63-s2", "g2-c129-s2", "g2-c17-1d",
                                           "g4-c64-k4s2", "f16-g2-c17-s2", "bf16-g2-c17-s2", "i32-g2-c17-s2",
                                           "dynamic"},
    "NmsReadsFirstTileOnly": {"boxes1000"},
    "DetectionReadsFirstTileOnly": {"priors2000"},
}
#: ... and the ones it must pass (below the tile or channel block).
MUST_PASS = {
    "GroupDeconvolutionDropsLastChannel": {"g2-c7-s2", "depthwise-g65", "g3-cout17", "g2-c9-3d", "hw56-depthwise"},
    "NmsReadsFirstTileOnly": {"boxes129", "f16-boxes65"},
    "DetectionReadsFirstTileOnly": {"priors129", "priors129-per-class", "f16-priors65"},
}


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_tiling_faults_are_caught_by_the_new_stimulus_only(runs: dict[str, Any], fault: str) -> None:
    device = _name(fault)
    ran = _labels(runs, device)
    for op_version in faults.FAULTS[fault]:
        mine = {k.removeprefix(f"{op_version}-"): s for k, s in ran.items() if k.startswith(f"{op_version}-")}
        failed = {k for k, s in mine.items() if s in FAIL}
        assert MUST_FAIL[fault] <= failed, (op_version, sorted(MUST_FAIL[fault] - failed))
        assert not MUST_PASS[fault] & failed, (op_version, sorted(MUST_PASS[fault] & failed))
        generated = {k for k in failed if R.generated_index(k) is not None}
        assert not generated, (op_version, sorted(generated))  # the generated cases never reach the tile
        for k in failed:
            message = runs[device][f"test_op_inference[{op_version}-{k}-{device}]"]["message"]
            assert message.startswith(f"Failed: declared supported but failed: {op_version}"), message
