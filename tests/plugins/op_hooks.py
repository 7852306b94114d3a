"""A pytest plugin (``-p op_hooks``) that adds an ovconform hook implementation for the op/model
suite tests: ``ovconform_add_models`` contributes one small model ("tiny_relu") to every device.

ovconform's plugin manager loads entry points and :data:`ovconform.host.manager.DEFAULT_PLUGINS`;
this test-only plugin appends itself to the latter (no installed distribution needed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ovconform
from ovconform import opset as ops
from ovconform.host import manager as _manager
from ovconform.ir import Model, Type


def _tiny_relu() -> Model:
    x = ops.parameter([2, 3], Type.f32, name="x")
    y = ops.relu(ops.add(x, ops.constant(np.full((2, 3), 0.25, np.float32)), name="shift"), name="relu")
    return Model([y], [x], "tiny_relu")


@ovconform.hookimpl
def ovconform_add_models(device: str) -> list[Any]:
    return [("tiny_relu", _tiny_relu)]


if __name__ not in _manager.DEFAULT_PLUGINS:
    _manager.DEFAULT_PLUGINS = (*_manager.DEFAULT_PLUGINS, __name__)
