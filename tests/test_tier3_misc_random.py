"""Tier-3 "misc" family, RandomUniform-8: the spec's generators bit for bit (sequences OpenVINO CPU also gives
for f32/i32), determinism under fixed seeds, distribution checks, and builder errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Type, as_type
from ovconform.opset._helpers import make_constant
from reference_plugin._evaluate import evaluate
from reference_plugin.ops.op_random_uniform import mersenne, philox


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
