"""Hostile blobs and documents under hypothesis: ``import_model`` of REFERENCE and ``read_model``.

Every case must end in the documented error — ``ImportModelError`` for import_model (and not one
wrapping a bug: an IndexError, KeyError, TypeError, MemoryError, ... that is not itself an
ovconform error), ``ReadModelError`` for read_model — or in a valid result, within
:data:`SECONDS_PER_CASE` and with a traced memory peak (tracemalloc; numpy's buffers included)
under :data:`PEAK_BYTES`. The cases run in a child process whose address space is limited
(:data:`CHILD_ADDRESS_SPACE`, so a runaway allocation is a failing case, not a machine out of
memory) and each under an interval timer (:data:`CASE_HARD_LIMIT_S`, so a loop is a failing case,
not a stalled run).

Families (each a hypothesis test, derandomized so CI sees the same cases every run):

* random bytes, and random bytes behind the REFERENCE magic;
* byte-level mutations of real exported blobs (flip, insert, delete, truncate, splice) — mostly
  refused by the checksum;
* *re-sealed* mutations: unpack a real blob, damage one part (header JSON, device, architecture,
  config values, format version, model XML, weights), pack it again with a valid checksum, so
  the damage reaches the parser behind the checksum;
* forged section sizes (up to 2**64 - 1) that must be refused before anything is allocated;
* read_model: random bytes and text, and byte/attribute mutations of real IR documents.

CI runs :data:`CI_EXAMPLES` cases per family (1,400 in all); ``-m slow`` runs
:data:`LONG_EXAMPLES` per family (over 10,000) in ``test_long_fuzz``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import resource
import signal
import struct
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ovconform import Core, read_model, serialize
from ovconform.errors import ImportModelError, OVConformError, ReadModelError
from ovconform.suites import _models
from reference_plugin._blob import MAGIC, Blob, pack, unpack

CI_EXAMPLES = 200
LONG_EXAMPLES = 1500
SECONDS_PER_CASE = 2.0
PEAK_BYTES = 64 * 1024 * 1024
CASE_HARD_LIMIT_S = 10.0  # the timer's limit: a case stuck in a loop fails instead of stalling the run
#: The child's address-space limit: an allocation beyond it is a MemoryError (a failing case),
#: never the machine's memory.
CHILD_ADDRESS_SPACE = 4 * 1024**3
HERE = Path(__file__).resolve().parent
#: Exceptions that mean a bug in a parser, even when a caller wrapped them in the documented error.
BUG_TYPES = (IndexError, KeyError, TypeError, AttributeError, ZeroDivisionError, AssertionError, RecursionError,
             NameError, OverflowError, MemoryError)
DEVICE = "REFERENCE"


def _corpus() -> list[bytes]:
    core = Core()
    models = [_models.build(name) for name in ("relu", "matmul_bias", "kso", "split_conv_concat")]
    models.append(_models.state_model())
    return [bytes(core.compile_model(m, DEVICE).export_model()) for m in models]


CORE = Core()
BLOBS = _corpus()
DOCS = [serialize(_models.build(name)) for name in ("relu", "matmul_bias", "kso")]


@dataclasses.dataclass
class Tally:
    """Outcomes of one family, and the slowest / largest case seen."""

    outcomes: dict[str, int] = dataclasses.field(default_factory=lambda: {"accepted": 0, "refused": 0})
    slowest_s: float = 0.0
    peak_bytes: int = 0


TALLIES: dict[str, Tally] = {}


def _bounded(family: str, fn: Callable[[], Any], refused: type[Exception], label: str) -> None:
    """Run one case: documented outcome, bounded time, bounded traced memory."""
    tally = TALLIES.setdefault(family, Tally())
    tracemalloc.start()  # traced around the call only (tracing hypothesis too would triple the cost)
    signal.setitimer(signal.ITIMER_REAL, CASE_HARD_LIMIT_S)  # the child process's handler raises CaseTimeout
    start = time.perf_counter()
    try:
        fn()
        tally.outcomes["accepted"] += 1
    except refused as e:
        tally.outcomes["refused"] += 1
        cause = e.__cause__
        assert not isinstance(cause, BUG_TYPES) or isinstance(cause, OVConformError), (
            f"{label}: {type(e).__name__} wraps a stray {type(cause).__name__} (a bug, not a refusal): {cause}")
    except Exception as e:  # noqa: BLE001 - anything else is the bug this test looks for
        raise AssertionError(f"{label}: {type(e).__name__} ({e}), but should be {refused.__name__}") from e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    tally.slowest_s, tally.peak_bytes = max(tally.slowest_s, elapsed), max(tally.peak_bytes, peak)
    assert elapsed < SECONDS_PER_CASE, f"{label}: took {elapsed:.2f} s (limit {SECONDS_PER_CASE})"
    assert peak < PEAK_BYTES, f"{label}: traced memory peak {peak} bytes (limit {PEAK_BYTES})"


def _import(family: str, blob: bytes, label: str) -> None:
    _bounded(family, lambda: CORE.import_model(blob, DEVICE), ImportModelError, label)


def _read(family: str, xml: bytes | str, weights: bytes | None, label: str) -> None:
    _bounded(family, lambda: read_model(xml, weights), ReadModelError, label)


# -- strategies ----------------------------------------------------------------------------------------

JUNK_TEXT = ["", "-1", "0", "99999999999999999999", "nan", "?", "REFERENCE", "TEMPLATE", "f32", "x" * 500, "\u00e9",
             "{", "}", "null", "[]", "\x00", "1..", "LATENCY", "THROUGHPUT", "YES", "NO", "-", "1e308"]


def _mutate_bytes(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    if not data:
        chunk = draw(st.binary(min_size=1, max_size=16))
        return chunk, f"empty, then {chunk!r}"
    kind = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "splice", "zero"]))
    pos = draw(st.integers(0, max(0, len(data) - 1)))
    if kind == "flip":
        bit = draw(st.integers(0, 7))
        return data[:pos] + bytes([data[pos] ^ (1 << bit)]) + data[pos + 1:], f"flip bit {bit} at {pos}"
    if kind == "insert":
        chunk = draw(st.binary(min_size=1, max_size=16))
        return data[:pos] + chunk + data[pos:], f"insert {chunk!r} at {pos}"
    if kind == "delete":
        n = draw(st.integers(1, 64))
        return data[:pos] + data[pos + n:], f"delete {n} at {pos}"
    if kind == "truncate":
        return data[:pos], f"truncate at {pos}"
    if kind == "zero":
        n = draw(st.integers(1, 64))
        return data[:pos] + bytes(min(n, len(data) - pos)) + data[pos + n:], f"zero {n} at {pos}"
    other = draw(st.sampled_from(BLOBS))
    cut = draw(st.integers(0, len(other)))
    return data[:pos] + other[cut:], f"splice another blob from {cut} at {pos}"


def _junk_value(draw: st.DrawFn) -> Any:
    return draw(st.one_of(st.sampled_from(JUNK_TEXT), st.text(max_size=20), st.integers(-2**70, 2**70),
                          st.none(), st.booleans(), st.lists(st.integers(), max_size=3),
                          st.dictionaries(st.text(max_size=5), st.integers(), max_size=2)))


def _damage_xml(draw: st.DrawFn, xml: bytes) -> tuple[bytes, str]:
    text = xml.decode()
    attrs = list(re.finditer(r'(\w+)="([^"]*)"', text))
    if attrs and draw(st.booleans()):
        m = draw(st.sampled_from(attrs))
        junk = str(_junk_value(draw)).replace('"', "&quot;").replace("<", "&lt;").replace("&", "&amp;")
        return (text[:m.start(2)] + junk + text[m.end(2):]).encode(), f"xml {m.group(1)}={junk[:40]!r}"
    data, what = _mutate_bytes(draw, xml)
    return data, f"xml {what}"


@st.composite
def resealed_blobs(draw: st.DrawFn) -> tuple[bytes, str]:
    """A real blob with one part damaged, packed again with a valid checksum."""
    blob = unpack(draw(st.sampled_from(BLOBS)))
    part = draw(st.sampled_from(["device", "architecture", "config", "config_value", "producer", "version",
                                 "xml", "weights", "header"]))
    if part in ("device", "architecture", "producer"):
        value = draw(st.one_of(st.sampled_from(JUNK_TEXT), st.text(max_size=30)))
        return pack(dataclasses.replace(blob, **{part: value})), f"{part}={value[:40]!r}"
    if part == "config":
        config = draw(st.dictionaries(st.sampled_from([*blob.config, *JUNK_TEXT]), st.sampled_from(JUNK_TEXT),
                                      max_size=6))
        return pack(dataclasses.replace(blob, config=config)), f"config={config}"
    if part == "config_value":
        key = draw(st.sampled_from(sorted(blob.config)))
        value = draw(st.sampled_from(JUNK_TEXT))
        return pack(dataclasses.replace(blob, config={**blob.config, key: value})), f"config {key}={value[:40]!r}"
    if part == "version":
        version = draw(st.integers(0, 2**32 - 1))
        return pack(dataclasses.replace(blob, format_version=version)), f"format version {version}"
    if part == "xml":
        xml, what = _damage_xml(draw, blob.xml)
        return pack(dataclasses.replace(blob, xml=xml)), what
    if part == "weights":
        weights, what = _mutate_bytes(draw, blob.weights) if blob.weights else (b"\x01", "weights added")
        return pack(dataclasses.replace(blob, weights=weights)), f"weights {what}"
    header = draw(st.one_of(st.binary(max_size=64), st.builds(lambda v: repr(v).encode(), st.just(None)),
                            st.sampled_from([b"[]", b"{}", b'{"device": 1}', b"\xff\xfe", b"null", b"1e999"])))
    return _raw_blob(blob, header=header), f"header={header[:40]!r}"


def _header_bytes(blob: Blob) -> bytes:
    """The header section :func:`pack` writes (magic 8 + version 4 + size 4, then the header)."""
    data = pack(blob)
    (size,) = struct.unpack("<I", data[12:16])
    return data[16:16 + size]


def _raw_blob(blob: Blob, header: bytes | None = None, sizes: tuple[int, int, int] | None = None) -> bytes:
    """A blob written by hand (valid checksum) with this header and these section size fields."""
    import hashlib

    header = _header_bytes(blob) if header is None else header
    parts = (header, blob.xml, blob.weights)
    sizes = sizes or (len(header), len(blob.xml), len(blob.weights))
    body = b"".join([MAGIC, struct.pack("<I", 1), struct.pack("<I", sizes[0]), header,
                     struct.pack("<Q", sizes[1]), parts[1], struct.pack("<Q", sizes[2]), parts[2]])
    return body + hashlib.sha256(body).digest()


@st.composite
def forged_sizes(draw: st.DrawFn) -> tuple[bytes, str]:
    blob = unpack(draw(st.sampled_from(BLOBS)))
    header = _header_bytes(blob)
    big = st.one_of(st.integers(0, 2**16), st.sampled_from([2**31, 2**32 - 1, 2**40, 2**63, 2**64 - 1]))
    sizes = (draw(st.one_of(st.integers(0, 2**16), st.sampled_from([2**31, 2**32 - 1]))), draw(big), draw(big))
    return _raw_blob(blob, header=header, sizes=sizes), f"section sizes {sizes}"


@st.composite
def mutated_blobs(draw: st.DrawFn) -> tuple[bytes, str]:
    data = draw(st.sampled_from(BLOBS))
    steps = []
    for _ in range(draw(st.integers(1, 3))):
        data, what = _mutate_bytes(draw, data)
        steps.append(what)
    return data, " then ".join(steps)


@st.composite
def mutated_docs(draw: st.DrawFn) -> tuple[bytes, bytes, str]:
    xml, weights = draw(st.sampled_from(DOCS))
    if draw(st.booleans()):
        xml, what = _damage_xml(draw, xml)
    else:
        weights, what = _mutate_bytes(draw, weights) if weights else (weights, "nothing")
        what = f"weights {what}"
    return xml, weights, what


FAMILIES: dict[str, tuple[st.SearchStrategy[Any], Callable[[str, Any], None]]] = {
    "import: random bytes": (st.binary(max_size=512), lambda f, b: _import(f, b, f"random {b[:40]!r}")),
    "import: random bytes after the magic": (
        st.binary(max_size=512).map(lambda b: MAGIC + b), lambda f, b: _import(f, b, f"magic + {b[8:48]!r}")),
    "import: mutated blobs": (mutated_blobs(), lambda f, c: _import(f, c[0], c[1])),
    "import: re-sealed blobs": (resealed_blobs(), lambda f, c: _import(f, c[0], c[1])),
    "import: forged section sizes": (forged_sizes(), lambda f, c: _import(f, c[0], c[1])),
    "read_model: random bytes or text": (
        # text must start with "<" to be read as a document (any other str is a path)
        st.one_of(st.binary(max_size=512), st.text(max_size=256).map(lambda t: "<" + t)),
        lambda f, x: _read(f, x, None, f"random {x!r:.60}")),
    "read_model: mutated documents": (mutated_docs(), lambda f, c: _read(f, c[0], c[1], c[2])),
}


def _run_family(family: str, examples: int) -> Tally:
    strategy, check = FAMILIES[family]
    TALLIES.pop(family, None)

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), print_blob=True)
    @given(strategy)
    def case(value: Any) -> None:
        check(family, value)

    case()
    return TALLIES[family]


# -- the child process: every case bounded in memory (RLIMIT_AS) and time (an interval timer) -------

class CaseTimeout(BaseException):
    """Raised by the timer in a case that runs too long (a BaseException: no parser may swallow it)."""


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise CaseTimeout(f"a case ran over {CASE_HARD_LIMIT_S} s")


def _child_main(examples: int) -> None:
    """Run every family in this (memory-limited) process; print one JSON line of results."""
    signal.signal(signal.SIGALRM, _on_alarm)
    results: dict[str, Any] = {}
    for family in FAMILIES:
        start = time.perf_counter()
        try:
            tally = _run_family(family, examples)
            results[family] = {"tally": dataclasses.asdict(tally), "error": None}
        except BaseException as e:  # noqa: BLE001 - reported per family by the parent
            results[family] = {"tally": dataclasses.asdict(TALLIES.get(family, Tally())),
                               "error": f"{type(e).__name__}: {str(e)[:3000]}"}
        results[family]["seconds"] = round(time.perf_counter() - start, 2)
    print("FUZZ " + json.dumps(results), flush=True)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))


def _fuzz_in_child(examples: int, timeout: float, hash_seed: str | None = "0") -> dict[str, Any]:
    """Run the families in a child. ``hash_seed`` fixes PYTHONHASHSEED, so the derandomized cases
    are the same in every CI run; the long run passes None (each run explores other cases)."""
    code = f"import sys; sys.path.insert(0, {str(HERE)!r}); import test_fuzz_import as T; T._child_main({examples})"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, check=False,
                          preexec_fn=_limit_memory, cwd=HERE, env=env)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("FUZZ ")), None)
    assert line is not None, f"the fuzz child exited {proc.returncode}: {proc.stderr[-3000:]}"
    return dict(json.loads(line.removeprefix("FUZZ ")))


def _check(result: dict[str, Any], examples: int) -> None:
    assert result["error"] is None, result["error"]
    outcomes = result["tally"]["outcomes"]
    assert sum(outcomes.values()) >= examples * 0.9 and outcomes["refused"] > 0, result


@pytest.fixture(scope="module")
def ci_results() -> dict[str, Any]:
    return _fuzz_in_child(CI_EXAMPLES, timeout=600)


@pytest.mark.timeout(660)
@pytest.mark.skipif(sys.platform == "win32", reason="needs resource.RLIMIT_AS and SIGALRM")
@pytest.mark.parametrize("family", list(FAMILIES))
def test_fuzz(ci_results: dict[str, Any], family: str) -> None:
    _check(ci_results[family], CI_EXAMPLES)
    print(f"{family}: {ci_results[family]}")


def test_ci_runs_over_a_thousand_cases() -> None:
    assert CI_EXAMPLES * len(FAMILIES) >= 1000 and LONG_EXAMPLES * len(FAMILIES) >= 10_000


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_long_fuzz(request: pytest.FixtureRequest) -> None:
    """The opt-in long run: ``pytest -m slow tests/test_fuzz_import.py``."""
    if "slow" not in (request.config.option.markexpr or ""):
        pytest.skip("opt-in long run: select it with -m slow")
    results = _fuzz_in_child(LONG_EXAMPLES, timeout=3500, hash_seed=None)
    for family, result in results.items():
        print(f"{family}: {result}")
    problems = {f: r["error"][:800] for f, r in results.items() if r["error"]}
    assert not problems, problems
    for result in results.values():
        _check(result, LONG_EXAMPLES)


def test_a_real_blob_imports_and_infers() -> None:
    """The corpus is valid: every blob imports and its model infers (so refusals are the mutations')."""
    for blob in BLOBS:
        compiled = CORE.import_model(blob, DEVICE)
        model = compiled.get_runtime_model()
        request = compiled.create_infer_request()
        request.infer({p.get_friendly_name(): np.ones(p.get_output_shape(0), p.get_output_element_type(0).to_dtype())
                       for p in model.get_parameters()})
        assert len(request.output_tensors) == len(compiled.outputs)



MAX_SANE_STREAMS = 1024


# found by the long fuzz run: NUM_STREAMS had no upper bound, so a blob asking for 10**20 streams
# allocated per-stream objects until memory ran out; it is now refused above MAX_NUM_STREAMS.
def test_num_streams_is_bounded() -> None:
    """A compile config asking for 100,000 streams is refused, or capped to a sane number; 10**20
    (what the fuzzer put in a blob's config) then cannot exhaust memory either. 10**5 is used here
    because it is cheap today (under a second); 10**20 is not."""
    try:
        compiled = CORE.compile_model(_models.build("relu"), DEVICE, {"NUM_STREAMS": 10**5})
    except MemoryError:
        raise
    except OVConformError:
        return  # refused
    streams = compiled.get_property("NUM_STREAMS")
    assert int(streams) <= MAX_SANE_STREAMS, f"NUM_STREAMS={streams}, but should be <= {MAX_SANE_STREAMS} (or refused)"
