"""Case strategies (tier-2 family: filled by the op-breadth work)."""

from __future__ import annotations
