"""REFERENCE variants that treat a model of several unconnected graphs differently from a model of
one: what the op suite's stimulus batches (``suites/_batch.py``, one model holding the stimulus
cases of an op version side by side) must not turn into a verdict.

* ``RefusesDisconnected`` — compile_model refuses a model whose graph is not connected (a compiler
  that schedules one graph). Each case alone compiles, so the op suite must pass it, every batch
  falling back to its cases one by one.
* ``RunsFirstGraphOnly`` — computes only the graph of the model's first Result; the other Results
  are zeros. One case is one graph, so the op suite must pass it: a case that is not first in its
  batch gets zeros there and is judged alone.
* ``WrongWhenAlone`` — adds 1 to every numeric output of a connected model, and is right on a model
  of several graphs. The one fault a batch cannot see: a stimulus case that passes in its batch is
  not compiled alone. The op's generated cases always are (their Implemented test compiles each
  alone, and their Inference compares that run), so the device fails the op suite by them.

``tests/suites/test_batch_faults.py`` runs the op suite on two ops against the three and REFERENCE.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ovconform.api import SyncInferRequest
from ovconform.errors import CompileError
from ovconform.ir import Model
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


def graph_of_results(model: Model) -> list[int]:
    """For each Result of ``model``, the index of its connected graph (0 for the first Result's)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for node in model.get_ordered_ops():
        for i in range(node.get_input_size()):
            parent[find(id(node))] = find(id(node.input_value(i).node))
    roots: dict[int, int] = {}
    return [roots.setdefault(find(id(r)), len(roots)) for r in model.get_results()]


class _Request(ReferenceSyncInferRequest):
    def store_output(self, index: int, array: np.ndarray) -> None:
        arr = np.asarray(array)
        fault = getattr(self._compiled_model, "_graph_fault", None)
        if fault is not None and arr.dtype.kind in "fiu":
            arr = fault(index, arr)
        super().store_output(index, arr)


class _Compiled(ReferenceCompiledModel):
    def create_sync_infer_request(self) -> SyncInferRequest:
        return _Request(self)


class _GraphFaults(ReferencePlugin):
    def _fault(self, graphs: list[int]) -> Any:
        return None

    def _recast(self, compiled: Any, graphs: list[int]) -> Any:
        compiled.__class__ = _Compiled
        compiled._graph_fault = self._fault(graphs)
        return compiled

    def _compile_model(self, model: Model, config: Any, context: Any) -> Any:
        return self._recast(super()._compile_model(model, config, context), graph_of_results(model))

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        compiled = super()._import_model(blob, config, context)
        return self._recast(compiled, graph_of_results(compiled.get_runtime_model()))


class RefusesDisconnected(_GraphFaults):
    device_name = "BATCHREFUSES"

    def _compile_model(self, model: Model, config: Any, context: Any) -> Any:
        graphs = graph_of_results(model)
        if max(graphs, default=0) > 0:
            raise CompileError(f"{self.device_name}: model {model.friendly_name!r} holds {max(graphs) + 1} unconnected "
                               "graphs; this device compiles one connected graph")
        return super()._compile_model(model, config, context)


class RunsFirstGraphOnly(_GraphFaults):
    device_name = "BATCHFIRSTONLY"

    def _fault(self, graphs: list[int]) -> Any:
        def zeros_past_first(index: int, arr: np.ndarray) -> np.ndarray:
            return np.zeros_like(arr) if graphs[index] else arr
        return zeros_past_first


class WrongWhenAlone(_GraphFaults):
    device_name = "BATCHALONE"

    def _fault(self, graphs: list[int]) -> Any:
        if max(graphs, default=0) > 0:
            return None

        def plus_one(index: int, arr: np.ndarray) -> np.ndarray:
            return (arr + arr.dtype.type(1)).astype(arr.dtype)
        return plus_one


class CrashesOnSeveralGraphs(_GraphFaults):
    """Kills its process when asked to compile a model of several unconnected graphs (a native
    plugin's crash). Not in FAULTS: a run of it needs xdist (``-n``), which survives the crash."""

    device_name = "BATCHCRASH"

    def _compile_model(self, model: Model, config: Any, context: Any) -> Any:
        if max(graph_of_results(model), default=0) > 0:
            os._exit(70)
        return super()._compile_model(model, config, context)


FAULTS = {
    "RefusesDisconnected": "compile_model refuses a model of several unconnected graphs",
    "RunsFirstGraphOnly": "only the first Result's graph is computed; the others' outputs are zeros",
    "WrongWhenAlone": "every numeric output of a connected model is 1 too large",
}
