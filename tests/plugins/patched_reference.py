"""The one base of the REFERENCE variants that get an op wrong: :class:`PatchedReference`.

A fault lives in the device's private copy of the model (``_rewrite`` per node, or
``_rewrite_model`` for the whole model, before REFERENCE compiles it) or in the kernels of its own
compiled program (``kernels``, or ``_patch``, after compile and import alike) — never in REFERENCE's
shared kernels, because the oracle runs in the same process. query_model is REFERENCE's: the
devices claim the ops they get wrong.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ovconform import properties as P
from ovconform.ir import Model, Node
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin


class PatchedReference(ReferencePlugin):
    """REFERENCE with a rewritten model copy and/or swapped kernels (see the module docstring)."""

    #: op type -> op version -> the kernel class that replaces REFERENCE's for nodes of that op
    kernels: ClassVar[dict[str, dict[int, type]]] = {}

    def _rewrite(self, node: Node) -> None:
        del node

    def _rewrite_model(self, model: Model) -> None:
        for node in list(model.get_ordered_ops()):
            self._rewrite(node)

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        if not self.kernels:
            return
        for step in compiled.program.steps:
            node = getattr(step, "node", None)
            kernel = None if node is None else self.kernels.get(node.type_name, {}).get(node.version)
            if kernel is not None:
                step.kernel = kernel(node)

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        self._rewrite_model(model)
        compiled = super()._compile_model(model, config, context)
        self._patch(compiled)
        return compiled

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        compiled = super()._import_model(blob, config, context)
        self._patch(compiled)
        return compiled
