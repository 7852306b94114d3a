"""REFERENCE variants with one broken op (or one wrong declaration) each, for the op and model
suites (``tests/ops/test_op_suite.py``; ``--plugin=op_faulty_devices:<Class>`` with ``tests/plugins``
on ``PYTHONPATH``).

The faults live in the device's own compile step (it gets a private copy of the model), never in
the shared REFERENCE kernels: the oracle runs in the same process and must stay right.
"""

from __future__ import annotations

from typing import Any

from ovconform import properties as P
from ovconform.errors import CompileError
from ovconform.ir import Model, Node
from reference_plugin.plugin import ReferencePlugin


class SoftmaxWrongAxis(ReferencePlugin):
    """Softmax normalises along the next axis ((axis + 1) mod rank) instead of ``axis``."""

    device_name = "OPFAULT_SOFTMAX"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for node in model.get_ordered_ops():
            if node.type_name == "Softmax":
                rank = node.get_input_partial_shape(0).rank.get_length()
                if rank >= 2:
                    node.attrs["axis"] = (node.attrs["axis"] % rank + 1) % rank
        return super()._compile_model(model, config, context)


class OverclaimsGelu(ReferencePlugin):
    """query_model claims Gelu (the REFERENCE answer), but compile_model rejects it."""

    device_name = "OPFAULT_GELU_CLAIM"

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        for node in model.get_ordered_ops():
            if node.type_name == "Gelu":
                raise CompileError(f"{self.device_name}: Gelu node {node.friendly_name!r} has no kernel")
        return super()._compile_model(model, config, context)


class UnderclaimsErf(ReferencePlugin):
    """query_model leaves Erf out, though Erf compiles and computes right (not a fault: the suites
    skip the op and record ``undeclared_but_works``)."""

    device_name = "OPFAULT_ERF_UNCLAIMED"

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        return node.type_name != "Erf" and super()._is_node_supported(node, config)


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (SoftmaxWrongAxis, OverclaimsGelu,
                                                                         UnderclaimsErf)}
