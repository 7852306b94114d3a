"""export_model / import_model (``ov_compiled_model`` entity): ``behavior/compiled_model/import_export.hpp``.

All need the EXPORT_IMPORT capability (skipped with the reason otherwise).

* OVCompiledGraphImportExportTest — O, per element type: importExportedFunction (two inputs, two
  outputs, name lookups, friendly-name lookups throw), ...ParameterResultOnly,
  ...ConstantResultOnly, ...DoubleInputOutput. readFromV10IR does not apply: IR v10 is rejected
  by design (see test_compiled_model_base).
* OVClassCompiledModelImportExportTestP — O: ImportNetworkNoThrowWithDeviceName,
  ImportNetworkThrowWithDeviceName (an empty stream is refused).
* Beyond OpenVINO (–, optional): the imported model computes what the original computes, on the
  suite models; garbage and truncated blobs are refused; a binary stream works like bytes; an
  imported model reports LOADED_FROM_CACHE false.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import properties as P
from ovconform.assertions import (
    assert_equal,
    assert_outputs_close,
    assert_raises_ov_error,
    call,
    no_error,
)
from ovconform.errors import ImportModelError, NotFoundError
from ovconform.ir import Model
from ovconform.suites import _models
from ovconform.suites._helpers import check_outputs

pytestmark = [pytest.mark.entity("ov_compiled_model"), pytest.mark.capability("EXPORT_IMPORT")]

ALL_TYPES = (*_models.ELEMENT_TYPES, "bf16")
NUMERIC_TYPES = tuple(t for t in ALL_TYPES if t != "boolean")


def _round_trip(core: Any, device: str, model: Model) -> tuple[Any, Any]:
    with no_error(call(device, "compile_model", model.friendly_name)):
        compiled = core.compile_model(model, device)
    with no_error(call(device, "CompiledModel.export_model", model.friendly_name)):
        blob = compiled.export_model()
    with no_error(call(device, "import_model", f"<{len(blob)} bytes of {model.friendly_name}>")):
        return compiled, core.import_model(blob, device)


def _ports(ports: list[Any]) -> list[tuple[list[str], str, str]]:
    return [(sorted(p.get_names()), str(p.get_partial_shape()), str(p.get_element_type())) for p in ports]


def _check_ports(model: Model, imported: Any, device: str) -> None:
    __tracebackhide__ = True
    where = call(device, "import_model", model.friendly_name)
    assert_equal(_ports(imported.inputs), _ports(model.inputs), "imported inputs (names, shape, type)", where)
    assert_equal(_ports(imported.outputs), _ports(model.outputs), "imported outputs (names, shape, type)", where)


def _same_numbers(model: Model, compiled: Any, imported: Any, device: str, seed: int = 4) -> None:
    __tracebackhide__ = True
    inputs = _models.make_inputs(model, seed)
    where = call(device, "infer", f"imported {model.friendly_name} vs. the original")
    with no_error(where):
        want = list(compiled.create_infer_request().infer(inputs).values())
        got = list(imported.create_infer_request().infer(inputs).values())
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_outputs_close(g, w, f"output {i}", where, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", NUMERIC_TYPES)
def test_import_exported_function(ov_core: Any, ov_device_name: str, dtype: str) -> None:
    """OVCompiledGraphImportExportTest.importExportedFunction."""
    model = _models.relu_concat(dtype)
    compiled, imported = _round_trip(ov_core, ov_device_name, model)
    _check_ports(model, imported, ov_device_name)
    for side, good, friendly in (("input", "data1", "param1"), ("output", "relu", "relu_op")):
        getter = getattr(imported, side)
        where = call(ov_device_name, f"imported.{side}")
        assert_raises_ov_error(NotFoundError, getter, call=where + " with two ports")
        with no_error(call(ov_device_name, f"imported.{side}", good)):
            getter(good)
        assert_raises_ov_error(NotFoundError, getter, friendly,
                               call=call(ov_device_name, f"imported.{side}", friendly) + " (a friendly name)")
    _same_numbers(model, compiled, imported, ov_device_name)


@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("kind", ["parameter_result", "constant_result", "double_input_output"])
def test_import_exported_small_functions(ov_core: Any, ov_device_name: str, kind: str, dtype: str) -> None:
    """OVCompiledGraphImportExportTest.importExportedFunctionParameterResultOnly / ...ConstantResultOnly /
    ...DoubleInputOutput."""
    builders: dict[str, Callable[[str], Model]] = {"parameter_result": _models.param_result,
                                                   "constant_result": _models.const_result,
                                                   "double_input_output": _models.two_results}
    model = builders[kind](dtype)
    compiled, imported = _round_trip(ov_core, ov_device_name, model)
    _check_ports(model, imported, ov_device_name)
    _same_numbers(model, compiled, imported, ov_device_name)


@pytest.mark.parametrize("name", ["relu", "conv_pool_relu", "split_conv_concat", "kso", "matmul_bias",
                                  "read_concat_split_assign"])
def test_imported_model_computes_like_the_original(ov_core: Any, ov_device_name: str, name: str) -> None:
    """(–) an imported model gives exactly the original compiled model's outputs (and the oracle's)."""
    model = _models.build(name)
    compiled, imported = _round_trip(ov_core, ov_device_name, model)
    _same_numbers(model, compiled, imported, ov_device_name, seed=9)
    inputs = _models.make_inputs(model, 9)
    check_outputs(imported.create_infer_request().infer(inputs), model, inputs, name,
                  call(ov_device_name, "infer", f"imported {model.friendly_name}"))


def test_import_network_no_throw_with_device_name(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelImportExportTestP.smoke_ImportNetworkNoThrowWithDeviceName."""
    _, imported = _round_trip(ov_core, ov_device_name, _models.build("conv_pool_relu"))
    with no_error(call(ov_device_name, "imported.create_infer_request")):
        imported.create_infer_request()


def test_import_network_throw_with_empty_stream(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelImportExportTestP.smoke_ImportNetworkThrowWithDeviceName: an empty stream
    is refused."""
    assert_raises_ov_error(ImportModelError, ov_core.import_model, io.BytesIO(b""), ov_device_name,
                           call=call(ov_device_name, "import_model", "<empty stream>"))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped_byte"])
def test_damaged_blob_is_refused(ov_core: Any, ov_device_name: str, damage: str) -> None:
    """(–) a blob that is not one, or was damaged, is refused with ImportModelError (never imported
    into something that computes wrong numbers)."""
    blob = ov_core.compile_model(_models.build("matmul_bias"), ov_device_name).export_model()
    if damage == "garbage":
        data = bytes(np.random.default_rng(1).integers(0, 256, 256, dtype=np.uint8))
    elif damage == "truncated":
        data = blob[: len(blob) // 2]
    else:
        middle = len(blob) // 2
        data = blob[:middle] + bytes([blob[middle] ^ 0xFF]) + blob[middle + 1:]
    assert_raises_ov_error(ImportModelError, ov_core.import_model, data, ov_device_name,
                           call=call(ov_device_name, "import_model", f"<{damage} blob, {len(data)} bytes>"))


def test_import_from_a_binary_stream(ov_core: Any, ov_device_name: str) -> None:
    """(–) export_model(stream) writes the blob; import_model reads it back from a stream."""
    model = _models.build("split_conv_concat")
    compiled = ov_core.compile_model(model, ov_device_name)
    stream = io.BytesIO()
    with no_error(call(ov_device_name, "CompiledModel.export_model", "<BytesIO>")):
        returned = compiled.export_model(stream)
    assert_equal(stream.getvalue(), returned, "bytes written to the stream", call(ov_device_name, "export_model"))
    stream.seek(0)
    with no_error(call(ov_device_name, "import_model", "<BytesIO>")):
        imported = ov_core.import_model(stream, ov_device_name)
    _same_numbers(model, compiled, imported, ov_device_name)


def test_imported_model_is_not_loaded_from_cache(ov_core: Any, ov_device_name: str) -> None:
    """CompileModelLoadFromCacheTest (–): LOADED_FROM_CACHE is false after a plain import_model."""
    _, imported = _round_trip(ov_core, ov_device_name, _models.build("relu"))
    where = call(ov_device_name, "imported.get_property", P.LOADED_FROM_CACHE)
    with no_error(where):
        value = imported.get_property(P.LOADED_FROM_CACHE)
    assert_equal(value, False, P.LOADED_FROM_CACHE, where)

