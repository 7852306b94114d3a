"""Object lifetimes under repetition: 1,000 cycles of Core → CompiledModel → InferRequest → output
Tensor + VariableStates on REFERENCE, each cycle releasing the five in a different order (all 120
orders, cycled), in a child interpreter, so a crash in a finalizer fails this test instead of the
session.

After every release the objects still held are used (the request infers, the tensor and the
states are read). At cycles 100, 550 and 1,000 the child measures, after ``gc.collect()``: the
number of live gc-tracked objects, the resident memory, the number of threads and of open file
descriptors. Between cycle 100 and 1,000 none may grow (beyond small noise): no leak per cycle.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CYCLES = 1000
CHECKPOINTS = (100, 550, 1000)
MAX_OBJECT_GROWTH = 200  # live objects, over 900 cycles (a leak of one object per cycle is 900)
MAX_RSS_GROWTH = 8 * 1024 * 1024

CHILD = f"""
import gc, itertools, json, os, sys, threading
import numpy as np
from ovconform import Core
from ovconform.suites import _models
from reference_plugin.plugin import ReferencePlugin

MODEL = _models.state_model()
INPUTS = {{"data": np.full((1, 2), 3.0, np.float32)}}
ORDERS = list(itertools.permutations(("core", "compiled", "request", "tensor", "states")))


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cycle(order):
    core = Core(discover=False)
    core.register_plugin(ReferencePlugin, "REFERENCE")
    compiled = core.compile_model(MODEL, "REFERENCE")
    request = compiled.create_infer_request()
    request.infer(INPUTS)
    held = {{"core": core, "compiled": compiled, "request": request,
             "tensor": request.get_tensor(compiled.output()), "states": request.query_state()}}
    del core, compiled, request
    for name in order:
        del held[name]
        if "request" in held:
            held["request"].infer(INPUTS)
        if "tensor" in held:
            assert held["tensor"].data.shape == (1, 2)
        if "states" in held:
            assert [s.get_state().data.shape for s in held["states"]] == [(1, 2), (1, 2)]


points = {{}}
for k in range(1, {CYCLES} + 1):
    cycle(ORDERS[k % len(ORDERS)])
    if k in {CHECKPOINTS!r}:
        gc.collect()
        points[k] = {{"objects": len(gc.get_objects()), "rss": rss(), "threads": threading.active_count(),
                     "fds": len(os.listdir("/proc/self/fd"))}}
print("LIFETIME", json.dumps(points), flush=True)
"""


@pytest.mark.timeout(300)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="measures /proc/self (Linux)")
def test_release_orders_over_1000_cycles_no_crash_no_growth() -> None:
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", CHILD], capture_output=True, text=True,
                          timeout=280, check=False)
    assert proc.returncode == 0, f"child exit {proc.returncode}: {proc.stderr[-2000:]}"
    for alarm in ("Traceback", "Exception ignored", "Fatal Python error"):
        assert alarm not in proc.stderr, proc.stderr[-2000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("LIFETIME "))
    points = {int(k): v for k, v in json.loads(line.removeprefix("LIFETIME ")).items()}
    first, last = points[CHECKPOINTS[0]], points[CHECKPOINTS[-1]]
    print(f"lifetime: {CYCLES} cycles, cycle {CHECKPOINTS[0]} -> {CYCLES}: {first} -> {last}")
    assert last["objects"] - first["objects"] <= MAX_OBJECT_GROWTH, points
    assert last["rss"] - first["rss"] <= MAX_RSS_GROWTH, points
    assert last["threads"] == first["threads"], points
    assert last["fds"] == first["fds"], points
