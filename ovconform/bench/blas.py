"""BLAS thread settings: read them for the benchmark output, and pin them for reproducible figures.

numpy's BLAS (OpenBLAS in the wheels) uses every core by default, and its timings collapse when
another process is busy (perf-anchors.md). :func:`blas_info` records what was in effect — the
library, its thread count, and the environment variables that set it — and
:func:`set_blas_threads` pins the count. Both use ``threadpoolctl`` when it is installed, else
OpenBLAS's own ``*openblas_get_num_threads*`` / ``*openblas_set_num_threads*`` symbols found in
the shared libraries this process has loaded (Linux), else only the environment is reported.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any

from ovconform.errors import ValidationError

__all__ = ["ENV_VARS", "blas_info", "set_blas_threads"]

#: Environment variables that set BLAS / OpenMP thread counts.
ENV_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
_PREFIXES = ("scipy_openblas_", "openblas_")
_SUFFIXES = ("64_", "")


def _loaded_blas_libraries() -> list[str]:
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return []
    paths = {line.split()[-1] for line in maps.splitlines() if "blas" in line.lower() and "/" in line}
    return sorted(p for p in paths if ".so" in p)


def _openblas_function(name: str) -> tuple[str, Any] | None:
    """``(library path, ctypes function)`` for the OpenBLAS function ``name`` (e.g. get_num_threads)."""
    for path in _loaded_blas_libraries():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                fn = getattr(lib, f"{prefix}{name}{suffix}", None)
                if fn is not None:
                    return path, fn
    return None


def _openblas_config() -> str | None:
    found = _openblas_function("get_config")
    if found is None:
        return None
    fn = found[1]
    fn.restype = ctypes.c_char_p
    value = fn()
    return value.decode(errors="replace") if value else None


def blas_info() -> dict[str, Any]:
    """What BLAS threading is in effect: ``{"source", "libraries": [{library, version, threads}],
    "threads", "env": {variable: value}}`` (``threads`` is the first library's count, or None)."""
    env = {name: os.environ[name] for name in ENV_VARS if name in os.environ}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threadpool_info = None
    if threadpool_info is not None:
        libs = [{"library": str(i.get("internal_api", "")), "path": str(i.get("filepath", "")),
                 "version": str(i.get("version", "")), "threads": int(i.get("num_threads", 0))}
                for i in threadpool_info() if i.get("user_api") == "blas"]
        return {"source": "threadpoolctl", "libraries": libs, "threads": libs[0]["threads"] if libs else None,
                "env": env}
    found = _openblas_function("get_num_threads")
    if found is None:
        return {"source": "environment only (no OpenBLAS symbols found, threadpoolctl not installed)",
                "libraries": [], "threads": None, "env": env}
    path, fn = found
    fn.restype = ctypes.c_int
    threads = int(fn())
    libs = [{"library": "openblas", "path": path, "version": _openblas_config() or "", "threads": threads}]
    return {"source": "openblas symbols", "libraries": libs, "threads": threads, "env": env}


def set_blas_threads(threads: int) -> dict[str, Any]:
    """Pin the BLAS thread count of this process to ``threads`` (≥ 1); returns :func:`blas_info`.

    :raises ValidationError: for a count below 1, or when no way to set it was found.
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValidationError(f"BLAS threads must be an integer >= 1, not {threads!r}.")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        threadpool_limits(limits=threads, user_api="blas")
        return blas_info()
    found = _openblas_function("set_num_threads")
    if found is None:
        raise ValidationError(f"cannot set BLAS threads to {threads}: no OpenBLAS library is loaded and "
                              "threadpoolctl is not installed; set OPENBLAS_NUM_THREADS before starting Python.")
    fn = found[1]
    fn.argtypes = [ctypes.c_int]
    fn(threads)
    return blas_info()
