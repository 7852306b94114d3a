"""Without --plugin, ovconform's pytest plugin changes nothing in a pytest run."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_plugin_is_loaded_but_inert(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_one():
            assert 1 + 1 == 2

        def test_two():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert "ovconform" not in result.stdout.str()
    assert not list(pytester.path.glob("reports"))


def test_plugin_option_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--plugin=X*"])
