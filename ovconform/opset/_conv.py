"""(filled by the opset work)."""

from __future__ import annotations

__all__: list[str] = []
