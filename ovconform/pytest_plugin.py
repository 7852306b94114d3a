"""ovconform's pytest plugin (loaded through the ``pytest11`` entry point).

Without ``--plugin`` it adds its options and changes nothing else.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ovconform")
    group.addoption(
        "--plugin", action="append", default=[], dest="ovconform_plugins", metavar="X",
        help="Run the conformance suites against device plugin X (entry-point or device name, "
             "module:attr, path to a .py file, or openvino:DEVICE). Repeatable.",
    )
