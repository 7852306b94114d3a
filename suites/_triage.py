"""Triage of a failing model: run each of its ops alone on the device and name the failing ones.

:func:`single_op_models` cuts one model per op: every non-Constant input of the op becomes a
Parameter fed with the value REFERENCE computed for it in the whole model (first step), the
Constant inputs are copied, and every output of the op is a Result. :func:`triage` runs each on
the device and on REFERENCE, compares with the op's own tolerance and returns the failing ops in
model order (the smallest failing pieces: single ops). Stateful ops (ReadValue/Assign) are left
out: alone they would lose their variable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Model, Node, make_node
from ovconform.suites import _op_runner as R
from reference_plugin.evaluate import ModelRunner

__all__ = ["OpFailure", "all_values", "single_op_model", "triage"]

SKIPPED = ("ReadValue", "Assign", *R.HOUSEKEEPING)


@dataclass(frozen=True)
class OpFailure:
    """One op that fails alone: its type, friendly name and why."""

    op_type: str
    name: str
    message: str

    def describe(self) -> str:
        return f"{self.op_type} {self.name!r} fails {self.message}"


def all_values(model: Model, inputs: Mapping[str, np.ndarray]) -> dict[tuple[str, int], np.ndarray]:
    """REFERENCE's value of every output of every op: ``(friendly name, output index) → array``."""
    clone = model.clone()
    nodes = [n for n in clone.get_ordered_ops() if n.type_name not in ("Result", "Assign")]
    outputs = [o for n in nodes for o in n.outputs()]
    probe = Model([opset.result(o) for o in outputs], clone.get_sinks(), clone.get_parameters(), "triage_probe")
    names = [p.friendly_name for p in probe.get_parameters()]
    values = ModelRunner(probe).run([inputs[n] for n in names], {})
    return {(o.node.friendly_name, o.index): np.array(v) for o, v in zip(outputs, values, strict=True)}


def single_op_model(node: Node, values: Mapping[tuple[str, int], np.ndarray]) -> tuple[Model, dict[str, np.ndarray]]:
    """The op alone, its non-Constant inputs as Parameters holding their actual values."""
    inputs, params, feed = [], [], {}
    for i, src in enumerate(node.input_values()):
        producer = src.node
        if producer.type_name == "Constant":
            inputs.append(opset.constant(producer.data, producer.get_output_element_type(0)).output(0))
            continue
        value = values[(producer.friendly_name, src.index)]
        name = f"in{i}"
        param = opset.parameter(list(value.shape), src.get_element_type(), name=name)
        params.append(param)
        feed[name] = value
        inputs.append(param.output(0))
    op = make_node(node.type_name, node.version, inputs, dict(node.attrs), node.friendly_name, node.data)
    return Model(op.outputs(), params, f"triage_{node.friendly_name}"), feed


def triage(core: Any, device: str, model: Model, inputs: Mapping[str, np.ndarray]) -> list[OpFailure]:
    """The ops of ``model`` that fail alone on ``device`` (compile, infer or numbers)."""
    values = all_values(model, inputs)
    failures = []
    for node in model.get_ordered_ops():
        if node.type_name in SKIPPED:
            continue
        failure = _check_one(core, device, node, values)
        if failure is not None:
            failures.append(failure)
    return failures


def _check_one(core: Any, device: str, node: Node, values: Mapping[tuple[str, int], np.ndarray]) -> OpFailure | None:
    try:
        sub, feed = single_op_model(node, values)
    except Exception as e:  # noqa: BLE001 - a cut that does not build is reported, not raised
        return OpFailure(node.type_name, node.friendly_name, f"(could not be cut out: {e})")
    try:
        got = R.run_on_device(core, device, sub, [feed])
    except Exception as e:  # noqa: BLE001 - any device error is the finding
        return OpFailure(node.type_name, node.friendly_name, f"to compile/infer alone: {type(e).__name__}: {e}")
    want = R.run_reference(sub, [feed])
    tols = [R.tolerance_for(device, node, o.get_element_type()) for o in node.outputs()]
    bad = [(label, c) for label, c in R.compare_outputs(sub, got, want, tols, [feed]) if not c.passed]
    if not bad:
        return None
    label, c = bad[0]
    return OpFailure(node.type_name, node.friendly_name, f"alone: {label}: {c.message}")
