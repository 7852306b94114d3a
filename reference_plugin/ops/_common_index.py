"""Index-input helpers shared by the shape and data-movement kernels (axes, shapes, lengths)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ovconform.errors import InferError


def int_list(values: np.ndarray | Sequence[int]) -> list[int]:
    """An integer index tensor (scalar or 1D) as a list of Python ints."""
    return [int(v) for v in np.asarray(values).reshape(-1).tolist()]


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """``axis`` in [-rank, rank) as a non-negative axis, or InferError naming the bad value.

    A scalar (rank 0) accepts axis 0 or -1, as the shape inference does.
    """
    if rank == 0 and axis in (0, -1):
        return 0
    if not -rank <= axis < rank:
        raise InferError(f"{what} {axis} is out of range for rank {rank}; allowed [{-rank}, {rank - 1}].")
    return axis + rank if axis < 0 else axis


def normalize_axes(axes: Sequence[int], rank: int, what: str = "axes", unique: bool = True) -> list[int]:
    """Each axis normalized; with ``unique`` a repeated axis is an InferError."""
    out = [normalize_axis(a, rank, what) for a in axes]
    if unique and len(set(out)) != len(out):
        raise InferError(f"{what} {list(axes)} repeat an axis (rank {rank}).")
    return out


# -- index tensors (the "index" family: gathers, scatters) -----------------------------------------

def wrap_indices(indices: np.ndarray, size: int | np.ndarray, what: str = "index") -> np.ndarray:
    """Index values in ``[-size, size)`` as non-negative int64 (negative counts from the end), or
    InferError naming the first value out of range. ``size`` may be an array broadcasting with
    ``indices`` (one size per index column)."""
    idx = np.asarray(indices).astype(np.int64)
    size_arr = np.broadcast_to(np.asarray(size, dtype=np.int64), idx.shape)
    bad = (idx < -size_arr) | (idx >= size_arr)
    if np.any(bad):
        pos = tuple(int(p) for p in np.argwhere(bad)[0])
        raise InferError(f"{what} {int(idx[pos])} at {list(pos)} is out of range; allowed "
                         f"[{-int(size_arr[pos])}, {int(size_arr[pos]) - 1}].")
    return np.where(idx < 0, idx + size_arr, idx)


def scatter_reduce(out: np.ndarray, targets: np.ndarray, updates: np.ndarray, reduction: str,
                   use_init_val: bool = True) -> np.ndarray:
    """Apply ``updates`` to the flat array ``out`` (modified in place and returned) at the flat
    positions ``targets``, in order: ``none`` overwrites (the last update of a repeated position
    wins), ``sum``/``sub``/``prod``/``min``/``max`` combine every update with the running value and
    ``mean`` averages them (integers round toward minus infinity). Without ``use_init_val`` a
    touched position starts from the reduction's identity instead of its value in ``out`` (for
    ``mean`` it is left out of the average)."""
    if reduction == "none":
        out[targets] = updates
        return out
    if not use_init_val:
        out[targets] = _identity(reduction, out.dtype)
    if reduction == "mean":
        return _scatter_mean(out, targets, updates, use_init_val)
    ufunc: np.ufunc = {"sum": np.add, "sub": np.subtract, "prod": np.multiply, "min": np.minimum,
                       "max": np.maximum}[reduction]
    if out.dtype == np.bool_ and reduction in ("sum", "sub", "prod"):
        ufunc = np.logical_and if reduction == "prod" else np.logical_or
    ufunc.at(out, targets, updates)
    return out


def _identity(reduction: str, dtype: np.dtype) -> Any:
    if reduction == "prod":
        return 1
    if reduction in ("min", "max"):
        high = (True if dtype == np.bool_ else np.inf if dtype.kind == "f" else np.iinfo(dtype).max)
        low = (False if dtype == np.bool_ else -np.inf if dtype.kind == "f" else np.iinfo(dtype).min)
        return high if reduction == "min" else low
    return 0


def _scatter_mean(out: np.ndarray, targets: np.ndarray, updates: np.ndarray, use_init_val: bool) -> np.ndarray:
    acc = np.float64 if out.dtype.kind == "f" else np.int64
    touched = np.unique(targets)
    sums = np.zeros(out.shape, acc)
    np.add.at(sums, targets, updates.astype(acc))
    counts = np.bincount(targets, minlength=out.size).astype(acc)
    if use_init_val:
        sums[touched] += out[touched].astype(acc)
        counts[touched] += 1
    if acc is np.float64:
        out[touched] = (sums[touched] / counts[touched]).astype(out.dtype)
    else:
        out[touched] = np.floor_divide(sums[touched], counts[touched]).astype(out.dtype)
    return out
