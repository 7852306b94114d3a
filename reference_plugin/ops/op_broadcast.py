"""Broadcast-1 (numpy, explicit = "none", pdpd) and Broadcast-3 (adds bidirectional).

numpy / pdpd: data dims align right with ``target_shape`` (each 1 or equal). explicit: data
dim i maps to target axis ``axes_mapping[i]``. bidirectional: the numpy broadcast of data and
target shapes (the target may be smaller than data).
"""

from __future__ import annotations

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list


def broadcast_explicit(x: np.ndarray, target: list[int], mapping: list[int]) -> np.ndarray:
    """Place data dim i at target axis ``mapping[i]`` (increasing), size-1 everywhere else, then broadcast."""
    if len(mapping) != x.ndim or any(a >= b for a, b in zip(mapping, mapping[1:], strict=False)) or \
            any(not 0 <= a < len(target) for a in mapping):
        raise InferError(f"axes_mapping {mapping} must be {x.ndim} increasing axes of target_shape {target}.")
    shape = [1] * len(target)
    for d, a in zip(x.shape, mapping, strict=True):
        shape[a] = d
    return _to(x.reshape(shape), target)


def _to(x: np.ndarray, target: list[int] | tuple[int, ...]) -> np.ndarray:
    try:
        return np.broadcast_to(x, tuple(target))
    except ValueError:
        raise InferError(f"input shape {list(x.shape)} cannot broadcast to target_shape {list(target)}.") from None


def broadcast_numpy(x: np.ndarray, target: list[int]) -> np.ndarray:
    if x.ndim > len(target):
        raise InferError(f"input shape {list(x.shape)} has a larger rank than target_shape {target}.")
    return _to(x, target)


def broadcast_bidirectional(x: np.ndarray, target: list[int]) -> np.ndarray:
    try:
        shape = np.broadcast_shapes(x.shape, tuple(target))
    except ValueError:
        raise InferError(f"input shape {list(x.shape)} and target_shape {target} cannot broadcast "
                         "(bidirectional).") from None
    return _to(x, shape)


@register_op("Broadcast", since=1)
class Broadcast1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        mode = str(self.attr("mode")).lower()
        self.mode = "explicit" if mode == "none" else mode
        if self.mode not in ("numpy", "pdpd", "explicit", "bidirectional"):
            raise self.fail(f"mode {mode!r} is not known; allowed: numpy, explicit (none), pdpd, bidirectional.")
        target, mapping = self.const_input(1), self.const_input(2)
        self.target = int_list(target) if target is not None else None
        self.mapping = int_list(mapping) if mapping is not None else None

    def _run(self, x: np.ndarray, target: np.ndarray, mapping: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        shape = self.target if self.target is not None else int_list(target)
        if any(d < 0 for d in shape):
            raise self.fail(f"target_shape {shape} has a negative value.")
        if self.mode == "explicit":
            if mapping is None:
                raise self.fail("mode 'explicit' needs the axes_mapping input.")
            axes = self.mapping if self.mapping is not None else int_list(mapping)
            out = broadcast_explicit(x, shape, axes)
        elif self.mode == "bidirectional":
            out = broadcast_bidirectional(x, shape)
        else:
            out = broadcast_numpy(x, shape)
        return (out,)


@register_op("Broadcast", since=3)
class Broadcast3(Broadcast1):
    """Broadcast-3: adds mode bidirectional."""
