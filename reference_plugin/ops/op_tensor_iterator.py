"""TensorIterator-1: run the body once per part of the sliced inputs.

The number of iterations is ``(|end - start| + 1) / part_size`` of the sliced inputs (``start`` and
``end`` counted from the end of the axis when negative, ``end`` inclusive); every sliced input must
give the same number. Iteration ``i`` feeds a sliced input's Parameter the ``part_size`` part at
``start + i * stride`` (for a negative stride the part that ends there); merged and invariant inputs
are as for Loop-5. An iter value is the body Result of the last iteration; a concatenated output
stacks the body Result of every iteration along its axis (in reverse iteration order when its
stride is negative).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from ovconform.ir._subgraph import ConcatOutputDescription, SliceInputDescription
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_subgraph import back_edges, gather_outputs, iteration_setup, runner, slices


@register_op("TensorIterator", since=1)
class TensorIterator(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.body = self.attr("bodies")[0]
        self.runner = runner(self.body)
        self.in_descs = self.attr("input_descriptions")[0]
        self.out_descs = self.attr("output_descriptions")[0]
        self.edges = back_edges(self.in_descs)

    def iterations(self, inputs: tuple[np.ndarray, ...]) -> int:
        """The number of iterations the sliced inputs give (or the first concatenated output, without any)."""
        counts = {len(slices(inputs[d.input_index], d, None)) for d in self.in_descs
                  if isinstance(d, SliceInputDescription)}
        if len(counts) > 1:
            raise self.fail(f"the sliced inputs give different numbers of iterations: {sorted(counts)}.")
        if counts:
            return counts.pop()
        for d in self.out_descs:
            if isinstance(d, ConcatOutputDescription):
                return abs(d.end - d.start) // d.part_size
        raise self.fail("no sliced input and no concatenated output gives the number of iterations.")

    def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        n = self.iterations(inputs)
        feed, sliced, initial, concats = iteration_setup(self.body, self.in_descs, self.edges, self.out_descs,
                                                         inputs, n)
        last: list[np.ndarray] | None = None
        for i in range(n):
            for p, parts in sliced.items():
                feed[p] = parts[i]
            last = self.runner.run(feed)
            for d in self.out_descs:
                if d.output_index in concats:
                    concats[d.output_index].append(last[d.body_value_index])
            for e in self.edges:
                feed[e.body_parameter_index] = last[e.body_value_index]
        return gather_outputs(len(self.out_dtypes), self.out_descs, last, concats, initial, self.body,
                              self.out_dtypes)
