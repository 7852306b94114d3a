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
from typing import Any

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


@functools.cache
def generate_cases(op_type: str, version: int, n: int) -> tuple[OpCase, ...]:
    """The first ``n`` cases hypothesis draws for ``op_type``-``version`` with a fixed seed (fewer
    when the strategy has fewer distinct cases): the op suite's generated cases, the same in every
    process (``derandomize``, no database, :func:`same_draws_everywhere`)."""
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
