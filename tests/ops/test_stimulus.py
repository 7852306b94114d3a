"""The stimulus cases (issue #20): classes, sizes, element types, dynamic mode, depth, the
per-op-version table and a device's op coverage (``ovconform ops --stimulus`` / ``--report``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovconform import opset
from ovconform.errors import NotFoundError, ValidationError
from ovconform.ir import Type
from ovconform.opcases import OpCase
from ovconform.opcases import coverage as ops_table
from ovconform.opcases import stimulus as stimulus_module
from ovconform.opcases.depth import DEFAULT_EXAMPLES, Depth, depth_from_config, parse_depth
from ovconform.opcases.stimulus import (
    LARGE_ELEMENTS,
    LARGE_K,
    LARGE_SPATIAL,
    LONG_REDUCTION,
    NUMERIC,
    REMAINDERS,
    SIZE_CLASSES,
    STANDARD_REMAINDERS,
    VALUE_CLASSES,
    Stimulus,
    StimulusBuilder,
    all_stimulus_keys,
    build_stimulus,
    dynamic_case,
    register_stimuli,
    special_pool,
    stimuli,
    with_boundaries,
    with_specials,
)
from ovconform.suites import _op_runner as R
from ovconform.tolerances import reduction_size

#: Ops whose kernels devices tile or vectorise: each must have stimulus cases.
TILED = ("MatMul-1", "Convolution-1", "GroupConvolution-1", "MaxPool-1", "MaxPool-8", "MaxPool-14", "AvgPool-1",
         "AvgPool-14", "AvgPool-16", "Softmax-1", "Softmax-8", "LogSoftmax-5", "ReduceSum-1", "ReduceMean-1",
         "ReduceMax-1", "TopK-11", "CumSum-3", "Relu-1", "Add-1", "Multiply-1", "Divide-1", "Exp-1", "Sigmoid-1",
         "Tanh-1", "Equal-1", "Maximum-1")


def _key(name: str) -> tuple[str, int]:
    op, version = name.rsplit("-", 1)
    return op, int(version)


def _inputs(case: OpCase) -> list[np.ndarray]:
    return [np.asarray(v) for step in R.case_steps(case) for v in step.values()]


# -- the registry ---------------------------------------------------------------------------------------------

def test_tiled_and_vectorised_ops_have_stimulus_cases() -> None:
    keys = set(all_stimulus_keys())
    missing = [name for name in TILED if _key(name) not in keys]
    assert not missing, missing
    assert len(keys) >= 80


def test_every_stimulus_is_well_formed_and_builds() -> None:
    for op, version in all_stimulus_keys():
        cases = stimuli(op, version, Depth.EXHAUSTIVE)
        labels = [s.label for s in cases]
        assert len(labels) == len(set(labels)), (op, version)
        assert set(stimuli(op, version, Depth.STANDARD)) <= set(cases)
        assert stimuli(op, version, Depth.QUICK) == []
        for s in cases:
            assert s.size in SIZE_CLASSES and s.values in VALUE_CLASSES and s.op_type == op
    case = build_stimulus("MatMul", 1, "k65")
    assert case.extra["stimulus"] == {"label": "k65", "size": "remainder", "values": "ordinary", "element_type": "f32",
                                      "dynamic": False}
    assert build_stimulus("MatMul", 1, "k65") is case  # built once per process
    with pytest.raises(NotFoundError, match=r"no stimulus case 'k66' for MatMul-1; it has: k7, k9"):
        build_stimulus("MatMul", 1, "k66")


def test_remainder_sizes_reach_the_axes_that_matter() -> None:
    assert {7, 9, 15, 17, 31, 33, 63, 65, 127, 129} == set(REMAINDERS) and set(STANDARD_REMAINDERS) < set(REMAINDERS)
    k = {reduction_size(R.ops_under_test(build_stimulus("MatMul", 1, f"k{n}").model)[0]) for n in REMAINDERS}
    assert k == set(REMAINDERS)
    relu = build_stimulus("Relu", 1, "rem65")
    assert relu.inputs["x"].shape[-1] == 65 and relu.inputs["x"].size % 8
    channels = {build_stimulus("Convolution", 1, f"c{n}-2d").inputs["data"].shape[1] for n in REMAINDERS}
    assert channels == set(REMAINDERS)


def test_large_class_reaches_64k_elements_k256_and_56x56() -> None:
    sizes = {}
    for op, version in all_stimulus_keys():
        for s in stimuli(op, version, Depth.STANDARD):
            if s.size == "large":
                case = build_stimulus(op, version, s.label)
                sizes[(op, version, s.label)] = max(a.size for a in _inputs(case)), case
    assert sum(1 for n, _ in sizes.values() if n >= LARGE_ELEMENTS) >= 50
    assert reduction_size(R.ops_under_test(sizes[("MatMul", 1, "k256-large")][1].model)[0]) >= LARGE_K
    conv = sizes[("Convolution", 1, "c256-2d")][1]
    assert conv.inputs["data"].shape[1] >= LARGE_K
    for op, version, label in (("Convolution", 1, "hw56-2d"), ("MaxPool", 8, "hw56-2d"), ("AvgPool", 16, "hw56-2d")):
        assert sizes[(op, version, label)][1].inputs["data"].shape[2:] == (LARGE_SPATIAL, LARGE_SPATIAL)


def test_long_reductions_have_4096_terms() -> None:
    for op, version, label in (("ReduceSum", 1, "long4096"), ("MatMul", 1, "k4096"), ("Softmax", 8, "long4096"),
                               ("CumSum", 3, "long4096")):
        case = build_stimulus(op, version, label)
        k = reduction_size(R.ops_under_test(case.model)[0]) or case.inputs["data"].shape[-1]
        assert k >= LONG_REDUCTION, (op, label, k)


def test_hard_values() -> None:
    logits = build_stimulus("Softmax", 8, "logits-f32").inputs["data"]
    assert logits.max() > 88.8  # exp overflows float32 there
    assert build_stimulus("Softmax", 8, "logits-f16").inputs["data"].astype(np.float32).max() > 11.1
    special = build_stimulus("Relu", 1, "special-f32").inputs["x"]
    assert np.isnan(special).any() and np.isposinf(special).any() and np.isneginf(special).any()
    assert ((special == 0) & np.signbit(special)).any()
    sub = build_stimulus("Exp", 1, "special-f16").inputs["x"]
    tiny = np.finfo(np.float16).tiny
    assert ((sub != 0) & (np.abs(sub) < tiny)).any()
    a, b = (build_stimulus("Divide", 1, "boundary-i32").inputs[n] for n in ("a", "b"))
    assert a.min() == np.iinfo(np.int32).min and (b < 0).any() and (a < 0).any() and not (b == 0).any()
    assert not ((a == np.iinfo(np.int32).min) & (b == -1)).any()  # the one quotient that overflows
    cancel = build_stimulus("ReduceSum", 1, "cancel").inputs["data"].astype(np.float64)
    assert np.abs(cancel).sum(axis=1).min() > 1000 * np.abs(cancel.sum(axis=1)).max()


def test_element_types_follow_the_spec_lists() -> None:
    def types(op: str, version: int) -> set[Type]:
        return {s.element_type for s in stimuli(op, version, Depth.STANDARD)}

    assert types("Add", 1) == set(NUMERIC)  # "any numeric type"
    assert types("Relu", 1) == set(NUMERIC)  # "any supported numeric type"
    assert types("Exp", 1) == {Type.f32, Type.f16, Type.bf16, Type.f64}  # "floating-point type"
    assert {Type.bf16, Type.u64, Type.i16} <= types("Multiply", 1)
    assert types("LogicalAnd", 1) == {Type.boolean}
    case = build_stimulus("Add", 1, "bf16-rem65")
    assert case.model.get_parameters()[0].get_output_element_type(0) == Type.bf16
    assert case.inputs["a"].dtype == np.uint16


def test_value_helpers() -> None:
    rng = np.random.default_rng(0)
    out = with_specials(rng, np.zeros(40), Type.f16, ("nan", "inf", "sub"))
    assert out.dtype == np.float16 and np.isnan(out).any() and np.isinf(out).any()
    assert special_pool(Type.f32, ("sub",))[0] == pytest.approx(2.0 ** -149)
    with pytest.raises(ValidationError, match=r"special value kind 'huge' is not known; allowed: \['-0', '-inf'"):
        special_pool(Type.f32, ("huge",))
    ints = with_boundaries(rng, np.zeros(20, np.int8), Type.i8, highest=False)
    assert ints.min() == -128 and ints.max() <= 1


# -- dynamic mode --------------------------------------------------------------------------------------------

def test_dynamic_case_makes_differing_dims_dynamic() -> None:
    def relu(shape: tuple[int, ...]) -> OpCase:
        b = StimulusBuilder(1)
        return b.finish("Relu", 1, opset.relu(b.param("x", b.uniform(shape, Type.f32, -1, 1))))

    case = dynamic_case([relu((1, 7)), relu((3, 7)), relu((5, 7))])
    assert str(case.model.get_parameters()[0].get_output_partial_shape(0)) == "[?,7]"
    assert [s["x"].shape for s in R.case_steps(case)] == [(1, 7), (3, 7), (5, 7), (1, 7)]  # the first again last
    bounded = dynamic_case([relu((1, 7)), relu((5, 9))], bounded=True)
    assert str(bounded.model.get_parameters()[0].get_output_partial_shape(0)) == "[1..5,7..9]"
    with pytest.raises(ValidationError, match="Parameter 'x' changes rank"):
        dynamic_case([relu((1, 7)), relu((1, 7, 1))])
    with pytest.raises(ValidationError, match="at least two cases"):
        dynamic_case([relu((1, 7))])


def test_dynamic_case_refuses_different_constants() -> None:
    def mm(seed: int) -> OpCase:
        b = StimulusBuilder(seed)
        x = b.param("a", b.uniform((2, 3), Type.f32, -1, 1))
        return b.finish("MatMul", 1, opset.matmul(x, b.const(b.uniform((3, 2), Type.f32, -1, 1)), False, False))

    with pytest.raises(ValidationError, match="different constants"):
        dynamic_case([mm(1), mm(2)])


def test_every_tiled_op_has_a_dynamic_case_on_three_shapes() -> None:
    for name in TILED:
        dyn = [s for s in stimuli(*_key(name), Depth.STANDARD) if s.dynamic]
        assert dyn, name
        case = build_stimulus(*_key(name), dyn[0].label)
        assert len(R.case_steps(case)) == 4, name  # three shapes, then the first again
        assert any(p.get_output_partial_shape(0).is_dynamic for p in case.model.get_parameters()), name


# -- registration errors ---------------------------------------------------------------------------------------

def test_bad_stimulus_classes_are_refused() -> None:
    with pytest.raises(ValidationError, match=r"size class 'huge' is not one of \('tiny', 'remainder', 'large'\)"):
        Stimulus("X", 1, "a", "huge", "ordinary", Type.f32, lambda: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ValidationError, match=r"value class 'odd' is not one of"):
        Stimulus("X", 1, "a", "tiny", "odd", Type.f32, lambda: None)  # type: ignore[arg-type,return-value]


def test_repeated_labels_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def twice() -> list[Stimulus]:
        return [Stimulus("NoSuchOp", 1, "x", "tiny", "ordinary", Type.f32, lambda: None)] * 2  # type: ignore

    monkeypatch.setattr(stimulus_module, "_RECIPES", dict(stimulus_module._RECIPES))
    register_stimuli("NoSuchOp", 1)(twice)
    try:
        with pytest.raises(ValidationError, match=r"stimulus cases of NoSuchOp-1 repeat the label\(s\) \['x'\]"):
            stimuli("NoSuchOp", 1)
    finally:
        stimulus_module._all.cache_clear()


# -- depth ---------------------------------------------------------------------------------------------------

def test_depth_names_defaults_and_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_depth("Standard") == Depth.STANDARD and str(Depth.EXHAUSTIVE) == "exhaustive"
    assert DEFAULT_EXAMPLES[Depth.QUICK] < DEFAULT_EXAMPLES[Depth.STANDARD] < DEFAULT_EXAMPLES[Depth.EXHAUSTIVE]
    with pytest.raises(ValidationError, match=r"--ovconform-depth='deep' is not a depth; allowed: quick, standard, "
                                              r"exhaustive"):
        parse_depth("deep", "--ovconform-depth")

    class NoOption:
        def getoption(self, name: str) -> Any:
            raise ValueError(name)

    monkeypatch.delenv("OVCONFORM_DEPTH", raising=False)
    assert depth_from_config(NoOption()) == Depth.STANDARD
    monkeypatch.setenv("OVCONFORM_DEPTH", "quick")
    assert depth_from_config(NoOption()) == Depth.QUICK
    assert R.examples_count(NoOption()) == DEFAULT_EXAMPLES[Depth.QUICK]
    monkeypatch.setenv("OVCONFORM_DEPTH", "nope")
    with pytest.raises(pytest.UsageError, match="OVCONFORM_DEPTH='nope' is not a depth"):
        depth_from_config(NoOption())


def test_case_labels_by_depth() -> None:
    quick = R.case_labels("MatMul", 1, 3, Depth.QUICK)
    standard = R.case_labels("MatMul", 1, 3, Depth.STANDARD)
    exhaustive = R.case_labels("MatMul", 1, 3, Depth.EXHAUSTIVE)
    assert standard[:3] == quick and all(R.generated_index(label) is not None for label in quick)
    assert set(standard) < set(exhaustive) and "k129" in standard and "k9" in exhaustive and "k9" not in standard
    assert R.generated_index("case12") == 12 and R.generated_index("k65") is None


# -- the tables ----------------------------------------------------------------------------------------------

def test_stimulus_table_per_op_version() -> None:
    rows = {(r.op, r.version): r for r in ops_table.stimulus_rows("standard")}
    mm = rows[("MatMul", 1)]
    assert mm.generated == 10 and mm.stimulus == len(stimuli("MatMul", 1, Depth.STANDARD))
    assert mm.size_classes == ("tiny", "remainder", "large")
    assert {"long-reduction", "cancellation", "special"} <= set(mm.value_classes)
    assert {"f32", "f16", "bf16", "i8", "u8", "i32"} <= set(mm.element_types) and mm.dynamic == 1
    assert all(r.size_classes == ("tiny",) for r in rows.values() if r.stimulus == 0)  # the generated cases only
    md = ops_table.render_stimulus(list(rows.values()), "md")
    assert md.startswith("# What the op suite feeds each op version") and "| MatMul" in md
    assert json.loads(ops_table.render_stimulus(list(rows.values())[:2], "json"))["depth"] == "standard"


def _report(records: list[dict[str, Any]], device: str = "DEV") -> dict[str, Any]:
    return {"device": {"name": device}, "records": records}


def _record(op: str, sub: str, status: str) -> dict[str, Any]:
    return {"entity": "op", "status": status, "facts": {"op_type": op, "version": 1, "sub_entity": sub}}


def test_device_coverage_counts_not_implemented_ops() -> None:
    doc = _report([_record("Relu", "Implemented", "passed"), _record("Relu", "Inference", "passed"),
                   _record("Add", "Implemented", "failed"), _record("Add", "Inference", "skipped"),
                   _record("Exp", "Implemented", "passed"), _record("Exp", "Inference", "failed")])
    rows, summary = ops_table.device_coverage(doc)
    assert [(r.op, r.implemented, r.complete) for r in rows] == [("Add", False, False), ("Exp", True, False),
                                                                 ("Relu", True, True)]
    assert summary["implemented_percent"] == pytest.approx(66.67)
    assert summary["complete_percent"] == pytest.approx(33.33)
    text = ops_table.render_device(rows, summary)
    assert "not implemented" in text and "DEV: op coverage 66.67 % (2 of 3 op versions implemented)" in text


def test_a_device_declaring_nothing_has_zero_coverage_not_na() -> None:
    doc = _report([_record(op, "Implemented", "failed") for op in ("Relu", "Add")]
                  + [_record(op, "Inference", "skipped") for op in ("Relu", "Add")])
    _, summary = ops_table.device_coverage(doc)
    assert summary["implemented_percent"] == 0.0 and summary["complete_percent"] == 0.0
    assert ops_table.device_coverage(_report([]))[1]["implemented_percent"] is None  # nothing tested: n/a
    with pytest.raises(ValidationError, match="not an ovconform conformance report"):
        ops_table.device_coverage({"x": 1})


def test_ops_command_report_and_stimulus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ovconform.cli import main

    report = tmp_path / "conformance.json"
    report.write_text(json.dumps(_report([_record("Relu", "Implemented", "failed")], "NOTHING")))
    assert main(["ops", "--report", str(report)]) == 0
    assert "NOTHING: op coverage 0.00 % (0 of 1 op versions implemented)" in capsys.readouterr().out
    out = tmp_path / "stimulus.md"
    assert main(["ops", "--stimulus", "--format", "md", "--depth", "quick", "-o", str(out)]) == 0
    text = out.read_text()
    assert "`ovconform ops --stimulus --format md --depth quick`" in text and "| MatMul" in text
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    capsys.readouterr()
    assert main(["ops", "--report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ovconform ops: error: cannot read the conformance report") and "bad.json" in err


# -- the ops issue #20 left without stimulus cases ----------------------------------------------------------

#: Op versions whose stimulus cases live in ``_stimulus_movement``, ``_stimulus_numeric`` and
#: ``_stimulus_recurrent``.
GAP = ("Pad-1", "Pad-12", "Tile-1", "StridedSlice-1", "Slice-8", "Broadcast-1", "Broadcast-3", "ScatterUpdate-3",
       "ScatterElementsUpdate-3", "ScatterElementsUpdate-12", "ScatterNDUpdate-4", "ScatterNDUpdate-15", "Convert-1",
       "BatchNormInference-1", "BatchNormInference-5", "GroupNormalization-12", "LRN-1", "FakeQuantize-1",
       "ScaledDotProductAttention-13", "ConvolutionBackpropData-1", "Einsum-7", "AdaptiveAvgPool-8",
       "AdaptiveMaxPool-8", "RNNCell-1", "GRUCell-3", "LSTMCell-1", "LSTMCell-4", "RNNSequence-5", "GRUSequence-5",
       "LSTMSequence-5", "DFT-7", "IDFT-7", "RDFT-9", "IRDFT-9")


def _node(op: str, version: int, label: str) -> Any:
    case = build_stimulus(op, version, label)
    return case, R.ops_under_test(case.model, op)[0]


def _const(node: Any, i: int) -> np.ndarray:
    from ovconform.ir import constant_value

    return np.asarray(constant_value(node.input_value(i)))


@pytest.mark.parametrize("name", GAP)
def test_gap_ops_have_remainder_large_and_dynamic_cases(name: str) -> None:
    cases = stimuli(*_key(name), Depth.STANDARD)
    assert {s.size for s in cases} >= {"remainder", "large"}, name
    dyn = [s for s in cases if s.dynamic]
    assert dyn, name
    case = build_stimulus(*_key(name), dyn[0].label)
    assert len(R.case_steps(case)) == 4  # three shapes, then the first again
    assert any(p.get_output_partial_shape(0).is_dynamic for p in case.model.get_parameters())
    assert len({s.element_type for s in stimuli(*_key(name), Depth.EXHAUSTIVE)}) >= 3, name


def test_pad_reaches_past_the_remainder_and_crops() -> None:
    for mode, limit in (("reflect", lambda n: n - 1), ("symmetric", lambda n: n), ("constant", lambda n: n + 3)):
        _, node = _node("Pad", 12, f"{mode}-n129")
        assert max(_const(node, 1)[-1], _const(node, 2)[-1]) == limit(129) and node.attrs["pad_mode"] == mode
    _, crop = _node("Pad", 12, "crop-n65")
    assert (_const(crop, 1) < 0).all() and (_const(crop, 2) < 0).any()
    assert not any(s.label.startswith("crop") for s in stimuli("Pad", 1, Depth.EXHAUSTIVE))  # Pad-1: pads >= 0


def test_slices_walk_backwards() -> None:
    _, node = _node("StridedSlice", 1, "rev-n129")
    assert _const(node, 3).tolist() == [1, -1]
    case, node = _node("Slice", 8, "step-2-n65")
    assert _const(node, 3).tolist() == [-2]
    assert tuple(node.get_output_partial_shape(0).to_shape()) == (3, 33)


def test_scatter_duplicates_only_where_the_spec_defines_them() -> None:
    for op, version, label in (("ScatterElementsUpdate", 12, "sum-dup-n65"), ("ScatterNDUpdate", 15, "prod-dup-n65")):
        _, node = _node(op, version, label)
        idx = _const(node, 1)
        assert node.attrs["reduction"] != "none"
        rows = idx.reshape(idx.shape[0], -1) if op == "ScatterElementsUpdate" else idx.reshape(1, -1)
        normalised = [np.unique(np.where(r < 0, r + 65, r)) for r in rows]
        assert all(len(u) < r.size for u, r in zip(normalised, rows, strict=True))  # repeats
        assert (idx < 0).any()  # negative indices (versions 12 and 15)
    _, none = _node("ScatterElementsUpdate", 3, "none-n65")
    assert all(len(set(r.tolist())) == r.size for r in _const(none, 1))
    _, nd = _node("ScatterNDUpdate", 4, "elements-n65")
    assert len({tuple(t) for t in _const(nd, 1).tolist()}) == _const(nd, 1).shape[0]


def test_convert_holds_ties_overflow_and_specials() -> None:
    x = build_stimulus("Convert", 1, "f32-f16-ties-n65").inputs["x"].astype(np.float64).reshape(-1)
    finite = np.isfinite(x) & (np.abs(x) < 65504)
    near = x[finite].astype(np.float16).astype(np.float64)
    other = np.nextafter(x[finite].astype(np.float16), np.copysign(np.inf, x[finite] - near).astype(np.float16))
    assert (np.abs(x[finite] - near) == np.abs(other.astype(np.float64) - x[finite])).sum() > 20  # exact ties
    assert np.isnan(x).any() and (x == 65520).any() and ((x == 0) & np.signbit(x)).any() and np.isinf(x).any()
    bits = build_stimulus("Convert", 1, "f32-bf16-ties-n65").inputs["x"].view(np.uint32)
    assert ((bits & 0xFFFF) == 0x8000).sum() > 20
    whole = build_stimulus("Convert", 1, "f32-i8-whole-n65").inputs["x"]
    assert whole.min() == -128 and whole.max() == 127 and (whole == np.trunc(whole)).all()
    assert build_stimulus("Convert", 1, "f32-i32-whole-n65").inputs["x"].max() == 2.0 ** 31 - 128
    wrap = build_stimulus("Convert", 1, "i32-u8-wrap-n65").inputs["x"]
    assert wrap.min() < 0 and wrap.max() > 255


def test_attention_masks_reach_past_64_keys() -> None:
    case, node = _node("ScaledDotProductAttention", 13, "bool-mask-s129")
    mask = case.inputs["attention_mask"]
    assert mask.shape[-1] == 129 and not mask[:, 64:].all() and mask.any(axis=-1).all()
    _, causal = _node("ScaledDotProductAttention", 13, "causal-l65")
    assert causal.attrs["causal"] and causal.get_input_partial_shape(1).to_shape()[-2] == 65
    logits = build_stimulus("ScaledDotProductAttention", 13, "logits-s65").inputs
    scores = np.einsum("bhqe,bhke->bhqk", logits["query"], logits["key"]) / 8
    assert scores.max() > 88.8  # exp overflows float32 there


def test_sequences_end_early_and_dfts_reach_odd_and_long_lengths() -> None:
    case = build_stimulus("LSTMSequence", 5, "t65")
    lengths = case.inputs["sequence_lengths"]
    assert case.inputs["X"].shape[1] == 65 and lengths.max() == 65 and lengths.min() < 65
    assert {build_stimulus("DFT", 7, f"n{n}").inputs["data"].shape[1] for n in (7, 129, 64)} == {7, 129, 64}
    assert build_stimulus("DFT", 7, "n4096").inputs["data"].shape == (16, 4096, 2)
    spectrum = build_stimulus("IRDFT", 9, "n64").inputs["data"]
    assert spectrum.shape == (3, 33, 2) and np.abs(spectrum[:, 0, 1]).max() < 1e-6  # Hermitian: a real DC term


def test_adaptive_max_pool_values_never_tie() -> None:
    case = build_stimulus("AdaptiveMaxPool", 8, "hw65-to7")
    data = case.inputs["data"]
    assert data.shape[-1] % 7 and len(np.unique(data)) == data.size


def test_fake_quantize_values_sit_on_the_edges_not_on_rounding_boundaries() -> None:
    case, node = _node("FakeQuantize", 1, "l256-n65")
    x = case.inputs["x"].astype(np.float64)
    il, ih = float(_const(node, 1)), float(_const(node, 2))
    assert (x == il).any() and (x == ih).any() and (x < il).any() and (x > ih).any()
    inside = x[(x > il) & (x < ih)]
    u = (inside - il) / (ih - il) * 255
    assert (np.abs(u - np.floor(u) - 0.5) > 0.1).all()
