"""Bring your own model: ``pytest --plugin=X --ovconform-model path`` (``ovconform.models.own_model``).

One pytest run (from a temporary folder, the installed suites, ``-k test_real_model``) on REFERENCE
and on the device that applies a u4 zero point after the scale
(``tests/plugins/model_faulty_devices.py``), with three model files beside the zoo: a saved IR v11
with u4-compressed weights and static shapes, a saved IR with a dynamic sequence dimension, and a
hand-written ONNX file read through OpenVINO's frontend (when ``onnx`` and ``openvino`` are
installed). REFERENCE passes all three under their file names; the faulty device fails the u4
model only, naming the zero-point Subtract, with a reproducer. In subprocesses: every mistake
(missing file, unknown suffix, a broken XML, inputs that do not fit) is one usage-error line,
exit 4, no traceback. In process: inputs drawn from the declared shapes, and read from .npy/.npz.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import once_per_session, run_devices, subprocess_env
from plugins import model_faulty_devices as faults

from ovconform import Model, serialize
from ovconform import opset as ops
from ovconform.errors import NotFoundError, ReadModelError, ValidationError
from ovconform.ir import Dimension, PartialShape, Type
from ovconform.models._blocks import Weights
from ovconform.models._compress import compressed_linear
from ovconform.models.own_model import DYNAMIC_SIZE, OwnModel, draw_inputs, load_inputs, read_own_model

FAULTY = faults.U4ZeroPointAfterScale.device_name


def _u4_model(dynamic: bool) -> Model:
    """x [2, L, 128] → u4-compressed Linear (128 → 96, groups of 64) → Relu → f32 Linear → Softmax."""
    w = Weights(5)
    x = ops.parameter([2, -1 if dynamic else 6, 128], Type.f32, name="x")
    h = ops.relu(compressed_linear(x, w, 128, 96, "fc1", "u4", std=128 ** -0.5), name="act")
    y = ops.matmul(h, w.normal(96, 10, std=96 ** -0.5, name="fc2.weight"), False, False, name="fc2")
    return Model([ops.softmax(y, -1, name="probs")], [x], "dyn_u4" if dynamic else "static_u4")


def _onnx_model(path: Path) -> bool:
    """A hand-written ONNX MatMul → Add → Relu with a dynamic batch; False when onnx is missing."""
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return False
    rng = np.random.default_rng(2)
    weight = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "W")
    bias = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "B")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["mm"], name="mm"), helper.make_node("Add", ["mm", "B"], ["add"],
                                                                                   name="add"),
         helper.make_node("Relu", ["add"], ["y"], name="relu")],
        "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])], [weight, bias])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return True


def _openvino_available() -> bool:
    try:
        import openvino  # noqa: F401
    except ImportError:
        return False
    return True


def _run(workdir: Path) -> dict[str, Any]:
    files = workdir / "models"
    files.mkdir(parents=True, exist_ok=True)
    serialize(_u4_model(False), str(files / "static_u4.xml"))
    serialize(_u4_model(True), str(files / "dyn_u4.xml"))
    args = ["-p", "no:xdist", "-k", "test_real_model and (static_u4 or dyn_u4 or tiny)",
            "--ovconform-model", str(files / "static_u4.xml"), "--ovconform-model", str(files / "dyn_u4.xml")]
    onnx_made = _openvino_available() and _onnx_model(files / "tiny.onnx")
    if onnx_made:
        args += ["--ovconform-model", str(files / "tiny.onnx")]
    docs = run_devices(workdir / "run", ["reference", "model_faulty_devices:U4ZeroPointAfterScale"], *args)
    return {"onnx": onnx_made, "selection": docs["REFERENCE"]["run"]["selection"],
            "records": {name: {r["facts"]["model"]: r for r in doc["records"]} for name, doc in docs.items()}}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return once_per_session(tmp_path_factory, "byo_model_runs", _run)


def _names(session: dict[str, Any]) -> set[str]:
    return {"static_u4.xml", "dyn_u4.xml"} | ({"tiny.onnx"} if session["onnx"] else set())


def test_reference_passes_the_saved_models(session: dict[str, Any]) -> None:
    got = session["records"]["REFERENCE"]
    assert set(got) == _names(session)
    for name, r in got.items():
        assert r["status"] == "passed", (name, r.get("message"))
        assert r["facts"]["source"].endswith(name)
        assert r["nodeid"].endswith(f"test_real_model[{name}-REFERENCE]")


def test_the_report_records_the_model_files(session: dict[str, Any]) -> None:
    files = session["selection"]["own_models"]
    assert [Path(f).name for f in files] == ["static_u4.xml", "dyn_u4.xml", *(["tiny.onnx"] if session["onnx"] else [])]


def test_faulty_device_fails_the_u4_models_naming_the_subtract(session: dict[str, Any]) -> None:
    got = session["records"][FAULTY]
    assert set(got) == _names(session)
    failing = {n for n, r in got.items() if r["status"] != "passed"}
    assert failing == {"static_u4.xml", "dyn_u4.xml"}, {n: got[n].get("message", "")[:200] for n in got}
    for name in failing:
        r = got[name]
        assert r["status"] == "failed"
        assert "first diverging op: Subtract 'fc1.weight.zero_point.subtract' at step 0" in r["message"]
        assert Path(r["facts"]["repro"]).is_file()


def test_onnx_through_openvino_frontend(session: dict[str, Any]) -> None:
    if not session["onnx"]:
        pytest.skip("the onnx package (to write the model) or openvino (its frontend) is not installed")
    r = session["records"]["REFERENCE"]["tiny.onnx"]
    assert r["status"] == "passed" and r["facts"]["source"].endswith("tiny.onnx")


# -- mistakes: one usage-error line, exit 4 ---------------------------------------------------------

def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "pytest", "--plugin=reference", "-p", "no:cacheprovider", "-p", "no:xdist",
           "-k", "test_real_model", "--collect-only", "-q", *args]
    return subprocess.run(cmd, cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("byo")
    serialize(_u4_model(False), str(folder / "m.xml"))
    (folder / "broken.xml").write_text("<net name='x' version='11'><layers><layer id='0'")
    (folder / "m.txt").write_text("not a model")
    np.save(folder / "wrong_shape.npy", np.zeros((2, 5, 127), np.float32))
    np.savez(folder / "unknown_key.npz", y=np.zeros((2, 6, 128), np.float32))
    return folder


@pytest.mark.parametrize(("args", "message"), [
    (["--ovconform-model", "missing.xml"], "--ovconform-model 'missing.xml': no such file."),
    (["--ovconform-model", "{d}/m.txt"], "the suffix '.txt' is not a model format read here; allowed: .xml"),
    (["--ovconform-model", "{d}/broken.xml"], "--ovconform-model '{d}/broken.xml': "),
    (["--ovconform-model", "{d}/m.xml", "--ovconform-model-inputs", "{d}/wrong_shape.npy"],
     "'x' has shape [2, 5, 127]; Parameter 'x' takes [2,6,128]"),
    (["--ovconform-model", "{d}/m.xml", "--ovconform-model-inputs", "{d}/unknown_key.npz"],
     "'y' is no Parameter of the model; allowed: x."),
    (["--ovconform-model", "{d}/m.xml", "--ovconform-model-inputs", "{d}/none.npz"],
     "--ovconform-model-inputs '{d}/none.npz': no such file."),
    (["--ovconform-model-inputs", "{d}/unknown_key.npz"],
     "--ovconform-model-inputs is given without --ovconform-model"),
], ids=["missing", "suffix", "broken-xml", "shape", "key", "inputs-missing", "inputs-alone"])
def test_a_mistake_is_one_usage_error_line(tmp_path: Path, saved: Path, args: list[str], message: str) -> None:
    proc = _pytest(tmp_path, *[a.format(d=saved) for a in args])
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and message.format(d=saved) in errors[0], proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr + proc.stdout


def test_without_the_option_nothing_changes(tmp_path: Path) -> None:
    proc = _pytest(tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ".xml-" not in proc.stdout and "test_real_model[llama_decoder-REFERENCE]" in proc.stdout


# -- in process ----------------------------------------------------------------------------------------

def test_inputs_drawn_from_declared_shapes_and_types(tmp_path: Path) -> None:
    ids = ops.parameter([1, -1], Type.i64, name="ids")
    flag = ops.parameter([3], Type.boolean, name="flag")
    table = ops.constant(np.ones((7, 4), np.float32), Type.f32)
    looked = ops.gather(table, ids, ops.constant(np.int64(0), Type.i64), name="lookup")
    model = Model([looked, ops.logical_not(flag)], [ids, flag], "ids")
    (feed,) = draw_inputs(model)
    assert feed["ids"].shape == (1, DYNAMIC_SIZE) and feed["ids"].dtype == np.int64
    assert feed["ids"].min() >= 0 and feed["ids"].max() < 7  # below the table it indexes
    assert feed["flag"].dtype == np.bool_ and feed["flag"].shape == (3,)
    x = ops.parameter([Dimension(1, 3), 5], Type.f32, name="x")
    (feed,) = draw_inputs(Model([ops.relu(x)], [x], "bounded"))
    assert feed["x"].shape == (3, 5)  # DYNAMIC_SIZE clamped to the bound
    anyrank = ops.parameter(PartialShape.dynamic(), Type.f32, name="r")
    with pytest.raises(ValidationError, match=r"Parameter 'r' has a dynamic rank; give its inputs"):
        draw_inputs(Model([ops.relu(anyrank)], [anyrank], "anyrank"))


def test_inputs_from_npy_and_npz(tmp_path: Path) -> None:
    model = _u4_model(True)
    x = np.random.default_rng(0).standard_normal((2, 3, 128)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    (step,) = load_inputs(model, tmp_path / "x.npy")
    np.testing.assert_array_equal(step["x"], x)
    np.savez(tmp_path / "steps.npz", s0__x=x, s1__x=x[:, :1])
    steps = load_inputs(model, tmp_path / "steps.npz")
    assert [s["x"].shape for s in steps] == [(2, 3, 128), (2, 1, 128)]
    np.savez(tmp_path / "gap.npz", s0__x=x, s2__x=x)
    with pytest.raises(ValidationError, match=r"steps \[0, 2\] are not 0, 1, \.\.\. without a gap"):
        load_inputs(model, tmp_path / "gap.npz")
    np.savez(tmp_path / "ints.npz", x=np.zeros((2, 3, 128), np.int64))
    with pytest.raises(ValidationError, match=r"'x' holds int64; Parameter 'x' is f32"):
        load_inputs(model, tmp_path / "ints.npz")
    ids = ops.parameter([2], Type.i32, name="ids")
    half = ops.parameter([2], Type.f16, name="half")
    small = Model([ops.convert(ids, Type.f16), ops.negative(half)], [ids, half], "types")
    np.savez(tmp_path / "types.npz", ids=np.array([1, 2], np.int64), half=np.array([0.5, 1.0], np.float32))
    (step,) = load_inputs(small, tmp_path / "types.npz")
    assert step["ids"].dtype == np.int32 and step["half"].dtype == np.float16  # held as the Parameters' types
    np.savez(tmp_path / "big.npz", ids=np.array([1, 2 ** 40], np.int64), half=np.zeros(2, np.float32))
    with pytest.raises(ValidationError, match=r"'ids' holds values in \[1, 1099511627776\]; Parameter 'ids' is i32"):
        load_inputs(small, tmp_path / "big.npz")
    (drawn,) = draw_inputs(small)
    assert drawn["ids"].dtype == np.int32 and drawn["half"].dtype == np.float16
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValidationError, match=r"numpy cannot read it"):  # never unpickled
        load_inputs(model, tmp_path / "obj.npy")
    with pytest.raises(NotFoundError, match=r"'\.csv' is not an input file; allowed: \.npy"):
        (tmp_path / "x.csv").write_text("1,2")
        load_inputs(model, tmp_path / "x.csv")
    own = OwnModel(tmp_path / "m.xml", tmp_path / "steps.npz")
    serialize(model, str(own.path))
    assert own.name == "m.xml" and own.build() is own.build()  # read once
    assert len(own.make_steps(own.build())) == 2


def test_read_own_model_errors(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match=r"no such file"):
        read_own_model(tmp_path / "none.onnx")
    (tmp_path / "bad.xml").write_text("<net")
    with pytest.raises(ReadModelError, match=r"--ovconform-model '.*bad.xml': "):
        read_own_model(tmp_path / "bad.xml")
    if _openvino_available():
        (tmp_path / "bad.onnx").write_bytes(b"\x00garbage")
        with pytest.raises(ReadModelError, match=r"OpenVINO cannot read it"):
            read_own_model(tmp_path / "bad.onnx")
