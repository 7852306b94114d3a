"""Swish-4: ``x / (1 + e ** (-beta * x))`` with the optional scalar ``beta`` (default 1), in float64."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("Swish", since=4)
class Swish(OpRun):
    def _run(self, x: np.ndarray, beta: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        b = 1.0 if beta is None else scalar(to_compute(beta, t), "beta")
        v = to_compute(x, t).astype(np.float64)
        return (from_compute(v / (1.0 + np.exp(-b * v)), self.out_types[0]),)


def scalar(value: np.ndarray, name: str) -> float:
    """The one element of ``value`` as a float64 (ValueError naming the input otherwise)."""
    if value.size != 1:
        raise ValueError(f"input {name!r} has shape {list(value.shape)}; it must hold exactly one element.")
    return float(value.reshape(-1)[0])
