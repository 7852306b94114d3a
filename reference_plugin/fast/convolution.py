"""conv-lowering: grouped N-d convolution by the fastest of four paths for its shape.

The formula (:mod:`reference_plugin.ops._common_conv`) adds, kernel offset by kernel offset, the
product of that offset's filter taps with the input samples it reads: one small BLAS call per
offset. This route takes, in this order:

**Depthwise** (:func:`_conv_depthwise`), for float data with one input channel per group and 2
spatial dims (MobileNet's, EfficientNet's, ShuffleNet's depthwise layers): the formula's own sum,
offset by offset, as elementwise multiply and add passes over cache-sized blocks, each pass over
long contiguous rows: a channel's whole image for wide layers, a block of output rows with the
channels last for narrow ones; bit for bit the formula's.

**Pointwise**, for 1x1 kernels with unit strides and no padding: the input itself is the
lowered matrix, so one batched matmul ``(G, Og, Cg) @ (N, G, Cg, H*W)`` and no copy (for one
image, the GEMM im2col would run, bit for bit).

Otherwise the input is lowered so that few, large BLAS calls do the whole sum:

**Row-batched (MEC-style) lowering**, for float data with 2 or 3 spatial dims, no dilation
on the first one and output rows of :data:`ROW_MIN_COLUMNS` or more: every kernel offset over
the *other* spatial axes (``kR`` of them) is copied once into ``low``
``(N, G, rows, kR, Cg, *out_rest)``, a row of the padded input per first-axis position. The
columns of output row ``o`` are then the ``k1`` consecutive rows ``o*s1 .. o*s1 + k1 - 1`` of
``low``: a strided view (no copy), and one batched matmul ``(Og, k1*kR*Cg) @ (k1*kR*Cg,
out_rest)`` per row writes straight into the ``(N, G*Og, *out)`` result. The copy is ``k1``
times smaller than im2col's (3x for a 3x3 kernel), and so is what the GEMM packs, and each GEMM
works on cache-resident operands.

**im2col**, for everything else (1-D, a dilated first axis, integers, narrow rows, small
per-row products):
the columns ``(G, Cg*k, N*out)`` (``k`` the kernel's taps, row ``c*k + tap``) are filled tap by
tap, each one strided copy, then one batched matmul ``(G, Og, Cg*k) @ (G, Cg*k, N*out)``.

Both copy from ``x`` itself: for each tap the output positions that read inside the input form a
box, copied in one go, and the strips that read padding are zeroed (no padded copy of the input).

Bound: each output is one BLAS dot product over ``K = Cg * prod(kernel)`` terms (sgemm for
f32/f16/bf16, dgemm for f64), the terms in (kernel row, kernel rest, channel) order for the row
lowering and (channel, tap) order for im2col; with the formula's own rounding, within
``8*e*sqrt(K)`` of it relative to the sum of absolute products (each within ``4*e*sqrt(K)`` of
the exact sum; tests/reference/test_conv_pool_fast.py). The depthwise path: bit for bit.
Integers use im2col and numpy's exact int64 matmul loop: bit for bit. Applies to Convolution-1
and GroupConvolution-1.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ovconform.errors import InferError
from reference_plugin.fast import accumulation, kernel_route
from reference_plugin.fast.parallel import BLOCK_BYTES, SPLIT_MIN, map_shared, threads
from reference_plugin.fast.rows import workspace
from reference_plugin.ops._common_window import Plan, WindowSpec
from reference_plugin.ops.op_convolution import Convolution
from reference_plugin.ops.op_group_convolution import GroupConvolution

#: One tap's copy over some spatial axes: (output box, input box), and the strips of the output
#: that read padding (to be zeroed). A ``None`` box: that tap reads only padding.
TapCopy = tuple[tuple[slice, ...] | None, tuple[slice, ...] | None, tuple[tuple[slice, ...], ...]]

#: The lowered input (the row lowering's blocks, an im2col matrix) lives in the thread's one work
#: buffer (:func:`reference_plugin.fast.rows.workspace`, shared with the row-wise routes' work
#: arrays), kept between inferences (a fresh array costs page faults on the main thread's heap
#: each call: glibc returns the freed top of the heap to the system) up to
#: :data:`~reference_plugin.fast.rows.WORKSPACE_BYTES`: the row lowering's blocks fit
#: (:data:`ROWS_BLOCK_BYTES`), a larger im2col matrix is made per call. (64 MiB of own buffers
#: before: DenseNet-121 kept 9 MiB of them, a quarter of its weights; then up to 4 own buffers of
#: 1 MiB together, beside the row-wise routes' own 512 KiB.)
#: The row lowering copies the input rows of this many bytes at a time (at least the rows of one
#: output row): the rows of a block of output rows, then that block's GEMMs, then the next.
ROWS_BLOCK_BYTES = 2 * BLOCK_BYTES

#: The row lowering pays one BLAS call per output row: it is used when each call multiplies at
#: least this many terms (``Og * K * out_rest``), so depthwise and tiny convolutions keep im2col.
ROW_MIN_MACS = 8192
#: ... and when each of them has at least this many columns (output positions per row): a GEMM
#: only a few columns wide runs at a fraction of BLAS speed (ResNet-50's 14- and 7-wide 3x3
#: layers ran 5-15x slower than im2col's one GEMM), im2col's copy costs less than that.
ROW_MIN_COLUMNS = 48
#: Float convolutions with one input channel per group (depthwise) take :func:`_conv_depthwise`,
#: and 1x1 unit-stride unpadded ones multiply the input itself (tests switch these off to test
#: the lowerings on such shapes).
DEPTHWISE = True
POINTWISE = True
#: Depthwise layers with output rows narrower than this take the channels-last path (their
#: channel rows are short), wider ones the channel-rows path (no transposing copies). Measured
#: on MobileNetV3's, EfficientNet-B0's and ShuffleNetV2's depthwise layers, one thread: the
#: channels-last path ran 1.2-3x faster on every layer up to 28 wide, the channel rows 1.2-1.5x
#: faster on the 56- and 112-wide ones. (Tests set it to 0 or a large value to test each path.)
CHANNELS_LAST_MAX_WIDTH = 48
#: Depthwise layers of at least this many products share their blocks among the run's intra-op
#: threads (each product is a multiply and an add pass, so this is 4x SPLIT_MIN elements' worth of
#: one elementwise pass, about 100 microseconds on one core; waking a pool thread costs tens).
DEPTHWISE_SPLIT_MIN = 2 * SPLIT_MIN


def grouped_conv(x: np.ndarray, w: np.ndarray, spec: WindowSpec) -> np.ndarray:
    """Convolve ``x`` ``(N, G*Cg, *spatial)`` with ``w`` ``(G, Og, Cg, *kernel)`` → ``(N, G*Og, *out)``.

    Both arrays are already in the accumulation dtype; padding is zeros.
    """
    n_batch, channels = x.shape[:2]
    groups, og, cg = w.shape[:3]
    if channels != groups * cg:
        raise InferError(f"data shape {list(x.shape)} has {channels} channels; the filters "
                         f"{list(w.shape)} need {groups} group(s) x {cg} = {groups * cg}.")
    plan = spec.plan(x.shape[2:])
    if any(p < 0 for p in (*plan.pads_begin, *plan.extra_end)):
        spec.padded(x, plan, 0)  # raises, naming the negative pad
    if use_depthwise(x.dtype, w.shape, spec, plan):
        return _conv_depthwise(x, w, spec, plan)
    if POINTWISE and _is_pointwise(spec, plan):
        out = np.matmul(w.reshape(groups, og, cg), x.reshape(n_batch, groups, cg, -1))  # (N, G, Og, out)
        return out.reshape(n_batch, groups * og, *plan.out)
    if use_rows(x.dtype, w.shape, spec, plan):
        return _conv_rows(x, w, spec, plan)
    return _conv_im2col(x, w, spec, plan)


def use_depthwise(dtype: np.dtype, w_shape: tuple[int, ...], spec: WindowSpec, plan: Plan) -> bool:
    """Whether :func:`grouped_conv` takes :func:`_conv_depthwise`: float data, one input channel
    per group, 2 spatial dims. It is the formula bit for bit, where im2col's BLAS dot products are
    not. (Measured on one thread against im2col on MobileNetV3's, EfficientNet-B0's and
    ShuffleNetV2's depthwise layers: 1.5-2.3x faster on the 5x5 and the 56-wide 3x3 stride-1
    ones, up to 1.4x slower on small 3x3 ones such as 116 channels at 14x14.)"""
    return DEPTHWISE and np.dtype(dtype).kind == "f" and w_shape[2] == 1 and len(plan.out) == 2


def _is_pointwise(spec: WindowSpec, plan: Plan) -> bool:
    """A 1x1 kernel with unit strides and no padding: the input itself is the lowered matrix."""
    return (all(k == 1 for k in spec.kernel) and all(s == 1 for s in spec.strides)
            and not any(plan.pads_begin) and not any(plan.extra_end))


def _conv_depthwise(x: np.ndarray, w: np.ndarray, spec: WindowSpec, plan: Plan) -> np.ndarray:
    """One input channel per group (depthwise, any channel multiplier ``Og``), 2 spatial dims: the
    formula's sum over kernel offsets, each offset's products ``w * x`` added in the formula's
    (row-major) order, as elementwise passes over cache-sized blocks (no lowering, no BLAS), so
    bit for bit the formula's. Output rows narrower than :data:`CHANNELS_LAST_MAX_WIDTH` take
    :func:`_depthwise_channels_last`, wider ones :func:`_depthwise_rows`.

    The formula starts from zeros (``0 + p0``, so a ``-0`` product becomes ``+0``) and its sum
    is therefore never ``-0`` (in round-to-nearest ``a + b`` is ``-0`` only when both are).
    Both paths start from the first products themselves and add ``+0`` once, when they store the
    result: a sum that differs from the formula's differs only by being ``-0`` where every
    product was ``-0`` (adding a product that is not ``-0`` to ``-0`` or ``+0`` gives the same),
    and the final ``+0`` turns that into the formula's ``+0``, leaving every other value as is.
    """
    if plan.out[1] < CHANNELS_LAST_MAX_WIDTH:
        return _depthwise_channels_last(x, w, spec, plan)
    return _depthwise_rows(x, w, spec, plan)


def _store(sums: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = sums + 0``: the depthwise sums stored, a ``-0`` made the formula's ``+0``
    (see :func:`_conv_depthwise`), every other value unchanged."""
    np.add(sums, 0.0, out=out)


@functools.lru_cache(maxsize=512)
def _phase_boxes(spatial: tuple[int, ...], spec: WindowSpec, plan: Plan
                 ) -> tuple[tuple[slice, slice, slice, slice] | None, ...]:
    """Per stride phase ``(a, b)`` (row-major): where the input samples of ``padded[a::sh, b::sw]``
    lie, as (phase rows, phase columns, input rows, input columns) slices, or None when that phase
    reads only padding. The phase's other elements are padding (zeros). (Cached per shape.)"""
    boxes: list[tuple[slice, slice, slice, slice] | None] = []
    (sh, sw), (pb0, pb1) = spec.strides, plan.pads_begin
    for a in range(sh):
        q0 = max(0, -(-(pb0 - a) // sh))  # the first phase row that reads the input
        r0 = a + q0 * sh - pb0  # the input row it reads
        for b in range(sw):
            c0 = max(0, -(-(pb1 - b) // sw))
            s0 = b + c0 * sw - pb1
            if r0 >= spatial[0] or s0 >= spatial[1]:
                boxes.append(None)
                continue
            nq, nc = len(range(r0, spatial[0], sh)), len(range(s0, spatial[1], sw))
            boxes.append((slice(q0, q0 + nq), slice(c0, c0 + nc), slice(r0, None, sh), slice(s0, None, sw)))
    return tuple(boxes)


@functools.lru_cache(maxsize=512)
def _phase_offsets(spec: WindowSpec) -> tuple[tuple[int, int, int], ...]:
    """Per kernel offset (row-major): its stride phase, and the phase row and column the output's
    first position reads. (Cached per spec.)"""
    (sh, sw), (dh, dw), (kh, kw) = spec.strides, spec.dilations, spec.kernel
    return tuple(((i * dh) % sh * sw + (j * dw) % sw, (i * dh) // sh, (j * dw) // sw)
                 for i in range(kh) for j in range(kw))


def _phase_sizes(x_shape: tuple[int, ...], spec: WindowSpec, plan: Plan) -> tuple[int, int]:
    """Rows and columns of one stride phase of the padded input."""
    hp, wp = (s + b + e for s, b, e in zip(x_shape[2:], plan.pads_begin, plan.extra_end, strict=True))
    return -(-hp // spec.strides[0]), -(-wp // spec.strides[1])


def _depthwise_rows(x: np.ndarray, w: np.ndarray, spec: WindowSpec, plan: Plan) -> np.ndarray:
    """The depthwise sum channel by channel (NCHW). The padded input is split into its ``sh * sw``
    stride phases (``padded[a::sh, b::sw]``, copied straight from ``x``), each of ``Hq`` rows of
    ``Wq``. Every output row is computed ``Wq`` wide (the last ``Wq - OW`` columns are thrown away),
    so the samples one kernel offset reads for a block of channels are one flat slice of a phase
    per channel: each pass is a 2-D operation over rows of ``OH * Wq`` contiguous elements (for
    wide images: few, long rows)."""
    n_batch, groups, og = x.shape[0], x.shape[1], w.shape[1]
    (sh, sw), (oh, ow) = spec.strides, plan.out
    dtype = np.result_type(x.dtype, w.dtype)
    hq, wq = _phase_sizes(x.shape, spec, plan)
    # phases (sh*sw, N, G, hq + 1, wq): one spare row, so the flat slice of the last offset stays inside
    phases = np.zeros((sh * sw, n_batch, groups, hq + 1, wq), dtype)
    for phase, box in enumerate(_phase_boxes(x.shape[2:], spec, plan)):
        if box is not None:
            rows, cols, in_rows, in_cols = box
            phases[phase, :, :, rows, cols] = x[:, :, in_rows, in_cols]
    flat = phases.reshape(sh * sw, n_batch, groups, (hq + 1) * wq)
    offsets = [(phase, i0 * wq + j0) for phase, i0, j0 in _phase_offsets(spec)]
    per_tap = np.ascontiguousarray(np.moveaxis(w.reshape(groups, og, len(offsets)), 2, 0))[..., None]
    span = oh * wq
    out = np.empty((n_batch, groups, og, oh, ow), dtype)
    n_threads = _depthwise_threads(out.size, len(offsets))
    per_block = max(1, min(BLOCK_BYTES // max(1, og * span * out.itemsize), -(-groups * n_batch // n_threads)))
    jobs = [(n, g, min(g + per_block, groups)) for n in range(n_batch) for g in range(0, groups, per_block)]

    def part(items: Iterable[tuple[int, int, int]]) -> None:
        acc: np.ndarray | None = None
        tmp: np.ndarray | None = None
        for n, g0, g1 in items:
            if acc is None or acc.shape[0] != g1 - g0:
                acc, tmp = np.empty((g1 - g0, og, span), dtype), np.empty((g1 - g0, og, span), dtype)
            assert tmp is not None
            for t, (phase, start) in enumerate(offsets):
                view = flat[phase, n, g0:g1, None, start:start + span]  # (g, 1, span)
                if t == 0:
                    np.multiply(view, per_tap[0, g0:g1], out=acc)
                else:
                    np.multiply(view, per_tap[t, g0:g1], out=tmp)
                    np.add(acc, tmp, out=acc)
            _store(acc.reshape(g1 - g0, og, oh, wq)[..., :ow], out[n, g0:g1])

    map_shared(part, jobs, n_threads)
    return out.reshape(n_batch, groups * og, oh, ow)


def _depthwise_channels_last(x: np.ndarray, w: np.ndarray, spec: WindowSpec, plan: Plan) -> np.ndarray:
    """The depthwise sum over channels-last stride phases (NHWC), for narrow images with many
    channels (MobileNet's and EfficientNet's 7- to 28-wide layers), where a channel's row is
    short. The padded input is copied once, channels last, into its ``sh * sw`` stride phases
    ``(Hq, Wq, C)`` (``C = G * Og``: each input channel repeated for its ``Og`` outputs); the
    samples one kernel offset reads for a block of output rows are then ``(rows, OW * C)``, each
    row one contiguous run (no column is computed and thrown away), and the offset's taps, tiled
    ``OW`` times, are one ``OW * C`` row: each pass is over long contiguous rows whatever the
    image width. Blocks of output rows stay in cache; each is stored back channels first."""
    n_batch, groups, og = x.shape[0], x.shape[1], w.shape[1]
    ch = groups * og
    oh, ow = plan.out
    dtype = np.result_type(x.dtype, w.dtype)
    hq, wq = _phase_sizes(x.shape, spec, plan)
    offsets = _phase_offsets(spec)
    phases = np.zeros((n_batch, spec.strides[0] * spec.strides[1], hq, wq, ch), dtype)
    for phase, box in enumerate(_phase_boxes(x.shape[2:], spec, plan)):
        if box is None:
            continue
        rows, cols, in_rows, in_cols = box
        src = x[:, :, in_rows, in_cols].transpose(0, 2, 3, 1)  # (N, rows, cols, G)
        dst = phases[:, phase, rows, cols]  # (N, rows, cols, C)
        if og == 1:
            dst[...] = src
        else:
            dst.reshape(*dst.shape[:3], groups, og)[...] = src[..., None]
    # (taps, OW * C): output channel c of output column o at o * C + c
    taps = np.tile(w.reshape(ch, len(offsets)).T, (1, ow))
    out = np.empty((n_batch, ch, oh, ow), dtype)
    n_threads = _depthwise_threads(out.size, len(offsets))
    per_block = max(1, min(BLOCK_BYTES // (ow * ch * out.itemsize), -(-oh * n_batch // n_threads)))
    jobs = [(n, r, min(r + per_block, oh)) for n in range(n_batch) for r in range(0, oh, per_block)]

    def part(items: Iterable[tuple[int, int, int]]) -> None:
        acc = np.empty((min(per_block, oh), ow * ch), dtype)
        tmp = np.empty_like(acc)
        for n, r0, r1 in items:
            m = r1 - r0
            a, b = acc[:m], tmp[:m]
            for t, (phase, i0, j0) in enumerate(offsets):
                view = phases[n, phase, i0 + r0:i0 + r1, j0:j0 + ow].reshape(m, ow * ch)  # a view
                if t == 0:
                    np.multiply(view, taps[0], out=a)
                else:
                    np.multiply(view, taps[t], out=b)
                    np.add(a, b, out=a)
            _store(a.reshape(m, ow, ch).transpose(2, 0, 1), out[n, :, r0:r1])

    map_shared(part, jobs, n_threads)
    return out


def _depthwise_threads(outputs: int, taps: int) -> int:
    """The run's intra-op threads for a depthwise layer of ``outputs * taps`` products (two
    passes each) when that is :data:`DEPTHWISE_SPLIT_MIN` or more, else 1. (The blocks are then
    made small enough for every thread to get one: a 7x7 layer's rows fit in one block.)"""
    return threads() if outputs * taps >= DEPTHWISE_SPLIT_MIN else 1


def use_rows(dtype: np.dtype, w_shape: tuple[int, ...], spec: WindowSpec, plan: Plan) -> bool:
    """Whether :func:`grouped_conv` takes the row lowering (see the module docstring)."""
    og, cg, kernel = w_shape[1], w_shape[2], spec.kernel
    return (np.dtype(dtype).kind == "f" and len(kernel) in (2, 3) and spec.dilations[0] == 1
            and math.prod(kernel) > 1 and math.prod(plan.out[1:]) >= ROW_MIN_COLUMNS
            and og * cg * math.prod(kernel) * math.prod(plan.out[1:]) >= ROW_MIN_MACS)


def _conv_im2col(x: np.ndarray, w: np.ndarray, spec: WindowSpec, plan: Plan) -> np.ndarray:
    n_batch, channels = x.shape[:2]
    groups, og, cg = w.shape[:3]
    n_sp = len(spec.kernel)
    copies = _tap_copies(spec, plan, tuple(x.shape[2:]), tuple(range(n_sp)))
    k, out_shape = len(copies), plan.out
    cols = _scratch((channels, k, n_batch, *out_shape), x.dtype)  # rows (c, tap), columns (n, *out)
    if n_batch == 1:  # the common case, unit axes dropped (the copy loops run faster)
        batch: tuple[slice, ...] = ()
        src, dst = x[0], cols[:, :, 0]
    else:  # (C, N, *spatial) and (C, k, N, *out) views
        src, dst, batch = np.moveaxis(x, 0, 1), cols, (slice(None),)
    for tap, (out_box, in_box, strips) in enumerate(copies):
        target = dst[:, tap]  # (C, [N,] *out)
        if out_box is None or in_box is None:
            target[...] = 0
            continue
        target[(slice(None), *batch, *out_box)] = src[(slice(None), *batch, *in_box)]
        for strip in strips:
            target[(slice(None), *batch, *strip)] = 0
    out = np.matmul(w.reshape(groups, og, cg * k), cols.reshape(groups, cg * k, n_batch * math.prod(out_shape)))
    out = out.reshape(groups, og, n_batch, *out_shape)  # (G, Og, N, *out): NC* order already when N == 1
    return np.moveaxis(out, 2, 0).reshape(n_batch, groups * og, *out_shape)


def _conv_rows(x: np.ndarray, w: np.ndarray, spec: WindowSpec, plan: Plan,
               block_bytes: int | None = None) -> np.ndarray:
    """The row lowering (see the module docstring), in blocks of output rows: each block's input
    rows (``block_bytes`` of them, :data:`ROWS_BLOCK_BYTES` by default; at least one output row's)
    are copied into a scratch ``low`` of the block's rows, then each output row of the block is
    one GEMM on a strided view of it. Every output row's GEMM multiplies the same filters by a
    matrix of the same values and layout whatever the blocks, so the result is the same bits as
    one block of every row (tests/reference/test_inference_memory.py)."""
    n_batch, channels, size1, *rest_sp = x.shape
    groups, og, cg = w.shape[:3]
    k1, s1 = spec.kernel[0], spec.strides[0]
    out1, rest_out = plan.out[0], plan.out[1:]
    n_rest = len(rest_out)
    copies = _tap_copies(spec, plan, tuple(x.shape[2:]), tuple(range(1, 1 + n_rest)))
    k_rest, size_rest = len(copies), math.prod(rest_out)
    row_bytes = n_batch * groups * k_rest * cg * size_rest * x.itemsize  # one padded input row, lowered
    budget = ROWS_BLOCK_BYTES if block_bytes is None else block_bytes
    per_block = max(1, min(out1, (budget // max(1, row_bytes) - k1) // s1 + 1))
    k_all = k1 * k_rest * cg
    filters = w.transpose(0, 1, *range(3, w.ndim), 2).reshape(groups, og, k_all)[None, :, None]  # K: (k1, k_rest, Cg)
    out = np.empty((n_batch, groups, og, out1, size_rest), np.result_type(x.dtype, w.dtype))
    rows_out = out.transpose(0, 1, 3, 2, 4)  # (N, G, out1, Og, out_rest)
    # one scratch for every block (the last one, shorter, uses its first rows)
    buf = _scratch((n_batch, groups, (per_block - 1) * s1 + k1, k_rest, cg, *rest_out), x.dtype)
    for o0 in range(0, out1, per_block):
        o1 = min(out1, o0 + per_block)
        low = _lowered_rows(x, plan, copies, o0 * s1, buf[:, :, :(o1 - o0 - 1) * s1 + k1], cg)
        item = low.itemsize
        # columns of output row o: rows (o-o0)*s1 .. + k1 - 1 of low, i.e. K = (k1, k_rest, Cg) rows of size_rest
        cols = as_strided(low, shape=(n_batch, groups, o1 - o0, k_all, size_rest),
                          strides=(low.strides[0], low.strides[1], s1 * k_rest * cg * size_rest * item,
                                   size_rest * item, item), writeable=False)
        np.matmul(filters, cols, out=rows_out[:, :, o0:o1])  # one (Og, K) @ (K, out_rest) per row
    return out.reshape(n_batch, groups * og, *plan.out)


def _lowered_rows(x: np.ndarray, plan: Plan, copies: tuple[TapCopy, ...], first: int, low: np.ndarray,
                  cg: int) -> np.ndarray:
    """``low`` ``(N, G, count, k_rest, Cg, *out_rest)`` filled with rows ``first .. first + count - 1``
    of the padded input, each with every kernel offset over the other spatial axes copied out
    (zeros where they read padding); returned."""
    n_batch, channels, size1, *rest_sp = x.shape
    count, pb1 = low.shape[2], plan.pads_begin[0]
    groups = channels // cg
    n_rest = len(rest_sp)
    # rows of the block inside the input: lo..hi (block coordinates)
    lo = min(count, max(0, pb1 - first))
    hi = max(lo, min(count, pb1 + size1 - first))
    low[:, :, :lo] = 0
    low[:, :, hi:] = 0
    if hi > lo:
        # (N, G, rows, Cg, *rest) view of the input rows of the block
        src = x.reshape(n_batch, groups, cg, size1, *rest_sp)[:, :, :, first + lo - pb1:first + hi - pb1].transpose(
            0, 1, 3, 2, *range(4, 4 + n_rest))
        inner = (slice(None),) * 4  # N, G, rows, Cg
        for tap, (out_box, in_box, strips) in enumerate(copies):
            target = low[:, :, lo:hi, tap]
            if out_box is None or in_box is None:
                target[...] = 0
                continue
            target[(*inner, *out_box)] = src[(*inner, *in_box)]
            for strip in strips:
                target[(*inner, *strip)] = 0
    return low


def _scratch(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An uninitialised array of ``shape`` and ``dtype`` in this thread's work buffer
    (:func:`~reference_plugin.fast.rows.workspace`; the callers overwrite every element, never
    return it, and call nothing that asks for a workspace while they hold it)."""
    return workspace(shape, dtype)


@functools.lru_cache(maxsize=512)
def _tap_copies(spec: WindowSpec, plan: Plan, spatial: tuple[int, ...], axes: tuple[int, ...]) -> tuple[TapCopy, ...]:
    """Per kernel offset over the spatial ``axes`` (row-major): which output positions read inside
    the input and from where. On axis ``i`` output ``o`` reads input ``o*s + j*d - pads_begin``
    for kernel offset ``j``; the boxes and strips cover the ``axes`` only."""
    per_axis = [_axis_reads(spatial[a], plan.out[a], spec.kernel[a], spec.strides[a], spec.dilations[a],
                            plan.pads_begin[a]) for a in axes]
    copies: list[TapCopy] = []
    for offsets in np.ndindex(*(spec.kernel[a] for a in axes)):
        reads = [per_axis[i][j] for i, j in enumerate(offsets)]
        if any(r is None for r in reads):
            copies.append((None, None, ()))
            continue
        out_box, in_box, strips = [], [], []
        for i, (lo, hi, src) in enumerate(r for r in reads if r is not None):
            out_box.append(slice(lo, hi))
            in_box.append(src)
            full = [slice(None)] * len(axes)
            if lo > 0:
                strips.append(tuple(full[:i] + [slice(0, lo)] + full[i + 1:]))
            if hi < plan.out[axes[i]]:
                strips.append(tuple(full[:i] + [slice(hi, plan.out[axes[i]])] + full[i + 1:]))
        copies.append((tuple(out_box), tuple(in_box), tuple(strips)))
    return tuple(copies)


def _axis_reads(size: int, out: int, k: int, s: int, d: int, pb: int) -> list[tuple[int, int, slice] | None]:
    """Per kernel offset ``j`` of one axis: the outputs ``lo..hi`` that read inside the input and
    the input slice they read, or None when every output reads padding."""
    reads: list[tuple[int, int, slice] | None] = []
    for j in range(k):
        shift = j * d - pb  # the input coordinate output 0 reads
        lo = min(out, -(shift // s) if shift < 0 else 0)
        hi = max(lo, min(out, -(-(size - shift) // s)))
        if hi == lo:
            reads.append(None)
        else:
            start = lo * s + shift
            reads.append((lo, hi, slice(start, start + (hi - lo - 1) * s + 1, s)))
    return reads


@kernel_route("conv-lowering", (Convolution, GroupConvolution),
              accumulation(8, "integers: bit for bit"), "every Convolution and GroupConvolution")
class LoweredConvolution(Convolution):
    """Convolution computing its sum with :func:`grouped_conv`."""

    def convolve(self, x: np.ndarray, filters: np.ndarray, spec: WindowSpec) -> np.ndarray:
        return grouped_conv(x, filters, spec)
