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


def _affine(seed: int) -> Any:
    """``data [2, 8] @ W + b``: one topology, the constants drawn with ``seed``."""
    from ovconform import Model
    from ovconform import opset as ops
    rng = np.random.default_rng(seed)
    w, b = rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    x = ops.parameter([2, 8], np.float32, name="data")
    x.output(0).set_names({"data"})
    y = ops.add(ops.matmul(x, ops.constant(w, name="weights"), False, False), ops.constant(b, name="bias"),
                name="bias_add")
    y.output(0).set_names({"out"})
    return Model([y], [x], "Affine")


def test_same_topology_other_constants(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """(–) with CACHE_DIR, two models of one topology and other constants (weights, bias), each
    compiled twice in turn (A, B, A, B: the second pair from the cache), each give their own
    results: a cached program is never shared by graphs that differ in their constants only."""
    models = {"A": _affine(41), "B": _affine(42)}
    x = np.random.default_rng(43).standard_normal((2, 8)).astype(np.float32)
    plain = {k: _infer(_compile(ov_core, ov_device_name, m, f"model {k}, no cache"), {"data": x},
                       call(ov_device_name, "infer", f"model {k}", "no cache"))[0] for k, m in models.items()}
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    for attempt in (1, 2):
        for k, model in models.items():
            what = f"model {k} (constants seed {41 if k == 'A' else 42}), CACHE_DIR, compile #{attempt}"
            where = call(ov_device_name, "compile_model+infer", what) + " after " + \
                ("model A" if k == "B" else "nothing" if attempt == 1 else "model B")
            got = _infer(_compile(ov_core, ov_device_name, model, what), {"data": x}, where)[0]
            assert_outputs_close(got, plain[k], f"output of model {k} vs. its uncached run (model "
                                 f"{'B' if k == 'A' else 'A'} has the same topology, other constants)",
                                 where, rtol=0, atol=0)


def test_plugin_property_change_is_not_served_a_stale_blob(ov_core: Any, ov_device_name: str,
                                                            tmp_path: Path) -> None:
    """(–) with CACHE_DIR, a compile after the device's INFERENCE_PRECISION_HINT was set to f16 and
    back runs under the current value: it reports the hint it had before, and its outputs equal
    an uncached compile's (the blob made under f16 is not loaded as is; a device lists in
    CACHING_PROPERTIES what changes its compiled program, or applies the current configuration on
    import)."""
    model = _models.build("matmul_bias")
    inputs = _models.make_inputs(model, seed=44)
    with no_error(call(ov_device_name, "get_property", P.INFERENCE_PRECISION_HINT)):
        before = ov_core.get_property(ov_device_name, P.INFERENCE_PRECISION_HINT)
    if P.to_string(before) == "f16":
        pytest.skip(f"{ov_device_name}: INFERENCE_PRECISION_HINT is f16 already")
    plain = _infer(_compile(ov_core, ov_device_name, model, "no cache"), inputs,
                   call(ov_device_name, "infer", model.friendly_name, "no cache"))
    try:
        ov_core.set_property(ov_device_name, {P.INFERENCE_PRECISION_HINT: "f16"})
    except Exception as e:  # noqa: BLE001 - a device without f16 inference
        pytest.skip(f"{ov_device_name}: set_property(INFERENCE_PRECISION_HINT=f16) refused: {str(e)[:200]}")
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    _compile(ov_core, ov_device_name, model, "INFERENCE_PRECISION_HINT=f16 on the device, fills the cache")
    with no_error(call(ov_device_name, "set_property", {P.INFERENCE_PRECISION_HINT: P.to_string(before)})):
        ov_core.set_property(ov_device_name, {P.INFERENCE_PRECISION_HINT: before})
    compiled = _compile(ov_core, ov_device_name, model, f"INFERENCE_PRECISION_HINT back to {P.to_string(before)}")
    where = call(ov_device_name, "compile_model", model.friendly_name) + \
        f" with CACHE_DIR after set_property(INFERENCE_PRECISION_HINT) f16 -> {P.to_string(before)}"
    with no_error(call(ov_device_name, "CompiledModel.get_property", P.INFERENCE_PRECISION_HINT)):
        hint = compiled.get_property(P.INFERENCE_PRECISION_HINT)
    assert_equal(P.to_string(hint), P.to_string(before), f"{P.INFERENCE_PRECISION_HINT} of the compiled model "
                 "(the device's current value, not that of the cached f16 blob)", where)
    for i, (got, want) in enumerate(zip(_infer(compiled, inputs, where), plain, strict=True)):
        assert_outputs_close(got, want, f"output {i} vs. the uncached run under {P.to_string(before)}", where,
                             rtol=0, atol=0)


def test_cached_blob_serves_its_own_device_id(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """(–) on a device with several ids (AVAILABLE_DEVICES), with CACHE_DIR: a model compiled after
    set_property(DEVICE_ID=<id>) runs on that id (its DEVICE_ID and EXECUTION_DEVICES name it), for
    each id in turn, also when a blob for another id is in the cache (a device whose compiled
    program depends on the id lists DEVICE_ID in CACHING_PROPERTIES, or the Core's key misses it)."""
    with no_error(call(ov_device_name, "get_property", P.AVAILABLE_DEVICES)):
        ids = [str(i) for i in ov_core.get_property(ov_device_name, P.AVAILABLE_DEVICES)]
    if len(ids) < 2:
        pytest.skip(f"{ov_device_name}: AVAILABLE_DEVICES is {ids}: its plugin does not declare two device ids")
    model = _models.build("relu")
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    for attempt in (1, 2):
        for device_id in ids:
            with no_error(call(ov_device_name, "set_property", {P.DEVICE_ID: device_id})):
                ov_core.set_property(ov_device_name, {P.DEVICE_ID: device_id})
            compiled = _compile(ov_core, ov_device_name, model, f"DEVICE_ID={device_id}, CACHE_DIR, #{attempt}")
            where = call(ov_device_name, "compile_model", model.friendly_name) + \
                f" after set_property(DEVICE_ID={device_id!r}), CACHE_DIR, round {attempt} over the ids {ids}"
            with no_error(where + "; get_property(DEVICE_ID, EXECUTION_DEVICES)"):
                got_id = str(compiled.get_property(P.DEVICE_ID))
                executing = [str(d) for d in compiled.get_property(P.EXECUTION_DEVICES)]
            assert_equal(got_id, device_id, f"{P.DEVICE_ID} of the compiled model", where)
            others = [d for d in executing if d not in (ov_device_name, f"{ov_device_name}.{device_id}")]
            assert_equal(others, [], f"{P.EXECUTION_DEVICES} entries naming another id than {device_id!r} "
                         f"(all: {executing})", where)
