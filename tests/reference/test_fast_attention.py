"""The sdpa-blocks route (reference_plugin/fast/attention.py) against the ScaledDotProductAttention
formula, bit for bit, and its memory (issue #26: whisper's SDPA).

* many cases: whisper-tiny's (1, 6, 1500, 64), odd sizes, key/value shared across heads
  (broadcast), every mask kind (boolean, float, broadcast over batch, heads and rows), causal,
  the scale input, f32/f16/bf16/f64, rows masked everywhere (NaN), ±inf and NaN inputs,
  non-contiguous inputs, on one and two intra-op threads; and small random cases with the route
  forced on, down to one query row, one key and one feature;
* what takes the formula (small slices, rejected inputs: the formula's own error);
* broken versions of the route (the previous row's mask, the last row block skipped, the causal
  diagonal masked) are caught by the same comparison;
* the route's peak allocation stays near one slice's scores where the formula's is several whole
  tensors of them, and a route that makes a whole-tensor temporary again is caught.
"""

from __future__ import annotations

import gc
import math
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from ovconform import opset as ops
from ovconform.errors import InferError
from ovconform.ir import Node, Type, f32_to_bf16
from reference_plugin import fast
from reference_plugin.fast import attention, parallel
from reference_plugin.fast.attention import SdpaBlocks
from reference_plugin.ops import build_kernel
from reference_plugin.ops.op_scaled_dot_product_attention import ScaledDotProductAttention

ROUTE = next(r for r in fast.routes() if r.key == ("ScaledDotProductAttention", 13, "sdpa-blocks"))


# -- cases -------------------------------------------------------------------------------------------------------
@dataclass
class Spec:
    """One SDPA node's shapes and inputs, built by :func:`make_case`."""

    label: str
    q: tuple[int, ...]
    k: tuple[int, ...]
    v: tuple[int, ...]
    t: Type = Type.f32
    #: ``("bool" | "float", shape)`` or None.
    mask: tuple[str, tuple[int, ...]] | None = None
    scale: float | None = None
    causal: bool = False
    #: "nan-rows": some rows masked everywhere; "hard": NaN and ±inf in Q, K and V.
    values: str = "normal"
    #: Query given as a non-contiguous view: "heads" (heads and rows swapped in memory: each
    #: slice converted alone), "columns" (rows and features swapped: slices of the whole
    #: copy); key "broadcast" over the heads (a stride-0 view: slices of the whole copy).
    strided: str = ""
    threads: tuple[int, ...] = (1,)
    #: Whether the route (not the formula) computes it.
    routed: bool = True


def _store(x: np.ndarray, t: Type) -> np.ndarray:
    with np.errstate(over="ignore"):  # 1e30 is inf in f16
        return f32_to_bf16(x.astype(np.float32)) if t == Type.bf16 else x.astype(t.to_dtype())


def make_case(spec: Spec, seed: int = 0) -> tuple[Node, list[np.ndarray]]:
    """The node and one array per node input."""
    rng = np.random.default_rng(seed)
    t = spec.t
    arrays = [rng.standard_normal(s) * 2.0 for s in (spec.q, spec.k, spec.v)]
    if spec.values == "hard":
        for a in arrays:
            flat = a.reshape(-1)
            at = rng.choice(flat.size, min(flat.size, 6), replace=False)
            flat[at] = [np.nan, np.inf, -np.inf, 1e30, -1e30, 0.0][:at.size]
    values = [_store(a, t) for a in arrays]
    if spec.strided in ("heads", "columns"):  # the same query values in another memory order
        q, axis = values[0], {"heads": -3, "columns": -1}[spec.strided]
        values[0] = np.ascontiguousarray(np.swapaxes(q, -2, axis)).swapaxes(-2, axis)
        assert not values[0].flags.c_contiguous and np.array_equal(values[0], q)
        assert attention.rows_innermost(values[0]) is (spec.strided == "heads")
    if spec.strided == "broadcast":
        values[1] = np.broadcast_to(values[1][:, :1], values[1].shape)
        assert values[1].strides[1] == 0 and not attention.rows_innermost(values[1])
    params = [ops.parameter(list(s), t, n) for s, n in ((spec.q, "q"), (spec.k, "k"), (spec.v, "v"))]
    mask_node = scale_node = None
    if spec.mask is not None or spec.scale is not None:
        kind, shape = spec.mask if spec.mask is not None else ("float", ())
        if kind == "bool":
            m = rng.random(shape) > 0.3
            if spec.values == "nan-rows" and m.ndim >= 2 and m.shape[-2] > 3:
                m[..., 1, :] = False  # query row 1 masked everywhere: NaN
            mask_node = ops.parameter(list(shape), Type.boolean, "mask")
        else:
            m = rng.standard_normal(shape) * 3.0 if spec.mask is not None else np.zeros(shape)
            if spec.values == "nan-rows" and m.ndim >= 2 and m.shape[-2] > 3:
                m[..., 2, :] = -np.inf
                m[..., 3, ::2] = -np.inf
            m = _store(m, t)
            mask_node = ops.parameter(list(shape), t, "mask")
        values.append(m)
    if spec.scale is not None:
        values.append(_store(np.array(spec.scale), t))
        scale_node = ops.parameter([], t, "scale")
    node = ops.scaled_dot_product_attention(*params, mask_node, scale_node, causal=spec.causal)
    return node, values


WHISPER = (1, 6, 1500, 64)
SPECS = [
    Spec("whisper-tiny encoder (1, 6, 1500, 64)", WHISPER, WHISPER, WHISPER, threads=(1, 2)),
    Spec("odd sizes, 2 batches x 3 heads", (2, 3, 131, 40), (2, 3, 157, 40), (2, 3, 157, 24), threads=(1, 2)),
    Spec("key and value shared by the heads", (2, 4, 130, 32), (2, 1, 150, 32), (2, 1, 150, 48)),
    Spec("value with more batch than query/key", (1, 3, 128, 16), (1, 1, 130, 16), (2, 3, 130, 8)),
    Spec("rank 3", (3, 200, 20), (3, 180, 20), (3, 180, 20)),
    Spec("rank 5", (2, 1, 2, 129, 16), (1, 2, 1, 131, 16), (1, 2, 1, 131, 9)),
    Spec("one query row, 20000 keys", (1, 2, 1, 64), (1, 2, 20000, 64), (1, 2, 20000, 64)),
    Spec("one key", (1, 1, 20000, 8), (1, 1, 1, 8), (1, 1, 1, 8)),
    Spec("boolean mask (L, S)", (1, 2, 140, 32), (1, 2, 150, 32), (1, 2, 150, 32), mask=("bool", (140, 150))),
    Spec("boolean padding mask (B, 1, 1, S)", (2, 3, 140, 32), (2, 3, 150, 32), (2, 3, 150, 32),
         mask=("bool", (2, 1, 1, 150)), threads=(1, 2)),
    Spec("boolean mask per head, rows masked everywhere", (1, 3, 128, 32), (1, 3, 140, 32), (1, 3, 140, 32),
         mask=("bool", (1, 3, 128, 140)), values="nan-rows"),
    Spec("float mask (1, H, L, S)", (2, 3, 130, 32), (2, 3, 140, 32), (2, 3, 140, 32),
         mask=("float", (1, 3, 130, 140)), threads=(1, 2)),
    Spec("float mask over keys only (S,)", (2, 2, 150, 32), (2, 2, 130, 32), (2, 2, 130, 32), mask=("float", (130,))),
    Spec("float mask (L, 1), a column", (1, 2, 150, 32), (1, 2, 130, 32), (1, 2, 130, 32), mask=("float", (150, 1))),
    Spec("float mask with -inf rows (NaN)", (1, 2, 130, 32), (1, 2, 140, 32), (1, 2, 140, 32),
         mask=("float", (130, 140)), values="nan-rows"),
    Spec("float mask per head over keys (H, 1, S)", (1, 2, 130, 32), (1, 2, 140, 32), (1, 2, 140, 32),
         mask=("float", (2, 1, 140))),
    Spec("causal, L < S", (1, 2, 130, 32), (1, 2, 200, 32), (1, 2, 200, 32), causal=True, threads=(1, 2)),
    Spec("causal, L > S", (1, 2, 300, 32), (1, 2, 120, 32), (1, 2, 120, 32), causal=True),
    Spec("causal ignores the mask", (1, 2, 200, 32), (1, 2, 200, 32), (1, 2, 200, 32), causal=True,
         mask=("bool", (200, 200))),
    Spec("scale input, no mask", (1, 2, 140, 32), (1, 2, 130, 32), (1, 2, 130, 32), scale=0.37),
    Spec("scale input and float mask", (1, 2, 140, 32), (1, 2, 130, 32), (1, 2, 130, 32), scale=-1.5,
         mask=("float", (1, 1, 140, 130))),
    Spec("NaN and ±inf in Q, K, V", (1, 3, 130, 32), (1, 3, 140, 32), (1, 3, 140, 32), values="hard"),
    Spec("f16, causal", (1, 2, 160, 32), (1, 2, 160, 32), (1, 2, 160, 32), t=Type.f16, causal=True),
    Spec("f16 float mask, hard values", (1, 2, 130, 32), (1, 2, 140, 32), (1, 2, 140, 32), t=Type.f16,
         mask=("float", (130, 140)), values="hard"),
    Spec("bf16 boolean mask, scale", (2, 2, 130, 32), (2, 2, 140, 32), (2, 2, 140, 32), t=Type.bf16,
         mask=("bool", (2, 1, 130, 140)), scale=0.2),
    Spec("bf16 hard values", (1, 2, 130, 32), (1, 2, 140, 32), (1, 2, 140, 32), t=Type.bf16, values="hard"),
    Spec("f64 float mask", (1, 3, 140, 32), (1, 3, 130, 32), (1, 3, 130, 32), t=Type.f64,
         mask=("float", (140, 130)), threads=(1, 2)),
    Spec("f64 hard values, scale", (2, 2, 130, 32), (2, 2, 140, 32), (2, 2, 140, 32), t=Type.f64,
         values="hard", scale=0.5),
    Spec("f32 query heads-major in memory", (1, 4, 140, 32), (1, 4, 150, 32), (1, 4, 150, 32), strided="heads"),
    Spec("f64 query heads-major in memory", (1, 4, 140, 32), (1, 4, 150, 32), (1, 4, 150, 32), t=Type.f64,
         strided="heads"),
    Spec("f32 query column-major slices", (1, 4, 140, 32), (1, 4, 150, 32), (1, 4, 150, 32), strided="columns"),
    Spec("bf16 query column-major slices", (2, 2, 140, 32), (2, 2, 150, 32), (2, 2, 150, 32), t=Type.bf16,
         strided="columns"),
    Spec("f32 key a stride-0 broadcast over heads", (1, 4, 140, 32), (1, 4, 150, 32), (1, 4, 150, 32),
         strided="broadcast"),
    Spec("small slices (the formula)", (2, 8, 64, 32), (2, 8, 64, 32), (2, 8, 64, 32), routed=False),
]


# -- the comparison -----------------------------------------------------------------------------------------------
def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" else a


def differences(got: np.ndarray, want: np.ndarray, label: str) -> list[str]:
    """What differs between the route's output and the formula's, bit for bit; empty when nothing."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return [f"{label}: {got.dtype}{list(got.shape)}, the formula gives {want.dtype}{list(want.shape)}"]
    same_values = want.dtype.kind != "f" or bool(np.array_equal(got, want, equal_nan=True))
    wrong = _bits(got) != _bits(want)
    if same_values and not wrong.any():
        return []
    if not wrong.any():  # (equal bits are equal values: not reached)
        return [f"{label}: equal bits but not equal values"]
    k = int(np.argmax(wrong.reshape(-1)))
    return [f"{label}: {int(wrong.sum())} of {wrong.size} element(s) differ from the formula, bit for bit (first at "
            f"{np.unravel_index(k, want.shape)}: {got.reshape(-1)[k]!r} vs {want.reshape(-1)[k]!r})"]


def run_route(node: Node, inputs: list[np.ndarray], threads: int = 1) -> np.ndarray:
    kernel = build_kernel(fast.route_class(ROUTE), node)
    with parallel.using(threads):
        return kernel.run(inputs)[0]


def run_formula(node: Node, inputs: list[np.ndarray]) -> np.ndarray:
    return build_kernel(ScaledDotProductAttention, node).run(inputs)[0]


def spec_differences(specs: list[Spec]) -> list[str]:
    found: list[str] = []
    for spec in specs:
        node, inputs = make_case(spec)
        want = run_formula(node, inputs)
        for threads in spec.threads:
            found += differences(run_route(node, inputs, threads), want, f"{spec.label} on {threads} thread(s)")
    return found


def _routed(node: Node, inputs: list[np.ndarray]) -> bool:
    kernel = build_kernel(fast.route_class(ROUTE), node)
    assert isinstance(kernel, SdpaBlocks)
    return kernel.plan(inputs[0], inputs[1], inputs[2], inputs[3:]) is not None


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.label)
def test_the_route_gives_the_formula_bits(spec: Spec) -> None:
    node, inputs = make_case(spec)
    assert _routed(node, inputs) is spec.routed
    found = spec_differences([spec])
    assert not found, "\n".join(found)


def _random_spec(rng: np.random.Generator, i: int) -> Spec:
    rows, keys, depth, width = (int(rng.integers(1, n)) for n in (40, 40, 18, 12))
    heads = int(rng.integers(1, 4))
    q, k, v = (1, heads, rows, depth), (1, int(rng.choice([1, heads])), keys, depth), (1, heads, keys, width)
    t = [Type.f32, Type.f16, Type.bf16, Type.f64][i % 4]
    kind = ["none", "bool", "float", "causal"][(i // 4) % 4]
    shapes = [(rows, keys), (1, heads, rows, keys), (keys,), (1, 1, 1, keys), (rows, 1)]
    mask = (kind, shapes[int(rng.integers(len(shapes)))]) if kind in ("bool", "float") else None
    scale = float(rng.uniform(-2, 2)) if rng.random() < 0.4 else None
    values = ["normal", "hard", "nan-rows"][i % 3] if rows >= 4 else "normal"
    return Spec(f"random {i}: {q} {k} {v} {t} {kind} scale={scale} {values}", q, k, v, t, mask=mask, scale=scale,
                causal=kind == "causal", values=values)


def test_the_route_gives_the_formula_bits_on_small_random_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """The route forced on every size (one query row, one key, one feature: numpy's gemv and
    non-BLAS paths) on 64 random cases."""
    monkeypatch.setattr(attention, "MIN_SCORES", 1)
    rng = np.random.default_rng(2026)
    specs = [_random_spec(rng, i) for i in range(64)]
    for spec in specs:
        node, inputs = make_case(spec, seed=len(spec.label))
        assert _routed(node, inputs), spec.label
    found = []
    for i, spec in enumerate(specs):
        node, inputs = make_case(spec, seed=len(spec.label))
        found += differences(run_route(node, inputs, 1 + i % 2), run_formula(node, inputs), spec.label)
    assert not found, "\n".join(found)


def test_the_device_kernel_takes_the_route() -> None:
    node, inputs = make_case(SPECS[1])
    kernel = fast.make_kernel(node)
    assert isinstance(kernel, SdpaBlocks) and fast.formula_of(kernel) is ScaledDotProductAttention
    assert not differences(kernel.run(inputs)[0], run_formula(node, inputs), "make_kernel")


def test_inputs_the_formula_rejects_give_the_formula_error() -> None:
    """A scale of two values: the route leaves it to the formula, whose InferError names the node."""
    spec = Spec("two scale values", (1, 2, 140, 32), (1, 2, 130, 32), (1, 2, 130, 32), scale=0.5)
    node, inputs = make_case(spec)
    inputs[-1] = np.array([0.5, 0.25], np.float32)
    with pytest.raises(InferError, match="scale must hold one value") as route_error:
        build_kernel(fast.route_class(ROUTE), node).run_trusted(inputs, None)
    with pytest.raises(InferError, match="scale must hold one value") as formula_error:
        build_kernel(ScaledDotProductAttention, node).run_trusted(inputs, None)
    assert str(route_error.value) == str(formula_error.value)


# -- broken routes are caught -------------------------------------------------------------------------------------
def _by_label(*words: str) -> list[Spec]:
    return [s for s in SPECS if any(w in s.label for w in words)]


def test_a_route_adding_the_previous_rows_mask_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = _by_label("boolean mask (L, S)", "float mask (1, H, L, S)")
    assert len(specs) == 2 and not spec_differences(specs)
    right = attention._bias_rows

    def previous_row(item: Any, mask_rows: np.ndarray | None, start: int, stop: int, keys: int) -> Any:
        shifted = None if mask_rows is None else np.roll(mask_rows, 1, axis=0)
        return right(item, shifted, start, stop, keys)

    monkeypatch.setattr(attention, "_bias_rows", previous_row)
    found = spec_differences(specs)
    assert {f.split(" on ")[0] for f in found} == {s.label for s in specs}, found
    assert all("bit for bit" in f for f in found), found


def test_a_route_skipping_its_last_row_block_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = _by_label("whisper")  # 1500 rows of 1500 keys: 35 blocks of 43 rows, the last of 38
    assert specs and not spec_differences(specs)
    right = attention.map_row_blocks

    def skip_last(fn: Callable[[int, int], Any], rows: int, n: int) -> list[Any]:
        return right(lambda a, b: None if b == rows and a > 0 else fn(a, b), rows, n)

    monkeypatch.setattr(attention, "map_row_blocks", skip_last)
    found = spec_differences(specs)
    assert found and all("bit for bit" in f for f in found), found


def test_a_route_masking_the_causal_diagonal_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = _by_label("causal, L < S")
    assert specs and not spec_differences(specs)
    right = attention._bias_rows

    def diagonal_too(item: Any, mask_rows: np.ndarray | None, start: int, stop: int, keys: int) -> Any:
        bias = right(item, mask_rows, start, stop, keys)
        if item.causal:
            np.copyto(bias, -np.inf, where=np.arange(keys) == np.arange(start, stop)[:, None])
        return bias

    monkeypatch.setattr(attention, "_bias_rows", diagonal_too)
    found = spec_differences(specs)
    assert found and all("bit for bit" in f for f in found), found


# -- memory -------------------------------------------------------------------------------------------------------
def _peak(run: Callable[[], np.ndarray]) -> tuple[int, np.ndarray]:
    """Bytes allocated at the peak of ``run()`` above what was allocated before (tracemalloc)."""
    with np.errstate(all="ignore"):
        run()  # warm: per-thread work arrays made
        gc.collect()
        tracemalloc.start()
        try:
            before, _ = tracemalloc.get_traced_memory()
            out = run()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return peak - before, out


def _whisper_budget() -> tuple[Node, list[np.ndarray], int]:
    """Whisper-tiny's SDPA and what the route may hold at once: one head's slice of Q, K and V in
    float64 (and a fourth while one is replaced), that head's scores, its float64 product with
    V and that product rounded to f32, and the output."""
    node, inputs = make_case(SPECS[0])
    _, _, rows, depth = WHISPER
    slice_f64 = rows * depth * 8
    output = math.prod(WHISPER) * 4
    return node, inputs, 4 * slice_f64 + rows * rows * 8 + slice_f64 + slice_f64 // 2 + output


def test_the_route_peaks_near_one_slice_of_scores_and_the_formula_far_above() -> None:
    """Whisper-tiny (6 heads of 1500 x 1500): the route's allocations peak within 1.1x of one
    head's scores and operands and the output (23 MiB in all, 11x the f32 output); the formula's
    at its float64 Q, K, V and several whole-tensor float64 temporaries of 108 MB (>= 10x that)."""
    node, inputs, budget = _whisper_budget()
    routed = build_kernel(fast.route_class(ROUTE), node)
    formula = build_kernel(ScaledDotProductAttention, node)
    route_peak, got = _peak(lambda: routed.run(inputs)[0])
    formula_peak, want = _peak(lambda: formula.run(inputs)[0])
    assert not differences(got, want, "whisper")
    assert route_peak <= 1.1 * budget, (route_peak, budget)
    assert formula_peak >= 10 * budget, (formula_peak, budget)


def test_a_route_making_a_whole_tensor_temporary_again_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    node, inputs, budget = _whisper_budget()
    right = attention.attention

    def with_all_scores(item: Any) -> np.ndarray:
        q64, k64 = (attention._float64(a, item.t) for a in (item.q, item.k))
        every = np.matmul(q64, np.swapaxes(k64, -1, -2))  # the formula's first temporary
        out = right(item)
        del every
        return out

    monkeypatch.setattr(attention, "attention", with_all_scores)
    routed = build_kernel(fast.route_class(ROUTE), node)
    peak, _ = _peak(lambda: routed.run(inputs)[0])
    assert peak > 1.1 * budget, (peak, budget)
