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
  imported model reports LOADED_FROM_CACHE false; the compile configuration travels in the blob
  (seeds 000/002: the imported model's get_property answers it, and it is in force), and the
  import_model call's own properties override the blob's (OpenVINO's Python API: they are
  "relevant only for this load operation"; TEMPLATE's import_model uses them); a blob
  another device exported, a blob of a newer format version, and a model's IR instead of a blob
  are refused with ImportModelError (seeds 001/002: import_model checks the device information in
  the blob).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ovconform
from ovconform import properties as P
from ovconform.assertions import (
    assert_equal,
    assert_outputs_close,
    assert_raises_ov_error,
    assert_that,
    call,
    fail,
    no_error,
)
from ovconform.contract.blob import DIGEST_SIZE, seal
from ovconform.errors import ImportModelError, NotFoundError, OVConformError
from ovconform.ir import Model
from ovconform.suites import _models
from ovconform.suites._helpers import check_outputs, new_core

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



#: Compile configuration that must travel in the blob (EXECUTION_MODE_HINT=PERFORMANCE is not
#: REFERENCE's default; PERF_COUNT=True is nobody's).
TRAVELLING = {P.PERF_COUNT: True, P.EXECUTION_MODE_HINT: "PERFORMANCE"}


def test_imported_model_keeps_compile_config(ov_core: Any, ov_device_name: str) -> None:
    """(–, seeds 000/002) export_model writes the compile configuration into the blob; the imported
    model reports what the compiled one reports for each key, and it is in force (with PERF_COUNT
    on, the imported model's requests have profiling information)."""
    model = _models.build("conv_pool_relu")
    where = call(ov_device_name, "compile_model", model.friendly_name, TRAVELLING)
    with no_error(where):
        compiled = ov_core.compile_model(model, ov_device_name, TRAVELLING)
        imported = ov_core.import_model(compiled.export_model(), ov_device_name)
    where = call(ov_device_name, "imported.get_property") + f" (exported from a model compiled with {TRAVELLING})"
    for name in TRAVELLING:
        with no_error(where):
            want, got = compiled.get_property(name), imported.get_property(name)
        assert_equal(P.to_string(got), P.to_string(want), f"{name} of the imported model", where)
    request = imported.create_infer_request()
    with no_error(where + "; infer + get_profiling_info"):
        request.infer(_models.make_inputs(model))
        info = request.get_profiling_info()
    assert_equal(bool(info), True, "profiling information of the imported model (PERF_COUNT=True)", where)


#: What the model of the override test is compiled with, and what import_model is given instead.
COMPILED_WITH = {P.PERF_COUNT: False, P.PERFORMANCE_HINT: "LATENCY"}
IMPORTED_WITH = {P.PERF_COUNT: True, P.PERFORMANCE_HINT: "THROUGHPUT"}


def test_import_properties_override_the_blob(ov_core: Any, ov_device_name: str) -> None:
    """(–) import_model's own properties win over the configuration the blob carries: a model
    compiled with PERF_COUNT off and the LATENCY hint, imported with PERF_COUNT on and THROUGHPUT,
    reports the import call's values, and its runs are profiled (some node EXECUTED)."""
    model = _models.build("conv_pool_relu")
    with no_error(call(ov_device_name, "compile_model", model.friendly_name, COMPILED_WITH)):
        blob = ov_core.compile_model(model, ov_device_name, COMPILED_WITH).export_model()
    where = call(ov_device_name, "import_model", f"<blob compiled with {COMPILED_WITH}>", IMPORTED_WITH)
    with no_error(where):
        imported = ov_core.import_model(blob, ov_device_name, IMPORTED_WITH)
    for name, value in IMPORTED_WITH.items():
        with no_error(where + f"; get_property({name!r})"):
            got = imported.get_property(name)
        assert_equal(P.to_string(got), P.to_string(P.parse_value(name, value)), f"{name} of the imported model", where)
    with no_error(where + "; infer + get_profiling_info"):
        request = imported.create_infer_request()
        request.infer(_models.make_inputs(model))
        statuses = sorted({str(getattr(i.status, "name", i.status)) for i in request.get_profiling_info()})
    assert_that("EXECUTED" in statuses, "statuses of the imported model's counters after infer()", statuses,
                "some node EXECUTED (PERF_COUNT on)", where)


def _foreign_blobs(device: str) -> dict[str, bytes]:
    """Blobs other devices exported: REFERENCE's and HETERO's (the host's device), but not one of
    the device under test's own kind."""
    blobs = {}
    core = new_core("reference", "REFERENCE")
    model = _models.build("relu")
    if device != "REFERENCE":
        blobs["REFERENCE"] = core.compile_model(model, "REFERENCE").export_model()
    if device != "HETERO":
        blobs["HETERO:REFERENCE"] = core.compile_model(model, "HETERO:REFERENCE").export_model()
    return blobs


def test_blob_of_another_device_is_refused(ov_core: Any, ov_device_name: str) -> None:
    """(–, seeds 001/002: import_model checks the device information in the blob and throws on
    data for another device) blobs exported by other devices (REFERENCE, HETERO) are refused."""
    for producer, blob in _foreign_blobs(ov_device_name).items():
        assert_raises_ov_error(ImportModelError, ov_core.import_model, blob, ov_device_name,
                               call=call(ov_device_name, "import_model", f"<a {producer} blob, {len(blob)} bytes>"))


#: ovconform's blob envelope (ovconform.contract.blob): magic (8 bytes), format version (u32), ...
_MAGIC_SIZE, _VERSION_SIZE = 8, 4


def _envelope_version(blob: bytes) -> int | None:
    """The format version of a blob in ovconform's envelope (its sha256 ends it), else None."""
    head = _MAGIC_SIZE + _VERSION_SIZE
    if len(blob) < head + DIGEST_SIZE or seal(blob[:-DIGEST_SIZE]) != blob:
        return None
    return int(np.frombuffer(blob[_MAGIC_SIZE:head], "<u4")[0])


def test_blob_of_a_newer_format_is_refused(ov_core: Any, ov_device_name: str) -> None:
    """(–) a blob of a newer format version than the device reads (an export by a later version of
    the device) is refused with ImportModelError, not read as if it were the current layout. Needs a
    blob in ovconform's envelope (ovconform.contract.blob), whose version field the suite can raise."""
    blob = ov_core.compile_model(_models.build("relu"), ov_device_name).export_model()
    version = _envelope_version(blob)
    if version is None:
        pytest.skip(f"{ov_device_name}: its blob is not in ovconform's envelope (no format version to raise)")
    newer = seal(blob[:_MAGIC_SIZE] + np.array([version + 1], "<u4").tobytes()
                 + blob[_MAGIC_SIZE + _VERSION_SIZE:-DIGEST_SIZE])
    assert_raises_ov_error(ImportModelError, ov_core.import_model, newer, ov_device_name,
                           call=call(ov_device_name, "import_model", f"<a format-{version + 1} blob>"))


def test_model_ir_is_not_a_blob(ov_core: Any, ov_device_name: str) -> None:
    """(–) the IR of a model (what read_model takes, another format's header) is not an exported
    blob: import_model refuses it with ImportModelError instead of compiling it."""
    xml, _weights = ovconform.serialize(_models.build("relu"))
    where = call(ov_device_name, "import_model", f"<IR xml, {len(xml)} bytes>")
    try:
        ov_core.import_model(xml, ov_device_name)
    except ImportModelError:
        return
    except OVConformError as e:
        fail("error", f"{type(e).__name__}: {e}", "ImportModelError", where)
    fail("error", "none (the IR was imported as a compiled model)", "ImportModelError", where)
