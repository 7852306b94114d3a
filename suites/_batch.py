"""The stimulus cases of one op version, compiled together: one ``query_model`` and one
``compile_model`` of a model holding each case's graph side by side, for their Inference tests.

At standard depth a stimulus case runs Inference alone: it checks the numbers, not compiling (the
generated cases' Implemented test compiles each of them alone). On a real device each query and
compile of even a one-op model costs milliseconds (OpenVINO CPU about 14 ms each), and 2,979
stimulus cases made up 116 of the 268 test-seconds of an ``openvino:CPU`` run. Compiled together,
an op version's cases cost OpenVINO CPU about an eighth of that (measured on ten op versions,
7 to 21 cases each: 3.87 s one by one, 0.48 s together).

A case's Inference test passes from the batch only when everything there agrees: the batch's
``query_model`` names each of the case's ops, and its outputs match REFERENCE within tolerance.
Anything else (the batch's query, compile or inference raises, the case's op is not named, or a
number is off) sends the test down the one-case path, its own query and compile, so every verdict
other than a pass, and its message, facts and repro, are what the case alone gives. A device that
computes a case right among others but wrong on its own is the one thing a batch cannot see.

What is batched: the Inference tests of stimulus cases at standard depth (at exhaustive depth each
has an Implemented test, which compiles it alone) that are one inference without state, each of at
most :data:`MAX_CASE_BYTES` of inputs, in batches of at most :data:`MAX_BATCH_BYTES`, taken from the
cases this session selected, in their order. Each case's graph is a clone, its node and tensor names
prefixed with ``c<i>.``, so the names in the batch are unique.

A device that crashes its process on a batch: the test that ran the batch is recorded crashed (its
own case may be innocent; the crash record cannot say which case of the batch did it). While a batch
runs, a marker file names it in a folder the run's processes share; a process that finds a batch's
marker (its process died running it) runs that batch's cases alone, so each is judged alone and the
crash is not repeated on every case of the op version.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ovconform.ir import Model
from ovconform.opcases import OpCase
from ovconform.suites import _op_runner as R
from ovconform.suites._reuse import Kept

__all__ = ["MAX_BATCH_BYTES", "MAX_CASE_BYTES", "Batch", "BatchMemo", "batchable", "merge"]

#: A case with more input bytes than this runs alone (large-shape stimulus cases).
MAX_CASE_BYTES = 1 << 20
#: The input bytes of one batch at most.
MAX_BATCH_BYTES = 8 << 20


def _input_bytes(case: OpCase) -> int:
    return sum(np.asarray(v).nbytes for v in case.inputs.values())


def batchable(case: OpCase) -> bool:
    """One inference without state, and small enough (:data:`MAX_CASE_BYTES`)."""
    return (len(R.case_steps(case)) == 1 and not case.model.get_sinks() and not case.model.get_variables()
            and _input_bytes(case) <= MAX_CASE_BYTES)


def _prefixed(model: Model, prefix: str) -> Model:
    clone = model.clone()
    for node in clone.get_ordered_ops():
        node.set_friendly_name(prefix + node.friendly_name)
        for output in node.outputs():
            names = output.get_names()
            if names:
                output.set_names({prefix + n for n in names})
    return clone


@dataclass(frozen=True)
class Merged:
    """The batch model and where each case sits in it."""

    model: Model
    prefixes: dict[str, str]  # case label -> the prefix of its names
    results: dict[str, tuple[int, int]]  # case label -> its results' [start, stop) in the batch model
    inputs: dict[str, np.ndarray]  # the batch's input by (prefixed) parameter name


def merge(cases: Sequence[tuple[str, OpCase]]) -> Merged:
    """One model holding a clone of each case's graph (names prefixed ``c<i>.``)."""
    results: list[Any] = []
    params: list[Any] = []
    prefixes, spans, inputs = {}, {}, {}
    for i, (label, case) in enumerate(cases):
        prefix = f"c{i}."
        clone = _prefixed(case.model, prefix)
        spans[label] = (len(results), len(results) + len(clone.get_results()))
        results += clone.get_results()
        params += clone.get_parameters()
        prefixes[label] = prefix
        inputs.update({prefix + name: value for name, value in case.inputs.items()})
    return Merged(Model(results, params, "ovconform_stimulus_batch"), prefixes, spans, inputs)


@dataclass
class Batch:
    """One batch's query answer and first run on the device (each kept with its error)."""

    labels: list[str]
    merged: Merged | None = None
    answer: Kept = field(default_factory=lambda: Kept(None, RuntimeError("not asked")))
    outputs: Kept = field(default_factory=lambda: Kept(None, RuntimeError("not run")))
    precision: Any = None
    ran: bool = False  # run() was called (whatever it gave)

    def run(self, core: Any, device: str, cases: Mapping[str, OpCase]) -> None:
        """Merge, query, compile and infer once; each step's error is kept (the cases then run alone)."""
        merged = Kept.of(lambda: merge([(label, cases[label]) for label in self.labels]))
        if merged.error is not None:
            self.answer = merged
            return
        self.merged = merged.value
        model = self.merged.model
        self.answer = Kept.of(lambda: R.declared_nodes(core, device, model))
        if self.answer.error is not None:
            return
        compiled = Kept.of(lambda: core.compile_model(model, device))
        if compiled.error is not None:
            self.outputs = compiled
            return
        self.precision = R.execution_precision(compiled.value)
        inputs = self.merged.inputs
        self.outputs = Kept.of(lambda: R.run_on_device(core, device, model, [inputs], compiled.value))

    def declared(self, label: str, case: OpCase) -> bool:
        """The batch's query names every op of ``case`` under test (False when it raised)."""
        if self.answer.error is not None or self.merged is None:
            return False
        prefix = self.merged.prefixes[label]
        answer = self.answer.value
        return all(prefix + n.friendly_name in answer for n in R.ops_under_test(case.model, case.op_type))

    def outputs_of(self, label: str) -> list[list[np.ndarray]] | None:
        """``case``'s outputs (its one step) from the batch's inference; None when it raised."""
        if self.outputs.error is not None or self.merged is None:
            return None
        start, stop = self.merged.results[label]
        return [list(self.outputs.value[0][start:stop])]


def plan(cases: Sequence[tuple[str, OpCase]]) -> list[list[str]]:
    """The batches of ``cases`` (labels, in order): batchable ones together up to
    :data:`MAX_BATCH_BYTES`; a batch of one is left out (it gains nothing)."""
    batches: list[list[str]] = []
    current: list[str] = []
    size = 0
    for label, case in cases:
        if not batchable(case):
            continue
        nbytes = _input_bytes(case)
        if current and size + nbytes > MAX_BATCH_BYTES:
            batches.append(current)
            current, size = [], 0
        current.append(label)
        size += nbytes
    if current:
        batches.append(current)
    return [b for b in batches if len(b) > 1]


class BatchMemo:
    """The batches of the op versions the worker is on (the last ``size`` of them). ``markers``: the
    folder the run's processes share for the markers of running batches (None: no crash guard)."""

    def __init__(self, size: int = 1, markers: Path | None = None) -> None:
        self._size, self._markers = size, markers
        self._runs: OrderedDict[tuple[Any, ...], tuple[dict[str, Batch], dict[str, OpCase]]] = OrderedDict()
        self._left: set[tuple[Any, ...]] = set()  # op versions planned and let go: their cases run alone

    def batch_of(self, key: tuple[Any, ...], label: str, cases: Callable[[], list[tuple[str, OpCase]]],
                 run: Callable[[Batch, dict[str, OpCase]], None]) -> Batch | None:
        """The batch ``label`` is in for ``key`` (device, op, version, n), planned from ``cases()``
        and run by ``run`` when first asked; None when the case runs alone."""
        kept = self._runs.get(key)
        if kept is None:
            if key in self._left:  # its tests came back out of order (a shuffled run): never run a batch twice
                return None
            chosen = cases()
            batches: dict[str, Batch] = {}
            for labels in plan(chosen):
                batch = Batch(labels)
                batches.update(dict.fromkeys(labels, batch))
            kept = self._runs[key] = (batches, dict(chosen))
            while len(self._runs) > self._size:
                self._left.add(self._runs.popitem(last=False)[0])
        self._runs.move_to_end(key)
        batches, by_label = kept
        found = batches.get(label)
        if found is not None and not found.ran:
            found.ran = True
            marker = self._marker(key, found.labels)
            if marker is not None and marker.exists():  # a process died running it: its cases go alone
                for member in found.labels:
                    batches.pop(member, None)
                return None
            if marker is not None:
                marker.write_text("\n".join(found.labels))
            try:
                run(found, by_label)
            finally:
                if marker is not None:
                    marker.unlink(missing_ok=True)
        return found

    def _marker(self, key: tuple[Any, ...], labels: list[str]) -> Path | None:
        if self._markers is None:
            return None
        digest = hashlib.sha256(repr((key, labels)).encode()).hexdigest()[:24]
        return self._markers / f"batch-{digest}"

    def clear(self) -> None:
        self._runs.clear()
        self._left.clear()
