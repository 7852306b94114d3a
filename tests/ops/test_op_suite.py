"""The op and model conformance suites have teeth.

One pytest run (``-n 2``, from a temporary folder, the installed suites, 3 cases per op) tests
REFERENCE and the devices of ``tests/plugins/op_faulty_devices.py`` together, with
``tests/plugins/op_hooks.py`` contributing a model. (That a serial run gives the same records as
``-n 2`` is checked over every suite in tests/suites/test_suites_reference.py.) Then:

* REFERENCE passes every op and model test;
* Softmax on the wrong axis fails only Softmax Inference cases and the models with a Softmax,
  triage names the Softmax, and the repro script exits 1 printing the mismatch;
* a device whose query_model over-claims Gelu fails with "declared supported but failed";
* a device that leaves Erf out of query_model (though Erf works) fails Erf's Implemented tests
  ("not implemented") and skips the others, recording ``undeclared_but_works``.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import once_per_session
from plugins import op_faulty_devices

import ovconform
from ovconform import opset as ops
from ovconform.host.manager import get_plugin_manager
from ovconform.ir import Type
from ovconform.suites import _op_runner as R
from ovconform.suites import _triage, _zoo

PLUGINS = Path(op_faulty_devices.__file__).resolve().parent
FAIL = ("failed", "error", "crashed", "hanged")
SELECT = "op_conformance or model_conformance"
SOFTMAX_MODELS = {"mlp", "lenet", "transformer_encoder_block"}




def _run(workdir: Path, specs: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    cmd = [sys.executable, "-m", "pytest", *[f"--plugin={s}" for s in specs], "-p", "op_hooks", "-q",
           "-p", "no:cacheprovider", "-k", SELECT, "-n", "2"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGINS), os.environ.get("PYTHONPATH")]))
    env["OVCONFORM_EXAMPLES"] = "3"
    env["OVCONFORM_DEPTH"] = "quick"  # the suite's machinery; the stimulus cases: test_op_kernel_faults.py
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=600, check=False)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for report in (workdir / "reports").glob("*/conformance.json"):
        doc = json.loads(report.read_text())
        out[doc["device"]["name"] if isinstance(doc["device"], dict) else doc["device"]] = {
            r["nodeid"]: r for r in doc["records"]}
    assert out, f"no reports written:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return out


def _the_run(base: Path) -> dict[str, Any]:
    specs = ["reference", *[f"op_faulty_devices:{name}" for name in op_faulty_devices.FAULTS]]
    return {"parallel": _run(base / "parallel", specs)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The run, once per session even under xdist."""
    return once_per_session(tmp_path_factory, "op_suite_runs", _the_run)


def _failures(records: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {n: r for n, r in records.items() if r["status"] in FAIL}


def test_reference_passes_everything(runs: dict[str, Any]) -> None:
    records = runs["parallel"]["REFERENCE"]
    assert not _failures(records), sorted(_failures(records))[:10]
    ops_run = [r for r in records.values() if r["entity"] == "op" and r["status"] == "passed"]
    models = {r["facts"].get("model") for r in records.values() if r["entity"] == "model" and r["status"] == "passed"}
    assert len(ops_run) > 100
    assert {"mlp", "lenet", "resnet_basic_block", "mobilenet_v2_inverted_residual", "transformer_encoder_block",
            "lstm_sequence", "gru_sequence", "stateful_accumulator", "dynamic_batch", "hook_tiny_relu"} <= models
    skipped = [r["nodeid"] for r in records.values() if r["status"] == "skipped" and r["entity"] == "model"]
    assert skipped == [], f"zoo models skipped: {skipped}"


def test_inference_records_tolerance_and_errors(runs: dict[str, Any]) -> None:
    rec = next(r for n, r in runs["parallel"]["REFERENCE"].items()
               if "test_op_inference[Softmax-8-case" in n)
    facts = rec["facts"]
    assert facts["op_type"] == "Softmax" and facts["version"] == 8 and facts["sub_entity"] == "Inference"
    assert facts["tolerances"] and {"atol", "rtol", "ulp"} <= set(facts["tolerances"][0])
    assert facts["max_abs_err"] == 0.0 and facts["max_rel_err"] == 0.0


def test_softmax_wrong_axis_fails_softmax_only(runs: dict[str, Any]) -> None:
    failures = _failures(runs["parallel"]["OPFAULT_SOFTMAX"])
    op_fail = {n for n in failures if "test_op_" in n}
    model_fail = {failures[n]["facts"]["model"] for n in failures if "test_model[" in n}
    assert op_fail and all(fnmatch.fnmatch(n, "*test_op_inference[[]Softmax-*") for n in op_fail), sorted(op_fail)
    assert model_fail == SOFTMAX_MODELS
    for n in op_fail:
        assert failures[n]["message"].startswith("Failed: declared supported but failed: Softmax-")
    transformer = next(r for r in failures.values() if r["facts"].get("model") == "transformer_encoder_block")
    assert "triage: Softmax 'attn_softmax' fails" in transformer["message"]
    assert "LayerNorm" not in transformer["message"] and "MatMul" not in transformer["facts"]["triage"]


def test_softmax_repro_script_reproduces(runs: dict[str, Any]) -> None:
    failures = _failures(runs["parallel"]["OPFAULT_SOFTMAX"])
    rec = next(r for r in failures.values() if r["facts"].get("model") == "transformer_encoder_block")
    script = Path(rec["facts"]["repro"])
    assert str(script) in rec["message"]
    assert re.search(r"OPFAULT_SOFTMAX/repro/", str(script))
    assert {p.name for p in script.parent.iterdir()} >= {"model.xml", "model.bin", "inputs.npz", "expected.npz",
                                                         "meta.json", "repro.py"}
    env = {**os.environ, "PYTHONPATH": str(PLUGINS)}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120,
                          check=False, cwd=script.parent.parent)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "MISMATCH" in proc.stdout and "max abs err" in proc.stdout


def test_overclaimed_op_is_declared_supported_but_failed(runs: dict[str, Any]) -> None:
    failures = _failures(runs["parallel"]["OPFAULT_GELU_CLAIM"])
    assert failures
    for n, r in failures.items():
        assert "Gelu" in n or r["facts"].get("model") == "transformer_encoder_block", n
        assert r["message"].startswith("Failed: declared supported but failed:"), r["message"]
    assert any("test_op_implemented[Gelu-7" in n for n in failures)


def test_unclaimed_op_is_not_implemented_and_records_that_it_works(runs: dict[str, Any]) -> None:
    """An op query_model leaves out is not implemented: Implemented fails (so the op's pass rate
    drops), the other sub-entities skip, and that it works anyway is recorded."""
    records = runs["parallel"]["OPFAULT_ERF_UNCLAIMED"]
    failures = _failures(records)
    assert failures and all("test_op_implemented[Erf-1-" in n for n in failures), sorted(failures)
    assert all("not implemented:" in r["message"] for r in failures.values())
    erf = [r for n, r in records.items() if "[Erf-1-" in n and "query_model" not in n and "implemented" not in n]
    assert erf and all(r["status"] == "skipped" for r in erf)
    assert all("not supported (declared by query_model)" in r["message"] for r in erf)
    assert any(r["facts"].get("undeclared_but_works") is True for r in erf)


# -- in-process checks ------------------------------------------------------------------------------

def test_cases_are_deterministic() -> None:
    from ovconform import opcases

    first = R.generate_cases("Softmax", 8, 4)
    opcases.generated_cases.cache_clear()
    opcases._draw_cases.cache_clear()
    second = R.generate_cases("Softmax", 8, 4)
    assert len(first) == len(second) == 4
    for a, b in zip(first, second, strict=True):
        assert a.inputs.keys() == b.inputs.keys()
        assert all(np.array_equal(a.inputs[k], b.inputs[k]) for k in a.inputs)


def test_examples_count_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoOption:
        def getoption(self, name: str) -> Any:
            raise ValueError(name)

    monkeypatch.setenv("OVCONFORM_EXAMPLES", "7")
    assert R.examples_count(NoOption()) == 7
    monkeypatch.delenv("OVCONFORM_EXAMPLES")
    assert R.examples_count(NoOption()) == R.DEFAULT_EXAMPLES


class _LooseSoftmax:
    @ovconform.hookimpl
    def ovconform_get_tolerance(self, device: str, op_type: str, version: int,
                                element_type: str) -> dict[str, float] | None:
        if device == "MYDEV" and op_type in ("Softmax", "*model*"):
            return {"atol": 0.5}
        return None


def test_tolerance_hook_overrides_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    pm = get_plugin_manager(load_entrypoints=False)
    pm.register(_LooseSoftmax())
    monkeypatch.setattr(R, "plugin_manager", lambda: pm)
    node = ops.softmax(ops.parameter([2, 3], Type.f32), 1)
    assert R.tolerance_for("MYDEV", node, Type.f32).atol == 0.5
    assert R.tolerance_for("OTHER", node, Type.f32).atol < 1e-5
    assert R.model_tolerance("MYDEV", Type.f32).atol == 0.5
    assert R.model_tolerance("OTHER", Type.f32) == R.MODEL_TOLERANCE


def test_triage_cuts_single_ops_with_actual_inputs() -> None:
    model = _zoo.transformer_encoder()
    steps = _zoo.default_steps(model)
    values = _triage.all_values(model, steps[0])
    node = next(n for n in model.get_ordered_ops() if n.friendly_name == "attn_softmax")
    sub, feed = _triage.single_op_model(node, values)
    assert [n.type_name for n in R.ops_under_test(sub)] == ["Softmax"]
    (want,) = R.run_reference(sub, [feed])[0]
    np.testing.assert_array_equal(want, values[("attn_softmax", 0)])


def test_bad_examples_count_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoOption:
        def getoption(self, name: str) -> Any:
            raise ValueError(name)

    for bad in ("x", "0"):
        monkeypatch.setenv("OVCONFORM_EXAMPLES", bad)
        with pytest.raises(pytest.UsageError, match=f"OVCONFORM_EXAMPLES='{bad}'.*integer >= 1"):
            R.examples_count(NoOption())


@pytest.mark.parametrize(("env", "args", "message"), [
    ({"OVCONFORM_DEPTH": "bogus"}, [], "OVCONFORM_DEPTH='bogus' is not a depth; allowed: quick, standard, exhaustive."),
    ({}, ["--ovconform-examples=-3"], "--ovconform-examples=-3: the number of cases per op must be an integer >= 1."),
])
def test_bad_depth_or_count_is_a_usage_error_before_collection(tmp_path: Path, env: dict[str, str], args: list[str],
                                                               message: str) -> None:
    """pytest's usage error (exit 4, one line), not a collection error of the op suite module."""
    cmd = [sys.executable, "-m", "pytest", "--plugin=reference", "-q", "-p", "no:cacheprovider", "--co", *args]
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT", "OVCONFORM_"))}
    proc = subprocess.run(cmd, cwd=tmp_path, env={**base, **env}, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"ERROR: {message}" in proc.stderr and "collection" not in proc.stdout + proc.stderr


def test_examples_option_with_the_suites_folder(tmp_path: Path) -> None:
    """``--ovconform-examples`` (registered by suites/conftest.py) when the suites folder is given."""
    suites = Path(R.__file__).resolve().parent
    cmd = [sys.executable, "-m", "pytest", "--plugin=reference", str(suites), "--ovconform-examples", "2", "-q",
           "-p", "no:cacheprovider", "-p", "no:xdist", "-k", "op_conformance and Relu and not PRelu", "--co",
           "--ovconform-depth", "quick"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    ids = [line for line in proc.stdout.splitlines() if "test_op_" in line]
    assert len(ids) == 2 * 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    labels = {f"Relu-1-case{i}-" for i, _ in R.generated_cases("Relu", 1, 2)}
    assert len(labels) == 2 and all(any(label in i for label in labels) for i in ids), ids


def test_case_generation_ignores_the_literals_of_loaded_modules() -> None:
    """Hypothesis mixes literals of loaded local modules into its draws, so a process that imported
    more of the project drew other cases (an xdist worker and a serial run disagreed on
    BatchNormInference-1-case8; tests/suites/test_suites_reference.py compares whole runs). While the
    suite generates, that pool is empty; afterwards Hypothesis's own is back."""
    from hypothesis.internal.conjecture import providers

    from ovconform.opcases import same_draws_everywhere

    original = providers._get_local_constants
    assert len(original()) > 0  # the project's own modules are local: their literals are in the pool
    with same_draws_everywhere():
        assert len(providers._get_local_constants()) == 0
        assert R.generate_cases("Relu", 1, 2)
    assert providers._get_local_constants is original
