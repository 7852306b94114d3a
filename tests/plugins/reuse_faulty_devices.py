"""Deliberately broken variants of REFERENCE whose compiled models change between uses: the
faults the op suite's reuse (``suites/_reuse.py``: one query answer and one first run per case and
worker) must not hide from the run as a whole.

* ``RunsLeakIntoCompiled`` — every inference adds to its float outputs the number of inferences
  run before it on the same compiled model (a buffer the compiled model owns and never clears).
  The first run of a fresh compiled model is right, so the op suite's Inference passes, with or
  without reuse; the API suite's repeated runs catch it.
* ``RecompileReturnsUsed`` — the same leak, and compile_model hands back the compiled model it
  made before for the same IR and config (a driver-wide cache of compiled models). Before the
  reuse the op suite's Inference caught it (its own compile got Implemented's used model); with the
  reuse the op suite compiles each case once per worker, and ``test_can_create_two_compiled_models``
  (two compiles of one model, both inferred) catches it.

``tests/suites/test_reuse_faults.py`` runs the op suite (one op) and the compile/inference API
modules against both and checks exactly the intended tests fail.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import ovconform
from ovconform.api import SyncInferRequest
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

_LOCK = threading.Lock()


class _LeakyRequest(ReferenceSyncInferRequest):
    """Adds the compiled model's count of earlier runs to every float output."""

    def _postprocess(self) -> None:
        owner = self._compiled_model
        with _LOCK:
            earlier = owner.__dict__.get("_runs_so_far", 0)
            owner.__dict__["_runs_so_far"] = earlier + 1
        self._offset = earlier
        super()._postprocess()

    def store_output(self, index: int, array: np.ndarray) -> None:
        arr = np.asarray(array)
        if arr.dtype.kind == "f" and self._offset:
            arr = (arr + arr.dtype.type(self._offset)).astype(arr.dtype)
        super().store_output(index, arr)


class _LeakyCompiled(ReferenceCompiledModel):
    def create_sync_infer_request(self) -> SyncInferRequest:
        return _LeakyRequest(self)


class RunsLeakIntoCompiled(ReferencePlugin):
    device_name = "RUNSLEAK"

    def _recast(self, compiled: Any) -> Any:
        compiled.__class__ = _LeakyCompiled
        return compiled

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        return self._recast(super()._compile_model(model, config, context))

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        return self._recast(super()._import_model(blob, config, context))


class RecompileReturnsUsed(RunsLeakIntoCompiled):
    device_name = "RECOMPILEUSED"

    #: {(IR, config): compiled model} for the whole process, as a driver's cache would be.
    _kept: ClassVar[dict[tuple[bytes, bytes, str], Any]] = {}

    def compile_model(self, model: Any, properties: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        xml, weights = ovconform.serialize(model)
        key = (xml, weights, repr(sorted((str(k), repr(v)) for k, v in (properties or {}).items())))
        with _LOCK:
            kept = self._kept.get(key)
        if kept is None:
            kept = super().compile_model(model, properties, context)
            with _LOCK:
                kept = self._kept.setdefault(key, kept)
        return kept


FAULTS = {
    "RunsLeakIntoCompiled": "each inference adds the count of earlier runs on its compiled model",
    "RecompileReturnsUsed": "compile_model of the same IR returns the earlier, already used compiled model",
}
