"""Locate the first diverging op of a failing model in one device run, stateful models included.

:func:`first_divergence` compiles a probe of the model on the device (every op's outputs made
Results, the same sinks, so variable state flows as in the model), runs the steps up to the
failing one on one request, and compares every op's outputs at that step with REFERENCE's. The
op named is the first, in topological order, whose output diverges while every input it reads
agrees: the op that breaks, not the ones its error flows into. One device run and one REFERENCE
run, however deep the model (a ReadValue that returns a truncated KV cache is found at the
decode step where it happens; triage by single ops cannot see state).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Model, Node
from ovconform.ir._subgraph import constant_subgraph_nodes
from ovconform.suites import _op_runner as R
from ovconform.tolerances import compare

__all__ = ["Divergence", "first_divergence"]

_SKIP = ("Parameter", "Constant", "Result", "Assign")


@dataclass(frozen=True)
class Divergence:
    """The first op whose output diverges with its inputs agreeing, at ``step``."""

    op_type: str
    name: str
    step: int
    message: str
    inputs_agree: bool

    def describe(self) -> str:
        where = "first diverging op" if self.inputs_agree else "first diverging op (its inputs diverge too)"
        return f"{where}: {self.op_type} {self.name!r} at step {self.step}: {self.message}"


#: The probe leaves out the outputs of the model's subgraphs of Constants (weight decompression:
#: Convert, Subtract, Multiply of u4/i4/u8 weights) when they hold more than this many bytes: as
#: Results they would be a decompressed copy of every weight in f16 and f32 on both runs (tens of
#: GB for a 1.1B decoder). Such a probe names the MatMul that reads a wrong weight instead.
PROBE_CONSTANT_BYTES = 256 << 20


def _output_bytes(node: Node) -> int:
    total = 0
    for out in node.outputs():
        shape = out.get_partial_shape()
        if shape.is_static:
            total += int(np.prod(shape.to_shape(), dtype=np.int64)) * out.get_element_type().to_dtype().itemsize
    return total


def _probe(model: Model) -> tuple[Model, list[Node]]:
    clone = model.clone()
    ordered = clone.get_ordered_ops()
    constant = constant_subgraph_nodes(ordered)
    left_out = {id(n) for n in constant} if sum(map(_output_bytes, constant)) > PROBE_CONSTANT_BYTES else set()
    nodes = [n for n in ordered if n.type_name not in _SKIP and id(n) not in left_out]
    results = [opset.result(o) for n in nodes for o in n.outputs()]
    return Model(results, clone.get_sinks(), clone.get_parameters(), f"{model.friendly_name}_probe"), nodes


def first_divergence(core: Any, device: str, model: Model, steps: Sequence[dict[str, np.ndarray]],
                     step: int) -> Divergence | None:
    """The op that breaks at ``step`` (None when every op's output agrees there)."""
    probe, nodes = _probe(model)
    runs = list(steps[: step + 1])
    got = R.run_on_device(core, device, probe, runs)[step]
    want = R.run_reference(probe, runs)[step]
    bad: dict[tuple[str, int], str] = {}
    first: Divergence | None = None
    i = 0
    for node in nodes:
        for out in node.outputs():
            et = out.get_element_type()
            tol = R.model_tolerance(device, et)
            c = compare(got[i], want[i], tol, et)
            if not c.passed:
                bad[(node.friendly_name, out.index)] = c.message
            i += 1
        messages = [bad[(node.friendly_name, k)] for k in range(node.get_output_size())
                    if (node.friendly_name, k) in bad]
        if not messages:
            continue
        agree = not any((s.node.friendly_name, s.index) in bad for s in node.input_values())
        found = Divergence(node.type_name, node.friendly_name, step, messages[0], agree)
        if agree:
            return found
        first = first or found
    return first
