"""``docs/writing-a-device.md``: its python blocks, put one after the other in one file, are a device
(GUIDEDEV) that passes a part of the suites through ``pytest --plugin=<file>``; its ``pycon``
session is right; its lists match the suites; the README links it; the example device imports
only public names. Also the base ``CompiledModel.get_runtime_model`` on a device built on the
base classes (GUIDEDEV): ``outputLayouts`` and measured ``execTimeMcs``.
"""

from __future__ import annotations

import ast
import doctest
import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _paths import REPO
from _session import by_test, run_devices

from ovconform.suites import _models

DOC = REPO / "docs" / "writing-a-device.md"
EXAMPLE = REPO / "examples" / "ovconform-mydevice"
#: the suite modules the guide's device is run against (the exec graph, export/import, states,
#: counters, query_model): 155 tests, about 10 s
SUITE_MODULES = ("test_compiled_model_runtime_model.py", "test_compiled_model_base.py",
                 "test_compiled_model_import_export.py", "test_infer_request_state.py",
                 "test_infer_request_perf_counters.py", "test_plugin_query_model.py")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)


@pytest.fixture(scope="module")
def device_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guide's python blocks, verbatim, in order, in one file."""
    path = tmp_path_factory.mktemp("guide") / "guide_device.py"
    path.write_text("\n\n".join(_blocks("python")), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def guide(device_file: Path) -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("guide_device", device_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["guide_device"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("guide_device", None)


@pytest.fixture()
def core(guide: ModuleType) -> Any:
    from ovconform import Core

    core = Core(discover=False)
    core.register_plugin(guide.GuidePlugin, "GUIDEDEV")
    return core


def test_the_guide_has_a_device_in_several_blocks() -> None:
    assert len(_blocks("python")) >= 5


def test_the_guide_device_passes_a_part_of_the_suites(device_file: Path, tmp_path: Path) -> None:
    paths = [str(REPO / "suites" / name) for name in SUITE_MODULES]
    doc = run_devices(tmp_path, [str(device_file)], *paths)["GUIDEDEV"]
    records = by_test(doc)
    bad = {k: (r["status"], r["message"][:300]) for k, r in records.items()
           if r["status"] not in ("passed", "skipped")}
    assert bad == {}
    assert doc["summary"]["mandatory_pass_rate"] == 100.0
    passed = {k for k, r in records.items() if r["status"] == "passed"}
    assert len(passed) >= 150
    for name in ("test_exec_graph_info_after_execution[GUIDEDEV]", "test_exec_graph_info_before_execution[GUIDEDEV]",
                 "test_exec_graph_serialization[GUIDEDEV]", "test_query_model_partially_supported[GUIDEDEV]",
                 "test_damaged_blob_is_refused[GUIDEDEV-flipped_byte]",
                 "test_blob_of_a_newer_format_is_refused[GUIDEDEV]",
                 "test_imported_model_keeps_compile_config[GUIDEDEV]"):
        assert name in passed, name
    assert any("state" in k for k in passed)


def test_the_pycon_session_is_right(guide: ModuleType) -> None:
    (session,) = _blocks("pycon")
    test = doctest.DocTestParser().get_doctest(session, dict(vars(guide)), "writing-a-device.md", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 8


def test_the_guide_lists_the_mandatory_ops_and_implements_them(guide: ModuleType) -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 5."):text.index("## 6.")]
    listed = set(re.findall(r"`([A-Z][A-Za-z]+)`", section.split("and only in the forms")[0]))
    assert listed == set(_models.MANDATORY_API_OPS)
    assert listed <= set(guide.KERNELS) | guide.PLUMBING


def test_the_readme_links_the_guide() -> None:
    assert "(docs/writing-a-device.md)" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_example_device_imports_public_names_only() -> None:
    for path in sorted((EXAMPLE / "mydevice").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
                parts = [*node.module.split("."), *(a.name for a in node.names)]
            elif isinstance(node, ast.Import):
                parts = [p for a in node.names for p in a.name.split(".")]
            else:
                continue
            private = [p for p in parts if p.startswith("_")]
            assert not private, f"{path.name}:{node.lineno} imports private {private}"


# -- the base get_runtime_model, on a device built on the base classes -----------------------------
def _runtime(compiled: Any) -> dict[str, dict[str, Any]]:
    return {n.friendly_name: n.get_rt_info() for n in compiled.get_runtime_model().get_ordered_ops()}


def test_runtime_model_has_output_layouts_and_measured_times(core: Any) -> None:
    model = _models.build("conv_pool_relu")
    compiled = core.compile_model(model, "GUIDEDEV", {"PERF_COUNT": True})
    before = _runtime(compiled)
    assert {info["execTimeMcs"] for info in before.values()} == {"not_executed"}
    conv = next(n for n in model.get_ordered_ops() if n.type_name == "Convolution").friendly_name
    assert before[conv]["outputLayouts"] == "abcd"
    compiled.create_infer_request().infer(_models.make_inputs(model))  # the request is gone afterwards
    after = _runtime(compiled)
    times = {name: float(info["execTimeMcs"]) for name, info in after.items()}
    assert times[conv] > 0 and all(t >= 0 for t in times.values())
    request = compiled.create_infer_request()
    request.infer(_models.make_inputs(model))
    counters = {i.node_name: i.real_time.total_seconds() * 1e6 for i in request.get_profiling_info()}
    latest = {name: float(info["execTimeMcs"]) for name, info in _runtime(compiled).items()}
    assert latest == pytest.approx({name: round(us, 3) for name, us in counters.items()}, abs=1e-3)


def test_runtime_model_without_profiling_says_not_executed(core: Any) -> None:
    model = _models.build("matmul_bias")
    compiled = core.compile_model(model, "GUIDEDEV")
    compiled.create_infer_request().infer(_models.make_inputs(model))
    infos = _runtime(compiled)
    assert {info["execTimeMcs"] for info in infos.values()} == {"not_executed"}
    ranks = {n.friendly_name: len(list(n.get_output_partial_shape(0))) for n in model.get_ordered_ops()
             if n.get_output_size()}
    for name, rank in ranks.items():
        assert infos[name]["outputLayouts"] == "abcdefgh"[:rank]
    assert np.all([info["layerType"] for info in infos.values()])
