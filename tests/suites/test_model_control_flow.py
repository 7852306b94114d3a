"""The greedy decoder (issue #24: one real model with If and Loop; :mod:`ovconform.models.control`).

In process: its structure (an If on a computed confidence, a Loop with a constant trip count whose
body computes its own stop condition, back edges for the hidden state and the token, concatenated
tokens and logits); on REFERENCE, its two inputs take both branches of the If, decoding ends on the
end token at different lengths before the maximum, and no decision rests on rounding (the
confidence is far from the threshold, every arg-max far from the runner-up); OpenVINO reads it from
our IR and agrees; ``ovconform models`` lists it. One pytest run of the model suite on REFERENCE and
``tests/plugins/model_control_faults.py``: REFERENCE passes; the Loop that reads its condition one
iteration late fails it, with the Loop named at step 0 and every step's error recorded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import once_per_session, run_devices
from plugins import model_control_faults as faults

from ovconform import models, serialize
from ovconform.cli import main
from ovconform.ir import Model, Node, SpecialBodyPorts
from ovconform.models import control
from ovconform.suites import _op_runner as R
from ovconform.suites import _triage

G = control.GreedyDecoder


def _arch() -> tuple[Model, list[dict[str, np.ndarray]]]:
    arch = models.get("greedy_decoder")
    model = arch.build()
    return model, arch.make_steps(model)


def _node(model: Model, type_name: str) -> Node:
    return next(n for n in model.get_ordered_ops() if n.type_name == type_name)


def test_the_model_holds_an_if_and_a_loop_the_way_exported_models_do() -> None:
    model, steps = _arch()
    assert models.get("greedy_decoder").tier == "quick" and len(steps) == 2
    branch = _node(model, "If")
    assert branch.input_value(0).node.type_name == "Greater"  # a computed condition, not an input
    loop = _node(model, "Loop")
    assert loop.input_value(0).node.type_name == "Constant" and int(loop.input_value(0).node.data) == G.max_length
    body = loop.attrs["bodies"][0]
    ports: SpecialBodyPorts = loop.attrs["special_body_ports"]
    assert body.get_results()[ports.body_condition_output_idx].input_value(0).node.type_name == "NotEqual"
    assert {n.type_name for n in body.get_ordered_ops()} >= {"Gather", "GRUCell", "TopK", "NotEqual"}
    assert [str(o.get_partial_shape()) for o in loop.outputs()] == ["[1,?]", f"[1,?,{G.vocab}]", f"[1,{G.hidden}]"]
    assert {o.any_name for o in model.outputs} == {"tokens", "scores", "last_hidden", "exit_layer"}


def test_reference_takes_both_branches_and_stops_on_the_end_token_with_clear_margins() -> None:
    model, steps = _arch()
    outs = R.run_reference(model, steps)
    exits = [int(o[3][0]) for o in outs]
    assert exits == [1, 3]  # the confident input exits after layer 1, the ambiguous one runs the deep branch
    lengths = []
    for tokens, scores, _last, _exit in outs:
        assert tokens[0, -1] == G.eos and G.eos not in tokens[0, :-1]
        assert tokens.shape[1] < G.max_length  # stopped by the body condition, not the trip count
        np.testing.assert_array_equal(scores[0].argmax(-1), tokens[0])
        top2 = np.sort(scores[0], -1)[:, -2:]
        assert (top2[:, 1] - top2[:, 0]).min() > 1e-3  # f32 rounding (~1e-6) cannot change a token
        lengths.append(tokens.shape[1])
    assert len(set(lengths)) == 2  # one compiled Loop, two trip counts
    for feed in steps:
        values = _triage.all_values(model, feed)
        confidence = next(v for k, v in values.items() if k[0] == "encoder.exit1.confidence")
        assert abs(float(confidence[0]) - control.EXIT_THRESHOLD) > 0.05


def test_models_command_lists_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "--tier", "quick", "--no-counts"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("greedy_decoder"))
    assert "quick" in line and "Loop" in line
    counts = models.stats(models.get("greedy_decoder"))
    assert counts["ops"] >= 10 and counts["weights"] > 0  # top-level only: the counts do not enter bodies


@pytest.mark.openvino
def test_openvino_reads_it_and_decodes_the_same_tokens(tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    model, steps = _arch()
    serialize(model, str(tmp_path / "greedy.xml"))
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "greedy.xml")), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    for feed, want in zip(steps, R.run_reference(model, steps), strict=True):
        got = request.infer(feed)
        np.testing.assert_array_equal(got["tokens"], want[0])
        np.testing.assert_array_equal(got["exit_layer"], want[3])
        assert np.abs(got["scores"] - want[1]).max() < 1e-4


# -- one run of the model suite --------------------------------------------------------------------------

def _run(workdir: Path) -> dict[str, dict[str, Any]]:
    specs = ["reference", *[f"model_control_faults:{name}" for name in faults.FAULTS]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", "test_real_model and greedy_decoder", timeout=600)
    return {name: {r["facts"]["model"]: r for r in doc["records"]} for name, doc in docs.items()}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return once_per_session(tmp_path_factory, "control_model_runs", _run)


def test_reference_passes_and_records_both_steps(records: dict[str, dict[str, Any]]) -> None:
    r = records["REFERENCE"]["greedy_decoder"]
    assert r["status"] == "passed"
    assert [s["step"] for s in r["facts"]["step_errors"]] == [0, 1]


def test_a_loop_reading_its_condition_late_is_caught_with_the_loop_named(records: dict[str, dict[str, Any]]) -> None:
    r = records[faults.LoopConditionOneLate.device_name]["greedy_decoder"]
    assert r["status"] == "failed"
    assert [s["passed"] for s in r["facts"]["step_errors"]] == [False, False]
    assert "first diverging op: Loop 'decoder.generate' at step 0" in r["message"]
    got, want = (int(n) for n in re.search(r"got \[1, (\d+)\], expected \[1, (\d+)\]", r["message"]).groups())
    assert got == want + 1  # one token past the end token
