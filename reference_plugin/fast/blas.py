"""BLAS threads per stream: with ``n`` streams on ``c`` cores, each inference runs BLAS on
``max(1, c // n)`` threads, so concurrent streams do not oversubscribe the cores (OpenBLAS's
thread count is process-wide and cheap to set, so it is set at the start of every inference).

Uses ``threadpoolctl`` when it is installed (extra ``speed``/``benchmarks``); without it the BLAS
library keeps its own setting and :func:`blas_info` says so.
"""

from __future__ import annotations

import os
import threading
from typing import Any

_lock = threading.Lock()
_controllers: list[Any] | None = None


def _libraries() -> list[Any]:
    global _controllers
    with _lock:
        if _controllers is None:
            try:
                from threadpoolctl import ThreadpoolController
            except ImportError:
                _controllers = []
            else:
                _controllers = [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
        return _controllers


def threads_per_stream(streams: int) -> int:
    """BLAS threads each of ``streams`` streams gets on this machine."""
    return max(1, (os.cpu_count() or 1) // max(1, streams))


def set_blas_threads(n: int) -> None:
    """Set every loaded BLAS library to ``n`` threads (no-op without threadpoolctl)."""
    for lib in _libraries():
        if lib.num_threads != n:
            lib.set_num_threads(n)


def blas_info() -> list[dict[str, Any]] | str:
    """The BLAS libraries and their thread counts, for reports."""
    libs = _libraries()
    if not libs:
        return "threadpoolctl not installed: BLAS threads not managed"
    return [{"internal_api": c.internal_api, "num_threads": c.num_threads, "version": c.version} for c in libs]
