"""GatherTree-1: full beams from per-step ids and parent beam indices.

For each (batch, beam) the beam is traced back from step ``min(max_seq_len[b], MAX_TIME) - 1``:
``out[t, b, k] = step_ids[t, b, beam_t]`` with ``beam_t`` the beam reached by following
``parent_idx`` from step t + 1 (``beam`` itself at the last step). Steps at or after the length,
and every step after the first ``end_token`` of a traced beam, are ``end_token``. A parent index
outside ``[0, BEAM_WIDTH)`` on a traced path is an InferError (the spec requires them in range);
float data holds whole numbers (parent indices are truncated toward zero).
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("GatherTree", since=1)
class GatherTree(OpRun):
    def _run(self, steps: np.ndarray, parents: np.ndarray, max_len: np.ndarray,
             end_token: np.ndarray) -> tuple[np.ndarray, ...]:
        time, batch, width = steps.shape
        if parents.shape != steps.shape or max_len.shape != (batch,):
            raise self.fail(f"step_ids {list(steps.shape)}, parent_idx {list(parents.shape)} and max_seq_len "
                            f"{list(max_len.shape)} must be [T, B, K], [T, B, K] and [B].")
        end = end_token.reshape(()).astype(steps.dtype)
        lengths = np.clip(np.trunc(max_len.astype(np.float64)), 0, time).astype(np.int64)
        out = np.full(steps.shape, end, steps.dtype)
        beam = np.broadcast_to(np.arange(width), (batch, width)).copy()
        rows = np.arange(batch)[:, None]
        for t in range(time - 1, -1, -1):
            active = np.broadcast_to((t < lengths)[:, None], (batch, width))
            out[t] = np.where(active, steps[t][rows, beam], end)
            parent = np.trunc(parents[t][rows, beam].astype(np.float64))
            bad = active & ((parent < 0) | (parent >= width))
            if t > 0 and bad.any():
                b, k = np.argwhere(bad)[0]
                raise self.fail(f"parent_idx[{t}, {b}, {beam[b, k]}] = {parents[t][b, beam[b, k]]} is out of range; "
                                f"allowed [0, {width - 1}] (BEAM_WIDTH = {width}).")
            beam = np.where(active, np.clip(parent, 0, width - 1).astype(np.int64), beam)
        hit = out == end
        after_end = (np.cumsum(hit, axis=0) - hit) > 0
        out[after_end] = end
        return (out,)
