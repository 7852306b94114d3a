"""REFPROC: REFERENCE with REFERENCE_PROCESS_STREAMS on by default, so the API suites drive the
stream worker processes (reference_plugin/_process_streams.py) through every behaviour.

Use: ``pytest --plugin=tests/plugins/process_streams_device.py suites``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ovconform
from ovconform import properties as P
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.properties import PROCESS_STREAMS


class ProcessStreamsPlugin(ReferencePlugin):
    """REFERENCE whose compiled models run their inferences in worker processes."""

    device_name = "REFPROC"
    full_device_name = "ovconform test device: REFERENCE with stream worker processes"

    def _declare_properties(self) -> list[P.Declared]:
        return [dataclasses.replace(d, default=True) if d.name == PROCESS_STREAMS else d
                for d in super()._declare_properties()]


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    registry.add(ProcessStreamsPlugin)
