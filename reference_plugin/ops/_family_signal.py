"""Kernel modules of the "signal" family (listed here so families are added without touching __init__)."""

from __future__ import annotations

OP_MODULES: tuple[str, ...] = ("op_dft", "op_idft", "op_rdft", "op_irdft", "op_stft", "op_istft")
