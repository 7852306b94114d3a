"""Weightless blobs and the compiled-blob hint (``ov_compiled_model`` entity): OpenVINO's
``compiled_model/compiled_model_base.hpp`` bodies import_from_weightless_blob, compile_from_regular_blob,
compile_from_weightless_blob(_but_no_weights), compile_from_cached_weightless_blob_{use_weight_hint,
no_hint,but_no_weights}, use_blob_hint_has_priority_over_cache (and its two variants),
use_blob_hint_which_fails_load_from_cache, WeightlessCacheAccuracy (f32 models) and
WeightlessCacheAccuracyLowPrecision (MatmulWeightsDecompression: u8, i8 and f16 weights).

* ``CACHE_MODE=OPTIMIZE_SIZE`` (or ``ENABLE_WEIGHTLESS``) exports a blob without the weights; import
  needs ``WEIGHTS_PATH`` (the model's ``.bin``) and takes the weights from that file; without it
  (or with a file of the wrong size) import raises ImportModelError.
* ``COMPILED_BLOB`` (``ov::hint::compiled_blob``, a Core feature): compile_model imports the blob
  instead of compiling; if it cannot, the model is compiled (from the cache with CACHE_DIR); with an
  empty model that is an ImportModelError.
* With CACHE_DIR, CACHE_MODE and WEIGHTS_PATH are not part of the cache key: a weightless cache blob
  is loaded when the weights are given and compiled again (never an error) when they are not.

The model is OpenVINO's ``make_model_with_weights``: ``add = input[1] + weights[5]``; the weights
file the bodies write holds other weights (1, 3, 1, 1, 1), so the numbers show where the weights
came from. The weightless tests need CACHE_MODE and WEIGHTS_PATH in SUPPORTED_PROPERTIES (optional
properties: they skip otherwise, and count as optional); the hint tests only need EXPORT_IMPORT.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovconform
from ovconform import Model
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, assert_raises_ov_error, assert_that, call, no_error
from ovconform.errors import ImportModelError, OVConformError
from ovconform.suites import _models
from ovconform.suites._helpers import check_outputs

pytestmark = [pytest.mark.entity("ov_compiled_model"), pytest.mark.capability("EXPORT_IMPORT")]

ORIGINAL = np.ones(5, np.float32)
IN_FILE = np.array([1, 3, 1, 1, 1], np.float32)  # "not same as in original model"
INPUT = np.array([2], np.float32)
SECOND_INPUT = np.array([-3.5], np.float32)  # a second inference of the same request


def make_model_with_weights(weights: np.ndarray = ORIGINAL) -> Model:
    x = ops.parameter([1], np.float32, name="input")
    x.output(0).set_names({"input"})
    add = ops.add(x, ops.constant(np.asarray(weights, np.float32), name="weights"), name="add")
    add.output(0).set_names({"add"})
    return Model([ops.result(add)], [x], "Simple with weights")


def _empty() -> Model:
    return Model([], [], "Empty model")


def _weights_file(folder: Path, values: np.ndarray = IN_FILE, name: str = "weights.bin") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(np.asarray(values, np.float32).tobytes())
    return path


def _compile(core: Any, device: str, model: Any, config: dict[str, Any], what: str = "") -> Any:
    shown = {k: (f"<{len(v)} bytes>" if isinstance(v, bytes) else v) for k, v in config.items()}
    with no_error(call(device, "compile_model", getattr(model, "friendly_name", str(model)), shown, what)):
        return core.compile_model(model, device, config)


def _check(compiled: Any, weights: np.ndarray, where: str) -> None:
    """``add`` for input 2 must be 2 + ``weights``; a second inference of the request, for input
    -3.5, must be -3.5 + ``weights`` (the weights are not overwritten by the first)."""
    req = None
    for value in (INPUT, SECOND_INPUT):
        with no_error(f"{where}; infer"):
            req = req or compiled.create_infer_request()
            req.infer({"input": value})
            got = np.array(req.get_tensor("add").data)
        assert_outputs_close(got, value + weights, "add", f"{where}; input {value.tolist()}")


def _loaded(compiled: Any, device: str, expected: bool, what: str) -> None:
    where = call(device, "CompiledModel.get_property", P.LOADED_FROM_CACHE, what)
    with no_error(where):
        value = compiled.get_property(P.LOADED_FROM_CACHE)
    assert_equal(bool(value), expected, "LOADED_FROM_CACHE", where)


def _big_model() -> tuple[Model, bytes]:
    """A model whose 16 KiB of weights dwarf its XML; and those weights as serialize writes them."""
    weights = np.random.default_rng(7).standard_normal(4096).astype(np.float32)
    model = make_model_with_weights(weights)
    return model, ovconform.serialize(model)[1]


# -- weightless export and import -----------------------------------------------------------------
@pytest.mark.parametrize("config", [{P.CACHE_MODE: "OPTIMIZE_SIZE"}, {P.ENABLE_WEIGHTLESS: True}],
                         ids=["CACHE_MODE", "ENABLE_WEIGHTLESS"])
def test_weightless_export_leaves_the_weights_out(ov_core: Any, ov_device_name: str, config: dict[str, Any]) -> None:
    """A weightless export leaves the weights out (it is smaller than they are); a regular one holds them."""
    _require(ov_core, ov_device_name, next(iter(config)), P.WEIGHTS_PATH)
    model, weights = _big_model()
    where = call(ov_device_name, "CompiledModel.export_model", model.friendly_name, config)
    with no_error(where):
        weightless = _compile(ov_core, ov_device_name, model, config).export_model()
        regular = _compile(ov_core, ov_device_name, model, {}).export_model()
    assert_that(weights in regular, "a regular blob holds the weights", len(regular), f">= {len(weights)} bytes "
                "with the weights inside", where)
    assert_that(len(weightless) < len(weights) and weights[:256] not in weightless,
                "a weightless blob leaves the weights out", f"{len(weightless)} bytes",
                f"fewer than the {len(weights)} bytes of weights, none of them inside", where)


@pytest.mark.parametrize("mode", ["OPTIMIZE_SIZE", "OPTIMIZE_SPEED"])
@pytest.mark.requires_property(P.CACHE_MODE)
def test_compiled_model_reports_cache_mode(ov_core: Any, ov_device_name: str, mode: str) -> None:
    """import_from_weightless_blob / compile_from_regular_blob: CACHE_MODE reads back on the compiled model."""
    compiled = _compile(ov_core, ov_device_name, make_model_with_weights(),
                        {P.CACHE_MODE: mode} if mode == "OPTIMIZE_SIZE" else {})
    where = call(ov_device_name, "CompiledModel.get_property", P.CACHE_MODE)
    with no_error(where):
        value = compiled.get_property(P.CACHE_MODE)
    assert_equal(str(getattr(value, "value", value)), mode, P.CACHE_MODE, where)


@pytest.mark.parametrize("weights_path", ["none", "missing", "wrong size"])
@pytest.mark.requires_property(P.CACHE_MODE)
def test_import_from_weightless_blob_needs_its_weights(ov_core: Any, ov_device_name: str, tmp_path: Path,
                                                       weights_path: str) -> None:
    """import_from_weightless_blob: no WEIGHTS_PATH (or a missing or wrong-size file), no import."""
    blob = _compile(ov_core, ov_device_name, make_model_with_weights(), {P.CACHE_MODE: "OPTIMIZE_SIZE"}).export_model()
    config = {"none": {}, "missing": {P.WEIGHTS_PATH: str(tmp_path / "absent.bin")},
              "wrong size": {P.WEIGHTS_PATH: str(_weights_file(tmp_path, IN_FILE[:4]))}}[weights_path]
    assert_raises_ov_error(ImportModelError, ov_core.import_model, blob, ov_device_name, config,
                           call=call(ov_device_name, "import_model", "<weightless blob>",
                                     f"WEIGHTS_PATH: {weights_path}"))


@pytest.mark.parametrize("weights", ["original", "other"])
def test_import_weightless_blob_with_weights_path(ov_core: Any, ov_device_name: str, tmp_path: Path,
                                                  weights: str) -> None:
    """The weights come from WEIGHTS_PATH: the model's own .bin gives its numbers; a file of other
    weights (compile_from_weightless_blob's) gives those."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    model = make_model_with_weights()
    values = ORIGINAL if weights == "original" else IN_FILE
    if weights == "original":
        ovconform.serialize(model, tmp_path / "model.xml")
        path = tmp_path / "model.bin"
    else:
        path = _weights_file(tmp_path, values)
    blob = _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE"}).export_model()
    where = call(ov_device_name, "import_model", "<weightless blob>", {P.WEIGHTS_PATH: path.name})
    with no_error(where):
        imported = ov_core.import_model(blob, ov_device_name, {P.WEIGHTS_PATH: str(path)})
    _check(imported, values, where)


def _require(core: Any, device: str, *names: str) -> None:
    """Skip (as the requires_property marker does) unless the device lists every name."""
    try:
        supported = core.get_property(device, P.SUPPORTED_PROPERTIES)
    except OVConformError:
        supported = []
    missing = [n for n in names if n not in supported]
    if missing:
        pytest.skip(f"{device}: property {missing[0]!r} not in SUPPORTED_PROPERTIES")


# -- the compiled-blob hint -----------------------------------------------------------------------
def test_compile_from_regular_blob(ov_core: Any, ov_device_name: str) -> None:
    """compile_from_regular_blob: an empty model with COMPILED_BLOB is the exported model."""
    blob = _compile(ov_core, ov_device_name, make_model_with_weights(), {}).export_model()
    compiled = _compile(ov_core, ov_device_name, _empty(), {P.COMPILED_BLOB: blob})
    _check(compiled, ORIGINAL, call(ov_device_name, "compile_model", "Empty model", "COMPILED_BLOB"))


def test_empty_model_with_a_bad_blob_is_refused(ov_core: Any, ov_device_name: str) -> None:
    """An empty model and a blob that cannot be imported: nothing to compile, ImportModelError."""
    assert_raises_ov_error(ImportModelError, ov_core.compile_model, _empty(), ov_device_name,
                           {P.COMPILED_BLOB: b"not a blob"},
                           call=call(ov_device_name, "compile_model", "Empty model", "COMPILED_BLOB=b'not a blob'"))


@pytest.mark.parametrize("blob", ["empty", "garbage"])
def test_model_is_compiled_when_the_blob_cannot_be_imported(ov_core: Any, ov_device_name: str, blob: str) -> None:
    """A blob hint that fails falls back to compiling the model."""
    data = {"empty": b"", "garbage": b"not a blob"}[blob]
    compiled = _compile(ov_core, ov_device_name, make_model_with_weights(), {P.COMPILED_BLOB: data})
    _check(compiled, ORIGINAL, call(ov_device_name, "compile_model", f"COMPILED_BLOB: {blob}"))


def test_compile_from_weightless_blob(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """compile_from_weightless_blob: COMPILED_BLOB (weightless) + WEIGHTS_PATH on an empty model."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    blob = _compile(ov_core, ov_device_name, make_model_with_weights(), {P.CACHE_MODE: "OPTIMIZE_SIZE"}).export_model()
    path = _weights_file(tmp_path)
    compiled = _compile(ov_core, ov_device_name, _empty(), {P.COMPILED_BLOB: blob, P.WEIGHTS_PATH: str(path),
                                                            P.CACHE_MODE: "OPTIMIZE_SIZE"})
    _check(compiled, IN_FILE, call(ov_device_name, "compile_model", "Empty model", "COMPILED_BLOB + WEIGHTS_PATH"))


def test_compile_from_weightless_blob_but_no_weights(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """compile_from_weightless_blob_but_no_weights: WEIGHTS_PATH names no file, so the model is compiled."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    model = make_model_with_weights()
    blob = _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE"}).export_model()
    compiled = _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE", P.COMPILED_BLOB: blob,
                                                         P.WEIGHTS_PATH: str(tmp_path / "absent.bin")})
    _check(compiled, ORIGINAL, call(ov_device_name, "compile_model", "COMPILED_BLOB, WEIGHTS_PATH of no file"))


# -- the cache ------------------------------------------------------------------------------------
@pytest.fixture
def cache_dir(ov_core: Any, tmp_path: Path) -> Any:
    folder = tmp_path / "cache"
    folder.mkdir()
    ov_core.set_property({P.CACHE_DIR: str(folder)})
    yield folder
    ov_core.set_property({P.CACHE_DIR: ""})


def _true_weights(folder: Path) -> Path:
    """The model's own weights file (what serialize writes: the 5 ones)."""
    return _weights_file(folder, ORIGINAL, "model.bin")


def test_compile_from_cached_weightless_blob_use_weight_hint(ov_core: Any, ov_device_name: str,
                                                             cache_dir: Path) -> None:
    """CACHE_DIR + OPTIMIZE_SIZE + WEIGHTS_PATH: the second compile is loaded from the cache, right."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    config = {P.CACHE_MODE: "OPTIMIZE_SIZE", P.WEIGHTS_PATH: str(_true_weights(cache_dir))}
    model = make_model_with_weights()
    _loaded(_compile(ov_core, ov_device_name, model, config, "first"), ov_device_name, False, "first compile")
    second = _compile(ov_core, ov_device_name, model, config, "second")
    _loaded(second, ov_device_name, True, "second compile")
    _check(second, ORIGINAL, call(ov_device_name, "compile_model", "from the weightless cache blob"))


def test_compile_from_cached_weightless_blob_no_hint(ov_core: Any, ov_device_name: str, cache_dir: Path) -> None:
    """Cached with OPTIMIZE_SIZE, compiled again with only WEIGHTS_PATH: CACHE_MODE is no part of
    the key, the weightless blob is loaded."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    model = make_model_with_weights()
    first = _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE"}, "first")
    _loaded(first, ov_device_name, False, "first compile")
    second = _compile(ov_core, ov_device_name, model, {P.WEIGHTS_PATH: str(_true_weights(cache_dir))}, "second")
    _loaded(second, ov_device_name, True, "second compile (WEIGHTS_PATH only)")
    _check(second, ORIGINAL, call(ov_device_name, "compile_model", "weightless cache blob, WEIGHTS_PATH only"))


def test_compile_from_cached_weightless_blob_but_no_weights(ov_core: Any, ov_device_name: str,
                                                            cache_dir: Path) -> None:
    """CACHE_DIR + OPTIMIZE_SIZE without WEIGHTS_PATH: the cached blob cannot be loaded, so the model
    is compiled again (no error)."""
    _require(ov_core, ov_device_name, P.CACHE_MODE)
    model = make_model_with_weights()
    config = {P.CACHE_MODE: "OPTIMIZE_SIZE"}
    _loaded(_compile(ov_core, ov_device_name, model, config, "first"), ov_device_name, False, "first compile")
    second = _compile(ov_core, ov_device_name, model, config, "second")
    _loaded(second, ov_device_name, False, "second compile (no weights to load the blob with)")
    _check(second, ORIGINAL, call(ov_device_name, "compile_model", "weightless cache blob, no WEIGHTS_PATH"))


@pytest.mark.parametrize("weights", ["none", "model rt_info", "model path"])
def test_use_blob_hint_has_priority_over_cache(ov_core: Any, ov_device_name: str, cache_dir: Path,
                                               weights: str) -> None:
    """use_blob_hint_has_priority_over_cache(_but_weights_bind_from_model_hint, _but_weights_from_model_path):
    with a cache blob ready, COMPILED_BLOB is used (not loaded from the cache); the weights for the
    weightless hint blob come from the model's ``rt_info["__weights_path"]`` or from the ``.bin``
    of a model given as a path."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    model = make_model_with_weights()
    first = _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE"}, "first")
    blob = first.export_model()
    source: Any = model
    expected = ORIGINAL
    if weights == "model rt_info":
        model.rt_info["__weights_path"] = str(_weights_file(cache_dir))  # other weights: shows they were used
        expected = IN_FILE
    elif weights == "model path":
        source = cache_dir / "model.xml"
        ovconform.serialize(model, source)
        source = str(source)
    compiled = _compile(ov_core, ov_device_name, source, {P.COMPILED_BLOB: blob}, f"weights: {weights}")
    _loaded(compiled, ov_device_name, False, f"COMPILED_BLOB beside a cache blob (weights: {weights})")
    _check(compiled, expected, call(ov_device_name, "compile_model", "COMPILED_BLOB", f"weights: {weights}"))


def test_use_blob_hint_which_fails_load_from_cache(ov_core: Any, ov_device_name: str, cache_dir: Path) -> None:
    """An empty COMPILED_BLOB fails, so the model comes from the cache (WEIGHTS_PATH given)."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    model = make_model_with_weights()
    _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE"}, "first")
    second = _compile(ov_core, ov_device_name, model,
                      {P.WEIGHTS_PATH: str(_true_weights(cache_dir)), P.COMPILED_BLOB: b""}, "second")
    _loaded(second, ov_device_name, True, "empty COMPILED_BLOB, cache blob ready")
    _check(second, ORIGINAL, call(ov_device_name, "compile_model", "empty COMPILED_BLOB, from the cache"))


@pytest.mark.parametrize("name", ["conv_pool_relu", "matmul_bias", "split_conv_concat"])
def test_weightless_cache_accuracy(ov_core: Any, ov_device_name: str, cache_dir: Path, name: str) -> None:
    """WeightlessCacheAccuracy: a model loaded from a weightless cache blob (its weights from the
    model's .bin) computes what the model computes."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    model = _models.build(name)
    ovconform.serialize(model, cache_dir / f"{name}.xml")
    config = {P.CACHE_MODE: "OPTIMIZE_SIZE", P.WEIGHTS_PATH: str(cache_dir / f"{name}.bin")}
    _compile(ov_core, ov_device_name, model, config, "first")
    cached = _compile(ov_core, ov_device_name, model, config, "second")
    _loaded(cached, ov_device_name, True, f"{name} from the weightless cache")
    inputs = _models.make_inputs(model)
    where = call(ov_device_name, "infer", name, "loaded from the weightless cache")
    with no_error(where):
        results = cached.create_infer_request().infer(inputs)
    check_outputs(results, model, inputs, name, where)


#: WeightlessCacheAccuracyLowPrecision.MatmulWeightsDecompression: data [1, 4, 16], weights [32, 16].
LOW_PRECISION = ("u8", "i8", "f16")


def _decompression_model(dtype: str) -> tuple[Model, np.ndarray]:
    """MatMul(data, decompressed weights, transpose_b): the weights are ``dtype`` constants,
    converted to f32, less a zero point of the same type (integers), times a per-row f32 scale.
    The model and its f32 weights as the oracle sees them."""
    rng = np.random.default_rng(11)
    x = ops.parameter([1, 4, 16], np.float32, name="data")
    x.output(0).set_names({"data"})
    scale = (rng.random((32, 1)) * 0.02 + 0.005).astype(np.float32)
    if dtype == "f16":
        raw = rng.standard_normal((32, 16)).astype(np.float16)
        zero = np.zeros((32, 1), np.float32)
        weights = ops.convert(ops.constant(raw, name="weights"), "f32", name="weights_f32")
    else:
        low, high = (0, 256) if dtype == "u8" else (-128, 128)
        raw = rng.integers(low, high, (32, 16)).astype({"u8": np.uint8, "i8": np.int8}[dtype])
        zp = rng.integers(low, high, (32, 1)).astype(raw.dtype)
        zero = zp.astype(np.float32)
        weights = ops.subtract(ops.convert(ops.constant(raw, name="weights"), "f32", name="weights_f32"),
                               ops.convert(ops.constant(zp, name="zero_point"), "f32", name="zero_point_f32"),
                               name="shifted")
    scaled = ops.multiply(weights, ops.constant(scale, name="scale"), name="decompressed")
    out = ops.matmul(x, scaled, False, True, name="matmul")
    out.output(0).set_names({"matmul"})
    return Model([ops.result(out)], [x], f"MatmulWeightsDecompression_{dtype}"), \
        (raw.astype(np.float32) - zero) * scale


@pytest.mark.parametrize("dtype", LOW_PRECISION)
def test_weightless_cache_accuracy_low_precision(ov_core: Any, ov_device_name: str, cache_dir: Path,
                                                 dtype: str) -> None:
    """WeightlessCacheAccuracyLowPrecision.MatmulWeightsDecompression: a MatMul whose weights are
    ``dtype`` constants, loaded from a weightless cache blob (the weights from the model's .bin),
    computes what the uncached model and the oracle compute."""
    _require(ov_core, ov_device_name, P.CACHE_MODE, P.WEIGHTS_PATH)
    model, weights = _decompression_model(dtype)
    ovconform.serialize(model, cache_dir / "model.xml")
    config = {P.CACHE_MODE: "OPTIMIZE_SIZE", P.WEIGHTS_PATH: str(cache_dir / "model.bin")}
    first = _compile(ov_core, ov_device_name, model, config, "first")
    cached = _compile(ov_core, ov_device_name, model, config, "second")
    _loaded(cached, ov_device_name, True, f"{dtype} weights from the weightless cache")
    x = np.random.default_rng(3).uniform(-100, 100, (1, 4, 16)).astype(np.float32)
    want = x @ weights.T
    for compiled, what in ((first, "compiled"), (cached, "loaded from the weightless cache")):
        where = call(ov_device_name, "infer", model.friendly_name, what)
        with no_error(where):
            request = compiled.create_infer_request()
            request.infer({"data": x})
            got = request.get_tensor("matmul").data
        assert_outputs_close(got, want, "matmul", where, rtol=1e-4, atol=1e-3)
