"""A deliberately broken variant of REFERENCE whose compiled model changes when it is exported: the
fault the op suite's first run (``suites/_reuse.py``) must still catch now that it exports only
for a case with an ImportExport test.

* ``ExportBreaksCompiled`` — after ``export_model``, every later inference of that compiled model
  adds 1 to its numeric outputs (export leaves a scratch buffer behind). A compiled model that was
  never exported, or one imported from the blob, is right. The op suite's first run of a generated
  case exports before it infers, so that case's Inference (wrong numbers) and ImportExport (the
  imported model differs from the exported one) fail; a stimulus case at standard depth runs
  Inference alone, never exports, and passes — as it did before the first run was shared.

``tests/suites/test_op_first_run_export.py`` runs the op suite on one op against it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.api import SyncInferRequest
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


class _AfterExportRequest(ReferenceSyncInferRequest):
    """Adds 1 to every numeric output once its compiled model has been exported."""

    def _postprocess(self) -> None:
        self._broken = bool(self._compiled_model.__dict__.get("_exported", False))
        super()._postprocess()

    def store_output(self, index: int, array: np.ndarray) -> None:
        arr = np.asarray(array)
        if getattr(self, "_broken", False) and arr.dtype.kind in "fiu":
            arr = (arr + arr.dtype.type(1)).astype(arr.dtype)
        super().store_output(index, arr)


class _ExportBreaksCompiled(ReferenceCompiledModel):
    def create_sync_infer_request(self) -> SyncInferRequest:
        return _AfterExportRequest(self)

    def _export(self) -> bytes:
        blob = super()._export()
        self.__dict__["_exported"] = True
        return blob


class ExportBreaksCompiled(ReferencePlugin):
    device_name = "EXPORTBREAKS"

    @staticmethod
    def _recast(compiled: Any) -> Any:
        compiled.__class__ = _ExportBreaksCompiled
        return compiled

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        return self._recast(super()._compile_model(model, config, context))

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        return self._recast(super()._import_model(blob, config, context))


FAULTS = {"ExportBreaksCompiled": "inferences after export_model add 1 to every numeric output"}
