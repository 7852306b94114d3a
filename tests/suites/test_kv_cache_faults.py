"""The KV-cache suite (``suites/test_infer_request_kv_cache.py``) catches the devices of
``tests/plugins/kv_cache_faults.py`` (a red team's stateful-decoding faults that passed the whole
default run, and two attention faults only the decoder's tolerance caught).

One pytest run (from a temporary folder, the installed suites, ``-k`` narrowed to the KV-cache
module) tests REFERENCE and each fault: REFERENCE passes every test of the module, each fault
fails exactly the tests of :data:`EXPECTED`, with status "failed"; the two controls skip (a device
without ReadValue/Assign: every test, naming the ops; a static-only device: the tests of dynamic models).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _session import by_test, once_per_session, run_devices
from plugins import kv_cache_faults as faults

from ovconform.suites import test_infer_request_kv_cache as suite

MODULE = "test_infer_request_kv_cache"
FAIL = ("failed", "error", "crashed", "hanged")

RESET, REQUESTS, ROLLBACK = ("test_reset_state_empties_the_kv_cache", "test_requests_keep_their_own_kv_cache",
                             "test_set_state_rolls_the_kv_cache_back")
CHUNK, PAGES, RECOMPILE = ("test_multi_token_step_extends_the_kv_cache", "test_decode_past_64_and_128_cached_tokens",
                           "test_recompiled_model_starts_with_an_empty_kv_cache")
BATCH, INIT = "test_batched_grouped_query_kv_cache", "test_read_value_initializer_from_a_parameter"
#: The tests that run the decoder (grouped-query attention in every layer).
DECODER = {RESET, REQUESTS, ROLLBACK, CHUNK, PAGES, RECOMPILE}

#: fault class -> the tests (device left out of the parameters) it must fail, and nothing else in this run.
EXPECTED: dict[str, set[str]] = {
    "KvResetKeepsCache": {RESET},
    # the long-decode test's second request is created after the first has run: it shares that cache too
    "KvCacheSharedBetweenRequests": {REQUESTS, PAGES},
    "KvSetStateNoTruncate": {ROLLBACK},
    "ChunkedPrefillIgnoresCache": {CHUNK},
    "DecodePageNotMapped": {PAGES},
    "KvAppendFirstBatchRowOnly": {BATCH},
    "ReadValueInitEvaluatedOnce": {INIT},
    # a request created after another has run (of the same or a new compiled model) starts from its cache
    "KvPoolSurvivesRecompile": {REQUESTS, PAGES, RECOMPILE},
    "SdpaDefaultScaleFromValueDim": {BATCH},  # the only attention here whose value head size is not the key's
    "GqaHeadsTiled": DECODER | {BATCH},
}


def _run(workdir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    specs = ["reference", *[f"kv_cache_faults:{name}" for name in (*faults.FAULTS, *faults.CONTROLS)]]
    docs = run_devices(workdir, specs, "-p", "no:xdist", "-k", MODULE)
    return {name: by_test(doc) for name, doc in docs.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "kv_cache_faults_runs", _run)


def _test_name(record_key: str) -> str:
    return record_key.partition("[")[0]


def _module_tests() -> set[str]:
    return {name for name in vars(suite) if name.startswith("test_")}


def test_reference_passes_every_test_of_the_module(runs: dict[str, Any]) -> None:
    records = runs["REFERENCE"]
    assert {_test_name(k) for k in records} == _module_tests()
    bad = {k: r["message"][:300] for k, r in records.items() if r["status"] != "passed"}
    assert not bad


@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_each_fault_fails_its_tests_only(runs: dict[str, Any], fault: str) -> None:
    device = getattr(faults, fault).device_name
    assert {_test_name(k) for k in runs[device]} == _module_tests()
    failed = {_test_name(k): r for k, r in runs[device].items() if r["status"] in FAIL}
    assert set(failed) == EXPECTED[fault], {k: r["message"][:300] for k, r in failed.items()}
    assert all(r["status"] == "failed" for r in failed.values())
    assert all(f"[{device}." in r["message"] for r in failed.values())  # the message names the call


def test_a_device_without_stateful_ops_skips_every_test(runs: dict[str, Any]) -> None:
    records = runs[faults.NoStatefulOps.device_name]
    assert {_test_name(k) for k in records} == _module_tests()
    for key, r in records.items():
        assert r["status"] == "skipped", (key, r["status"], r["message"][:300])
        assert r["message"].startswith(f"{faults.NoStatefulOps.device_name}: ") and "ReadValue '" in r["message"]
        assert "its plugin does not declare" in r["message"], r["message"]


def test_a_static_only_device_skips_the_dynamic_models(runs: dict[str, Any]) -> None:
    records = runs[faults.StaticShapesOnly.device_name]
    statuses = {_test_name(k): r["status"] for k, r in records.items()}
    assert statuses == {name: "passed" if name == INIT else "skipped" for name in _module_tests()}
    assert all("supports_dynamic_shapes = False" in r["message"] for r in records.values() if r["status"] == "skipped")


def test_every_fault_is_covered_and_the_decode_steps_cross_two_pages() -> None:
    assert set(EXPECTED) == set(faults.FAULTS)
    assert set().union(*EXPECTED.values()) <= _module_tests()
    # each request's prefill stops short of a page boundary its decode steps pass, with a step after it
    boundaries = []
    for prefill, steps in suite.PAGE_CROSSINGS:
        boundary = -(-prefill // faults.PAGE) * faults.PAGE
        assert prefill < boundary and prefill + steps >= boundary + 2
        boundaries.append(boundary)
    assert boundaries == [faults.PAGE, 2 * faults.PAGE]
