"""REFERENCE variants with one control-flow bug each that only the stimulus cases of If-8, Loop-5 and
TensorIterator-1 reach (``tests/ops/test_stimulus_control.py``; ``--plugin=stimulus_faults_control:<Class>``
with ``tests/plugins`` on ``PYTHONPATH``). Each swaps the kernel of its op in the device's own
program, never REFERENCE's (the oracle runs in the same process).

* a Loop that plans its iterations on the first inference and keeps that trip count for every later
  one (a buffer sized once): right on every static case, wrong from the second shape of a dynamic
  case whose trip count changes;
* a TensorIterator whose slice table holds 64 entries: iteration ``i`` past 64 reads part ``i % 64``
  (the generated cases walk at most 4 steps);
* an If that folds its condition on the first inference and takes that branch ever after: wrong
  only where one compiled model sees both branches.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops._common_subgraph import gather_outputs, iteration_setup
from reference_plugin.ops.op_if import If
from reference_plugin.ops.op_loop import Loop
from reference_plugin.ops.op_tensor_iterator import TensorIterator

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

#: Entries of the faulty TensorIterator's slice table.
SLICE_TABLE = 64


class _FirstTripCount(Loop):
    first: np.ndarray | None = None

    def _run(self, trip_count: np.ndarray, execution_condition: np.ndarray,
             *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.first is None:
            self.first = np.array(trip_count, copy=True)
        return super()._run(self.first, execution_condition, *rest)


class LoopKeepsFirstTripCount(PatchedReference):
    """Loop keeps the trip count of its first inference for every later one."""

    device_name = "SCF_LOOP_FIRST_TRIP"
    kernels = {"Loop": {5: _FirstTripCount}}


class _WrappingSlices(TensorIterator):
    def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        n = self.iterations(inputs)
        feed, sliced, initial, concats = iteration_setup(self.body, self.in_descs, self.edges, self.out_descs,
                                                         inputs, n)
        last: list[np.ndarray] | None = None
        for i in range(n):
            for p, parts in sliced.items():
                feed[p] = parts[i % SLICE_TABLE]  # the bug: a 64-entry slice table
            last = self.runner.run(feed)
            for d in self.out_descs:
                if d.output_index in concats:
                    concats[d.output_index].append(last[d.body_value_index])
            for e in self.edges:
                feed[e.body_parameter_index] = last[e.body_value_index]
        return gather_outputs(len(self.out_dtypes), self.out_descs, last, concats, initial, self.body,
                              self.out_dtypes)


class TensorIteratorWrapsAt64(PatchedReference):
    """TensorIterator iteration i >= 64 reads the part of iteration i % 64."""

    device_name = "SCF_TI_WRAP64"
    kernels = {"TensorIterator": {1: _WrappingSlices}}


class _FirstBranch(If):
    first: int | None = None

    def branch(self, cond: np.ndarray) -> int:
        if self.first is None:
            self.first = super().branch(cond)
        return self.first


class IfKeepsFirstBranch(PatchedReference):
    """If takes the branch of its first inference on every later one."""

    device_name = "SCF_IF_FIRST_BRANCH"
    kernels = {"If": {8: _FirstBranch}}


#: class name -> the op versions it gets wrong.
FAULTS = {
    "LoopKeepsFirstTripCount": ("Loop-5",),
    "TensorIteratorWrapsAt64": ("TensorIterator-1",),
    "IfKeepsFirstBranch": ("If-8",),
}
