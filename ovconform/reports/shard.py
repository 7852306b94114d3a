"""``--ovconform-shard I/N``: one of N deterministic parts of a run, for machines or CI jobs.

A device test belongs to shard ``1 + h mod N``, where ``h`` is a hash of its stable test id (the
report's ``nodeid``, see :mod:`ovconform.reports.collection`), so the split does not depend on the
machine, the folder pytest starts in, xdist or the order of collection; a test of no device goes by
its pytest node id. Every shard runs the same collection and deselects the tests of the others (they
are counted as ``selection.shard_out``, apart from the user's deselection). A shard's report is
partial; ``ovconform report merge`` of shards ``1..N`` of one run is not (:func:`complete_groups`),
and its records and counters equal the unsharded run's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

import pytest

SHARD_OPTION = "--ovconform-shard"
#: the shard a run was asked for, as (index from 1, count)
shard_key = pytest.StashKey[tuple[int, int]]()
#: pytest node ids the shard left to the other shards
removed_key = pytest.StashKey[set[str]]()

_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(value: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; a usage error names the value and the form allowed."""
    m = _FORM.match(str(value))
    if m is not None:
        index, count = int(m.group(1)), int(m.group(2))
        if 1 <= index <= count:
            return index, count
    raise pytest.UsageError(f"{SHARD_OPTION}={value!r} is not a shard; allowed: I/N with 1 <= I <= N "
                            f"(e.g. 2/4: the second of four parts).")


def shard_of(test_id: str, count: int) -> int:
    """The shard (1..count) of the test with stable id ``test_id``."""
    digest = hashlib.sha256(test_id.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def split(items: list[pytest.Item], shard: tuple[int, int], test_id_of: Any) -> tuple[list[pytest.Item],
                                                                                          list[pytest.Item]]:
    """(kept, removed): the items of ``shard``, and those of the other shards. ``test_id_of(item)``
    gives an item's stable id (None for a test of no device: its node id is used)."""
    index, count = shard
    kept: list[pytest.Item] = []
    removed: list[pytest.Item] = []
    for item in items:
        key = test_id_of(item) or item.nodeid
        (kept if shard_of(key, count) == index else removed).append(item)
    return kept, removed


def label(shard: tuple[int, int]) -> str:
    return f"{shard[0]}/{shard[1]}"


def complete_groups(runs: Iterable[dict[str, Any]]) -> set[int]:
    """The shard counts N for which ``runs`` hold every shard 1..N (by ``run.selection.shard``)."""
    seen: dict[int, set[int]] = {}
    for run in runs:
        value = ((run or {}).get("selection") or {}).get("shard")
        if value:
            index, count = (int(x) for x in str(value).split("/"))
            seen.setdefault(count, set()).add(index)
    return {count for count, indices in seen.items() if indices == set(range(1, count + 1))}


__all__ = ["SHARD_OPTION", "complete_groups", "label", "parse_shard", "removed_key", "shard_key", "shard_of", "split"]
