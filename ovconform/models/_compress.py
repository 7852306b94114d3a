"""Low-bit weights as OpenVINO's weight compression (NNCF ``compress_weights``) writes them.

A compressed linear weight [rows, cols] is held as integers in ``rows x groups x group`` (groups of
``group`` consecutive input channels share a scale, and a zero point in the asymmetric modes), and
decompressed in the graph right before its MatMul or Gather::

    Constant(u4) → Convert(f16) → Subtract(Convert(f16) of the zero point) → Multiply(f16 scale)
                 → Reshape([rows, cols]) → Convert(f32) → MatMul(x, ·, transpose_b=True)

The symmetric mode (i4) has no zero point (Convert → Multiply). Per-channel compression (u8: the
embedding and the LM head, NNCF's 8-bit backup mode) has one group per row and no Reshape.
Under :func:`ovconform.models._blocks.shapes_only` the codes are zeros and the scales ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ovconform import opset as ops
from ovconform.errors import NotFoundError, ValidationError
from ovconform.ir import Node, Output, Type

from ._blocks import F32, Weights, i64

__all__ = ["MODES", "Mode", "compressed_embedding", "compressed_linear", "decompressed_weight", "group_size",
           "quantize"]

Value = Node | Output
F16 = Type.f16


@dataclass(frozen=True)
class Mode:
    """A compression mode: its element type, code range and whether it has a zero point."""

    element_type: Type
    low: int
    high: int
    zero_point: bool


#: NNCF's INT4_ASYM (u4 + zero point), INT4_SYM (i4), INT8_ASYM (u8 + zero point, the backup mode).
MODES = {"u4": Mode(Type.u4, 0, 15, True), "i4": Mode(Type.i4, -8, 7, False), "u8": Mode(Type.u8, 0, 255, True)}


def _mode(name: str) -> Mode:
    if name not in MODES:
        raise NotFoundError(f"weight compression mode {name!r} does not exist; allowed: {', '.join(MODES)}.")
    return MODES[name]


def quantize(weight: np.ndarray, mode: str, group: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``(codes, zero_point, scale)`` of a [rows, cols] f32 weight, ``group`` input channels per scale:
    codes [rows, cols // group, group], zero point (asymmetric modes) and f16 scale [rows, groups, 1].

    Asymmetric: scale = (max - min) / (high - low), zero point = low - round(min / scale), codes =
    clip(round(w / scale) + zero point). Symmetric: scale = e / low where e is the group's value of
    largest magnitude (a signed scale, as NNCF's: e itself maps to the code ``low``, -8, so the
    asymmetric code range loses nothing), codes = clip(round(w / scale)). The codes are computed
    with the f16 scale the graph holds."""
    m = _mode(mode)
    rows, cols = weight.shape
    if cols % group:
        raise ValidationError(f"weight compression: group size {group} does not divide the weight's {cols} input "
                              f"channels; allowed: a divisor of {cols}.")
    w = weight.reshape(rows, cols // group, group)
    lo, hi = w.min(-1, keepdims=True), w.max(-1, keepdims=True)
    if m.zero_point:
        scale = ((hi - lo) / (m.high - m.low)).astype(F16.to_dtype())
    else:
        extreme = np.take_along_axis(w, np.abs(w).argmax(-1)[..., None], -1)
        scale = (extreme / m.low).astype(F16.to_dtype())
    scale[scale == 0] = 1  # a constant group (zeros under shapes_only)
    s32 = scale.astype(np.float32)
    zero_point = None
    if m.zero_point:
        zero_point = np.clip(m.low - np.round(lo / s32), m.low, m.high)
        codes = np.clip(np.round(w / s32) + zero_point, m.low, m.high)
        zero_point = zero_point.astype(m.element_type.to_dtype())
    else:
        codes = np.clip(np.round(w / s32), m.low, m.high)
    return codes.astype(m.element_type.to_dtype()), zero_point, scale


def decompressed_weight(weight: np.ndarray, mode: str, group: int, name: str) -> Node:
    """The f32 [rows, cols] weight as the decompression subgraph of its compressed form (module doc);
    ``group`` equal to ``cols`` is per-channel compression (no Reshape)."""
    m = _mode(mode)
    rows, cols = weight.shape
    codes, zero_point, scale = quantize(weight, mode, group)
    if group == cols:
        codes, scale = codes.reshape(rows, cols), scale.reshape(rows, 1)
        zero_point = None if zero_point is None else zero_point.reshape(rows, 1)
    y: Value = ops.convert(ops.constant(codes, m.element_type, name=f"{name}.weight"), F16,
                           name=f"{name}.weight.convert")
    if zero_point is not None:
        zp = ops.convert(ops.constant(zero_point, m.element_type, name=f"{name}.weight.zero_point"), F16,
                         name=f"{name}.weight.zero_point.convert")
        y = ops.subtract(y, zp, name=f"{name}.weight.zero_point.subtract")
    y = ops.multiply(y, ops.constant(scale, F16, name=f"{name}.weight.scale"), name=f"{name}.weight.scaled")
    if group != cols:
        y = ops.reshape(y, i64(rows, cols), False, name=f"{name}.weight.reshape")
    return ops.convert(y, F32, name=f"{name}.weight.to_f32")


def group_size(cols: int, preferred: int = 64) -> int:
    """``preferred`` when it divides ``cols``, else the largest power of two that divides both
    (Llama-small's down_proj reads 688 = 43 x 16 channels: groups of 16)."""
    return int(np.gcd(cols, preferred))


def compressed_linear(x: Value, w: Weights, n_in: int, n_out: int, name: str, mode: str, *, std: float,
                      group: int | None = None) -> Node:
    """A bias-free Linear layer with compressed weights: MatMul(x, decompressed [n_out, n_in],
    transpose_b). The f32 values are those :func:`ovconform.models._blocks.dense` draws for the same
    layer (drawn [n_in, n_out], then transposed), so a compressed model approximates its f32 twin."""
    weight = w.draw(n_in, n_out, std=std).T
    g = n_in if group is None and mode == "u8" else (group or group_size(n_in))
    return ops.matmul(x, decompressed_weight(np.ascontiguousarray(weight), mode, g, name), False, True, name=name)


def compressed_embedding(ids: Value, w: Weights, vocab: int, d: int, name: str, mode: str = "u8", *,
                         std: float = 1.0) -> Node:
    """Gather of token rows from a per-row compressed [vocab, d] table (NNCF's 8-bit backup for embeddings)."""
    table = decompressed_weight(w.draw(vocab, d, std=std), mode, d, name)
    return ops.gather(table, ids, i64(0), name=name)

