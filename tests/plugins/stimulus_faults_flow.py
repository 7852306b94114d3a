"""REFERENCE variants with one realistic bug each in a control-flow port map or run-time condition, or
in dynamic shapes, that the op suite passed at standard depth before
:mod:`ovconform.opcases._stimulus_flow` and the dynamic mode's smaller-shape-after-the-largest
inference (a round-3 red team's findings), for ``tests/ops/test_stimulus_flow.py``
(``--plugin=stimulus_faults_flow:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each fault lives in the kernels of the device's own compiled program (``kernels``, or ``_patch``: a
kernel swapped in, a kernel's ``run_trusted`` wrapped, or the program's infer-request class
replaced), never in REFERENCE's shared kernels (the oracle runs in the same process); query_model
is REFERENCE's. Device names name no op type (test selections match device names and op names alike).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ovconform.ir._subgraph import ConcatOutputDescription, SliceInputDescription
from reference_plugin.ops._common_subgraph import gather_outputs, iteration_setup
from reference_plugin.ops.op_if import If
from reference_plugin.ops.op_loop import Loop
from reference_plugin.ops.op_tensor_iterator import TensorIterator
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference


# -- Loop ------------------------------------------------------------------------------------------

class _LoopNoExecCond(Loop):
    def _run(self, trip_count, execution_condition, *rest):
        return super()._run(trip_count, np.array(True), *rest)  # the bug: the initial condition is ignored


class LoopIgnoresExecutionCondition(PatchedReference):
    """Loop-5 ignores its execution_condition input (assumes exporters always write `true`):
    a Loop whose initial condition is false still runs its body."""

    device_name = "FLW_NOEXEC"
    kernels = {"Loop": {5: _LoopNoExecCond}}


class _LoopZeroTripOnce(Loop):
    def _run(self, trip_count, execution_condition, *rest):
        if int(np.asarray(trip_count).reshape(-1)[0]) == 0:  # the bug: test at the bottom (do-while)
            trip_count = np.ones_like(trip_count)
        return super()._run(trip_count, execution_condition, *rest)


class LoopZeroTripRunsOnce(PatchedReference):
    """Loop-5 compiled as a do-while (trip test at the bottom): trip_count 0 runs one iteration
    instead of none (outputs should be the initial values / empty concatenations)."""

    device_name = "FLW_TRIP0"
    kernels = {"Loop": {5: _LoopZeroTripOnce}}


class _LoopNegTripNone(Loop):
    def _run(self, trip_count, execution_condition, *rest):
        if int(np.asarray(trip_count).reshape(-1)[0]) < 0:  # the bug: -1 read as "zero iterations"
            trip_count = np.zeros_like(trip_count)
        return super()._run(trip_count, execution_condition, *rest)


class LoopNegativeTripRunsNothing(PatchedReference):
    """Loop-5 clamps a negative trip count to 0 (reads -1 as "no iterations" instead of "no limit")."""

    device_name = "FLW_NEGTRIP"
    kernels = {"Loop": {5: _LoopNegTripNone}}


class _LoopSliceAxis0(Loop):
    def __init__(self, node):
        super().__init__(node)
        self.in_descs = [dataclasses.replace(d, axis=0) if isinstance(d, SliceInputDescription) else d
                         for d in self.in_descs]


class LoopSlicesAxis0Only(PatchedReference):
    """Loop-5 slices its sliced inputs along axis 0 whatever the port map says (time-major
    assumption); a batch-first sequence sliced along axis 1 is cut wrongly."""

    device_name = "FLW_AXIS0"
    kernels = {"Loop": {5: _LoopSliceAxis0}}


class _LoopInPlaceBackEdges(Loop):
    """Back edges copied one after another into the body Parameters' buffers: a body Result that is a
    body Parameter (pass-through, e.g. a swap a<-b, b<-a) reads the buffer already overwritten."""

    def __init__(self, node):
        super().__init__(node)
        params = self.body.get_parameters()
        self.result_param = {}
        for k, r in enumerate(self.body.get_results()):
            src = r.input_value(0).node
            if src.type_name == "Parameter":
                self.result_param[k] = next(i for i, p in enumerate(params) if p is src)

    def _run(self, trip_count, execution_condition, *rest):
        trip = int(self._scalar(trip_count, "trip_count"))
        go = bool(self._scalar(execution_condition, "execution_condition"))
        feed, sliced, initial, concats = iteration_setup(self.body, self.in_descs, self.edges, self.out_descs,
                                                         [trip_count, execution_condition, *rest], None)
        last = None
        i = 0
        while go and (trip < 0 or i < trip):
            for p, parts in sliced.items():
                feed[p] = parts[i]
            if self.cur >= 0:
                feed[self.cur] = np.full(self.cur_shape, i, dtype=self.cur_dtype)
            last = self.runner.run(feed)
            for d in self.out_descs:
                if d.output_index in concats:
                    concats[d.output_index].append(last[d.body_value_index])
            go = bool(self._scalar(last[self.cond_idx], "the body condition"))
            for e in self.edges:  # the bug: in place, in order
                q = self.result_param.get(e.body_value_index)
                feed[e.body_parameter_index] = feed[q] if q is not None else last[e.body_value_index]
            i += 1
        return gather_outputs(len(self.out_dtypes), self.out_descs, last, concats, initial, self.body,
                              self.out_dtypes)


class LoopBackEdgesInPlace(PatchedReference):
    """Loop-5 updates back edges in place, one after another: a pass-through back edge (a swap of two
    carried values, or a value carried unchanged next to one that changes) reads an overwritten buffer."""

    device_name = "FLW_INPLACE"
    kernels = {"Loop": {5: _LoopInPlaceBackEdges}}


# -- If --------------------------------------------------------------------------------------------

class _IfPositionalInputs(If):
    def _run(self, cond, *inputs):
        b = self.branch(cond)
        n = len(self.bodies[b].get_parameters())
        results = self.runners[b].run(list(inputs[:n]))  # the bug: node input k+1 -> body Parameter k
        outs = [np.empty(0)] * len(self.out_dtypes)
        for d in self.out_descs[b]:
            outs[d.output_index] = results[d.body_value_index]
        return tuple(outs)


class IfPositionalInputs(PatchedReference):
    """If-8 binds node input k+1 to body Parameter k (ignores the input port map): wrong when a body
    declares its Parameters in another order or skips an input another body reads."""

    device_name = "FLW_POSIN"
    kernels = {"If": {8: _IfPositionalInputs}}


class _IfPositionalOutputs(If):
    def _run(self, cond, *inputs):
        b = self.branch(cond)
        values = [cond, *inputs]
        feed = [None] * len(self.bodies[b].get_parameters())
        for d in self.in_descs[b]:
            feed[d.body_parameter_index] = values[d.input_index]
        results = self.runners[b].run(feed)
        return tuple(results[: len(self.out_dtypes)])  # the bug: body Result k -> output k


class IfPositionalOutputs(PatchedReference):
    """If-8 returns body Result k as output k (ignores the output port map): wrong when a body lists
    its Results in another order than the node's outputs."""

    device_name = "FLW_POSOUT"
    kernels = {"If": {8: _IfPositionalOutputs}}


# -- TensorIterator --------------------------------------------------------------------------------

class _TIWholeAxis(TensorIterator):
    def __init__(self, node):
        super().__init__(node)
        fix = []
        for d in self.in_descs:
            if isinstance(d, SliceInputDescription):  # the bug: start/end taken as the whole axis
                d = dataclasses.replace(d, start=0 if d.stride > 0 else -1, end=-1 if d.stride > 0 else 0)
            fix.append(d)
        self.in_descs = fix


class TensorIteratorIgnoresStartEnd(PatchedReference):
    """TensorIterator-1 walks the whole axis of a sliced input (start/end taken as 0/-1, or -1/0 going
    backwards): a TI over a sub-range of the sequence runs the wrong iterations."""

    device_name = "FLW_SUBSPAN"
    kernels = {"TensorIterator": {1: _TIWholeAxis}}


# -- nested control flow ---------------------------------------------------------------------------

class _FrozenIf(If):
    first: int | None = None

    def branch(self, cond):
        if self.first is None:
            self.first = super().branch(cond)
        return self.first


class _LoopFreezesInnerIf(Loop):
    """The body's If kernels take the branch of the body's first run (the body specialised once)."""

    def __init__(self, node):
        super().__init__(node)
        for step in self.runner._steps:
            if step.node.type_name == "If":
                step.kernel = _FrozenIf(step.node)

    def _run(self, *args):
        for step in self.runner._steps:
            if step.node.type_name == "If":
                step.kernel.first = None  # per inference, not per compiled model
        return super()._run(*args)


class LoopSpecialisesNestedIf(PatchedReference):
    """Loop-5 whose body holds an If: the device specialises the body on the first iteration's
    branch (the inner If's condition treated as loop-invariant); top-level If and Loop are right."""

    device_name = "FLW_NESTED"
    kernels = {"Loop": {5: _LoopFreezesInnerIf}}


class _LoopIterParam0(Loop):
    def __init__(self, node):
        super().__init__(node)
        if self.cur > 0:  # the bug: ONNX layout assumed, the iteration number goes to body Parameter 0
            inner, cur = self.runner, self.cur

            class _Swapped:
                def run(self, feed):
                    feed = list(feed)
                    dtype = np.asarray(feed[0]).dtype
                    feed[0] = np.asarray(feed[cur]).astype(dtype).reshape(np.shape(feed[0])) \
                        if np.size(feed[0]) == 1 else np.full(np.shape(feed[0]), feed[cur].reshape(-1)[0], dtype)
                    feed[cur] = np.zeros_like(feed[cur])
                    return inner.run(feed)

            self.runner = _Swapped()


class LoopIterationIsParameter0(PatchedReference):
    """Loop-5 feeds the iteration number to body Parameter 0 (the ONNX Loop layout) instead of the
    Parameter special_body_ports.current_iteration_input_idx names."""

    device_name = "FLW_ITER0"
    kernels = {"Loop": {5: _LoopIterParam0}}


class _TIFirstSliceGeometry(TensorIterator):
    def __init__(self, node):
        super().__init__(node)
        first = next((d for d in self.in_descs if isinstance(d, SliceInputDescription)), None)
        if first is not None:  # the bug: one sequence axis/direction for the whole TI (from its first slice)
            self.in_descs = [dataclasses.replace(d, axis=first.axis, start=first.start, stride=first.stride,
                                                 end=first.end)
                             if isinstance(d, SliceInputDescription) else d for d in self.in_descs]


class TensorIteratorFirstSliceGeometry(PatchedReference):
    """TensorIterator-1 takes the sequence axis and direction of its first sliced input for every
    sliced input (an RNN-style kernel with one time axis): a bidirectional body reading the sequence
    forwards and backwards, or two sequences on different axes, goes wrong."""

    device_name = "FLW_ONEAXIS"
    kernels = {"TensorIterator": {1: _TIFirstSliceGeometry}}


class _NeverShrinks(ReferenceSyncInferRequest):
    """Output buffers grow but never shrink: a smaller later shape is written into the front of the
    buffer of the largest shape seen, and the tensor keeps that larger shape (stale data past it)."""

    def _postprocess(self) -> None:
        big = self.__dict__.setdefault("_big", {})
        arrays = []
        for i, a in enumerate(self._output_arrays):
            a = np.asarray(a)
            old = big.get(i)
            if old is not None and old.ndim == a.ndim and old.dtype == a.dtype and all(
                    o >= n for o, n in zip(old.shape, a.shape, strict=True)) and old.shape != a.shape:
                buf = old.copy()
                buf[tuple(slice(0, n) for n in a.shape)] = a
                a = buf
            big[i] = a
            arrays.append(a)
        self._output_arrays = arrays
        super()._postprocess()


class DynamicOutputsNeverShrink(PatchedReference):
    """Dynamic outputs grow but never shrink on one request: after a larger inference, a smaller one
    comes back with the larger shape (the new values in front, the old ones past them)."""

    device_name = "FLW_NOSHRINK"

    def _patch(self, compiled):
        super()._patch(compiled)
        compiled.sync_request_class = _NeverShrinks


BINARY = {"Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power", "SquaredDifference",
          "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"}


def _no_dynamic_broadcast(kernel, dyn_axes):
    """run_trusted that, on a right-aligned axis dynamic in both operands, reads an operand of runtime
    size 1 as if it had the other's size (the elements past the first are zero memory)."""
    inner = kernel.run_trusted

    def run_trusted(inputs, ctx):
        a, b = (np.asarray(x) for x in inputs[:2])
        for k in dyn_axes:  # k counts from the end (-1 = last)
            if a.ndim >= -k and b.ndim >= -k and a.shape[k] != b.shape[k] and 1 in (a.shape[k], b.shape[k]):
                small, big = (a, b) if a.shape[k] == 1 else (b, a)
                pad = [(0, 0)] * small.ndim
                pad[small.ndim + k] = (0, big.shape[k] - 1)
                grown = np.pad(small, pad)
                a, b = (grown, b) if small is a else (a, grown)
        return inner([a, b, *inputs[2:]], ctx)

    return run_trusted


class DynamicBroadcastAssumesEqualDims(PatchedReference):
    """Binary elementwise ops: a dimension dynamic in BOTH operands is planned at compile time as
    "equal at run time" (no broadcast); when one operand turns out to be 1 there, the device reads
    past its single element (zeros) instead of broadcasting it. Static-1 broadcasts are right."""

    device_name = "FLW_BCAST"

    def _patch(self, compiled):
        from ovconform import properties as P
        from reference_plugin.compiled_model import Program

        program = compiled._program
        compiled._program = program = Program(program.model, compiled.config.get(P.INFERENCE_PRECISION_HINT),
                                              chains=False)
        for step in program.steps:
            node = step.node
            if node.type_name not in BINARY or node.get_input_size() < 2:
                continue
            sa, sb = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
            if not (sa.has_rank() and sb.has_rank()):
                continue
            axes = [k for k in range(-1, -min(len(sa), len(sb)) - 1, -1)
                    if sa[len(sa) + k].is_dynamic and sb[len(sb) + k].is_dynamic]
            if axes:
                step.kernel.run_trusted = _no_dynamic_broadcast(step.kernel, axes)


class _TIConcatOnSliceAxis(TensorIterator):
    def __init__(self, node):
        super().__init__(node)
        first = next((d for d in self.in_descs if isinstance(d, SliceInputDescription)), None)
        if first is not None:  # the bug: concatenated outputs stacked along the sequence (input) axis
            self.out_descs = [dataclasses.replace(d, axis=first.axis) if isinstance(d, ConcatOutputDescription)
                              else d for d in self.out_descs]


class TensorIteratorConcatOnInputAxis(PatchedReference):
    """TensorIterator-1 stacks its concatenated outputs along the sliced input's axis, not the axis
    the output port names (one "time axis" for the whole op): a batch-first input with a time-major
    output (or the reverse) comes out transposed/misshaped."""

    device_name = "FLW_CATAXIS"
    kernels = {"TensorIterator": {1: _TIConcatOnSliceAxis}}


#: class name -> the op versions it gets wrong (the dynamic-shape devices: the ops of the cases run).
FAULTS = {
    "LoopIgnoresExecutionCondition": ("Loop-5",),
    "LoopZeroTripRunsOnce": ("Loop-5",),
    "LoopNegativeTripRunsNothing": ("Loop-5",),
    "LoopSlicesAxis0Only": ("Loop-5",),
    "LoopBackEdgesInPlace": ("Loop-5",),
    "LoopIterationIsParameter0": ("Loop-5",),
    "LoopSpecialisesNestedIf": ("Loop-5",),
    "IfPositionalInputs": ("If-8",),
    "IfPositionalOutputs": ("If-8",),
    "TensorIteratorIgnoresStartEnd": ("TensorIterator-1",),
    "TensorIteratorFirstSliceGeometry": ("TensorIterator-1",),
    "TensorIteratorConcatOnInputAxis": ("TensorIterator-1",),
    "DynamicBroadcastAssumesEqualDims": ("Add-1", "Subtract-1", "Multiply-1", "Maximum-1"),
    "DynamicOutputsNeverShrink": ("Relu-1", "Add-1", "If-8", "Loop-5"),
}
