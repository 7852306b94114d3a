"""OpenVINO CPU deviations from the spec for the "detect" family (records as in openvino_deviations.py)."""

from __future__ import annotations

from openvino_deviations import Deviation

DEVIATIONS: tuple[Deviation, ...] = ()
