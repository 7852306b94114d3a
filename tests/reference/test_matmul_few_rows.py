"""MatMul's matmul-few-rows route (reference_plugin/fast/matmul.py: a constant 2D B, at most
FEW_ROWS rows of A, (Bᵀ·Aᵀ)ᵀ on BLAS) gives the products the formula gives, within the
accumulating class's rounding, in every layout."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ref_kernel_util import run_device

from ovconform import Model
from ovconform import opset as ops
from ovconform.ir import Type
from reference_plugin.evaluate import evaluate
from reference_plugin.fast import matmul as fast_matmul

RNG = np.random.default_rng(11)


def _run(a: np.ndarray, b: np.ndarray, transpose_b: bool, et: Type, constant_b: bool, device: bool = True
         ) -> np.ndarray:
    x = ops.parameter(list(a.shape), et, "a")
    if constant_b:
        y, params, feed = ops.constant(b.astype(et.to_dtype()), name="b"), [x], [a]
    else:
        p = ops.parameter(list(b.shape), et, "b")
        y, params, feed = p, [x, p], [a, b.astype(et.to_dtype())]
    model = Model([ops.matmul(x, y, False, transpose_b, name="mm")], params, "mm")
    return (run_device(model, feed) if device else evaluate(model, feed))[0]


@pytest.mark.parametrize("shape_a", [(1, 784), (8, 784), (2, 3, 784), (16, 784), (17, 784), (784,)])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("et", [Type.f32, Type.f64])
def test_few_rows_with_a_constant_b_matches_the_general_product(shape_a: tuple[int, ...], transpose_b: bool,
                                                                 et: Type) -> None:
    a = RNG.standard_normal(shape_a).astype(et.to_dtype())
    b = RNG.standard_normal((96, 784) if transpose_b else (784, 96))
    fast = _run(a, b, transpose_b, et, constant_b=True)
    general = _run(a, b, transpose_b, et, constant_b=False)  # B a parameter: never the few-rows path
    formula = _run(a, b, transpose_b, et, constant_b=True, device=False)
    assert np.array_equal(formula, general)
    assert fast.shape == general.shape and fast.dtype == general.dtype and fast.flags.c_contiguous
    exact = a.astype(np.float64) @ (b.T if transpose_b else b).astype(et.to_dtype()).astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs((b.T if transpose_b else b).astype(et.to_dtype()).astype(np.float64))
    e = float(np.finfo(et.to_dtype()).eps) / 2
    assert np.all(np.abs(fast - exact) <= 4 * e * math.sqrt(784) * scale)
    assert np.all(np.abs(general - exact) <= 4 * e * math.sqrt(784) * scale)


def test_the_path_is_taken_only_for_few_rows_of_a_constant_b(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, ...]] = []
    real = np.matmul

    def spy(p: np.ndarray, q: np.ndarray, *args: object, **kw: object) -> np.ndarray:
        calls.append(tuple(p.shape))
        return real(p, q, *args, **kw)

    monkeypatch.setattr(fast_matmul.np, "matmul", spy)
    b = RNG.standard_normal((784, 96))
    for rows, transposed in ((fast_matmul.FEW_ROWS, True), (fast_matmul.FEW_ROWS + 1, False)):
        calls.clear()
        _run(RNG.standard_normal((rows, 784)).astype(np.float32), b, False, Type.f32, constant_b=True)
        assert (calls == [(96, 784)]) is transposed, calls  # Bᵀ (N, K) on the left
