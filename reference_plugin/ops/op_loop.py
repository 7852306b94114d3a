"""Loop-5: run the body while the trip count and the condition allow.

Inputs: ``trip_count`` (i32/i64, one value; negative: no limit), ``execution_condition`` (boolean,
one value: false runs no iteration), then the values the port map feeds to the body. Iteration
``i`` (from 0) runs while ``i < trip_count`` (always, for a negative trip count) and the condition
is true; the condition before iteration 0 is ``execution_condition``, before iteration ``i + 1``
the body condition Result of iteration ``i``. On each iteration the current-iteration Parameter
(if any) holds ``i``, a sliced input's Parameter its ``i``-th element along the axis (from the end
for a negative stride), a merged input's Parameter its initial value first and then the value its
back edge carried from the iteration before; an invariant input is the same on every iteration.

Outputs: an iter value is the body Result of the last iteration (a back-edged value that no
iteration changed is its initial value); a concatenated output stacks the body Result of every
iteration along its axis.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_subgraph import (
    MAX_ITERATIONS,
    back_edges,
    body_input_shapes,
    gather_outputs,
    iteration_setup,
    runner,
)


@register_op("Loop", since=5)
class Loop(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.body = self.attr("bodies")[0]
        self.runner = runner(self.body)
        self.in_descs = self.attr("input_descriptions")[0]
        self.out_descs = self.attr("output_descriptions")[0]
        ports = self.attr("special_body_ports")
        self.cur, self.cond_idx = ports.current_iteration_input_idx, ports.body_condition_output_idx
        params = self.body.get_parameters()
        if self.cur >= 0:
            shape = params[self.cur].get_output_partial_shape(0)
            self.cur_shape: tuple[int, ...] = () if shape.has_rank() and len(shape) == 0 else (1,)
            self.cur_dtype = params[self.cur].get_output_element_type(0).to_dtype()
        self.edges = back_edges(self.in_descs)

    def _scalar(self, arr: np.ndarray, what: str) -> np.ndarray:
        if arr.size != 1:
            raise self.fail(f"{what} holds {arr.size} values; it must hold one.")
        return arr.reshape(-1)[0]

    def _run(self, trip_count: np.ndarray, execution_condition: np.ndarray,
             *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        trip = int(self._scalar(trip_count, "trip_count"))
        go = bool(self._scalar(execution_condition, "execution_condition"))
        inputs = [trip_count, execution_condition, *rest]
        feed, sliced, initial, concats = iteration_setup(self.body, self.in_descs, self.edges, self.out_descs,
                                                         inputs, None)
        last: list[np.ndarray] | None = None
        i = 0
        while go and (trip < 0 or i < trip):
            if i >= MAX_ITERATIONS:
                raise self.fail(f"the loop ran {MAX_ITERATIONS} iterations and its condition is still true "
                                f"(trip_count {trip}).")
            for p, parts in sliced.items():
                if i >= len(parts):
                    raise self.fail(f"iteration {i} needs part {i} of a sliced input, which has {len(parts)}.")
                feed[p] = parts[i]
            if self.cur >= 0:
                feed[self.cur] = np.full(self.cur_shape, i, dtype=self.cur_dtype)
            last = self.runner.run(feed)
            for d in self.out_descs:
                if d.output_index in concats:
                    concats[d.output_index].append(last[d.body_value_index])
            go = bool(self._scalar(last[self.cond_idx], "the body condition"))
            for e in self.edges:
                feed[e.body_parameter_index] = last[e.body_value_index]
            i += 1
        shapes = body_input_shapes(self.body, self.in_descs, inputs, self.cur,
                                   self.cur_shape if self.cur >= 0 else ()) if last is None else None
        return gather_outputs(len(self.out_dtypes), self.out_descs, last, concats, initial, self.body,
                              self.out_dtypes, shapes)
