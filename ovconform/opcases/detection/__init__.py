"""Case strategies of the detection ops (OpenVINO's op-spec folder "detection"), one module per group:

* DetectionOutput-1/8 (:mod:`._output`);
* PriorBox-1/8, PriorBoxClustered-1 (:mod:`._prior`);
* Proposal-1/4 (:mod:`._proposal`);
* ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2, PSROIPooling-1, DeformablePSROIPooling-1
  (:mod:`._roi`);
* RegionYolo-1, ReorgYolo-2 (:mod:`._yolo`);
* ExperimentalDetectronPriorGridGenerator-6, ExperimentalDetectronROIFeatureExtractor-6,
  ExperimentalDetectronDetectionOutput-6 (:mod:`._detectron`);
* GenerateProposals-9, ExperimentalDetectronGenerateProposalsSingleImage-6 (:mod:`._generate_proposals`).

Each module's docstring says what it draws and what it keeps away from.
"""

from __future__ import annotations

from ovconform.opcases.detection import (  # noqa: F401 - registers the cases
    _detectron,
    _generate_proposals,
    _output,
    _prior,
    _proposal,
    _roi,
    _yolo,
)
