"""Comparing samples of a categorical distribution (:data:`ovconform.tolerances.CATEGORICAL_OPS`,
e.g. Multinomial-13).

A device may draw such samples with another uniform generator than REFERENCE (OpenVINO CPU's
Multinomial seeds std::mt19937 where OpenVINO's reference code uses RandomUniform's Philox), so
they cannot be compared element-wise. :func:`sample_space` derives from the op's input values
what a sample may be (:class:`SampleSpace`), and :func:`compare_samples` checks

* the shape and the element type (as :func:`~ovconform.tolerances.compare` does),
* every value is a class index in ``[0, classes)``,
* no sample is a class of probability 0 (when the probabilities are known),
* without replacement, no class appears twice in a row,

and records whether the samples equal REFERENCE's (:attr:`SampleComparison.equal_to_reference`),
a fact, not a requirement. How well the samples follow the probabilities is a statistical
question for a test with many samples, not for one case.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ovconform.ir import Type, as_type, bf16_to_f32
from ovconform.tolerances import EXACT, Comparison, Tolerance, TypeLike, is_categorical

if TYPE_CHECKING:
    from ovconform.ir import Node

__all__ = ["SampleComparison", "SampleSpace", "compare_samples", "sample_space"]


@dataclass(frozen=True)
class SampleSpace:
    """What the samples of one output may be: rows of class indices in ``[0, classes)``.

    :param classes: the number of classes.
    :param allowed: ``[rows, classes]`` booleans, True for a class of non-zero probability in that
        row; None when the probabilities are not known (any class in range is allowed).
    :param distinct: True when a class may not appear twice in a row (without replacement).
    """

    classes: int
    allowed: np.ndarray | None = None
    distinct: bool = False

    def describe(self) -> str:
        parts = [f"class indices in [0, {self.classes})",
                 "never a class of probability 0" if self.allowed is not None
                 else "probabilities unknown here, so zero-probability classes not checked"]
        if self.distinct:
            parts.append("no class twice in a row")
        return ", ".join(parts)


@dataclass(frozen=True)
class SampleComparison(Comparison):
    """A :class:`~ovconform.tolerances.Comparison` of samples; ``equal_count`` samples equal
    REFERENCE's (``equal_to_reference`` when all do)."""

    equal_count: int = 0

    @property
    def equal_to_reference(self) -> bool:
        return self.equal_count == self.size

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "kind": "categorical samples", "equal_to_reference": self.equal_to_reference}


def _float_values(arr: np.ndarray, et: Type) -> np.ndarray:
    return bf16_to_f32(arr).astype(np.float64) if et == Type.bf16 else np.asarray(arr, np.float64)


def _multinomial_space(node: Node, values: Sequence[np.ndarray | None]) -> SampleSpace | None:
    probs = values[0] if values else None
    shape = node.get_input_partial_shape(0)
    if probs is not None:
        classes = int(np.asarray(probs).shape[-1])
    elif shape.has_rank() and len(shape) == 2 and shape[1].is_static:
        classes = shape[1].get_length()
    else:
        return None
    allowed = None
    if probs is not None:
        p = _float_values(np.asarray(probs), node.get_input_element_type(0))
        with np.errstate(over="ignore"):
            allowed = np.exp(p) > 0 if node.attrs["log_probs"] else p > 0
        allowed = allowed.reshape(-1, classes)
    return SampleSpace(classes, allowed, distinct=not node.attrs["with_replacement"])


#: Op type → how its output's sample space follows from the node and its input values (None for
#: an unknown input).
SAMPLE_SPACES: dict[str, Callable[[Node, Sequence[np.ndarray | None]], SampleSpace | None]] = {
    "Multinomial": _multinomial_space,
}


def sample_space(node: Node, values: Sequence[np.ndarray | None]) -> SampleSpace | None:
    """The sample space of ``node``'s output when its op is in ``CATEGORICAL_OPS``, else None.

    :param node: the op producing the samples.
    :param values: its input values in port order (None for a value not known to the caller).
    :return: None also when not even the number of classes is known.
    """
    if not is_categorical(node.type_name) or node.type_name not in SAMPLE_SPACES:
        return None
    return SAMPLE_SPACES[node.type_name](node, values)


def _first_problem(a: np.ndarray, space: SampleSpace) -> tuple[np.ndarray, str | None]:
    """Per-sample invalid flags and the first problem's description."""
    rows = a.reshape(a.shape[0] if a.ndim > 1 else 1, -1).astype(np.int64)
    bad = (rows < 0) | (rows >= space.classes)
    problem = None
    if bad.any():
        r, j = (int(i) for i in np.argwhere(bad)[0])
        problem = f"sample [{r}, {j}] = {rows[r, j]} is not a class index in [0, {space.classes})"
    if space.allowed is not None and space.allowed.shape[0] == rows.shape[0] and space.classes > 0:
        inside = np.clip(rows, 0, space.classes - 1)
        zero = ~bad & ~np.take_along_axis(space.allowed, inside, axis=1)
        if zero.any() and problem is None:
            r, j = (int(i) for i in np.argwhere(zero)[0])
            problem = f"sample [{r}, {j}] = {rows[r, j]} draws class {rows[r, j]}, whose probability is 0"
        bad |= zero
    if space.distinct:
        order = np.argsort(rows, axis=1, kind="stable")
        ranked = np.take_along_axis(rows, order, axis=1)
        repeat_sorted = np.zeros(rows.shape, bool)
        repeat_sorted[:, 1:] = ranked[:, 1:] == ranked[:, :-1]
        repeat = np.zeros(rows.shape, bool)
        np.put_along_axis(repeat, order, repeat_sorted, axis=1)
        if repeat.any() and problem is None:
            r, j = (int(i) for i in np.argwhere(repeat)[0])
            problem = (f"sample [{r}, {j}] = {rows[r, j]} repeats a class of row {r} (without replacement "
                       "each class is drawn at most once)")
        bad |= repeat
    return bad.reshape(a.shape), problem


def compare_samples(actual: npt.ArrayLike, expected: npt.ArrayLike, space: SampleSpace,
                    tol: Tolerance = EXACT, element_type: TypeLike | None = None) -> SampleComparison:
    """Check ``actual`` as samples of ``space`` (see the module docstring); ``expected`` (REFERENCE's
    samples) gives the shape and dtype to match and the ``equal_count`` fact.

    :param tol: recorded in the result (the output's tolerance; samples are not compared by value).
    """
    a, e = np.asarray(actual), np.asarray(expected)
    et = as_type(element_type) if element_type is not None else as_type(e.dtype)
    base: dict[str, Any] = {"tolerance": tol, "element_type": et.name, "size": int(e.size)}
    if a.shape != e.shape:
        return SampleComparison(False, f"shape mismatch: got {list(a.shape)}, expected {list(e.shape)}", **base)
    if a.dtype != e.dtype:
        return SampleComparison(False, f"dtype mismatch: got {a.dtype}, expected {e.dtype}", **base)
    if a.dtype.kind not in "iu":
        return SampleComparison(False, f"samples must be integer class indices; got dtype {a.dtype}", **base)
    equal = int(np.count_nonzero(a == e))
    fact = f"{equal} of {e.size} equal to REFERENCE's samples"
    if e.size == 0:
        return SampleComparison(True, "no samples to check", equal_count=0, **base)
    bad, problem = _first_problem(a, space)
    count = int(np.count_nonzero(bad))
    if count:
        worst = tuple(int(i) for i in np.argwhere(bad)[0])
        return SampleComparison(False, f"{problem}; {count} of {e.size} sample(s) invalid ({space.describe()}); "
                                       f"{fact}", worst_index=worst, mismatch_count=count, equal_count=equal, **base)
    return SampleComparison(True, f"all {e.size} sample(s) valid ({space.describe()}); {fact}",
                            equal_count=equal, **base)
