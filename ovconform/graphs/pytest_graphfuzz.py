"""pytest hooks of the graph fuzz (a sub-plugin of :mod:`ovconform.pytest_plugin`).

* registers the ``graphfuzz`` marker and ``--ovconform-graphfuzz-examples N`` (graphs per device,
  default :data:`DEFAULT_EXAMPLES`);
* with ``--plugin``: graph fuzz tests are opt-in — deselected unless the ``-m`` expression names
  ``graphfuzz`` (``-m graphfuzz``, ``-m "graphfuzz or op"``), as the perf suite is.

Without ``--plugin`` nothing changes but the marker and option registration.
"""

from __future__ import annotations

import re

import pytest

MARKER = "graphfuzz: random multi-op graphs on the device vs REFERENCE (opt-in with -m graphfuzz)"
#: Graphs drawn per device when --ovconform-graphfuzz-examples is not given.
DEFAULT_EXAMPLES = 200
_WORD = re.compile(r"\bgraphfuzz\b")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("ovconform").addoption(
        "--ovconform-graphfuzz-examples", type=int, default=None, dest="ovconform_graphfuzz_examples", metavar="N",
        help=f"Random graphs the graph fuzz (-m graphfuzz) draws per device (default {DEFAULT_EXAMPLES}).")


def examples(config: pytest.Config) -> int:
    """The graph fuzz's example budget.

    :raises pytest.UsageError: for a budget below 1.
    """
    value = config.getoption("ovconform_graphfuzz_examples", default=None)
    if value is None:
        return DEFAULT_EXAMPLES
    if value < 1:
        raise pytest.UsageError(f"--ovconform-graphfuzz-examples {value}: the graph fuzz needs at least 1 example.")
    return int(value)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    if config.getoption("ovconform_plugins", default=None):
        examples(config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("ovconform_plugins", default=None):
        return
    if _WORD.search(config.getoption("markexpr", default="") or ""):
        return
    fuzz = [item for item in items if item.get_closest_marker("graphfuzz") is not None]
    if fuzz:
        config.hook.pytest_deselected(items=fuzz)
        items[:] = [item for item in items if item.get_closest_marker("graphfuzz") is None]
