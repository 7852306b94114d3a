"""The accuracy REFERENCE trades for speed, stated and measured.

f32 (and f16/bf16) transcendental kernels compute in float32 with numpy's SIMD functions, and
MatMul/Convolution multiply with sgemm (``reference_plugin.ops._common_types.compute_float_dtype``).
Each bound below is checked against the same kernel computing in float64 and rounding once
(``FLOAT_COMPUTE["f32"] = float64``), over a dense grid of inputs:

* every float32 unary transcendental kernel: within :data:`UNARY_ULP` ulp (measured max: 4, Elu; Sigmoid 3);
* Gelu: the formula computes in float64; the device's gelu-erf-f32 route (its own float32 erfc,
  reference_plugin/fast/gelu.py) within :data:`GELU_ULP` ulp of it (measured max: 8) where
  ``|x| < 6.4``, and within 1e-15 absolute beyond (where the float64 formula itself cancels);
* MatMul and Convolution: within ``4·e·sqrt(K)`` relative to the sum of
  absolute products (the accumulating class's rtol term, ``e`` = 2**-23);
all far inside the default tolerances devices are compared with (8 ulp for transcendental ops).
Softmax stays in float64 (in float32, exp(x - max) inherits the rounding of the shift: 34 ulp
measured on logits in [-20, 20]).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from ref_kernel_util import run_device

from ovconform import Model
from ovconform import opset as ops
from ovconform.ir import Node, Type
from ovconform.tolerances import ulp_distance
from reference_plugin.evaluate import evaluate
from reference_plugin.fast.gelu import GELU_ULP
from reference_plugin.ops import _common_types, registered_ops
from reference_plugin.ops._common_unary import UnaryOp

UNARY_ULP = 4
GRID = np.concatenate([np.linspace(-10, 10, 100_001), np.geomspace(1e-6, 88, 20_000),
                       -np.geomspace(1e-6, 88, 20_000)]).astype(np.float32)
SNAKE = {"HSigmoid": "hsigmoid", "HSwish": "hswish", "SoftPlus": "softplus", "SoftSign": "softsign"}
EXTRA_ARGS: dict[str, tuple[float, ...]] = {"Elu": (0.7,)}


@pytest.fixture
def wide() -> Iterator[Callable[[], None]]:
    """Call it to make every float32 kernel compute in float64 (restored afterwards)."""
    saved = dict(_common_types.FLOAT_COMPUTE)
    yield lambda: _common_types.FLOAT_COMPUTE.update(f32=np.dtype(np.float64))
    _common_types.FLOAT_COMPUTE.clear()
    _common_types.FLOAT_COMPUTE.update(saved)


def _unary_ops() -> list[str]:
    from reference_plugin.ops import load_op

    found = []
    for op, versions in registered_ops().items():
        kernel = load_op(op, max(versions))
        if issubclass(kernel, UnaryOp) and kernel.transcendental and kernel.single_precision \
                and op not in ("Gelu", "Erf"):
            found.append(op)
    return sorted(found)


def _builder(op: str) -> Callable[[Node], Node]:
    name = SNAKE.get(op) or "".join("_" + c.lower() if c.isupper() else c for c in op).lstrip("_")
    return lambda p: getattr(ops, name)(p, *EXTRA_ARGS.get(op, ()))


def _both(make: Callable[[Node], Node], values: np.ndarray, wide: Callable[[], None]) -> tuple[np.ndarray, ...]:
    p = ops.parameter(list(values.shape), Type.f32, "x")
    model = Model([make(p)], [p])
    (narrow,) = evaluate(model, [values])
    wide()
    (wide_out,) = evaluate(model, [values])
    return narrow, wide_out


@pytest.mark.parametrize("op", _unary_ops())
def test_float32_unary_kernels_stay_within_the_stated_ulp(op: str, wide: Callable[[], None]) -> None:
    got, want = _both(_builder(op), GRID, wide)
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{op}: NaN where float64 has none (or back)"
    worst = int(np.max(ulp_distance(got, want, Type.f32), initial=0))
    assert worst <= UNARY_ULP, f"{op}: float32 result {worst} ulp from the float64 one"


def test_the_unary_set_is_the_one_measured() -> None:
    assert len(_unary_ops()) >= 20 and "Sigmoid" in _unary_ops() and "Mish" not in _unary_ops()


@pytest.mark.parametrize("version", [2, 7])
def test_gelu_erf_float32_bound(version: int) -> None:
    grid = np.concatenate([np.linspace(-12, 12, 200_001), -np.geomspace(1e-7, 12, 50_000)]).astype(np.float32)
    make = (lambda p: ops.gelu(p, "erf")) if version == 7 else (lambda p: make_gelu2(p))
    p = ops.parameter(list(grid.shape), Type.f32, "x")
    model = Model([make(p)], [p])
    (got,) = run_device(model, [grid])
    (want,) = evaluate(model, [grid])
    near = np.abs(grid) < 6.4
    assert int(np.max(ulp_distance(got[near], want[near], Type.f32))) <= GELU_ULP
    assert float(np.max(np.abs(got[~near].astype(np.float64) - want[~near]))) <= 1e-15


def make_gelu2(p: Node) -> Node:
    from ovconform.ir import make_node

    return make_node("Gelu", 2, [p.output(0)], {}, None)


@pytest.mark.parametrize("kind", ["matmul", "conv"])
def test_blas_float32_bound(kind: str, wide: Callable[[], None]) -> None:
    rng = np.random.default_rng(1)
    if kind == "matmul":
        w = rng.standard_normal((512, 64)).astype(np.float32)
        x = rng.standard_normal((32, 512)).astype(np.float32)
        make, k = (lambda p: ops.matmul(p, ops.constant(w), False, False)), 512
        magnitude = np.abs(x).astype(np.float64) @ np.abs(w).astype(np.float64)
    else:
        w = rng.standard_normal((8, 16, 3, 3)).astype(np.float32)
        x = rng.standard_normal((1, 16, 12, 12)).astype(np.float32)
        make, k = (lambda p: ops.convolution(p, ops.constant(w), [1, 1], [1, 1], [1, 1], [1, 1])), 16 * 9
        magnitude = np.full((1, 8, 12, 12), float(np.abs(x).max() * np.abs(w).sum(axis=(1, 2, 3)).max()))
    got, want = _both(make, x, wide)
    bound = 4 * 2.0 ** -23 * math.sqrt(k) * magnitude
    assert np.all(np.abs(got.astype(np.float64) - want) <= bound)
