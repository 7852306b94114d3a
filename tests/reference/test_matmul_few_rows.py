"""MatMul's few-rows path (a constant 2D B, at most FEW_ROWS rows of A: (Bᵀ·Aᵀ)ᵀ on BLAS) gives the
products the general path gives, within the accumulating class's rounding, in every layout."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ovconform import Model
from ovconform import opset as ops
from ovconform.ir import Type
from reference_plugin._evaluate import evaluate
from reference_plugin.ops import op_mat_mul

RNG = np.random.default_rng(11)


def _run(a: np.ndarray, b: np.ndarray, transpose_b: bool, et: Type, constant_b: bool) -> np.ndarray:
    x = ops.parameter(list(a.shape), et, "a")
    if constant_b:
        y, params, feed = ops.constant(b.astype(et.to_dtype()), name="b"), [x], [a]
    else:
        p = ops.parameter(list(b.shape), et, "b")
        y, params, feed = p, [x, p], [a, b.astype(et.to_dtype())]
    model = Model([ops.matmul(x, y, False, transpose_b, name="mm")], params, "mm")
    return evaluate(model, feed)[0]


@pytest.mark.parametrize("shape_a", [(1, 784), (8, 784), (2, 3, 784), (16, 784), (17, 784), (784,)])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("et", [Type.f32, Type.f64])
def test_few_rows_with_a_constant_b_matches_the_general_product(shape_a: tuple[int, ...], transpose_b: bool,
                                                                 et: Type) -> None:
    a = RNG.standard_normal(shape_a).astype(et.to_dtype())
    b = RNG.standard_normal((96, 784) if transpose_b else (784, 96))
    fast = _run(a, b, transpose_b, et, constant_b=True)
    general = _run(a, b, transpose_b, et, constant_b=False)  # B a parameter: never the few-rows path
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

    monkeypatch.setattr(op_mat_mul.np, "matmul", spy)
    b = RNG.standard_normal((784, 96))
    for rows, transposed in ((op_mat_mul.FEW_ROWS, True), (op_mat_mul.FEW_ROWS + 1, False)):
        calls.clear()
        _run(RNG.standard_normal((rows, 784)).astype(np.float32), b, False, Type.f32, constant_b=True)
        assert (calls == [(96, 784)]) is transposed, calls  # Bᵀ (N, K) on the left
