"""What MatrixNms-8 and MulticlassNms-8/9 share: the order of the candidates, the per-image
keep_top_k and the order of the results (their specs word these steps alike).

A detection is ``Found(score, batch, cls, box, coords)``: ``box`` is the box's index inside its
image, ``coords`` its four coordinates as given.

* Candidates of one class are taken by score, descending; equal scores in box-index order (the
  spec leaves that order open; the op cases avoid equal scores).
* Per image, the detections of every class are ranked by score (descending), then class, then
  box index, and the first ``keep_top_k`` are kept (-1: all).
* ``sort_result_type`` orders them: ``score`` by score, descending (ties by class, box index),
  ``classid`` by class id, ascending (ties by score, descending, then box index), ``none`` keeps
  the ranking above (the spec guarantees no order). With ``sort_result_across_batch`` the
  detections of all images are sorted together (score: then batch, class, box index; classid:
  then batch, score, box index); without it each image's detections stay together, in image
  order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

F32 = np.float32


class Found(NamedTuple):
    score: float
    batch: int
    cls: int
    box: int
    coords: np.ndarray


def by_score(scores: np.ndarray, candidates: Sequence[int], top_k: int) -> list[int]:
    """``candidates`` ordered by score (descending; ties: lower index first), the first ``top_k``
    (-1: all)."""
    order = sorted(candidates, key=lambda i: (-float(scores[i]), i))
    return order if top_k < 0 else order[:top_k]


def keep_top(found: list[Found], keep_top_k: int) -> list[Found]:
    """One image's detections ranked by score, class, box index; the first ``keep_top_k``."""
    ranked = sorted(found, key=lambda f: (-f.score, f.cls, f.box))
    return ranked if keep_top_k < 0 else ranked[:keep_top_k]


def per_image_order(found: list[Found], sort_result_type: str, across_batch: bool) -> list[Found]:
    """One image's kept detections (ranked by :func:`keep_top`) in their output order."""
    if sort_result_type == "classid" and not across_batch:
        return sorted(found, key=lambda f: (f.cls, -f.score, f.box))
    return found


def final_order(found: list[Found], sort_result_type: str, across_batch: bool) -> list[Found]:
    """All images' detections (image after image) in their output order."""
    if not across_batch:
        return found
    if sort_result_type == "score":
        return sorted(found, key=lambda f: (-f.score, f.batch, f.cls, f.box))
    if sort_result_type == "classid":
        return sorted(found, key=lambda f: (f.cls, f.batch, -f.score, f.box))
    return found


def outputs(found: list[Found], flat_index: Sequence[int], counts: Sequence[int]) -> tuple[np.ndarray, ...]:
    """``selected_outputs`` [K, 6] as ``[class, score, x1, y1, x2, y2]`` (f32), ``selected_indices``
    [K, 1] (from ``flat_index``, one per detection) and ``selected_num`` (i64)."""
    rows = np.array([[f.cls, f.score, *f.coords] for f in found], F32).reshape(-1, 6)
    return rows, np.array(flat_index, np.int64).reshape(-1, 1), np.array(counts, np.int64)
