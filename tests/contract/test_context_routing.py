"""Remote contexts through the contract: ``Core.compile_model(model, context)`` /
``Core.import_model(blob, context)`` reach the plugin with the context, the base Plugin refuses a
context of another device, and ``CompiledModel.get_context`` answers the context or the default."""

from __future__ import annotations

import numpy as np
import pytest

import ovconform
from ovconform import Model
from ovconform import opset as ops
from ovconform.api import Plugin, RemoteContext
from ovconform.errors import NotImplementedByDeviceError, ValidationError


def _model() -> Model:
    x = ops.parameter([2], np.float32, name="x")
    return Model([ops.result(ops.relu(x))], [x], "m")


def test_core_routes_the_context_to_the_plugin() -> None:
    core = ovconform.Core()
    context = core.create_context("REFERENCE", {"k": "v"})
    compiled = core.compile_model(_model(), context)
    assert compiled.get_context() is context and compiled.context is context
    imported = core.import_model(compiled.export_model(), context)
    assert imported.get_context() is context
    plain = core.compile_model(_model(), "REFERENCE")
    assert plain.context is None and plain.get_context() is core.get_default_context("REFERENCE")


def test_context_of_another_device_is_refused() -> None:
    core = ovconform.Core()
    plugin = core.get_plugin("REFERENCE")
    foreign = RemoteContext("OTHER")
    with pytest.raises(ValidationError, match="belongs to device 'OTHER'"):
        plugin.compile_model(_model(), {}, foreign)
    blob = core.compile_model(_model(), "REFERENCE").export_model()
    with pytest.raises(ValidationError, match="belongs to device 'OTHER'"):
        plugin.import_model(blob, {}, foreign)
    with pytest.raises(ValidationError, match="must be a RemoteContext"):
        plugin.compile_model(_model(), {}, "REFERENCE")
    with pytest.raises(ValidationError, match="device name or a RemoteContext"):
        core.compile_model(_model(), 3)


def test_device_without_contexts_says_not_implemented() -> None:
    class NoContexts(Plugin):
        device_name = "NOCTX"

    compiled = NoContexts().compile_model(_model())
    with pytest.raises(NotImplementedByDeviceError, match="remote contexts"):
        compiled.get_context()
