"""Model conformance (``model`` entity): whole models on the device vs REFERENCE.

The zoo (:mod:`ovconform.suites._zoo`: MLP, LeNet-like CNN, ResNet basic block, MobileNet-v2
inverted residual, transformer encoder block, stateful accumulator over several steps, dynamic
batch with two batch sizes; LSTM/GRU skip until the opset has them) plus the models devices
contribute through ``ovconform_add_models``. Outputs are compared with the model tolerance
(:func:`ovconform.suites._op_runner.model_tolerance`, refined by ``ovconform_get_tolerance``
with ``op_type="*model*"``).

A model with ops query_model does not claim is skipped ("not supported (declared by
query_model)"). A failing model is triaged (:mod:`ovconform.suites._triage`: each op alone, fed
the values REFERENCE computed for its inputs) and gets a standalone reproducer; the message names
the failing op(s) and the script.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform.ir import Model
from ovconform.suites import _op_runner as R
from ovconform.suites import _repro, _triage, _zoo

pytestmark = pytest.mark.entity("model")

NOT_DECLARED = "not supported (declared by query_model)"
DECLARED_FAILED = "declared supported but failed:"


def _device_names(config: pytest.Config) -> list[str]:
    from ovconform import pytest_plugin

    return [d.name for d in pytest_plugin._devices(config)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "zoo_name" in metafunc.fixturenames:
        names = [z.name for z in _zoo.builtin()]
        for device in _device_names(metafunc.config):
            names += [z.name for z in _zoo.contributed(device) if z.name not in names]
        metafunc.parametrize("zoo_name", names)


def _entry(name: str, device: str) -> _zoo.ZooModel:
    for z in [*_zoo.builtin(), *_zoo.contributed(device)]:
        if z.name == name:
            return z
    pytest.skip(f"model {name!r} is not contributed for device {device!r}")


def _triage_text(core: Any, device: str, model: Model, steps: list[dict[str, np.ndarray]]) -> str:
    try:
        failures = _triage.triage(core, device, model, steps[0])
    except Exception as e:  # noqa: BLE001 - triage is best effort; the model failure stands
        return f"triage could not run: {type(e).__name__}: {e}"
    if not failures:
        return "triage: every op passes alone (the failure needs the ops together)"
    return "triage: " + "; ".join(f.describe() for f in failures)


def test_model(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str, ov_plugin_spec: str,
               zoo_name: str, record_ov_fact: Callable[[str, Any], None]) -> None:
    """The model computes what REFERENCE computes, within the model tolerance, every step."""
    entry = _entry(zoo_name, ov_device_name)
    record_ov_fact("model", zoo_name)
    record_ov_fact("source", entry.source)
    if entry.skip:
        pytest.skip(f"model {zoo_name!r}: {entry.skip}")
    model = entry.build()
    steps = entry.make_steps(model)
    answer = R.declared_nodes(ov_core, ov_device_name, model)
    unclaimed = sorted(f"{n.type_name} {n.friendly_name!r}" for n in R.ops_under_test(model)
                       if n.friendly_name not in answer)
    if unclaimed:
        record_ov_fact("unclaimed_ops", unclaimed)
        pytest.skip(f"model {zoo_name!r}: {NOT_DECLARED}: {', '.join(unclaimed)}")
    try:
        got = R.run_on_device(ov_core, ov_device_name, model, steps)
    except Exception as e:  # noqa: BLE001 - the message names the error and the triage
        pytest.fail(f"{DECLARED_FAILED} model {zoo_name!r}: {type(e).__name__}: {e}; "
                    f"{_triage_text(ov_core, ov_device_name, model, steps)}")
    expected = R.run_reference(model, steps)
    tols = [R.model_tolerance(ov_device_name, r.get_input_element_type(0)) for r in model.get_results()]
    comparisons = R.compare_outputs(model, got, expected, tols)
    for name, value in R.summary(comparisons).items():
        record_ov_fact(name, value)
    bad = [(label, c) for label, c in comparisons if not c.passed]
    if not bad:
        return
    triage = _triage_text(ov_core, ov_device_name, model, steps)
    record_ov_fact("triage", triage)
    folder = _repro.repro_dir(request.config, ov_device_name, request.node.nodeid)
    script = _repro.write_repro(folder, test_id=request.node.nodeid, spec=ov_plugin_spec, device=ov_device_name,
                                model=model, steps=steps, expected=expected, tolerances=tols)
    record_ov_fact("repro", str(script))
    label, c = bad[0]
    pytest.fail(f"{DECLARED_FAILED} model {zoo_name!r}: {label}: {c.message} [tolerance {c.tolerance.describe()}; "
                f"{len(bad)} bad output(s)]; {triage}; repro: python {script}")
