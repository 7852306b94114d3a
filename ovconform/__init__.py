"""ovconform: a conformance and performance harness for inference-device plugins."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pluggy

from ovconform import opset
from ovconform.ir import Dimension, Model, Node, Output, PartialShape, Type

if TYPE_CHECKING:  # the lazy names below, as the type checker should see them
    from ovconform.contract.tensor import Tensor
    from ovconform.host.core import Core
    from ovconform.ir._read import read_model
    from ovconform.ir._serialize import serialize

NAME: Final = "ovconform"
hookimpl = pluggy.HookimplMarker(NAME)

__all__ = ["NAME", "Core", "Dimension", "Model", "Node", "Output", "PartialShape", "Tensor", "Type", "hookimpl",
           "opset", "read_model", "serialize"]


# Names whose modules load on first use (keeps ``import ovconform`` light for the pytest plugin).
_LAZY = {
    "serialize": "ovconform.ir._serialize",
    "read_model": "ovconform.ir._read",
    "Core": "ovconform.host.core",
    "Tensor": "ovconform.contract.tensor",
    "errors": "ovconform.errors",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        return module if module.__name__ == f"ovconform.{name}" else getattr(module, name)
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(NAME)
        except PackageNotFoundError:  # running from a source tree that is not installed
            return "0+unknown"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
