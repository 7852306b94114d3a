"""pytest hooks of the perf suite (a sub-plugin of :mod:`ovconform.pytest_plugin`).

* registers the ``perf`` marker;
* with ``--plugin``: perf tests are opt-in — deselected unless the ``-m`` expression names
  ``perf`` (``-m perf``, ``-m "perf or op"``; ``-m "not perf"`` is pytest's own business);
* with ``--plugin`` and pytest-xdist ``-n N`` (N > 0): an ``-m`` expression that selects perf tests
  is refused with a usage error — timings taken while other workers compete for the cores mean
  nothing (pytest-benchmark disables itself under xdist for the same reason).

Without ``--plugin`` nothing changes but the marker registration.
"""

from __future__ import annotations

import re

import pytest

MARKER = "perf: a performance measurement (opt-in with -m perf; runs serially, refused under xdist -n)"
_WORD = re.compile(r"\bperf\b")


def _perf_marks_only(name: str, /, **_: str | int | bool | None) -> bool:
    """The marks of a perf test, as a marker-expression matcher (pytest's ExpressionMatcher)."""
    return name in ("perf", "entity")


def selects_perf(markexpr: str) -> bool:
    """True when a test marked only ``perf`` (plus entity markers) would match ``markexpr``."""
    if not markexpr or not _WORD.search(markexpr):
        return False
    try:
        from _pytest.mark.expression import Expression

        return bool(Expression.compile(markexpr).evaluate(_perf_marks_only))
    except Exception:  # noqa: BLE001 - an expression pytest itself will report; assume it selects perf
        return True


def _parallel(config: pytest.Config) -> bool:
    n = getattr(config.option, "numprocesses", None)
    if n in (None, 0, "0"):
        return False
    return True


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("ovconform_plugins", default=None))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    if not _active(config) or hasattr(config, "workerinput"):
        return
    markexpr = config.getoption("markexpr", default="") or ""
    if _parallel(config) and selects_perf(markexpr):
        raise pytest.UsageError(
            f"ovconform: the perf suite (-m {markexpr!r}) measures time and must run serially, but pytest-xdist "
            f"was asked for {config.option.numprocesses} workers (-n). Run the perf tests alone without -n "
            "(pytest --plugin=X -m perf), or exclude them from the parallel run with -m 'not perf'.")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _active(config):
        return
    markexpr = config.getoption("markexpr", default="") or ""
    if _WORD.search(markexpr):
        return
    perf = [item for item in items if item.get_closest_marker("perf") is not None]
    if perf:
        config.hook.pytest_deselected(items=perf)
        items[:] = [item for item in items if item.get_closest_marker("perf") is None]
