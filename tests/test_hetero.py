"""HETERO in the host: ``Core.compile_model(model, "HETERO:A,B")`` splits a model by the devices'
query_model answers (priority order) and runs the parts on their devices; ``--plugin=HETERO:X,Y``
runs the suites against it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from plugins.fake_device import FakePlugin, relu_model
from plugins.partial_device import ELEMENTWISE, PartialPlugin

from ovconform import Core
from ovconform import opset as ops
from ovconform._devices import PluginSpecError, resolve
from ovconform._hetero import DEVICE_PRIORITIES, HeteroPlugin
from ovconform.errors import CompileError, UnsupportedOpError
from ovconform.ir import Model
from ovconform.suites import _zoo
from reference_plugin.plugin import ReferencePlugin

pytestmark = pytest.mark.timeout(120)
HERE = Path(__file__).parent
PARTIAL_SPEC = str(HERE / "plugins" / "partial_device.py")
HETERO = "HETERO:PARTIAL,REFERENCE"


@pytest.fixture(scope="module")
def core() -> Core:
    return Core([PartialPlugin, ReferencePlugin], discover=False)


def _conv_model() -> Model:
    rng = np.random.default_rng(0)
    x = ops.parameter([1, 2, 5, 5], np.float32, name="x")
    w = ops.constant(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), name="w")
    conv = ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    y = ops.relu(ops.add(conv, ops.constant(np.float32(0.5), name="half"), name="shift"), name="relu")
    pooled = ops.reduce_sum(y, ops.constant(np.array([2, 3], np.int64)), False, name="pool")
    out = ops.sigmoid(pooled, name="out")
    return Model([out], [x], "conv_hetero")


# -- the zoo: the same numbers as REFERENCE -----------------------------------------------------------
@pytest.mark.parametrize("zoo", [z for z in _zoo.builtin() if not z.skip], ids=lambda z: z.name)
def test_zoo_model_gives_reference_outputs(core: Core, zoo: Any) -> None:
    model = zoo.build()
    hetero = core.compile_model(model, HETERO).create_infer_request()
    reference = core.compile_model(model, "REFERENCE").create_infer_request()
    for step, feed in enumerate(zoo.make_steps(model)):
        got, want = hetero.infer(dict(feed)), reference.infer(dict(feed))
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got.values(), want.values(), strict=True)):
            np.testing.assert_array_equal(g, w, err_msg=f"{zoo.name} step {step} output {i}")


def test_zoo_really_splits(core: Core) -> None:
    """The zoo models run on both devices, and every elementwise op sits on PARTIAL."""
    used: set[str] = set()
    for zoo in (z for z in _zoo.builtin() if not z.skip):
        compiled = core.compile_model(zoo.build(), HETERO)
        for stage in compiled.stages:
            used.add(stage.device)
            kinds = {n.type_name for n in stage.nodes}
            if stage.device == "PARTIAL":
                assert kinds <= ELEMENTWISE, kinds
            else:
                assert not kinds & ELEMENTWISE, f"{zoo.name}: elementwise ops {kinds & ELEMENTWISE} left on REFERENCE"
    assert used == {"PARTIAL", "REFERENCE"}


# -- the split ------------------------------------------------------------------------------------------
def test_query_model_follows_priority_order(core: Core) -> None:
    model = _conv_model()
    assert set(core.query_model(model, HETERO).values()) == {"HETERO"}
    hetero = core.get_plugin("HETERO")
    answer = hetero.query_devices(model, {DEVICE_PRIORITIES: "PARTIAL,REFERENCE"})
    assert answer["conv"] == "REFERENCE" and answer["pool"] == "REFERENCE"
    assert answer["shift"] == "PARTIAL" and answer["relu"] == "PARTIAL" and answer["out"] == "PARTIAL"
    reversed_answer = hetero.query_devices(model, {DEVICE_PRIORITIES: "REFERENCE,PARTIAL"})
    assert set(reversed_answer.values()) == {"REFERENCE"}


def test_query_model_leaves_out_what_no_device_supports(core: Core) -> None:
    answer = core.query_model(_conv_model(), "HETERO:PARTIAL")
    assert "conv" not in answer and "relu" in answer


def test_stages_alternate_and_compute(core: Core) -> None:
    model = _conv_model()
    compiled = core.compile_model(model, HETERO)
    assert [(s.device, [n.friendly_name for n in s.nodes]) for s in compiled.stages] == [
        ("REFERENCE", ["conv"]), ("PARTIAL", ["shift", "relu"]), ("REFERENCE", ["pool"]), ("PARTIAL", ["out"])]
    assert compiled.get_property("EXECUTION_DEVICES") == ["REFERENCE", "PARTIAL"]
    x = np.random.default_rng(1).standard_normal((1, 2, 5, 5)).astype(np.float32)
    want = core.compile_model(model, "REFERENCE")({"x": x})[0]
    np.testing.assert_array_equal(compiled({"x": x})[0], want)


def test_priority_order_decides_the_split(core: Core) -> None:
    compiled = core.compile_model(_conv_model(), "HETERO:REFERENCE,PARTIAL")
    assert [s.device for s in compiled.stages] == ["REFERENCE"]


def test_an_op_no_device_supports_is_named(core: Core) -> None:
    with pytest.raises(UnsupportedOpError, match=r"conv \(Convolution-1\)"):
        core.compile_model(_conv_model(), "HETERO:PARTIAL")


def test_hetero_needs_devices() -> None:
    core = Core([HeteroPlugin, ReferencePlugin], discover=False)
    with pytest.raises(CompileError, match="HETERO needs devices"):
        core.compile_model(relu_model(), "HETERO")
    compiled = core.compile_model(relu_model(), "HETERO", {DEVICE_PRIORITIES: "REFERENCE"})
    assert [s.device for s in compiled.stages] == ["REFERENCE"]


def test_device_ids_and_versions(core: Core) -> None:
    compiled = core.compile_model(_conv_model(), "HETERO:PARTIAL,REFERENCE.0")
    assert {s.device for s in compiled.stages} == {"PARTIAL", "REFERENCE.0"}
    assert sorted(core.get_versions(HETERO)) == ["HETERO", "PARTIAL", "REFERENCE"]


def test_unregistered_device_is_a_clear_error() -> None:
    core = Core([ReferencePlugin], discover=False)
    with pytest.raises(CompileError, match="NOPE"):
        core.compile_model(relu_model(), "HETERO:NOPE,REFERENCE")


def test_variables_belong_to_the_hetero_request(core: Core) -> None:
    zoo = next(z for z in _zoo.builtin() if z.name == "stateful_accumulator")
    model = zoo.build()
    request = core.compile_model(model, HETERO).create_infer_request()
    states = request.query_state()
    assert [s.name for s in states] and all(not s.is_written for s in states)
    feed = zoo.make_steps(model)[0]
    first = request.infer(dict(feed))[0]
    second = request.infer(dict(feed))[0]
    assert not np.array_equal(first, second)  # the state carried over
    request.reset_state()
    np.testing.assert_array_equal(request.infer(dict(feed))[0], first)


def test_profiling_collects_every_part(core: Core) -> None:
    compiled = core.compile_model(_conv_model(), HETERO, {"PERF_COUNT": True})
    request = compiled.create_infer_request()
    request.infer({"x": np.zeros((1, 2, 5, 5), np.float32)})
    names = {p.node_name for p in request.get_profiling_info()}
    assert {"conv", "relu", "out"} <= names


def test_runtime_model_names_the_device_of_each_op(core: Core) -> None:
    compiled = core.compile_model(_conv_model(), HETERO)
    info = {n.friendly_name: n.rt_info for n in compiled.get_runtime_model().get_ordered_ops()}
    assert info["conv"]["execDevice"] == "REFERENCE" and info["relu"]["execDevice"] == "PARTIAL"
    assert info["x"]["execTimeMcs"] == "not_executed"


def test_async_run_and_callback(core: Core) -> None:
    request = core.compile_model(_conv_model(), HETERO).create_infer_request()
    seen: list[Any] = []
    request.set_callback(seen.append)
    request.start_async({"x": np.ones((1, 2, 5, 5), np.float32)})
    request.wait()
    assert seen == [None]


def test_fake_device_without_query_support_for_an_op() -> None:
    """FAKE (Add, Multiply, Relu) under HETERO with REFERENCE: only its ops go to FAKE."""
    core = Core([FakePlugin, ReferencePlugin], discover=False)
    compiled = core.compile_model(_conv_model(), "HETERO:FAKE,REFERENCE")
    on_fake = {n.friendly_name for s in compiled.stages if s.device == "FAKE" for n in s.nodes}
    assert on_fake == {"shift", "relu"}


# -- --plugin=HETERO:... ------------------------------------------------------------------------------
def test_plugin_spec_resolves_to_one_hetero_device() -> None:
    (dut,) = resolve([f"HETERO:{PARTIAL_SPEC},reference"])
    assert dut.name == "HETERO"
    plugin = dut.create()
    assert plugin.get_property(DEVICE_PRIORITIES) == "PARTIAL,REFERENCE"


@pytest.mark.parametrize("spec, message", [("HETERO:", "needs devices"),
                                           ("HETERO:HETERO:reference", "cannot contain another HETERO"),
                                           ("HETERO:nosuchdevice", "nosuchdevice")])
def test_bad_plugin_specs(spec: str, message: str) -> None:
    with pytest.raises(PluginSpecError, match=message):
        resolve([spec])


def test_suites_run_against_hetero(tmp_path: Path) -> None:
    """The model suite and the inference suite against HETERO:PARTIAL,REFERENCE: all pass."""
    import ovconform.suites

    suites = Path(ovconform.suites.__file__).parent
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
           f"--plugin=HETERO:{PARTIAL_SPEC},reference", "--ovconform-report-dir", str(tmp_path / "rep"),
           str(suites / "test_model_conformance.py"), str(suites / "test_infer_request_inference.py")]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    report = json.loads((tmp_path / "rep" / "HETERO" / "conformance.json").read_text())
    entities = {r["entity"] for r in report["records"]}
    assert {"model", "ov_infer_request"} <= entities
    assert all(r["status"] == "passed" for r in report["records"])
