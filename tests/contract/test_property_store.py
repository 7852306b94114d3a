"""The property store (ovconform/contract/property_store.py): what a device declares, what is set
now, and how a bad write is refused; and that ``ovconform.properties`` still exports its names
while the catalogue never needs the store."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from ovconform import Type
from ovconform import properties as P
from ovconform.contract import property_store
from ovconform.contract.property_store import Declared, PropertyStore, resolve_num_streams
from ovconform.errors import PropertyError


def _store() -> PropertyStore:
    return PropertyStore("device 'T'", [
        Declared("PERF_COUNT", False),
        Declared("PERFORMANCE_HINT", "LATENCY"),
        Declared("INFERENCE_PRECISION_HINT", Type.f32, choices=(Type.f32, Type.f16)),
        Declared("NUM_STREAMS", 1, check=lambda v: "at most 4 streams." if v > 4 else None),
    ], read_only=["FULL_DEVICE_NAME", "SUPPORTED_PROPERTIES"])


def test_store_defaults_set_and_get() -> None:
    s = _store()
    assert s.get("PERF_COUNT") is False and s.get("PERFORMANCE_HINT") == "LATENCY"
    s.set({"PERF_COUNT": "YES", "NUM_STREAMS": "2"})
    assert s.get("PERF_COUNT") is True and s.get("NUM_STREAMS") == 2
    assert s.supported() == {"FULL_DEVICE_NAME": "RO", "SUPPORTED_PROPERTIES": "RO", "PERF_COUNT": "RW",
                             "PERFORMANCE_HINT": "RW", "INFERENCE_PRECISION_HINT": "RW", "NUM_STREAMS": "RW"}


def test_store_rejects_unknown_names_listing_supported_ones() -> None:
    with pytest.raises(PropertyError, match=r"Unsupported property 'abc' by device 'T'; supported properties: .*PERF"):
        _store().set({"abc": "def"})
    with pytest.raises(PropertyError, match="Unsupported property 'abc'"):
        _store().get("abc")


def test_store_rejects_writes_to_read_only_properties() -> None:
    with pytest.raises(PropertyError, match="'FULL_DEVICE_NAME' of device 'T' is read-only"):
        _store().set({"FULL_DEVICE_NAME": "x"})


def test_store_device_limits_name_the_supported_values() -> None:
    with pytest.raises(PropertyError, match=re.escape("Wrong value 'bf16' for property 'INFERENCE_PRECISION_HINT'. "
                                                      "Supported values: f32, f16.")):
        _store().set({"INFERENCE_PRECISION_HINT": "bf16"})
    with pytest.raises(PropertyError, match="Wrong value 9 for property 'NUM_STREAMS': at most 4 streams."):
        _store().set({"NUM_STREAMS": 9})


def test_store_writes_are_all_or_nothing() -> None:
    s = _store()
    with pytest.raises(PropertyError):
        s.set({"PERF_COUNT": True, "PERFORMANCE_HINT": -1})
    assert s.get("PERF_COUNT") is False


def test_merged_and_restricted_copies_leave_the_original_alone() -> None:
    s = _store()
    m = s.merged({"PERF_COUNT": True})
    assert m.get("PERF_COUNT") is True and s.get("PERF_COUNT") is False
    r = s.restricted("compiled model 'x'", ["PERF_COUNT"], ["MODEL_NAME"])
    assert r.get("PERFORMANCE_HINT") == "LATENCY"
    assert r.supported()["PERFORMANCE_HINT"] == "RO" and r.supported()["PERF_COUNT"] == "RW"
    with pytest.raises(PropertyError, match="read-only"):
        r.set({"PERFORMANCE_HINT": "THROUGHPUT"})
    r.set({"PERF_COUNT": True})
    assert s.get("PERF_COUNT") is False
    assert r.get_or("NOT_THERE", 7) == 7


def test_store_knows_what_was_set_explicitly() -> None:
    s = _store()
    assert not s.is_explicit("NUM_STREAMS")
    m = s.merged({"NUM_STREAMS": 1})  # the default value, but set: explicit
    assert m.is_explicit("NUM_STREAMS") and not s.is_explicit("NUM_STREAMS")
    s.set({"PERF_COUNT": False})
    assert s.copy().is_explicit("PERF_COUNT") and s.merged({}).is_explicit("PERF_COUNT")
    with pytest.raises(PropertyError):
        s.set({"NUM_STREAMS": 9})
    assert not s.is_explicit("NUM_STREAMS")  # a refused value marks nothing


def test_a_blob_config_goes_under_the_calls_own_properties() -> None:
    """set_unless_given: what import_model gave wins over the blob's values; the rest is set, and
    still validated."""
    s = _store()
    s.set({"PERFORMANCE_HINT": "THROUGHPUT"})  # a plugin-level value is not the call's: the blob beats it
    m = s.merged({"PERF_COUNT": True})
    m.set_unless_given({"PERF_COUNT": False, "PERFORMANCE_HINT": "LATENCY"})
    assert m.get("PERF_COUNT") is True and m.get("PERFORMANCE_HINT") == "LATENCY"
    with pytest.raises(PropertyError, match="NOT_THERE"):
        m.set_unless_given({"NOT_THERE": 1})
    plain = s.copy()  # a store not made by merged() gave nothing
    plain.set_unless_given({"PERF_COUNT": True})
    assert plain.get("PERF_COUNT") is True


def test_store_needs_a_mapping() -> None:
    with pytest.raises(PropertyError, match="must be a mapping"):
        _store().set([("PERF_COUNT", True)])  # type: ignore[arg-type]


@pytest.mark.parametrize("streams,hint,expected", [
    (3, "LATENCY", 3), (0, "THROUGHPUT", 1), (P.STREAMS_AUTO, "LATENCY", 1),
    (P.STREAMS_AUTO, "THROUGHPUT", 2), (P.STREAMS_NUMA, "CUMULATIVE_THROUGHPUT", 2),
])
def test_resolve_num_streams(streams: int, hint: str, expected: int) -> None:
    assert resolve_num_streams(streams, P.PerformanceMode(hint), cpu_count=2) == expected


def test_the_store_names_are_still_importable_from_properties() -> None:
    from ovconform.properties import Declared as D
    from ovconform.properties import PropertyStore as S
    from ovconform.properties import resolve_num_streams as r

    assert (D, S, r) == (Declared, PropertyStore, resolve_num_streams)
    assert {"Declared", "PropertyStore", "resolve_num_streams"} <= set(dir(P))
    assert set(property_store.__all__) == {"Declared", "PropertyStore", "resolve_num_streams"}
    with pytest.raises(AttributeError, match="'ovconform.properties' has no attribute 'NOT_A_NAME'"):
        P.NOT_A_NAME  # noqa: B018


@pytest.mark.parametrize("first", ["ovconform.properties", "ovconform.contract.property_store"])
def test_either_module_imports_first_and_the_catalogue_never_loads_the_store(first: str) -> None:
    """The store builds on the catalogue, never the other way round: ``ovconform.properties`` alone
    does not load the store (its re-export waits for first use), and a fresh interpreter can import
    either module first."""
    code = (f"import sys, {first}\n"
            "loaded = 'ovconform.contract.property_store' in sys.modules\n"
            "from ovconform.properties import PropertyStore, NUM_STREAMS\n"
            "print(loaded, PropertyStore.__module__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(first.endswith("property_store")), "ovconform.contract.property_store"]
