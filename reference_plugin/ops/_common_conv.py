"""Grouped N-d convolution as the spec defines it.

``out[n, g*Og + o, p] = sum over c < Cg and kernel offsets k of w[g, o, c, k] * xp[n, g*Cg + c, p*s + k*d]``,
``xp`` the input zero-padded by the plan's pads. For each kernel offset (row-major), the input
samples it reads at every output position are one strided slice of ``xp``; that slice times the
offset's filter taps (a product over the channels, ``np.matmul``) is added to the result, offset
after offset, in the accumulation dtype the caller chose (floats on BLAS, integers exactly in
int64). REFERENCE's programs lower the input for fewer, larger BLAS calls instead
(:mod:`reference_plugin.fast.convolution`, within the accumulation bound of this).
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.errors import InferError
from reference_plugin.ops._common_window import WindowSpec


def convolve(x: np.ndarray, w: np.ndarray, spec: WindowSpec) -> np.ndarray:
    """Convolve ``x`` ``(N, G*Cg, *spatial)`` with ``w`` ``(G, Og, Cg, *kernel)`` → ``(N, G*Og, *out)``.

    Both arrays are already in the accumulation dtype; padding is zeros.
    """
    n_batch, channels = x.shape[:2]
    groups, og, cg = w.shape[:3]
    if channels != groups * cg:
        raise InferError(f"data shape {list(x.shape)} has {channels} channels; the filters "
                         f"{list(w.shape)} need {groups} group(s) x {cg} = {groups * cg}.")
    plan = spec.plan(x.shape[2:])
    padded = spec.padded(x, plan, 0)
    padded = padded.reshape(n_batch, groups, cg, *padded.shape[2:])
    out = np.zeros((n_batch, groups, og, math.prod(plan.out)), np.result_type(x.dtype, w.dtype))
    lead = (slice(None),) * 3
    for offsets, picks in zip(np.ndindex(*spec.kernel), spec.taps(plan), strict=True):
        reads = padded[(*lead, *picks)].reshape(n_batch, groups, cg, -1)  # (N, G, Cg, positions)
        out += np.matmul(w[(*lead, *offsets)], reads)  # (G, Og, Cg) @ (N, G, Cg, P) -> (N, G, Og, P)
    return out.reshape(n_batch, groups * og, *plan.out)
