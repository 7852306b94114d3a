"""Shared pieces of the "norm" family kernels: float64 computation and index inputs.

Floating-point kernels compute in float64 and round once to the output type (f16/bf16 included);
index inputs (axes, counts) that are not build-time constants are read at run time and checked,
so a bad value is an InferError naming the node and the value.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node, Type
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axes
from reference_plugin.ops._common_types import from_compute, to_compute


def to_f64(x: np.ndarray, t: Type) -> np.ndarray:
    """``x`` stored as ``t`` as float64."""
    return np.asarray(to_compute(x, t), dtype=np.float64)


def store_float(values: np.ndarray, t: Type) -> np.ndarray:
    """Round float64 results once to the floating-point type ``t``."""
    return from_compute(np.asarray(values, dtype=np.float64), t)


def mean_variance(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of ``x`` over ``axes`` (kept as size-1 dims)."""
    mean = np.mean(x, axis=axes, keepdims=True)
    centred = x - mean
    return centred, np.mean(centred * centred, axis=axes, keepdims=True)


class AxesOp(OpRun):
    """A kernel whose input 1 holds axes (constant at build time or read at run time)."""

    axes_input = 1

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        const = self.const_input(self.axes_input)
        self.const_axes = None if const is None else int_list(const)

    def axes(self, given: np.ndarray, rank: int) -> tuple[int, ...]:
        values = self.const_axes if self.const_axes is not None else int_list(given)
        return tuple(sorted(normalize_axes(values, rank, "axes")))


#: Most elements a generating kernel (Range, Eye, OneHot) produces at run time.
MAX_OUTPUT_ELEMENTS = 1 << 26


def scalar(value: np.ndarray) -> np.generic:
    """The single value of a scalar or one-element input."""
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise ValueError(f"expected a scalar or a one-element tensor; got shape {list(np.shape(value))}")
    return flat[0]
