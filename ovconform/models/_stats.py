"""Op, weight and FLOP counts of a model at the shapes of one inference."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.bench.flops import node_flops
from ovconform.ir import Model, Node, PartialShape
from ovconform.ir._subgraph import all_nodes

__all__ = ["count"]

_HOUSEKEEPING = ("Parameter", "Constant", "Result")


class _Sized:
    """A node seen at concrete shapes (what :func:`node_flops` reads of a node)."""

    def __init__(self, node: Node, inputs: list[tuple[int, ...]], outputs: list[tuple[int, ...]]) -> None:
        self.node, self.type_name = node, node.type_name
        self._in, self._out = inputs, outputs

    def get_input_size(self) -> int:
        return len(self._in)

    def get_output_size(self) -> int:
        return len(self._out)

    def get_input_partial_shape(self, i: int) -> PartialShape:
        return PartialShape(list(self._in[i]))

    def get_output_partial_shape(self, i: int) -> PartialShape:
        return PartialShape(list(self._out[i]))

    def get_attributes(self) -> dict[str, Any]:
        return self.node.get_attributes()


def _shapes(model: Model, feed: Mapping[str, np.ndarray]) -> dict[tuple[str, int], tuple[int, ...]]:
    """Every output's shape in one REFERENCE run of ``model`` on ``feed``."""
    from reference_plugin.evaluate import ModelRunner  # the oracle's interpreter: only when counting

    # no clone (a clone copies every weight): the probe's Results join ``model``, which count() owns
    outputs = [o for n in model.get_ordered_ops() if n.type_name not in ("Result", "Assign") for o in n.outputs()]
    probe = Model([opset.result(o) for o in outputs], model.get_sinks(), model.get_parameters(), "shape_probe")
    values = ModelRunner(probe).run([feed[p.friendly_name] for p in probe.get_parameters()], {})
    return {(o.node.friendly_name, o.index): np.shape(v) for o, v in zip(outputs, values, strict=True)}


#: Recurrent sequence ops (no rule in :mod:`ovconform.bench.flops`): the input index of W and R.
_RECURRENT = {"LSTMSequence": (4, 5), "GRUSequence": (3, 4), "RNNSequence": (3, 4)}


def _recurrent_flops(node: Node, inputs: list[tuple[int, ...]]) -> int:
    """2 x batch x steps x directions x gates·hidden x (input + hidden): the gate MatMuls of every
    step (the elementwise gate math is left out, as for the other ops' counts)."""
    w, r = (inputs[i] for i in _RECURRENT[node.type_name])
    batch, steps = inputs[0][0], inputs[0][1]
    return 2 * batch * steps * w[0] * w[1] * (w[2] + r[2])


def _is_weight(node: Node) -> bool:
    """A floating-point Constant, or a compressed one: integer codes read by a Convert to a real type."""
    if node.type_name != "Constant":
        return False
    if node.get_output_element_type(0).is_real():
        return True
    return any(t.get_node().type_name == "Convert" and t.get_node().get_output_element_type(0).is_real()
               for t in node.output(0).get_target_inputs())


def count(model: Model, feed: Mapping[str, np.ndarray]) -> dict[str, int]:
    """``{"ops", "weights", "flops"}`` of ``model`` (FLOPs at the shapes ``feed`` gives). A model
    with dynamic shapes gets probe Results attached: pass a model built for counting. Ops and
    weights include those of control-flow bodies; FLOPs count the top-level graph only (a body's
    run count is known only when it runs)."""
    nodes = model.get_ordered_ops()
    every = all_nodes(model)  # with the bodies of If/Loop/TensorIterator: their ops and weights count too
    ops = sum(n.type_name not in _HOUSEKEEPING for n in every)
    weights = sum(int(np.prod(n.get_output_partial_shape(0).to_shape())) for n in every if _is_weight(n))
    static = all(n.get_output_partial_shape(i).is_static for n in nodes for i in range(n.get_output_size()))
    shapes = ({(n.friendly_name, i): tuple(n.get_output_partial_shape(i).to_shape())
               for n in nodes for i in range(n.get_output_size())} if static else _shapes(model, feed))
    flops = 0
    for n in nodes:
        if n.type_name in ("Result", "Assign"):
            continue
        ins = [shapes[(s.node.friendly_name, s.index)] for s in n.input_values()]
        if n.type_name in _RECURRENT:
            flops += _recurrent_flops(n, ins)
            continue
        outs = [shapes[(n.friendly_name, i)] for i in range(n.get_output_size())]
        counted = node_flops(_Sized(n, ins, outs))  # type: ignore[arg-type]
        flops += counted["flops"] if counted else 0
    return {"ops": ops, "weights": weights, "flops": flops}
