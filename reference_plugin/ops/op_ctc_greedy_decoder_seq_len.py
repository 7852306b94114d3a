"""CTCGreedyDecoderSeqLen-6: ``data`` [N, T, C], ``sequence_length`` [N] (each in [0, T]), optional
``blank_index`` (default C - 1). Per batch the first ``sequence_length[b]`` steps are decoded as
CTCGreedyDecoder-1 does (argmax, first on ties; blank dropped; with ``merge_repeated`` a class equal
to the previous step's is dropped). Outputs: the classes [N, T] (-1 after the decoded ones) and the
decoded lengths [N]."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import to_compute
from reference_plugin.ops.op_ctc_greedy_decoder import greedy_decode


@register_op("CTCGreedyDecoderSeqLen", since=6)
class CTCGreedyDecoderSeqLen(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.merge: bool = node.attrs["merge_repeated"]

    def _run(self, data: np.ndarray, lengths: np.ndarray, *blank: np.ndarray) -> tuple[np.ndarray, ...]:
        batch, time, classes = data.shape
        blank_index = int(blank[0].reshape(-1)[0]) if blank else classes - 1
        seq = lengths.astype(np.int64).reshape(-1)
        bad = (seq < 0) | (seq > time)
        if bad.any():
            raise self.fail(f"sequence_length value {int(seq[bad][0])} is out of range; allowed [0, {time}] "
                            f"(T of data {list(data.shape)}).")
        best = np.argmax(to_compute(data, self.in_types[0]), axis=2) if classes else np.zeros((batch, time), np.int64)
        out = np.full((batch, time), -1, np.int64)
        counts = np.array([greedy_decode(best[b, :seq[b]], blank_index, self.merge, out[b]) for b in range(batch)],
                          np.int64)
        return out.astype(self.out_dtypes[0]), counts.reshape(batch).astype(self.out_dtypes[1])
