"""The example device package installs like a third-party plugin and passes the mandatory scope."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _paths import REPO

EXAMPLE = REPO / "examples" / "ovconform-mydevice"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pip-install the example into a private folder (its entry point comes with it)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(EXAMPLE)], check=True, timeout=300)
    assert list(target.glob("ovconform_mydevice-*.dist-info/entry_points.txt"))
    return target


def test_example_passes_the_mandatory_scope(installed: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-m", "pytest", "--plugin=mydevice", "-m", "mandatory", "-q",
                          "-p", "no:cacheprovider"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    doc = json.loads((tmp_path / "reports" / "MYDEVICE" / "conformance.json").read_text())
    assert doc["summary"]["mandatory_pass_rate"] == 100.0
    assert doc["summary"]["total"] >= 50
    assert doc["device"]["distribution"].startswith("ovconform-mydevice ")
