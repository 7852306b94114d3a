"""StringTensorUnpack-15: a string tensor as ``begins``, ``ends`` (i32, its shape) and ``symbols``
(u8: the UTF-8 bytes of every string, in row-major order, one after another). Element ``i`` is
``symbols[begins[i]:ends[i]]``; ``begins[0] = 0`` and each string starts where the one before ends.
Strings are held as Python str; a surrogate-escaped byte (one that was not UTF-8) is that byte again.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


def utf8(text: object) -> bytes:
    return str(text).encode("utf-8", "surrogateescape")


@register_op("StringTensorUnpack", since=15)
class StringTensorUnpack(OpRun):
    def _run(self, data: np.ndarray) -> tuple[np.ndarray, ...]:
        encoded = [utf8(v) for v in data.reshape(-1)]
        ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        if ends.size and ends[-1] > np.iinfo(np.int32).max:
            raise self.fail(f"the strings take {int(ends[-1])} bytes; begins and ends are i32.")
        begins = ends - np.array([len(e) for e in encoded], dtype=np.int64)
        symbols = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
        shape = data.shape
        return begins.astype(np.int32).reshape(shape), ends.astype(np.int32).reshape(shape), symbols
