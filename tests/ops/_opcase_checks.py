"""Shared by the op-family tests (``tests/ops/test_<family>.py``): what every drawn op case must
satisfy before its family's own checks, how an op version is spelled in IR, and the hypothesis
settings of the case tests."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, settings

from ovconform.ir import Node, as_type, get_opdef
from ovconform.opcases import OpCase
from reference_plugin.evaluate import evaluate

#: The family case tests: 15 cases per op version from a fixed seed.
CASE_SETTINGS = settings(max_examples=15, deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(HealthCheck))


def op_node(case: OpCase) -> Node:
    """The one node of the case that is not a Parameter, Constant or Result."""
    (node,) = [n for n in case.model.get_ordered_ops() if n.type_name not in {"Parameter", "Constant", "Result"}]
    return node


def check_case_runs(case: OpCase, op: str, version: int) -> tuple[Node, list[np.ndarray]]:
    """The case tests ``op``-``version``, its inputs match its Parameters (names, element types,
    shapes), and REFERENCE evaluates it into outputs that fit the node's output shapes.

    :return: the node under test and the outputs.
    """
    node = op_node(case)
    assert (case.op_type, case.version, node.type_name, node.version) == (op, version, op, version)
    params = case.model.get_parameters()
    assert sorted(p.friendly_name for p in params) == sorted(case.inputs)
    for p in params:
        value = case.inputs[p.friendly_name]
        assert as_type(value.dtype) == p.get_output_element_type(0)
        assert tuple(value.shape) == p.get_output_partial_shape(0).to_shape()
    outs = evaluate(case.model, case.inputs)
    for i, got in enumerate(outs):
        assert node.output(i).get_partial_shape().fits(got.shape), f"output {i}: {got.shape} vs {node.output(i)}"
    return node, outs


def check_ir_spelling(op: str, version: int, attrs: list[str], ir_name: str | None = None) -> None:
    """``op``-``version`` is written as OpenVINO writes it: IR type name ``ir_name`` (default ``op``) and
    exactly ``attrs``, in that order."""
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == (ir_name or op)
    assert [a.name for a in d.attrs] == attrs


def versions_of(built: list[Node]) -> list[tuple[str, int]]:
    """(type name, version) of each built node."""
    return [(n.type_name, n.version) for n in built]
