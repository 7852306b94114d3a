"""REFERENCE variants with one tiling bug each in an op that had no stimulus cases before
(GroupConvolutionBackpropData, NonMaxSuppression, DetectionOutput), for
``tests/ops/test_stimulus_sizes.py`` (``--plugin=stimulus_faults:<Class>`` with ``tests/plugins`` on
``PYTHONPATH``). Every fault lives in the device's private copy of the model or its own kernel,
never in REFERENCE's (the oracle runs in the same process); query_model is REFERENCE's.
"""

from __future__ import annotations

import numpy as np

from ovconform import opset
from ovconform.ir import Model, Type, f32_to_bf16
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops.op_detection_output import DetectionOutput
from reference_plugin.ops.op_non_max_suppression import NonMaxSuppression

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference

#: Input channels per group from which the faulty deconvolution takes its blocked path.
CHANNEL_BLOCK = 16
#: Boxes (NMS) / priors (DetectionOutput) one tile of the faulty kernels holds: the rest is never read.
BOX_TILE = 512
PRIOR_TILE = 1024


class GroupDeconvolutionDropsLastChannel(PatchedReference):
    """GroupConvolutionBackpropData with 16 or more input channels per group skips each group's last one."""

    device_name = "STF_GDECONV"

    def _rewrite_model(self, model: Model) -> None:
        for node in list(model.get_ordered_ops()):
            if node.type_name != "GroupConvolutionBackpropData":
                continue
            filters = node.input_value(1)
            ps = filters.get_partial_shape()
            if not ps.is_static or ps.to_shape()[1] < CHANNEL_BLOCK:
                continue
            shape = list(ps.to_shape())
            mask = np.ones([1, shape[1], *[1] * (len(shape) - 2)])
            mask[0, -1] = 0
            et = filters.get_element_type()
            data = f32_to_bf16(mask.astype(np.float32)) if et == Type.bf16 else mask.astype(et.to_dtype())
            node.set_argument(1, opset.multiply(filters, opset.constant(data, et)).output(0))


class _FirstBoxesOnly(NonMaxSuppression):
    def _run(self, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        if scores.shape[-1] > BOX_TILE:
            scores = scores.copy()
            scores[..., BOX_TILE:] = -1  # below any score threshold the cases use (>= 0): never selected
        return super()._run(boxes, scores, *rest)


class NmsReadsFirstTileOnly(PatchedReference):
    """NonMaxSuppression reads only the first 512 boxes of each class (one tile): the rest are never selected."""

    device_name = "STF_NMSTILE"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "NonMaxSuppression":
                step.kernel = _FirstBoxesOnly(step.node)


class _FirstPriorsOnly(DetectionOutput):
    def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        loc, conf, *rest = inputs
        priors = np.asarray(rest[0]).shape[-1] // 4
        if priors > PRIOR_TILE:
            conf = conf.reshape(conf.shape[0], priors, -1).copy()
            conf[:, PRIOR_TILE:] = 0  # their detections never pass the confidence threshold
            conf = conf.reshape(inputs[1].shape)
        return super()._run(loc, conf, *rest)


class DetectionReadsFirstTileOnly(PatchedReference):
    """DetectionOutput scores only the first 1024 priors (one tile): detections of the later ones never appear."""

    device_name = "STF_DETTILE"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "DetectionOutput":
                step.kernel = _FirstPriorsOnly(step.node)


#: class name -> (one-line description, the op versions it gets wrong).
FAULTS = {
    "GroupDeconvolutionDropsLastChannel": ("GroupConvolutionBackpropData-1",),
    "NmsReadsFirstTileOnly": tuple(f"NonMaxSuppression-{v}" for v in (1, 3, 4, 5, 9)),
    "DetectionReadsFirstTileOnly": ("DetectionOutput-1", "DetectionOutput-8"),
}
