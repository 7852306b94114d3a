"""Helpers shared by the "layout" kernels: index inputs known at build time, and python slices."""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.errors import InferError
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axes


class IndexInputsOp(OpRun):
    """A kernel whose integer inputs (ports ``INDEX_PORTS``) are read as int lists, from the build-time
    constant when there is one."""

    INDEX_PORTS: tuple[int, ...] = ()

    def __init__(self, node: Any) -> None:
        super().__init__(node)
        self._consts: dict[int, list[int] | None] = {}
        for i in self.INDEX_PORTS:
            value = self.const_input(i)
            self._consts[i] = None if value is None else int_list(value)

    def ints(self, port: int, value: np.ndarray) -> list[int]:
        const = self._consts.get(port)
        return const if const is not None else int_list(value)


def slice_index(shape: tuple[int, ...], start: list[int], stop: list[int], step: list[int],
                axes: list[int] | None) -> tuple[slice, ...]:
    """The numpy index of ``data[start:stop:step]`` over ``axes`` (default 0..len(start)-1)."""
    if not len(start) == len(stop) == len(step) == (len(start) if axes is None else len(axes)):
        raise InferError(f"start {start}, stop {stop}, step {step}"
                         f"{'' if axes is None else f' and axes {axes}'} must have the same length.")
    if 0 in step:
        raise InferError(f"step {step} has a zero; steps must be non-zero.")
    if not shape:
        raise InferError("data is a scalar; slicing needs data of rank >= 1.")
    rank = len(shape)
    if len(start) > rank:
        raise InferError(f"the slice spec has {len(start)} value(s); data of shape {list(shape)} has rank {rank}.")
    axes = list(range(len(start))) if axes is None else normalize_axes(axes, rank, "axes")
    index = [slice(None)] * rank
    for axis, b, e, s in zip(axes, start, stop, step, strict=True):
        index[axis] = slice(b, e, s)
    return tuple(index)
