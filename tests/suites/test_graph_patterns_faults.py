"""The fusion-pattern catalogue (``suites/test_graph_patterns.py``) catches the devices of
``tests/plugins/fusion_faulty_devices.py``: right op by op, wrong when they fuse.

One pytest run (from a temporary folder, the installed suites, ``-k test_graph_pattern``) tests
REFERENCE and each fault. REFERENCE passes every pattern, static and dynamic. Each fault fails
exactly the patterns that hold its fused chain (both variants), with status "failed", and the
unfused control says "fused path only" in the message and the record's facts. In process: the
control says "not the fused path only" for a device that is wrong op by op, and the composed
tolerance is exact for integer outputs and grows with the graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import by_test, once_per_session, run_devices
from plugins import fusion_faulty_devices as faults
from plugins import op_faulty_devices

from ovconform import Core
from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.graphs import patterns
from ovconform.ir import Model, Type
from ovconform.suites import _graph_check as G

FAIL = ("failed", "error", "crashed", "hanged")
#: fault class -> the patterns it must fail (static and dynamic), and nothing else.
EXPECTED = {
    "ConvBiasReluDropsLastBlock": ("conv_bias_relu", "residual_add"),
    "AttentionIgnoresMask": ("attention_causal", "attention_padding"),
    "DecompressionDropsZeroPoint": ("decompress_u8", "decompress_u4", "decompress_u4_scalar_zp"),
}


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"fusion_faulty_devices:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", "test_graph_pattern")
    return {name: by_test(doc) for name, doc in docs.items()}

@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "graph_pattern_fault_runs", _run)


def test_reference_passes_every_pattern(runs: dict[str, Any]) -> None:
    records = runs["REFERENCE"]
    assert len(records) == 2 * len(patterns.names())
    bad = {k: r["message"][:300] for k, r in records.items() if r["status"] != "passed"}
    assert not bad
    assert all(r["entity"] == "graph" and r["facts"]["graph"] in patterns.names() for r in records.values())


@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_each_fault_fails_its_fused_patterns_only(runs: dict[str, Any], fault: str) -> None:
    device = getattr(faults, fault).device_name
    failed = {k: r for k, r in runs[device].items() if r["status"] in FAIL}
    want = {f"test_graph_pattern[{device}-{p}-{v}]" for p in EXPECTED[fault] for v in ("static", "dynamic")}
    assert set(failed) == want
    for test_id, record in failed.items():
        assert record["status"] == "failed", test_id
        assert record["message"].startswith("Failed: declared supported but failed: graph "), record["message"]
        assert "unfused control: fused path only (" in record["message"], record["message"]
        assert record["facts"]["unfused_control"]["fused_only"] is True
        assert record["facts"]["graph_ops"] and Path(record["facts"]["repro"]).is_file()


def _core(plugin: type) -> Core:
    core = Core(discover=False)
    core.register_plugin(plugin, plugin.device_name)
    return core


def test_control_says_not_fused_only_for_a_fault_op_by_op() -> None:
    """A Softmax on the wrong axis is wrong alone too: the control keeps the failure and names the
    first wrong intermediate."""
    case = patterns.build("attention_padding")
    core = _core(op_faulty_devices.SoftmaxWrongAxis)
    verdict = G.judge(core, "OPFAULT_SOFTMAX", case.model, case.steps)
    assert not verdict.passed
    control = G.unfused_control(core, "OPFAULT_SOFTMAX", case.model, case.steps)
    assert control.fused_only is False
    assert G.NOT_FUSED_ONLY in control.sentence and "'probs'" in control.sentence, control.sentence


def test_control_says_fused_only_for_the_conv_fault_in_process() -> None:
    case = patterns.build("conv_bias_relu")
    core = _core(faults.ConvBiasReluDropsLastBlock)
    assert not G.judge(core, faults.ConvBiasReluDropsLastBlock.device_name, case.model, case.steps).passed
    control = G.unfused_control(core, faults.ConvBiasReluDropsLastBlock.device_name, case.model, case.steps)
    assert control.fused_only is True and G.FUSED_ONLY in control.sentence


def test_composed_tolerance_grows_along_the_graph_and_is_exact_for_integers() -> None:
    x = ops.parameter([4, 8], Type.f32, name="x")
    one = ops.exp(x, name="e1")
    two = ops.exp(ops.exp(x, name="e2a"), name="e2b")
    shape = ops.shape_of(x, name="shape")
    model = Model([one, two, shape], [x], "chain")
    t_one, t_two, t_shape = G.composed_tolerances("REFERENCE", model)
    assert t_two.atol == pytest.approx(2 * t_one.atol) and t_two.rtol == pytest.approx(2 * t_one.rtol)
    assert t_one.ctol and t_shape.exact


def test_sensitivity_sees_cancellation() -> None:
    """x - mean(x) on values near 1000 is ill-conditioned: its S dwarfs the output's magnitude."""
    x = ops.parameter([1, 64], Type.f32, name="x")
    mean = ops.reduce_mean(x, ops.constant(np.array([1], np.int64), Type.i64), True, name="mean")
    model = Model([ops.subtract(x, mean, name="centred")], [x], "cancel")
    steps = [{"x": (1000 + np.random.default_rng(0).standard_normal([1, 64])).astype(np.float32)}]
    expected = [[np.asarray(v) for v in outs] for outs in G.R.run_reference(model, steps)]
    s = G.sensitivity(model, steps, expected)[0][0]
    assert s is not None and float(np.median(s)) > 100 * float(np.median(np.abs(expected[0][0])))


def test_unknown_pattern_names_the_catalogue() -> None:
    with pytest.raises(ValidationError, match="'conv_bias_tanh' is not in the catalogue.*conv_bias_relu"):
        patterns.build("conv_bias_tanh")
