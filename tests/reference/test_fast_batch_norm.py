"""batchnorm-blocks (reference_plugin/fast/batch_norm.py) bit for bit against the formula.

Every layout of :func:`batch_norm_blocks` (float32 rows through a float64 work array, float64
rows worked on in the output, rows shorter than ``SHORT_ROWS`` worked on transposed) on values
where float32 shortcuts give other bits (asserted, not assumed), written to a new array and in
place (``out`` is the data), on 1 and 2 intra-op threads (the split asserted). Each broken
version below (the add in float32, everything in float32, the last block of rows not written)
is caught by the same check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from ovconform import opset as ops
from ovconform.ir import Type
from reference_plugin.fast import batch_norm, parallel, rows
from reference_plugin.fast.batch_norm import MIN_ELEMENTS, SHORT_ROWS, affine_rows, batch_norm_blocks
from reference_plugin.ops import build_kernel
from reference_plugin.ops.op_batch_norm_inference import BatchNormInference5

EPS = 1e-5
Impl = Callable[..., np.ndarray]


@dataclass(frozen=True)
class Case:
    label: str
    x: np.ndarray
    params: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # gamma, beta, mean, variance
    splits: bool  # large enough for map_row_blocks to split it over 2 threads


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint64 if a.dtype == np.float64 else np.uint32)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(_bits(a), _bits(b)))


def _case(shape: tuple[int, ...], dtype: type, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    c = shape[1]
    x: np.ndarray = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38 if dtype == np.float32 else 1e300]
    gamma: np.ndarray = rng.uniform(0.5, 1.5, c).astype(dtype)
    beta: np.ndarray = (rng.standard_normal(c) * 0.5).astype(dtype)
    mean: np.ndarray = (rng.standard_normal(c) * 0.5).astype(dtype)
    variance: np.ndarray = rng.uniform(0.2, 2.0, c).astype(dtype)
    variance[-1] = 0.0
    size = x.size
    inner = size // (shape[0] * c)
    layout = ("short rows" if inner < SHORT_ROWS else "float64 in the output" if dtype == np.float64
              else "float32 through the work array")
    return Case(f"{np.dtype(dtype).name} {list(shape)} ({layout})", x, (gamma, beta, mean, variance),
                size >= 2 * parallel.SPLIT_MIN)


def _cases() -> Iterator[Case]:
    yield _case((1, 24, 40, 40), np.float32, 1)
    yield _case((1, 32, 96, 96), np.float32, 2)      # splits
    yield _case((2, 48, 9, 11), np.float32, 3)       # a batch, odd rows of 99
    yield _case((1, 300, 7, 7), np.float32, 4)       # short rows
    yield _case((1, 6000, 7, 7), np.float32, 5)      # short rows, splits
    yield _case((2, 700, 3, 5), np.float32, 6)       # short rows, a batch
    yield _case((300, 1000), np.float32, 7)          # rank 2: rows of one element, splits
    yield _case((1, 16, 40, 40), np.float64, 8)
    yield _case((1, 8, 192, 192), np.float64, 9)     # splits
    yield _case((1, 300, 7, 7), np.float64, 10)      # short rows


CASES = list(_cases())


def _formula(case: Case) -> np.ndarray:
    """The formula's own kernel (BatchNormInference-5, the data first)."""
    t = Type.f32 if case.x.dtype == np.float32 else Type.f64
    c = case.x.shape[1]
    gamma, beta, mean, variance = (ops.parameter([c], t, f"p{i}") for i in range(4))
    node = ops.batch_norm_inference(ops.parameter(list(case.x.shape), t, "x"), gamma, beta, mean, variance, EPS)
    with np.errstate(all="ignore"):
        return build_kernel(BatchNormInference5, node).run([case.x, *case.params])[0]


WANT = {case.label: _formula(case) for case in CASES}


def _violations(impl: Impl, monkeypatch: pytest.MonkeyPatch, route: bool = False) -> list[str]:
    """Labels of the runs of ``impl`` whose result is not the formula's bits, written to a new
    array and in place, on 1 and 2 threads. ``route``: ``impl`` is the route, whose large cases
    must have been split over the 2 threads (asserted)."""
    parts: list[int] = []
    real_map_parts = parallel.map_parts

    def spy(fn: Any, items: Any, n: int | None = None) -> Any:
        parts.append(n if n is not None else parallel.threads())
        return real_map_parts(fn, items, n)

    monkeypatch.setattr(rows, "map_parts", spy)
    found = []
    for case in CASES:
        want = WANT[case.label]
        for threads in (1, 2):
            for inplace in (False, True):
                data = case.x.copy()
                parts.clear()
                with parallel.using(threads), np.errstate(all="ignore"):
                    got = impl(data, *case.params, EPS, out=data if inplace else None)
                if route:
                    assert max(parts, default=1) == (2 if threads == 2 and case.splits else 1), (case.label, parts)
                if not _same(got, want) or (inplace and got is not data) or (not inplace and not _same(data, case.x)):
                    found.append(f"{case.label} threads {threads}{' in place' if inplace else ''}")
    return found


def test_the_cases_cover_every_layout_and_float32_shortcuts_give_other_bits() -> None:
    """The cases are where a float32 shortcut shows: per float32 case, computing in float32 or
    adding in float32 changes a good share of the results' bits."""
    labels = " ".join(c.label for c in CASES)
    assert all(k in labels for k in ("(short rows)", "(float64 in the output)", "(float32 through the work array)"))
    assert all(c.x.size >= MIN_ELEMENTS for c in CASES) and sum(c.splits for c in CASES) >= 4
    for case in CASES:
        if case.x.dtype != np.float32:
            continue
        want = WANT[case.label]
        with np.errstate(all="ignore"):
            for shortcut in (_all_in_float32, _add_in_float32):
                differ = np.mean(_bits(shortcut(case.x, *case.params, EPS)) != _bits(want))
                assert differ > 0.05, (case.label, shortcut.__name__, differ)


def test_every_layout_gives_the_formulas_bits_in_place_and_on_two_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not _violations(batch_norm_blocks, monkeypatch, route=True)


def test_a_sum_whose_float32_add_would_round_twice_rounds_once() -> None:
    """``(x - m) * s = 2**-24 + 2**-50`` and ``b = 1``: in float64 the sum is above the midpoint
    of 1 and the next float32, so it rounds up; rounded to float32 first, the term is ``2**-24``
    and the float32 sum is the tie, which rounds to even (1)."""
    t = np.float64(2.0 ** -24) * (1 + 2.0 ** -26)
    assert t == 2.0 ** -24 + 2.0 ** -50 and np.float32(t) == np.float32(2.0 ** -24)
    right = np.float32(1 + 2.0 ** -23)
    assert np.float32(t + 1.0) == right and np.float32(t) + np.float32(1) == np.float32(1)  # the construction
    for shape in ((1, 64, 16, 16), (1, 2000, 3, 3), (400, 100)):  # through the work array, short rows, rank 2
        n, c = shape[:2]
        x = np.full(shape, 2.0 ** -24, np.float32)
        x[:, 1::2] *= -1
        sign = np.tile(np.where(np.arange(c) % 2, -1.0, 1.0), n)[:, None]
        affine = (np.zeros((n * c, 1)), np.full((n * c, 1), 1 + 2.0 ** -26), sign)
        want = np.where(np.arange(c) % 2, -right, right).reshape((1, c) + (1,) * (len(shape) - 2))
        unused = np.ones(c, np.float32)
        for out in (None, x.copy()):
            got = batch_norm_blocks(x, unused, unused, unused, unused, EPS, affine, out=out)
            assert np.array_equal(got, np.broadcast_to(want, shape)), shape


# -- broken versions, each caught ------------------------------------------------------------------


def _put(result: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    if out is None:
        return result
    out[...] = result
    return out


def _columns(x: np.ndarray, *per: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(p).reshape((1, -1) + (1,) * (x.ndim - 2)) for p in per]


def _all_in_float32(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                    eps: float, affine: Any = None, out: np.ndarray | None = None) -> np.ndarray:
    scale = (gamma / np.sqrt(variance + x.dtype.type(eps))).astype(x.dtype)
    m, s, b = _columns(x, mean, scale, beta)
    return _put((x - m) * s + b, out)


def _add_in_float32(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                    eps: float, affine: Any = None, out: np.ndarray | None = None) -> np.ndarray:
    """Centred and scaled in float64, rounded, then the add in the data's type."""
    m, s, b = affine_rows(gamma, beta, mean, variance, eps, x.shape[0])
    rows_ = x.reshape(m.shape[0], -1)
    scaled = ((rows_ - m) * s).astype(x.dtype)
    return _put((scaled + b.astype(x.dtype)).reshape(x.shape), out)


def _last_block_left(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                     eps: float, affine: Any = None, out: np.ndarray | None = None) -> np.ndarray:
    """The route, but its last row block left as it was (the data's values in place, zeros in
    a new array)."""
    calls: list[tuple[int, int]] = []
    real = rows.map_row_blocks

    def all_but_last(fn: Callable[[int, int], Any], n_rows: int, n: int) -> list[Any]:
        return real(lambda a, b: calls.append((a, b)) if b == n_rows else fn(a, b), n_rows, n)

    setattr(batch_norm, "map_row_blocks", all_but_last)  # noqa: B010 - the module's own name for it
    try:
        got = batch_norm_blocks(x, gamma, beta, mean, variance, eps, affine, out=out)
    finally:
        setattr(batch_norm, "map_row_blocks", real)  # noqa: B010
    assert calls
    if out is None:
        got.reshape(calls[0][1], -1)[calls[0][0]:] = 0.0
    return got


@pytest.mark.parametrize("broken", [_all_in_float32, _add_in_float32, _last_block_left])
def test_a_broken_batch_norm_is_caught(broken: Impl, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _violations(broken, monkeypatch)
    assert found
    if broken is not _last_block_left:  # arithmetic in float32: every float32 case, every way it is run
        every = {f"{c.label} threads {t}{p}" for c in CASES if c.x.dtype == np.float32
                 for t in (1, 2) for p in ("", " in place")}
        assert {f for f in found if f.startswith("float32")} == every
    else:
        assert len(found) == 4 * len(CASES)
