"""Real architectures (``model`` entity): ResNet-50, MobileNetV3, EfficientNet-B0, BERT-base,
Whisper-tiny's encoder, a YOLO-style detector, an LSTM/GRU tagger and a Llama-style decoder with
its KV cache, in f32 and with u4/i4 weights (:mod:`ovconform.models`), on the device vs REFERENCE.

``--ovconform-model PATH`` adds a model file of your own (:mod:`ovconform.models.own_model`: IR v11,
or what OpenVINO's frontends read; inputs from ``--ovconform-model-inputs`` or drawn from its
declared shapes), tested the same way under the file's name.

``--ovconform-models quick`` (the default) runs the quick tier (the small decoder, the smaller
CNNs, ResNet-50's full depth on a 64x64 image); ``full`` adds every architecture at its real size.
Every step is compared (the decoder: a prefill of 32 tokens, 131 for ``llama_decoder_i4`` so the KV
cache passes 64 and 128 tokens, then 16 decode steps on one request) within a depth-aware tolerance
(:mod:`ovconform.suites._model_tolerance`): it follows the accumulating layers on each output's
deepest path and the declared execution precision (INFERENCE_PRECISION_HINT;
:func:`ovconform.tolerances.model_tolerance` states the error model).
The achieved error is recorded per step (``step_errors``, with ``error_to_bound``: a drifting KV
cache shows as a growing error) and per output (``output_errors``: its layers, longest
reduction, bound in units of ``e`` and worst error/bound). A failure names the first diverging
op (:mod:`ovconform.suites._locate`: one probe run on the device, state included) and writes a
reproducer — of that op alone, fed its real inputs, when it can be cut out, else of the whole model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ovconform import models
from ovconform.ir import Model, Type
from ovconform.suites import _locate, _repro, _triage
from ovconform.suites import _model_tolerance as MT
from ovconform.suites import _op_runner as R
from ovconform.tolerances import execution_type

pytestmark = pytest.mark.entity("model")

DECLARED_FAILED = "declared supported but failed:"
NOT_DECLARED = "not supported (declared by query_model)"


def model_tier(config: pytest.Config) -> str:
    return config.getoption("ovconform_models", None) or "quick"


def _own_models(config: pytest.Config) -> list[Any]:
    """The ``--ovconform-model`` files (none without the option; read once, checked at configure)."""
    if not config.getoption("ovconform_model", None):
        return []
    from ovconform.models.own_model import own_models_from_config

    return own_models_from_config(config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "architecture" in metafunc.fixturenames:
        archs = models.architectures(model_tier(metafunc.config))
        names: list[Any] = [_with_time_limit(metafunc.config, a) for a in archs]
        own = _own_models(metafunc.config)
        metafunc.parametrize("architecture", names + own, ids=[a.name for a in archs] + [m.name for m in own])


def _with_time_limit(config: pytest.Config, arch: models.Architecture) -> Any:
    """The architecture's name, with a ``timeout`` marker of the run's per-test limit times its
    ``time_factor`` when that is above 1 (a 1.1B decoder is not "hanged" at the limit an op case gets)."""
    limit = getattr(config.option, "timeout", None) or config.getoption("ovconform_test_timeout", 0.0) or 0.0
    if arch.time_factor <= 1 or limit <= 0:
        return arch.name
    return pytest.param(arch.name, marks=pytest.mark.timeout(limit * arch.time_factor))


def _write_repro(request: pytest.FixtureRequest, device: str, spec: str, model: Model,
                 steps: list[dict[str, np.ndarray]], expected: list[list[np.ndarray]], tols: list[Any],
                 found: _locate.Divergence | None) -> Any:
    folder = _repro.repro_dir(request.config, device, request.node.nodeid)
    node = next((n for n in model.get_ordered_ops() if found and n.friendly_name == found.name), None)
    if node is not None and node.type_name not in _triage.SKIPPED and len(steps) == 1:
        sub, feed = _triage.single_op_model(node, _triage.all_values(model, steps[0]))
        want = R.run_reference(sub, [feed])
        sub_tols = [R.tolerance_for(device, node, o.get_element_type()) for o in node.outputs()]
        return _repro.write_repro(folder, test_id=request.node.nodeid, spec=spec, device=device, model=sub,
                                  steps=[feed], expected=want, tolerances=sub_tols)
    return _repro.write_repro(folder, test_id=request.node.nodeid, spec=spec, device=device, model=model,
                              steps=steps, expected=expected, tolerances=tols)


def test_real_model(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str, ov_plugin_spec: str,
                    architecture: Any, record_ov_fact: Callable[[str, Any], None]) -> None:
    """The architecture (or a model file given with ``--ovconform-model``) computes what REFERENCE
    computes, within the model tolerance, at every step."""
    arch: Any = models.get(architecture) if isinstance(architecture, str) else architecture
    record_ov_fact("model", arch.name)
    record_ov_fact("source", "ovconform.models" if isinstance(architecture, str) else str(arch.path))
    model = arch.build()
    steps = arch.make_steps(model)
    answer = R.declared_nodes(ov_core, ov_device_name, model)
    unclaimed = sorted(f"{n.type_name} {n.friendly_name!r}" for n in R.ops_under_test(model)
                       if n.friendly_name not in answer)
    if unclaimed:
        record_ov_fact("unclaimed_ops", unclaimed[:20])
        pytest.skip(f"model {arch.name!r}: {NOT_DECLARED}: {', '.join(unclaimed[:10])}")
    try:
        compiled = ov_core.compile_model(model, ov_device_name)
        got = R.run_on_device(ov_core, ov_device_name, model, steps, compiled)
    except Exception as e:  # noqa: BLE001 - the message names the error
        pytest.fail(f"{DECLARED_FAILED} model {arch.name!r}: {type(e).__name__}: {e}")
    expected = R.run_reference(model, steps)
    precision = R.execution_precision(compiled)  # the bounds follow INFERENCE_PRECISION_HINT, as in the op suite
    if precision is not None and execution_type(Type.f32, precision) != Type.f32:
        record_ov_fact("precision", precision.name)
    comparisons, depths = MT.compare_steps(ov_device_name, model, got, expected, precision, steps)
    for name, value in R.summary(comparisons).items():
        record_ov_fact(name, value)
    per_step = MT.step_errors(comparisons, len(steps))
    record_ov_fact("step_errors", per_step)
    record_ov_fact("output_errors", MT.output_errors(model, comparisons, depths))
    bad = [(label, c) for label, c in comparisons if not c.passed]
    if not bad:
        return
    label, c = bad[0]
    first_step = int(label.split()[1])
    tols = MT.step_tolerances(ov_device_name, model, depths, expected[first_step], precision)
    try:
        found = _locate.first_divergence(ov_core, ov_device_name, model, steps, first_step)
        where = found.describe() if found else "every op agrees in the probe run (the failure needs the ops fused)"
    except Exception as e:  # noqa: BLE001 - locating is best effort; the model failure stands
        found, where = None, f"the first diverging op could not be located: {type(e).__name__}: {e}"
    record_ov_fact("first_diverging_op", where)
    script = _write_repro(request, ov_device_name, ov_plugin_spec, model, steps, expected, tols, found)
    record_ov_fact("repro", str(script))
    failing_steps = [row["step"] for row in per_step if not row["passed"]]
    pytest.fail(f"{DECLARED_FAILED} model {arch.name!r}: {label}: {c.message} [tolerance {c.tolerance.describe()}; "
                f"{len(bad)} bad output(s), failing steps {failing_steps}]; {where}; repro: python {script}")
