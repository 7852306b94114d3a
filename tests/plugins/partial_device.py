"""PARTIAL: a device that supports only elementwise ops (for HETERO).

It computes with the REFERENCE kernels, but declares (``query_model``) and compiles only the
elementwise ops listed in :data:`ELEMENTWISE` — arithmetic, comparison and logical binaries, unary
math, Relu, Gelu, Clamp, Select — plus the housekeeping Parameter, Constant and Result. Compiling
anything else raises UnsupportedOpError, so on ``HETERO:PARTIAL,REFERENCE`` every elementwise op
runs here and the rest on REFERENCE.

Use: ``pytest --plugin=HETERO:tests/plugins/partial_device.py,reference``.
"""

from __future__ import annotations

from typing import Any

import ovconform
from ovconform import properties as P
from ovconform.errors import UnsupportedOpError
from ovconform.ir import Model, Node
from reference_plugin.plugin import ReferencePlugin

ELEMENTWISE = frozenset({
    "Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum", "SquaredDifference", "FloorMod", "Mod",
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor",
    "LogicalNot", "Abs", "Negative", "Exp", "Log", "Sqrt", "Sigmoid", "Tanh", "Erf", "Relu", "Gelu", "Clamp", "Select",
})
SUPPORTED = ELEMENTWISE | {"Parameter", "Constant", "Result"}


class PartialPlugin(ReferencePlugin):
    """REFERENCE kernels, elementwise ops only."""

    device_name = "PARTIAL"
    full_device_name = "ovconform test device: elementwise ops only"
    device_architecture = "PARTIAL"
    capabilities = (P.Capability.FP32,)

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        return node.type_name in SUPPORTED and super()._is_node_supported(node, config)

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        bad = sorted({f"{n.type_name}-{n.version}" for n in model.get_ordered_ops() if n.type_name not in SUPPORTED})
        if bad:
            raise UnsupportedOpError(f"device {self.device_name!r} supports elementwise ops only; "
                                     f"model {model.friendly_name!r} has {bad}.")
        return super()._compile_model(model, config, context)


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    registry.add(PartialPlugin)
