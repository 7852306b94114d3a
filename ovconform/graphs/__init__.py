"""Multi-op graphs: the fusion-pattern catalogue (:mod:`.patterns`) and the random graphs of the
graph fuzz (:mod:`.fuzz`), built with :mod:`ovconform.opset` only.

A :class:`GraphCase` is a model plus the inputs of each inference: one step for a static
model, two steps of different shapes on one compiled model for a dynamic one.
"""

from __future__ import annotations

from ovconform.graphs._case import GraphCase, describe_ops

__all__ = ["GraphCase", "describe_ops"]
