"""Reshape-1: the target shape input; with ``special_zero`` a 0 copies the input dim at that
position (else it is a zero-size dim); one -1 takes the remaining element count."""

from __future__ import annotations

import math

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list


def target_shape(shape: tuple[int, ...], pattern: list[int], special_zero: bool) -> tuple[int, ...]:
    """The concrete output shape of Reshape for an input of ``shape``."""
    bad = [v for v in pattern if v < -1]
    if bad or pattern.count(-1) > 1:
        raise InferError(f"target shape {pattern} is invalid: allowed -1 (at most once), 0 and positive sizes.")
    out = []
    for i, v in enumerate(pattern):
        if v == 0 and special_zero:
            if i >= len(shape):
                raise InferError(f"target shape {pattern} copies input dim {i} (special_zero) but the input "
                                 f"shape {list(shape)} has rank {len(shape)}.")
            v = shape[i]
        out.append(v)
    total = math.prod(shape)
    if -1 in out:
        known = math.prod(v for v in out if v != -1)
        if known == 0 or total % known:
            raise InferError(f"target shape {pattern} cannot take the {total} elements of input shape "
                             f"{list(shape)}.")
        out[out.index(-1)] = total // known
    if math.prod(out) != total:
        raise InferError(f"cannot reshape input shape {list(shape)} ({total} elements) into {out} "
                         f"(target {pattern}, special_zero={special_zero}).")
    return tuple(out)


@register_op("Reshape", since=1)
class Reshape(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.special_zero: bool = self.attr("special_zero")
        const = self.const_input(1)
        self.pattern = int_list(const) if const is not None else None

    def _run(self, x: np.ndarray, pattern: np.ndarray) -> tuple[np.ndarray, ...]:
        values = self.pattern if self.pattern is not None else int_list(pattern)
        return (x.reshape(target_shape(x.shape, values, self.special_zero)),)
