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


def test_collected_objects_are_frozen_only_with_a_device(pytester: pytest.Pytester) -> None:
    """With --plugin, what collection built is moved out of the cyclic collector's view (the suites'
    gc.collect() calls are then cheap); without it, the garbage collector is left as it was."""
    pytester.makepyfile(
        test_gc="""
        import gc

        def test_freeze_count(request):
            frozen = gc.get_freeze_count()
            if request.config.getoption("ovconform_plugins"):
                assert frozen > 1000, frozen
            else:
                assert frozen == 0, frozen
        """
    )
    pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "test_gc.py").assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "--plugin=reference", "-k",
                                           "test_freeze_count or test_get_versions_non_empty", "test_gc.py")
    result.assert_outcomes(passed=1)
