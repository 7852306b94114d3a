"""Case strategies of the "signal" family (planned: DFT-7, IDFT-7, RDFT-9, IRDFT-9)."""

from __future__ import annotations
