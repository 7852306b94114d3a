"""``--ovconform-shard I/N``: a run split by stable test id; the merge of the shards equals the
unsharded run (records, statuses, counters) and is not partial on account of the sharding."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ovconform.reports import _doc, merge, shard

SELECT = "test_infer_request_io or test_plugin_properties"


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT", "OVCONFORM_"))}
    return subprocess.run([sys.executable, "-m", "pytest", "--plugin=reference", "-q", "-p", "no:randomly",
                           "-p", "no:cacheprovider", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900, check=False)


def test_parse_shard_and_its_usage_errors() -> None:
    assert shard.parse_shard("2/4") == (2, 4) and shard.parse_shard(" 1 / 1 ") == (1, 1)
    for bad in ("0/4", "5/4", "4", "a/b", "-1/2", "1/0"):
        with pytest.raises(pytest.UsageError, match=rf"--ovconform-shard='{bad}' is not a shard; allowed: I/N"):
            shard.parse_shard(bad)


def test_shards_are_deterministic_and_balanced() -> None:
    ids = [f"test_op_conformance.py::test_op_inference[Relu-1-case{i}-REFERENCE]" for i in range(3000)]
    counts = collections.Counter(shard.shard_of(t, 4) for t in ids)
    assert set(counts) == {1, 2, 3, 4} and min(counts.values()) > 600, counts
    assert [shard.shard_of(t, 4) for t in ids[:50]] == [shard.shard_of(t, 4) for t in ids[:50]]


def test_a_merge_is_partial_until_every_shard_is_in_it() -> None:
    def run(label: str, **extra: Any) -> dict[str, Any]:
        return {"partial": True, "selection": {"shard": label, "deselected": 0, "not_run": 0, **extra}}

    doc: dict[str, Any] = {"runs": [run("1/3"), run("2/3")]}
    assert _doc.is_partial(doc) and "shard 1/3" in _doc.partial_runs(doc)[0]
    doc["runs"].append(run("3/3"))
    assert not _doc.is_partial(doc) and _doc.partial_runs(doc) == []
    doc["runs"][2] = run("3/3", keyword="Relu", deselected=5)  # a shard that also ran a narrower selection
    assert _doc.is_partial(doc) and len(_doc.partial_runs(doc)) == 1


def test_bad_shard_is_a_usage_error(tmp_path: Path) -> None:
    proc = _pytest(tmp_path, "--co", "--ovconform-shard", "3/2")
    assert proc.returncode == 4 and "ERROR: --ovconform-shard='3/2' is not a shard" in proc.stderr, proc.stderr


def test_merged_shards_equal_the_unsharded_run(tmp_path: Path) -> None:
    (tmp_path / "whole").mkdir()
    whole = _pytest(tmp_path / "whole", "-k", SELECT, "--ovconform-report-dir", "out")
    assert whole.returncode == 0, whole.stdout[-2000:]
    reports = []
    for i in (1, 2, 3):
        folder = tmp_path / f"s{i}"
        folder.mkdir()
        proc = _pytest(folder, "-k", SELECT, "--ovconform-shard", f"{i}/3", "--ovconform-report-dir", "out")
        assert proc.returncode == 0, proc.stdout[-2000:]
        assert f"shard {i}/3" in proc.stdout
        reports.append(folder / "out" / "REFERENCE" / "conformance.json")
    docs = [json.loads(p.read_text()) for p in reports]
    assert all(d["run"]["partial"] and d["run"]["selection"]["shard"] for d in docs)
    assert all(d["records"] for d in docs), "a shard ran nothing"
    merged = merge.merge_files(reports)
    base = json.loads((tmp_path / "whole" / "out" / "REFERENCE" / "conformance.json").read_text())
    assert {r["nodeid"]: r["status"] for r in merged["records"]} == {r["nodeid"]: r["status"] for r in base["records"]}
    assert merged["merge"]["duplicates"] == 0
    assert merged["devices"]["REFERENCE"]["summary"] == base["summary"]
    # partial as the unsharded run is (-k), and not on account of the shards
    assert _doc.is_partial(merged) == _doc.is_partial(base)
    assert not any("shard" in line for line in _doc.partial_runs(merged))


def test_the_real_model_tier_is_recorded_when_not_the_default(tmp_path: Path) -> None:
    """``--ovconform-models full`` is in ``run.selection`` (a later default run would otherwise
    look like the same selection)."""
    for extra, want in (([], None), (["--ovconform-models", "full"], "full")):
        folder = tmp_path / (want or "quick")
        folder.mkdir()
        proc = _pytest(folder, "-k", "test_plugin_properties and test_set_properties_with_incorrect_key",
                       "--ovconform-report-dir", "out", *extra)
        assert proc.returncode == 0, proc.stdout[-2000:]
        doc = json.loads((folder / "out" / "REFERENCE" / "conformance.json").read_text())
        assert doc["run"]["selection"].get("models") == want
