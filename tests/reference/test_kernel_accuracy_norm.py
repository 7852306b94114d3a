"""Accuracy of the float32 Softmax and MVN kernels, stated and measured.

REFERENCE's programs compute f32 Softmax and MVN (over trailing axes) by faster routes than the
plain float64 formulas (reference_plugin/fast/softmax.py and fast/mvn.py). Each is checked here,
as the device runs it (:func:`ref_kernel_util.run_device`), against the textbook formula
computed in float64 and rounded once to f32, written out in this file (:func:`_softmax64`,
:func:`_mvn64`), on random and adversarial inputs:

* Softmax: within :data:`SOFTMAX_ULP` ulp on logits of every scale (normal, ±20, ±1e4, 1e5 offset,
  1e-30), rows of equal values, ``-inf`` / -1e30 / -3.4e38 masks, rows far apart from each other
  (the row-max route), float32's extremes and a single-element axis, along the last axis and
  along axis 0; NaN exactly where float64 has it (NaN or +inf inputs, all ``-inf`` rows).
  Measured max over 20 seeds: 0 ulp (the bound allows the one rounding flip that a last-bit
  difference of the float64 intermediates can cause);
* MVN: within :data:`MVN_ULP` ulp on normal, offset (mean/std up to 5e3), 1e30, float32-max,
  1e-30 and constant rows, eps inside/outside the sqrt and without variance normalisation.
  Measured max over 10 seeds: 0 ulp. Where ``x - mean`` cancels (``|y|`` under 2**-12 of the
  row's largest ``|y|``) the bound is :data:`MVN_ABS` times that largest ``|y|`` instead: there a
  last-bit difference between two float64 means (n·2**-53 of ``max|x|``, ~2**-35 of the largest
  ``|y|`` at mean/std 1e3) is many ulp of a tiny result. Constant rows give exactly 0 (NaN with
  eps 0, as float64 does).

Other element types (f64, f16, bf16) keep the plain float64 route: their results are compared
for bitwise equality.
"""

from __future__ import annotations

import numpy as np
import pytest
from ref_kernel_util import run_device

from ovconform import Model
from ovconform import opset as ops
from ovconform.ir import Type
from ovconform.tolerances import ulp_distance
from reference_plugin.evaluate import evaluate
from reference_plugin.fast import softmax as fast_softmax
from reference_plugin.fast.mvn import MVN_ABS, MVN_ULP, mvn_rows_f32
from reference_plugin.fast.softmax import SOFTMAX_ULP, softmax_f32


@pytest.fixture(autouse=True)
def _f32_route_for_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small tensors take the formula in production; here every size takes the f32 route."""
    monkeypatch.setattr(fast_softmax, "FAST_MIN", 0)


def _softmax64(x: np.ndarray, axis: int) -> np.ndarray:
    v = x.astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf in rows holding +inf or only -inf
        e = np.exp(v - np.max(v, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _mvn64(x: np.ndarray, axes: tuple[int, ...], normalize: bool, eps: float, inside: bool) -> np.ndarray:
    v = x.astype(np.float64)
    c = v - np.mean(v, axis=axes, keepdims=True)
    if not normalize:
        return c
    var = np.mean(c * c, axis=axes, keepdims=True)
    return c / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)


def _run(make, x: np.ndarray, t: Type = Type.f32) -> np.ndarray:
    """The device's result (the fast routes)."""
    p = ops.parameter(list(x.shape), t, "x")
    (y,) = run_device(Model([make(p)], [p]), [x])
    return y


def _formula(make, x: np.ndarray, t: Type = Type.f32) -> np.ndarray:
    """The formula's result (the plain interpreter): the textbook float64 one rounded once."""
    p = ops.parameter(list(x.shape), t, "x")
    (y,) = evaluate(Model([make(p)], [p]), [x])
    return y


def _assert_ulp(got: np.ndarray, want64: np.ndarray, bound: int, what: str) -> int:
    want = want64.astype(np.float32)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{what}: NaN where float64 has none (or back)"
    ok = ~np.isnan(want)
    worst = int(np.max(ulp_distance(got[ok], want[ok], Type.f32), initial=0))
    assert worst <= bound, f"{what}: {worst} ulp from the float64 result"
    return worst


# -- Softmax -----------------------------------------------------------------------------------

def _rows_apart(rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal((6, 64)).astype(np.float32)
    return x + np.array([0, -700, -2000, 1e4, -1e30, 5], np.float32)[:, None]


def _masked(rng: np.random.Generator) -> np.ndarray:
    x = (rng.standard_normal((8, 128)) * 4).astype(np.float32)
    x[:, 64:] = -np.inf
    x[1, :100] = -1e30
    x[2, 3] = np.float32(-3.4e38)
    return x


SOFTMAX_CASES = {
    "normal3": lambda rng: (rng.standard_normal((2, 4, 16, 128)) * 3).astype(np.float32),
    "uniform20": lambda rng: rng.uniform(-20, 20, (64, 257)).astype(np.float32),
    "large": lambda rng: rng.uniform(-1e4, 1e4, (32, 100)).astype(np.float32),
    "offset": lambda rng: (rng.uniform(-30, 30, (32, 100)) + 1e5).astype(np.float32),
    "tiny": lambda rng: (rng.standard_normal((16, 64)) * 1e-30).astype(np.float32),
    "equal": lambda rng: np.repeat(rng.uniform(-50, 50, (16, 1)), 77, axis=1).astype(np.float32),
    "masked": _masked,
    "rows_apart": _rows_apart,
    "rows_far_below": lambda rng: (rng.standard_normal((3, 50)) + np.array([[0.0], [-650.0], [-900.0]]))
    .astype(np.float32),
    "one_element": lambda rng: rng.standard_normal((10, 1)).astype(np.float32),
    "f32_extremes": lambda rng: np.array([[3.4e38, -3.4e38, 0.0, 1.0], [-3.4e38, -3.4e38, -3.4e38, 1e-45]],
                                         np.float32),
}


@pytest.mark.parametrize("case", sorted(SOFTMAX_CASES))
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_f32_within_the_stated_ulp(case: str, axis: int) -> None:
    x = SOFTMAX_CASES[case](np.random.default_rng(7))
    got = _run(lambda p: ops.softmax(p, axis), x)
    _assert_ulp(got, _softmax64(x, axis), SOFTMAX_ULP, f"Softmax {case} axis {axis}")
    _assert_ulp(_formula(lambda p: ops.softmax(p, axis), x), _softmax64(x, axis), 0, f"formula {case} axis {axis}")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_softmax_f32_non_finite_inputs_match_float64(bad: float) -> None:
    x = np.random.default_rng(3).standard_normal((4, 3, 16)).astype(np.float32)
    x[1, 2, 5] = bad
    x[2] = -np.inf
    for axis in (-1, 1):
        got = _run(lambda p, axis=axis: ops.softmax(p, axis), x)
        want = _softmax64(x, axis)
        _assert_ulp(got, want, SOFTMAX_ULP, f"Softmax with {bad} axis {axis}")


def test_softmax_f32_fast_route_is_the_one_measured() -> None:
    rng = np.random.default_rng(1)
    assert softmax_f32(SOFTMAX_CASES["normal3"](rng), 3) is not None
    masked = SOFTMAX_CASES["normal3"](rng)
    masked[..., 100:] = -np.inf
    assert softmax_f32(masked, 3) is not None
    assert softmax_f32(masked, 2) is None  # all -inf columns: the row-max route
    assert softmax_f32(_rows_apart(rng), 1) is None  # rows ~700 below the tensor's max: row-max route
    assert softmax_f32(SOFTMAX_CASES["rows_far_below"](rng), 1) is None  # unshifted, rows at -650
    assert softmax_f32(np.array([[1.0, np.nan]], np.float32), 1) is None


@pytest.mark.parametrize("t", [Type.f64, Type.f16, Type.bf16])
def test_softmax_other_types_are_unchanged(t: Type) -> None:
    from ovconform.ir import bf16_to_f32, f32_to_bf16

    x32 = (np.random.default_rng(5).standard_normal((4, 33)) * 5).astype(np.float32)
    if t == Type.bf16:
        x, wide = f32_to_bf16(x32), bf16_to_f32(f32_to_bf16(x32))
        want = f32_to_bf16(_softmax64(wide, 1).astype(np.float32))
    else:
        x = x32.astype(t.to_dtype())
        want = _softmax64(x.astype(np.float32) if t == Type.f16 else x, 1).astype(t.to_dtype())
    assert np.array_equal(_run(lambda p: ops.softmax(p, 1), x, t), want)


# -- MVN ---------------------------------------------------------------------------------------

def _assert_mvn(got: np.ndarray, want64: np.ndarray, axes: tuple[int, ...], what: str) -> None:
    """Within MVN_ULP ulp, or within MVN_ABS of the row's largest |y| where x - mean cancels."""
    with np.errstate(over="ignore"):
        want = want64.astype(np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{what}: NaN where float64 has none (or back)"
    scale = np.broadcast_to(np.max(np.abs(np.nan_to_num(want64)), axis=axes, keepdims=True), want.shape)
    ok = ~np.isnan(want)
    ulps = ulp_distance(got, want, Type.f32)
    cancelled = np.abs(want64) < scale * 2.0 ** -12
    far = ok & (ulps > MVN_ULP)
    assert not np.any(far & ~cancelled), f"{what}: {int(np.max(ulps[far & ~cancelled]))} ulp from float64"
    err = np.abs(got[far].astype(np.float64) - want64[far])
    assert np.all(err <= MVN_ABS * scale[far]), f"{what}: cancelled element off by {np.max(err / scale[far]):.3g}"


def _constant_rows(rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal((2, 8, 64)).astype(np.float32)
    x[0, :4] = np.float32(3.3)
    x[1, 5] = np.float32(-1e30)
    return x


MVN_CASES = {
    "normal": lambda rng: (rng.standard_normal((1, 128, 256)) * 3).astype(np.float32),
    "offset1e3": lambda rng: (rng.standard_normal((4, 16, 300)) + 1e3).astype(np.float32),
    "offset_neg": lambda rng: (rng.uniform(-1, 1, (8, 200)) * 10 - 5e3).astype(np.float32),
    "large": lambda rng: (rng.standard_normal((4, 64, 32)) * 1e30).astype(np.float32),
    "huge": lambda rng: rng.uniform(-3.4e38, 3.4e38, (8, 40)).astype(np.float32),
    "tiny": lambda rng: (rng.standard_normal((4, 64, 32)) * 1e-30).astype(np.float32),
    "constant_rows": _constant_rows,
    "one_element": lambda rng: rng.standard_normal((6, 1)).astype(np.float32),
}


@pytest.mark.parametrize("case", sorted(MVN_CASES))
@pytest.mark.parametrize("normalize, eps, inside", [(True, 1e-5, True), (True, 1e-9, False), (False, 1e-5, True)])
def test_mvn6_f32_within_the_stated_bound(case: str, normalize: bool, eps: float, inside: bool) -> None:
    x = MVN_CASES[case](np.random.default_rng(11))
    eps = float(np.float32(eps))
    mode = "inside_sqrt" if inside else "outside_sqrt"
    for axes in sorted({(x.ndim - 1,), tuple(range(1, x.ndim))}):
        got = _run(lambda p, axes=axes: ops.mvn(p, list(axes), normalize, eps, mode), x)
        _assert_mvn(got, _mvn64(x, axes, normalize, eps, inside), axes, f"MVN-6 {case} axes {axes}")
        formula = _formula(lambda p, axes=axes: ops.mvn(p, list(axes), normalize, eps, mode), x)
        _assert_mvn(formula, _mvn64(x, axes, normalize, eps, inside), axes, f"MVN-6 formula {case} axes {axes}")


def test_mvn6_f32_constant_rows_are_zero_and_nan_with_eps_0() -> None:
    x = np.full((3, 50), 7.25, np.float32)
    y = _run(lambda p: ops.mvn(p, [1], True, 1e-6, "inside_sqrt"), x)
    assert np.array_equal(y, np.zeros_like(x)) and not np.any(np.signbit(y) & (y != 0))
    with np.errstate(invalid="ignore"):
        want = _mvn64(x, (1,), True, 0.0, True)
    got = _run(lambda p: ops.mvn(p, [1], True, 0.0, "inside_sqrt"), x)
    assert np.all(np.isnan(got)) and np.all(np.isnan(want))


@pytest.mark.parametrize("across", [False, True])
def test_mvn1_f32_within_the_stated_bound(across: bool) -> None:
    x = (np.random.default_rng(2).standard_normal((2, 3, 9, 11)) * 2 + 40).astype(np.float32)
    axes = (1, 2, 3) if across else (2, 3)
    got = _run(lambda p: ops.mvn_v1(p, across, True, 1e-6), x)
    _assert_mvn(got, _mvn64(x, axes, True, 1e-6, True), axes, f"MVN-1 across={across}")


def test_mvn_f32_non_trailing_axes_keep_the_float64_route() -> None:
    x = np.random.default_rng(4).standard_normal((3, 5, 7)).astype(np.float32)
    assert mvn_rows_f32(x, (1,), True, 1e-5, True) is None
    got = _run(lambda p: ops.mvn(p, [1], True, 1e-5, "inside_sqrt"), x)
    assert np.array_equal(got, _mvn64(x, (1,), True, float(np.float32(1e-5)), True).astype(np.float32))


def test_mvn_f32_non_finite_inputs_match_float64() -> None:
    x = np.random.default_rng(6).standard_normal((4, 20)).astype(np.float32)
    x[0, 3], x[1, 0], x[2, :2] = np.nan, np.inf, [np.inf, -np.inf]
    got = _run(lambda p: ops.mvn(p, [1], True, 1e-5, "inside_sqrt"), x)
    with np.errstate(invalid="ignore"):
        want = _mvn64(x, (1,), True, float(np.float32(1e-5)), True)
    _assert_mvn(got, want, (1,), "MVN with NaN/inf")


@pytest.mark.parametrize("t", [Type.f64, Type.f16])
def test_mvn_other_types_are_unchanged(t: Type) -> None:
    x = (np.random.default_rng(8).standard_normal((3, 40)) * 3 + 1).astype(t.to_dtype())
    got = _run(lambda p: ops.mvn(p, [1], True, 1e-5, "inside_sqrt"), x, t)
    wide = x.astype(np.float32).astype(np.float64) if t == Type.f16 else x
    assert np.array_equal(got, _mvn64(wide, (1,), True, float(np.float32(1e-5)), True).astype(t.to_dtype()))


def test_split_over_threads_gives_the_same_values() -> None:
    from reference_plugin.fast import parallel as _parallel

    rng = np.random.default_rng(9)
    x = (rng.standard_normal((1200, 256)) * 4).astype(np.float32)  # 2 x 153K elements: split in two
    one = (softmax_f32(x, 1), mvn_rows_f32(x, (1,), True, 1e-5, True))
    with _parallel.using(2):
        two = (softmax_f32(x, 1), mvn_rows_f32(x, (1,), True, 1e-5, True))
    assert all(a is not None and b is not None and np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    _assert_ulp(one[0], _softmax64(x, 1), SOFTMAX_ULP, "Softmax on 1200 rows")
    _assert_mvn(one[1], _mvn64(x, (1,), True, 1e-5, True), (1,), "MVN on 1200 rows")
