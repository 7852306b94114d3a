"""Shared pieces of the binary elementwise kernels: autobroadcast checks and the BinaryOp base."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ovconform.errors import InferError
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute

if TYPE_CHECKING:
    from ovconform.ir import Node


def broadcast_result_shape(mode: str, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """The output shape of an elementwise op over ``shapes`` under ``auto_broadcast`` = ``mode``.

    ``none``: all shapes equal. ``numpy``: numpy rules. ``pdpd``: every later shape broadcasts
    (numpy rules, right-aligned) onto the first, which keeps its shape.

    :raises InferError: (without a node label; the caller's ``run`` adds it) when they do not fit.
    """
    first = tuple(shapes[0])
    if mode == "none":
        if any(tuple(s) != first for s in shapes[1:]):
            raise InferError(f"input shapes {[list(s) for s in shapes]} must be equal when auto_broadcast='none'.")
        return first
    try:
        out = np.broadcast_shapes(*shapes)
    except ValueError:
        raise InferError(f"input shapes {[list(s) for s in shapes]} cannot be broadcast "
                         f"(auto_broadcast={mode!r}).") from None
    if mode == "pdpd" and tuple(out) != first:
        raise InferError(f"input shapes {[list(s) for s in shapes]}: with auto_broadcast='pdpd' the later "
                         f"inputs must broadcast onto the first input's shape {list(first)}.")
    return tuple(out)


class BinaryOp(OpRun):
    """Elementwise op of two inputs of one element type: subclasses implement ``compute``.

    ``compute`` gets both inputs in the compute dtype (float32 for f16/bf16) and returns the
    result; it is stored as the node's output element type.
    """

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mode: str = self.attr("auto_broadcast")
        self.t = self.in_types[0]
        self.out_t = self.out_types[0]
        self._checked: tuple[tuple[int, ...], tuple[int, ...]] | None = None  # the last shapes found valid

    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        if (a.shape, b.shape) != self._checked:
            broadcast_result_shape(self.mode, (a.shape, b.shape))
            self._checked = (a.shape, b.shape)
        return (from_compute(self.compute(to_compute(a, self.t), to_compute(b, self.t)), self.out_t),)

    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not implement compute")
