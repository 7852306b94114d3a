"""Case strategies (filled by the opset work)."""

from __future__ import annotations
