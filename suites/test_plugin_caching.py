"""Model caching (``ov_plugin`` entity): ``behavior/ov_plugin/caching_tests.hpp``.

* CompileModelCacheTestBase.CompareWithRefImpl — O, over the suite models (f32) and the simple
  ones in five more element types: no cache gives LOADED_FROM_CACHE false; with CACHE_DIR the
  first compile writes a blob (false), the second imports it (true); outputs equal the uncached
  run exactly; the blob count is > 0 and stable.
* CompileModelCacheRuntimePropertiesTestBase.CanLoadFromFileWithoutException — O: a corrupted
  blob is dropped and replaced by exactly one new blob.
* Other caching fixtures (–, optional): compile from a file path and from memory (XML + weights,
  and XML with empty weights), a unicode cache path, two equal models sharing one blob.
* Beyond OpenVINO (–, optional; seeds 000/002): a model loaded from the cache reports the
  configuration it was compiled with, and that configuration is in force.

OpenVINO *fails* CompareWithRefImpl when EXPORT_IMPORT is missing; here the capability marker
skips it, naming what is missing (behaviours.md §5.2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovconform
from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, assert_that, call, no_error
from ovconform.suites import _models
from ovconform.suites._helpers import check_outputs

pytestmark = [pytest.mark.entity("ov_plugin"), pytest.mark.capability("EXPORT_IMPORT")]

SIMPLE_TYPES = ("f16", "f64", "i32", "i64", "u8")
CACHE_CASES = [(name, "f32") for name in _models.CASES] + \
    [(name, t) for name in ("relu", "multiply", "subtract") for t in SIMPLE_TYPES]


def _blobs(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.blob"))


def _infer(compiled: Any, inputs: dict[str, np.ndarray], where: str) -> list[np.ndarray]:
    with no_error(where):
        return list(compiled.create_infer_request().infer(inputs).values())


def _compile(core: Any, device: str, model: Any, what: str) -> Any:
    with no_error(call(device, "compile_model", model.friendly_name) + f" ({what})"):
        return core.compile_model(model, device)


def _loaded(compiled: Any, device: str) -> Any:
    with no_error(call(device, "CompiledModel.get_property", P.LOADED_FROM_CACHE)):
        return compiled.get_property(P.LOADED_FROM_CACHE)


@pytest.mark.parametrize(("name", "dtype"), CACHE_CASES, ids=[f"{n}-{t}" for n, t in CACHE_CASES])
def test_compare_with_ref_impl(ov_core: Any, ov_device_name: str, tmp_path: Path, name: str, dtype: str) -> None:
    """CompileModelCacheTestBase.CompareWithRefImpl."""
    model = _models.build(name, dtype)
    inputs = _models.make_inputs(model, seed=5)
    plain = _compile(ov_core, ov_device_name, model, "no cache")
    assert_equal(_loaded(plain, ov_device_name), False, P.LOADED_FROM_CACHE, call(ov_device_name, "compile_model",
                                                                                    model.friendly_name, "no cache"))
    reference = _infer(plain, inputs, call(ov_device_name, "infer", model.friendly_name, "no cache"))
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    counts = []
    for attempt, want_loaded in enumerate((False, True)):
        where = call(ov_device_name, "compile_model", model.friendly_name, f"CACHE_DIR, compile #{attempt + 1}")
        compiled = _compile(ov_core, ov_device_name, model, f"CACHE_DIR, compile #{attempt + 1}")
        assert_equal(_loaded(compiled, ov_device_name), want_loaded, P.LOADED_FROM_CACHE, where)
        for i, (got, want) in enumerate(zip(_infer(compiled, inputs, where), reference, strict=True)):
            assert_outputs_close(got, want, f"output {i} vs. the uncached run", where, rtol=0, atol=0)
        counts.append(len(_blobs(tmp_path)))
    assert_that(counts[0] > 0 and counts[0] == counts[1], "blob files after compile #1, #2", counts,
                "a stable count > 0", str(tmp_path))


def test_corrupted_blob_is_replaced(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """CompileModelCacheRuntimePropertiesTestBase.CanLoadFromFileWithoutException: the cache is
    reused; a blob whose header is corrupted is dropped and exactly one new blob is written."""
    model = _models.build("conv_pool_relu")
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    _compile(ov_core, ov_device_name, model, "fills the cache")
    blobs = _blobs(tmp_path)
    where = call(ov_device_name, "compile_model", model.friendly_name, "CACHE_DIR")
    assert_equal(len(blobs), 1, "blob files", where)
    assert_equal(_loaded(_compile(ov_core, ov_device_name, model, "reuses"), ov_device_name), True,
                 P.LOADED_FROM_CACHE, where)
    data = bytearray(blobs[0].read_bytes())
    data[:8] = b"CORRUPT!"
    blobs[0].write_bytes(bytes(data))
    compiled = _compile(ov_core, ov_device_name, model, "after corruption")
    assert_equal(_loaded(compiled, ov_device_name), False, P.LOADED_FROM_CACHE, where + " after corrupting the blob")
    after = _blobs(tmp_path)
    assert_equal(len(after), 1, "blob files after corruption", where)
    assert_that(after[0].read_bytes()[:8] != b"CORRUPT!", "new blob header", after[0].read_bytes()[:8],
                "not the corrupted one", where)
    inputs = _models.make_inputs(model)
    check_outputs(compiled.create_infer_request().infer(inputs), model, inputs, "conv_pool_relu", where)


def test_unicode_cache_dir(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """CompileModelLoadFromFileTestBase.CanCreateCacheDirAndDumpBinariesUnicodePath (–)."""
    folder = tmp_path / "кэш_缓存_ñ"
    model = _models.build("relu")
    ov_core.set_property({P.CACHE_DIR: str(folder)})
    _compile(ov_core, ov_device_name, model, "unicode CACHE_DIR")
    compiled = _compile(ov_core, ov_device_name, model, "unicode CACHE_DIR again")
    where = call(ov_device_name, "compile_model", model.friendly_name, f"CACHE_DIR={str(folder)!r}")
    assert_equal(len(_blobs(folder)), 1, "blob files", where)
    assert_equal(_loaded(compiled, ov_device_name), True, P.LOADED_FROM_CACHE, where)


def test_two_equal_models_share_one_blob(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """CompiledKernelsCacheTest.TwoNetworksWithSameModelCreatesSameCache (–)."""
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    first = _compile(ov_core, ov_device_name, _models.build("split_conv_concat"), "first build")
    second = _compile(ov_core, ov_device_name, _models.build("split_conv_concat"), "second, equal build")
    where = call(ov_device_name, "compile_model", "SplitConvConcat", "built twice, CACHE_DIR")
    assert_equal(len(_blobs(tmp_path)), 1, "blob files", where)
    assert_equal((_loaded(first, ov_device_name), _loaded(second, ov_device_name)), (False, True),
                 "LOADED_FROM_CACHE of the two compiles", where)


def test_compile_from_file_path(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """CompileModelLoadFromFileTestBase.CanLoadFromFileWithoutException (–): compile an IR by path,
    with a cache, twice."""
    model = _models.build("kso")
    xml = tmp_path / "kso.xml"
    ovconform.serialize(model, xml)
    ov_core.set_property({P.CACHE_DIR: str(tmp_path / "cache")})
    for attempt in (1, 2):
        where = call(ov_device_name, "compile_model", str(xml), f"#{attempt}")
        with no_error(where):
            compiled = ov_core.compile_model(str(xml), ov_device_name)
        inputs = _models.make_inputs(model)
        check_outputs(compiled.create_infer_request().infer(inputs), model, inputs, "kso", where)


@pytest.mark.parametrize("name", ["relu", "matmul_bias"], ids=["without_weights", "with_weights"])
def test_compile_from_memory(ov_core: Any, ov_device_name: str, tmp_path: Path, name: str) -> None:
    """CompileModelLoadFromMemoryTestBase.CanLoadFromMemoryWithoutExecption /
    ...WithoutWeightsANdExecption (–): (XML bytes, weights bytes), with a cache, twice."""
    model = _models.build(name)
    xml, weights = ovconform.serialize(model)
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    for attempt in (1, 2):
        where = call(ov_device_name, "compile_model", f"(<{len(xml)} bytes xml>, <{len(weights)} bytes>)",
                     f"#{attempt}")
        with no_error(where):
            compiled = ov_core.compile_model((xml, weights), ov_device_name)
        inputs = _models.make_inputs(model)
        check_outputs(compiled.create_infer_request().infer(inputs), model, inputs, name, where)


CACHED_CONFIG = {P.PERF_COUNT: True, P.EXECUTION_MODE_HINT: "PERFORMANCE"}


def test_cache_hit_keeps_compile_config(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """(–) the second compile with CACHE_DIR and a compile configuration comes from the cache and
    reports what the first reports for each key (the configuration travels in the blob, seed 000);
    with PERF_COUNT on, its requests have profiling information."""
    model = _models.build("conv_pool_relu")
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    first = _compile_with(ov_core, ov_device_name, model, CACHED_CONFIG, "fills the cache")
    second = _compile_with(ov_core, ov_device_name, model, CACHED_CONFIG, "from the cache")
    where = call(ov_device_name, "compile_model", model.friendly_name, CACHED_CONFIG) + " #2 with CACHE_DIR"
    assert_equal(_loaded(second, ov_device_name), True, P.LOADED_FROM_CACHE, where)
    for name in CACHED_CONFIG:
        with no_error(call(ov_device_name, "CompiledModel.get_property", name)):
            want, got = first.get_property(name), second.get_property(name)
        assert_equal(P.to_string(got), P.to_string(want), f"{name} of the model loaded from the cache", where)
    request = second.create_infer_request()
    with no_error(where + "; infer + get_profiling_info"):
        request.infer(_models.make_inputs(model))
        info = request.get_profiling_info()
    assert_equal(bool(info), True, "profiling information of the cached model (PERF_COUNT=True)", where)


def _compile_with(core: Any, device: str, model: Any, config: dict[str, Any], what: str) -> Any:
    with no_error(call(device, "compile_model", model.friendly_name, config) + f" ({what})"):
        return core.compile_model(model, device, config)
