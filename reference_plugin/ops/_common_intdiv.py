"""Integer division helpers shared by Divide, FloorMod and Mod."""

from __future__ import annotations

import numpy as np

from ovconform.errors import InferError


def check_nonzero_divisor(y: np.ndarray) -> None:
    """Integer division or modulo by zero is an error (OpenVINO's reference throws too)."""
    if np.any(y == 0):
        raise InferError("integer division by zero: the divisor input holds a 0.")


def trunc_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C integer division: the quotient truncated toward zero (wraps for INT_MIN / -1)."""
    q = np.floor_divide(x, y)
    if x.dtype.kind == "u":
        return q
    inexact = np.multiply(q, y) != x
    return q + (inexact & ((x < 0) != (y < 0))).astype(q.dtype)
