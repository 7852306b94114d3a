"""Assertion helpers for conformance suites: every failure says what it got, what it expected,
and which call produced it.

Messages take the form ``"{what}={got!r}, but should be {expected!r} [{device}.{api}({args})]"``;
the bracketed call comes from :func:`call`. Every helper sets ``__tracebackhide__`` so pytest
shows the suite line that called it, not the helper.

Example::

    where = call(device, "get_property", "PERF_COUNT")
    assert_equal(plugin.get_property("PERF_COUNT"), False, "PERF_COUNT", where)
    assert_raises_ov_error(PropertyError, plugin.get_property, "NO_SUCH", call=call(device, "get_property", "NO_SUCH"))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NoReturn, TypeVar

import numpy as np

__all__ = [
    "assert_close_to", "assert_equal", "assert_in", "assert_no_error", "assert_not_empty", "assert_outputs_close",
    "assert_property_type", "assert_raises_ov_error", "assert_same_memory", "assert_that", "call", "fail",
    "no_error",
]

T = TypeVar("T")
_ARG_LIMIT = 120


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _ARG_LIMIT else text[:_ARG_LIMIT - 3] + "..."


def call(device: str, api: str, *args: Any, **kwargs: Any) -> str:
    """The ``"{device}.{api}({args})"`` text naming a call (long arguments are shortened)."""
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return f"{device}.{api}({', '.join(parts)})"


def fail(what: str, got: Any, expected: Any, where: str) -> NoReturn:
    """Raise the standard AssertionError."""
    __tracebackhide__ = True
    raise AssertionError(f"{what}={got!r}, but should be {expected!r} [{where}]")


def assert_that(condition: Any, what: str, got: Any, expected: Any, where: str) -> None:
    """Fail with the standard message unless ``condition`` holds."""
    __tracebackhide__ = True
    if not condition:
        fail(what, got, expected, where)


def assert_equal(got: Any, expected: Any, what: str, where: str) -> None:
    __tracebackhide__ = True
    if not _equal(got, expected):
        fail(what, got, expected, where)


def _equal(got: Any, expected: Any) -> bool:
    try:
        return bool(got == expected)
    except (ValueError, TypeError):  # e.g. numpy arrays of different shapes
        return False


def assert_in(item: Any, container: Any, what: str, where: str) -> None:
    """``item`` must be in ``container``; the message shows the item and the container."""
    __tracebackhide__ = True
    if item not in container:
        fail(what, item, f"one of {sorted(map(str, container))}", where)


def assert_not_empty(value: Any, what: str, where: str) -> None:
    __tracebackhide__ = True
    if value is None or (hasattr(value, "__len__") and len(value) == 0):
        fail(what, value, "a non-empty value", where)


def assert_property_type(value: Any, expected_type: type | tuple[type, ...], name: str, where: str) -> None:
    """A property value must be an instance of ``expected_type`` (bool is not an int here)."""
    __tracebackhide__ = True
    types = expected_type if isinstance(expected_type, tuple) else (expected_type,)
    wrong_bool = isinstance(value, bool) and bool not in types
    if wrong_bool or not isinstance(value, types):
        fail(f"type({name})", type(value).__name__, " or ".join(t.__name__ for t in types), where)


def assert_same_memory(got: Any, expected: Any, what: str, where: str) -> None:
    """Two tensors (or arrays) must view the same memory: same data address and shape."""
    __tracebackhide__ = True
    a, b = _array(got), _array(expected)
    got_addr, want_addr = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    if got_addr != want_addr or a.shape != b.shape:
        fail(f"{what} data address/shape", (hex(got_addr), a.shape), (hex(want_addr), b.shape), where)


def _array(x: Any) -> np.ndarray:
    data = getattr(x, "data", x)
    return data if isinstance(data, np.ndarray) else np.asarray(x)


def assert_outputs_close(got: Any, expected: Any, what: str, where: str, *, rtol: float = 1e-5,
                         atol: float = 1e-6) -> None:
    """Compare an output with its expected value: shape, then dtype, then values.

    A value mismatch reports the max absolute and relative difference, the worst index and the
    two values there.
    """
    __tracebackhide__ = True
    g, e = np.asarray(_array(got)), np.asarray(expected)
    if g.shape != e.shape:
        fail(f"{what} shape", tuple(g.shape), tuple(e.shape), where)
    if g.dtype != e.dtype:
        fail(f"{what} dtype", str(g.dtype), str(e.dtype), where)
    if g.dtype == np.bool_ and g.size:
        from ovconform.tolerances import bool_byte_error  # imports the IR: only when a boolean is compared

        byte = bool_byte_error(g)
        if byte is not None:
            fail(f"{what} (boolean bytes)", byte[0], "every element the byte 0x00 or 0x01", where)
    if g.size == 0 or (g.dtype.kind in "biu" and np.array_equal(g, e)):
        return
    gf, ef = g.astype(np.float64), e.astype(np.float64)
    diff = np.abs(gf - ef)
    diff[np.isnan(gf) & np.isnan(ef)] = 0.0
    diff[np.isnan(diff)] = np.inf
    bad = diff > atol + rtol * np.abs(ef)
    if bad.any():
        worst = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), g.shape)
        rel = diff[worst] / max(abs(ef[worst]), np.finfo(np.float64).tiny)
        fail(f"{what}[{','.join(map(str, worst))}]", g[worst].item(), e[worst].item(),
             f"{where}; {int(bad.sum())}/{g.size} elements differ, max abs diff {float(diff.max()):.3g}, "
             f"rel diff at worst {float(rel):.3g}, rtol={rtol}, atol={atol}")


def assert_close_to(got: float, expected: float, tolerance: float, what: str, where: str) -> None:
    __tracebackhide__ = True
    if not abs(got - expected) <= tolerance:
        fail(what, got, f"{expected} ± {tolerance}", where)


def assert_raises_ov_error(error: type[BaseException] | tuple[type[BaseException], ...], fn: Callable[..., Any],
                           *args: Any, call: str, match: str | None = None, **kwargs: Any) -> BaseException:
    """``fn(*args, **kwargs)`` must raise ``error`` (and its message must contain ``match``).

    :return: the exception, for further checks.
    """
    __tracebackhide__ = True
    names = _names(error)
    try:
        result = fn(*args, **kwargs)
    except error as e:
        if match is not None and match.lower() not in str(e).lower():
            fail("error message", str(e), f"a message containing {match!r}", call)
        return e
    except Exception as e:  # noqa: BLE001 - the wrong error type is the failure we report
        fail("error", f"{type(e).__name__}: {e}", names, call)
    fail("error", f"none (returned {_short(result)})", names, call)


def _names(error: type[BaseException] | tuple[type[BaseException], ...]) -> str:
    types = error if isinstance(error, tuple) else (error,)
    return " or ".join(t.__name__ for t in types)


def assert_no_error(fn: Callable[..., T], *args: Any, call: str, **kwargs: Any) -> T:
    """Run ``fn``; an exception becomes an explained failure instead of a bare traceback."""
    __tracebackhide__ = True
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - reported as a failure with what/expected/where
        fail("error", f"{type(e).__name__}: {e}", "no error", call)


class no_error:  # noqa: N801 - used like a function: ``with no_error(where):``
    """A block that must not raise; an exception becomes an explained failure (an AssertionError
    raised inside the block passes through unchanged)."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: Any) -> Literal[False]:
        __tracebackhide__ = True
        if error is None or isinstance(error, AssertionError) or not isinstance(error, Exception):
            return False
        fail("error", f"{type(error).__name__}: {error}", "no error", self.where)
