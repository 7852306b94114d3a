"""Devices whose process dies where the harness's reports used to tell more than happened (for
``tests/reports/test_unfinished_runs.py``). Each is REFERENCE with one process-level fault, only
on models holding a PRelu (the rest of a run passes).

* :class:`ExitsOnPRelu` — a vendor SDK that calls ``exit(0)`` from C on a layer it cannot compile:
  the process ends with status 0 in the middle of the run, before pytest writes any report.
* :class:`AbortsOnRelease` — a driver that aborts (SIGABRT, "double free or corruption") when the
  plugin object that compiled a PRelu is released: in the test's teardown, after its call passed.
* :class:`DeadlocksInNativeCode` — a driver that locks one of its (non-recursive) mutexes twice while
  compiling a PRelu: the thread blocks in C, where no ``SIGALRM`` handler can run, for good.
* :class:`LeavesAPollerRunning` — a driver that starts a (non-daemon) completion poller when it
  compiles a PRelu and never stops it: every test passes, and the process never exits.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from typing import Any

from ovconform.ir import Model
from ovconform.properties import PropertyStore
from reference_plugin.plugin import ReferencePlugin


def _has_prelu(model: Model) -> bool:
    return any(n.type_name == "PRelu" for n in model.get_ordered_ops())


class ExitsOnPRelu(ReferencePlugin):
    device_name = "HOST_EXITS"

    def _compile_model(self, model: Model, config: PropertyStore, context: Any) -> Any:
        if _has_prelu(model):
            sys.stdout.flush()
            os._exit(0)
        return super()._compile_model(model, config, context)


class AbortsOnRelease(ReferencePlugin):
    device_name = "HOST_ABORTS"

    def _compile_model(self, model: Model, config: PropertyStore, context: Any) -> Any:
        if _has_prelu(model):
            self._poisoned = True
        return super()._compile_model(model, config, context)

    def __del__(self) -> None:
        if getattr(self, "_poisoned", False):
            os.abort()


class DeadlocksInNativeCode(ReferencePlugin):
    device_name = "HOST_DEADLOCKS"

    def _compile_model(self, model: Model, config: PropertyStore, context: Any) -> Any:
        if _has_prelu(model):
            libc = ctypes.CDLL(None)
            mutex = ctypes.create_string_buffer(64)  # zeroed: PTHREAD_MUTEX_INITIALIZER (a normal mutex)
            libc.pthread_mutex_lock(mutex)
            libc.pthread_mutex_lock(mutex)  # never returns
        return super()._compile_model(model, config, context)


class LeavesAPollerRunning(ReferencePlugin):
    device_name = "HOST_LEAVES_THREAD"

    def _compile_model(self, model: Model, config: PropertyStore, context: Any) -> Any:
        if _has_prelu(model):
            threading.Thread(target=threading.Event().wait, name="driver-poller", daemon=False).start()
        return super()._compile_model(model, config, context)
