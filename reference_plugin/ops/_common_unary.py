"""Shared pieces of the unary elementwise kernels: the UnaryOp base and a vectorised erf."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from ovconform.ir import Type
from reference_plugin._parallel import BLOCK_BYTES, SPLIT_MIN, map_shared, threads
from reference_plugin.ops._base import OpRun, defined_together
from reference_plugin.ops._common_types import (
    compute_float_dtype,
    float_to_int,
    from_compute,
    round_half_away,
    to_compute,
)

if TYPE_CHECKING:
    from ovconform.ir import Node


class UnaryOp(OpRun):
    """Elementwise op of one input; subclasses implement ``compute``.

    ``transcendental`` kernels compute in :func:`compute_float_dtype` (float32 for f32/f16/bf16
    with numpy's SIMD functions, float64 for f64 and integer inputs; ``single_precision = False``
    keeps a kernel in float64 where float32 loses too much, e.g. Mish) and round once to the
    output type (floats) or, for integer inputs, round half away from zero and convert (the
    spec's "rounded to the nearest integer" for integer element types). The float32 error bound
    per op is measured in tests/reference/test_kernel_accuracy.py. Other kernels compute in the
    input's compute dtype (integers natively, wrapping on overflow as C does).
    """

    transcendental: ClassVar[bool] = True
    single_precision: ClassVar[bool] = True
    #: Arrays of the input's size ``compute`` keeps alive at once (sets the block size).
    temporaries: ClassVar[int] = 2
    #: True when a subclass's ``_run`` differs from this one only for non-float inputs (Sigmoid).
    float_run_is_base: ClassVar[bool] = False

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t = self.in_types[0]
        self.out_t = self.out_types[0]
        self._out_dtypes: dict[np.dtype[Any], np.dtype[Any]] = {}

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if not self.transcendental:
            return (from_compute(self.compute(to_compute(x, self.t)), self.out_t),)
        dtype = compute_float_dtype(self.t) if self.single_precision else np.float64
        y = self._compute_chunked(to_compute(x, self.t).astype(dtype, copy=False))
        if self.out_t.is_integral_number():
            return (float_to_int(round_half_away(y), self.out_t.to_dtype()),)
        return (from_compute(y, self.out_t),)

    def compute(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not implement compute")

    def float_block_runner(self) -> Callable[[np.ndarray], np.ndarray] | None:
        """What ``run_trusted`` computes for an f32/f64 input of this kernel's own type, without
        its per-call conversions and checks (for chains, whose types and shapes are planned), or
        None when this kernel's run is not this class's (a subclass overriding ``_run``)."""
        if not (type(self)._run is UnaryOp._run or self.float_run_is_base) \
                or self.t not in _FLOATS or self.out_t != self.t:
            return None
        out = self.out_t.to_dtype()
        if not self.transcendental:
            compute = self.compute
            return lambda x: np.asarray(compute(x)).astype(out, copy=False)
        dtype = compute_float_dtype(self.t) if self.single_precision else np.float64
        chunked = self._compute_chunked
        return lambda x: np.asarray(chunked(x.astype(dtype, copy=False))).astype(out, copy=False)

    def float_into_runner(self) -> Callable[[np.ndarray, np.ndarray], None] | None:
        """``runner(x, out)``: what :meth:`float_block_runner` computes, written into ``out`` (an
        array of ``x``'s shape and dtype, which may be ``x`` itself), or None when there is no
        block runner. A kernel whose class defines ``compute_into`` next to its ``compute``, and
        that computes in its own dtype, writes ``out`` directly (no new array); any other copies
        its block runner's result into ``out``."""
        runner = self.float_block_runner()
        if runner is None:
            return None
        own_dtype = not self.transcendental or (
            (compute_float_dtype(self.t) if self.single_precision else np.float64) == self.out_t.to_dtype())
        if own_dtype and defined_together(type(self), "compute", "compute_into"):
            return self.compute_into

        def copy_into(x: np.ndarray, out: np.ndarray) -> None:
            out[...] = runner(x)

        return copy_into

    def _compute_chunked(self, x: np.ndarray) -> np.ndarray:
        """``compute`` (elementwise by definition) over blocks of :meth:`chunk` elements: a formula
        of several numpy passes then runs in cache instead of streaming the whole tensor through
        memory once per pass (Sigmoid on 1M floats: 3.5 ms as one block). With intra-op threads
        (:mod:`reference_plugin._parallel`) a tensor of
        :data:`~reference_plugin._parallel.SPLIT_MIN` elements per thread or more shares its
        blocks among them. Same values as one call."""
        chunk = self.chunk()
        n = threads()
        if n > 1 and x.size < n * SPLIT_MIN:
            n = 1
        if x.size <= 2 * chunk:
            return self.compute(x)
        flat = np.ascontiguousarray(x).reshape(-1)
        dtype = self._out_dtypes.get(flat.dtype)
        if dtype is None:  # what compute returns for this input dtype, probed once on one element
            dtype = self._out_dtypes[flat.dtype] = np.asarray(self.compute(flat[:1])).dtype
        out = np.empty(flat.size, dtype)

        def part(starts: Iterable[int]) -> None:
            for start in starts:
                out[start:start + chunk] = self.compute(flat[start:start + chunk])

        map_shared(part, range(0, flat.size, chunk), n)
        return out.reshape(x.shape)

    def chunk(self) -> int:
        """Elements per block: :data:`CHUNK` for a formula keeping two arrays alive, less for
        one keeping more (:attr:`temporaries`), so all of them stay in the L2 cache (Gelu, eight
        arrays, over 128K floats: 1.7 ms in one block of 128K, 0.8 ms in blocks of 32K)."""
        return max(1 << 12, CHUNK * 2 // max(2, self.temporaries))


_FLOATS = (Type.f32, Type.f64)

#: Elements per block of a chunked elementwise computation (float32 in
#: :data:`reference_plugin._parallel.BLOCK_BYTES`: a few passes over it stay in the L2 cache).
CHUNK = BLOCK_BYTES // 4


# -- erf -------------------------------------------------------------------------------------
# Chebyshev interpolants built once at import (math.erf/erfc at the Chebyshev nodes only):
# erf(x)/x on [0, 2] (degree 28) and erfcx(x) = exp(x*x) * erfc(x) on [2, 6] (degree 32);
# |x| >= 6 gives ±1 (erfc(6) < 2.2e-17). Max absolute error against math.erf over a dense grid
# of [-7, 7]: 2.8e-15 (tests check <= 1e-14).

def _interpolate(fn: Callable[[float], float], lo: float, hi: float, deg: int) -> np.ndarray:
    nodes = np.cos(np.pi * (np.arange(deg + 1) + 0.5) / (deg + 1))
    xs = 0.5 * (hi - lo) * nodes + 0.5 * (hi + lo)
    ys = np.array([fn(float(v)) for v in xs])
    return _cheb.chebfit(nodes, ys, deg)


_ERF_SMALL = _interpolate(lambda v: math.erf(v) / v if v else 2.0 / math.sqrt(math.pi), 0.0, 2.0, 28)
_ERFCX_MID = _interpolate(lambda v: math.erfc(v) * math.exp(v * v), 2.0, 6.0, 32)


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorised erf in float64 (max absolute error about 3e-15; NaN stays NaN)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    out = np.where(np.isnan(a), np.nan, 1.0)
    small = a < 2.0
    mid = (a >= 2.0) & (a < 6.0)
    xs = a[small]
    out[small] = xs * _cheb.chebval(xs - 1.0, _ERF_SMALL)
    xm = a[mid]
    out[mid] = 1.0 - np.exp(-xm * xm) * _cheb.chebval((xm - 4.0) / 2.0, _ERFCX_MID)
    return np.copysign(out, x)
