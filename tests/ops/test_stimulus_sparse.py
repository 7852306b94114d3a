"""Stimulus cases of the issue #20 batch S2 (:mod:`ovconform.opcases._stimulus_sparse` and
:mod:`ovconform.opcases._stimulus_misc`): 28 sparse, sequence, signal and miscellaneous op versions.

In process: every op version has remainder and large cases, more than one element type and a
dynamic-shape case, and the cases reach the sizes the faults below need (4,096-index bags, images of
113 and 129 output columns, K of 129 and 256) and keep away from what the specs leave open (ties of
the CTC argmax, Unique's NaN / -0.0). One pytest run (``-p no:xdist``, standard depth) runs REFERENCE
on every stimulus case of the batch and the devices of ``tests/plugins/stimulus_faults_sparse.py``
on all tests of their ops: each fails its ops' stimulus cases where it is wrong, as "failed", and no
generated case (which never reach the sizes of their bugs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import assert_fails_only_its_ops, by_test, once_per_session, run_devices
from plugins import stimulus_faults_sparse as faults

from ovconform.ir import constant_value
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import LONG_REDUCTION, all_stimulus_keys, build_stimulus, stimuli
from ovconform.suites import _op_runner as R

NEW = ("NonZero-3", "Unique-10", "SearchSorted-15", "Bucketize-3", "SegmentMax-16", "SparseFillEmptyRows-16",
       "EmbeddingBagOffsets-15", "EmbeddingBagOffsetsSum-3", "EmbeddingBagPacked-15", "EmbeddingBagPackedSum-3",
       "EmbeddingSegmentsSum-3", "CTCGreedyDecoder-1", "CTCGreedyDecoderSeqLen-6", "CTCLoss-4", "GRN-1", "MVN-2",
       "Interpolate-1", "GridSample-9", "Inverse-14", "STFT-15", "ISTFT-16", "FakeConvert-13", "GroupedMatMul-17",
       "Multinomial-13", "RandomUniform-8", "DeformableConvolution-1", "DeformableConvolution-8",
       "BinaryConvolution-1")


def _split(op_version: str) -> tuple[str, int]:
    op, _, version = op_version.rpartition("-")
    return op, int(version)


@pytest.mark.parametrize("op_version", NEW)
def test_each_op_version_has_sizes_types_and_a_dynamic_case(op_version: str) -> None:
    op, version = _split(op_version)
    assert (op, version) in all_stimulus_keys()
    standard = stimuli(op, version, Depth.STANDARD)
    assert {s.size for s in standard} >= {"remainder", "large"}, op_version
    assert len({s.element_type for s in stimuli(op, version, Depth.EXHAUSTIVE)}) >= 2, op_version
    if op == "RandomUniform":  # one inference with a Parameter shape (see _stimulus_misc's docstring)
        node = R.ops_under_test(build_stimulus(op, version, "shape-parameter").model)[0]
        assert not node.get_output_partial_shape(0).is_static
    else:
        assert any(s.dynamic for s in standard), op_version
    large = [s for s in standard if s.size == "large"]
    sizes = [np.asarray(v).size for s in large for v in build_stimulus(op, version, s.label).inputs.values()]
    if op == "RandomUniform":  # no data inputs: its large cases have 65,542 outputs
        sizes = [int(np.prod(build_stimulus(op, version, s.label).model.get_results()[0].get_input_partial_shape(0)
                             .to_shape())) for s in large]
    assert max(sizes) >= 1 << 16, (op_version, max(sizes))


def test_embedding_long_bags_hold_4096_indices() -> None:
    case = build_stimulus("EmbeddingBagOffsetsSum", 3, "long-bag")
    node = R.ops_under_test(case.model)[0]
    offsets = constant_value(node.input_value(2))
    count = constant_value(node.input_value(1)).size
    lengths = np.diff([*np.asarray(offsets).tolist(), count])
    assert lengths.max() >= LONG_REDUCTION
    packed = R.ops_under_test(build_stimulus("EmbeddingBagPacked", 15, "long-bag").model)[0]
    assert packed.get_input_partial_shape(1).to_shape()[1] >= LONG_REDUCTION


def test_interpolate_and_grouped_matmul_reach_the_tile_sizes() -> None:
    widths = set()
    for s in stimuli("Interpolate", 1, Depth.STANDARD):
        case = build_stimulus("Interpolate", 1, s.label)
        out = case.model.get_results()[0].get_input_partial_shape(0)
        if out.is_static:
            widths.add(out.to_shape()[-1])
            assert case.inputs["image"].shape[-1] >= 56
    assert {129, 65} <= widths
    ks = {build_stimulus("GroupedMatMul", 17, s.label).inputs["mat_a"].shape[-1]
          for s in stimuli("GroupedMatMul", 17, Depth.STANDARD)}
    assert {7, 17, 63, 129, 256} <= ks


@pytest.mark.parametrize(("op", "version", "label", "name", "axis"), [
    ("CTCGreedyDecoder", 1, "large", "data", -1), ("CTCGreedyDecoderSeqLen", 6, "large", "data", -1),
    ("CTCGreedyDecoder", 1, "f16-classes65", "data", -1)])
def test_ctc_class_scores_never_tie(op: str, version: int, label: str, name: str, axis: int) -> None:
    data = build_stimulus(op, version, label).inputs[name].astype(np.float64)
    ranked = np.sort(data, axis=axis)
    assert (np.diff(ranked, axis=axis) > 0).all()


def test_unique_data_has_repeats_and_no_nan_or_negative_zero() -> None:
    for s in stimuli("Unique", 10, Depth.EXHAUSTIVE):
        data = build_stimulus("Unique", 10, s.label).inputs["data"]
        if data.dtype.kind == "f":
            assert not np.isnan(data).any() and not np.signbit(data[data == 0]).any(), s.label
        if s.label.startswith("rem"):
            assert np.unique(data).size < data.size, s.label


# -- one run of the suites --------------------------------------------------------------------------------------

def _name(fault: str) -> str:
    return str(getattr(faults, fault).device_name)


def _selection() -> str:
    parts = [f"({_name(fault)} and ({' or '.join(f'[{op}-' for op in ops)}))" for fault, ops in faults.FAULTS.items()]
    mine = " or ".join(f"[{op}-" for op in NEW)
    parts.append(f"(REFERENCE and ({mine}) and not -case)")  # REFERENCE: the stimulus cases only
    return f"test_op_inference and ({' or '.join(parts)})"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults_sparse:{name}" for name in faults.FAULTS]]
    with pytest.MonkeyPatch.context() as mp:  # one BLAS thread: the CI machine's two cores are shared
        mp.setenv("OPENBLAS_NUM_THREADS", "1")
        docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", _selection(), "--ovconform-depth", "standard",
                           timeout=900)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "stimulus_sparse_runs", _run)


def _labels(runs: dict[str, Any], device: str, op_version: str) -> dict[str, str]:
    """``label -> status`` of ``device``'s inference tests of ``op_version``."""
    prefix = f"test_op_inference[{op_version}-"
    return {k.removeprefix(prefix).removesuffix(f"-{device}]"): r["status"] for k, r in runs[device].items()
            if k.startswith(prefix)}


def test_reference_passes_every_stimulus_case_of_the_batch(runs: dict[str, Any]) -> None:
    for op_version in NEW:
        ran = _labels(runs, "REFERENCE", op_version)
        expected = {s.label for s in stimuli(*_split(op_version), Depth.STANDARD)}
        assert set(ran) == expected, (op_version, sorted(expected ^ set(ran)))
        assert set(ran.values()) == {"passed"}, {k: s for k, s in ran.items() if s != "passed"}


#: fault -> the stimulus labels of each of its op versions it must fail ...
MUST_FAIL = {
    "EmbeddingLongBagsInF16": {"long-bag", "long-bag-weighted", "long-segment", "long-segment-weighted",
                               "mean-long-bag"},
    "InterpolateTailTileUnwritten": {"nearest-56to113x129", "linear-56to113x129", "cubic-56to113x129",
                                     "linear-align-56to113x129", "linear-57to31x65", "f16-linear-56to65", "dynamic"},
    "GroupedMatMulDropsKTail": {"k129", "offsets-k129", "f16-k129"},
}
#: ... and the ones it must pass (below its bug's size).
MUST_PASS = {
    "EmbeddingLongBagsInF16": {"dim129", "weighted-dim65", "f16-dim65", "dynamic"},
    "InterpolateTailTileUnwritten": {"linear-large"},  # 63 output columns
    "GroupedMatMulDropsKTail": {"k7", "k63", "n129", "large-k256-n256", "offsets-large", "dynamic"},
}


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_each_fault_fails_only_its_ops_stimulus_cases(runs: dict[str, Any], fault: str) -> None:
    device = _name(fault)
    assert_fails_only_its_ops(runs[device], fault, list(faults.FAULTS[fault]))
    for op_version in faults.FAULTS[fault]:
        ran = _labels(runs, device, op_version)
        failed = {k for k, s in ran.items() if s == "failed"}
        generated = {k for k in ran if R.generated_index(k) is not None}
        assert len(generated) >= 10 and not generated & failed, (op_version, sorted(generated & failed))
        mine = {k for k in MUST_FAIL[fault] if k in ran}
        assert mine and mine <= failed, (op_version, sorted(mine - failed))
        assert not MUST_PASS[fault] & failed, (op_version, sorted(MUST_PASS[fault] & failed))
