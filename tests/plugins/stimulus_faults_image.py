"""REFERENCE variants with one tiling bug each in an image / detection op that had no stimulus cases
before (issue #20, :mod:`ovconform.opcases._stimulus_image`), for ``tests/ops/test_stimulus_image.py``
(``--plugin=stimulus_faults_image:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``). Each fault lives in
the device's own kernel, never in REFERENCE's (the oracle runs in the same process).
"""

from __future__ import annotations

import numpy as np

from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops.op_nv12_to_bgr import NV12toBGR
from reference_plugin.ops.op_nv12_to_rgb import NV12toRGB
from reference_plugin.ops.op_roi_align import ROIAlign

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

#: ROIs one tile of the faulty ROIAlign holds.
ROI_TILE = 64
#: Chroma columns one vector of the faulty NV12 converter holds.
CHROMA_VECTOR = 8


class _StaleRoiTiles(ROIAlign):
    def _run(self, maps: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, ...]:
        (out,) = super()._run(maps, rois, indices)
        if out.shape[0] > ROI_TILE:
            out = out.copy()
            out[ROI_TILE:] = out[:out.shape[0] - ROI_TILE]  # the tile buffer is never refilled
        return (out,)


class RoiAlignStaleTile(PatchedReference):
    """ROIAlign returns, for ROI 64 + k, the pooled values of ROI k: its second tile of ROIs keeps the first's."""

    device_name = "STF_ROITILE"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "ROIAlign":
                step.kernel = _StaleRoiTiles(step.node)


def _last_chroma_column_repeated(planes: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Where the chroma row (W / 2 values) is longer than one vector and not a multiple of it, the
    last chroma column is the one before it (the masked tail load reads the previous lane)."""
    if len(planes) == 1:
        (x,) = planes
        h = x.shape[1] * 2 // 3
        half = x.shape[2] // 2
        if half > CHROMA_VECTOR and half % CHROMA_VECTOR:
            x = x.copy()
            x[:, h:, -2:] = x[:, h:, -4:-2]  # U, V of the last column pair
        return (x,)
    y, uv = planes
    half = uv.shape[2]
    if half > CHROMA_VECTOR and half % CHROMA_VECTOR:
        uv = uv.copy()
        uv[:, :, -1] = uv[:, :, -2]
    return y, uv


class _TailRgb(NV12toRGB):
    def _run(self, *planes: np.ndarray) -> tuple[np.ndarray, ...]:
        return super()._run(*_last_chroma_column_repeated(planes))


class _TailBgr(NV12toBGR):
    def _run(self, *planes: np.ndarray) -> tuple[np.ndarray, ...]:
        return super()._run(*_last_chroma_column_repeated(planes))


class Nv12ChromaTail(PatchedReference):
    """NV12toRGB/BGR read the last chroma column of a width whose chroma row is past one 8-wide vector
    and not a multiple of it from the column before."""

    device_name = "STF_NV12TAIL"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        kernels = {"NV12toRGB": _TailRgb, "NV12toBGR": _TailBgr}
        for step in compiled.program.steps:
            if step.node.type_name in kernels:
                step.kernel = kernels[step.node.type_name](step.node)


#: class name -> the op versions it gets wrong.
FAULTS = {
    "RoiAlignStaleTile": ("ROIAlign-3", "ROIAlign-9"),
    "Nv12ChromaTail": ("NV12toRGB-8", "NV12toBGR-8"),
}
