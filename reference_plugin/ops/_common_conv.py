"""Grouped N-d convolution by im2col (``sliding_window_view``) and one batched matmul on BLAS."""

from __future__ import annotations

import math

import numpy as np

from ovconform.errors import InferError
from reference_plugin.ops._common_window import WindowSpec


def grouped_conv(x: np.ndarray, w: np.ndarray, spec: WindowSpec) -> np.ndarray:
    """Convolve ``x`` ``(N, G*Cg, *spatial)`` with ``w`` ``(G, Og, Cg, *kernel)`` → ``(N, G*Og, *out)``.

    Both arrays are already in the accumulation dtype; padding is zeros.
    """
    n_batch, channels = x.shape[:2]
    groups, og, cg = w.shape[:3]
    if channels != groups * cg:
        raise InferError(f"data shape {list(x.shape)} has {channels} channels; the filters "
                         f"{list(w.shape)} need {groups} group(s) x {cg} = {groups * cg}.")
    plan = spec.plan(x.shape[2:])
    view = spec.windows(x, plan, 0)  # (N, C, *out, *k)
    n_sp, k = len(plan.out), math.prod(spec.kernel)
    view = view.reshape(n_batch, groups, cg, *view.shape[2:])  # splitting C keeps it a view
    # columns as (G, Cg*k, N*out): the copy keeps output rows contiguous, and the product
    # (G, Og, Cg*k) @ (G, Cg*k, N*out) lands in (G, Og, N, *out), already NC* order when N == 1
    order = (1, 2, *range(3 + n_sp, 3 + 2 * n_sp), 0, *range(3, 3 + n_sp))
    cols = np.transpose(view, order).reshape(groups, cg * k, n_batch * math.prod(plan.out))
    out = np.matmul(w.reshape(groups, og, cg * k), cols)  # (G, Og, N*out)
    out = out.reshape(groups, og, n_batch, *plan.out)
    return np.moveaxis(out, 2, 0).reshape(n_batch, groups * og, *plan.out)
