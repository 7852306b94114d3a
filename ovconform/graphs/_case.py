"""The :class:`GraphCase` of the pattern catalogue and the graph fuzz."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ovconform.ir import Model

__all__ = ["GraphCase"]


@dataclass
class GraphCase:
    """A model and its inputs: ``steps`` holds one dict (Parameter friendly name → array) per
    inference on one request (two shapes for a dynamic model); ``fuses`` says what a compiler
    fuses in it."""

    name: str
    model: Model
    steps: list[dict[str, np.ndarray]]
    fuses: str = ""
    dynamic: bool = False
    extra: dict[str, object] = field(default_factory=dict)

    def op_list(self) -> list[str]:
        """The graph op by op: ``"Type name(inputs) -> shape"`` for every non-housekeeping node."""
        return describe_ops(self.model)


def describe_ops(model: Model) -> list[str]:
    """``"Type 'name' (producer:port, ...) -> element type shape"`` per op of ``model`` in order."""
    out = []
    for node in model.get_ordered_ops():
        if node.type_name in ("Parameter", "Constant", "Result"):
            continue
        srcs = ", ".join(f"{s.node.friendly_name}:{s.index}" if s.node.type_name != "Constant"
                         else f"const{s.get_partial_shape()}" for s in node.input_values())
        outs = "; ".join(f"{o.get_element_type().name}{o.get_partial_shape()}" for o in node.outputs())
        out.append(f"{node.type_name} {node.friendly_name!r} ({srcs}) -> {outs}")
    return out
