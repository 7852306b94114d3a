"""The model zoo of the model conformance suite on OpenVINO CPU f32 against REFERENCE: whole
models (LayerNorm through MVN, LSTM/GRU sequences, stateful and dynamic-batch models) agree, not
just single ops. A model's outputs compare with a tolerance of 1e-4 relative to the output's
magnitude (errors add up along a model; the op cross-check bounds each op far tighter)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import serialize
from ovconform.suites._zoo import ZooModel, builtin
from reference_plugin.evaluate import ModelRunner

ov = pytest.importorskip("openvino", reason="comparing with OpenVINO CPU needs the openvino package")
pytestmark = pytest.mark.openvino

RTOL = 1e-4


@pytest.fixture(scope="module")
def core() -> Any:
    return ov.Core()


@pytest.mark.parametrize("zoo", builtin(), ids=lambda z: z.name)
def test_zoo_model_agrees_with_openvino_cpu(core: Any, zoo: ZooModel) -> None:
    model = zoo.build()
    xml, weights = serialize(model)
    compiled = core.compile_model(core.read_model(xml, ov.Tensor(np.frombuffer(weights or b"\0", np.uint8))), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    runner, state = ModelRunner(model), {}
    for step, feed in enumerate(zoo.make_steps(model)):
        ours = runner.run(feed, state)
        theirs = request.infer({i: feed[p.friendly_name] for i, p in enumerate(model.get_parameters())})
        for i, want in enumerate(ours):
            got = np.asarray(theirs[compiled.outputs[i]])
            assert got.shape == want.shape, f"{zoo.name} output {i} step {step}: shape {got.shape} vs {want.shape}"
            scale = max(float(np.max(np.abs(want), initial=0)), 1e-6)
            err = float(np.max(np.abs(got.astype(np.float64) - want), initial=0)) / scale
            assert err <= RTOL, f"{zoo.name} output {i} step {step}: relative error {err:.2e} > {RTOL}"
