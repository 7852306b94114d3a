"""What is known about each device test at collection: its stable test id, device, entity and scope.

**Test ids.** A record's ``nodeid`` is the test's *stable id*, not pytest's node id. pytest's node
id starts with the test file's path relative to the rootdir, which depends on the folder pytest
runs from, on the ini file it finds and on where the package is installed. The stable id is

* for a test of the bundled suites (the package ``ovconform.suites``, source folder ``suites/``):
  the module's path inside that package, then pytest's names below the module, e.g.
  ``test_plugin_properties.py::test_set_config_all_throws[REFERENCE]`` (a module in a subpackage
  would be ``ov_plugin/test_x.py::...``);
* for any other test (your own test files using the fixtures): the file's path relative to the
  rootdir, then the same names, e.g. ``tests/test_mine.py::TestX::test_y[MYDEV]``.

It is the same from any folder, installed or editable, with or without ``-n``, and without the
``@group`` suffix ``--dist loadgroup`` adds to node ids.

**Collection.** The process that collects (the only one without xdist, each worker with it)
knows every test's markers; the xdist controller knows only node ids. So the collecting process
sums up its collection (:class:`Collection`: for each selected device test its
:class:`DeviceTest`; the stable ids of the device tests the run did not select; how many the user's
selection removed) and, under xdist, journals it, where the controller reads it as soon as that
worker reports its collection finished. A test that crashes or hangs then keeps the entity, scope
and test id it would have had.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

import pytest


class DeviceTest(TypedDict):
    """One device test as collected."""

    test_id: str
    device: str
    entity: str
    scope: str


@cache
def suites_root() -> Path:
    """The folder of the installed suites package ``ovconform.suites``."""
    import importlib

    return Path(str(importlib.import_module("ovconform.suites").__file__)).resolve().parent


@cache
def module_key(path: Path, rootdir: Path) -> str:
    """A test file's part of the test id: its path inside the suites package, else relative to ``rootdir``."""
    resolved = path.resolve()
    if resolved.is_relative_to(suites_root()):
        return resolved.relative_to(suites_root()).as_posix()
    return Path(os.path.relpath(resolved, rootdir.resolve())).as_posix()


def stable_id(item: pytest.Item) -> str:
    """The stable id of ``item`` (see the module docstring)."""
    chain = item.listchain()
    module = item.getparent(pytest.Module)
    if module is None:  # not a Python test (a doctest, a plugin's own item): pytest's node id
        return item.nodeid
    names = [node.name for node in chain[chain.index(module) + 1:]]
    return "::".join([module_key(module.path, item.config.rootpath), *names])


def stable_id_from_nodeid(nodeid: str, rootdir: Path) -> str:
    """The stable id from pytest's node id alone (the controller, for a test it has no metadata of)."""
    path, sep, rest = nodeid.partition("::")
    if not sep or not path.endswith(".py"):
        return nodeid
    return f"{module_key(rootdir / path, rootdir)}::{rest}"


def device_of(item: pytest.Item) -> str | None:
    """The device a test is parametrized with (``ov_device_name``), or None."""
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get("ov_device_name")


def entity_of(item: pytest.Item) -> str:
    mark = item.get_closest_marker("entity")
    return str(mark.args[0]) if mark and mark.args else "other"


def scope_of(item: pytest.Item) -> str:
    return "mandatory" if item.get_closest_marker("mandatory") else "optional"


def meta_of(item: pytest.Item) -> DeviceTest | None:
    """The test's metadata, or None when it is not a device test."""
    device = device_of(item)
    if device is None:
        return None
    return DeviceTest(test_id=stable_id(item), device=device, entity=entity_of(item), scope=scope_of(item))


def unknown_meta(nodeid: str, device: str, rootdir: Path) -> DeviceTest:
    """Metadata of a test the controller never saw collected (no journal to read it from)."""
    return DeviceTest(test_id=stable_id_from_nodeid(nodeid, rootdir), device=device, entity="unknown", scope="optional")


#: The markers of the opt-in suites (perf, the graph fuzz): left out unless ``-m`` names them.
OPT_IN_MARKERS = ("perf", "graphfuzz")


def _perf_opt_out(item: pytest.Item, markexpr: str) -> bool:
    """A test of an opt-in suite (perf, graphfuzz) left out because ``-m`` does not name its marker:
    not a selection by the user, the default run has no such tests either."""
    words = re.findall(r"\w+", markexpr)
    return any(item.get_closest_marker(m) is not None and m not in words for m in OPT_IN_MARKERS)


@dataclass
class Collection:
    """The device tests of one collection.

    ``tests``: pytest node id -> metadata, for the selected device tests (in run order);
    ``unselected``: ``(test id, device)`` of the collected device tests the run did not select;
    ``deselected``: how many of those the selection removed (``-k``, ``-m``, ``--deselect``,
    ``--lf``, a plugin), not counting perf tests left out because the perf suite is opt-in nor
    the tests of other shards (``shard_out``, :mod:`ovconform.reports.shard`).
    """

    tests: dict[str, DeviceTest] = field(default_factory=dict)
    unselected: list[tuple[str, str]] = field(default_factory=list)
    deselected: int = 0
    shard_out: int = 0

    @classmethod
    def of(cls, collected: list[pytest.Item], selected: list[pytest.Item], markexpr: str,
           other_shards: frozenset[str] | set[str] = frozenset()) -> Collection:
        """From every item collected (before any deselection) and the items selected;
        ``other_shards``: the node ids ``--ovconform-shard`` left to the other shards."""
        chosen = {id(item) for item in selected}
        out = cls()
        for item in selected:
            meta = meta_of(item)
            if meta is not None:
                out.tests[item.nodeid] = meta
        for item in collected:
            meta = meta_of(item) if id(item) not in chosen else None
            if meta is not None:
                out.unselected.append((meta["test_id"], meta["device"]))
                if item.nodeid in other_shards:
                    out.shard_out += not _perf_opt_out(item, markexpr)
                else:
                    out.deselected += not _perf_opt_out(item, markexpr)
        return out

    def known(self) -> list[tuple[str, str]]:
        """``(test id, device)`` of every collected device test, selected or not."""
        return [(m["test_id"], m["device"]) for m in self.tests.values()] + self.unselected

    def to_entry(self) -> dict[str, Any]:
        """The journal entry's fields (compact: lists, not one object per test)."""
        return {"tests": [[n, m["test_id"], m["device"], m["entity"], m["scope"]] for n, m in self.tests.items()],
                "unselected": [list(t) for t in self.unselected], "deselected": self.deselected,
                "shard_out": self.shard_out}

    @classmethod
    def from_entry(cls, entry: dict[str, Any]) -> Collection:
        """Read back :meth:`to_entry` (a journal's ``collection`` entry)."""
        tests = {str(n): DeviceTest(test_id=str(t), device=str(d), entity=str(e), scope=str(s))
                 for n, t, d, e, s in entry.get("tests", [])}
        unselected = [(str(t), str(d)) for t, d in entry.get("unselected", [])]
        return cls(tests, unselected, int(entry.get("deselected", 0)), int(entry.get("shard_out", 0)))


__all__ = ["Collection", "DeviceTest", "device_of", "entity_of", "meta_of", "module_key", "scope_of", "suites_root",
           "stable_id", "stable_id_from_nodeid", "unknown_meta"]
