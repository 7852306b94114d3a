"""Latency statistics and throughput, computed as benchmark_app computes them.

* latencies are sorted; the chosen percentile is ``values[ceil(n * p / 100) - 1]`` (benchmark_app's
  formula; ``p = 50`` is the median it prints);
* average, min and max over every measured iteration (the first inference is reported apart
  and not included);
* throughput is ``iterations / duration`` in inferences per second (benchmark_app's FPS with a
  batch of one per inference).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ovconform.errors import ValidationError

__all__ = ["LatencyStats", "check_percentile", "percentile", "summarize"]


def check_percentile(p: Any) -> int:
    """``p`` as an int in 1..100, else a ValidationError naming the value."""
    if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= 100:
        raise ValidationError(f"latency percentile must be an integer in 1..100, not {p!r}.")
    return p


def percentile(values: Sequence[float], p: int) -> float:
    """benchmark_app's percentile of ``values`` (sorted here): ``sorted[ceil(n*p/100) - 1]``."""
    check_percentile(p)
    if not values:
        raise ValidationError("percentile of no latencies: the run measured no iteration.")
    ordered = sorted(values)
    return ordered[max(math.ceil(len(ordered) * p / 100) - 1, 0)]


@dataclass(frozen=True)
class LatencyStats:
    """Latency figures in milliseconds, and the throughput in inferences per second."""

    count: int
    percentile: int
    latency_percentile_ms: float
    median_ms: float
    average_ms: float
    min_ms: float
    max_ms: float
    duration_ms: float
    throughput_fps: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarize(latencies_ms: Sequence[float], duration_s: float, p: int = 50) -> LatencyStats:
    """Statistics of one run: ``latencies_ms`` of every measured iteration, the loop's wall time."""
    check_percentile(p)
    if not latencies_ms:
        raise ValidationError("no latencies: the run measured no iteration.")
    if duration_s <= 0:
        raise ValidationError(f"run duration must be positive, not {duration_s!r} s.")
    ordered = sorted(latencies_ms)
    return LatencyStats(
        count=len(ordered), percentile=p, latency_percentile_ms=percentile(ordered, p),
        median_ms=percentile(ordered, 50), average_ms=sum(ordered) / len(ordered), min_ms=ordered[0],
        max_ms=ordered[-1], duration_ms=duration_s * 1000.0, throughput_fps=len(ordered) / duration_s)
