"""Error models that can fail (issue #20): ScaledDotProductAttention's own model, the DFT
family's accumulation length, and the model suite following the declared execution precision.

In process: :func:`ovconform.tolerances.attention_magnitude` (its bound, its behaviour on masks,
and a device computing attention at bf16 staying inside it while one that omits the scale does
not), :func:`~ovconform.tolerances.reduction_size` of the DFT family, the inverse transforms'
absolute term, and :func:`ovconform.suites._op_runner.model_tolerance` with a precision.

One pytest run (``-n 2``, from a temporary folder, the installed suites, standard depth) tests
the devices of ``tests/plugins/tolerance_faults.py`` on ScaledDotProductAttention and the DFT
family, and ``op_kernel_faults``' correct f16 device and its f32 device computing MatMul in f16 on
two real architectures:

* REFERENCE and the devices computing attention in f16 and in bf16 pass every attention case;
  the f32 device without the scale fails every stimulus case, the f32 device with an f16 softmax
  every f32 stimulus case of at most 256 keys, and the bf16 device without the scale most of them
  (the bf16 bound, 5.0 before, can fail now);
* the DFT off by a relative 1e-3 from length 4096 fails exactly the four ``n4096`` cases;
* the f16 device passes the model suite (judged by f16 bounds, recorded as the fact
  ``precision``), the f32 device computing MatMul in f16 fails it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import by_test, once_per_session, run_devices
from plugins import op_kernel_faults as kernel_faults
from plugins import tolerance_faults as faults

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases.stimulus import stimuli
from ovconform.suites import _op_runner as R
from ovconform.tolerances import (
    EPSILON,
    MAGNITUDE,
    Tolerance,
    attention_magnitude,
    attention_tolerance,
    compare,
    default_tolerance,
    reduction_size,
    resolve_tolerance,
)

SDPA = "ScaledDotProductAttention"
FAIL = ("failed", "error", "crashed", "hanged")


# -- in process: the attention error model -------------------------------------------------------------------

def _attention(rng: np.random.Generator, length: int, keys: int, head: int,
               spread: float = 1.0) -> tuple[np.ndarray, ...]:
    q = rng.uniform(-spread, spread, (1, 2, length, head))
    k = rng.uniform(-spread, spread, (1, 2, keys, head))
    v = rng.uniform(-1, 1, (1, 2, keys, head))
    return q, k, v


def _exact(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float | None = None,
           bias: np.ndarray | None = None) -> np.ndarray:
    logits = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if bias is not None:
        logits = logits + bias
    w = np.exp(logits - logits.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ v


def _at_precision(q: np.ndarray, k: np.ndarray, v: np.ndarray, precision: Type, scaled: bool = True) -> np.ndarray:
    """The tolerance_faults device's attention (every step rounded to ``precision``), from inputs
    already rounded to it."""
    r = faults.rounder(precision)
    scores = faults.blocked_matmul(q, np.swapaxes(k, -1, -2), r)
    if scaled:
        scores = r(scores * r(np.float64(1 / math.sqrt(q.shape[-1]))))
    e = r(np.exp(r(scores - scores.max(-1, keepdims=True))))
    w = r(e / faults.pairwise_sum(e, r)[..., None])
    return r(faults.blocked_matmul(w, v, r))


def test_attention_tolerance_is_e_times_s() -> None:
    for precision, et in ((None, "f32"), ("f16", "f16"), ("bf16", "bf16")):
        e = EPSILON[et]
        tol = attention_tolerance("f32", precision=precision)
        assert (tol.rtol, tol.ctol, tol.ulp) == (2 * e, e, None)
    assert attention_tolerance("i32").exact
    assert resolve_tolerance(SDPA, "f32", 13, conditioned=True, precision="bf16") == \
        attention_tolerance("f32", precision="bf16")
    # without S the old accumulating bound remains (what the graph suites use)
    assert default_tolerance(SDPA, "f32").ctol is None


def test_attention_magnitude_is_bounded_by_the_values_and_homogeneous_in_them() -> None:
    rng = np.random.default_rng(1)
    q, k, v = _attention(rng, 9, 33, 16)
    s = attention_magnitude(q, k, v)
    assert s.shape == v.shape[:-2] + (9, 16) and (s > 0).all()
    np.testing.assert_allclose(attention_magnitude(q, k, 4 * v), 4 * s, rtol=1e-12)
    # the documented bound: (4·max m + 4√S + 2)·max|V|, m = (2√E + 2)·A + EXP_ERROR
    a = np.abs(q) @ np.abs(np.swapaxes(k, -1, -2)) / math.sqrt(16)
    m = (2 * math.sqrt(16) + 2) * a.max() + 2
    assert s.max() <= (4 * m + 4 * math.sqrt(33) + 2) * np.abs(v).max()
    # equal values: no softmax error can move the output, only the PV sum's
    same = np.ones_like(v)
    np.testing.assert_allclose(attention_magnitude(q, k, same), 4 * math.sqrt(33) + 2)


def test_attention_magnitude_masks() -> None:
    rng = np.random.default_rng(2)
    q, k, v = _attention(rng, 5, 5, 8)
    causal = attention_magnitude(q, k, v, causal=True)
    # the first query sees one key: its output is that value, exactly up to the PV rounding
    np.testing.assert_allclose(causal[..., 0, :], (4 * math.sqrt(5) + 2) * np.abs(v[..., 0, :]))
    keep = np.ones((5, 5), bool)
    keep[2] = False  # a row masked everywhere: NaN output, S = 0 (NaN must match NaN)
    masked = attention_magnitude(q, k, v, keep)
    assert (masked[..., 2, :] == 0).all() and np.isfinite(masked).all()
    far = np.zeros((5, 5))
    far[:, 1:] = -1e4  # a float mask that leaves one key: the far ones add nothing
    np.testing.assert_allclose(attention_magnitude(q, k, v, far)[..., 1:, :],
                               np.broadcast_to((4 * math.sqrt(5) + 2) * np.abs(v[..., :1, :]), (1, 2, 4, 8)))


@pytest.mark.parametrize("precision", [Type.f16, Type.bf16])
@pytest.mark.parametrize(("length", "keys", "head", "spread"), [(7, 7, 4, 1.0), (17, 65, 32, 1.0),
                                                                 (9, 129, 64, 1.0), (4, 1024, 16, 1.0),
                                                                 (17, 65, 64, 3.0)])
def test_attention_at_the_declared_precision_stays_within_the_bound(precision: Type, length: int, keys: int,
                                                                    head: int, spread: float) -> None:
    rng = np.random.default_rng(keys + head)
    r = faults.rounder(precision)
    q, k, v = (r(a) for a in _attention(rng, length, keys, head, spread))
    want = _exact(q, k, v)  # the alternate oracle: exact from the rounded inputs
    got = _at_precision(q, k, v, precision)
    tol = attention_tolerance("f32", precision=precision)
    result = compare(got.astype(np.float32), want.astype(np.float32), tol, "f32",
                     magnitude=attention_magnitude(q, k, v))
    assert result.passed, result.message
    assert result.error_to_bound is not None and result.error_to_bound < 0.5, result.error_to_bound


def test_attention_without_the_scale_fails_the_bf16_bound_and_the_old_bound_could_not() -> None:
    rng = np.random.default_rng(3)
    r = faults.rounder(Type.bf16)
    q, k, v = (r(a) for a in _attention(rng, 17, 65, 32))
    want = _exact(q, k, v)
    got = _at_precision(q, k, v, Type.bf16, scaled=False).astype(np.float32)
    new = compare(got, want.astype(np.float32), attention_tolerance("f32", precision="bf16"), "f32",
                  magnitude=attention_magnitude(q, k, v))
    old = compare(got, want.astype(np.float32), default_tolerance(SDPA, "f32", precision="bf16"), "f32")
    assert not new.passed and old.passed
    assert old.tolerance.atol == pytest.approx(EPSILON["bf16"] * 64 * MAGNITUDE) == 5.0


# -- in process: the DFT family's K ---------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "shape", "axes", "signal", "k"), [
    ("DFT", (3, 65, 2), [1], None, 65),
    ("DFT", (3, 17, 65, 2), [-2, -1], None, 17 * 65),
    ("DFT", (3, 65, 2), [1], [33], 33),
    ("IDFT", (3, 17, 65, 2), [1, 2], [-1, 72], 17 * 72),
    ("RDFT", (3, 4096), [1], None, 4096),
    ("RDFT", (3, 65), [-1], [72], 72),
    ("IRDFT", (3, 2049, 2), [1], None, 4096),
    ("IRDFT", (3, 33, 2), [1], [65], 65),
])
def test_dft_reduction_size_is_the_transformed_length(op: str, shape: tuple[int, ...], axes: list[int],
                                                      signal: list[int] | None, k: int) -> None:
    build = {"DFT": opset.dft, "IDFT": opset.idft, "RDFT": opset.rdft, "IRDFT": opset.irdft}[op]
    data = opset.parameter(list(shape), Type.f32, "data")
    node = build(data, np.array(axes, np.int64), None if signal is None else np.array(signal, np.int64))
    assert reduction_size(node) == k


def test_inverse_transforms_divide_the_absolute_term_by_k() -> None:
    dft, idft = default_tolerance("DFT", "f32", reduction_size=4096), default_tolerance("IDFT", "f32",
                                                                                        reduction_size=4096)
    assert dft.atol == pytest.approx(EPSILON["f32"] * 4096 * MAGNITUDE)
    assert idft.atol == pytest.approx(EPSILON["f32"] * MAGNITUDE) and idft.rtol == dft.rtol


# -- in process: the model tolerance follows the precision ----------------------------------------------------

def test_model_tolerance_follows_the_declared_precision() -> None:
    f16, bf16 = EPSILON["f16"], EPSILON["bf16"]
    assert R.model_tolerance("REFERENCE", "f32") == R.MODEL_TOLERANCE
    assert R.model_tolerance("REFERENCE", "f32", Type.f32) == R.MODEL_TOLERANCE
    assert R.model_tolerance("REFERENCE", "f32", Type.f16) == Tolerance(64 * f16, 16 * f16)
    assert R.model_tolerance("REFERENCE", "f32", "bf16") == Tolerance(64 * bf16, 16 * bf16)
    assert R.model_tolerance("REFERENCE", "f64", Type.f16) == R.MODEL_TOLERANCE  # the hint is for f32 values
    assert R.model_tolerance("REFERENCE", "i64", Type.f16).exact


# -- one run of the suites --------------------------------------------------------------------------------------

DFT_OPS = ("DFT-7", "IDFT-7", "RDFT-9", "IRDFT-9")
ATTENTION_DEVICES = (faults.AttentionInF16, faults.AttentionInBF16, faults.AttentionWithoutScale,
                     faults.AttentionSoftmaxInF16, faults.BF16AttentionWithoutScale)
MODELS = ("llama_decoder", "resnet50_64px")


def _name(cls: type) -> str:
    return str(cls.device_name)  # type: ignore[attr-defined]


def _selection() -> str:
    dft = " or ".join(f"[{op}-" for op in DFT_OPS)
    attention = " or ".join(_name(c) for c in ATTENTION_DEVICES)
    models = " or ".join(f"[{m}-" for m in MODELS)
    f16, halfprod = _name(kernel_faults.ComputesInF16), _name(kernel_faults.F32DeviceComputesMatMulInF16)
    return (f"(test_op_inference and (REFERENCE or {attention}) and [{SDPA}-) or "
            f"(test_op_inference and (REFERENCE or {_name(faults.DFTOffOnLongTransforms)}) and ({dft})) or "
            f"(test_real_model and ({f16} or {halfprod}) and ({models}))")


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"tolerance_faults:{c.__name__}" for c in (*ATTENTION_DEVICES,
                                                                          faults.DFTOffOnLongTransforms)],
             "op_kernel_faults:ComputesInF16", "op_kernel_faults:F32DeviceComputesMatMulInF16"]
    docs = run_devices(workdir, specs, "-n", "2", "-k", _selection(), "--ovconform-depth", "standard",
                       timeout=1800)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "tolerance_model_runs", _run)


def _statuses(runs: dict[str, Any], cls: Any, prefix: str) -> dict[str, str]:
    """``{case label: status}`` of ``cls``'s Inference tests of the op ``prefix`` (``"DFT-7"``)."""
    device = cls if isinstance(cls, str) else _name(cls)
    out = {}
    for test_id, r in runs[device].items():
        name, _, rest = test_id.partition("[")
        key = rest.removesuffix("]").removesuffix(f"-{device}")
        if name == "test_op_inference" and key.startswith(f"{prefix}-"):
            out[key.removeprefix(f"{prefix}-")] = r["status"]
    return out


def _sdpa_stimulus(et: str | None = None, max_keys: int | None = None) -> set[str]:
    keys = {"keys4096": 4096}
    return {s.label for s in stimuli(SDPA, 13) if (et is None or s.element_type.name == et)
            and (max_keys is None or keys.get(s.label, 256) <= max_keys)}


@pytest.mark.parametrize("device", ["REFERENCE", _name(faults.AttentionInF16), _name(faults.AttentionInBF16)])
def test_correct_attention_passes_at_its_precision(runs: dict[str, Any], device: str) -> None:
    ran = _statuses(runs, device, f"{SDPA}-13")
    assert len(ran) >= 20 and _sdpa_stimulus() <= set(ran), sorted(ran)
    assert all(s in ("passed", "skipped") for s in ran.values()), {k: s for k, s in ran.items() if s != "passed"}
    if device != "REFERENCE":  # the precision it was judged by is recorded
        record = runs[device][f"test_op_inference[{SDPA}-13-causal-l63-{device}]"]
        assert record["facts"]["precision"] == ("f16" if "BF16" not in device else "bf16")
        assert 0 < record["facts"]["error_to_bound"] < 1


@pytest.mark.parametrize(("fault", "must_fail"), [
    (faults.AttentionWithoutScale, _sdpa_stimulus()),
    (faults.AttentionSoftmaxInF16, _sdpa_stimulus("f32", max_keys=256)),
    (faults.BF16AttentionWithoutScale, _sdpa_stimulus(max_keys=256) - {"logits-s65"}),
])
def test_attention_faults_fail_their_cases(runs: dict[str, Any], fault: Any, must_fail: set[str]) -> None:
    device = _name(fault)
    ran = _statuses(runs, fault, f"{SDPA}-13")
    failed = {k for k, s in ran.items() if s in FAIL}
    assert must_fail and must_fail <= failed, f"{device} not caught by {sorted(must_fail - failed)}"
    for key in failed:
        message = runs[device][f"test_op_inference[{SDPA}-13-{key}-{device}]"]["message"]
        assert message.startswith(f"Failed: declared supported but failed: {SDPA}-13 inference"), message
    if fault is faults.AttentionSoftmaxInF16:  # f16 inputs are computed in f16 anyway: right there
        assert ran["f16-causal-l65"] == "passed"


def test_dft_off_on_long_transforms_fails_exactly_there(runs: dict[str, Any]) -> None:
    for op in DFT_OPS:
        reference = _statuses(runs, "REFERENCE", op)
        assert reference and set(reference.values()) <= {"passed", "skipped"}, reference
        ran = _statuses(runs, faults.DFTOffOnLongTransforms, op)
        assert ran.keys() == reference.keys()
        assert {k for k, s in ran.items() if s in FAIL} == {"n4096"}, (op, ran)
        record = runs[_name(faults.DFTOffOnLongTransforms)][f"test_op_inference[{op}-n4096-TOL_DFT_LONG]"]
        assert "declared supported but failed" in record["message"] and record["facts"]["error_to_bound"] > 1


def _model_records(runs: dict[str, Any], cls: Any) -> dict[str, dict[str, Any]]:
    device = _name(cls)
    return {r["facts"]["model"]: r for t, r in runs[device].items() if t.startswith("test_real_model[")}


def test_the_model_suite_follows_the_declared_precision(runs: dict[str, Any]) -> None:
    f16 = _model_records(runs, kernel_faults.ComputesInF16)
    assert set(f16) == set(MODELS)
    for name, r in f16.items():
        assert r["status"] == "passed", (name, r["message"])
        assert r["facts"]["precision"] == "f16"
    # against the f32 bound (at least 16e/1e-3 = 15.6 times tighter) the f16 device would fail
    assert max(r["facts"]["error_to_bound"] for r in f16.values()) * (16 * EPSILON["f16"] / 1e-3) > 1
    halfprod = _model_records(runs, kernel_faults.F32DeviceComputesMatMulInF16)
    assert set(halfprod) == set(MODELS)
    for name, r in halfprod.items():
        assert r["status"] == "failed" and "precision" not in r["facts"], (name, r["status"])
        assert r["facts"]["error_to_bound"] > 1
