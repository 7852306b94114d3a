"""ovconform.tolerances: compare() semantics, the defaults table, overrides and their errors."""

from __future__ import annotations

import json
import math
import re
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ovconform import opset as ops
from ovconform import tolerances as tl
from ovconform.errors import ValidationError
from ovconform.ir import Type, f32_to_bf16
from ovconform.tolerances import (
    FALLBACK_CLASS,
    OP_CLASSES,
    Tolerance,
    apply_override,
    compare,
    default_tolerance,
    load_overrides,
    parse_overrides,
    reduction_size,
    resolve_tolerance,
    ulp_distance,
)
from reference_plugin.ops import registered_ops

EXACT = Tolerance(0, 0)
FLOAT_TYPES = ("f32", "f16", "bf16", "f64")
INT_TYPES = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "boolean")


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


# -- compare(): values --------------------------------------------------------------------------------------------

def test_message_names_error_index_values_and_tolerance() -> None:
    got = np.array([[1.0, 2.0, 1.2]], np.float32)
    want = np.array([[1.0, 2.0, 1.5]], np.float32)
    result = compare(got, want, Tolerance(1e-5, 1e-4))
    assert not result.passed and not result
    assert re.match(r"max abs err 0\.3 at \[0, 2\] \(got 1\.2, expected 1\.5\) > atol 1e-05 \+ "
                    r"rtol 0\.0001·\|expected\|; 1 of 3 element\(s\) out of tolerance$", result.message), result.message
    assert result.worst_index == (0, 2) and result.mismatch_count == 1 and result.size == 3
    assert result.max_abs_err == pytest.approx(0.3, rel=1e-6)
    assert result.max_rel_err == pytest.approx(0.2, rel=1e-6)


def test_within_tolerance_passes_and_says_so() -> None:
    result = compare(f32(1.0, 2.00001), f32(1.0, 2.0), Tolerance(0, 1e-4))
    assert result.passed and result.mismatch_count == 0
    assert "<= atol 0 + rtol 0.0001·|expected|; all 2 element(s) within tolerance" in result.message
    assert compare(f32(1, 2), f32(1, 2), EXACT).message == "all 2 element(s) equal"


@pytest.mark.parametrize("et", ["f32", "f16", "f64"])
def test_nan_matches_nan_and_only_nan(et: str) -> None:
    dtype = Type.f32.to_dtype() if et == "f32" else np.dtype({"f16": np.float16, "f64": np.float64}[et])
    assert compare(np.array([np.nan, 1], dtype), np.array([np.nan, 1], dtype), EXACT).passed
    result = compare(np.array([np.nan, 1], dtype), np.array([2, 1], dtype), Tolerance(100, 100))
    assert not result.passed and result.message.startswith("NaN mismatch at [0] (got nan, expected 2)")
    assert not compare(np.array([2, 1], dtype), np.array([np.nan, 1], dtype), Tolerance(100, 100)).passed


def test_infinities_must_match_exactly() -> None:
    assert compare(f32(np.inf, -np.inf), f32(np.inf, -np.inf), EXACT).passed
    huge = Tolerance(1e38, 10.0, ulp=2**31)
    for got, want in [(np.inf, -np.inf), (3.4e38, np.inf), (np.inf, 3.4e38), (-np.inf, 0.0)]:
        result = compare(f32(got), f32(want), huge)
        assert not result.passed, (got, want)
        assert result.message.startswith("inf mismatch at [0]") and result.max_abs_err == math.inf


def test_shape_mismatch_is_reported_before_dtype() -> None:
    result = compare(np.zeros((2, 3), np.int32), np.zeros((3, 2), np.float32), Tolerance(1, 1))
    assert not result.passed and result.message == "shape mismatch: got [2, 3], expected [3, 2]"
    assert result.worst_index is None
    result = compare(np.zeros((2,), np.int32), np.zeros((2,), np.int64), Tolerance(1, 1))
    assert not result.passed and result.message == "dtype mismatch: got int32, expected int64"
    assert not compare(np.zeros(3, np.float16), np.zeros(3, np.float32), Tolerance(1, 1)).passed


def test_integers_are_exact_by_default_and_tolerance_applies_when_given() -> None:
    got, want = np.array([1, 2, 3], np.int32), np.array([1, 3, 3], np.int32)
    result = compare(got, want, default_tolerance("Add", "i32"))
    assert not result.passed and result.worst_index == (1,)
    assert result.message == "max abs err 1 at [1] (got 2, expected 3), exact match required; " \
                             "1 of 3 element(s) out of tolerance"
    assert compare(got, want, Tolerance(1, 0)).passed


def test_large_integers_compare_exactly() -> None:
    big = np.array([2**62 + 1], np.int64)
    result = compare(big, big - 1, EXACT)  # float64 cannot tell them apart; the check can
    assert not result.passed and result.message.startswith("max abs err 1 at [0] (got 4611686018427387905, ")
    assert compare(np.array([2**64 - 1], np.uint64), np.array([2**64 - 1], np.uint64), EXACT).passed


def test_booleans_compare_exactly() -> None:
    result = compare(np.array([True, False]), np.array([True, True]), Tolerance(0, 0))
    assert not result.passed and "(got False, expected True)" in result.message
    assert compare(np.array([True]), np.array([True]), EXACT).passed


def test_worst_index_is_a_mismatching_element() -> None:
    got, want = f32(1000.5, 1.1), f32(1000.0, 1.0)  # 0.5 is within rtol of 1000, 0.1 is not within of 1
    result = compare(got, want, Tolerance(0, 1e-3))
    assert not result.passed and result.worst_index == (1,) and result.mismatch_count == 1
    assert result.message.startswith("abs err 0.1 at [1]")  # not the max abs err (0.5)
    assert result.max_abs_err == pytest.approx(0.5)


def test_empty_and_zero_d_arrays() -> None:
    assert compare(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), EXACT).passed
    result = compare(np.float32(2.0), np.float32(2.5), EXACT)
    assert result.worst_index == () and "at [] (got 2, expected 2.5)" in result.message


# -- ulp ------------------------------------------------------------------------------------------------------

def test_ulp_distance_counts_across_zero() -> None:
    tiny = np.float32(np.nextafter(np.float32(0), np.float32(1)))
    assert ulp_distance(f32(0.0), f32(-0.0), "f32")[0] == 0
    assert ulp_distance(np.array([tiny]), np.array([-tiny]), "f32")[0] == 2
    one_up = np.nextafter(np.float32(1), np.float32(2))
    assert ulp_distance(np.array([one_up]), f32(1.0), "f32")[0] == 1
    assert ulp_distance(np.array([1.0], np.float16), np.array([1.0009766], np.float16), "f16")[0] == 1
    assert ulp_distance(np.array([0x3F80], np.uint16), np.array([0x3F82], np.uint16), "bf16")[0] == 2


def test_ulp_tolerance_is_an_alternative_bound() -> None:
    one = np.float32(1)
    two_up = np.nextafter(np.nextafter(one, np.float32(2)), np.float32(2))
    got, want = np.array([two_up]), np.array([one])
    assert not compare(got, want, EXACT).passed
    assert not compare(got, want, Tolerance(0, 0, ulp=1)).passed
    result = compare(got, want, Tolerance(0, 0, ulp=2))
    assert result.passed and result.max_ulp_err == 2
    failed = compare(got, want, Tolerance(0, 1e-9, ulp=1))
    assert "or 1 ulp (2 ulp)" in failed.message
    assert compare(np.array([3]), np.array([4]), Tolerance(0, 0, ulp=5)).passed is False  # integers ignore ulp


def test_bf16_compares_values_not_bit_patterns() -> None:
    want = f32_to_bf16(f32(1.0, 256.0))
    got = f32_to_bf16(f32(1.0, 258.0))  # one bf16 ulp at 256
    assert compare(got, want, Tolerance(0, 0, ulp=1), "bf16").passed
    result = compare(got, want, Tolerance(0, 1e-3), "bf16")
    assert not result.passed and "(got 258, expected 256)" in result.message
    assert result.element_type == "bf16" and result.max_abs_err == 2.0
    assert compare(got, want, Tolerance(0, 0)).element_type == "u16"  # without the type: integers


def test_to_dict_is_strict_json() -> None:
    result = compare(f32(np.nan, 2.0), f32(1.0, np.inf), Tolerance(1e-5, 1e-4, ulp=2))
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["passed"] is False and data["max_abs_err"] == "inf" and data["mismatch_count"] == 2
    assert data["tolerance"] == {"atol": 1e-5, "rtol": 1e-4, "ulp": 2} and data["worst_index"] == [0]
    assert set(data) == {"passed", "message", "tolerance", "element_type", "max_abs_err", "max_rel_err",
                         "max_ulp_err", "worst_index", "mismatch_count", "size"}


# -- Tolerance --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"atol": -1.0, "rtol": 0}, {"atol": math.nan, "rtol": 0},
                                    {"atol": 0, "rtol": math.inf}, {"atol": True, "rtol": 0},
                                    {"atol": "1e-5", "rtol": 0}, {"atol": 0, "rtol": 0, "ulp": 1.5},
                                    {"atol": 0, "rtol": 0, "ulp": -1}])
def test_tolerance_rejects_bad_values(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match=r"Tolerance (atol|rtol|ulp)=.* must be"):
        Tolerance(**kwargs)  # type: ignore[arg-type]


def test_tolerance_scaled_and_describe() -> None:
    tol = Tolerance(1e-6, 1e-5, ulp=3).scaled(2)
    assert tol == Tolerance(2e-6, 2e-5, ulp=6)
    assert EXACT.describe() == "exact match" and EXACT.exact
    assert Tolerance(0, 0, ulp=2).describe() == "atol 0 + rtol 0·|expected| or 2 ulp"


# -- defaults ---------------------------------------------------------------------------------------------------

def test_every_registered_kernel_has_an_explicit_entry() -> None:
    missing = sorted(set(registered_ops()) - set(OP_CLASSES))
    assert not missing, f"ops with a REFERENCE kernel but no tolerance class: {missing}"
    assert set(OP_CLASSES.values()) <= {"exact", "rounded", "remainder", "transcendental", "composite",
                                        "softmax", "accumulating"}


def test_unknown_ops_use_the_documented_fallback() -> None:
    assert FALLBACK_CLASS in (tl.__doc__ or "") and "falls back" in (tl.__doc__ or "")
    assert default_tolerance("NoSuchOp", "f32") == default_tolerance("Exp", "f32")
    assert default_tolerance("NoSuchOp", "i32") == EXACT


@pytest.mark.parametrize("op", sorted(registered_ops()))
@pytest.mark.parametrize("et", INT_TYPES)
def test_integer_and_boolean_results_are_exact(op: str, et: str) -> None:
    assert default_tolerance(op, et) == EXACT


@pytest.mark.parametrize("op", sorted(o for o, c in OP_CLASSES.items() if c == "exact"))
def test_data_movement_and_selection_are_exact_on_floats(op: str) -> None:
    for et in FLOAT_TYPES:
        assert default_tolerance(op, et) == EXACT


@pytest.mark.parametrize("op", sorted(o for o, c in OP_CLASSES.items() if c != "exact"))
def test_lower_precision_gets_looser(op: str) -> None:
    tols = [default_tolerance(op, et, reduction_size=16) for et in ("f64", "f32", "f16", "bf16")]
    for tighter, looser in zip(tols, tols[1:], strict=False):
        assert tighter.rtol < looser.rtol, (op, tols)
        if OP_CLASSES[op] != "rounded":  # there atol is the type's smallest normal (bf16 has f32's range)
            assert tighter.atol < looser.atol, (op, tols)


def test_float32_defaults_are_sensible() -> None:
    add, exp = default_tolerance("Add", "f32"), default_tolerance("Exp", "f32")
    assert add.ulp == 2 and add.rtol <= 1e-6 and add.atol < 1e-30
    assert exp.rtol > add.rtol and exp.atol > add.atol and exp.rtol <= 1e-5
    for op in ("Erf", "Gelu", "Power", "Softmax", "Sigmoid", "Tanh", "Log"):
        assert default_tolerance(op, "f32").rtol >= exp.rtol
    assert default_tolerance("Gelu", "f32").atol > exp.atol  # cancellation in the negative tail


@pytest.mark.parametrize("op", ["MatMul", "Convolution", "GroupConvolution", "ReduceSum", "ReduceMean", "AvgPool",
                                "Softmax"])
def test_reducing_ops_scale_with_the_reduction_size(op: str) -> None:
    small, big = (default_tolerance(op, "f32", reduction_size=k) for k in (4, 400))
    assert big.rtol > small.rtol and big.atol >= small.atol
    if op != "Softmax":
        assert big.rtol / small.rtol == pytest.approx(10.0)  # rtol ~ sqrt(K)
        assert big.atol / small.atol == pytest.approx(100.0)  # atol ~ K
    assert default_tolerance(op, "f32") == default_tolerance(op, "f32", reduction_size=tl.DEFAULT_REDUCTION_SIZE)


def test_ir_spellings_and_element_type_forms_are_accepted() -> None:
    assert default_tolerance("SoftMax", "f32") == default_tolerance("Softmax", Type.f32)
    assert default_tolerance("ReLU", np.dtype(np.float16)) == EXACT
    with pytest.raises(ValidationError, match="element type 'f17' is not known"):
        default_tolerance("Add", "f17")


def test_reduction_size_of_nodes() -> None:
    a, b = ops.parameter([2, 3, 5], Type.f32, "a"), ops.parameter([5, 4], Type.f32, "b")
    assert reduction_size(ops.matmul(a, b, False, False)) == 5
    assert reduction_size(ops.matmul(ops.parameter([5, 3], Type.f32, "t"), ops.parameter([5, 4], Type.f32, "u"),
                                     True, False)) == 5
    x = ops.parameter([1, 4, 6, 6], Type.f32, "x")
    conv = ops.convolution(x, ops.parameter([8, 4, 3, 3], Type.f32, "w"), [1, 1], [0, 0], [0, 0], [1, 1])
    assert reduction_size(conv) == 36
    group = ops.group_convolution(x, ops.parameter([2, 3, 2, 3, 3], Type.f32, "g"), [1, 1], [0, 0], [0, 0], [1, 1])
    assert reduction_size(group) == 18
    assert reduction_size(ops.reduce_sum(a, [0, -1])) == 10
    assert reduction_size(ops.reduce_mean(a, ops.parameter([1], Type.i64, "axes"), True)) == 30
    assert reduction_size(ops.avg_pool(x, [1, 1], [0, 0], [0, 0], [2, 3], True)) == 6
    assert reduction_size(ops.softmax(a, -2)) == 3
    assert reduction_size(ops.relu(a)) is None
    assert reduction_size(ops.relu(ops.parameter([-1, 3], Type.f32, "d"))) is None


# -- overrides --------------------------------------------------------------------------------------------------

OVERRIDES_TOML = """
[tolerances]
"*" = { rtol = 0.5 }
"*:f16" = { atol = 0.25 }
"Softmax" = { rtol = 0.01 }
"Softmax-8" = { ulp = 4 }
"Softmax:f16" = { rtol = 0.02 }
"Softmax-8:f16" = { atol = 0.125 }
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_overrides_merge_field_by_field_most_specific_last(tmp_path: Path) -> None:
    overrides = load_overrides(_write(tmp_path, "tol.toml", OVERRIDES_TOML))
    assert overrides.lookup("Softmax", 8, "f16") == {"rtol": 0.02, "atol": 0.125, "ulp": 4}
    assert overrides.lookup("SoftMax", 1, Type.f16) == {"rtol": 0.02, "atol": 0.25}
    assert overrides.lookup("Softmax", None, "f32") == {"rtol": 0.01}
    assert overrides.lookup("Add", 1, "f32") == {"rtol": 0.5}
    base = default_tolerance("Softmax", "f32", reduction_size=5)
    assert overrides.apply(base, "Softmax", 8, "f32") == Tolerance(base.atol, 0.01, ulp=4)


def test_json_overrides(tmp_path: Path) -> None:
    path = _write(tmp_path, "tol.json", json.dumps({"tolerances": {"MatMul:f16": {"atol": 0.05, "ulp": None}}}))
    overrides = load_overrides(path)
    tol = overrides.apply(default_tolerance("MatMul", "f16"), "MatMul", 1, "f16")
    assert tol.atol == 0.05 and tol.ulp is None
    assert overrides.apply(EXACT, "MatMul", 1, "f32") is EXACT


@pytest.mark.parametrize(("name", "text", "message"), [
    ("tol.yaml", "", r"unsupported extension '\.yaml'; use \.toml or \.json"),
    ("tol.toml", "[tolerances\n", r"is not valid TOML: .*line 1"),
    ("tol.json", "{", r"is not valid JSON: "),
    ("tol.toml", "x = 1", r"exactly one top-level table 'tolerances'; got \['x'\]"),
    ("tol.json", "[1]", r"exactly one top-level table 'tolerances'; got list"),
    ("tol.toml", "tolerances = 3", r"'tolerances' must be a table"),
    ("tol.toml", '[tolerances]\n"Soft max" = { rtol = 1 }', r"key 'Soft max' is not OP\[-VERSION\]\[:ELEMENT_TYPE\]"),
    ("tol.toml", '[tolerances]\n"*-3" = { rtol = 1 }', r"key '\*-3' is not OP.*'\*' takes no version"),
    ("tol.toml", '[tolerances]\n"Add:f17" = { rtol = 1 }', r"key 'Add:f17': element type 'f17' is not known"),
    ("tol.toml", '[tolerances]\n"Add" = { rtl = 1 }', r"key 'Add': unknown tolerance field\(s\) \['rtl'\]"),
    ("tol.toml", '[tolerances]\n"Add" = { atol = -1 }', r"key 'Add': Tolerance atol=-1 must be"),
    ("tol.toml", '[tolerances]\n"Add" = { ulp = 0.5 }', r"key 'Add': Tolerance ulp=0.5 must be"),
    ("tol.toml", '[tolerances]\n"Add" = 3', r"key 'Add': a tolerance override must be a mapping"),
    ("tol.toml", '[tolerances]\n"SoftMax" = {}\n"Softmax" = {}', r"key 'Softmax' repeats an earlier key"),
])
def test_override_file_errors_are_clear(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(ValidationError, match=message) as info:
        load_overrides(path)
    assert str(path) in str(info.value)


def test_missing_override_file(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match=r"cannot read tolerance overrides file '.*nope\.toml'"):
        load_overrides(tmp_path / "nope.toml")


def test_parse_overrides_from_a_mapping() -> None:
    overrides = parse_overrides({"tolerances": {"Exp": {"ulp": 16}}}, "device config")
    assert overrides.source == "device config" and overrides.lookup("Exp", 1, "f32") == {"ulp": 16}


def test_hook_result_shape() -> None:
    base = default_tolerance("Exp", "f32")
    assert apply_override(base, None) is base
    assert apply_override(base, {"atol": 1e-3, "rtol": 2e-3, "ulp": None}) == Tolerance(1e-3, 2e-3)
    assert apply_override(base, {"ulp": 32}) == Tolerance(base.atol, base.rtol, 32)
    with pytest.raises(ValidationError, match=r"MYDEV hook: unknown tolerance field\(s\) \['eps'\]"):
        apply_override(base, {"eps": 1.0}, "MYDEV hook")
    with pytest.raises(ValidationError, match=r"MYDEV hook: a tolerance override must be a mapping .* not list"):
        apply_override(base, [1e-3], "MYDEV hook")  # type: ignore[arg-type]


def test_resolve_applies_default_then_hook_then_file() -> None:
    overrides = parse_overrides({"tolerances": {"Exp:f32": {"rtol": 0.5}}})
    base = default_tolerance("Exp", "f32")
    assert resolve_tolerance("Exp", "f32") == base
    hooked = resolve_tolerance("Exp", "f32", 1, hook_result={"rtol": 0.1, "atol": 0.2})
    assert hooked == Tolerance(0.2, 0.1, base.ulp)
    both = resolve_tolerance("Exp", "f32", 1, hook_result={"rtol": 0.1, "atol": 0.2}, overrides=overrides)
    assert both == Tolerance(0.2, 0.5, base.ulp)
    with pytest.raises(ValidationError, match=r"ovconform_get_tolerance\('Exp', f32\): unknown"):
        resolve_tolerance("Exp", "f32", hook_result={"bad": 1})


def test_the_documented_example_file_parses() -> None:
    doc = tl.__doc__ or ""
    block = doc.split("never pickle or eval)::\n", 1)[1].split("\n\nKeys are", 1)[0]
    overrides = parse_overrides(tomllib.loads(textwrap.dedent(block)), "module docstring")
    assert overrides.lookup("Gelu", 7, "f32") == {"ulp": 16}
    assert overrides.lookup("Softmax", 8, "bf16") == {"rtol": 1e-4}  # "Softmax" is more specific than "*:bf16"


# -- execution precision (INFERENCE_PRECISION_HINT) ------------------------------------------------------------

def test_execution_type_applies_a_coarser_hint_to_f32_only() -> None:
    assert tl.execution_type("f32", "f16") == Type.f16 and tl.execution_type("f32", "bf16") == Type.bf16
    assert tl.execution_type("f32", "f32") == Type.f32 and tl.execution_type("f32", None) == Type.f32
    assert tl.execution_type("f16", "bf16") == Type.f16  # the hint is about f32 values, as in OpenVINO
    assert tl.execution_type("f64", "f16") == Type.f64 and tl.execution_type("i32", "f16") == Type.i32
    assert tl.execution_type("f32", "i8") == Type.f32  # not a floating-point precision: no effect


@pytest.mark.parametrize("op", sorted(o for o, c in OP_CLASSES.items() if c != "exact"))
@pytest.mark.parametrize("precision", ["f16", "bf16"])
def test_a_coarser_precision_gives_that_precisions_bounds(op: str, precision: str) -> None:
    """An f32 output of an f16/bf16 device is judged by f16/bf16 bounds (no ulp: it counts f32 units)."""
    judged = default_tolerance(op, "f32", reduction_size=64, precision=precision)
    native = default_tolerance(op, precision, reduction_size=64)
    assert (judged.atol, judged.rtol, judged.ulp) == (native.atol, native.rtol, None)
    assert judged.rtol > default_tolerance(op, "f32", reduction_size=64).rtol
    assert default_tolerance(op, "f32", reduction_size=64, precision="f32") == default_tolerance(op, "f32",
                                                                                                 reduction_size=64)


def test_precision_leaves_exact_and_integer_results_exact() -> None:
    assert default_tolerance("Relu", "f32", precision="f16") == EXACT
    assert default_tolerance("Add", "i32", precision="f16") == EXACT
    assert tl.conditioned_tolerance("i32", 100, precision="f16") == EXACT


# -- conditioning: S = Σ|terms| ---------------------------------------------------------------------------------

def test_conditioned_tolerance_formula_and_record() -> None:
    tol = tl.conditioned_tolerance("f32", 256)
    eps = tl.EPSILON["f32"]
    assert tol == Tolerance(tl.TINY["f32"], 2 * eps, None, 2 * eps * 16)
    assert "ctol" in tol.describe() and "Σ|terms|" in tol.describe()
    assert tol.to_dict() == {"atol": tl.TINY["f32"], "rtol": 2 * eps, "ulp": None, "ctol": 2 * eps * 16}
    assert tl.conditioned_tolerance("f32", 256, precision="f16").ctol == 2 * tl.EPSILON["f16"] * 16
    assert tol.scaled(2).ctol == 4 * eps * 16 and not tol.exact
    assert resolve_tolerance("MatMul", "f32", 1, reduction_size=256, conditioned=True) == tol
    assert resolve_tolerance("MatMul", "f32", 1, reduction_size=256, conditioned=True,
                             hook_result={"ctol": 1e-3}).ctol == 1e-3
    with pytest.raises(ValidationError, match=r"Tolerance ctol=-1 must be"):
        Tolerance(0, 0, None, -1)


def test_conditioned_ops_are_sums_of_products() -> None:
    assert {"MatMul", "Convolution", "ReduceSum", "AvgPool", "CumSum"} <= tl.CONDITIONED_OPS
    assert not {"Softmax", "ReduceL2", "ReduceProd", "MVN", "Exp"} & tl.CONDITIONED_OPS
    assert tl.is_conditioned("MatMul") and not tl.is_conditioned("Relu")


def _dot_products(k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, (16, k)).astype(np.float32), rng.uniform(-1, 1, (k, 8)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    magnitude = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    return a, b, exact, magnitude


@pytest.mark.parametrize("k", [65, 256, 4096])
def test_f32_accumulation_passes_and_f16_accumulation_fails_the_f32_bound(k: int) -> None:
    a, b, exact, magnitude = _dot_products(k)
    tol = tl.conditioned_tolerance("f32", k)
    expected = exact.astype(np.float32)
    sequential = np.zeros((16, 8), np.float32)  # a naive f32 loop: the worst ordinary summation order
    for i in range(k):
        sequential += np.outer(a[:, i], b[i, :]).astype(np.float32)
    assert compare(sequential, expected, tol, "f32", magnitude=magnitude.astype(np.float32)).passed
    assert compare(a @ b, expected, tol, "f32", magnitude=magnitude.astype(np.float32)).passed
    half = np.zeros((16, 8), np.float16)  # partial sums kept in f16
    for i in range(k):
        half = (half + np.outer(a[:, i], b[i, :]).astype(np.float16)).astype(np.float16)
    result = compare(half.astype(np.float32), expected, tol, "f32", magnitude=magnitude.astype(np.float32))
    assert not result.passed and "ctol" in result.message


@pytest.mark.parametrize("k", [65, 256])
def test_f16_inputs_fail_the_f32_bound_and_pass_the_declared_f16_bound(k: int) -> None:
    """A device that declares f32 but rounds MatMul's inputs to f16 fails; declaring f16 it passes."""
    a, b, exact, magnitude = _dot_products(k, 1)
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    device = (a16.astype(np.float32) @ b16.astype(np.float32)).astype(np.float16).astype(np.float32)
    mag = magnitude.astype(np.float32)
    assert not compare(device, exact.astype(np.float32), tl.conditioned_tolerance("f32", k), "f32", magnitude=mag)
    alternate = (a16.astype(np.float64) @ b16.astype(np.float64)).astype(np.float16).astype(np.float32)
    tol16 = tl.conditioned_tolerance("f32", k, precision="f16")
    assert compare(device, exact.astype(np.float32), tol16, "f32", magnitude=mag, alternate=alternate)


def test_cancellation_is_judged_against_the_terms_not_the_result() -> None:
    expected = f32(1e-3, -2e-3)
    got = f32(1e-3 + 1e-4, -2e-3)
    tol = tl.conditioned_tolerance("f32", 256)
    assert not compare(got, expected, tol, "f32").passed  # no S: the result's size alone is too tight
    assert compare(got, expected, tol, "f32", magnitude=f32(1e4, 1e4)).passed
    assert not compare(f32(1.0, -2e-3), expected, tol, "f32", magnitude=f32(1e4, 1e4)).passed


# -- the alternate oracle value ---------------------------------------------------------------------------------

def test_alternate_accepts_the_interval_between_the_two_oracle_values() -> None:
    exact, rounded = f32(1.0, 2.0, 3.0), f32(1.5, 2.0, 2.0)
    tol = Tolerance(0.0, 0.0)
    assert compare(f32(1.25, 2.0, 2.5), exact, tol, alternate=rounded).passed
    assert compare(f32(1.5, 2.0, 2.0), exact, tol, alternate=rounded).passed
    bad = compare(f32(1.75, 2.0, 3.0), exact, tol, alternate=rounded)
    assert not bad.passed and bad.worst_index == (0,) and bad.max_abs_err == pytest.approx(0.25)
    assert not compare(f32(1.25, 2.0, 2.5), exact, tol).passed  # without the alternate only 'exact' counts


def test_alternate_special_values_and_integers() -> None:
    assert compare(f32(np.inf), f32(65504.0), Tolerance(0, 0), alternate=f32(np.inf)).passed  # f16 overflow
    assert compare(f32(np.nan), f32(1.0), Tolerance(0, 0), alternate=f32(np.nan)).passed
    assert not compare(f32(np.nan), f32(1.0), Tolerance(0, 0), alternate=f32(2.0)).passed
    idx = np.array([3, 1], np.int32)
    assert compare(idx, np.array([3, 0], np.int32), EXACT, alternate=np.array([2, 1], np.int32)).passed
    assert not compare(idx, np.array([2, 0], np.int32), EXACT, alternate=np.array([2, 0], np.int32)).passed
    with pytest.raises(ValidationError, match=r"alternate expected value has shape \[3\]"):
        compare(f32(1.0), f32(1.0), EXACT, alternate=f32(1.0, 2.0, 3.0))


# -- copies compared bit for bit ---------------------------------------------------------------------------

def _with_bits(values: np.ndarray, index: int, bits: int) -> np.ndarray:
    out = values.copy()
    out.view(f"u{out.dtype.itemsize}").reshape(-1)[index] = bits
    return out


@pytest.mark.parametrize(("dtype", "nan_a", "nan_b"), [
    (np.float32, 0x7FC00001, 0x7FC00000), (np.float16, 0x7E01, 0x7E00),
    (np.float64, 0x7FF8000000000001, 0x7FF8000000000000), (np.float32, 0xFFC00000, 0x7FC00000)])
def test_a_copy_must_keep_the_payload_and_sign_of_a_nan(dtype: type, nan_a: int, nan_b: int) -> None:
    want = _with_bits(np.array([1.5, 0.0, -2.0], dtype), 1, nan_a)
    got = _with_bits(want, 1, nan_b)
    assert compare(got, want, Tolerance(0, 0)).passed  # by value, any NaN matches any NaN
    bad = compare(got, want, Tolerance(0, 0), bits=True)
    assert not bad.passed and bad.worst_index == (1,) and bad.mismatch_count == 1
    assert "bits differ at [1]" in bad.message and "payload" in bad.message
    assert compare(want.copy(), want, Tolerance(0, 0), bits=True).passed


def test_a_copy_must_keep_the_sign_of_a_zero_in_every_float_type() -> None:
    for dtype in (np.float16, np.float32, np.float64):
        want = np.array([[-0.0, 3.0]], dtype)
        got = np.array([[0.0, 3.0]], dtype)
        assert compare(got, want, Tolerance(0, 0)).passed
        assert not compare(got, want, Tolerance(0, 0), bits=True).passed
    want16 = f32_to_bf16(np.array([-0.0, 1.0], np.float32))  # bf16 is stored as uint16
    got16 = f32_to_bf16(np.array([0.0, 1.0], np.float32))
    assert not compare(got16, want16, Tolerance(0, 0), Type.bf16, bits=True).passed
    assert compare(want16.copy(), want16, Tolerance(0, 0), Type.bf16, bits=True).passed


def test_a_zero_dimensional_copy_is_compared_bit_for_bit() -> None:
    bad = compare(np.array(0.0, np.float32), np.array(-0.0, np.float32), Tolerance(0, 0), bits=True)
    assert not bad.passed and bad.worst_index == () and "bits differ at []" in bad.message
    assert compare(np.array(-0.0, np.float32), np.array(-0.0, np.float32), Tolerance(0, 0), bits=True).passed


def test_bits_are_compared_only_for_an_exact_tolerance_without_an_alternate() -> None:
    want = np.array([-0.0, 1.0], np.float32)
    got = np.array([0.0, 1.0], np.float32)
    assert compare(got, want, Tolerance(1e-6, 0), bits=True).passed  # a device's looser tolerance
    # a device computing in a coarser precision: the alternate oracle went through conversions
    assert compare(got, want, Tolerance(0, 0), alternate=want, bits=True).passed
    ints = np.array([1, 2], np.int32)
    assert compare(ints, ints, Tolerance(0, 0), bits=True).passed


def test_every_copying_op_is_exact_and_known_to_reference() -> None:
    assert tl.COPYING_OPS <= {op for op, cls in tl.OP_CLASSES.items() if cls == "exact"}
    assert tl.COPYING_OPS <= set(registered_ops())
    assert tl.copies_bits("Transpose") and not tl.copies_bits("Relu") and not tl.copies_bits("Maximum")
