"""Tests of the generation ops (OpenVINO's op-spec folder "generation"): Range-1/4, Eye-9,
RandomUniform-8 and Multinomial-13 — builder inference and errors (as OpenVINO writes and infers
them), REFERENCE kernel numerics against literal values or independent loop formulas (transcriptions
of the specs' pseudo-code), and the case strategies.

RandomUniform follows the spec's Philox4x32-10 / MT19937 streams bit for bit and is also tested for
determinism under a seed and by distribution; Multinomial draws its uniform numbers with
RandomUniform-8's Philox, as OpenVINO's reference code does.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from _multinomial import MULTINOMIAL_ATTRS, draw, multinomial_model
from _op_helpers import P, out, run
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy
from ovconform.opset._helpers import make_constant
from reference_plugin.evaluate import evaluate
from reference_plugin.ops.op_random_uniform import mersenne, philox

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("Range", 1), ("Range", 4), ("Eye", 9), ("RandomUniform", 8)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("Range", 1): [], ("Range", 4): ["output_type"], ("Eye", 9): ["output_type"],
            ("RandomUniform", 8): ["output_type", "op_seed", "global_seed", "alignment"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    built = [opset.range_v1(0, 5, 1), opset.range(0, 5, 1, "i32"), opset.eye(2, 2, 0, "f32"),
             opset.random_uniform([2, 3], 0.0, 1.0, "f32", 1, 2)]
    assert versions_of(built) == CASE_KEYS

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op == "RandomUniform":
        for i, got in enumerate(outs):  # static output shapes, and the node's element types
            assert got.shape == node.output(i).get_partial_shape().to_shape()
            assert got.dtype == node.output(i).get_element_type().to_dtype()


def run_const(node: Node) -> np.ndarray:
    (result,) = evaluate(Model([node.output(0)], []), [])
    return result


def test_range_inference() -> None:
    assert out(opset.range_v1(np.int32(2), np.int32(23), np.int32(3))) == "[7]"
    assert out(opset.range_v1(np.int64(23), np.int64(2), np.int64(-3))) == "[7]"
    assert out(opset.range_v1(np.float32(0), np.float32(-1), np.float32(0.5))) == "[0]"
    assert out(opset.range(np.float32(1), np.float32(2.5), np.float32(0.5), "f16")) == "[3]"
    assert out(opset.range(np.float32(0.5), np.float32(5.5), np.float32(1.7), "i32")) == "[5]"  # cast: 0, 5, 1
    node = opset.range(P([], Type.i32), np.int64(10), np.float32(2), "i64")
    assert out(node) == "[?]" and node.output(0).get_element_type() == Type.i64
    with pytest.raises(ValidationError, match="Range-1 node.*share one element type"):
        opset.range_v1(np.int32(0), np.int64(5), np.int32(1))
    with pytest.raises(ValidationError, match="Range-4 node.*step is 0"):
        opset.range(np.float32(0), np.float32(5), np.float32(0.5), "i32")  # 0.5 casts to 0
    with pytest.raises(ValidationError, match=r"Range-1 node.*start .input 0. has shape \[2\]"):
        opset.range_v1(np.array([0, 1], np.int32), np.int32(5), np.int32(1))
    with pytest.raises(ValidationError, match="Range-4 node.*'output_type'=boolean is not allowed"):
        opset.range(0, 5, 1, "boolean")


def test_eye_inference() -> None:
    assert out(opset.eye(3, 4, 0, "f32")) == "[3,4]"
    assert out(opset.eye(np.int32(2), np.int32(5), np.int32(-7), "i8", np.array([2, 3], np.int32))) == "[2,3,2,5]"
    node = opset.eye(P([], Type.i64), 4, P([1], Type.i64), "f16", P([2], Type.i32))
    assert out(node) == "[?,?,?,4]" and node.output(0).get_element_type() == Type.f16
    with pytest.raises(ValidationError, match="Eye-9 node.*num_rows is -1; it must be >= 0"):
        opset.eye(-1, 4, 0, "f32")
    with pytest.raises(ValidationError, match="Eye-9 node.*num_columns .input 1. has element type i8"):
        opset.eye(2, np.int8(2), 0, "f32")
    with pytest.raises(ValidationError, match=r"Eye-9 node.*batch_shape \[2, -1\] has a negative dim"):
        opset.eye(2, 2, 0, "f32", [2, -1])
    with pytest.raises(ValidationError, match=r"Eye-9 node.*diagonal_index .input 2. has shape \[2\]"):
        opset.eye(2, 2, np.array([0, 1]), "f32")


def test_range_literals() -> None:
    assert run_const(opset.range_v1(np.int32(2), np.int32(23), np.int32(3))).tolist() == [2, 5, 8, 11, 14, 17, 20]
    assert run_const(opset.range_v1(np.int64(23), np.int64(2), np.int64(-3))).tolist() == [23, 20, 17, 14, 11, 8, 5]
    got = run_const(opset.range(np.float32(1), np.float32(2.5), np.float32(0.5), "f32"))
    assert got.dtype == np.float32 and got.tolist() == [1.0, 1.5, 2.0]
    cast = run_const(opset.range(np.float32(0.5), np.float32(5.5), np.float32(1.7), "i32"))
    assert cast.dtype == np.int32 and cast.tolist() == [0, 1, 2, 3, 4]  # start 0, stop 5, step 1 after the cast
    mixed = run_const(opset.range(np.int32(-3), np.int64(1), np.float32(1.5), "f16"))
    assert mixed.dtype == np.float16 and mixed.tolist() == [-3.0, -1.5, 0.0]


def test_range_at_run_time() -> None:
    def range1(a: Node, b: Node, c: Node) -> Node:
        return opset.range_v1(a, b, c)

    f = np.float32
    assert run(range1, f(0), f(-1), f(0.25)).tolist() == []  # stop behind start: empty
    assert run(range1, f(0), f(1), f(0.25)).tolist() == [0, 0.25, 0.5, 0.75]
    assert run(lambda a, b, c: opset.range(a, b, c, "i64"), np.int32(5), f(0), np.int64(-2)).tolist() == [5, 3, 1]
    with pytest.raises(InferError, match="Range-1 node.*step is 0.*non-zero step"):
        run(range1, np.int32(0), np.int32(5), np.int32(0))
    with pytest.raises(InferError, match="Range-4 node.*step is 0.4.*which is 0 in i32"):
        run(lambda a, b, c: opset.range(a, b, c, "i32"), f(0), f(5), f(0.4))
    with pytest.raises(InferError, match="Range-1 node.*must be finite"):
        run(range1, f(0), f(np.inf), f(1))


def test_eye_literals() -> None:
    assert run_const(opset.eye(2, 3, 1, "i32")).tolist() == [[0, 1, 0], [0, 0, 1]]
    assert run_const(opset.eye(3, 2, -1, "f32")).tolist() == [[0, 0], [1, 0], [0, 1]]
    assert run_const(opset.eye(2, 2, 5, "u8")).tolist() == [[0, 0], [0, 0]]  # outside the matrix
    batched = run_const(opset.eye(2, 2, 0, "f16", [3]))
    assert batched.shape == (3, 2, 2) and batched.dtype == np.float16 and np.all(batched == np.eye(2))
    assert run_const(opset.eye(2, 2, 0, "boolean")).tolist() == [[True, False], [False, True]]


def test_eye_at_run_time() -> None:
    def make(r: Node, c: Node, d: Node, b: Node) -> Node:
        return opset.eye(r, c, d, "f32", b)

    i32 = np.int32
    got = run(make, i32(2), i32(3), i32(-1), np.array([2, 1], i32))
    assert got.shape == (2, 1, 2, 3) and got[1, 0].tolist() == [[0, 0, 0], [1, 0, 0]]
    with pytest.raises(InferError, match="Eye-9 node.*num_rows -1 and num_columns 3 must be >= 0"):
        run(make, i32(-1), i32(3), i32(0), np.array([1], i32))
    with pytest.raises(InferError, match=r"Eye-9 node.*batch_shape \[-2\] has a negative dim"):
        run(make, i32(1), i32(3), i32(0), np.array([-2], i32))


def sample(shape: list[int], low: Any, high: Any, et: str, seed: int, op_seed: int, alignment: str = "tensorflow",
           ) -> np.ndarray:
    dtype = as_type(et).to_dtype()
    node = opset.random_uniform(np.array(shape, np.int64), np.array(low, dtype), np.array(high, dtype), et, seed,
                                op_seed, alignment)
    (out,) = evaluate(Model([node.output(0)], []), [])
    return out


# -- the sequences ------------------------------------------------------------------------------------------------

def test_philox_known_answer() -> None:
    # Philox4x32-10 of the Random123 known-answer test: counter 0, key 0 (n = counter words 0, 1; op_seed
    # words 2, 3 in OpenVINO's layout).
    assert philox(1, 0, 0)[0].tolist() == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_mersenne_matches_mt19937() -> None:
    # The first output of MT19937 after init_genrand(5489), the generator's reference seed.
    assert int(mersenne(1, 5489)[0]) == 3499211612


@pytest.mark.parametrize(("et", "low", "high", "alignment", "first"), [
    ("f32", 0.0, 1.0, "tensorflow", [0.7011236, 0.30539632, 0.93931055]),
    ("f32", 0.0, 1.0, "pytorch", [0.59748673, 0.544582, 0.04074067]),
    ("i32", -5, 7, "tensorflow", [2, 5, -1]),
    ("i32", -5, 7, "pytorch", [-1, -3, 2]),
    ("i64", 0, 100, "pytorch", [76, 78, 71]),
])
def test_sequences_openvino_cpu_also_gives(et: str, low: Any, high: Any, alignment: str, first: list[Any]) -> None:
    """Seeds (150, 10), shape [3, 7]: the first values OpenVINO CPU 2026.4 gives, bit for bit."""
    out = sample([3, 7], low, high, et, 150, 10, alignment)
    assert out.shape == (3, 7)
    np.testing.assert_array_equal(out.reshape(-1)[:3], np.array(first, out.dtype))


def test_f16_takes_the_low_ten_bits_of_the_f32_words() -> None:
    f32 = sample([40], 0.0, 1.0, "f32", 1, 0)
    f16 = sample([40], 0.0, 1.0, "f16", 1, 0)
    words = np.round(f32.astype(np.float64) * 2**23).astype(np.int64)
    np.testing.assert_array_equal(f16, ((words & 0x3FF) / 1024).astype(np.float16))


def test_f64_and_i64_use_two_words_per_value() -> None:
    words = philox(1, 1, 0)[0].astype(np.uint64)
    f64 = sample([2], 0.0, 1.0, "f64", 1, 0)
    expected = [float((((words[2 * i] & 0xFFFFF) << 32) | words[2 * i + 1]) / 2**52) for i in range(2)]
    assert f64.tolist() == expected
    i64 = sample([2], 0, 1000, "i64", 1, 0)
    assert i64.tolist() == [int(((words[2 * i + 1] << 32) | words[2 * i]) % 1000) for i in range(2)]


# -- determinism and distribution ------------------------------------------------------------------------------------

@pytest.mark.parametrize("alignment", ["tensorflow", "pytorch"])
def test_same_seeds_same_output_and_other_seeds_differ(alignment: str) -> None:
    a = sample([64], 0.0, 1.0, "f32", 7, 3, alignment)
    np.testing.assert_array_equal(a, sample([64], 0.0, 1.0, "f32", 7, 3, alignment))
    assert not np.array_equal(a, sample([64], 0.0, 1.0, "f32", 8, 3, alignment))
    if alignment == "tensorflow":  # the pytorch alignment ignores op_seed, as the spec says
        assert not np.array_equal(a, sample([64], 0.0, 1.0, "f32", 7, 4, alignment))
    else:
        np.testing.assert_array_equal(a, sample([64], 0.0, 1.0, "f32", 7, 4, alignment))


def test_zero_seeds_are_non_deterministic() -> None:
    assert not np.array_equal(sample([64], 0.0, 1.0, "f32", 0, 0), sample([64], 0.0, 1.0, "f32", 0, 0))


def _ks_statistic(u: np.ndarray) -> float:
    """The Kolmogorov-Smirnov distance of ``u`` (in [0, 1)) from the uniform distribution."""
    s = np.sort(u)
    n = s.size
    return float(max(np.max(np.arange(1, n + 1) / n - s), np.max(s - np.arange(n) / n)))


@pytest.mark.parametrize(("et", "alignment"), [("f32", "tensorflow"), ("f32", "pytorch"), ("f64", "tensorflow"),
                                               ("f16", "pytorch")])
def test_float_distribution_is_uniform(et: str, alignment: str) -> None:
    n = 20000
    u = (sample([n], -3.0, 5.0, et, 11, 5, alignment).astype(np.float64) + 3) / 8
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 0.005
    assert _ks_statistic(u) < 1.63 / np.sqrt(n) + (1 / 2048 if et == "f16" else 0)  # 1% critical value


@pytest.mark.parametrize("alignment", ["tensorflow", "pytorch"])
def test_integer_distribution_covers_the_range_evenly(alignment: str) -> None:
    n = 12000
    out = sample([n], -3, 3, "i32", 5, 9, alignment)
    counts = np.bincount(out + 3, minlength=6)
    assert out.min() == -3 and out.max() == 2 and counts.size == 6
    chi2 = float(((counts - n / 6) ** 2 / (n / 6)).sum())
    assert chi2 < 15.1  # 1% critical value, 5 degrees of freedom


# -- builder and run-time errors -----------------------------------------------------------------------------------

def test_shapes_and_errors() -> None:
    p = opset.parameter([3], Type.i32)
    node = opset.random_uniform(p, 0.0, 1.0, "f32")
    assert str(node.output(0).get_partial_shape()) == "[?,?,?]"
    assert [a for a in node.attrs] == ["output_type", "op_seed", "global_seed", "alignment"]
    with pytest.raises(ValidationError, match="RandomUniform-8 node .*minval .input 1. has element type f32; it must "
                                              "be output_type \\(i32\\)"):
        opset.random_uniform([2], make_constant(np.float32(0), Type.f32), 5, "i32")
    with pytest.raises(ValidationError, match="output_type"):
        opset.random_uniform([2], 0, 5, "u8")
    with pytest.raises(ValidationError, match="alignment"):
        opset.random_uniform([2], 0.0, 5.0, "f32", alignment="numpy")
    with pytest.raises(InferError, match="minval 5 must be less than maxval 5"):
        sample([2], 5, 5, "i32", 1, 1)


def chi_square(samples: np.ndarray, probs: np.ndarray) -> float:
    """Pearson's statistic of the class counts of ``samples`` against ``probs`` (classes of probability > 0)."""
    counts = np.bincount(samples.reshape(-1), minlength=probs.size)
    expected = probs / probs.sum() * samples.size
    keep = expected > 0
    return float(((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum())


PROBS = np.array([[0.1, 0.0, 0.2, 0.3, 0.4]], np.float32)
#: 0.1% critical value of chi-square with 3 degrees of freedom (the four classes of non-zero probability).
CHI2_3DOF = 16.27


# -- builder ----------------------------------------------------------------------------------------------------------

def test_multinomial_shapes_types_and_attribute_names() -> None:
    probs = opset.parameter([2, 4], Type.f16)
    node = opset.multinomial(probs, 5, "i32", True, False, 1, 2)
    assert list(node.attrs) == MULTINOMIAL_ATTRS
    assert node.attrs["convert_type"] == Type.i32 and node.attrs["global_seed"] == 1 and node.attrs["op_seed"] == 2
    assert str(node.output(0).get_partial_shape()) == "[2,5]" and node.output(0).get_element_type() == Type.i32
    count = opset.parameter([], Type.i32)
    dynamic = opset.multinomial(probs, count, "i64", False, True)
    assert str(dynamic.output(0).get_partial_shape()) == "[2,?]"
    assert dynamic.output(0).get_element_type() == Type.i64




@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.multinomial(P([4]), 2, "i32", True, False), r"probs \(input 0\) has shape \[4\]; it must be 2D"),
    (lambda: opset.multinomial(P([1, 2, 4]), 2, "i32", True, False), "it must be 2D"),
    (lambda: opset.multinomial(P([2, 4], Type.i32), 2, "i32", True, False),
     "probs .input 0. has element type i32; it must be a floating-point type"),
    (lambda: opset.multinomial(P([2, 4]), P([], Type.f32), "i32", True, False),
     "num_samples .input 1. has element type f32; it must be an integer type"),
    (lambda: opset.multinomial(P([2, 4]), P([], Type.u8), "i32", True, False), "it must be i32 or i64"),
    (lambda: opset.multinomial(P([2, 4]), np.array([2, 3]), "i32", True, False),
     r"num_samples \(input 1\) has shape \[2\]; it must be a scalar or a 1D tensor of one element"),
    (lambda: opset.multinomial(P([2, 4]), 2, "f32", True, False), "convert_type"),
    (lambda: opset.multinomial(P([2, 4]), 2, "i32", True, False, global_seed=-1), "must not be negative"),
    (lambda: opset.multinomial(P([2, 4]), 2, "i32", True, False, op_seed=-3), "op_seed=-3 .*must not be negative"),
    (lambda: opset.multinomial(P([2, 4]), -1, "i32", True, False), "num_samples -1 must not be negative"),
    (lambda: opset.multinomial(P([2, 4]), 5, "i32", False, False), "num_samples 5 exceeds the 4 classes"),
])
def test_multinomial_builder_errors(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as info:
        make()
    assert "Multinomial-13" in str(info.value) or "convert_type" in str(info.value)


def test_multinomial_draws_more_samples_than_classes_with_replacement() -> None:
    assert draw(np.array([[0.5, 0.5]], np.float32), 7).shape == (1, 7)


@pytest.mark.parametrize(("probs", "count", "kwargs", "message"), [
    ([[0.5, -0.1, 0.6]], 2, {}, r"probs\[0, 1\] = -0.1\d* is negative"),
    ([[0.5, 0.5], [0.0, 0.0]], 2, {}, "probs row 1 sums to 0.0"),
    ([[0.5, np.nan]], 2, {}, "probs row 0 holds NaN"),
    ([[100.0, 1.0]], 2, {"log_probs": True}, r"exp\(probs\) row 0 sums to inf"),
    ([[0.5, 0.0, 0.5]], 3, {"with_replacement": False},
     "without replacement, num_samples 3 exceeds the 2 class.es. of non-zero probability in probs row 0"),
])
def test_multinomial_run_time_errors(probs: Any, count: int, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InferError, match="Multinomial-13 node .*" + message):
        draw(np.array(probs, np.float32), count, **kwargs)


# -- IR v11 ---------------------------------------------------------------------------------------------------------

def test_multinomial_ir_round_trip_and_openvino_reads_it() -> None:
    from ovconform import read_model, serialize
    from ovconform.categorical import compare_samples, sample_space

    model = multinomial_model([2, 4], 3, False, True, (7, 9), "f32", "i32")
    xml, weights = serialize(model)
    assert (b'<data convert_type="i32" with_replacement="false" log_probs="true" global_seed="7" op_seed="9"'
            in xml)
    back = read_model(xml, weights)
    node = next(n for n in back.get_ordered_ops() if n.type_name == "Multinomial")
    assert node.version == 13 and node.attrs == next(
        n for n in model.get_ordered_ops() if n.type_name == "Multinomial").attrs
    assert serialize(back)[0] == xml
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.25, 0.25, 1e-3]], np.float32))
    ours = evaluate(back, [logits])[0]
    np.testing.assert_array_equal(ours, evaluate(model, [logits])[0])
    ov = pytest.importorskip("openvino")
    theirs_model = ov.Core().read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8)))
    (layer,) = [op for op in theirs_model.get_ordered_ops() if op.get_type_name() == "Multinomial"]
    assert layer.get_attributes() == {"convert_type": "i32", "with_replacement": False, "log_probs": True,
                                      "global_seed": 7, "op_seed": 9}
    theirs = ov.Core().compile_model(theirs_model, "CPU")(logits)[0]
    result = compare_samples(theirs, ours, sample_space(node, [logits, None]))
    assert result.passed, result.message


# -- the uniform numbers: RandomUniform-8's Philox stream, as in OpenVINO's reference implementation ------------------

@pytest.mark.parametrize("et", ["f32", "f16", "f64"])
def test_multinomial_samples_follow_random_uniform_philox(et: str) -> None:
    """Sample j of row r is the lowest class whose normalised cdf reaches u[r, j], the RandomUniform-8
    (tensorflow alignment) value of the probs type, shape [batch, num_samples], [0, 1), same seeds."""
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.3, 0.0, 0.6, 0.1], [1.0, 2.0, 3.0, 4.0]], as_type(et).to_dtype())
    out = draw(probs, 9, seeds=(150, 10))
    u = sample([3, 9], 0.0, 1.0, et, 150, 10)
    cdf = np.cumsum(probs, axis=1, dtype=probs.dtype)
    cdf = cdf / cdf[:, -1:]
    expected = np.argmax(u[:, :, None] <= cdf[:, None, :], axis=-1)
    np.testing.assert_array_equal(out, expected)
    assert not (out == 1)[1].any()


def test_multinomial_known_answer() -> None:
    """Seeds (5, 7): fixed samples (REFERENCE's, from the Philox stream above), so a change shows."""
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.0, 0.5]], np.float32)
    assert draw(probs, 3, seeds=(5, 7)).tolist() == [[2, 3, 1], [1, 1, 3]]
    assert draw(probs, 2, False, seeds=(5, 7)).tolist() == [[2, 3], [1, 3]]


def test_multinomial_without_replacement_follows_the_spec_update() -> None:
    """The spec's example 3 with the Philox numbers: after drawing class k, cdf[i >= k] -= p_k and cdf /= 1 - p_k."""
    probs = np.array([[0.1, 0.5, 0.4]], np.float32)
    out = draw(probs, 3, False, seeds=(21, 4))
    u = sample([1, 3], 0.0, 1.0, "f32", 21, 4)[0]
    cdf, left, got = np.cumsum(probs[0]) / probs[0].sum(), [0, 1, 2], []
    for value in u:
        k = next(i for i in left if value <= cdf[i])
        p = cdf[k] - (cdf[k - 1] if k else 0)
        cdf = np.where(np.arange(3) >= k, cdf - p, cdf) / (1 - p)
        left.remove(k)
        got.append(k)
    assert out[0].tolist() == got and sorted(got) == [0, 1, 2]


# -- determinism ----------------------------------------------------------------------------------------------------

def test_multinomial_same_seeds_same_samples_everywhere() -> None:
    import subprocess
    import sys

    from ovconform import Core
    from reference_plugin.plugin import ReferencePlugin

    probs = np.full((3, 8), 0.125, np.float32)
    model = multinomial_model([3, 8], 16, seeds=(11, 13))
    core = Core([ReferencePlugin], discover=False)
    first, second = (core.compile_model(model, "REFERENCE") for _ in range(2))
    runs = [np.array(c(probs)[0]) for c in (first, first, second)]
    for again in runs[1:]:
        np.testing.assert_array_equal(again, runs[0])
    code = ("import numpy as np; from tests.ops._multinomial import draw; "
            "print(draw(np.full((3, 8), 0.125, np.float32), 16, seeds=(11, 13)).tolist())")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                           cwd=__file__.rsplit("/tests/", 1)[0])
    assert fresh.stdout.strip() == str(runs[0].tolist())
    assert not np.array_equal(runs[0], draw(probs, 16, seeds=(11, 14)))
    assert not np.array_equal(runs[0], draw(probs, 16, seeds=(12, 13)))


def test_multinomial_zero_seeds_are_non_deterministic() -> None:
    probs = np.full((1, 8), 0.125, np.float32)
    assert not np.array_equal(draw(probs, 64, seeds=(0, 0)), draw(probs, 64, seeds=(0, 0)))


# -- distribution ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("log_probs", [False, True])
def test_multinomial_frequencies_match_the_probabilities(log_probs: bool) -> None:
    """20000 samples (fixed seeds, so the test cannot flake): chi-square below its 0.1% critical value;
    the class of probability 0 (logit -inf) never drawn."""
    with np.errstate(divide="ignore"):
        probs = np.log(PROBS) if log_probs else PROBS
    out = draw(probs, 20000, log_probs=log_probs, seeds=(17, 1))
    assert not (out == 1).any()
    assert chi_square(out, PROBS[0]) < CHI2_3DOF


def test_multinomial_f16_frequencies_match_the_probabilities() -> None:
    out = draw(PROBS.astype(np.float16), 4000, seeds=(2, 3))
    assert not (out == 1).any()
    assert chi_square(out, PROBS[0]) < CHI2_3DOF


def test_multinomial_without_replacement_distribution() -> None:
    """5000 rows of two draws without replacement: never the same class twice nor class 1; the first
    draw follows p, the second P(j) = sum_i p_i p_j / (1 - p_i)."""
    rows = 5000
    out = draw(np.repeat(PROBS, rows, axis=0), 2, False, seeds=(8, 8))
    assert (out[:, 0] != out[:, 1]).all() and not (out == 1).any()
    p = PROBS[0].astype(np.float64) / PROBS[0].astype(np.float64).sum()
    second = np.array([sum(p[i] * p[j] / (1 - p[i]) for i in range(5) if i != j) for j in range(5)])
    assert abs(second.sum() - 1) < 1e-12
    assert chi_square(out[:, 0], p) < CHI2_3DOF
    assert chi_square(out[:, 1], second) < CHI2_3DOF


def test_multinomial_without_replacement_draws_every_positive_class_once() -> None:
    out = draw(np.repeat(PROBS, 50, axis=0), 4, False, seeds=(4, 4), convert_type="i32")
    assert out.dtype == np.int32
    assert all(sorted(row) == [0, 2, 3, 4] for row in out.tolist())


def test_multinomial_zero_probability_first_class_is_never_drawn_in_f16() -> None:
    """f16 uniform numbers are multiples of 2^-10, so u == 0 comes up; OpenVINO's reference code would then
    draw class 0 (0 <= cdf[0] == 0) even at probability 0. REFERENCE never does."""
    probs = np.array([[0.0, 0.5, 0.5]], np.float16)
    u = sample([1, 5000], 0.0, 1.0, "f16", 9, 9)
    assert (u == 0).any()
    out = draw(probs, 5000, seeds=(9, 9))
    assert not (out == 0).any()


def test_multinomial_never_repeats_a_class_on_skewed_rows() -> None:
    """Rows [1e-7, 2e-7, 4e-7, 1]: after class 3 is drawn, the spec's CDF update in f32 leaves it a rounding
    sliver at the top of [0, 1] that is large against the mass left; the reference code's rule (lowest k with
    u <= cdf[k]) then draws class 3 again in hundreds of 2000 rows (as OpenVINO CPU does: a recorded
    deviation). REFERENCE only draws classes not drawn yet: every row is a permutation."""
    probs, rows = np.array([1e-7, 2e-7, 4e-7, 1.0], np.float32), 2000
    u = sample([rows, 4], 0.0, 1.0, "f32", 8, 1)

    def reference_code_rule(values: np.ndarray) -> list[int]:
        cdf, out = np.cumsum(probs, dtype=np.float32) / probs.sum(dtype=np.float32), []
        for value in values:
            k = next((i for i in range(4) if value <= cdf[i]), 3)
            q = cdf[k] - (cdf[k - 1] if k else np.float32(0))
            cdf = np.where(np.arange(4) >= k, cdf - q, cdf) / (np.float32(1) - q)
            out.append(k)
        return out

    with np.errstate(all="ignore"):
        repeats = sum(len(set(reference_code_rule(u[r]))) < 4 for r in range(rows))
    assert repeats > 100
    out = draw(np.repeat(probs[None], rows, axis=0), 4, False, seeds=(8, 1))
    assert all(sorted(row) == [0, 1, 2, 3] for row in out.tolist())


# -- the comparison of samples ----------------------------------------------------------------------------------

def _space(with_replacement: bool = True) -> Any:
    from ovconform.categorical import sample_space

    model = multinomial_model([2, 5], 3, with_replacement)
    node = next(n for n in model.get_ordered_ops() if n.type_name == "Multinomial")
    return sample_space(node, [np.repeat(PROBS, 2, axis=0), None])


@pytest.mark.parametrize(("fake", "with_replacement", "message"), [
    ([[0, 2, 5], [0, 0, 0]], True, r"sample \[0, 2\] = 5 is not a class index in \[0, 5\)"),
    ([[0, 2, -1], [0, 0, 0]], True, r"sample \[0, 2\] = -1 is not a class index"),
    ([[0, 2, 3], [4, 1, 0]], True, r"sample \[1, 1\] = 1 draws class 1, whose probability is 0"),
    ([[0, 2, 3], [4, 3, 4]], False, r"sample \[1, 2\] = 4 repeats a class of row 1"),
])
def test_compare_samples_fails_a_wrong_device(fake: list[list[int]], with_replacement: bool, message: str) -> None:
    from ovconform.categorical import compare_samples

    reference = np.array([[0, 2, 3], [4, 3, 0]], np.int64)
    result = compare_samples(np.array(fake, np.int64), reference, _space(with_replacement))
    assert not result.passed and not result
    assert re.search(message, result.message), result.message
    assert result.mismatch_count >= 1 and not result.equal_to_reference


def test_compare_samples_accepts_other_valid_samples_and_records_equality() -> None:
    from ovconform.categorical import compare_samples

    reference = np.array([[0, 2, 3], [4, 3, 0]], np.int64)
    same = compare_samples(reference.copy(), reference, _space(False))
    assert same.passed and same.equal_to_reference and "6 of 6 equal to REFERENCE's samples" in same.message
    other = compare_samples(np.array([[3, 2, 0], [2, 3, 4]], np.int64), reference, _space(False))
    assert other.passed and not other.equal_to_reference and other.equal_count == 2
    assert other.to_dict()["equal_to_reference"] is False
    assert not compare_samples(reference.astype(np.int32), reference, _space()).passed  # dtype
    assert "shape mismatch" in compare_samples(reference[:, :2], reference, _space()).message


def test_suite_comparison_checks_samples_not_values() -> None:
    """The op suite's compare_outputs (and its facts) take Multinomial outputs as samples: a valid but
    different draw passes, a zero-probability class fails once the probabilities are fed."""
    from ovconform.suites import _op_runner as R
    from ovconform.tolerances import default_tolerance, is_categorical

    assert is_categorical("Multinomial") and not is_categorical("RandomUniform")
    model = multinomial_model([2, 5], 3)
    feeds = [{"probs": np.repeat(PROBS, 2, axis=0)}]
    (expected,) = R.run_reference(model, feeds)
    tols = [default_tolerance("Multinomial", Type.i64)]
    other = (expected[0] + 1) % 5
    other[other == 1] = 0
    valid = R.compare_outputs(model, [[other]], [expected], tols, feeds)
    assert valid[0][1].passed and R.summary(valid)["samples_equal_reference"] is False
    zero = np.ones_like(expected[0])
    (label, bad), = R.compare_outputs(model, [[zero]], [expected], tols, feeds)
    assert not bad.passed and "whose probability is 0" in bad.message and "output 0" in label
    (_, unknown), = R.compare_outputs(model, [[zero]], [expected], tols)  # probs fed through a Parameter, not given
    assert unknown.passed and "probabilities unknown" in unknown.message
    (_, out_of_range), = R.compare_outputs(model, [[zero + 9]], [expected], tols)
    assert not out_of_range.passed


# -- OpenVINO CPU's generator ------------------------------------------------------------------------------------------

def _seed_seq(v: list[int], n: int = 624) -> list[int]:
    """std::seed_seq{v...}.generate(n words) (C++ [rand.util.seedseq])."""
    m32, b = 0xFFFFFFFF, [0x8B8B8B8B] * n
    s, t = len(v), 11
    p, q, m = (n - t) // 2, (n - t) // 2 + t, max(len(v) + 1, n)

    def mix(x: int) -> int:
        return x ^ (x >> 27)

    for k in range(m):
        r1 = (1664525 * mix(b[k % n] ^ b[(k + p) % n] ^ b[(k - 1) % n])) & m32
        r2 = (r1 + (s if k == 0 else (k % n + v[k - 1] if k <= s else k % n))) & m32
        b[(k + p) % n] = (b[(k + p) % n] + r1) & m32
        b[(k + q) % n] = (b[(k + q) % n] + r2) & m32
        b[k % n] = r2
    for k in range(m, m + n):
        r3 = (1566083941 * mix((b[k % n] + b[(k + p) % n] + b[(k - 1) % n]) & m32)) & m32
        r4 = (r3 - k % n) & m32
        b[(k + p) % n] ^= r3
        b[(k + q) % n] ^= r4
        b[k % n] = r4
    return b


def test_openvino_cpu_draws_with_mt19937_not_philox() -> None:
    """Why Multinomial is compared as samples: OpenVINO CPU 2026.4 seeds std::mt19937 with
    std::seed_seq{global_seed, op_seed} and takes u = float(gen()) / float(2^32 - 1), not the Philox
    stream of OpenVINO's reference code (which REFERENCE follows). Should this test fail because CPU
    now gives REFERENCE's samples, compare Multinomial by value again."""
    ov = pytest.importorskip("openvino")
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.3, 0.1, 0.5, 0.1]], np.float32)
    seeds, count = (5, 7), 12
    xml, weights = __import__("ovconform").serialize(multinomial_model([2, 4], count, seeds=seeds))
    core = ov.Core()
    compiled = core.compile_model(core.read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8))), "CPU")
    theirs = compiled(probs)[0]
    state = np.random.RandomState()
    state.set_state(("MT19937", np.array(_seed_seq(list(seeds)), np.uint32), 624))
    words = state.randint(0, 2**32, probs.shape[0] * count, dtype=np.uint64).astype(np.float32)
    u = (words / np.float32(2**32 - 1)).reshape(2, count)
    cdf = np.cumsum(probs, axis=1, dtype=np.float32)
    np.testing.assert_array_equal(theirs, np.argmax(u[:, :, None] <= (cdf / cdf[:, -1:])[:, None, :], axis=-1))
    assert not np.array_equal(theirs, draw(probs, count, seeds=seeds))


def test_range_takes_scalars_only_as_openvino_does() -> None:
    """The spec's start, stop and step are scalars; OpenVINO refuses a [1] tensor when it reads our IR
    ("'start' input is not a scalar"), so the builder does too."""
    import numpy as np

    from ovconform import opset as ops
    from ovconform.errors import ValidationError

    for build in (lambda s: ops.range(s, 10, 1, "i64"), lambda s: ops.range_v1(s, ops.constant(np.int64(10)),
                                                                                ops.constant(np.int64(1)))):
        with pytest.raises(ValidationError, match=r"start \(input 0\)"):
            build(ops.constant(np.zeros([1], np.int64)))
        assert list(build(ops.constant(np.int64(0))).get_output_partial_shape(0).to_shape()) == [10]
