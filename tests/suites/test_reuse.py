"""``suites/_reuse.py``: the memo the op suite's tests of one case share in a worker."""

from __future__ import annotations

import pytest

from ovconform.errors import ValidationError
from ovconform.suites._reuse import CaseMemo, FirstRun, Kept, memo_key


def _run(tag: str) -> FirstRun:
    return FirstRun(Kept(f"compiled-{tag}"), None, None, Kept([[tag]]))


def test_query_is_asked_once_per_key_and_its_error_is_raised_each_time() -> None:
    memo, calls = CaseMemo(), []
    key = memo_key("DEV", "Abs-1-case0/n10")
    assert memo.query(key, lambda: calls.append(1) or {"abs": "DEV"}) == {"abs": "DEV"}
    assert memo.query(key, lambda: calls.append(1) or {}) == {"abs": "DEV"}
    assert calls == [1]

    def boom() -> None:
        raise RuntimeError("query_model failed")

    bad = memo_key("DEV", "Abs-1-case1/n10")
    for _ in range(2):
        with pytest.raises(RuntimeError, match="query_model failed"):
            memo.query(bad, boom)


def test_the_key_holds_device_case_and_config() -> None:
    memo = CaseMemo()
    keys = [memo_key("A", "Abs-1-case0/n10"), memo_key("B", "Abs-1-case0/n10"), memo_key("A", "Abs-1-case1/n10"),
            memo_key("A", "Abs-1-case0/n10", {"PERF_COUNT": True}),
            memo_key("A", "Abs-1-case0/n10", {"PERF_COUNT": False})]
    assert len(set(keys)) == 5
    assert memo_key("A", "k", {"X": 1, "Y": 2}) == memo_key("A", "k", {"Y": 2, "X": 1})
    runs = [memo.first_run(k, lambda k=k: _run(str(k))) for k in keys[:4]]
    assert len({id(r) for r in runs}) == 4, "no two keys share a first run"


def test_first_run_is_made_once_unless_fresh() -> None:
    memo, made = CaseMemo(), []
    key = memo_key("DEV", "Abs-1-case0/n10")

    def make() -> FirstRun:
        made.append(1)
        return _run(str(len(made)))

    first = memo.first_run(key, make)
    assert memo.first_run(key, make) is first and made == [1]
    again = memo.first_run(key, make, fresh=True)
    assert again is not first and made == [1, 1] and memo.first_run(key, make) is again


def test_least_recently_used_cases_go() -> None:
    memo = CaseMemo(size=2)
    a, b, c = (memo_key("DEV", f"case{i}") for i in range(3))
    ra = memo.first_run(a, lambda: _run("a"))
    memo.first_run(b, lambda: _run("b"))
    assert memo.first_run(a, lambda: _run("a2")) is ra  # a is now the most recent
    memo.first_run(c, lambda: _run("c"))  # b goes
    assert len(memo) == 2
    assert memo.first_run(a, lambda: _run("a3")) is ra
    assert memo.first_run(b, lambda: _run("b2")).compiled.get() == "compiled-b2"
    memo.clear()
    assert len(memo) == 0


def test_kept_raises_the_error_it_holds() -> None:
    kept = Kept.of(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        kept.get()
    assert Kept.of(lambda: 3).get() == 3


def test_size_must_be_positive() -> None:
    with pytest.raises(ValidationError, match="size must be at least 1, not 0"):
        CaseMemo(0)
