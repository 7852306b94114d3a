"""A one-line progress bar for long benchmark runs (stderr, at most 10 redraws a second).

Progress is the larger of ``iterations / niter`` and ``elapsed / duration`` (whichever limit
ends the run first). It draws only when enabled: by default when stderr is a terminal, unless a
time limit under one second makes the run short anyway.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``update(iterations)`` in the loop, ``close()`` at the end.

    :param niter: the iteration limit (None: duration only).
    :param duration_s: the time limit (None: iterations only).
    :param enabled: draw at all; None decides by ``stream.isatty()``.
    :param label: shown before the bar.
    """

    WIDTH = 30

    def __init__(self, niter: int | None, duration_s: float | None, *, enabled: bool | None = None,
                 stream: TextIO | None = None, label: str = "") -> None:
        self.niter, self.duration_s, self.label = niter, duration_s, label
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)()) and not (
                duration_s is not None and duration_s < 1.0)
        self.enabled = enabled
        self.started = time.perf_counter()
        self._last_draw = 0.0
        self.fraction = 0.0
        self.draws = 0

    def update(self, iterations: int) -> None:
        now = time.perf_counter()
        elapsed = now - self.started
        by_iter = iterations / self.niter if self.niter else 0.0
        by_time = elapsed / self.duration_s if self.duration_s else 0.0
        self.fraction = min(max(by_iter, by_time), 1.0)
        if self.enabled and now - self._last_draw >= 0.1:
            self._last_draw = now
            self._draw(iterations, elapsed)

    def _draw(self, iterations: int, elapsed: float) -> None:
        filled = int(self.fraction * self.WIDTH)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r{self.label}[{bar}] {self.fraction * 100:5.1f}% {iterations} it {elapsed:6.1f} s")
        self.stream.flush()
        self.draws += 1

    def close(self, iterations: int) -> None:
        if self.enabled:
            self.fraction = 1.0
            self._draw(iterations, time.perf_counter() - self.started)
            self.stream.write("\n")
            self.stream.flush()
