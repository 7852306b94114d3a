"""The REFERENCE compiled model (seed 000): the interpreter program, properties, export, runtime model.

:class:`Program` is the backend representation of a compiled model: one REFERENCE kernel per
node, built once (:func:`reference_plugin.fast.make_kernel`: the op's formula with its fast
routes), and a plan of where every value lives.
``Program.run`` goes in three numbered steps: 1) bind the inputs (Parameter kernels check them)
and precomputed constants, 2) execute the nodes in topological order (a chain of elementwise
nodes as one entry, block by block: :mod:`reference_plugin.fast.chains`), timing each one when
asked and checking for cancellation between entries, 3) collect the outputs and the variable
writes (committed by the request only when the whole run succeeded). Under
INFERENCE_PRECISION_HINT=f16 every f32 node output is rounded through float16 as
:func:`reference_plugin.properties.rounds_to_f16` describes.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import ovconform
from ovconform import properties as P
from ovconform.api import CompiledModel, StreamsExecutor, StreamsExecutorConfig
from ovconform.errors import CompileError, OVConformError
from ovconform.ir import Model, Node, Type
from ovconform.opset._infrastructure import VariableInfo, variable_infos
from reference_plugin import properties as RP
from reference_plugin._blob import Blob, pack
from reference_plugin._transformations import FUSED_NAMES, fused_names
from reference_plugin.async_infer_request import ReferenceAsyncInferRequest
from reference_plugin.fast import make_kernel
from reference_plugin.fast import parallel as parallel
from reference_plugin.fast.blas import threads_per_stream
from reference_plugin.fast.chains import Chain, find_chains
from reference_plugin.fast.inplace import InPlace, plan_inplace
from reference_plugin.fast.process_streams import StreamWorkers
from reference_plugin.ops import OpRun, RunContext
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

if TYPE_CHECKING:
    from ovconform.contract.tensor import RemoteContext
    from reference_plugin.plugin import ReferencePlugin

__all__ = ["Program", "ReferenceCompiledModel"]

Timing = tuple[float, float]  # (wall seconds, thread CPU seconds)
_SEQ = itertools.count(1)


class Step:
    """One node of the program: its kernel and the value slots it reads and writes."""

    __slots__ = ("fixed", "inplace", "kernel", "node", "param_index", "reads", "release", "rounding", "rounds",
                 "writes")

    def __init__(self, node: Node, kernel: OpRun, reads: list[int], writes: list[int]) -> None:
        self.node, self.kernel, self.reads, self.writes = node, kernel, reads, writes
        self.release: list[int] = []
        self.rounding: tuple[bool, ...] = ()
        self.rounds = False  # any(rounding)
        self.fixed: tuple[np.ndarray, ...] | None = None
        self.param_index: int | None = None
        self.inplace: InPlace | None = None  # see reference_plugin/fast/inplace.py


class Program:
    """A model prepared for repeated execution on the REFERENCE kernels.

    :param model: the compiled model's graph (not changed afterwards).
    :param precision: the inference precision (f32, or f16 for the rounding rule).
    :param chains: run chains of elementwise nodes block by block, and elementwise nodes in their
        input's buffer where it is safe (same values; False for tests).
    :raises OVConformError: UnsupportedOpError or CompileError when a node has no usable kernel.
    """

    def __init__(self, model: Model, precision: Type, chains: bool = True) -> None:
        self.model = model
        self.precision = precision
        self._slots: dict[tuple[int, int], int] = {}
        params = {id(p): i for i, p in enumerate(model.get_parameters())}
        self.steps = [self._plan(node, params.get(id(node))) for node in model.get_ordered_ops()]
        self.result_slots = [self._slots[(id(r), 0)] for r in model.get_results()]
        self.variables: list[VariableInfo] = variable_infos(model)
        readers = self._readers()
        self.chains = find_chains(self.steps, readers) if chains else []
        if chains:
            plan_inplace(self.steps, readers, self.chains)
        self.schedule = self._schedule()
        self._plan_releases()
        # untimed runs start from the constants' values and skip their steps (a timed run
        # executes every step, so each gets its counter)
        self._template: list[Any] = [None] * len(self._slots)
        for step in self.steps:
            if step.fixed is not None:
                for slot, value in zip(step.writes, step.fixed, strict=True):
                    self._template[slot] = value
        self._untimed = [(i, e) for i, e in self.schedule if not (isinstance(e, Step) and e.fixed is not None)]
        #: chains whose value a Result hands over unchanged: id(chain) -> the result's index (a run
        #: given that output's memory lets the chain write its blocks there)
        self._direct: dict[int, int] = {}
        results = {id(r): k for k, r in enumerate(model.get_results())}
        for step in self.steps:
            if id(step.node) in results and step.inplace is not None and isinstance(step.inplace.source, Chain):
                self._direct[id(step.inplace.source)] = results[id(step.node)]

    def _plan(self, node: Node, param_index: int | None) -> Step:
        reads = [self._slots[(id(v.node), v.index)] for v in node.input_values()]
        writes = [self._slots.setdefault((id(node), i), len(self._slots)) for i in range(node.get_output_size())]
        step = Step(node, make_kernel(node), reads, writes)
        step.param_index = param_index
        step.rounding = tuple(node.type_name != "Result" and RP.rounds_to_f16(node.get_output_element_type(i),
                                                                              self.precision)
                              for i in range(node.get_output_size()))
        step.rounds = any(step.rounding)
        if node.type_name == "Constant":
            step.fixed = self._rounded(step, step.kernel.run([]))
        return step

    def _readers(self) -> dict[tuple[int, int], int]:
        readers: dict[tuple[int, int], int] = {}
        for step in self.steps:
            for v in step.node.input_values():
                readers[(id(v.node), v.index)] = readers.get((id(v.node), v.index), 0) + 1
        return readers

    def _schedule(self) -> list[tuple[int, Step | Chain]]:
        """``(step index, entry)`` in run order: every step, except that a chain (see
        :mod:`reference_plugin.fast.chains`) replaces its members and runs where its head was."""
        head = {c.links[0].index: c for c in self.chains}
        inside = {i for c in self.chains for i in c.indices[1:]}
        return [(i, head.get(i, step)) for i, step in enumerate(self.steps) if i not in inside]

    def _plan_releases(self) -> None:
        keep, last = set(self.result_slots), {}
        for position, (_, entry) in enumerate(self.schedule):
            entry.release.clear()
            for slot in (*entry.writes, *entry.reads):
                last[slot] = position
        for slot, position in last.items():
            if slot not in keep:
                self.schedule[position][1].release.append(slot)

    def _rounded(self, step: Step, outs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return tuple(RP.round_f16(o) if r else o for o, r in zip(outs, step.rounding, strict=True))

    def run(self, inputs: Sequence[np.ndarray], state: dict[str, np.ndarray], *,
            timings: list[Timing | None] | None = None, check: Callable[[], None] | None = None,
            threads: int = 1, outputs: Sequence[np.ndarray | None] | None = None,
            ) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
        """Execute once.

        :param inputs: one array per parameter, in parameter order.
        :param state: variable values by variable_id (ReadValue falls back to its initializer,
            or zeros, for a variable not in it).
        :param timings: when given (one slot per step), each executed step's times are stored.
        :param check: called before every node (the request's cancellation check).
        :param threads: threads the large elementwise work may use (:mod:`reference_plugin.fast.parallel`).
        :param outputs: per result, memory the caller wants it in (the request's output tensors),
            or None. A chain whose value is a result writes its blocks straight there when that
            memory has the value's dtype and shape, is C-contiguous and writable, and overlaps no
            input or state array; that result is then this very array (no copy afterwards).
        :return: the result arrays and the variable writes of this run.
        """
        ctx = RunContext(state)
        timed = timings is not None
        values: list[Any] = [None] * len(self._slots) if timed else self._template.copy()
        wall = cpu = 0.0
        outs: tuple[np.ndarray, ...] | None = None
        # errstate once for the run; kernels run "trusted" (see OpRun.run_trusted). The step's
        # execution is written out here rather than called: per node it is the run's overhead
        with np.errstate(all="ignore"), parallel.using(threads):
            for index, entry in self.schedule if timed else self._untimed:
                if check is not None:
                    check()
                if isinstance(entry, Chain):
                    dest = None
                    if outputs is not None and (k := self._direct.get(id(entry))) is not None:
                        dest = self._destination(entry, k, outputs, inputs, state)
                    values[entry.writes[0]] = entry.run(values[entry.reads[0]], ctx, timings, dest)
                else:
                    if timed:
                        wall, cpu = time.perf_counter(), time.thread_time()
                    if entry.fixed is not None:  # a constant (rounded when planned)
                        outs = entry.fixed
                    else:
                        if entry.param_index is not None:
                            outs = (entry.kernel.bind(inputs[entry.param_index]),)  # type: ignore[attr-defined]
                        # (outs itself takes the in-place result: another name would keep the
                        # step's buffer alive after its release, until the next in-place step)
                        elif entry.inplace is None or (outs := entry.inplace.run(entry, values)) is None:
                            outs = entry.kernel.run_trusted([values[s] for s in entry.reads], ctx)
                        if entry.rounds:
                            outs = self._rounded(entry, outs)
                    writes = entry.writes
                    if len(writes) == 1:
                        values[writes[0]] = outs[0]
                    else:
                        for slot, value in zip(writes, outs, strict=True):
                            values[slot] = value
                    if timed:
                        timings[index] = (time.perf_counter() - wall, time.thread_time() - cpu)  # type: ignore[index]
                for slot in entry.release:
                    values[slot] = None
        return [values[s] for s in self.result_slots], ctx.updates

    @staticmethod
    def _destination(chain: Chain, k: int, outputs: Sequence[np.ndarray | None], inputs: Sequence[np.ndarray],
                     state: dict[str, np.ndarray]) -> np.ndarray | None:
        """``outputs[k]`` when ``chain`` may write its value there (see :meth:`run`), else None:
        also not when another output's memory overlaps it (the outputs are then stored in port
        order after the run, as without this path)."""
        dest = outputs[k]
        if type(dest) is not np.ndarray or dest.dtype != chain.dtype or dest.shape != chain.shape:
            return None
        if not (dest.flags.c_contiguous and dest.flags.writeable):
            return None
        others = (o for i, o in enumerate(outputs) if i != k and o is not None)
        if any(np.may_share_memory(dest, a) for a in (*inputs, *state.values(), *others)):
            return None
        return dest


class _PerfStats:
    """Average execution time per step over every profiled run of every request."""

    def __init__(self, steps: int) -> None:
        self._lock = threading.Lock()
        self._total = [0.0] * steps
        self._count = [0] * steps

    def add(self, timings: Sequence[Timing | None]) -> None:
        with self._lock:
            for i, t in enumerate(timings):
                if t is not None:
                    self._total[i] += t[0]
                    self._count[i] += 1

    def averages_us(self) -> list[float | None]:
        with self._lock:
            return [t / c * 1e6 if c else None for t, c in zip(self._total, self._count, strict=True)]


class ReferenceCompiledModel(CompiledModel):
    """A model compiled for REFERENCE: its program, a callback executor, profiling statistics.

    :param model: the transformed clone (its Parameters and Results are the ports).
    :param plugin: the plugin that compiled or imported it.
    :param config: the merged compile configuration.
    """

    sync_request_class = ReferenceSyncInferRequest
    async_request_class = ReferenceAsyncInferRequest
    rw_properties = RP.COMPILED_RW

    def __init__(self, model: Model, plugin: ReferencePlugin, config: P.PropertyStore, *,
                 context: RemoteContext | None = None, loaded_from_cache: bool = False,
                 source_model: Model | None = None) -> None:
        #: The model as compile_model got it, kept for a weightless export (see ``_blob.py``).
        self._source_model = source_model
        streams = RP.resolve_streams(config)
        #: Start the stream workers at compile time (asked for) or at the first inference (the
        #: hint's choice: a compiled model that never infers costs no process).
        self._start_workers = bool(config.get(RP.PROCESS_STREAMS))
        processes = RP.resolve_process_streams(config, streams, plugin.processes_follow_hint())
        config = config.merged({P.NUM_STREAMS: streams, RP.PROCESS_STREAMS: processes})
        callbacks = StreamsExecutor(StreamsExecutorConfig(f"{plugin.device_name}.callbacks#{next(_SEQ)}"))
        super().__init__(model, plugin, config, context=context, callback_executor=callbacks,
                         loaded_from_cache=loaded_from_cache)
        weakref.finalize(self, callbacks.shutdown, False)
        #: Threads each inference runs with, in BLAS and in large elementwise work (the cores
        #: shared by the streams; see fast/blas.py and fast/parallel.py), at most
        #: INFERENCE_NUM_THREADS when that is set (0: no limit), as OpenVINO's CPU reads it.
        limit = int(self.config.get_or(P.INFERENCE_NUM_THREADS, 0) or 0)
        per_stream = threads_per_stream(self.config.get(P.NUM_STREAMS))
        self.blas_threads = min(per_stream, limit) if limit > 0 else per_stream

    def _compile(self, model: Model) -> None:
        precision = self.config.get(P.INFERENCE_PRECISION_HINT)
        try:
            self._program = Program(model, precision)
        except OVConformError as e:
            raise CompileError(f"device {self.device_name!r} cannot compile model {model.friendly_name!r}: "
                               f"{e}") from e
        self._perf = _PerfStats(len(self._program.steps))
        self._workers: StreamWorkers | None = None
        if self.config.get(RP.PROCESS_STREAMS):
            xml, weights = ovconform.serialize(model)
            streams = self.config.get(P.NUM_STREAMS)
            self._workers = StreamWorkers(xml, weights, precision, streams, threads_per_stream(streams),
                                          start=self._start_workers)
            weakref.finalize(self, self._workers.close)
        own = {n.friendly_name for n in model.get_ordered_ops()}
        self._optimized_out = [(name, step.node) for step in self._program.steps
                               for name in fused_names(step.node) if name not in own]

    # -- what the requests use ------------------------------------------------------------------
    @property
    def program(self) -> Program:
        return self._program

    @property
    def runner(self) -> Program | StreamWorkers:
        """What runs an inference: the program, or its stream workers (REFERENCE_PROCESS_STREAMS)."""
        return self._workers or self._program

    @property
    def optimized_out(self) -> list[tuple[str, Node]]:
        """``(original name, node that absorbed it)`` for every original op fused or folded away."""
        return list(self._optimized_out)

    def impl_type(self, node: Node) -> str:
        """IMPL_TYPE / exec_type: ``"ref_<runtime precision>"``."""
        return f"ref_{self.runtime_precision(node)}"

    def runtime_precision(self, node: Node) -> str:
        types = [node.get_output_element_type(i) for i in range(node.get_output_size())]
        if not types and node.get_input_size():
            types = [node.get_input_element_type(0)]
        return str(RP.runtime_precision(types[0], self._program.precision)) if types else "undefined"

    def record_timings(self, timings: Sequence[Timing | None]) -> None:
        self._perf.add(timings)

    def create_infer_request(self) -> ReferenceAsyncInferRequest:
        """An asynchronous request whose device stage runs on the plugin's wait executor."""
        plugin: ReferencePlugin = self.plugin  # type: ignore[assignment]
        # with stream workers the stream thread only waits, so the callback runs on it at once
        callbacks = None if self._workers is not None else self.callback_executor
        return ReferenceAsyncInferRequest(self.create_sync_infer_request(), self.task_executor,
                                          plugin.wait_executor, callbacks)

    # -- properties -----------------------------------------------------------------------------
    def get_property(self, name: str) -> Any:
        if name == P.SUPPORTED_PROPERTIES:
            return {**dict.fromkeys(RP.COMPILED_RO, "RO"), **dict.fromkeys(RP.COMPILED_RW, "RW")}
        return super().get_property(name)

    # -- export and runtime model ---------------------------------------------------------------
    def _export(self) -> bytes:
        weightless = self._source_model is not None
        xml, weights = ovconform.serialize(self._source_model if self._source_model is not None else self._model)
        config = {name: P.to_string(value) for name, value in self.config.values().items()
                  if name != P.WEIGHTS_PATH}  # a path of this machine is no part of the blob
        config[P.ENABLE_WEIGHTLESS] = P.to_string(weightless)  # what was decided, so an import decides alike
        return pack(Blob(type(self.plugin).device_name, self.plugin.get_property(P.DEVICE_ARCHITECTURE),
                         xml, b"" if weightless else weights, config, f"ovconform {ovconform.__version__}",
                         weights_size=len(weights) if weightless else None))

    def get_runtime_model(self) -> Model:
        """A copy of the executed graph; each node's rt_info carries the execution info keys of
        :mod:`reference_plugin.properties` and node names are made unique."""
        runtime = self._model.clone()
        nodes = runtime.get_ordered_ops()
        enabled = self.profiling_enabled
        averages = self._perf.averages_us()
        for order, (node, avg, name) in enumerate(zip(nodes, averages, _unique_names(nodes), strict=True)):
            originals = _original_names(node)
            node.rt_info.pop(FUSED_NAMES, None)
            node.set_friendly_name(name)
            node.rt_info.update(self._exec_info(node, order, avg if enabled else None, originals))
        return runtime

    def _exec_info(self, node: Node, order: int, avg_us: float | None, originals: str) -> dict[str, str]:
        types = [node.get_output_element_type(i) for i in range(node.get_output_size())]
        return {
            RP.LAYER_TYPE: node.type_name,
            RP.EXECUTION_ORDER: str(order),
            RP.IMPL_TYPE: self.impl_type(node),
            RP.PERF_COUNTER: RP.NOT_EXECUTED if avg_us is None else f"{avg_us:.3f}",
            RP.ORIGINAL_NAMES: originals,
            RP.RUNTIME_PRECISION: self.runtime_precision(node),
            RP.OUTPUT_PRECISIONS: ",".join(str(t) for t in types),
            RP.OUTPUT_LAYOUTS: ",".join(_layout(node, i) for i in range(len(types))),
        }


def _original_names(node: Node) -> str:
    """Seed 000: the fused names, with the node's own name first when it is not among them."""
    names = fused_names(node)
    if node.friendly_name not in names:
        names.insert(0, node.friendly_name)
    return ",".join(names)


def _unique_names(nodes: Sequence[Node]) -> list[str]:
    taken = {n.friendly_name for n in nodes}
    seen: set[str] = set()
    out = []
    for node in nodes:
        name = node.friendly_name
        if name in seen:
            name = next(f"{node.friendly_name}_{k}" for k in itertools.count(1)
                        if f"{node.friendly_name}_{k}" not in taken)
            taken.add(name)
        seen.add(name)
        out.append(name)
    return out


def _layout(node: Node, index: int) -> str:
    shape = node.get_output_partial_shape(index)
    if not shape.has_rank() or shape.rank_length() > 26:
        return "?"
    return "abcdefghijklmnopqrstuvwxyz"[:shape.rank_length()]
