"""RandomUniform-8: the spec's generators and conversions, bit for bit.

* ``alignment="tensorflow"``: Philox4x32-10 with key ``global_seed`` and counter ``(n, op_seed)``,
  n = 0, 1, 2, ... for successive calls; each call gives four uint32 (n.lo, n.hi, c.lo, c.hi after the
  rounds). f32/f16/bf16 put the low 23/10/7 bits of one uint32 in the mantissa of a number in
  [1, 2) and subtract 1, then ``u * (max - min) + min``; f64 takes 52 bits from two uint32; i32 is
  ``x % (max - min) + min`` (unsigned arithmetic), i64 likewise on ``hi << 32 | lo`` of two uint32.
* ``alignment="pytorch"``: MT19937 seeded with the low 32 bits of ``global_seed`` (``op_seed``
  unused); floats take the low 24 (f32) / 11 (f16) / 8 (bf16) bits of one uint32, f64 the low 53
  bits of ``a << 32 | b``, scaled by 2^-digits; integers as above, i64 from one uint32 when min
  and max fit in uint32.

Seeds both 0 mean "non-deterministic" in the spec; REFERENCE then draws a seed from the OS.
Unlike OpenVINO's own implementations, which continue the sequence at the next inference of the
same compiled model (tensorflow alignment), REFERENCE restarts it at every inference: each
inference's output is the first one OpenVINO gives.
"""

from __future__ import annotations

import math
import secrets

import numpy as np

from ovconform.ir import Node, Type
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute

U32, U64 = np.uint64(0xFFFFFFFF), np.uint64(32)
M_N, M_C = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W_LO, W_HI = 0x9E3779B9, 0xBB67AE85


def philox(calls: int, key: int, counter: int) -> np.ndarray:
    """``calls`` Philox4x32-10 outputs ([calls, 4] uint32) for n = 0..calls-1 (the spec's order)."""
    n64 = np.arange(calls, dtype=np.uint64)
    c64 = np.full(calls, counter, np.uint64)  # n never wraps (2**64 calls) here, so no carry into the counter
    n_lo, n_hi = n64 & U32, n64 >> U64
    c_lo, c_hi = c64 & U32, c64 >> U64
    k_lo, k_hi = key & 0xFFFFFFFF, key >> 32
    for r in range(10):
        p0, p1 = M_N * n_lo, M_C * c_lo
        n_lo, n_hi, c_lo, c_hi = ((p1 >> U64) ^ n_hi ^ np.uint64(k_lo), p1 & U32,
                                  (p0 >> U64) ^ c_hi ^ np.uint64(k_hi), p0 & U32)
        if r < 9:
            k_lo, k_hi = (k_lo + W_LO) & 0xFFFFFFFF, (k_hi + W_HI) & 0xFFFFFFFF
    return np.stack([n_lo, n_hi, c_lo, c_hi], axis=1).astype(np.uint32)


def mersenne(count: int, seed: int) -> np.ndarray:
    """``count`` MT19937 outputs (uint32) after ``init_genrand(seed & 0xFFFFFFFF)``."""
    return np.random.RandomState(seed & 0xFFFFFFFF).randint(0, 2**32, count, dtype=np.uint32)


def _mantissa(x: np.ndarray, et: Type) -> np.ndarray:
    """TensorFlow: low mantissa bits of ``x`` as a number in [0, 1), exact in ``et``."""
    bits = {"f32": 23, "f16": 10, "bf16": 7}[et.name]
    return (x & np.uint32((1 << bits) - 1)).astype(np.float64) / float(1 << bits)


def _scale_float(u: np.ndarray, low: float, high: float, et: Type) -> np.ndarray:
    """``u * (high - low) + low`` in the output type's arithmetic (float32 for f32/f16/bf16)."""
    if et == Type.f64:
        return u * (high - low) + low
    f = np.float32
    return u.astype(f) * (f(high) - f(low)) + f(low)


def _modulo(values: np.ndarray, low: int, high: int, bits: int) -> np.ndarray:
    """``values % (high - low) + low`` with C++ unsigned wrap-around, as a signed ``bits``-wide int."""
    mask = (1 << bits) - 1
    span = np.uint64((high - low) & mask)
    out = values % span + np.uint64(low & mask)  # uint64 arithmetic wraps modulo 2**64
    if bits == 64:
        return out.view(np.int64)
    return (out & U32).astype(np.uint32).view(np.int32)


@register_op("RandomUniform", since=8)
class RandomUniform(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.et: Type = a["output_type"]
        self.seeds = (a["global_seed"], a["op_seed"])
        self.pytorch = a["alignment"] == "pytorch"

    def _run(self, shape: np.ndarray, low_arr: np.ndarray, high_arr: np.ndarray) -> tuple[np.ndarray, ...]:
        dims = [int(d) for d in shape.reshape(-1)]
        if any(d < 0 for d in dims):
            raise self.fail(f"shape {dims} has a negative dimension.")
        count = math.prod(dims)
        et = self.et
        low, high = (to_compute(v, et).reshape(-1)[0].item() for v in (low_arr, high_arr))
        if low > high or (not et.is_real() and low == high):
            raise self.fail(f"minval {low} must be less than maxval {high}.")
        key, counter = self.seeds
        if key == 0 and counter == 0:
            key = secrets.randbits(31) + 1
        narrow_i64 = self.pytorch and et == Type.i64 and low <= 0xFFFFFFFF and high <= 0xFFFFFFFF
        wide = et.bitwidth > 32 and not narrow_i64
        per_value = 2 if wide else 1
        words = count * per_value
        raw = mersenne(words, key) if self.pytorch else philox(-(-words // 4), key, counter).reshape(-1)[:words]
        values = self._convert(raw.reshape(count, per_value), low, high)
        return (store(values.reshape(dims), et) if et.is_real() else values.reshape(dims),)

    def _convert(self, raw: np.ndarray, low: float | int, high: float | int) -> np.ndarray:
        et, x = self.et, raw.astype(np.uint64)
        if et.is_real():
            if et == Type.f64:
                a, b = x[:, 0], x[:, 1]
                if self.pytorch:
                    u = (((a << U64) | b) & np.uint64((1 << 53) - 1)).astype(np.float64) / float(1 << 53)
                else:
                    u = (((a & np.uint64(0xFFFFF)) << U64) | b).astype(np.float64) / float(1 << 52)
            elif self.pytorch:
                digits = {"f32": 24, "f16": 11, "bf16": 8}[et.name]
                u = (x[:, 0] & np.uint64((1 << digits) - 1)).astype(np.float64) / float(1 << digits)
            else:
                u = _mantissa(x[:, 0].astype(np.uint32), et)
            return _scale_float(u, float(low), float(high), et)
        if raw.shape[1] == 2:
            wide = (x[:, 0] << U64) | x[:, 1] if self.pytorch else (x[:, 1] << U64) | x[:, 0]
            return _modulo(wide, int(low), int(high), 64)
        return _modulo(x[:, 0], int(low), int(high), 64 if et == Type.i64 else 32)
