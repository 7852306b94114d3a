"""CTCGreedyDecoder-1: ``data`` [T, N, C], ``seq_indicators`` [T, N] (a sequence ends before its
first 0). For each batch the class with the largest score at each step (the first on ties) is
kept unless it is the blank class C - 1 or, with ``ctc_merge_repeated``, equal to the previous
step's class (a blank between two equal classes separates them). Output [N, T, 1, 1] of the data
type: the kept classes, then -1."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import from_compute, to_compute


def greedy_decode(classes: np.ndarray, blank: int, merge: bool, out: np.ndarray) -> int:
    """Write the decoded ``classes`` (one sequence's per-step argmax) into ``out``; return the count."""
    previous = np.concatenate([[-1], classes[:-1]])
    keep = classes != blank
    if merge:
        keep &= classes != previous
    kept = classes[keep]
    out[:kept.size] = kept
    return int(kept.size)


@register_op("CTCGreedyDecoder", since=1)
class CTCGreedyDecoder(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.merge: bool = node.attrs["ctc_merge_repeated"]

    def _run(self, data: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...]:
        time, batch, classes = data.shape
        best = np.argmax(to_compute(data, self.in_types[0]), axis=2)  # [T, N]; bf16 by value, not bits
        ended = np.cumsum(mask == 0, axis=0) > 0
        lengths = time - ended.sum(axis=0)
        out = np.full((batch, time), -1, np.int64)
        for b in range(batch):
            greedy_decode(best[:lengths[b], b], classes - 1, self.merge, out[b])
        return (from_compute(out, self.out_types[0]).reshape(batch, time, 1, 1),)
