"""Cross-check every REFERENCE kernel against the real OpenVINO CPU plugin.

For every registered op case (``ovconform.opcases.all_case_keys()``) hypothesis draws
``EXAMPLES`` cases (25 by default, for CI's time: 2.5 times the op suite's 10 generated cases at
standard depth; ``OVCONFORM_CROSSCHECK_EXAMPLES=50`` for the committed coverage table). Each case is
written with OUR IR v11 writer, read by ``openvino.Core.read_model`` from memory, compiled on CPU
with ``INFERENCE_PRECISION_HINT=f32`` and run; REFERENCE evaluates the same model, and every
output is compared with ``ovconform.tolerances`` (the default for the op producing it and its
element type). Stateful cases run ``STATEFUL_STEPS`` inferences on one OpenVINO request and on
REFERENCE with a carried state dict, comparing every step (the tolerance grows with the step:
OpenVINO CPU keeps f16 state in f32). bf16 tensors cross as uint16 bit patterns. Samples of a
categorical distribution (Multinomial: OpenVINO CPU draws them with std::mt19937, REFERENCE with
RandomUniform's Philox as OpenVINO's reference code does) are checked as samples
(``ovconform.categorical.compare_samples``), not by value.

Where OpenVINO CPU disagrees with the op specification, ``openvino_deviations.py`` records it;
matching cases are skipped (and counted), and each record's witness is run here to prove the
deviation still happens. Known REFERENCE gaps are ``xfail(strict=True)``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from openvino_deviations import DEVIATIONS, SPEC, Deviation, deviation_for

from ovconform import Model, serialize
from ovconform import opset as ops
from ovconform.categorical import SampleComparison, compare_samples, sample_space
from ovconform.ir import Type, constant_value, f32_to_bf16
from ovconform.opcases import OpCase, all_case_keys
from ovconform.suites._op_runner import generate_cases
from ovconform.tolerances import EPSILON, Comparison, Tolerance, compare, reduction_size, resolve_tolerance
from reference_plugin.evaluate import ModelRunner
from reference_plugin.ops import registered_ops

ov = pytest.importorskip("openvino", reason="the OpenVINO cross-check needs the openvino package "
                                            "(pip install openvino)")
pytestmark = pytest.mark.openvino

EXAMPLES = int(os.environ.get("OVCONFORM_CROSSCHECK_EXAMPLES", "25"))
STATEFUL_STEPS = 3
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
CASE_KEYS = all_case_keys()

#: Op cases where REFERENCE (not OpenVINO) is wrong: key -> reason. Empty: none known.
REFERENCE_GAPS: dict[tuple[str, int], str] = {}


def _key_param(key: tuple[str, int]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=REFERENCE_GAPS[key])] if key in REFERENCE_GAPS else []
    return pytest.param(key, id=f"{key[0]}-{key[1]}", marks=marks)


@pytest.fixture(scope="module")
def core() -> Any:
    return ov.Core()


# -- running one case on both sides -------------------------------------------------------------------------

def _element_types(model: Model) -> list[Type]:
    return [r.input_value(0).get_element_type() for r in model.get_results()]


def to_ov_tensor(value: np.ndarray, et: Type) -> Any:
    """A new openvino.Tensor of ``et`` holding ``value`` (bf16 values are uint16 bit patterns).
    Built from type and shape, then filled: ``ov.Tensor(array)`` turns a 0-d array into shape [1]."""
    if et == Type.string:  # OpenVINO takes a numpy array of str as a string tensor
        return ov.Tensor(np.array(value.tolist(), dtype=str).reshape(value.shape))
    tensor = ov.Tensor(getattr(ov.Type, et.name), ov.Shape(list(value.shape)))
    data = tensor.data
    (data.view(np.uint16) if et == Type.bf16 else data)[...] = value
    return tensor


def from_ov_tensor(tensor: Any, et: Type) -> np.ndarray:
    """A copy of ``tensor``'s data as the array ovconform stores for ``et`` (uint16 for bf16, an object
    array of str for string: the bytes decoded as UTF-8 with surrogate escapes, as ovconform holds them)."""
    if et == Type.string:
        raw = np.asarray(tensor.bytes_data, dtype=object)
        out = np.empty(raw.shape, dtype=object)
        out.reshape(-1)[:] = [bytes(v).decode("utf-8", "surrogateescape") for v in raw.reshape(-1)]
        return out
    data = tensor.data
    return np.array(data.view(np.uint16) if et == Type.bf16 else data, copy=True)


def run_openvino(core: Any, case: OpCase, steps: int) -> list[list[np.ndarray]]:
    """Outputs of ``steps`` inferences of ``case`` on one OpenVINO CPU infer request."""
    xml, weights = serialize(case.model)
    compiled = core.compile_model(core.read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8))), "CPU",
                                  CPU_CONFIG)
    request = compiled.create_infer_request()
    params = case.model.get_parameters()
    out_types = _element_types(case.model)
    runs = []
    for _ in range(steps):
        for i, p in enumerate(params):
            request.set_input_tensor(i, to_ov_tensor(case.inputs[p.friendly_name], p.get_output_element_type(0)))
        request.infer()
        runs.append([from_ov_tensor(request.get_output_tensor(i), et) for i, et in enumerate(out_types)])
    return runs


def run_reference(case: OpCase, steps: int) -> tuple[list[list[np.ndarray]], list[float]]:
    """Outputs of ``steps`` REFERENCE evaluations of ``case`` carrying one state dict, and for each
    step the largest magnitude a floating-point state value had before it."""
    runner, state = ModelRunner(case.model), {}
    outputs, carried, largest = [], [], 0.0
    for _ in range(steps):
        carried.append(largest)
        outputs.append(runner.run(case.inputs, state))
        largest = max([largest, *(float(np.max(np.abs(v), initial=0)) for v in state.values() if v.dtype.kind == "f")])
    return outputs, carried


def output_tolerance(case: OpCase, index: int, step: int, carried: float = 0.0) -> tuple[Tolerance, Type]:
    """The tolerance for result ``index`` at ``step`` (0-based).

    It is the default of the op computing the value, scaled by the number of inferences the state
    has carried it; a ReadValue after the first step returns what the Assign of its variable
    stored, so its tolerance is that of the op feeding the Assign. A carried floating-point state
    adds up to half an ulp of its magnitude ``carried`` per step, where a device keeps the state
    wider than its element type (OpenVINO CPU keeps f16 state in f32) and REFERENCE rounds it.
    """
    source = case.model.get_results()[index].input_value(0)
    node, et = source.node, source.get_element_type()
    if node.type_name == "ReadValue" and step > 0:
        node = next(s.input_value(0).node for s in case.model.get_sinks()
                    if s.attrs.get("variable_id") == node.attrs["variable_id"])
    tol = resolve_tolerance(node.type_name, et, node.version, reduction_size=reduction_size(node)).scaled(step + 1)
    if et.is_real() and step:
        tol = Tolerance(tol.atol + step * EPSILON[et.name] * carried, tol.rtol, tol.ulp)
    return tol, et


def describe(case: OpCase) -> str:
    ops_text = "; ".join(f"{n.type_name}-{n.version} {n.attrs}" for n in case.model.get_ordered_ops()
                         if n.type_name not in ("Parameter", "Result"))
    inputs = ", ".join(f"{k}: {v.dtype}{list(v.shape)}" for k, v in case.inputs.items())
    return f"{case.op_type}-{case.version} [{ops_text}] inputs {{{inputs}}}"


def compare_output(case: OpCase, index: int, got: np.ndarray, want: np.ndarray, tol: Tolerance,
                   et: Type) -> Comparison:
    """:func:`compare` by value, or, for samples of a categorical distribution, as samples of the
    op's probabilities (from the case's Constants and inputs)."""
    node = case.model.get_results()[index].input_value(0).node
    values = []
    for src in node.input_values():
        known = constant_value(src)
        if known is None and src.node.type_name == "Parameter":
            known = case.inputs.get(src.node.friendly_name)
        values.append(known)
    space = sample_space(node, values)
    return compare(got, want, tol, et) if space is None else compare_samples(got, want, space, tol, et)


def crosscheck(core: Any, case: OpCase) -> list[Comparison]:
    """Compare OpenVINO CPU with REFERENCE on ``case``; raise AssertionError naming the output."""
    steps = STATEFUL_STEPS if case.extra.get("stateful") else 1
    theirs, (ours, carried) = run_openvino(core, case, steps), run_reference(case, steps)
    results = []
    for step, (got_all, want_all) in enumerate(zip(theirs, ours, strict=True)):
        assert len(got_all) == len(want_all), f"{len(got_all)} OpenVINO outputs, {len(want_all)} REFERENCE outputs"
        for i, (got, want) in enumerate(zip(got_all, want_all, strict=True)):
            tol, et = output_tolerance(case, i, step, carried[step])
            result = compare_output(case, i, got, want, tol, et)
            assert result.passed, (f"output {i} ({et}) step {step + 1}/{steps}: OpenVINO CPU vs REFERENCE: "
                                   f"{result.message} [{describe(case)}]")
            results.append(result)
    return results


# -- every op case -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [_key_param(k) for k in CASE_KEYS])
def test_openvino_cpu_agrees_with_reference(core: Any, key: tuple[str, int],
                                            record_property: Callable[[str, object], None]) -> None:
    """The first EXAMPLES cases of the op's strategy (the op suite's cases are its first ones),
    drawn by ``generate_cases`` with a fixed seed: the same cases whatever this test's code."""
    checked: list[float] = []
    samples: list[bool] = []
    skipped: Counter[str] = Counter()
    failures: list[str] = []
    cases = generate_cases(*key, EXAMPLES)
    for index, case in enumerate(cases):
        deviation = deviation_for(case)
        if deviation is not None:
            skipped[deviation.name] += 1
            continue
        try:
            results = crosscheck(core, case)
        except Exception as e:  # noqa: BLE001 - every failing case is reported
            failures.append(f"case{index}: {type(e).__name__}: {e}")
            continue
        checked.append(max((r.max_abs_err for r in results), default=0.0))
        samples.extend(r.equal_to_reference for r in results if isinstance(r, SampleComparison))
    record_property("cases_checked", len(checked))
    record_property("cases_skipped_by_deviation", dict(skipped))
    record_property("max_abs_err", max(checked, default=0.0))
    if samples:  # checked as samples: how many outputs equal REFERENCE's samples is a fact
        record_property("samples_equal_reference", f"{sum(samples)}/{len(samples)}")
    assert not failures, f"{len(failures)} of {len(cases)} cases disagree:\n" + "\n".join(failures[:3])
    assert len(cases) >= min(EXAMPLES * 4 // 5, 40), f"the strategy gave only {len(cases)} distinct cases"
    if not checked:
        pytest.skip(f"every drawn case matches a recorded OpenVINO deviation: {dict(skipped)}")


def test_every_reference_kernel_is_cross_checked() -> None:
    """Every kernel version REFERENCE registers (Parameter/Constant/Result are in every case) has a
    case strategy, so the parametrization above covers it."""
    kernels = {(op, v) for op, versions in registered_ops().items() for v in versions
               if op not in ("Parameter", "Constant", "Result")}
    missing = sorted(kernels - set(CASE_KEYS))
    assert not missing, f"REFERENCE kernels without an op case, so not cross-checked: {missing}"


# -- bf16 tensors --------------------------------------------------------------------------------------------

def _bf16_case() -> OpCase:
    rng = np.random.default_rng(7)
    a = f32_to_bf16(rng.uniform(-4, 4, (2, 3)).astype(np.float32))
    b = f32_to_bf16(rng.uniform(-4, 4, (3,)).astype(np.float32))
    pa, pb = ops.parameter([2, 3], Type.bf16, "a"), ops.parameter([3], Type.bf16, "b")
    outputs = [ops.add(pa, pb), ops.relu(pa), ops.convert(pa, Type.f32), ops.convert(ops.convert(pb, Type.f32),
                                                                                       Type.bf16)]
    return OpCase("Add", 1, Model(outputs, [pa, pb], "bf16_io"), {"a": a, "b": b})


def test_bf16_tensors_cross_as_uint16_bit_patterns(core: Any) -> None:
    case = _bf16_case()
    results = crosscheck(core, case)
    assert len(results) == 4
    (got,) = run_openvino(core, case, 1)
    assert got[1].dtype == np.uint16 and got[2].dtype == np.float32
    assert np.array_equal(got[3], case.inputs["b"])  # bf16 -> f32 -> bf16 is exact, bit for bit


# -- the recorded deviations ---------------------------------------------------------------------------------

DEVIATION_PARAMS = [pytest.param(d, id=f"{d.op}-{d.versions[0]}") for d in DEVIATIONS]


def _outputs_match_spec(outputs: list[np.ndarray], dev: Deviation) -> list[Comparison]:
    """Exact comparison with the witness's spec outputs (samples of a categorical distribution: valid
    samples of the witness's probabilities, as the cross-check compares them)."""
    witness = dev.witness()
    types = _element_types(witness.case.model)
    assert len(outputs) == len(witness.expected) == len(types)
    return [compare_output(witness.case, i, got, want, Tolerance(0, 0), et)
            for i, (got, want, et) in enumerate(zip(outputs, witness.expected, types, strict=True))]


@pytest.mark.parametrize("dev", DEVIATION_PARAMS)
def test_deviation_record_is_complete(dev: Deviation) -> None:
    assert (dev.op, dev.versions[0]) in CASE_KEYS and all((dev.op, v) in CASE_KEYS for v in dev.versions)
    assert dev.spec_url.startswith(SPEC + "/") and dev.spec_url.endswith(".html")
    assert dev.reason.strip() and dev.evidence.strip()
    assert dev.reference_follows_spec or dev.reference_gap.strip()
    case = dev.witness().case
    assert (case.op_type, case.version) in [(dev.op, v) for v in dev.versions]
    assert dev.applies(case), "the record's predicate must match its own witness"
    assert deviation_for(case) is dev


@pytest.mark.parametrize("dev", DEVIATION_PARAMS)
def test_deviation_still_happens_on_openvino_cpu(core: Any, dev: Deviation) -> None:
    """The witness still deviates: OpenVINO's outputs differ from the spec's, or, for a record of a
    refusal, OpenVINO still refuses the model the spec allows."""
    if dev.openvino_refuses:
        with pytest.raises(RuntimeError):
            run_openvino(core, dev.witness().case, 1)
        return
    (outputs,) = run_openvino(core, dev.witness().case, 1)
    comparisons = _outputs_match_spec(outputs, dev)
    assert not all(c.passed for c in comparisons), (
        f"stale record: OpenVINO CPU {ov.__version__} now follows the spec for {dev.name!r}; "
        f"remove it from openvino_deviations.py")


def _reference_param(dev: Deviation) -> Any:
    marks = [] if dev.reference_follows_spec else [pytest.mark.xfail(strict=True, reason=dev.reference_gap)]
    return pytest.param(dev, id=f"{dev.op}-{dev.versions[0]}", marks=marks)


@pytest.mark.parametrize("dev", [_reference_param(d) for d in DEVIATIONS])
def test_reference_follows_the_spec_on_each_witness(dev: Deviation) -> None:
    (outputs,), _ = run_reference(dev.witness().case, 1)
    for i, c in enumerate(_outputs_match_spec(outputs, dev)):
        assert c.passed, f"REFERENCE output {i} on the {dev.name!r} witness: {c.message}"


def test_openvino_differs_from_reference_on_each_followed_witness(core: Any) -> None:
    """Where REFERENCE follows the spec, OpenVINO CPU differs from REFERENCE itself."""
    for dev in DEVIATIONS:
        if not dev.reference_follows_spec:
            continue
        case = dev.witness().case
        if dev.openvino_refuses:
            continue  # nothing to compare (test_deviation_still_happens_on_openvino_cpu checks the refusal)
        (theirs,), ((ours,), _) = run_openvino(core, case, 1), run_reference(case, 1)
        types = _element_types(case.model)
        assert not all(compare(a, b, Tolerance(0, 0), et).passed for a, b, et in zip(theirs, ours, types,
                                                                                     strict=True)), dev.name
