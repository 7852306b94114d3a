"""Helpers the op-family tests share: one op over Parameters, evaluated on REFERENCE, and seeded
hypothesis settings.

``tests/ops`` is on ``sys.path`` while its tests run (pytest puts a test file's folder there), so
the family test files import this module as ``_op_helpers``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings

from ovconform import opset
from ovconform.ir import Model, Node, as_type
from reference_plugin.evaluate import evaluate

P = opset.parameter


def out(node: Node, i: int = 0) -> str:
    """The partial shape of output ``i`` as text (``"[2,?,1..4]"``)."""
    return str(node.output(i).get_partial_shape())


def _over_parameters(make: Callable[..., Node], arrays: Sequence[Any],
                     types: Sequence[Any] | None) -> tuple[Node, list[Node], list[np.ndarray]]:
    """``make`` over one Parameter per array (named ``in<i>``, typed by ``types`` or the array's dtype);
    a ``None`` array stays ``None`` (the op gets None there)."""
    params: list[Node] = []
    values: list[np.ndarray] = []
    args: list[Node | None] = []
    for i, a in enumerate(arrays):
        if a is None:
            args.append(None)
            continue
        v = np.asarray(a)
        p = P(list(v.shape), as_type(types[i]) if types else as_type(v.dtype), name=f"in{i}")
        params.append(p)
        values.append(v)
        args.append(p)
    return make(*args), params, values


def run_all(make: Callable[..., Node], *arrays: Any, types: Sequence[Any] | None = None) -> list[np.ndarray]:
    """One op over Parameters holding ``arrays``; every output evaluated on REFERENCE."""
    node, params, values = _over_parameters(make, arrays, types)
    return evaluate(Model(node.outputs(), params), values)


def run(make: Callable[..., Node], *arrays: Any, types: Sequence[Any] | None = None) -> np.ndarray:
    """One op over Parameters holding ``arrays``; its first output evaluated on REFERENCE."""
    node, params, values = _over_parameters(make, arrays, types)
    (result,) = evaluate(Model([node.output(0)], params), values)
    return result


def evaluate_node(node: Node, *inputs: np.ndarray) -> list[np.ndarray]:
    """Every output of ``node``, whose Parameter inputs take ``inputs`` in input order."""
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    return evaluate(Model(node.outputs(), params), list(inputs))


def seeded(max_examples: int) -> Any:
    """Hypothesis settings: ``max_examples`` examples from a fixed seed, no database, no deadline."""
    return settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
