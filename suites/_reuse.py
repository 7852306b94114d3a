"""What the tests of one op case share within a worker: query_model's answer, and one fresh
compile of the case model with what was done with it before anything else touched it.

The op suite runs up to four tests per case (Implemented, QueryModel, Inference, ImportExport). On
a real device each ``query_model`` and ``compile_model`` of even a one-op model costs milliseconds
(OpenVINO CPU runs its transformation pipeline for both), so asking the device the same question
four times made the suite several times slower than the device's answers are. The suite
parametrises its cases at module scope, so pytest (and xdist's chunks) run a case's tests one after
another in one worker, and a small memo of the last few cases is enough.

What is shared, and why it is the same test:

* **the query answer** — one ``query_model`` call per case, device and config; a raised error is
  kept and raised again to each test that asks, so each test reports it as before.
* **the first run** — ``compile_model`` of the case model, then (for a device with EXPORT_IMPORT,
  when the case has an ImportExport test in the run) ``export_model`` of the compiled model before
  it ever ran, then one new request inferring every step: exactly what Inference and ImportExport
  did on their own compiled models (a case with Inference alone is never exported). Inference
  compares those outputs; ImportExport imports that blob (exported from a compiled model that never
  ran, as before) and compares its outputs with them. Implemented always makes a fresh first run
  (it is the test of compiling the case) and leaves it for the others.

No compiled model is kept: no test can change the properties or state of one another test uses,
and no device threads outlive the run that needed them. The memo lives for the op suite's module.
The key is the device, the case's key (its test id without the device: a case is generated
deterministically from it) and the compile config.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CaseMemo", "FirstRun", "Kept", "memo_key"]

#: Cases kept (the op suite's items run grouped by case: the current one and the one before).
DEFAULT_SIZE = 2


@dataclass(frozen=True)
class Kept:
    """A value, or the exception that computing it raised (kept to be raised again)."""

    value: Any = None
    error: BaseException | None = None

    def get(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value

    @classmethod
    def of(cls, fn: Callable[[], Any]) -> Kept:
        try:
            return cls(fn())
        except Exception as e:  # noqa: BLE001 - kept: each test that asks reports it
            return cls(None, e)


@dataclass(frozen=True)
class FirstRun:
    """One fresh compile of a case and what was done with it first. The compiled model itself is
    not kept (a live compiled model holds the device's threads and memory while other tests run).

    :param compiled: compile_model's outcome (``Kept``: its error when it raised; no value).
    :param precision: the compiled model's execution precision (``_op_runner.execution_precision``).
    :param blob: ``export_model()`` of it before any inference (None when not asked for: a device
        without EXPORT_IMPORT, or a case without an ImportExport test, e.g. a stimulus case at
        standard depth).
    :param outputs: the outputs of each step on its first request.
    """

    compiled: Kept
    precision: Any
    blob: Kept | None
    outputs: Kept


def memo_key(device: str, case_key: str, config: Mapping[str, Any] | None = None) -> tuple[str, str, str]:
    """``(device, case key, config)`` with the config as sorted ``name=repr(value)`` text."""
    items = sorted((str(k), repr(v)) for k, v in (config or {}).items())
    return device, case_key, ";".join(f"{k}={v}" for k, v in items)


class CaseMemo:
    """The last ``size`` cases' shared answers (least recently used first out)."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if size < 1:
            from ovconform.errors import ValidationError

            raise ValidationError(f"CaseMemo size must be at least 1, not {size!r}.")
        self._size = size
        self._slots: OrderedDict[tuple[str, str, str], dict[str, Any]] = OrderedDict()

    def _slot(self, key: tuple[str, str, str]) -> dict[str, Any]:
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = {}
            while len(self._slots) > self._size:
                self._slots.popitem(last=False)
        self._slots.move_to_end(key)
        return slot

    def query(self, key: tuple[str, str, str], ask: Callable[[], Any]) -> Any:
        """``ask()``'s answer for ``key``, asked once (its error raised again on each call)."""
        slot = self._slot(key)
        if "query" not in slot:
            slot["query"] = Kept.of(ask)
        return slot["query"].get()

    def first_run(self, key: tuple[str, str, str], make: Callable[[], FirstRun], *, fresh: bool = False) -> FirstRun:
        """The kept first run of ``key``, made by ``make()`` when there is none (or when ``fresh``)."""
        slot = self._slot(key)
        if fresh or "run" not in slot:
            slot.pop("run", None)  # the old compiled model goes before the new one is made
            slot["run"] = make()
        run: FirstRun = slot["run"]
        return run

    def clear(self) -> None:
        self._slots.clear()

    def __len__(self) -> int:
        return len(self._slots)
