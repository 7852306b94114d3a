"""sdpa-blocks: ScaledDotProductAttention one (batch, head) slice at a time, its softmax in blocks
of query rows inside one reused float64 buffer.

The formula (:mod:`reference_plugin.ops.op_scaled_dot_product_attention`) converts Q, K and V
to float64 whole, computes the scores of every batch and head at once and makes a new
whole-tensor float64 temporary for each operation: the scores, the scaled scores, scores + bias,
scores - peak, their exp and the weights, each ``batch · L · S · 8`` bytes (108 MB for
whisper-tiny's 6 heads of 1500 x 1500). This route, for each slice of the broadcast batch dims:
converts that slice of Q, K and V to float64 (:class:`Operand`), computes ``Q·Kᵀ`` into one
``L x S`` float64 buffer (reused for every slice), then, on blocks of its rows
(:func:`.rows.map_row_blocks`, on the run's intra-op threads when large), the formula's
operations in its order, in place: ``* scale``, ``+ bias`` (the causal ``-inf`` triangle, ``-inf``
where a boolean mask is False, or the float mask, broadcast as the formula broadcasts it),
minus the row's maximum, ``exp``, divided by the row's sum; then ``weights·V`` into the output,
rounded to the output type as the formula rounds it.

Bound: bit for bit. Every elementwise step is the same IEEE float64 operation on the same value
(the float64 ufunc loops do not depend on where a block starts: ``exp`` takes the same SIMD path
in place as into a new array, numpy counting an exact in-place operand as no overlap); the
row maximum and the row sum are numpy's reductions of the same contiguous row of ``S`` values
(pairwise summation depends on ``S`` only). The two products are, for each slice, the BLAS call
numpy's ``matmul`` makes for that slice inside the formula's stacked product (its loop calls
``gemm``/``gemv`` once per slice, chosen from the slice's shape and strides): the same shapes,
the same orientation (row-major, the same transposition flags: :func:`rows_innermost` says
when a slice converted alone keeps the orientation of the formula's whole copy; otherwise the
route takes slices of that whole copy), alpha 1 and beta 0, a C-contiguous ``L x S`` output as
the formula's fresh one; only the leading dimension of a slice converted alone may differ
(packed tighter than in the whole copy), and OpenBLAS reads leading dimensions only to address
the operands (copying them into its packed panels, or in its small-matrix kernels' loads). So,
on the same BLAS threads, the same bits.

The products are *not* split into blocks of query rows: on this machine's OpenBLAS (0.3.31,
the SkylakeX/SapphireRapids ``dgemm_kernel_16x2`` and its small-matrix kernels) an element's
result depends on the shape of the call it is computed in. In column-major terms ``Q·Kᵀ`` is
an ``S x L`` product (the query rows are its columns): its last ``S mod 8`` key rows fall in
the kernel's 4/2/1-row remainder tiles, which, in a 12-column group, sum the K products in two
or four interleaved partial sums instead of one FMA chain, and which columns form 12-column
groups depends on the number of columns and on the threads' split of them; a call with
``M·N·K <= 1e6`` takes the small-matrix kernels instead. Measured: whisper's Q·Kᵀ (1500 x 64
by 64 x 1500) in blocks of 64 to 500 query rows differs from the whole product in 72 to 1404
elements, all in the last 4 keys (1500 mod 8 = 4; none with 1504 keys); ``weights·V`` in
blocks small enough for the small-matrix kernels differs in thousands. No block size keeps
every bit for every thread count, so the route keeps each slice's products whole (one ``L x S``
buffer) and splits only the elementwise work.

Applies to f32, f16, bf16 and f64 query/key/value (and output) with a boolean or float mask (or
none, or ``causal``), every size non-zero, shapes the formula broadcasts, and at least
:data:`MIN_SCORES` scores per slice; everything else (smaller slices, other element types,
shapes or scales the formula rejects, with its error) takes the formula.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ovconform.ir import Type
from reference_plugin.fast import EXACT, kernel_route
from reference_plugin.fast.rows import map_row_blocks, row_buffer, work_rows
from reference_plugin.ops._common_types import from_compute, to_compute
from reference_plugin.ops.op_scaled_dot_product_attention import ScaledDotProductAttention

__all__ = ["MIN_SCORES", "Attention", "Operand", "SdpaBlocks", "attention", "rows_innermost", "softmax_rows"]

_FLOATS = frozenset({"f32", "f16", "bf16", "f64"})
#: Fewest scores (``L x S``) per slice for the route: below, the formula's whole-tensor passes
#: are small and its one stacked call costs less than a call per slice.
MIN_SCORES = 1 << 14


@dataclass(frozen=True)
class Attention:
    """What one call computes."""

    #: Query, key and value as given, of element type ``t``.
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    t: Type
    #: The broadcast batch dims of the output (query, key, value and mask batch dims).
    batch: tuple[int, ...]
    #: The scale, the formula's float64 value (the scale input's, or ``1/sqrt(E)``).
    factor: float
    causal: bool
    #: The attention mask as given (boolean, or float of ``mask_type``); None without one or when causal.
    mask: np.ndarray | None
    mask_type: Type | None
    out_type: Type


def _c_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _float64(a: np.ndarray, t: Type) -> np.ndarray:
    """The formula's ``to_compute(a, t).astype(np.float64)``; a float64 ``a`` with the strides
    of that (C-contiguous) copy is used as it is, since the copy would hold the same values at
    the same strides."""
    if a.dtype == np.float64 and a.strides == _c_strides(a.shape, 8):
        return a
    return to_compute(a, t).astype(np.float64)


def rows_innermost(a: np.ndarray) -> bool:
    """Whether each ``(rows, cols)`` slice of the formula's float64 copy of ``a`` (``astype``,
    numpy's order "K": the input's axes in the order of their strides) is row-major with
    contiguous rows, as a C-contiguous copy of the slice alone is: the last axis has unit stride
    and every other axis of more than one element a larger one; both core dims hold more than
    one element (numpy's matmul takes its vector paths, which read the strides of a length-1
    axis, otherwise)."""
    if a.ndim < 2 or a.shape[-1] < 2 or a.shape[-2] < 2 or a.strides[-1] != a.itemsize:
        return False
    return all(abs(s) > a.itemsize for n, s in zip(a.shape[:-1], a.strides[:-1], strict=True) if n > 1)


class Operand:
    """One of query, key and value as the formula's float64 values, slice by slice of the batch
    dims: each slice converted on its own (C-contiguous) where :func:`rows_innermost` holds, else
    a slice of the formula's whole copy. The last slice converted is kept (key and value slices
    shared by several heads are converted once)."""

    def __init__(self, a: np.ndarray, t: Type, batch: tuple[int, ...]) -> None:
        self.alone = rows_innermost(a)
        self.t = t
        self.own = a.shape[:-2]
        self.view = np.broadcast_to(a if self.alone else _float64(a, t), (*batch, *a.shape[-2:]))
        self.last: tuple[tuple[int, ...], np.ndarray] | None = None

    def __getitem__(self, at: tuple[int, ...]) -> np.ndarray:
        if not self.alone:
            return self.view[at]
        key = tuple(0 if n == 1 else i for i, n in zip(at[len(at) - len(self.own):], self.own, strict=True))
        if self.last is not None and self.last[0] == key:
            return self.last[1]
        part = np.ascontiguousarray(to_compute(self.view[at], self.t), dtype=np.float64)
        self.last = (key, part)
        return part


def _bias_rows(item: Attention, mask_rows: np.ndarray | None, start: int, stop: int, keys: int) -> np.ndarray | None:
    """The formula's bias for query rows ``start:stop`` of one slice (float64, ``(stop - start, keys)``,
    in this thread's work array), or None without a bias. ``mask_rows``: the slice's mask,
    broadcast to ``(L, S)``."""
    if item.causal:
        bias = work_rows(stop - start, keys)
        bias.fill(0.0)  # np.triu(np.full((L, S), -inf), k=1): -inf where key > query row, else +0.0
        np.copyto(bias, -np.inf, where=np.arange(keys) > np.arange(start, stop)[:, None])
        return bias
    if mask_rows is None:
        return None
    part = mask_rows[start:stop]
    if part.dtype == np.bool_:
        bias = work_rows(stop - start, keys)
        bias.fill(-np.inf)  # np.where(mask, 0.0, -inf)
        np.copyto(bias, 0.0, where=part)
        return bias
    assert item.mask_type is not None
    return to_compute(part, item.mask_type)  # float32/float64: added in float64, exactly as the formula's astype


def softmax_rows(item: Attention, scores: np.ndarray, mask_rows: np.ndarray | None) -> None:
    """The formula's steps from the raw scores ``Q·Kᵀ`` of one slice (float64 ``(L, S)``,
    C-contiguous) to its attention weights, in place, on blocks of rows."""
    keys = scores.shape[1]

    def block(start: int, stop: int) -> None:
        x = scores[start:stop]
        np.multiply(x, item.factor, out=x)
        bias = _bias_rows(item, mask_rows, start, stop, keys)
        if bias is not None:
            np.add(x, bias, out=x)
        peak = np.max(x, axis=-1, keepdims=True)
        with row_buffer(keys):
            np.subtract(x, peak, out=x)
        np.exp(x, out=x)
        total = np.sum(x, axis=-1, keepdims=True)
        with row_buffer(keys):
            np.divide(x, total, out=x)

    map_row_blocks(block, scores.shape[0], keys)


def attention(item: Attention) -> np.ndarray:
    """The formula's output, one slice of the batch dims at a time (see the module docstring)."""
    rows, keys, width = item.q.shape[-2], item.k.shape[-2], item.v.shape[-1]
    qs, ks, vs = (Operand(a, item.t, item.batch) for a in (item.q, item.k, item.v))
    masks = None if item.mask is None or item.causal else np.broadcast_to(item.mask, (*item.batch, rows, keys))
    out = np.empty((*item.batch, rows, width), item.out_type.to_dtype())
    scores = np.empty((rows, keys), np.float64)
    wide = item.out_type.name == "f64"
    for at in np.ndindex(*item.batch):
        np.matmul(qs[at], np.swapaxes(ks[at], -1, -2), out=scores)
        softmax_rows(item, scores, None if masks is None else masks[at])
        if wide:
            np.matmul(scores, vs[at], out=out[at])
        else:
            out[at] = from_compute(np.matmul(scores, vs[at]), item.out_type)
    return out


@kernel_route("sdpa-blocks", (ScaledDotProductAttention,), EXACT,
              f"f32/f16/bf16/f64 inputs with a boolean or float mask, none, or causal; at least {MIN_SCORES} "
              "scores per (batch, head) slice")
class SdpaBlocks(ScaledDotProductAttention):
    """ScaledDotProductAttention taking :func:`attention` where it applies."""

    def _run(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        item = self.plan(q, k, v, rest)
        if item is None:
            return super()._run(q, k, v, *rest)
        return (attention(item),)

    def plan(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, rest: Sequence[np.ndarray]) -> Attention | None:
        """What :func:`attention` computes for these inputs, or None where the formula runs."""
        t, out_t = self.in_types[0], self.out_types[0]
        if t.name not in _FLOATS or out_t.name not in _FLOATS or min(q.ndim, k.ndim, v.ndim) < 2:
            return None
        rows, depth = q.shape[-2:]
        keys, width = k.shape[-2], v.shape[-1]
        if k.shape[-1] != depth or v.shape[-2] != keys or 0 in (depth, width) or rows * keys < MIN_SCORES:
            return None
        causal = bool(self.attr("causal"))
        mask = rest[0] if rest and not causal else None
        mask_type = self.in_types[3] if len(rest) > 0 else None
        if mask is not None and mask.dtype != np.bool_ and (mask_type is None or mask_type.name not in _FLOATS):
            return None
        try:
            batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
            if mask is not None:
                full = np.broadcast_shapes((*batch, rows, keys), mask.shape)
                if full[-2:] != (rows, keys):
                    return None
                batch = full[:-2]
            batch = np.broadcast_shapes(batch, v.shape[:-2])
        except ValueError:
            return None  # the formula's error
        if math.prod(batch) == 0:
            return None
        if len(rest) > 1:
            scale = to_compute(rest[1], t).astype(np.float64).reshape(-1)
            if scale.size != 1:
                return None  # the formula's error
            factor = float(scale[0])
        else:
            factor = float(1.0 / np.sqrt(q.shape[-1]))  # the formula's float64 value
        return Attention(q, k, v, t, tuple(batch), factor, causal, mask, mask_type, out_t)
