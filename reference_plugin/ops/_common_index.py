"""Index-input helpers shared by the shape and data-movement kernels (axes, shapes, lengths)."""

from __future__ import annotations

from collections.abc import Sequence

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
