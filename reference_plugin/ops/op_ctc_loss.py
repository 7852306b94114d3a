"""CTCLoss-4: ``-log`` of the total probability of the alignments of a label sequence.

Per batch item b: the first ``label_length[b]`` labels are decoded — ``unique`` keeps the first
occurrence of each value, else ``preprocess_collapse_repeated`` merges runs of equal labels —
and the first ``logit_length[b]`` frames are log-softmaxed over the classes. With
``ctc_merge_repeated`` an alignment is any frame sequence that becomes the labels after merging
runs and removing blanks (two equal neighbours need a blank between them); without it every label
takes exactly one frame and every other frame is the blank. The sum runs as the CTC forward
recursion over the blank-interleaved labels, in float64 log space; an impossible alignment gives
``+inf``. Lengths outside ``[0, T]``, a label length above the logit length, or a label or blank
index outside ``[0, C)`` are an InferError.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute


def decode_labels(labels: np.ndarray, unique: bool, collapse: bool) -> np.ndarray:
    if unique:
        _, first = np.unique(labels, return_index=True)
        return labels[np.sort(first)]
    if collapse and labels.size:
        keep = np.concatenate([[True], labels[1:] != labels[:-1]])
        return labels[keep]
    return labels


def ctc_log_likelihood(logp: np.ndarray, target: np.ndarray, blank: int, merge: bool) -> float:
    """log P(target) by the forward recursion over ``[blank, l1, blank, ..., lL, blank]``."""
    s = 2 * target.size + 1
    ext = np.full(s, blank, np.int64)
    ext[1::2] = target
    is_label = np.zeros(s, bool)
    is_label[1::2] = True
    # from state j - 2 (skipping a blank): only into a label, and (merging) only when it differs
    skip = np.zeros(s, bool)
    skip[3::2] = target[1:] != target[:-1] if merge else True
    stay = ~is_label | merge  # labels repeat frames only when merging
    alpha = np.full(s, -np.inf)
    alpha[0] = logp[0, blank]
    if s > 1:
        alpha[1] = logp[0, ext[1]]
    for t in range(1, logp.shape[0]):
        prev = np.where(stay, alpha, -np.inf)
        one = np.concatenate([[-np.inf], alpha[:-1]])
        two = np.where(skip, np.concatenate([[-np.inf, -np.inf], alpha[:-2]]), -np.inf)
        alpha = np.logaddexp(np.logaddexp(prev, one), two) + logp[t, ext]
    tail = alpha[-2:] if s > 1 else alpha[-1:]
    return float(np.logaddexp.reduce(tail))


@register_op("CTCLoss", since=4)
class CTCLoss(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.unique: bool = a["unique"]
        self.collapse: bool = a["preprocess_collapse_repeated"]
        self.merge: bool = a["ctc_merge_repeated"]

    def _run(self, logits: np.ndarray, logit_length: np.ndarray, labels: np.ndarray, label_length: np.ndarray,
             blank_index: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        x = to_compute(logits, et).astype(np.float64)
        n, t_max, classes = x.shape
        blank = classes - 1 if blank_index is None else int(blank_index)
        if not 0 <= blank < classes:
            raise self.fail(f"blank_index {blank} is out of range; allowed [0, {classes - 1}].")
        out = np.zeros(n)
        for b in range(n):
            t_len, l_len = int(logit_length[b]), int(label_length[b])
            if not (0 <= l_len <= t_len <= t_max):
                raise self.fail(f"batch item {b}: logit length {t_len} and label length {l_len} must satisfy "
                                f"0 <= label length <= logit length <= {t_max}.")
            target = decode_labels(labels[b, :l_len].astype(np.int64), self.unique, self.collapse)
            if ((target < 0) | (target >= classes)).any():
                raise self.fail(f"batch item {b}: labels {target.tolist()} must lie in [0, {classes - 1}].")
            if t_len == 0:
                out[b] = 0.0 if target.size == 0 else np.inf
                continue
            frames = x[b, :t_len]
            logp = frames - np.log(np.exp(frames).sum(axis=1, keepdims=True))
            out[b] = -ctc_log_likelihood(logp, target, blank, self.merge)
        return (store(out, et),)
