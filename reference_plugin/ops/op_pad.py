"""Pad-1 and Pad-12: ``data`` extended (Pad-12: or cropped, by negative pads) at both ends of every
dim; output dim D is ``max(pads_begin[D] + data.shape[D] + pads_end[D], 0)``.

Output position o along a dim reads input position i = o - pads_begin; a position outside
``[0, n)`` is, by ``pad_mode``: constant — ``pad_value`` (0 without the input); edge — the
nearest edge element; reflect — mirrored without repeating the edge (i -> -i, n - 1 + (n - 1 - i));
symmetric — mirrored repeating the edge (i -> -1 - i, 2n - 1 - i). Reflection always uses the
whole input, also where the other end is cropped (the spec's mixed-pads example). pad_value is
ignored outside the constant mode (the spec says it should not be given there).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_layout import IndexInputsOp

_LIMIT = {"edge": "n >= 1", "reflect": "pad <= n - 1", "symmetric": "pad <= n"}


def source_index(n: int, begin: int, end: int, mode: str) -> tuple[np.ndarray, np.ndarray] | None:
    """For one dim of size ``n``: the input position every output position reads and whether it is
    inside the input (constant mode fills the others); None when the mode cannot pad this much."""
    src = np.arange(max(begin + n + end, 0), dtype=np.int64) - begin
    inside = (src >= 0) & (src < n)
    if mode == "constant" or inside.all():
        return np.clip(src, 0, max(n - 1, 0)), inside
    if mode == "edge":
        return (np.clip(src, 0, n - 1), inside) if n else None
    if mode == "reflect":
        if max(begin, end) > n - 1:
            return None
        return np.where(src < 0, -src, np.where(src >= n, 2 * (n - 1) - src, src)), inside
    if max(begin, end) > n:
        return None
    return np.where(src < 0, -1 - src, np.where(src >= n, 2 * n - 1 - src, src)), inside


@register_op("Pad", since=1)
class Pad1(IndexInputsOp):
    INDEX_PORTS = (1, 2)

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mode = str(self.attr("pad_mode"))

    def _run(self, data: np.ndarray, pads_begin: np.ndarray, pads_end: np.ndarray,
             pad_value: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        begin, end = self.ints(1, pads_begin), self.ints(2, pads_end)
        if not len(begin) == len(end) == data.ndim:
            raise self.fail(f"pads_begin {begin} and pads_end {end} need one value per dim of data "
                            f"{list(data.shape)}.")
        if self.node.version == 1 and min(begin + end, default=0) < 0:
            raise self.fail(f"pads {begin} / {end} have a negative value; Pad-1 needs pads >= 0.")
        index, masks = [], []
        for axis, (n, b, e) in enumerate(zip(data.shape, begin, end, strict=True)):
            found = source_index(n, b, e, self.mode)
            if found is None:
                raise self.fail(f"pads ({b}, {e}) on dim {axis} of size {n} are too large for pad_mode="
                                f"{self.mode!r} ({_LIMIT[self.mode]}).")
            index.append(found[0])
            masks.append(found[1])
        if not data.ndim:
            return (data.copy(),)
        if data.size == 0:
            out = np.zeros([len(i) for i in index], data.dtype)
        else:
            out = data[np.ix_(*index)]
        if self.mode == "constant" and out.size:
            fill = np.zeros((), data.dtype) if pad_value is None else np.asarray(pad_value, data.dtype).reshape(())
            inside = np.ones((), bool)
            for axis, m in enumerate(masks):
                shape = [1] * data.ndim
                shape[axis] = m.size
                inside = inside & m.reshape(shape)
            out = np.where(inside, out, fill)
        return (np.ascontiguousarray(out),)


@register_op("Pad", since=12)
class Pad12(Pad1):
    """Pad-12: negative pads crop the dim."""
