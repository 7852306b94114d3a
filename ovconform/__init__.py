"""ovconform: a conformance and performance harness for inference-device plugins."""

from __future__ import annotations

from typing import Final

import pluggy

from ovconform import opset
from ovconform.ir import Dimension, Model, Node, Output, PartialShape, Type

NAME: Final = "ovconform"
hookimpl = pluggy.HookimplMarker(NAME)

__all__ = ["NAME", "Dimension", "Model", "Node", "Output", "PartialShape", "Type", "hookimpl", "opset"]


def __getattr__(name: str) -> object:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(NAME)
        except PackageNotFoundError:  # running from a source tree that is not installed
            return "0+unknown"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
