"""The package installs as the product card says, and the README's commands stay true."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

from _paths import REPO

ROOT = REPO


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:bash|sh|console)?\n(.*?)```", text, flags=re.S)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip()]


def test_ci_runs_the_readme_test_command_word_for_word() -> None:
    ci_lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    test_cmds = [c for c in _readme_commands() if c.startswith("pytest") and "--plugin" not in c]
    assert test_cmds, "README.md names no test command"
    assert test_cmds[0] in ci_lines, f"README test command {test_cmds[0]!r} is not a line of .ci/run"
    install = [c for c in _readme_commands() if c.startswith("pip install")]
    assert install, "README.md has no install line"
    assert any(install[0].replace("pip install", "python -m pip install --quiet") == ln for ln in ci_lines)


def test_every_package_folder_is_listed_in_pyproject() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(conf["tool"]["setuptools"]["packages"])
    found = set()
    for top, dotted in (("ovconform", "ovconform"), ("reference_plugin", "reference_plugin"),
                        ("suites", "ovconform.suites")):
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top)
            found.add(".".join([dotted, *rel.parts]))
    assert found == listed, f"packages on disk {sorted(found)} differ from pyproject's {sorted(listed)}"


def test_entry_points_are_declared() -> None:
    assert any(ep.value == "ovconform.pytest_plugin" for ep in entry_points(group="pytest11"))
    assert any(ep.name == "reference" and ep.value == "reference_plugin" for ep in entry_points(group="ovconform"))
    assert any(ep.name == "ovconform" for ep in entry_points(group="console_scripts"))


def test_suites_install_inside_the_package_not_top_level() -> None:
    import importlib.util

    import ovconform.suites

    assert Path(ovconform.suites.__file__).parent.name == "suites"
    assert importlib.util.find_spec("suites") is None or "site-packages" not in str(importlib.util.find_spec("suites").origin)


def test_core_dependencies_are_only_the_allowed_ones() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    names = {re.split(r"[<>=!~ \[]", d)[0].lower() for d in conf["project"]["dependencies"]}
    assert names == {"numpy", "pluggy", "pytest", "hypothesis", "tabulate"}
