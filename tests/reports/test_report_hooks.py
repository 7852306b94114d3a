"""Every hook declared in ``ovconform.hookspecs`` is called by the product and documented in the
README; ``ovconform_report_written`` reaches an installed plugin with every report written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from _paths import REPO
from _session import fake_device_module, subprocess_env

from ovconform import hookspecs

SOURCES = [REPO / "ovconform", REPO / "suites", REPO / "reference_plugin"]


def _declared() -> list[str]:
    return sorted(name for name, value in vars(hookspecs).items()
                  if name.startswith("ovconform_") and callable(value))


def _called(name: str) -> list[str]:
    """Source files (the hookspecs module aside) that call the hook (``hook.<name>``)."""
    pattern = re.compile(rf"\bhook\.{re.escape(name)}\b")
    return [str(p.relative_to(REPO)) for folder in SOURCES for p in folder.rglob("*.py")
            if p.name != "hookspecs.py" and pattern.search(p.read_text(encoding="utf-8"))]


def test_every_declared_hook_is_called() -> None:
    declared = _declared()
    assert len(declared) >= 5, declared
    unused = [name for name in declared if not _called(name)]
    assert unused == [], f"hooks declared in ovconform/hookspecs.py but never called: {unused}"
    assert _called("ovconform_no_such_hook") == []  # the detector itself finds nothing for a name nobody calls


def test_every_hook_is_documented_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Hooks", 1)
    assert len(section) == 2, "README.md has no '### Hooks' section"
    body = section[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    missing = [name for name in _declared() if f"`{name}" not in body]
    assert missing == [], f"hooks not documented in the README's Hooks section: {missing}"


HOOK_PLUGIN = """
import json
from pathlib import Path

import ovconform

@ovconform.hookimpl
def ovconform_report_written(path, report):
    with open(Path(__file__).with_name("written.jsonl"), "a") as f:
        f.write(json.dumps({"path": path, "device": report["device"]["name"], "records": len(report["records"]),
                            "partial": report["run"]["partial"]}) + "\\n")
"""

DEVICE = fake_device_module("HOOKDEV", "HookDev")

SUITE = """
import pytest
pytestmark = pytest.mark.entity("ov_plugin")

def test_one(ov_plugin):
    pass

def test_two(ov_plugin):
    pass
"""


def _install_entry_point(site: Path) -> None:
    """An installed distribution with an ``ovconform`` entry point, as pip would leave it."""
    info = site / "hookplugin-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "hookplugin.py").write_text(HOOK_PLUGIN)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hookplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ovconform]\nhookplugin = hookplugin\n")


def test_report_written_reaches_an_installed_plugin(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _install_entry_point(site)
    (tmp_path / "hookdev.py").write_text(DEVICE)
    (tmp_path / "test_hooked.py").write_text(SUITE)
    env = subprocess_env(site)

    def pytest(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "pytest", "--plugin=hookdev.py", "test_hooked.py", "-q",
                        "-p", "no:cacheprovider", "--ovconform-report-dir=out", *args], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300, check=False)

    pytest()  # a test file of its own: a partial run (not the whole suites)
    pytest("-k", "one")
    pytest("--co")  # writes nothing, so no call
    calls = [json.loads(line) for line in (site / "written.jsonl").read_text().splitlines()]
    report = str(tmp_path / "out" / "HOOKDEV" / "conformance.json")
    assert calls == [{"path": report, "device": "HOOKDEV", "records": 2, "partial": True},
                     {"path": report, "device": "HOOKDEV", "records": 1, "partial": True}]
    rebuilt = subprocess.run([sys.executable, "-m", "ovconform.cli", "report", "rebuild", str(tmp_path / "out")],
                             env=env, capture_output=True, text=True, timeout=120, check=False)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert json.loads((site / "written.jsonl").read_text().splitlines()[-1])["path"] == report
