"""The op families (``ovconform.ir.op_families``): every op type of opset1..16 is in exactly one of
OpenVINO's operation-specification folders, and the builders, the case strategies and these tests
are split by the same families — an op is defined and drawn in the module of its family."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ovconform.errors import NotFoundError, UnsupportedOpError
from ovconform.ir.op_families import FAMILIES, OP_FAMILIES, family_of, ops_of
from ovconform.ir.opset_table import OPSET_VERSIONS

#: The folders of docs/articles_en/documentation/openvino-ir-format/operation-sets/operation-specs/ in
#: openvinotoolkit/openvino (OpenVINO 2026), without "internal".
SPEC_FOLDERS = ("activation", "arithmetic", "bitwise", "comparison", "condition", "convolution", "detection",
                "generation", "image", "infrastructure", "logical", "matrix", "movement", "normalization", "pooling",
                "quantization", "reduction", "sequence", "shape", "signals", "sort", "sparse", "type")

OPS_DIR = Path(__file__).resolve().parent


def test_the_families_are_the_spec_folders() -> None:
    assert FAMILIES == SPEC_FOLDERS


def test_every_op_of_the_opsets_has_exactly_one_family() -> None:
    assert set(OP_FAMILIES) == set(OPSET_VERSIONS)
    assert set(OP_FAMILIES.values()) == set(FAMILIES)  # no family is empty
    members = [op for family in FAMILIES for op in ops_of(family)]
    assert sorted(members) == sorted(OPSET_VERSIONS)  # each op listed once
    for family in FAMILIES:
        assert list(ops_of(family)) == sorted(ops_of(family))


@pytest.mark.parametrize(("op", "family"), [("Softmax", "activation"), ("LogSoftmax", "activation"),
                                            ("Interpolate", "image"), ("Tanh", "arithmetic"), ("Exp", "activation"),
                                            ("NonMaxSuppression", "sort"), ("OneHot", "sequence"),
                                            ("ReadValue", "infrastructure"), ("Convert", "type"),
                                            ("SparseFillEmptyRows", "sparse"), ("Col2Im", "movement"),
                                            ("FakeConvert", "quantization")])
def test_ops_are_where_the_spec_files_them(op: str, family: str) -> None:
    assert family_of(op) == family


def test_unknown_names_are_clear_errors() -> None:
    with pytest.raises(UnsupportedOpError, match=r"op type 'Softmaxx' is in no op family"):
        family_of("Softmaxx")
    with pytest.raises(NotFoundError, match=r"'activations' is not an op family; the families are: activation, "):
        ops_of("activations")


# Where each op is defined and drawn: a fresh interpreter, profiled from before ovconform is imported,
# records the module whose code calls register_opdef (through define_op) and register_case, walking
# out of the shared helpers (_helpers, _inputs, _window, _draw*) to the family module.
_RECORD = textwrap.dedent('''
    import json, sys

    defined, drawn = {}, {}

    def family_frame(frame, prefix):
        while frame is not None:
            name = frame.f_globals.get("__name__", "")
            if name.startswith(prefix) and not name.rsplit(".", 1)[-1].startswith(
                    ("_helpers", "_inputs", "_window", "_draw")):
                return name
            frame = frame.f_back
        return "?"

    def profile(frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        if code.co_name == "register_opdef" and code.co_filename.endswith("_opdef.py"):
            d = frame.f_locals["opdef"]
            defined[f"{d.type_name}-{d.version}"] = family_frame(frame.f_back, "ovconform.opset.")
        elif code.co_name == "deco" and frame.f_globals.get("__name__") == "ovconform.opcases":
            key = frame.f_locals.get("key") or (frame.f_locals["op_type"], frame.f_locals["version"])
            drawn[f"{key[0]}-{key[1]}"] = family_frame(frame.f_back, "ovconform.opcases.")

    sys.setprofile(profile)
    import ovconform.opcases as oc
    import ovconform.opset  # noqa: F401
    oc._load()
    sys.setprofile(None)
    print(json.dumps({"defined": defined, "drawn": drawn}))
''')


@pytest.fixture(scope="module")
def origins() -> dict[str, dict[str, str]]:
    done = subprocess.run([sys.executable, "-c", _RECORD], capture_output=True, text=True, check=True, timeout=300)
    return json.loads(done.stdout)


def _family_of_module(name: str, package: str) -> str:
    """``ovconform.opset._movement._layout`` -> ``movement``; ``ovconform.opcases.detection._roi`` -> ``detection``."""
    assert name.startswith(package + "."), name
    return name[len(package) + 1:].split(".")[0].lstrip("_")


def test_every_op_is_defined_in_the_builder_module_of_its_family(origins: dict[str, dict[str, str]]) -> None:
    defined = origins["defined"]
    assert len(defined) > 200
    wrong = {key: module for key, module in defined.items()
             if _family_of_module(module, "ovconform.opset") != family_of(key.rsplit("-", 1)[0])}
    assert not wrong, f"ops defined outside their family's module: {wrong}"


def test_every_case_strategy_is_in_the_case_module_of_its_family(origins: dict[str, dict[str, str]]) -> None:
    drawn = origins["drawn"]
    assert len(drawn) > 200
    wrong = {key: module for key, module in drawn.items()
             if _family_of_module(module, "ovconform.opcases") != family_of(key.rsplit("-", 1)[0])}
    assert not wrong, f"case strategies outside their family's module: {wrong}"


def test_the_op_tests_are_named_after_the_families() -> None:
    """``test_<family>.py`` or ``test_<family>_<topic>.py`` (a family's big topic apart:
    test_detection_experimental, test_infrastructure_control_flow), or the op machinery's."""
    machinery = {"test_families", "test_builders", "test_coverage", "test_op_suite", "test_opcases_core",
                 "test_opcases_dynamic", "test_op_kernel_faults", "test_stimulus", "test_stimulus_sizes",
                 "test_tolerance_models",
                 # the stimulus batches of issue #20 (each spans several families, as test_stimulus_sizes)
                 "test_stimulus_layout", "test_stimulus_sparse", "test_stimulus_image", "test_stimulus_control",
                 "test_stimulus_geometry", "test_stimulus_modes",
                 "test_stimulus_types",  # element-type corners across families (round-3 red team)
                 "test_stimulus_flow",  # control-flow port maps, dynamic broadcasts (round-3 red team)
                 "test_opset_completion"}  # the last op types of opset1..17 (several families, issue #22)
    names = {p.stem for p in OPS_DIR.glob("test_*.py")}
    strays = sorted(n for n in names - machinery
                    if not any(n == f"test_{family}" or n.startswith(f"test_{family}_") for family in FAMILIES))
    assert not strays, f"test files in tests/ops named after neither a family nor the op machinery: {strays}"
