"""If-8: run the then body when ``cond`` is true, else the else body.

``cond`` is a boolean scalar (or a tensor of one element). The chosen body's Parameters take the
node inputs its port map names; output ``k`` is the value of the chosen body's Result described
for ``k``. The other body does not run.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_subgraph import runner


@register_op("If", since=8)
class If(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.bodies = list(self.attr("bodies"))
        self.runners = [runner(b) for b in self.bodies]
        self.in_descs = self.attr("input_descriptions")
        self.out_descs = self.attr("output_descriptions")

    def branch(self, cond: np.ndarray) -> int:
        """0 (then) when ``cond`` is true, else 1."""
        if cond.size != 1:
            raise self.fail(f"cond holds {cond.size} values; it must hold one.")
        return 0 if bool(cond.reshape(-1)[0]) else 1

    def _run(self, cond: np.ndarray, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        b = self.branch(cond)
        values = [cond, *inputs]
        feed: list[np.ndarray | None] = [None] * len(self.bodies[b].get_parameters())
        for d in self.in_descs[b]:
            feed[d.body_parameter_index] = values[d.input_index]
        results = self.runners[b].run(feed)
        outs: list[np.ndarray] = [np.empty(0)] * len(self.out_dtypes)
        for d in self.out_descs[b]:
            outs[d.output_index] = results[d.body_value_index]
        return tuple(outs)
