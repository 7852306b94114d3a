"""``ovconform bench`` with benchmark_app's flags: ``-d``, ``-b``, ``-shape``, ``-data_shape``,
``-layout``, ``-infer_precision``, ``-load_config``/``-dump_config``, ``-cache_dir``, ``-pc``.

``data/benchmark_app_cpu_config.json`` was written by OpenVINO 2026.4's own benchmark_app:
``benchmark_app -m mlp.xml -d CPU -niter 2 -hint none -nstreams 2 -infer_precision f32 -pc
-dump_config benchmark_app_cpu_config.json``.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ovconform.bench.app_flags import guess_layout, parse_data_shapes
from ovconform.bench.models import resolve_model
from ovconform.cli import main
from ovconform.errors import ValidationError
from ovconform.ir import PartialShape

DATA = Path(__file__).parent / "data"
BENCHMARK_APP_FILE = DATA / "benchmark_app_cpu_config.json"
needs_openvino = pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="openvino not installed")


def _bench(tmp_path: Path, *argv: str, model: str = "mlp", device: str = "REFERENCE") -> int:
    return main(["bench", "-d", device, "-m", model, "-niter", "2", "--no-progress",
                 "-report_folder", str(tmp_path / "r"), *argv])


def _perf(tmp_path: Path, model: str = "mlp", device: str = "REFERENCE") -> dict[str, Any]:
    return json.loads((tmp_path / "r" / device / model / "perf.json").read_text())


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    errors = [line for line in lines if line.startswith("ovconform bench: error:")]
    assert len(errors) == 1, err
    return errors[0]


# -- -d ---------------------------------------------------------------------------------------------
def test_d_names_the_device_as_plugin_does(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert _bench(tmp_path, device="reference") == 0
    assert _perf(tmp_path)["device"] == "REFERENCE"
    assert main(["bench", "-d", "NOPE", "-m", "mlp"]) == 2
    assert "--plugin='NOPE' matches no installed device" in capsys.readouterr().err


# -- -b, -layout, -shape, -data_shape -------------------------------------------------------------
def test_b_sets_the_n_dimension_of_the_guessed_layout(tmp_path: Path) -> None:
    assert _bench(tmp_path, "-b", "3", model="cnn") == 0  # [1,3,64,64]: NCHW by benchmark_app's guess
    doc = _perf(tmp_path, "cnn")
    assert doc["inputs"]["image"]["shape"] == [3, 3, 64, 64]


def test_b_on_a_dynamic_first_dimension_warns_and_uses_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert _bench(tmp_path, "-b", "5", model="dynamic_batch") == 0
    assert "The first dimension will be interpreted as batch size" in capsys.readouterr().err
    assert _perf(tmp_path, "dynamic_batch")["inputs"]["x"]["shape"] == [5, 8]


def test_b_needs_a_batch_dimension_or_a_layout(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert _bench(tmp_path, "-b", "4") == 2  # mlp's x is [2,16]: no layout, first dimension not 0/1
    line = _one_error_line(capsys.readouterr().err)
    assert "-b 4: no input of model" in line and "-layout" in line
    assert _bench(tmp_path, "-b", "4", "-layout", "[NC]") == 0
    assert _perf(tmp_path)["inputs"]["x"]["shape"] == [4, 16]
    assert _bench(tmp_path, "-b", "1", "-layout", "x[N...]") == 0
    assert _perf(tmp_path)["inputs"]["x"]["shape"] == [1, 16]


def test_b_that_the_model_cannot_take_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert _bench(tmp_path, "-b", "4", "-layout", "[NCHW]", model="lenet") == 2  # a Reshape to [1,-1] inside
    line = _one_error_line(capsys.readouterr().err)
    assert "cannot be reshaped to {'image': '[4,1,12,12]'}" in line and "MatMul" in line


def test_shape_reshapes_and_data_shape_groups_are_used_in_turn(tmp_path: Path) -> None:
    assert _bench(tmp_path, "-shape", "[?,16]", "-data_shape", "[3,16][5,16]", "-api", "sync", "--inputs",
                  "random") == 0
    doc = _perf(tmp_path)
    assert doc["inputs"]["x"]["shape"] == [3, 16] and doc["inputs"]["sets"] == 4  # 2 groups x 2 iterations
    assert _bench(tmp_path, "-shape", "x[4,16]") == 0
    assert _perf(tmp_path)["inputs"]["x"]["shape"] == [4, 16]
    assert _bench(tmp_path, "-shape", "[1,3,32,32]", model="cnn") == 0
    assert _perf(tmp_path, "cnn")["inputs"]["image"]["shape"] == [1, 3, 32, 32]


def test_b_is_ignored_with_data_shape_as_in_benchmark_app(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert _bench(tmp_path, "-b", "7", "-data_shape", "[6,8]", model="dynamic_batch") == 0
    assert "Batch size will be ignored" in capsys.readouterr().err
    assert _perf(tmp_path, "dynamic_batch")["inputs"]["x"]["shape"] == [6, 8]


def test_parse_data_shapes_follows_benchmark_app() -> None:
    model = resolve_model("dynamic_batch", 0).model
    assert parse_data_shapes("[1,8][4,8]", model) == [{"x": [1, 8]}, {"x": [4, 8]}]
    assert parse_data_shapes("x[2,8]", model) == [{"x": [2, 8]}]
    with pytest.raises(ValidationError, match="is dynamic; a data shape is always static"):
        parse_data_shapes("[?,8]", model)
    with pytest.raises(ValidationError, match="is not compatible with its shape"):
        parse_data_shapes("[2,9]", model)
    with pytest.raises(ValidationError, match="names input 'y'"):
        parse_data_shapes("y[2,8]", model)


def test_guess_layout_is_benchmark_apps() -> None:
    assert guess_layout(PartialShape([1, 3, 224, 224])).to_string() == Layout_("NCHW")
    assert guess_layout(PartialShape([1, 224, 224, 3])).to_string() == Layout_("NHWC")
    assert guess_layout(PartialShape([3, 224, 224])).to_string() == Layout_("CHW")
    assert guess_layout(PartialShape([2, 16])).empty() and guess_layout(PartialShape([1, 8, 8, 8])).empty()


def Layout_(text: str) -> str:  # noqa: N802 - the layout's canonical string
    from ovconform.ir import Layout

    return Layout(text).to_string()


@pytest.mark.parametrize(("argv", "message"), [
    (["-shape", "[a,b]"], "-shape: input 'x': shape [a,b] is not a shape"),
    (["-shape", "y[1,16]"], "-shape names input 'y'; the model 'mlp' has inputs ['x']"),
    (["-shape", "1,16"], "-shape '1,16': expected name[value],other[value] or [value]"),
    (["-shape", "[?,16]", "-data_shape", "[3,17]"], "-data_shape: the shape [3,17] of input 'x' is not compatible"),
    (["-b", "2", "-layout", "[NN]"], "-layout of input 'x': layout 'NN' names dimension 'N' twice"),
    (["-infer_precision", "f99"], "-infer_precision 'f99': 'f99' is not an element type"),
    (["-infer_precision", "GPU:f32"], "device 'GPU' is not among the devices benchmarked (REFERENCE)"),
    (["-pc", "maybe"], "argument -pc/--perf-counts: expected true or false, got 'maybe'"),
    (["-pc", "--no-pc"], "-pc true and --no-pc both given"),
])
def test_bad_flag_values_give_one_error_line_and_exit_2(argv: list[str], message: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    try:
        code = _bench(tmp_path, *argv)
    except SystemExit as e:  # argparse's own refusal: one "error: argument ..." line
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err, err


# -- -infer_precision, -pc, -cache_dir ------------------------------------------------------------
def test_infer_precision_and_pc_reach_the_compile_config(tmp_path: Path) -> None:
    assert _bench(tmp_path, "-infer_precision", "REFERENCE:f32", "-pc") == 0
    doc = _perf(tmp_path)
    assert doc["compile_config"]["INFERENCE_PRECISION_HINT"] == "f32" and doc["compile_config"]["PERF_COUNT"] is True
    assert doc["device_properties"]["INFERENCE_PRECISION_HINT"] == "f32"
    assert _bench(tmp_path, "-pc", "false") == 0
    doc = _perf(tmp_path)
    assert doc["compile_config"]["PERF_COUNT"] is False and doc["config"]["perf_count"] is False
    assert not doc.get("counters")


def test_cache_dir_caches_the_compiled_model(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cache = tmp_path / "cache"
    assert _bench(tmp_path, "-cache_dir", str(cache)) == 0
    assert _perf(tmp_path)["device_properties"]["LOADED_FROM_CACHE"] is False
    assert any(cache.iterdir())
    assert _bench(tmp_path, "-cache_dir", str(cache)) == 0
    assert _perf(tmp_path)["device_properties"]["LOADED_FROM_CACHE"] is True
    (tmp_path / "file").write_text("x")
    assert _bench(tmp_path, "-cache_dir", str(tmp_path / "file")) == 2
    assert "is not a directory" in _one_error_line(capsys.readouterr().err)


# -- -load_config / -dump_config ------------------------------------------------------------------
def test_dump_then_load_gives_the_same_compile_config(tmp_path: Path) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert _bench(tmp_path, "-hint", "none", "-nstreams", "2", "-infer_precision", "f32", "-pc", "false",
                  "-dump_config", str(first)) == 0
    dumped = json.loads(first.read_text())
    assert dumped == {"REFERENCE": {"NUM_STREAMS": "2", "PERF_COUNT": "NO", "INFERENCE_PRECISION_HINT": "f32"}}
    config = _perf(tmp_path)["compile_config"]
    assert _bench(tmp_path, "-hint", "none", "-load_config", str(first), "-dump_config", str(second)) == 0
    assert json.loads(second.read_text()) == dumped
    again = _perf(tmp_path)
    assert again["compile_config"] == {"NUM_STREAMS": "2", "PERF_COUNT": False, "INFERENCE_PRECISION_HINT": "f32"}
    assert config == {"NUM_STREAMS": 2, "PERF_COUNT": False, "INFERENCE_PRECISION_HINT": "f32"}
    assert again["device_properties"]["NUM_STREAMS"] == 2


def test_the_command_line_wins_over_the_file(tmp_path: Path) -> None:
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"REFERENCE": {"PERFORMANCE_HINT": "LATENCY", "PERF_COUNT": "NO",
                                              "INFERENCE_PRECISION_HINT": "f32"}, "CPU": {"NUM_STREAMS": "4"}}))
    out = tmp_path / "out.json"
    assert _bench(tmp_path, "-load_config", str(file), "-dump_config", str(out)) == 0
    doc = _perf(tmp_path)
    assert doc["config"]["hint"] == "latency" and doc["config"]["api"] == "sync"  # the file's hint
    assert doc["compile_config"]["PERF_COUNT"] is False and doc["config"]["perf_count"] is False
    dumped = json.loads(out.read_text())
    assert dumped["CPU"] == {"NUM_STREAMS": "4"}  # another device's entry is kept, as benchmark_app does
    assert dumped["REFERENCE"] == {"PERFORMANCE_HINT": "LATENCY", "PERF_COUNT": "NO", "INFERENCE_PRECISION_HINT": "f32"}
    assert _bench(tmp_path, "-load_config", str(file), "-hint", "throughput", "-pc") == 0
    doc = _perf(tmp_path)
    assert doc["compile_config"]["PERFORMANCE_HINT"] == "THROUGHPUT" and doc["compile_config"]["PERF_COUNT"] is True


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    ("{not json", "not JSON"),
    ("[1, 2]", "expected an object"),
    ('{"REFERENCE": 3}', "the entry of device 'REFERENCE' must be an object"),
    ('{"REFERENCE": {"NUM_STREAMS": [2]}}', "REFERENCE.NUM_STREAMS must be a string"),
    ('{"REFERENCE": {"NO_SUCH_KEY": "1"}}', "device REFERENCE has no property NO_SUCH_KEY"),
    ('{"REFERENCE": {"PERFORMANCE_HINT": "FAST"}}', "PERFORMANCE_HINT 'fast' of device REFERENCE is not one of"),
])
def test_bad_load_config_files(content: str | None, message: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture) -> None:
    file = tmp_path / "c.json"
    if content is not None:
        file.write_text(content)
    assert _bench(tmp_path, "-load_config", str(file)) == 2
    assert message in _one_error_line(capsys.readouterr().err)


@needs_openvino
def test_a_benchmark_app_written_file_configures_openvino_cpu(tmp_path: Path) -> None:
    out = tmp_path / "ours.json"
    assert _bench(tmp_path, "-load_config", str(BENCHMARK_APP_FILE), "-dump_config", str(out),
                  device="openvino:CPU") == 0
    doc = _perf(tmp_path, device="openvino-CPU")
    assert doc["device_properties"]["NUM_STREAMS"] == 2 and doc["device_properties"]["PERF_COUNT"] is True
    assert doc["device_properties"]["INFERENCE_PRECISION_HINT"] == "f32"
    written = json.loads(BENCHMARK_APP_FILE.read_text())
    # keyed by OpenVINO's device name, so benchmark_app -d CPU reads it; benchmark_app adds the default
    # THROUGHPUT hint to a file without one, and so do we
    assert json.loads(out.read_text()) == {"CPU": {**written["CPU"], "PERFORMANCE_HINT": "THROUGHPUT"}}


@needs_openvino
@pytest.mark.skipif(shutil.which("benchmark_app") is None, reason="OpenVINO's benchmark_app is not on PATH")
def test_benchmark_app_reads_our_dump(tmp_path: Path) -> None:
    import ovconform

    out = tmp_path / "ours.json"
    assert _bench(tmp_path, "-hint", "none", "-nstreams", "2", "-infer_precision", "f32", "-dump_config", str(out),
                  device="openvino:CPU") == 0
    ovconform.serialize(resolve_model("mlp", 0).model, tmp_path / "mlp.xml")
    run = subprocess.run(["benchmark_app", "-m", str(tmp_path / "mlp.xml"), "-d", "CPU", "-niter", "2", "-hint", "none",
                          "-load_config", str(out)], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    # its defaults with -hint none are 1 stream, no counters: these come from our file
    assert "NUM_STREAMS: 2" in run.stdout and "PERF_COUNT: YES" in run.stdout
