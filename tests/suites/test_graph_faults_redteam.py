"""The pattern catalogue, the quick decoder and the weightless-blob suite catch the devices of
``tests/plugins/graph_faults_redteam.py`` (a red team's faults that passed the whole default run).

One pytest run (from a temporary folder, the installed suites, ``-k`` narrowed to the patterns, the
decoder and the blob test that target them) tests REFERENCE and each fault: REFERENCE passes every
selected test, each fault fails exactly the tests of :data:`EXPECTED`, with status "failed".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import by_test, once_per_session, run_devices
from plugins import graph_faults_redteam as faults

from ovconform import models

FAIL = ("failed", "error", "crashed", "hanged")
STATIC, DYNAMIC = ("static",), ("static", "dynamic")
#: The patterns (and the decoder) this run selects.
PATTERNS = ("conv_add_grid", "conv_scale_grid", "bias_shared_by_activation", "convert_round_trip_f16",
            "convert_round_trip_i32", "unused_leading_input", "input_passthrough")
DECODER = "llama_decoder_i4"


def _patterns(*pairs: tuple[str, tuple[str, ...]]) -> set[str]:
    return {f"test_graph_pattern[{p}-{v}]" for p, variants in pairs for v in variants}


#: The decoder whose prefill passes two KV-cache pages, and the weightless-blob test that infers twice.
DECODER_TEST, BLOB_TEST = f"test_real_model[{DECODER}]", "test_compile_from_regular_blob[]"

#: fault class -> the tests (device left out of the parameters) it must fail, and nothing else in this run.
EXPECTED: dict[str, set[str]] = {
    "ConvAddConstAsChannelBias": _patterns(("conv_add_grid", DYNAMIC)),
    "ConvMultiplyFoldedPerChannel": _patterns(("conv_scale_grid", DYNAMIC)),
    "ActivationFusedIntoSharedBias": _patterns(("bias_shared_by_activation", DYNAMIC)),
    "ConvertRoundTripEliminated": _patterns(("convert_round_trip_f16", DYNAMIC),
                                            ("convert_round_trip_i32", DYNAMIC)),
    "UnusedParameterShiftsInputs": _patterns(("unused_leading_input", DYNAMIC)),
    "IdentityOutputBoundOnce": _patterns(("input_passthrough", DYNAMIC)),
    # the constant's shape is the output's in the static variant only, and its second inference shows
    "ConstantOverwrittenInPlace": _patterns(("conv_add_grid", STATIC), ("conv_scale_grid", STATIC)) | {BLOB_TEST},
    "KvCacheSecondPageAliased": {DECODER_TEST},
}


def _test_id(record_key: str, device: str) -> str:
    """``test_graph_pattern[DEV-p-v]`` -> ``test_graph_pattern[p-v]``, ``test_x[a-DEV]`` -> ``test_x[a]``
    (device names hold no "-")."""
    name, _, params = record_key.partition("[")
    return f"{name}[{'-'.join(p for p in params.rstrip(']').split('-') if p != device)}]"


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"graph_faults_redteam:{name}" for name in faults.FAULTS]]
    selection = (f"(test_graph_pattern and ({' or '.join(PATTERNS)})) or (test_real_model and {DECODER}) "
                 f"or {BLOB_TEST[:-2]}")
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", selection)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "graph_faults_redteam_runs", _run)


def test_reference_passes_every_selected_test(runs: dict[str, Any]) -> None:
    records = runs["REFERENCE"]
    assert {_test_id(k, "REFERENCE") for k in records} == (_patterns(*[(p, DYNAMIC) for p in PATTERNS])
                                                           | {DECODER_TEST, BLOB_TEST})
    bad = {k: r["message"][:300] for k, r in records.items() if r["status"] != "passed"}
    assert not bad


@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_each_fault_fails_its_tests_only(runs: dict[str, Any], fault: str) -> None:
    device = getattr(faults, fault).device_name
    failed = {_test_id(k, device): r for k, r in runs[device].items() if r["status"] in FAIL}
    assert set(failed) == EXPECTED[fault], {k: r["message"][:300] for k, r in failed.items()}
    assert all(r["status"] == "failed" for r in failed.values())


def test_every_fault_is_covered_and_the_decoder_passes_two_cache_pages() -> None:
    assert set(EXPECTED) == set(faults.FAULTS)
    arch = models.get(DECODER)
    prefill = arch.make_steps(arch.build())[0]["input_ids"].shape[1]
    assert prefill > 2 * faults.PAGE
