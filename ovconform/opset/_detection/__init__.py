"""Detection ops (OpenVINO's op-spec folder "detection"), one module per group:

* DetectionOutput-1/8 (:mod:`._output`);
* PriorBox-1/8, PriorBoxClustered-1 (:mod:`._prior`);
* Proposal-1/4 (:mod:`._proposal`);
* ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2, PSROIPooling-1, DeformablePSROIPooling-1
  (:mod:`._roi`);
* RegionYolo-1, ReorgYolo-2 (:mod:`._yolo`).

Not here yet: GenerateProposals-9. The NMS ops are in the "sort" family
(:mod:`ovconform.opset._sort`), as in OpenVINO's specification.
"""

from __future__ import annotations

from ovconform.opset._detection import _output, _prior, _proposal, _roi, _yolo
from ovconform.opset._detection._output import *  # noqa: F403
from ovconform.opset._detection._prior import *  # noqa: F403
from ovconform.opset._detection._proposal import *  # noqa: F403
from ovconform.opset._detection._roi import *  # noqa: F403
from ovconform.opset._detection._yolo import *  # noqa: F403

__all__ = sorted({name for mod in (_output, _prior, _proposal, _roi, _yolo) for name in mod.__all__})
