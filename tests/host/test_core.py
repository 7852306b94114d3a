"""ovconform.Core: registry, DEVICE.id addressing, property merging, caching, threads."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from plugins.fake_device import BrokenBackendPlugin, FakePlugin, NoExportPlugin, relu_expected, relu_model

import ovconform
from ovconform import Core
from ovconform import opset as ops
from ovconform.errors import DeviceInitError, NotFoundError, PropertyError, ReadModelError, ValidationError
from ovconform.host.core import get_plugin_discovery, set_plugin_discovery

pytestmark = pytest.mark.timeout(60)
X = np.array([[-3, -2, -1], [0, 1, 2]], dtype=np.float32)


@pytest.fixture
def core() -> Core:
    return Core([FakePlugin], discover=False)


def _blobs(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.blob"))


# -- registry -----------------------------------------------------------------------------------
def test_plugin_classes_are_created_on_first_use() -> None:
    made: list[int] = []

    class Counting(FakePlugin):
        device_name = "COUNT"

        def _init_backend(self) -> None:
            made.append(1)

    core = Core(discover=False)
    assert core.register_plugin(Counting) == "COUNT"
    assert made == []
    core.get_versions("COUNT")
    core.compile_model(relu_model(), "COUNT")
    assert made == [1]


def test_register_instances_factories_and_module_paths() -> None:
    core = Core(discover=False)
    instance = FakePlugin("INST")
    core.register_plugin(instance)
    core.register_plugin(lambda: FakePlugin("FACT"), "FACT")
    core.register_plugin("plugins.fake_device:NoExportPlugin")
    core.register_plugin(FakePlugin, "RENAMED")
    assert core.get_plugin("INST") is instance and instance.get_core() is core
    assert core.get_plugin("RENAMED").device_name == "RENAMED"
    assert core.registered_devices() == ["FACT", "INST", "NOEXPORT", "RENAMED"]
    assert Core({"MAPPED": FakePlugin}, discover=False).registered_devices() == ["MAPPED"]


@pytest.mark.parametrize("plugin,name,error,match", [
    (FakePlugin, "FAKE", ValidationError, "already registered"),
    (FakePlugin, "BAD.NAME", ValidationError, "without '.'"),
    (42, None, ValidationError, "not a plugin"),
    ("plugins.fake_device:NoSuchPlugin", None, NotFoundError, "cannot load plugin"),
])
def test_register_errors(core: Core, plugin: Any, name: str | None, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        core.register_plugin(plugin, name)


def test_available_devices_use_ids_and_skip_broken_backends() -> None:
    core = Core([FakePlugin, NoExportPlugin, BrokenBackendPlugin], discover=False)
    NoExportPlugin.device_ids = ("",)
    try:
        assert core.available_devices == core.get_available_devices() == ["FAKE.0", "FAKE.1", "NOEXPORT"]
    finally:
        del NoExportPlugin.device_ids
    with pytest.raises(DeviceInitError, match="device 'BROKEN'.*libfakedriver"):
        core.compile_model(relu_model(), "BROKEN")


def test_unknown_devices_list_the_registered_ones(core: Core) -> None:
    with pytest.raises(NotFoundError, match=r"'NPU' name is not registered in the Core; registered devices: \['FAKE'"):
        core.compile_model(relu_model(), "NPU")
    with pytest.raises(NotFoundError):
        core.set_property("NPU", {"PERF_COUNT": True})
    with pytest.raises(NotFoundError):
        core.get_versions("NPU")


def test_unload_plugin_recreates_from_the_class(core: Core) -> None:
    first = core.get_plugin("FAKE")
    core.unload_plugin("FAKE")
    assert core.get_plugin("FAKE") is not first
    with pytest.raises(NotFoundError, match="not registered"):
        core.unload_plugin("NOPE")


def test_discovery_hook_registers_plugins_once() -> None:
    calls: list[int] = []

    def discover() -> list[Any]:
        calls.append(1)
        return [FakePlugin, ("OTHER", FakePlugin)]

    old = get_plugin_discovery()
    set_plugin_discovery(discover)
    try:
        core = Core()
        assert calls == []  # lazy: nothing runs until a device is looked up
        assert core.registered_devices() == ["FAKE", "OTHER"]
        assert core.available_devices == ["FAKE.0", "FAKE.1", "OTHER.0", "OTHER.1"]
        assert calls == [1]
        assert Core(discover=False).registered_devices() == []
        explicit = FakePlugin()
        assert Core([explicit]).get_plugin("FAKE") is explicit  # explicit registration wins
    finally:
        set_plugin_discovery(old)


def test_get_versions(core: Core) -> None:
    versions = core.get_versions("FAKE.1")
    assert list(versions) == ["FAKE"]
    assert versions["FAKE"].build_number and versions["FAKE"].description


# -- compile / query / import ---------------------------------------------------------------------
def test_compile_on_device_ids(core: Core) -> None:
    assert core.compile_model(relu_model(), "FAKE.1").get_property("EXECUTION_DEVICES") == ["FAKE.1"]
    assert core.compile_model(relu_model(), "FAKE").get_property("EXECUTION_DEVICES") == ["FAKE.0"]
    with pytest.raises(PropertyError, match="'DEVICE_ID'.*Supported values"):
        core.compile_model(relu_model(), "FAKE.110")
    with pytest.raises(ValidationError, match="empty id"):
        core.compile_model(relu_model(), "FAKE.")
    with pytest.raises(ValidationError, match="disagree"):
        core.compile_model(relu_model(), "FAKE.1", {"DEVICE_ID": "0"})


def test_compile_with_the_only_device_when_none_is_named(core: Core) -> None:
    assert core.compile_model(relu_model()).device_name == "FAKE"
    core.register_plugin(NoExportPlugin)
    with pytest.raises(ValidationError, match="2 devices are registered"):
        core.compile_model(relu_model())


def test_compile_from_a_path_and_from_memory(core: Core, tmp_path: Path) -> None:
    xml_path = tmp_path / "m.xml"
    ovconform.serialize(relu_model(), xml_path)
    xml, weights = ovconform.serialize(relu_model())
    for source in (xml_path, str(xml_path), (xml, weights)):
        out = core.compile_model(source, "FAKE").create_infer_request().infer({"x": X})
        np.testing.assert_array_equal(out["y"], relu_expected(X))
    assert core.read_model(xml_path).friendly_name == "relu_model"
    with pytest.raises(ReadModelError):
        core.compile_model(tmp_path / "missing.xml", "FAKE")
    with pytest.raises(ValidationError, match="needs a Model, a path or"):
        core.compile_model(12, "FAKE")


def test_query_and_import_through_the_core(core: Core) -> None:
    model = relu_model()
    assert set(core.query_model(model, "FAKE.1").values()) == {"FAKE.1"}
    blob = core.compile_model(model, "FAKE").export_model()
    imported = core.import_model(blob, "FAKE", {"PERF_COUNT": True})
    assert imported.get_property("PERF_COUNT") is True
    np.testing.assert_array_equal(imported.create_infer_request().infer(X)[0], relu_expected(X))


def test_contexts_through_the_core(core: Core) -> None:
    assert core.create_context("FAKE", {"a": 1}).get_params() == {"a": 1}
    assert core.get_default_context("FAKE").get_device_name() == "FAKE"


# -- properties -----------------------------------------------------------------------------------
def test_per_call_properties_win_over_core_properties(core: Core) -> None:
    core.set_property("FAKE", {"PERF_COUNT": True})
    assert core.get_property("FAKE", "PERF_COUNT") is True
    assert core.compile_model(relu_model(), "FAKE").get_property("PERF_COUNT") is True
    assert core.compile_model(relu_model(), "FAKE", {"PERF_COUNT": "NO"}).get_property("PERF_COUNT") is False


def test_per_id_properties_apply_to_that_id_only(core: Core) -> None:
    core.set_property("FAKE.1", {"NUM_STREAMS": 2})
    assert core.get_property("FAKE.1", "NUM_STREAMS") == 2
    assert core.get_property("FAKE", "NUM_STREAMS") == 1
    assert core.compile_model(relu_model(), "FAKE.1").get_property("NUM_STREAMS") == 2
    assert core.compile_model(relu_model(), "FAKE.0").get_property("NUM_STREAMS") == 1
    assert core.get_property("FAKE.1", "FULL_DEVICE_NAME") == "Fake test device"
    assert core.get_property("FAKE.1", "DEVICE_ID") == "1" and core.get_property("FAKE", "DEVICE_ID") == "0"
    with pytest.raises(PropertyError, match="Wrong value -10 for property 'NUM_STREAMS'"):
        core.set_property("FAKE.1", {"NUM_STREAMS": -10})
    with pytest.raises(PropertyError, match="DEVICE_ID"):
        core.set_property("FAKE.9", {"NUM_STREAMS": 2})


def test_global_properties_reach_existing_and_later_plugins(core: Core) -> None:
    core.get_plugin("FAKE")
    core.set_property({"PERF_COUNT": True})
    assert core.get_property("FAKE", "PERF_COUNT") is True
    core.register_plugin(NoExportPlugin)
    assert core.get_property("NOEXPORT", "PERF_COUNT") is True


def test_a_bad_global_key_fails_when_the_device_is_used() -> None:
    core = Core([FakePlugin], discover=False)
    core.set_property({"unsupported_key": "4"})  # no plugin exists yet: stored
    for _ in range(2):
        with pytest.raises(PropertyError, match="Unsupported property 'unsupported_key'"):
            core.get_versions("FAKE")


def test_property_errors_through_the_core(core: Core) -> None:
    with pytest.raises(PropertyError, match="Unsupported property 'NOPE' by device 'FAKE'"):
        core.get_property("FAKE", "NOPE")
    with pytest.raises(PropertyError, match="Wrong value 'UNSUPPORTED_DEVICE_ID_STRING'"):
        core.set_property("FAKE", {"DEVICE_ID": "UNSUPPORTED_DEVICE_ID_STRING"})
    with pytest.raises(ValidationError, match="takes"):
        core.set_property("FAKE")  # type: ignore[call-arg]
    with pytest.raises(PropertyError, match="by the Core"):
        core.get_property("PERF_COUNT")


def test_core_level_properties(core: Core, tmp_path: Path) -> None:
    assert core.get_property("CACHE_DIR") == ""
    assert core.get_property("SUPPORTED_PROPERTIES") == {"CACHE_DIR": "RW", "ENABLE_MMAP": "RW"}
    core.set_property({"CACHE_DIR": tmp_path})
    assert core.get_property("CACHE_DIR") == str(tmp_path)
    core.set_property("FAKE", {"CACHE_DIR": str(tmp_path / "fake")})
    assert core.get_property("FAKE", "CACHE_DIR") == str(tmp_path / "fake")
    with pytest.raises(PropertyError, match="Wrong value -10 for property 'ENABLE_MMAP'"):
        core.set_property({"ENABLE_MMAP": -10})


# -- cache ----------------------------------------------------------------------------------------
def test_cache_second_compile_is_loaded_from_cache(core: Core, tmp_path: Path) -> None:
    no_cache = core.compile_model(relu_model(), "FAKE")
    assert no_cache.get_property("LOADED_FROM_CACHE") is False
    first = core.compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path})
    assert first.get_property("LOADED_FROM_CACHE") is False
    blobs = _blobs(tmp_path)
    assert len(blobs) == 1
    second = core.compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path})
    assert second.get_property("LOADED_FROM_CACHE") is True
    assert _blobs(tmp_path) == blobs
    for compiled in (no_cache, first, second):
        np.testing.assert_array_equal(compiled.create_infer_request().infer({"x": X})["y"], relu_expected(X))


def test_a_caching_property_the_device_cannot_give_still_caches(tmp_path: Path) -> None:
    """OpenVINO's HETERO lists CACHING_DEVICE_PROPERTIES in CACHING_PROPERTIES but its Python API
    cannot convert the value: the cache key takes the error's type, and the second compile loads."""

    class Unreadable(FakePlugin):
        device_name = "UNREAD"

        def get_property(self, name: str, arguments: Any = None) -> Any:
            if name == "CACHING_PROPERTIES":
                return [*super().get_property(name), "CACHING_DEVICE_PROPERTIES"]
            if name == "CACHING_DEVICE_PROPERTIES":
                raise PropertyError("get_property('CACHING_DEVICE_PROPERTIES'): cannot convert the value")
            return super().get_property(name, arguments)

    core = Core([Unreadable], discover=False)
    core.compile_model(relu_model(), "UNREAD", {"CACHE_DIR": tmp_path})
    again = core.compile_model(relu_model(), "UNREAD", {"CACHE_DIR": tmp_path})
    assert again.get_property("LOADED_FROM_CACHE") is True and len(_blobs(tmp_path)) == 1


def test_cache_dir_set_on_the_core(core: Core, tmp_path: Path) -> None:
    core.set_property({"CACHE_DIR": str(tmp_path)})
    core.compile_model(relu_model(), "FAKE")
    assert core.compile_model(relu_model(), "FAKE").get_property("LOADED_FROM_CACHE") is True


def test_cache_key_depends_on_model_device_and_properties(core: Core, tmp_path: Path) -> None:
    core.register_plugin(FakePlugin, "FAKE2")
    cfg = {"CACHE_DIR": tmp_path}
    core.compile_model(relu_model(), "FAKE", cfg)
    core.compile_model(relu_model(scale=3.0), "FAKE", cfg)  # other constant bytes
    core.compile_model(relu_model(), "FAKE2", cfg)  # other device
    core.compile_model(relu_model(), "FAKE", {**cfg, "PERF_COUNT": True})  # other properties
    core.compile_model(relu_model(), "FAKE.1", cfg)  # other device id
    assert len(_blobs(tmp_path)) == 5
    out = core.compile_model(relu_model(scale=3.0), "FAKE", cfg)
    assert out.get_property("LOADED_FROM_CACHE") is True
    np.testing.assert_array_equal(out.create_infer_request().infer(X)[0], relu_expected(X, 3.0))


@pytest.mark.parametrize("damage", ["flip_payload", "flip_header", "truncate", "garbage"])
def test_a_damaged_cache_file_is_recompiled(core: Core, tmp_path: Path, damage: str) -> None:
    core.compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path})
    (blob,) = _blobs(tmp_path)
    raw = bytearray(blob.read_bytes())
    if damage == "flip_payload":
        raw[-5] ^= 0xFF
    elif damage == "flip_header":
        raw[3] ^= 0x01
    elif damage == "truncate":
        raw = raw[: len(raw) // 2]
    else:
        raw = bytearray(b"not a cache blob at all")
    blob.write_bytes(bytes(raw))
    again = core.compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path})
    assert again.get_property("LOADED_FROM_CACHE") is False
    assert _blobs(tmp_path) == [blob] and blob.read_bytes() != bytes(raw)
    np.testing.assert_array_equal(again.create_infer_request().infer(X)[0], relu_expected(X))
    assert core.compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path}).get_property("LOADED_FROM_CACHE")


def test_a_stale_cache_file_the_device_refuses_is_recompiled(tmp_path: Path) -> None:
    class Arch(FakePlugin):
        """Leaves its architecture out of the cache key, so a blob from another one is found."""

        device_architecture = "FAKE-ARCH-2"

        def _get_ro_property(self, name: str, arguments: Any) -> Any:
            return [] if name == "CACHING_PROPERTIES" else super()._get_ro_property(name, arguments)

    Core([Arch], discover=False).compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path})
    (blob,) = _blobs(tmp_path)
    stale = blob.read_bytes()
    Arch.device_architecture = "FAKE-ARCH-1"
    again = Core([Arch], discover=False).compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path})
    assert again.get_property("LOADED_FROM_CACHE") is False
    assert _blobs(tmp_path) == [blob] and blob.read_bytes() != stale


def test_devices_without_export_import_are_not_cached(tmp_path: Path) -> None:
    core = Core([NoExportPlugin], discover=False)
    for _ in range(2):
        assert core.compile_model(relu_model(), "NOEXPORT", {"CACHE_DIR": tmp_path}).get_property(
            "LOADED_FROM_CACHE") is False
    assert _blobs(tmp_path) == []


def test_an_unwritable_cache_only_warns(core: Core, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.warns(UserWarning, match="could not write the cache blob"):
        compiled = core.compile_model(relu_model(), "FAKE", {"CACHE_DIR": blocker / "sub"})
    assert compiled.get_property("LOADED_FROM_CACHE") is False


def test_parallel_compiles_with_a_cache_make_one_blob(core: Core, tmp_path: Path) -> None:
    results: queue.Queue[Any] = queue.Queue()

    def compile_and_run() -> None:
        try:
            compiled = core.compile_model(relu_model(), "FAKE", {"CACHE_DIR": tmp_path})
            results.put((compiled.get_property("LOADED_FROM_CACHE"), compiled.create_infer_request().infer(X)[0]))
        except BaseException as e:  # noqa: BLE001 - reported below
            results.put(e)

    threads = [threading.Thread(target=compile_and_run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    got = [results.get_nowait() for _ in range(8)]
    assert not [g for g in got if isinstance(g, BaseException)]
    assert sorted(flag for flag, _ in got) == [False] + [True] * 7
    for _, out in got:
        np.testing.assert_array_equal(out, relu_expected(X))
    assert len(_blobs(tmp_path)) == 1


# -- threads --------------------------------------------------------------------------------------
@pytest.mark.timeout(120)
def test_sixteen_threads_share_one_core_and_four_requests() -> None:
    core = Core([FakePlugin], discover=False)
    compiled = core.compile_model(relu_model(), "FAKE", {"NUM_STREAMS": 2})
    pool: queue.Queue[Any] = queue.Queue()
    for _ in range(4):
        pool.put(compiled.create_infer_request())
    inputs = [np.full((2, 3), i - 8, np.float32) for i in range(16)]
    expected = [compiled.create_infer_request().infer(x)[0].copy() for x in inputs]  # sequential reference
    failures: list[str] = []

    def worker(i: int) -> None:
        try:
            for run in range(500):
                request = pool.get(timeout=30)
                try:
                    if run % 2:
                        request.start_async({"x": inputs[i]})
                        request.wait()
                        out = request.get_output_tensor(0).data.copy()
                    else:
                        out = request.infer({"x": inputs[i]})[0]
                finally:
                    pool.put(request)
                if not np.array_equal(out, expected[i]):
                    failures.append(f"thread {i} run {run}: {out} != {expected[i]}")
                    return
                if run % 100 == 0:
                    core.get_property("FAKE", "SUPPORTED_PROPERTIES")
                    assert core.available_devices == ["FAKE.0", "FAKE.1"]
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(f"thread {i}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(100)
    assert not [t for t in threads if t.is_alive()], "deadlock: threads still running after 100 s"
    assert failures == []


def test_core_does_not_import_pytest() -> None:
    code = "import sys, ovconform; ovconform.Core(); import ovconform.api; assert 'pytest' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_core_compiles_ops_models_it_does_not_know_about(core: Core) -> None:
    p = ops.parameter([2], np.float32, name="p")
    model = ovconform.Model([ops.relu(p)], [p], "tiny")
    out = core.compile_model(model, "FAKE").create_infer_request().infer(np.array([-1, 1], np.float32))
    assert out[0].tolist() == [0, 1]
