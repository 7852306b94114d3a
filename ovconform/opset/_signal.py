"""Builders of the tier-2/3 "signal" family (planned: DFT-7, IDFT-7, RDFT-9, IRDFT-9).

Each builder validates its arguments and infers output types and shapes through the op-definition
table (:mod:`ovconform.ir._opdef`).
"""

from __future__ import annotations

__all__: list[str] = []
