"""REFERENCE variants with one realistic bug each in opset6's ExperimentalDetectron ops or GenerateProposals-9,
for ``tests/ops/test_detection_experimental.py`` (``--plugin=detectron_faults:<Class>`` with ``tests/plugins``
on ``PYTHONPATH``).

As in ``added_op_faults.py``, each fault rewrites the device's private copy of the model in its compile step,
never the shared REFERENCE kernels (the oracle runs in the same process). query_model is REFERENCE's: the
devices claim the ops they get wrong.
"""

from __future__ import annotations

from ovconform import opset
from ovconform.ir import Model, Node

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference


class _OneOp(PatchedReference):
    """Rewrites only the nodes of type ``op``."""

    op = ""

    def _rewrite_model(self, model: Model) -> None:
        for node in list(model.get_ordered_ops()):
            if node.type_name == self.op:
                self._rewrite(node)

class TopKROIsAscending(_OneOp):
    """ExperimentalDetectronTopKROIs sorts the probabilities ascending (returns the least likely ROIs)."""

    device_name = "DTF_TOPK_ASC"
    op = "ExperimentalDetectronTopKROIs"

    def _rewrite(self, node: Node) -> None:
        node.set_argument(1, opset.negative(node.input_value(1)).output(0))


class PriorGridSwapsStrides(_OneOp):
    """ExperimentalDetectronPriorGridGenerator steps x by stride_y and y by stride_x."""

    device_name = "DTF_GRID_XY"
    op = "ExperimentalDetectronPriorGridGenerator"

    def _rewrite(self, node: Node) -> None:
        node.attrs["stride_x"], node.attrs["stride_y"] = node.attrs["stride_y"], node.attrs["stride_x"]


class ROIFeaturesIgnoreAligned(_OneOp):
    """ExperimentalDetectronROIFeatureExtractor never shifts ROIs by half a pixel (``aligned`` ignored)."""

    device_name = "DTF_ROI_ALIGNED"
    op = "ExperimentalDetectronROIFeatureExtractor"

    def _rewrite(self, node: Node) -> None:
        node.attrs["aligned"] = False


class SingleImageSkipsNMS(_OneOp):
    """ExperimentalDetectronGenerateProposalsSingleImage suppresses nothing (NMS threshold taken as 1)."""

    device_name = "DTF_SINGLE_NMS"
    op = "ExperimentalDetectronGenerateProposalsSingleImage"

    def _rewrite(self, node: Node) -> None:
        node.attrs["nms_threshold"] = 1.0


class GenerateProposalsIgnoresNormalized(_OneOp):
    """GenerateProposals always adds 1 to widths and heights (``normalized`` true read as false)."""

    device_name = "DTF_GP_NORMALIZED"
    op = "GenerateProposals"

    def _rewrite(self, node: Node) -> None:
        node.attrs["normalized"] = False


class DetectionOutputIgnoresScoreThreshold(_OneOp):
    """ExperimentalDetectronDetectionOutput keeps boxes of any score (``score_threshold`` taken as 0)."""

    device_name = "DTF_EDDO_THRESHOLD"
    op = "ExperimentalDetectronDetectionOutput"

    def _rewrite(self, node: Node) -> None:
        node.attrs["score_threshold"] = 0.0


_CLASSES = (TopKROIsAscending, PriorGridSwapsStrides, ROIFeaturesIgnoreAligned, SingleImageSkipsNMS,
            GenerateProposalsIgnoresNormalized, DetectionOutputIgnoresScoreThreshold)
#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in _CLASSES}
#: class name -> the op version it breaks.
OPS = {cls.__name__: f"{cls.op}-{9 if cls.op == 'GenerateProposals' else 6}" for cls in _CLASSES}
