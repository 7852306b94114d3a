"""REFERENCE variants with one realistic control-flow bug each (If-8, Loop-5, TensorIterator-1), for
``tests/ops/test_infrastructure_control_flow.py`` (``--plugin=control_flow_faults:<Class>`` with ``tests/plugins``
on ``PYTHONPATH``).

As in ``added_op_faults.py``, each fault rewrites the device's private copy of the model in its
compile step, never the shared REFERENCE kernels (the oracle runs in the same process).
query_model is REFERENCE's: the devices claim the ops they get wrong.
"""

from __future__ import annotations

import numpy as np

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

from ovconform import opset
from ovconform.ir import Node


class IfTakesElseOnTrue(PatchedReference):
    """If-8 runs the else body whatever the condition says (a branch selection that ignores cond)."""

    device_name = "CFF_IF_ELSE"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "If":
            return
        bodies = node.attrs["bodies"]
        node.attrs["bodies"] = [bodies[1], bodies[1]]
        node.attrs["input_descriptions"] = [node.attrs["input_descriptions"][1]] * 2
        node.attrs["output_descriptions"] = [node.attrs["output_descriptions"][1]] * 2


class LoopDropsLastIteration(PatchedReference):
    """Loop-5 runs one iteration fewer than its trip count allows (an off-by-one in the loop bound):
    a positive trip count ``n`` becomes ``n - 1`` (at least 1)."""

    device_name = "CFF_LOOP_SHORT"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Loop":
            return
        trip = node.input_value(0)
        et = trip.get_element_type()
        one = opset.constant(np.array(1, et.to_dtype()), et)
        shorter = opset.subtract(trip, one)
        # keep a negative (unlimited) trip count, and never go below one iteration
        fixed = opset.select(opset.less(trip, opset.constant(np.array(1, et.to_dtype()), et)), trip,
                             opset.maximum(shorter, one))
        node.set_argument(0, fixed.output(0))
        node.validate_and_infer_types()


class TensorIteratorIgnoresBackEdge(PatchedReference):
    """TensorIterator-1 feeds every iteration the initial state instead of the one the back edge carries
    (the merged input treated as invariant)."""

    device_name = "CFF_TI_NOEDGE"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "TensorIterator":
            return
        from ovconform.ir import InvariantInputDescription, MergedInputDescription

        descs = node.attrs["input_descriptions"][0]
        node.attrs["input_descriptions"] = [[InvariantInputDescription(d.input_index, d.body_parameter_index)
                                             if isinstance(d, MergedInputDescription) else d for d in descs]]


#: fault class name -> the op it breaks
FAULTS = {"IfTakesElseOnTrue": "If-8", "LoopDropsLastIteration": "Loop-5",
          "TensorIteratorIgnoresBackEdge": "TensorIterator-1"}

