"""One serial pytest run of REFERENCE and a fault module's devices on the API suite modules that
gained tests for those faults, and the checks the red-team fault tests share
(``test_api_faults_redteam.py``, ``test_api_faults_redteam2.py``, ``test_api_faults_concurrency.py``):
each fault runs the modules of its :attr:`AddedTestFaults.scopes` and every added test; REFERENCE and
the control devices run the added tests (test_suites_reference runs REFERENCE on everything).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from test_api_faults import _node, assert_fails_exactly, assert_messages_say_got_and_expected
from test_suites_faults import FAIL

from ovconform.suites import _models

SUITES = Path(_models.__file__).resolve().parent

Records = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class AddedTestFaults:
    """A fault module's devices and the tests added to catch them.

    :param faulty: the module of ``tests/plugins`` (``FAULTS``: class name -> fault; ``CONTROLS``,
        optional: class name -> an allowed behaviour that must pass).
    :param modules: the suite modules the run gives pytest (names without ``.py``).
    :param added: added test name -> its module.
    :param scopes: device class name -> the ``-k`` expression of what it runs besides the added tests.
    :param expected: fault -> patterns (``*`` wildcards, over node ids without the device) of the
        tests it must fail.
    :param instances: added test -> how many instances a device runs (the parametrized ones).
    :param reference_skips: added tests REFERENCE skips (naming why).
    """

    faulty: ModuleType
    modules: tuple[str, ...]
    added: dict[str, str]
    scopes: dict[str, str]
    expected: dict[str, list[str]]
    instances: dict[str, int] = field(default_factory=dict)
    reference_skips: frozenset[str] = frozenset()
    test_timeout_s: int = 60
    run_timeout_s: int = 600

    @property
    def devices(self) -> list[str]:
        """The device class names of the run (REFERENCE is given by its entry-point name)."""
        return [*self.faulty.FAULTS, *getattr(self.faulty, "CONTROLS", {})]

    def device(self, name: str) -> str:
        return "REFERENCE" if name == "REFERENCE" else str(getattr(self.faulty, name).device_name)

    def selection(self) -> str:
        added = " or ".join(self.added)
        parts = [f"(REFERENCE and ({added}))"]
        parts += [f"({self.device(n)} and ({self.scopes[n]} or {added}))" for n in self.devices]
        return " or ".join(parts)

    def run(self, workdir: Path) -> Records:
        """``{device class name (or REFERENCE): records}`` of the one run."""
        reports = workdir / "reports"
        module = self.faulty.__name__.rsplit(".", 1)[-1]
        cmd = [sys.executable, "-m", "pytest", *(str(SUITES / f"{m}.py") for m in self.modules),
               "--plugin=reference", *(f"--plugin={module}:{n}" for n in self.devices), "-q",
               "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist", f"--ovconform-report-dir={reports}",
               "-k", self.selection(), f"--ovconform-test-timeout={self.test_timeout_s}"]
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT", "OVCONFORM_"))}
        plugins = str(Path(self.faulty.__file__ or "").resolve().parent)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [plugins, os.environ.get("PYTHONPATH")]))
        workdir.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=self.run_timeout_s,
                              check=False)
        out: Records = {}
        for name in ["REFERENCE", *self.devices]:
            path = reports / self.device(name) / "conformance.json"
            if not path.exists():
                path = path.with_name("conformance.partial.json")
            assert path.exists(), f"no report for {name}; pytest said:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
            out[name] = json.loads(path.read_text())["records"]
        return out

    def added_results(self, records: list[dict[str, Any]], device: str) -> dict[str, list[str]]:
        """Each added test's statuses on ``device`` (one per instance)."""
        out: dict[str, list[str]] = {name: [] for name in self.added}
        for record in records:
            test = _node(record["nodeid"], device).split("::")[-1].split("[")[0]
            if test in out:
                out[test].append(record["status"])
        return out

    # -- the checks ------------------------------------------------------------------------------------
    def check_tables(self) -> None:
        """Every fault has expected tests, every device a scope, every added test catches a fault,
        and no device name is inside another (``-k`` would select the other's tests)."""
        faults = set(self.faulty.FAULTS)
        assert set(self.expected) == faults, sorted(set(self.expected) ^ faults)
        assert set(self.scopes) == set(self.devices), sorted(set(self.scopes) ^ set(self.devices))
        patterns = {p.split("::")[1].split("[")[0] for ps in self.expected.values() for p in ps}
        assert patterns == set(self.added), f"every added test catches a fault: {sorted(patterns ^ set(self.added))}"
        names = [self.device(n) for n in ["REFERENCE", *self.devices]]
        clashes = [(a, b) for a in names for b in names if a != b and a.lower() in b.lower()]
        assert clashes == [], f"a device name inside another would select the other's tests with -k: {clashes}"

    def check_fault(self, reports: Records, fault: str) -> None:
        """Exactly the expected tests fail, each as ``failed``; the device ran every added test."""
        device = self.device(fault)
        ran = self.added_results(reports[fault], device)
        assert {t: len(s) for t, s in ran.items()} == {t: self.instances.get(t, 1) for t in self.added}, ran
        assert_fails_exactly(reports[fault], device, self.expected[fault], f"{fault} ({self.faulty.FAULTS[fault]})")

    def check_messages(self, reports: Records, fault: str) -> None:
        assert_messages_say_got_and_expected(reports[fault], self.device(fault))

    def check_passes(self, reports: Records, name: str) -> None:
        """REFERENCE (or a control device) passes every added test (but those in
        :attr:`reference_skips`, which REFERENCE skips), and nothing it ran failed."""
        ran = self.added_results(reports[name], self.device(name))
        skips = self.reference_skips if name == "REFERENCE" else frozenset()
        assert ran == {t: ["skipped" if t in skips else "passed"] * self.instances.get(t, 1) for t in self.added}, ran
        bad = [(r["nodeid"], r["status"], r["message"][:300]) for r in reports[name] if r["status"] in FAIL]
        assert bad == [], f"{name}: {bad}"


__all__ = ["SUITES", "AddedTestFaults", "Records"]
