"""A REFERENCE variant with a control-flow fault only a real model with a data-dependent Loop reaches,
for the model suite (``suites/test_real_models.py``; ``--plugin=model_control_faults:<Class>`` with
``tests/plugins`` on ``PYTHONPATH``): the greedy decoder of :mod:`ovconform.models.control`. The
fault lives in the device's own program (its Loop kernels), never in REFERENCE's.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops._common_subgraph import gather_outputs, iteration_setup
from reference_plugin.ops.op_loop import Loop

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference


class _LateCondition(Loop):
    """Loop-5 that decides whether iteration ``i + 1`` runs from the body condition of iteration
    ``i - 1`` (a pipelined kernel reading the condition one iteration late): a loop its body
    condition stops runs one iteration too many; counted loops are right."""

    def _run(self, trip_count: np.ndarray, execution_condition: np.ndarray,
             *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        trip = int(self._scalar(trip_count, "trip_count"))
        go = bool(self._scalar(execution_condition, "execution_condition"))
        feed, sliced, initial, concats = iteration_setup(self.body, self.in_descs, self.edges, self.out_descs,
                                                         [trip_count, execution_condition, *rest], None)
        last: list[np.ndarray] | None = None
        previous = go
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
            go, previous = previous, bool(self._scalar(last[self.cond_idx], "the body condition"))  # the bug
            for e in self.edges:
                feed[e.body_parameter_index] = last[e.body_value_index]
            i += 1
        return gather_outputs(len(self.out_dtypes), self.out_descs, last, concats, initial, self.body,
                              self.out_dtypes)


class LoopConditionOneLate(PatchedReference):
    """Loop reads its body condition one iteration late: a generation loop emits one token past the end token."""

    device_name = "MODELFAULT_LOOP_LATE_COND"
    kernels = {"Loop": {5: _LateCondition}}


#: class name -> the architectures it fails.
FAULTS = {"LoopConditionOneLate": ("greedy_decoder",)}
