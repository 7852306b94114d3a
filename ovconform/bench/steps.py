"""Timing a sequence of inference steps on one request: a decoder's prefill and decode steps on the
KV cache they fill, or a model's several inputs in turn.

Shared by ``ovconform bench`` (:func:`ovconform.bench.runner.time_decode`) and
``benchmarks/architectures.py``; it needs nothing from either runtime but the request's
``infer()`` and ``reset_state()`` (OpenVINO's ``InferRequest`` and ours alike), and a callable
that sets a step's inputs, so a process timing OpenVINO imports only this module of ovconform.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from ovconform.errors import ValidationError

__all__ = ["decode_summary", "time_steps"]


def _count(name: str, value: object, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValidationError(f"{name} must be an integer >= {least}, not {value!r}.")
    return value


def time_steps(request: Any, set_inputs: Callable[[int], None], steps: int, rounds: int, *, warmup: int = 1,
               reset: bool = False, after: Callable[[int], None] | None = None) -> list[list[float]]:
    """``warmup`` untimed then ``rounds`` timed runs of the step sequence on ``request``.

    Each run resets the request's state first when ``reset`` (a new sequence: a decoder's prefill
    on an empty KV cache), then for each step ``0 .. steps-1`` calls ``set_inputs(step)`` (not
    timed), times ``request.infer()`` and, in the timed runs, calls ``after(step)`` (not timed:
    e.g. reading the step's profiling info).

    :return: the timed runs, each the ms of every step in order.
    :raises ValidationError: for ``steps`` or ``rounds`` < 1 or ``warmup`` < 0.
    """
    _count("steps", steps, 1)
    _count("rounds", rounds, 1)
    _count("warmup", warmup, 0)
    runs: list[list[float]] = []
    for r in range(warmup + rounds):
        if reset:
            request.reset_state()
        times = []
        for step in range(steps):
            set_inputs(step)
            t0 = time.perf_counter()
            request.infer()
            times.append((time.perf_counter() - t0) * 1000.0)
            if after is not None and r >= warmup:
                after(step)
        if r >= warmup:
            runs.append(times)
    return runs


def decode_summary(runs: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Prefill and decode-step figures of timed runs (:func:`time_steps` of a decoder: step 0 the
    prefill, the others one-token decode steps).

    :return: ``{"rounds", "steps" (decode steps), "prefill_ms" (median), "prefill_ms_all",
        "step_ms" (each decode step's median over the runs), "decode_median_ms" (median of every
        decode step's time), "decode_tokens_per_s"}`` (times in ms).
    :raises ValidationError: for no runs, runs of different lengths, or runs without a decode step.
    """
    if not runs or len({len(t) for t in runs}) != 1 or len(runs[0]) < 2:
        raise ValidationError(f"decode timings need one or more runs of a prefill and at least one decode step, "
                              f"all of one length; got runs of lengths {[len(t) for t in runs]}.")
    prefill = [t[0] for t in runs]
    per_step = [statistics.median(t[i] for t in runs) for i in range(1, len(runs[0]))]
    median = statistics.median(x for t in runs for x in t[1:])
    return {"rounds": len(runs), "steps": len(runs[0]) - 1, "prefill_ms": statistics.median(prefill),
            "prefill_ms_all": list(prefill), "step_ms": per_step, "decode_median_ms": median,
            "decode_tokens_per_s": 1000.0 / median if median > 0 else None}
