"""Run a lifetime or crash-prone check in a fresh interpreter (gtest death-test style).

The child re-creates the device under test from the ``--plugin`` value (``ov_plugin_spec``) with
:func:`ovconform.host.plugin_specs.resolve`, runs a snippet, and reports back its exit code (or the signal
that killed it) and its stderr. A snippet gets these names: ``DEVICE`` (the device name),
``new_core()`` (a Core with only that device), ``models`` (:mod:`ovconform.suites._models`),
``np`` and ``Tensor``. It ends with ``gc.collect()`` and a marker line, so a crash in a
finalizer after the snippet still shows as a failure.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass

from ovconform.assertions import fail

__all__ = ["SnippetResult", "assert_clean_exit", "run_snippet"]

_DONE = "OVCONFORM-SNIPPET-DONE"
_PROLOGUE = """\
import gc
import numpy as np
from ovconform import Core, Tensor
from ovconform.host.plugin_specs import resolve
from ovconform.suites import _models as models

DEVICE = {device!r}
_DUT = next(d for d in resolve([{spec!r}]) if d.name == DEVICE)


def new_core():
    core = Core(discover=False)
    core.register_plugin(_DUT.entry.factory, _DUT.name)
    return core

"""
_EPILOGUE = f"\ngc.collect()\nprint({_DONE!r}, flush=True)\n"


@dataclass(frozen=True)
class SnippetResult:
    """What the child process did."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False

    @property
    def outcome(self) -> str:
        """``"exit 0"``, ``"exit 3"``, ``"signal SIGSEGV"`` or ``"timeout"``."""
        if self.timed_out:
            return "timeout"
        if self.returncode is not None and self.returncode < 0:
            try:
                return f"signal {signal.Signals(-self.returncode).name}"
            except ValueError:
                return f"signal {-self.returncode}"
        return f"exit {self.returncode}"


def run_snippet(spec: str, device: str, body: str, timeout: float = 60.0) -> SnippetResult:
    """Run ``body`` in a child interpreter started in the current folder (so a relative
    ``--plugin`` path still resolves) with the current environment."""
    code = _PROLOGUE.format(device=device, spec=spec) + textwrap.dedent(body) + _EPILOGUE
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                              cwd=os.getcwd(), env=env, check=False)
    except subprocess.TimeoutExpired as e:
        return SnippetResult(None, _text(e.stdout), _text(e.stderr), timed_out=True)
    return SnippetResult(proc.returncode, proc.stdout, proc.stderr)


def _text(data: str | bytes | None) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data or ""


def assert_clean_exit(result: SnippetResult, where: str) -> None:
    """The child must exit 0 after the whole snippet, with nothing alarming on stderr (a traceback,
    or an exception ignored in a finalizer)."""
    __tracebackhide__ = True
    tail = result.stderr.strip()[-1200:]
    if result.timed_out or result.returncode != 0 or _DONE not in result.stdout:
        fail("child process", f"{result.outcome}; stderr: {tail or '(empty)'}", "exit 0 after the whole snippet",
             where)
    for alarm in ("Traceback", "Exception ignored", "Fatal Python error"):
        if alarm in result.stderr:
            fail("child stderr", tail, f"no {alarm!r}", where)
