"""StringTensorPack-15: the string tensor of the shape of ``begins`` whose element ``i`` is the bytes
``symbols[begins[i]:ends[i]]`` (``begins`` and ``ends`` i32 or i64, ``symbols`` 1D u8). Every range
must lie inside ``symbols`` with ``begins[i] <= ends[i]``. The bytes are decoded as UTF-8 into
Python str; a byte that is not part of valid UTF-8 is kept as a surrogate escape, so
StringTensorUnpack gives it back unchanged.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("StringTensorPack", since=15)
class StringTensorPack(OpRun):
    def _run(self, begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> tuple[np.ndarray, ...]:
        if begins.shape != ends.shape:
            raise self.fail(f"begins {list(begins.shape)} and ends {list(ends.shape)} must have one shape.")
        if symbols.ndim != 1:
            raise self.fail(f"symbols has shape {list(symbols.shape)}; it must be 1D.")
        b, e = begins.reshape(-1).astype(np.int64), ends.reshape(-1).astype(np.int64)
        bad = np.flatnonzero((b < 0) | (b > e) | (e > symbols.size))
        if bad.size:
            i = int(bad[0])
            raise self.fail(f"string {i} spans symbols[{int(b[i])}:{int(e[i])}]; it must satisfy 0 <= begin <= end "
                            f"<= {symbols.size} (the symbols' length).")
        raw = symbols.tobytes()
        out = np.empty(b.size, dtype=object)
        for i in range(b.size):
            out[i] = raw[int(b[i]):int(e[i])].decode("utf-8", "surrogateescape")
        return (out.reshape(begins.shape),)
