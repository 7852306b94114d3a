"""More deliberately broken variants of REFERENCE, for the contract features issue 21 item 8 adds:
batched ``set_tensors`` (weightless blobs and remote-context compile/import follow the same
pattern when they land).

Each class breaks exactly one behaviour a suite checks; ``tests/suites/test_api_faults_more.py``
runs the suites against each (``--plugin=api_faulty_devices_more:<Class>`` with ``tests/plugins``
on ``PYTHONPATH``) and checks that exactly the intended tests fail, as failures. The plumbing
(a REFERENCE plugin whose compiled models make requests of a given class) is that of
``api_faulty_devices.py``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import ovconform
from ovconform import properties as P
from ovconform.api import SyncInferRequest, Tensor
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


# -- plumbing (as in api_faulty_devices.py; each module of tests/plugins stands alone) -------------------
class _Compiled(ReferenceCompiledModel):
    """A REFERENCE compiled model whose requests are made of the class attributes below."""

    fault_sync: ClassVar[type[ReferenceSyncInferRequest]] = ReferenceSyncInferRequest

    def create_sync_infer_request(self) -> SyncInferRequest:
        return self.fault_sync(self)


def _compiled_with(sync: type[ReferenceSyncInferRequest]) -> type[_Compiled]:
    return type("FaultyCompiledModel", (_Compiled,), {"fault_sync": sync})


class _Faulty(ReferencePlugin):
    """ReferencePlugin whose compiled and imported models become ``fault_compiled``."""

    fault_compiled: ClassVar[type[ReferenceCompiledModel] | None] = None

    def _recast(self, compiled: Any) -> Any:
        if self.fault_compiled is not None:
            compiled.__class__ = self.fault_compiled
        return compiled

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        return self._recast(super()._compile_model(model, config, context))

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        return self._recast(super()._import_model(blob, config, context))


# -- batched set_tensors ------------------------------------------------------------------------------
class _FirstTensorOnly(ReferenceSyncInferRequest):
    def gather_batched_inputs(self) -> None:
        """Every batch item is read from the first tensor."""
        for index, (axis, items) in self._batched.items():
            target = self._tensor(True, index)._host_array()
            first = items[0]._host_array()
            target[...] = np.repeat(first, len(items), axis=axis)


class BatchReadsFirstTensor(_Faulty):
    """set_tensors keeps the batch size but reads every item from the first tensor."""

    device_name = "APIM_BATCH_FIRST"
    fault_compiled = _compiled_with(sync=_FirstTensorOnly)


class _CountUnchecked(ReferenceSyncInferRequest):
    def set_batched_input(self, index: int, tensors: Sequence[Tensor]) -> None:
        """A wrong number of tensors is cut or padded (with the last one) to the batch size."""
        items = list(tensors)
        dim = self._inputs[index].get_partial_shape()[self._batch_axis(index)] if len(items) > 1 else None
        if dim is not None and dim.is_static and len(items) != dim.get_length():
            n = dim.get_length()
            items = (items + [items[-1]] * n)[:n]
        super().set_batched_input(index, items)


class BatchCountUnchecked(_Faulty):
    """set_tensors takes a wrong number of tensors silently (cut or padded to the batch size)."""

    device_name = "APIM_BATCH_COUNT"
    fault_compiled = _compiled_with(sync=_CountUnchecked)


class _CopiedAtSet(ReferenceSyncInferRequest):
    def set_batched_input(self, index: int, tensors: Sequence[Tensor]) -> None:
        """The tensors' values are copied once, here: later writes into them are not seen."""
        items = list(tensors)
        copies = [Tensor(t._host_array().copy()) if isinstance(t, Tensor) else t for t in items]
        super().set_batched_input(index, copies)


class BatchCopiedAtSet(_Faulty):
    """set_tensors copies the tensors' values when called instead of reading them at each run."""

    device_name = "APIM_BATCH_STALE"
    fault_compiled = _compiled_with(sync=_CopiedAtSet)


# -- weightless blobs -----------------------------------------------------------------------------------
class _KeepsWeights(ReferenceCompiledModel):
    def _export(self) -> bytes:
        """A regular blob (weights inside) whatever CACHE_MODE / ENABLE_WEIGHTLESS say."""
        source, self._source_model = self._source_model, None
        try:
            return super()._export()
        finally:
            self._source_model = source


class WeightlessExportKeepsWeights(_Faulty):
    """CACHE_MODE=OPTIMIZE_SIZE (ENABLE_WEIGHTLESS) reads back but the export still holds the weights."""

    device_name = "APIM_FAT_BLOB"
    fault_compiled = _KeepsWeights


class WeightsPathIgnored(_Faulty):
    """A weightless blob imports with zeros for weights: WEIGHTS_PATH is checked, never read."""

    device_name = "APIM_ZERO_WEIGHTS"

    def _import_weightless(self, xml: bytes, size: int, config: Any, context: Any, prefix: str) -> Any:
        path = config.get(P.WEIGHTS_PATH)
        if path and Path(path).is_file() and Path(path).stat().st_size == size:
            config.set({P.WEIGHTS_PATH: str(self._zeros(size))})
        return super()._import_weightless(xml, size, config, context, prefix)

    _folder: tempfile.TemporaryDirectory[str] | None = None

    @classmethod
    def _zeros(cls, size: int) -> Path:
        if cls._folder is None:  # one folder per process, removed when the process ends (not left in /tmp)
            cls._folder = tempfile.TemporaryDirectory(prefix="apim_zero_weights_")
        path = Path(cls._folder.name) / f"zeros_{size}.bin"
        path.write_bytes(bytes(size))
        return path


# -- remote contexts ---------------------------------------------------------------------------------
class ContextIgnoredAtCompile(_Faulty):
    """compile_model(model, context) compiles as if no context was given (the model reports the
    default context)."""

    device_name = "APIM_NO_CONTEXT_KEPT"

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        return super()._compile_model(model, config, None)


class ForeignContextAccepted(_Faulty):
    """compile_model / import_model take a context of another device without a word."""

    device_name = "APIM_FOREIGN_CONTEXT"

    def _check_context(self, context: Any, what: str) -> None:
        """Checks nothing."""


#: Device class name -> the fault it carries.
FAULTS: dict[str, str] = {
    "BatchReadsFirstTensor": "set_tensors reads every batch item from the first tensor",
    "BatchCountUnchecked": "set_tensors takes a wrong number of tensors silently",
    "BatchCopiedAtSet": "set_tensors copies the values at set time; later writes are not seen",
    "WeightlessExportKeepsWeights": "a weightless export (CACHE_MODE=OPTIMIZE_SIZE) still holds the weights",
    "WeightsPathIgnored": "a weightless blob imports with zeros for weights instead of WEIGHTS_PATH's",
    "ContextIgnoredAtCompile": "compile_model(model, context) drops the context",
    "ForeignContextAccepted": "compile_model / import_model accept a context of another device",
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    """Register every device of this module (for ``--plugin=path/to/api_faulty_devices_more.py``)."""
    for name in FAULTS:
        registry.add(globals()[name])


__all__ = [*FAULTS, "FAULTS"]
