"""The op suite catches real kernel bugs at standard depth (issue #20).

One pytest run (``-n 2``, from a temporary folder, the installed suites, standard depth) tests
the devices of ``tests/plugins/op_kernel_faults.py``: each broken device on the Inference tests
of the op it gets wrong, REFERENCE and the correct f16 device (``ComputesInF16``) on every test of
those ops, and a device whose query_model answers nothing on two ops. ``-k`` picks the tests per
device (device names are in the test ids).

Each fault must fail exactly where it is wrong — MatMul only where K > 64, Convolution only
from 16 input channels, integer Divide only where floor and truncation differ, Add only where
the output has remainder lanes, Pad reflect only on axes of 16 or more, scatter reductions only
past 64 updates with repeated indices, Convert only on rounding ties, attention masks only past
64 keys — and nowhere outside its op; REFERENCE and the f16 device pass. The last four are caught
by the stimulus cases of ops that had none before (their generated cases all pass).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import by_test, once_per_session, run_devices
from plugins import op_kernel_faults as faults

from ovconform.ir import constant_value
from ovconform.opcases import OpCase
from ovconform.suites import _op_runner as R
from ovconform.tolerances import is_categorical, reduction_size

FAIL = ("failed", "error", "crashed", "hanged")
EXAMPLES = 10  # the standard depth's generated cases


def _device(cls: type) -> str:
    return str(cls.device_name)  # type: ignore[attr-defined]


#: fault class -> the ops it runs (``Op-version``; None: every op's dynamic-mode case)
OPS: dict[str, tuple[str, ...] | None] = {
    "MatMulDropsKTail": ("MatMul-1",),
    "ConvolutionDropsLastChannel": ("Convolution-1",),
    "SoftmaxWithoutMaxSubtraction": ("Softmax-1", "Softmax-8"),
    "ReduceSumAccumulatesInF16": ("ReduceSum-1",),
    "ReluAndMaxPoolDropNaN": ("Relu-1", "MaxPool-1", "MaxPool-8", "MaxPool-14"),
    "IntegerDivideTruncates": ("Divide-1",),
    "F32DeviceComputesMatMulInF16": ("MatMul-1",),
    "WrongOnSecondShape": None,
    "AddWrongOnRemainderLanes": ("Add-1",),
    "PadReflectIsSymmetric": ("Pad-1", "Pad-12"),
    "ScatterReductionAppliesDuplicatesOnce": ("ScatterElementsUpdate-12", "ScatterNDUpdate-15"),
    "ConvertRoundsTiesAway": ("Convert-1",),
    "AttentionMaskOnlyInFirstTile": ("ScaledDotProductAttention-13",),
}
ALL_OPS = tuple(sorted({op for ops in OPS.values() if ops for op in ops}))
NOTHING = ("Relu-1", "Add-1")


def _terms(ops: tuple[str, ...]) -> str:
    """A -k expression for the cases of ``ops`` (``[Relu-1-`` does not match ``[PRelu-1-``)."""
    return " or ".join(f"[{op}-" for op in ops)


def _selection() -> str:
    parts = []
    for name, ops in OPS.items():
        device = _device(getattr(faults, name))
        parts.append(f"({device} and test_op_inference and ({_terms(ops) if ops else f'dynamic-{device}'}))")
    parts.append(f"((REFERENCE or {_device(faults.ComputesInF16)}) and ({_terms(ALL_OPS)}))")
    parts.append(f"({_device(faults.DeclaresNothing)} and ({_terms(NOTHING)}))")
    return " or ".join(parts)


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"op_kernel_faults:{n}" for n in (*OPS, "ComputesInF16", "DeclaresNothing")]]
    docs = run_devices(workdir, specs, "-n", "2", "-k", _selection(), "--ovconform-depth", "standard",
                       "--ovconform-examples", str(EXAMPLES))
    return {name: {**by_test(doc), "__summary__": doc.get("summary", {})} for name, doc in docs.items()}

@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "op_kernel_fault_runs", _run)


def _records(runs: dict[str, Any], device: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in runs[device].items() if k != "__summary__"}


def _case_key(test_id: str, device: str) -> tuple[str, str]:
    """(sub-entity, case key) of ``test_op_inference[MatMul-1-k65-DEV]``."""
    name, _, rest = test_id.partition("[")
    return name.removeprefix("test_op_"), rest.removesuffix("]").removesuffix(f"-{device}")


def _case(key: str) -> OpCase | None:
    op, version, label = key.split("-", 2)
    return R.get_case(op, int(version), label, EXAMPLES)


def _under_test(case: OpCase) -> Any:
    return R.ops_under_test(case.model, case.op_type)[0]


# -- where each fault is wrong --------------------------------------------------------------------------------

def _k(case: OpCase) -> int:
    return int(reduction_size(_under_test(case)) or 0)


def _input_channels(case: OpCase) -> int:
    return int(_under_test(case).get_input_partial_shape(1).to_shape()[1])


def _floor_differs(case: OpCase) -> bool:
    """Integer Divide (m_pythondiv) with a quotient where floor and truncation differ."""
    node = _under_test(case)
    if node.get_output_element_type(0).is_real() or not node.attrs.get("m_pythondiv", True):
        return False
    feed = R.case_steps(case)[0]
    a, b = (np.asarray(constant_value(v) if constant_value(v) is not None else feed[v.node.friendly_name])
            .astype(np.int64) for v in node.input_values())
    a, b = np.broadcast_arrays(a, b)
    return bool(((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))).any())  # exactly where floor != trunc


def _has_lane_tail(case: OpCase) -> bool:
    ps = _under_test(case).get_output_partial_shape(0)
    n = int(np.prod(ps.to_shape())) if ps.is_static else 0
    return n >= 2 * faults.LANES and n % faults.LANES != 0


def _second_shape_shows(case: OpCase) -> bool:
    """The faulty device zeroes the second shape's output elements past the first's size: visible
    unless the right values there are all zero (a boolean output that is all False, say)."""
    steps = R.case_steps(case)
    if len(steps) < 2 or is_categorical(case.op_type):  # samples are not compared by value
        return False
    if all(np.shape(steps[0][k]) == np.shape(steps[1][k]) for k in steps[0]):
        return False  # the inputs keep their shapes (Range, Eye: the values set the output's): the fault never acts
    expected = R.run_reference(case.model, steps[:2])
    return any(np.asarray(second).reshape(-1)[np.asarray(first).size:].any()
               for first, second in zip(expected[0], expected[1], strict=True))


def _input(case: OpCase, node: Any, i: int, step: int = 0) -> np.ndarray:
    """Input ``i`` of ``node`` at inference ``step``: a Constant's value or the Parameter's feed."""
    value = node.input_value(i)
    known = constant_value(value)
    return np.asarray(known if known is not None else R.case_steps(case)[step][value.node.friendly_name])


def _reflect_on_long_axis(case: OpCase) -> bool:
    """A reflect Pad with a positive pad whose static data has an axis of 16 or more elements."""
    node = _under_test(case)
    ps = node.get_input_partial_shape(0)
    if node.attrs["pad_mode"] != "reflect" or not ps.is_static or max(ps.to_shape(), default=0) < 2 * faults.LANES:
        return False
    return bool((_input(case, node, 1) > 0).any() or (_input(case, node, 2) > 0).any())


def _parallel_reduction(case: OpCase) -> bool:
    """A scatter reduction over more than 64 updates (the faulty device's racing path)."""
    node = _under_test(case)
    ps = node.get_input_partial_shape(2)
    return node.attrs["reduction"] != "none" and (not ps.is_static or int(np.prod(ps.to_shape())) > 64)


def _tie_rounds_differently(case: OpCase) -> bool:
    """Convert f32 -> f16/bf16 of a value where ties-away and ties-to-even round differently."""
    node = _under_test(case)
    dst = node.get_output_element_type(0)
    if str(node.get_input_element_type(0)) != "f32" or str(dst) not in ("f16", "bf16"):
        return False
    for step in range(len(R.case_steps(case))):
        x = _input(case, node, 0, step).astype(np.float32)
        right = R.run_reference(case.model, [R.case_steps(case)[step]])[0][0]
        if not np.array_equal(faults.f32_ties_away(x, dst), right, equal_nan=True):
            return True
    return False


def _masked_past_first_tile(case: OpCase) -> bool:
    """A static attention over more than 64 keys with a causal or given mask (which reaches the
    keys past 64); the faulty device is right on dynamic ones, 64 keys or fewer and no mask."""
    node = _under_test(case)
    keys = node.get_input_partial_shape(1)
    masked = bool(node.attrs.get("causal")) or node.get_input_size() > 3
    return keys.is_static and keys.to_shape()[-2] > faults.K_TILE and masked


def _f32(case: OpCase) -> bool:
    return str(_under_test(case).get_input_element_type(0)) == "f32"


#: fault -> (case keys it must fail, predicate), (case keys it must pass, predicate)
RULES: dict[str, tuple[Callable[[str, OpCase], bool], Callable[[str, OpCase], bool]]] = {
    "MatMulDropsKTail": (lambda key, c: _k(c) > faults.K_TILE and "nan" not in key and "bf16" not in key,
                         lambda key, c: _k(c) <= faults.K_TILE),
    "ConvolutionDropsLastChannel": (lambda key, c: _input_channels(c) >= faults.CHANNEL_BLOCK and "bf16" not in key,
                                    lambda key, c: _input_channels(c) < faults.CHANNEL_BLOCK),
    "SoftmaxWithoutMaxSubtraction": (lambda key, c: "logits-f" in key, lambda key, c: "logits" not in key),
    "ReduceSumAccumulatesInF16": (
        lambda key, c: key.split("-", 2)[2] in ("long4096", "cancel", "r63", "r129", "outer129"),
        lambda key, c: not _f32(c)),
    "ReluAndMaxPoolDropNaN": (lambda key, c: "special-f" in key and key.startswith("Relu") or "nan-" in key,
                              lambda key, c: "nan" not in key and "special" not in key),
    "IntegerDivideTruncates": (lambda key, c: _floor_differs(c), lambda key, c: not _floor_differs(c)),
    "F32DeviceComputesMatMulInF16": (lambda key, c: _f32(c) and 0 < _k(c) <= 256 and "nan" not in key,
                                     lambda key, c: not _f32(c)),
    "WrongOnSecondShape": (lambda key, c: key.endswith("-dynamic") and _second_shape_shows(c),
                           lambda key, c: "dynamic" not in key),
    "AddWrongOnRemainderLanes": (lambda key, c: _has_lane_tail(c), lambda key, c: not _has_lane_tail(c)),
    "PadReflectIsSymmetric": (lambda key, c: _reflect_on_long_axis(c), lambda key, c: not _reflect_on_long_axis(c)),
    "ScatterReductionAppliesDuplicatesOnce": (lambda key, c: "-dup" in key,
                                              lambda key, c: not _parallel_reduction(c)),
    "ConvertRoundsTiesAway": (lambda key, c: _tie_rounds_differently(c),
                              lambda key, c: not _tie_rounds_differently(c)),
    # bf16 attention too: its bound follows the attention error model (tolerances.attention_magnitude)
    "AttentionMaskOnlyInFirstTile": (lambda key, c: _masked_past_first_tile(c),
                                     lambda key, c: not _masked_past_first_tile(c)),
}

#: The faults only the stimulus cases of the ops issue #20 left without them catch.
STIMULUS_ONLY = ("PadReflectIsSymmetric", "ScatterReductionAppliesDuplicatesOnce", "ConvertRoundsTiesAway",
                 "AttentionMaskOnlyInFirstTile")


def test_every_fault_has_a_rule_and_a_selection() -> None:
    assert set(RULES) == set(OPS) == set(faults.FAULTS)
    assert len(faults.FAULTS) >= 13


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_fault_is_caught_exactly_where_it_is_wrong(runs: dict[str, Any], fault: str) -> None:
    device = _device(getattr(faults, fault))
    records = _records(runs, device)
    must_fail, must_pass = RULES[fault]
    ran: dict[str, str] = {}
    for test_id, r in records.items():
        sub, key = _case_key(test_id, device)
        assert sub == "inference", test_id
        ran[key] = r["status"]
    assert len(ran) >= 10, f"{fault}: only {sorted(ran)} ran"
    expected_fail, expected_pass = set(), set()
    for key in ran:
        case = _case(key)
        if case is None:  # a strategy with fewer distinct cases: skipped
            continue
        if must_fail(key, case):
            expected_fail.add(key)
        elif must_pass(key, case):
            expected_pass.add(key)
    failed = {k for k, s in ran.items() if s in FAIL}
    assert expected_fail, f"{fault}: no case where the fault shows ran"
    assert expected_fail <= failed, f"{fault} not caught by {sorted(expected_fail - failed)}"
    assert not expected_pass & failed, f"{fault} fails where it is right: {sorted(expected_pass & failed)}"
    ops = OPS[fault]
    for key in failed:
        assert ops is None or "-".join(key.split("-")[:2]) in ops, key
        message = records[f"test_op_inference[{key}-{device}]"]["message"]
        assert message.startswith(f"Failed: declared supported but failed: {key.split('-')[0]}-"), message


def test_stimulus_cases_catch_what_the_generated_ones_miss(runs: dict[str, Any]) -> None:
    """Before issue #20 (the generated cases only) most of these faults passed every test."""
    missed = []
    for fault in ("MatMulDropsKTail", "ConvolutionDropsLastChannel", "SoftmaxWithoutMaxSubtraction",
                  "ReluAndMaxPoolDropNaN", "IntegerDivideTruncates", "WrongOnSecondShape"):
        device = _device(getattr(faults, fault))
        generated = [r for t, r in _records(runs, device).items()
                     if R.generated_index(_case_key(t, device)[1].split("-", 2)[2]) is not None]
        if not any(r["status"] in FAIL for r in generated):
            missed.append(fault)
    assert len(missed) >= 5, missed


@pytest.mark.parametrize("fault", STIMULUS_ONLY)
def test_only_the_new_stimulus_cases_catch(runs: dict[str, Any], fault: str) -> None:
    """Pad, the scatter reductions, Convert and ScaledDotProductAttention had no stimulus cases:
    their generated cases all pass on these faults, the stimulus cases fail them."""
    device = _device(getattr(faults, fault))
    failed = [t for t, r in _records(runs, device).items() if r["status"] in FAIL]
    generated = [t for t in failed if R.generated_index(_case_key(t, device)[1].split("-", 2)[2]) is not None]
    assert failed and not generated, (fault, generated)


@pytest.mark.parametrize("device", ["REFERENCE", faults.ComputesInF16.device_name])
def test_reference_and_the_f16_device_pass(runs: dict[str, Any], device: str) -> None:
    records = _records(runs, device)
    failed = sorted(t for t, r in records.items() if r["status"] in FAIL)
    assert not failed, failed[:20]
    subs = {_case_key(t, device)[0] for t in records}
    assert subs == {"implemented", "query_model", "inference", "import_export"}
    inference = [r for t, r in records.items() if t.startswith("test_op_inference[")]
    assert len(inference) > 150 and all(r["status"] == "passed" for r in inference)
    stimulus = [r for r in inference if "stimulus" in r["facts"]]
    assert len(stimulus) > 100


def test_the_f16_device_is_judged_by_f16_bounds(runs: dict[str, Any]) -> None:
    """It declares INFERENCE_PRECISION_HINT=f16: f32 outputs get f16 tolerances, recorded per test."""
    device = faults.ComputesInF16.device_name
    rec = _records(runs, device)[f"test_op_inference[MatMul-1-k129-{device}]"]
    assert rec["facts"]["precision"] == "f16"
    tol = rec["facts"]["tolerances"][0]
    assert tol["rtol"] == pytest.approx(2 * 2.0 ** -10) and tol["ctol"] > 0
    assert rec["facts"]["max_abs_err"] > 1e-4  # it really computes in f16
    ref = _records(runs, "REFERENCE")["test_op_inference[MatMul-1-k129-REFERENCE]"]
    assert "precision" not in ref["facts"] and ref["facts"]["tolerances"][0]["rtol"] == pytest.approx(2 * 2.0 ** -23)


def test_an_undeclared_op_is_not_implemented(runs: dict[str, Any]) -> None:
    """query_model answering nothing: every Implemented test fails ("not implemented"), the others
    skip, and the op pass rate is 0 %, not n/a."""
    device = faults.DeclaresNothing.device_name
    records = _records(runs, device)
    assert records
    for test_id, r in records.items():
        sub = _case_key(test_id, device)[0]
        if sub == "implemented":
            assert r["status"] == "failed" and "not implemented:" in r["message"], (test_id, r["message"])
        else:
            assert r["status"] == "skipped" and "not supported (declared by query_model)" in r["message"], test_id
    assert runs[device]["__summary__"]["entities"]["op"]["pass_rate"] == 0.0


def test_dynamic_cases_infer_three_shapes_on_one_request(runs: dict[str, Any]) -> None:
    case = R.get_case("Relu", 1, "dynamic", EXAMPLES)
    assert case is not None and case.model.get_parameters()[0].get_output_partial_shape(0).is_dynamic
    shapes = [np.shape(step["x"]) for step in R.case_steps(case)]
    assert shapes == [(1, 7), (3, 65), (5, 129), (1, 7)]
    device = _device(faults.WrongOnSecondShape)
    rec = _records(runs, device)[f"test_op_inference[Relu-1-dynamic-{device}]"]
    assert "step 1 output 0" in rec["message"]  # the first shape is right, the second is not
