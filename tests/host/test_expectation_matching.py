"""Which entry of an expectation file a test id matches: the same answer as matching every entry's
pattern with fnmatch (plus equality and the ``pattern::`` prefix), found without trying each
pattern on each id. A run of the suites on OpenVINO CPU matched 13,347 ids against 367 entries with
fnmatch in 8 s per process (each xdist worker at collection, and the controller again at the end)."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ovconform.host import expectations as ex
from ovconform.host.expectations import Entry, Expectations, parse_lines, required_text

ROOT = Path(__file__).resolve().parents[2]


def _plain_find(entries: list[Entry], test_id: str, device: str | None) -> Entry | None:
    """The definition, entry by entry (the first that matches)."""
    for e in entries:
        if e.device is not None and device is not None and e.device.upper() != device.upper():
            continue
        if e.when and not e.applies_to(device):
            continue
        bare = test_id.split("[", 1)[0]
        if any(fnmatch.fnmatchcase(n, e.pattern) or n == e.pattern or n.startswith(e.pattern + "::")
               for n in (test_id, bare)):
            return e
    return None


@pytest.mark.parametrize(("pattern", "text"), [
    ("t.py::test_a", "t.py::test_a"),
    ("*::test_op_inference?Pad-12-case2-*", "Pad-12-case2-"),
    ("*::test_graph_pattern?*-fq_conv-*", "-fq_conv-"),
    ("*t.py::test_a[[]x*", "x"),          # a class [[] then literal x
    ("*t.py::test_a[!ab]*", "t.py::test_a"),  # the class is no literal
    ("*t.py::test_[]a]bc", "bc"),        # ']' first in a class is inside it
    ("*t.py::test_[!]x]yz", "yz"),       # and after its '!'
    ("*t.py::test_a[x", "t.py::test_a[x"),  # no closing ']': a literal '['
    ("*", ""),
])
def test_the_required_text_is_literal_text_outside_wildcards_and_classes(pattern: str, text: str) -> None:
    assert required_text(pattern) == text


def test_the_bundled_file_marks_the_same_tests_as_fnmatch_on_a_whole_run() -> None:
    """Every id of the committed openvino-CPU report against the bundled file, each entry's
    condition taken as holding: the same entry as the plain definition, for every id."""
    entries = ex.load_file(ROOT / "suites" / "expectations" / "openvino-CPU.txt")
    for e in entries:
        e.holds_on["OPENVINO-CPU"] = True
    records = json.loads((ROOT / "reports" / "openvino-CPU" / "conformance.json").read_text())["records"]
    ids = [(r["nodeid"], r["device"]) for r in records]
    expectations = Expectations(entries)
    got = [expectations.find(i, d) for i, d in ids]
    assert got == [_plain_find(entries, i, d) for i, d in ids]
    assert sum(g is not None for g in got) > 300  # the file does mark that run's known failures


def test_matching_tries_fnmatch_only_on_ids_that_contain_the_entry_text(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = fnmatch.fnmatchcase

    def counted(name: str, pattern: str) -> bool:
        calls.append(pattern)
        return real(name, pattern)

    monkeypatch.setattr(ex.fnmatch, "fnmatchcase", counted)
    lines = [f"*::test_op_inference?Op{i}-1-case{j}-*  # reason" for i in range(30) for j in range(10)]
    expectations = Expectations(parse_lines(lines, "exp.txt"))
    ids = [f"test_op_conformance.py::test_op_inference[Op{i}-1-case{j}-DEV]" for i in range(100) for j in range(10)]
    found = [expectations.find(i, "DEV") for i in ids]
    assert sum(f is not None for f in found) == 300
    # 1,000 ids x 300 entries would be 600,000 calls; only ids holding an entry's text get any
    assert len(calls) <= 2 * 2 * len(ids)


_ALPHABET = "ab:[]!*?-_.x"


def _an_id_near(pattern: str, data: st.DataObject) -> str:
    """A test id made from ``pattern``: its wildcards and classes replaced by drawn text (so it
    often matches), sometimes with a parameter list or a ``::`` tail after it."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        i += 1
        if c == "*":
            out.append(data.draw(st.text(_ALPHABET, max_size=3)))
        elif c in "?[":
            out.append(data.draw(st.sampled_from(_ALPHABET)))
            if c == "[" and data.draw(st.booleans()):
                close = pattern.find("]", i + 1)
                i = close + 1 if close >= 0 else i  # skip the class (or keep reading a lone '[')
        else:
            out.append(c)
    return "".join(out) + data.draw(st.sampled_from(["", "[a-DEV]", "::x", "x"]))


@settings(max_examples=600, deadline=None)
@given(patterns=st.lists(st.text(_ALPHABET, min_size=1, max_size=8), min_size=1, max_size=6), data=st.data())
def test_find_agrees_with_the_definition_on_any_patterns(patterns: list[str], data: st.DataObject) -> None:
    entries = [Entry(p, "reason", f"exp.txt:{n}") for n, p in enumerate(patterns, 1)]
    expectations = Expectations(entries)
    ids = [data.draw(st.text(_ALPHABET, max_size=14))] + [_an_id_near(p, data) for p in patterns]
    for test_id in ids:
        assert expectations.find(test_id, "DEV") is _plain_find(entries, test_id, "DEV"), test_id
