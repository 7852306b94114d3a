"""The suite's memory check sees a leak that reuses memory freed earlier in the process.

Freed heap memory stays resident, so a leak that reuses it grows the resident size by nothing; the
fault zoo's leaking device once passed the check that way after a worker had run many tests. The
check trims the C heap around each window; this reproduces the hiding case in a fresh process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from ovconform.suites.test_infer_request_reliability import _rss, _trim

    trim = _trim if sys.argv[1] == "trim" else (lambda: None)
    big = np.ones(200_000); del big          # raises glibc's mmap threshold above 256 KiB
    freed = [np.ones(32_768) for _ in range(300)]
    top = np.ones(32_768)                    # keeps the freed blocks below the heap's top
    del freed                                # 75 MiB freed but still resident
    leak = []
    trim(); before = _rss()
    for _ in range(100):
        leak.append(np.ones(32_768))         # 256 KiB per "inference", touched
    trim(); print((_rss() - before) // 2**20)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc heap and /proc/self/statm")
def test_a_leak_into_freed_heap_memory_is_measured_only_with_trimming() -> None:
    def growth(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True)
        return int(out.stdout.strip())

    assert growth("trim") >= 24  # 100 x 256 KiB = 25 MiB
    assert growth("none") < 4    # the hiding case the trim exists for (else this test proves nothing)
