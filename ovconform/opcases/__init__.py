"""Generated single-op test cases: one hypothesis strategy per op type and version.

A strategy draws an :class:`OpCase`: a small model with one op under test (plus the Parameters,
Constants and Results it needs) and seeded input arrays. The same strategies feed the IR
round-trip tests, the cross-check against OpenVINO CPU and the op conformance suite.

Register a strategy with ``@register_case("Relu", 1)`` on a function ``(draw) -> OpCase``
(it is wrapped with ``hypothesis.strategies.composite``).

The strategies live in one module per op family, named after the folders of OpenVINO's operation
specification (:data:`ovconform.ir.op_families.FAMILIES`): ``activation.py``, ``arithmetic.py``, ...
``type.py``, with ``detection/`` and ``movement/`` split further. Shared drawing helpers:
:mod:`._draw` (shapes, seeds, the case builder, elementwise factories, windows),
:mod:`._draw_dynamic` (the builder that also draws dynamic shapes), :mod:`._draw_index` (index
inputs).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
from hypothesis import strategies as st

from ovconform.errors import UnsupportedOpError
from ovconform.ir import Model
from ovconform.ir.op_families import FAMILIES


@dataclass
class OpCase:
    """One generated case: ``model`` holds the op under test; ``inputs`` maps each Parameter's
    friendly name to its input array (in parameter order)."""

    op_type: str
    version: int
    model: Model
    inputs: dict[str, np.ndarray]
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_CASES: dict[tuple[str, int], st.SearchStrategy[OpCase]] = {}
_loaded = False


def register_case(op_type: str, version: int) -> Callable[[Callable[..., OpCase]], st.SearchStrategy[OpCase]]:
    def deco(fn: Callable[..., OpCase]) -> st.SearchStrategy[OpCase]:
        key = (op_type, version)
        if key in _CASES:
            raise ValueError(f"a case strategy for {op_type}-{version} is registered twice")
        strategy = st.composite(fn)()
        _CASES[key] = strategy
        return strategy

    return deco


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for family in FAMILIES:
            importlib.import_module(f"ovconform.opcases.{family}")


def case_strategy(op_type: str, version: int) -> st.SearchStrategy[OpCase]:
    """The strategy for ``op_type``-``version``; UnsupportedOpError lists what exists."""
    _load()
    try:
        return _CASES[(op_type, version)]
    except KeyError:
        known = ", ".join(f"{t}-{v}" for (t, v) in sorted(_CASES))
        raise UnsupportedOpError(f"no case strategy for {op_type}-{version}; strategies exist for: {known}.") from None


def all_case_keys() -> list[tuple[str, int]]:
    _load()
    return sorted(_CASES)


@contextmanager
def same_draws_everywhere() -> Iterator[None]:
    """Make seeded (``derandomize``) generation independent of the process's history.

    Hypothesis (6.131 and later) sometimes draws literals found in the source of every *local*
    module imported so far, so the same seeded strategy gives different cases in a process that
    has imported more of the project (seen: an xdist worker and a serial run disagreeing on
    ``BatchNormInference-1-case8``). Inside this block that pool is empty. It uses Hypothesis
    internals when they exist and does nothing otherwise.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - older or restructured Hypothesis
        yield
        return
    original = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if original is None or not hasattr(providers, "Constants") or cache is None:  # pragma: no cover
        yield
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()


#: Case ``i`` comes from a draw of the first tier longer than ``i`` (beyond the last tier, from a
#: draw of the run's N). Hypothesis's draws depend on how many examples it is asked for, so without
#: tiers ``Acos-1-case2`` of a quick run (N=3) was another case than at the default depth (N=10),
#: and expectation entries and report diffs that name a case index meant different cases.
CASE_TIERS: Final = (10, 30)


@functools.cache
def generated_cases(op_type: str, version: int, n: int) -> tuple[tuple[int, OpCase], ...]:
    """``(index, case)`` for the op suite's ``n`` generated cases of ``op_type``-``version`` (fewer
    when the strategy has fewer distinct cases), the same in every process. An index names the same
    case whatever ``n`` is, up to the last of :data:`CASE_TIERS` (:func:`case_at`).

    ``n`` of at least the first tier gives indices ``0..n-1``. Fewer (a quick run) gives the ``n``
    cases of the first tier's draw with the most input elements (the first index among equals),
    in index order: hypothesis draws its simplest cases first, and the first three are mostly
    one-element tensors on which a kernel that is wrong along an axis or past the first element
    passes."""
    first = CASE_TIERS[0]
    if n >= first:
        out = []
        for i in range(n):
            case = case_at(op_type, version, i, n)
            if case is None:
                break
            out.append((i, case))
        return tuple(out)
    drawn = _draw_cases(op_type, version, first)
    richest = sorted(range(len(drawn)), key=lambda i: (-_input_elements(drawn[i]), i))[:n]
    return tuple((i, drawn[i]) for i in sorted(richest))


def generate_cases(op_type: str, version: int, n: int) -> tuple[OpCase, ...]:
    """The cases of :func:`generated_cases`, without their indices."""
    return tuple(case for _, case in generated_cases(op_type, version, n))


def case_at(op_type: str, version: int, index: int, n: int) -> OpCase | None:
    """The generated case ``index`` (drawn with the first of :data:`CASE_TIERS` above it, or with
    ``n`` beyond the last), None when the strategy has no such case."""
    tier = next((t for t in CASE_TIERS if t > index), max(n, index + 1))
    drawn = _draw_cases(op_type, version, tier)
    return drawn[index] if index < len(drawn) else None


def _input_elements(case: OpCase) -> int:
    return sum(int(np.size(v)) for v in case.inputs.values())


@functools.cache
def _draw_cases(op_type: str, version: int, n: int) -> tuple[OpCase, ...]:
    """The first ``n`` cases hypothesis draws with a fixed seed (``derandomize``, no database,
    :func:`same_draws_everywhere`)."""
    from hypothesis import HealthCheck, Phase, given, settings

    out: list[OpCase] = []

    @settings(derandomize=True, max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(case_strategy(op_type, version))
    def collect(case: OpCase) -> None:
        if len(out) < n:
            out.append(case)

    with same_draws_everywhere():
        collect()
    return tuple(out)
