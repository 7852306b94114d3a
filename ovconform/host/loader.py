"""The one ``module:attr`` loader (``Core.register_plugin("pkg.mod:Cls")``, ``--plugin pkg.mod:attr``)."""

from __future__ import annotations

import importlib
from typing import Any


def load_object(spec: str) -> Any:
    """The object named by ``"package.module:attr.sub"`` (or the module for ``"package.module"``).

    Raises ImportError or AttributeError; the caller turns them into its documented error, naming
    the option the spec came from.
    """
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


__all__ = ["load_object"]
