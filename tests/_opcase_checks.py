"""Shared by the op-family tests: what every drawn op case must satisfy before its family's own checks."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node, as_type
from ovconform.opcases import OpCase
from reference_plugin._evaluate import evaluate


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
