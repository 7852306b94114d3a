"""The weight-decompression patterns ``decompress_u4_scalar_zp``, ``decompress_f8e4m3`` and
``decompress_f8e5m2`` (:mod:`ovconform.graphs.patterns`) catch the graph devices of
``tests/plugins/stimulus_faults_types.py`` (a red team's faults, round 3, that passed the whole default
run): a fused matcher that drops a scalar zero point, an f8 unpacker that flushes subnormal codes.

One pytest run (from a temporary folder, the installed suites, ``-k`` narrowed to the decompression
patterns) tests REFERENCE and each fault: REFERENCE passes every selected test, each fault fails exactly
the tests of :data:`EXPECTED` (both variants), with status "failed".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import by_test, once_per_session, run_devices
from plugins import stimulus_faults_types as faults

from ovconform.graphs import patterns

FAIL = ("failed", "error", "crashed", "hanged")
VARIANTS = ("static", "dynamic")
#: The patterns this run selects: the new ones and the decompressions next to them.
PATTERNS = ("decompress_u8", "decompress_u4", "decompress_i4", "decompress_u4_scalar_zp", "decompress_f8e4m3",
            "decompress_f8e5m2")


def _patterns(*names: str) -> set[str]:
    return {f"test_graph_pattern[{p}-{v}]" for p in names for v in VARIANTS}


#: fault class -> the tests (device left out of the parameters) it must fail, and nothing else in this run.
EXPECTED: dict[str, set[str]] = {
    "DecompressionIgnoresScalarZeroPoint": _patterns("decompress_u4_scalar_zp"),
    "F8DecompressionFlushesSubnormals": _patterns("decompress_f8e4m3", "decompress_f8e5m2"),
}


def _test_id(record_key: str, device: str) -> str:
    """``test_graph_pattern[DEV-p-v]`` -> ``test_graph_pattern[p-v]`` (device names hold no "-")."""
    name, _, params = record_key.partition("[")
    return f"{name}[{'-'.join(p for p in params.rstrip(']').split('-') if p != device)}]"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"stimulus_faults_types:{name}" for name in faults.GRAPH_FAULTS]]
    selection = f"test_graph_pattern and ({' or '.join(f'-{p}-' for p in PATTERNS)})"
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", selection)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "graph_faults_types_runs", _run)


def test_the_new_patterns_reach_what_the_faults_miss() -> None:
    scalar = patterns.build("decompress_u4_scalar_zp").model
    zp = [n for n in scalar.get_ordered_ops() if n.friendly_name == "w_zero_point"]
    assert zp and list(zp[0].get_output_partial_shape(0).to_shape()) == []
    for et_name in ("f8e4m3", "f8e5m2"):
        model = patterns.build(f"decompress_{et_name}").model
        (w,) = [n for n in model.get_ordered_ops() if n.friendly_name == "w_compressed"]
        codes = np.asarray(w.data).view(np.uint8)
        exponent = (codes >> (3 if et_name == "f8e4m3" else 2)) & (0xF if et_name == "f8e4m3" else 0x1F)
        subnormal = (exponent == 0) & ((codes & 0x7F) != 0)
        assert 0.4 < subnormal.mean() < 0.6 and exponent.max() <= 2, et_name


def test_reference_passes_every_selected_test(runs: dict[str, Any]) -> None:
    records = runs["REFERENCE"]
    assert {_test_id(k, "REFERENCE") for k in records} == _patterns(*PATTERNS)
    bad = {k: r["message"][:300] for k, r in records.items() if r["status"] != "passed"}
    assert not bad


@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_each_fault_fails_its_tests_only(runs: dict[str, Any], fault: str) -> None:
    device = getattr(faults, fault).device_name
    failed = {_test_id(k, device): r for k, r in runs[device].items() if r["status"] in FAIL}
    assert set(failed) == EXPECTED[fault], {k: r["message"][:300] for k, r in failed.items()}
    for record in failed.values():
        assert record["status"] == "failed"
        assert record["message"].startswith("Failed: declared supported but failed: graph 'decompress_"), \
            record["message"][:400]


def test_every_graph_fault_is_covered() -> None:
    assert set(EXPECTED) == set(faults.GRAPH_FAULTS)
