"""ExperimentalDetectronTopKROIs-6: the ``max_rois`` ROIs of the highest probability, in descending
order of probability (stable: of equal probabilities the lower index first, where the spec leaves
the order undefined; OpenVINO's reference code sorts unstably). With fewer than ``max_rois`` ROIs
the rows past them are undefined in the spec; REFERENCE leaves them 0.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute


@register_op("ExperimentalDetectronTopKROIs", since=6)
class ExperimentalDetectronTopKROIs(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.limit: int = node.attrs["max_rois"]

    def _run(self, rois: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        if rois.shape[0] != probs.shape[0]:
            raise self.fail(f"{rois.shape[0]} ROIs but {probs.shape[0]} probabilities; they must match.")
        values = to_compute(probs, self.in_types[1]).astype(np.float64)
        order = np.argsort(-values, kind="stable")[:self.limit]
        out = np.zeros((self.limit, 4), rois.dtype)
        out[:len(order)] = rois[order]
        return (store(to_compute(out, et), et),)
