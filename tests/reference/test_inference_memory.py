"""REFERENCE's memory during an inference (issue #26 item 3), each saving pinned bit for bit.

* BatchNormInference and Swish after a Convolution run in its buffer (``write_into``,
  reference_plugin/fast/inplace.py), the same bits as running their kernels;
* MaxPool folds and AvgPool sums blocks of channels (reference_plugin/fast/pooling.py): no padded
  copy or float64 sum of the whole tensor, the same bits as the whole at once and as the formula;
* the row lowering of a convolution copies its input rows block by block, and the lowered input
  kept between inferences is bounded (reference_plugin/fast/convolution.py): the same bits for
  every block size;
* BatchNormInference after a Concat (DenseNet's every layer) runs in the Concat's buffer
  (reference_plugin/fast/inplace.py), the same bits as its kernel;
* a thread keeps one work buffer between inferences (reference_plugin/fast/rows.py ``workspace``),
  shared by the lowered rows, the row-wise routes' blocks (BatchNormInference), Swish's pair and
  the elementwise routes' chunks (HSwish): it holds the largest of them, not their sum.

Each check is shown to catch a deliberately broken version of what it pins.
"""

from __future__ import annotations

import gc
import math
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import Model
from ovconform import opset as ops
from ovconform.ir import Node, Type
from reference_plugin.compiled_model import Program
from reference_plugin.evaluate import evaluate
from reference_plugin.fast import convolution, pooling, rows, swish
from reference_plugin.fast.batch_norm import BatchNormBlocks
from reference_plugin.fast.parallel import BLOCK_BYTES
from reference_plugin.fast.swish import SwishBlocks
from reference_plugin.ops._common_window import WindowSpec
from reference_plugin.ops.op_max_pool import window_max


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint64 if a.dtype == np.float64 else np.uint32)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(_bits(a), _bits(b)))


# -- in-place BatchNormInference and Swish ---------------------------------------------------------------

def _conv_bn_swish(channels: int, size: int, dtype: Type, bn_version: int) -> Model:
    rng = np.random.default_rng(channels * size + bn_version)
    x = ops.parameter([1, 8, size, size], dtype, "x")
    w = ops.constant((rng.standard_normal((channels, 8, 3, 3)) * 0.3).astype(dtype.to_dtype()), name="w")
    conv = ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    per = [ops.constant(v.astype(dtype.to_dtype()), name=f"p{i}") for i, v in enumerate(
        (rng.uniform(0.5, 2, channels), rng.standard_normal(channels), rng.standard_normal(channels),
         rng.uniform(0.1, 3, channels)))]
    bn = ops.batch_norm_inference(conv, *per, 1e-3, name="bn", version=bn_version)
    act = ops.swish(bn, ops.constant(np.array(0.75, dtype.to_dtype()), name="beta"), name="act")
    second = ops.batch_norm_inference(ops.relu(act, name="relu"), *per, 1e-5, name="bn2", version=bn_version)
    return Model([ops.swish(second, name="act2")], [x], "conv_bn_swish")


def _inplace_mismatches(model: Model, x: np.ndarray) -> list[str]:
    """What differs between the program (steps in place) and the same program run step by step
    (no in-place steps, no chains); also that the caller's input is left as it was."""
    program, plain = Program(model, Type.f32), Program(model, Type.f32, chains=False)
    kept = x.copy()
    with np.errstate(all="ignore"):
        got, want = program.run([x], {})[0], plain.run([x], {})[0]
        again = program.run([x], {})[0]
    found = [f"output {i}" for i, (g, w) in enumerate(zip(got, want, strict=True)) if not _same(g, w)]
    found += [f"second run output {i}" for i, (g, w) in enumerate(zip(again, want, strict=True)) if not _same(g, w)]
    if not _same(x, kept):
        found.append("the input was written")
    return found


@pytest.mark.parametrize("bn_version", [1, 5])
@pytest.mark.parametrize(("channels", "size", "dtype"), [(32, 40, Type.f32), (16, 24, Type.f64), (4, 6, Type.f32)])
def test_batchnorm_and_swish_run_in_the_convolution_buffer_with_the_same_bits(channels: int, size: int, dtype: Type,
                                                                            bn_version: int) -> None:
    """(4x6x6: below the BatchNormInference route's size, whose write_into declines: the kernel runs.)"""
    model = _conv_bn_swish(channels, size, dtype, bn_version)
    program = Program(model, Type.f32)
    inplace = {s.node.friendly_name for s in program.steps if s.inplace is not None}
    assert {"bn", "act", "relu", "bn2", "act2"} <= inplace, inplace
    x = np.random.default_rng(7).standard_normal((1, 8, size, size)).astype(dtype.to_dtype())
    x[0, 0, :2] = [[np.nan, -0.0, np.inf, -np.inf, 0.0, 1e30][i % 6] for i in range(size)]
    assert not _inplace_mismatches(model, x)
    want = evaluate(model, {"x": x})[0]  # the formulas' interpreter: the convolution within its bound
    got = program.run([x], {})[0][0]
    assert np.allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True)


def test_a_batchnorm_write_into_missing_its_last_row_block_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _conv_bn_swish(64, 40, Type.f32, 5)
    x = np.random.default_rng(8).standard_normal((1, 8, 40, 40)).astype(np.float32)
    assert not _inplace_mismatches(model, x)
    right = BatchNormBlocks.write_into

    def broken(self: Any, arrays: list[np.ndarray], out: np.ndarray) -> bool:
        kept = out.reshape(out.shape[0] * out.shape[1], -1)[-1].copy()
        done = right(self, arrays, out)
        out.reshape(out.shape[0] * out.shape[1], -1)[-1] = kept  # the last channel left as the input
        return done

    monkeypatch.setattr(BatchNormBlocks, "write_into", broken)
    assert _inplace_mismatches(model, x)


def test_a_swish_write_into_with_the_wrong_beta_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _conv_bn_swish(64, 40, Type.f32, 5)
    x = np.random.default_rng(9).standard_normal((1, 8, 40, 40)).astype(np.float32)
    right = SwishBlocks.write_into
    monkeypatch.setattr(SwishBlocks, "write_into", lambda self, arrays, out: right(self, arrays[:1], out))
    assert _inplace_mismatches(model, x)


def test_a_derived_kernel_is_never_bypassed_by_write_into() -> None:
    """A subclass of the routed BatchNormInference (a derived device's kernel) runs as itself."""
    model = _conv_bn_swish(32, 40, Type.f32, 5)
    program = Program(model, Type.f32)
    step = next(s for s in program.steps if s.node.friendly_name == "bn")

    class Derived(type(step.kernel)):  # type: ignore[misc]
        def _run(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
            (y,) = super()._run(*arrays)
            return (y * 2,)

    from reference_plugin.fast.inplace import plan_inplace
    step.kernel = Derived(step.node)
    for s in program.steps:
        s.inplace = None
    plan_inplace(program.steps, program._readers(), program.chains)
    assert step.inplace is None


# -- MaxPool and AvgPool in blocks of channels -----------------------------------------------------------

POOL_CASES = [  # (input shape, kernel, strides, dilations, pads_begin, pads_end)
    ((1, 64, 112, 112), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    ((2, 12, 17, 23), (3, 2), (1, 2), (2, 1), (2, 0), (1, 1)),
    ((1, 7, 9, 9, 9), (2, 3, 2), (2, 1, 1), (1, 1, 2), (1, 0, 1), (0, 1, 1)),
]


def _pool_spec(kernel: tuple[int, ...], strides: tuple[int, ...], dilations: tuple[int, ...],
               begin: tuple[int, ...], end: tuple[int, ...]) -> WindowSpec:
    return WindowSpec(kernel, strides, dilations, begin, end, "explicit", "floor")


def _pool_data(shape: tuple[int, ...], seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) - 4  # below the zero padding
    flat = x.reshape(-1)
    flat[::97] = np.nan
    flat[1::89] = -0.0
    flat[2::83] = 0.0
    flat[3::79] = -np.inf
    return x


def _fold_mismatches(fold: Callable[..., np.ndarray]) -> list[str]:
    """Cases where ``fold(x, spec, plan, pad, ufunc, block_bytes)`` in small blocks differs from the
    formula's window maxima (and, for np.minimum, from the whole at once)."""
    found = []
    for i, (shape, *window) in enumerate(POOL_CASES):
        spec = _pool_spec(*window)
        plan = spec.plan(shape[2:])
        x = _pool_data(shape, i)
        for block in (1, 4096, 1 << 40):
            if not _same(fold(x, spec, plan, -np.inf, np.maximum, block), window_max(x, spec, plan, -np.inf)):
                found.append(f"max {shape} block {block}")
            whole = fold(x, spec, plan, 0.0, np.minimum, 1 << 40)
            if not _same(fold(x, spec, plan, 0.0, np.minimum, block), whole):
                found.append(f"min {shape} block {block}")
    return found


def test_maxpool_blocks_of_channels_fold_the_same_bits_as_the_formula() -> None:
    assert not _fold_mismatches(pooling.fold_blocks)
    # the route as the device runs it takes blocks on the big case
    shape, *window = POOL_CASES[0]
    spec = _pool_spec(*window)
    x = _pool_data(shape, 0)
    assert _same(pooling.fold_separably(x, spec, spec.plan(shape[2:]), -np.inf),
                 window_max(x, spec, spec.plan(shape[2:]), -np.inf))


def test_a_block_fold_padding_with_zeros_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    right = pooling._fold

    def zero_padded(x: np.ndarray, spec: WindowSpec, plan: Any, pad_value: float | int, ufunc: Any) -> np.ndarray:
        whole = x.shape[1] == 64 or x.ndim == 5 or x.shape[0] == 2  # the whole tensor: right
        return right(x, spec, plan, pad_value if whole else 0.0, ufunc)

    monkeypatch.setattr(pooling, "_fold", zero_padded)
    assert _fold_mismatches(pooling.fold_blocks)


def _avg_pool_mismatches() -> list[str]:
    from reference_plugin.fast import route_class, routes

    route = next(r for r in routes() if r.key == ("AvgPool", 14, "avgpool-separable"))
    found = []
    for shape, kernel, strides, pads, exclude, dtype in (
            ((1, 64, 56, 56), [3, 3], [1, 1], [1, 1], True, Type.f32),
            ((1, 192, 28, 28), [3, 3], [1, 1], [1, 1], False, Type.f32),
            ((2, 40, 30, 30), [2, 3], [2, 2], [0, 1], True, Type.f64)):
        node = ops.avg_pool(ops.parameter(list(shape), dtype, "x"), strides, pads, pads, kernel, exclude,
                            version=14)
        x = (np.random.default_rng(len(found)).standard_normal(shape) * 5).astype(dtype.to_dtype())
        x.reshape(-1)[::101] = -0.0
        fast_kernel, formula = _kernel(route_class(route), node), _kernel(route.formula, node)
        got, want = fast_kernel.run([x])[0], formula.run([x])[0]
        if not _same(got, want):
            found.append(f"{shape} {kernel} exclude_pad={exclude}")
    return found


def _kernel(cls: Any, node: Node) -> Any:
    from reference_plugin.ops import build_kernel

    return build_kernel(cls, node)


def test_avgpool_blocks_store_the_formula_bits_without_a_float64_output() -> None:
    assert not _avg_pool_mismatches()


def test_an_avgpool_rounding_before_dividing_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    right = pooling.window_sums

    def rounded_first(x: np.ndarray, spec: WindowSpec, plan: Any, counts: Any = None, dtype: Any = np.float64
                      ) -> np.ndarray:
        if counts is None:
            return right(x, spec, plan)
        total = right(x, spec, plan).astype(dtype)
        return (total / counts.astype(dtype)).astype(dtype)

    monkeypatch.setattr(pooling, "window_sums", rounded_first)
    assert _avg_pool_mismatches()


# -- the row lowering in blocks of output rows ---------------------------------------------------------

ROW_CASES = [  # (x shape, w shape (G, Og, Cg, *kernel), strides, pads_begin, pads_end, dilations)
    ((1, 32, 30, 56), (1, 16, 32, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((2, 6, 21, 50), (2, 5, 3, 7, 7), (2, 2), (3, 2), (2, 3), (1, 1)),
    ((1, 4, 9, 8, 52), (1, 6, 4, 3, 2, 3), (2, 1, 1), (0, 1, 1), (2, 0, 1), (1, 2, 1)),
    ((1, 8, 5, 49), (1, 4, 8, 4, 3), (1, 1), (3, 1), (3, 1), (1, 1)),  # rows of padding only at both ends
]


def _rows_mismatches(rows: Callable[..., np.ndarray]) -> list[str]:
    """Cases where ``rows(x, w, spec, plan, block_bytes)`` differs, for some block size, from the
    lowering of every row at once."""
    found = []
    for i, (x_shape, w_shape, strides, begin, end, dilations) in enumerate(ROW_CASES):
        rng = np.random.default_rng(100 + i)
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = rng.standard_normal(w_shape).astype(np.float32)
        spec = WindowSpec(w_shape[3:], strides, dilations, begin, end, "explicit", "floor")
        plan = spec.plan(x_shape[2:])
        whole = rows(x, w, spec, plan, 1 << 40)
        for block in (1, 3 * math.prod(x_shape[3:]) * x_shape[1] * 4, None):
            if not _same(rows(x, w, spec, plan, block), whole):
                found.append(f"case {i} block {block}")
    return found


def test_the_row_lowering_in_blocks_gives_the_same_bits_for_every_block_size() -> None:
    assert not _rows_mismatches(convolution._conv_rows)


def test_a_row_block_copied_one_row_late_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    right = convolution._lowered_rows

    def late(x: np.ndarray, plan: Any, copies: Any, first: int, low: np.ndarray, cg: int) -> np.ndarray:
        return right(x, plan, copies, first + (first > 0), low, cg)

    monkeypatch.setattr(convolution, "_lowered_rows", late)
    assert _rows_mismatches(convolution._conv_rows)


# -- what an inference keeps and peaks at ---------------------------------------------------------------

def _dense_block_model() -> Model:
    """A DenseNet-121 first block's bottleneck: 1x1 to 128 channels then 3x3 at 56x56 (the row
    lowering: 5 MiB of lowered input at once), BatchNormInference and Relu after each."""
    rng = np.random.default_rng(3)
    x = ops.parameter([1, 64, 56, 56], Type.f32, "x")
    value: Any = x
    for i, (cin, cout, k) in enumerate(((64, 128, 1), (128, 32, 3), (32, 128, 1), (128, 32, 3))):
        w = ops.constant((rng.standard_normal((cout, cin, k, k)) * 0.1).astype(np.float32), name=f"w{i}")
        value = ops.convolution(value, w, [1, 1], [k // 2] * 2, [k // 2] * 2, [1, 1], name=f"conv{i}")
        per = [ops.constant(v.astype(np.float32), name=f"bn{i}_{j}") for j, v in enumerate(
            (rng.uniform(0.5, 2, cout), rng.standard_normal(cout), rng.standard_normal(cout),
             rng.uniform(0.1, 3, cout)))]
        value = ops.relu(ops.batch_norm_inference(value, *per, 1e-5, name=f"bn{i}"), name=f"relu{i}")
    return Model([value], [x], "dense_block")


def test_an_inference_keeps_little_and_peaks_near_its_live_values() -> None:
    """Between inferences the program keeps at most 2 x BLOCK_BYTES of lowered input per thread
    (it kept 5.3 MiB for this model's 3x3 layers, more than all its values at once); during one,
    the memory it allocates peaks below 1.5x its largest value (1.5 MiB of float32 at 128x56x56):
    before, the BatchNormInference after each Convolution allocated its output beside the
    Convolution's (2.4x)."""
    model = _dense_block_model()
    program = Program(model, Type.f32)
    x = np.random.default_rng(4).standard_normal((1, 64, 56, 56)).astype(np.float32)
    with np.errstate(all="ignore"):
        program.run([x], {})  # warm: scratch made, constants' per-channel values computed
        gc.collect()
        tracemalloc.start()
        try:
            before, _ = tracemalloc.get_traced_memory()
            (out,), _ = program.run([x], {})
            after, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    largest = 128 * 56 * 56 * 4  # the largest value the run makes (the caller's input is not traced)
    kept = rows.WORKSPACE_BYTES
    assert after - before - out.nbytes < kept, (after - before, out.nbytes)
    assert peak - before < 1.5 * largest, (peak - before, largest)  # it was 2.4x
    assert rows.workspace_bytes() <= rows.WORKSPACE_BYTES == 2 * BLOCK_BYTES


# -- one work buffer per thread ----------------------------------------------------------------------

def _every_work_buffer_model() -> Model:
    """A 3x3 Convolution wide enough for the row lowering (its blocks take ~1 MiB), the
    BatchNormInference after it (row blocks), Swish (its work pair), another Convolution with a
    BatchNormInference and HSwish (the elementwise chunks): every user of a thread's work buffer."""
    rng = np.random.default_rng(8)
    x = ops.parameter([1, 64, 56, 56], Type.f32, "x")

    def conv_bn(src: Any, name: str) -> Any:
        w = ops.constant((rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32), name=f"{name}.w")
        conv = ops.convolution(src, w, [1, 1], [1, 1], [1, 1], [1, 1], name=name)
        per = [ops.constant(v.astype(np.float32), name=f"{name}.p{i}") for i, v in enumerate(
            (rng.uniform(0.5, 2, 64), rng.standard_normal(64), rng.standard_normal(64), rng.uniform(0.1, 3, 64)))]
        return ops.batch_norm_inference(conv, *per, 1e-3, name=f"{name}.bn", version=5)

    act = ops.swish(conv_bn(x, "c1"), ops.constant(np.array(1.0, np.float32), name="beta"), name="act")
    return Model([ops.hswish(conv_bn(act, "c2"), name="act2")], [x], "work_buffers")


def _kept_between_runs(model: Model) -> tuple[int, np.ndarray]:
    """(bytes one thread still holds after the first inference of a fresh program, beyond its
    output; the output)."""
    program = Program(model, Type.f32)
    x = np.random.default_rng(9).standard_normal((1, 64, 56, 56)).astype(np.float32)
    rows._work.__dict__.clear()  # this thread starts without a work buffer
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        with np.errstate(all="ignore"):
            (out,), _ = program.run([x], {})
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return after - before - out.nbytes, out


def test_a_thread_keeps_one_work_buffer_the_size_of_the_largest_need() -> None:
    """Between inferences a thread holds one work buffer of at most WORKSPACE_BYTES (1 MiB) for
    every route that needs one. Before, each kept its own: the lowered rows (up to 1 MiB), the
    row-wise float64 block (512 KiB), Swish's pair (512 KiB), HSwish's chunk (512 KiB): 2.5 MiB
    for this model, on every thread that ran them. The output is the same bits as the program
    run step by step (no in-place steps, no chains)."""
    model = _every_work_buffer_model()
    kept, out = _kept_between_runs(model)
    assert rows.workspace_bytes() > rows.WORKSPACE_BYTES // 2  # the lowered rows' blocks were in it
    assert kept < rows.WORKSPACE_BYTES + 128 * 1024, kept  # (plus the constants' per-channel values)
    x = np.random.default_rng(9).standard_normal((1, 64, 56, 56)).astype(np.float32)
    with np.errstate(all="ignore"):
        want = Program(model, Type.f32, chains=False).run([x], {})[0][0]
    assert _same(out, want)


def test_a_route_keeping_its_own_work_buffer_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Swish's pair kept apart from the thread's work buffer, as before: the check above fails."""
    own: dict[str, np.ndarray] = {}

    def own_pair() -> tuple[np.ndarray, np.ndarray]:
        pair = own.setdefault("pair", np.empty((2, swish.BLOCK), np.float64))
        return pair[0], pair[1]

    monkeypatch.setattr(swish, "_work_pair", own_pair)
    kept, _ = _kept_between_runs(_every_work_buffer_model())
    assert kept >= rows.WORKSPACE_BYTES + 128 * 1024, kept


def test_the_work_buffer_has_two_sizes_is_shared_and_leaves_large_requests_fresh() -> None:
    half = rows.WORKSPACE_BYTES // 2
    rows._work.__dict__.clear()
    small = rows.workspace((10, 10), np.float64)
    assert rows.workspace_bytes() == half and small.flags.aligned and small.shape == (10, 10)
    work = rows.work_rows(20, 100)
    pair = swish._work_pair()  # half the buffer each: BLOCK float64 elements
    assert rows.workspace_bytes() == half == 2 * swish.BLOCK * 8
    assert np.shares_memory(pair[0], work) and not np.shares_memory(pair[0], pair[1])
    lowered = convolution._scratch((half // 4 + 1,), np.dtype(np.float32))  # more than half: the whole
    assert rows.workspace_bytes() == rows.WORKSPACE_BYTES and np.shares_memory(lowered, rows.work_rows(20, 100))
    big = rows.workspace((rows.WORKSPACE_BYTES // 4 + 1,), np.float32)  # over the cap: a fresh array
    assert not np.shares_memory(big, lowered) and rows.workspace_bytes() == rows.WORKSPACE_BYTES


# -- BatchNormInference in a Concat's buffer -----------------------------------------------------------

def _concat_bn_model() -> Model:
    """DenseNet's layer input: the block's features concatenated (a MaxPool's and two
    Convolutions'), then BatchNormInference and Relu."""
    rng = np.random.default_rng(11)
    x = ops.parameter([1, 64, 56, 56], Type.f32, "x")
    pooled = ops.max_pool(x, [1, 1], [1, 1], [1, 1], [1, 1], [3, 3], name="pool").output(0)
    parts: list[Any] = [pooled]
    for i in range(2):
        w = ops.constant((rng.standard_normal((32, 64, 1, 1)) * 0.1).astype(np.float32), name=f"w{i}")
        parts.append(ops.convolution(pooled, w, [1, 1], [0, 0], [0, 0], [1, 1], name=f"conv{i}"))
    cat = ops.concat(parts, 1, name="cat")
    per = [ops.constant(v.astype(np.float32), name=f"bn_{j}") for j, v in enumerate(
        (rng.uniform(0.5, 2, 128), rng.standard_normal(128), rng.standard_normal(128), rng.uniform(0.1, 3, 128)))]
    bn = ops.batch_norm_inference(cat, *per, 1e-5, name="bn")
    return Model([ops.relu(bn, name="relu")], [x], "concat_bn")


def _step_peak(model: Model, x: np.ndarray, type_name: str) -> int:
    """The most bytes the second run of a fresh program allocated at once while its
    ``type_name`` step ran, above what was allocated when it started."""
    program = Program(model, Type.f32)
    entries = [entry for _, entry in program._untimed]  # the order ``check`` is called in
    marks: list[tuple[int, int]] = []

    def check() -> None:
        marks.append(tracemalloc.get_traced_memory())
        tracemalloc.reset_peak()

    with np.errstate(all="ignore"):
        program.run([x], {})
        gc.collect()
        tracemalloc.start()
        try:
            program.run([x], {}, check=check)
            marks.append(tracemalloc.get_traced_memory())
        finally:
            tracemalloc.stop()
    k = next(i for i, e in enumerate(entries) if getattr(e, "node", None) is not None and e.node.type_name == type_name)
    return marks[k + 1][1] - marks[k][0]


def test_batchnorm_after_a_concat_runs_in_its_buffer_with_the_same_bits() -> None:
    """The BatchNormInference step allocates (almost) nothing: it writes the Concat's buffer.
    Before, it allocated its 1.5 MiB output beside the Concat's (DenseNet-121: at its peak)."""
    model = _concat_bn_model()
    x = np.random.default_rng(12).standard_normal((1, 64, 56, 56)).astype(np.float32)
    assert _inplace_mismatches(model, x) == []
    program = Program(model, Type.f32)
    bn = next(s for s in program.steps if s.node.type_name == "BatchNormInference")
    assert bn.inplace is not None and bn.inplace.source.node.type_name == "Concat"
    concat_bytes = 128 * 56 * 56 * 4
    assert _step_peak(model, x, "BatchNormInference") < 0.25 * concat_bytes


def test_a_batchnorm_beside_its_concat_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Concat not trusted to make a new array (as before): the check above fails."""
    from reference_plugin.fast import inplace

    monkeypatch.setattr(inplace, "_FRESH", inplace._FRESH - {"Concat"})
    x = np.random.default_rng(12).standard_normal((1, 64, 56, 56)).astype(np.float32)
    assert _step_peak(_concat_bn_model(), x, "BatchNormInference") >= 128 * 56 * 56 * 4
