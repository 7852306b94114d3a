"""ovconform.assertions: every failure says what it got, what it expected and which call."""

from __future__ import annotations

import numpy as np
import pytest

from ovconform.assertions import (
    assert_equal,
    assert_no_error,
    assert_outputs_close,
    assert_property_type,
    assert_raises_ov_error,
    assert_same_memory,
    call,
    no_error,
)
from ovconform.errors import BusyError, PropertyError

WHERE = call("DEV", "get_property", "PERF_COUNT")


def test_call_names_device_api_and_shortened_args() -> None:
    assert WHERE == "DEV.get_property('PERF_COUNT')"
    assert call("DEV", "f", "x" * 500) == "DEV.f(" + repr("x" * 500)[:117] + "...)"


def test_assert_equal_message_form() -> None:
    with pytest.raises(AssertionError) as info:
        assert_equal(True, False, "PERF_COUNT", WHERE)
    assert str(info.value) == "PERF_COUNT=True, but should be False [DEV.get_property('PERF_COUNT')]"


def test_assert_property_type_rejects_bool_for_int() -> None:
    assert_property_type(3, int, "NUM_STREAMS", WHERE)
    with pytest.raises(AssertionError, match=r"type\(NUM_STREAMS\)='bool', but should be 'int'"):
        assert_property_type(True, int, "NUM_STREAMS", WHERE)


def test_assert_outputs_close_reports_worst_index_and_diffs() -> None:
    got = np.array([[1.0, 2.0], [3.0, 9.0]], np.float32)
    want = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    assert_outputs_close(want.copy(), want, "out", WHERE)
    with pytest.raises(AssertionError) as info:
        assert_outputs_close(got, want, "out", WHERE)
    text = str(info.value)
    assert text.startswith("out[1,1]=9.0, but should be 4.0 [DEV.get_property('PERF_COUNT'); 1/4 elements differ")
    assert "max abs diff 5" in text and "rel diff at worst 1.25" in text
    with pytest.raises(AssertionError, match=r"out shape=\(2, 2\), but should be \(4,\)"):
        assert_outputs_close(got, want.ravel(), "out", WHERE)
    with pytest.raises(AssertionError, match="out dtype='float32', but should be 'float64'"):
        assert_outputs_close(got, want.astype(np.float64), "out", WHERE)


def test_assert_raises_ov_error_explains_wrong_or_missing_error() -> None:
    def raise_busy() -> None:
        raise BusyError("busy")

    with pytest.raises(AssertionError, match=r"error='none \(returned 42\)', but should be 'PropertyError'"):
        assert_raises_ov_error(PropertyError, lambda: 42, call=WHERE)
    with pytest.raises(AssertionError, match="error='BusyError: busy', but should be 'PropertyError'"):
        assert_raises_ov_error(PropertyError, raise_busy, call=WHERE)
    with pytest.raises(AssertionError, match="error message='busy', but should be \"a message containing 'idle'\""):
        assert_raises_ov_error(BusyError, raise_busy, call=WHERE, match="idle")
    assert isinstance(assert_raises_ov_error(BusyError, raise_busy, call=WHERE), BusyError)


def test_no_error_turns_exceptions_into_explained_failures() -> None:
    with pytest.raises(AssertionError, match=r"error='ValueError: bad', but should be 'no error' \[DEV"):
        with no_error(WHERE):
            raise ValueError("bad")
    with pytest.raises(AssertionError, match="^kept$"):
        with no_error(WHERE):
            raise AssertionError("kept")
    assert assert_no_error(lambda: 5, call=WHERE) == 5


def test_assert_same_memory() -> None:
    data = np.zeros(4, np.float32)
    assert_same_memory(data, data[:], "t", WHERE)
    with pytest.raises(AssertionError, match="t data address/shape="):
        assert_same_memory(data, data.copy(), "t", WHERE)
