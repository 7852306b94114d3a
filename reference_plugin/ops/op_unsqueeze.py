"""Unsqueeze-1: insert size-1 dims at ``axes`` (positions in the output; a repeated axis counts once)."""

from __future__ import annotations

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axes


def unsqueezed_shape(shape: tuple[int, ...], axes: list[int]) -> list[int]:
    if not axes:
        raise InferError("axes is empty; Unsqueeze needs at least one axis.")
    chosen = set(normalize_axes(axes, len(shape) + len(set(axes)), "unsqueeze axes", unique=False))
    final = len(shape) + len(chosen)
    if max(chosen) >= final:
        raise InferError(f"axes {axes} (repeated after normalization) leave a gap in output rank {final}.")
    dims = iter(shape)
    return [1 if i in chosen else next(dims) for i in range(final)]


@register_op("Unsqueeze", since=1)
class Unsqueeze(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        const = self.const_input(1)
        self.axes = int_list(const) if const is not None else None

    def _run(self, x: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        values = self.axes if self.axes is not None else int_list(axes)
        return (x.reshape(unsqueezed_shape(x.shape, values)),)
