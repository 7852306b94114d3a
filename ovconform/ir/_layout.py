"""``Layout``: the names of a tensor's dimensions (OpenVINO's ``ov::Layout``).

The syntax is OpenVINO's: one letter per dimension (``"NCHW"``), ``?`` for a dimension without a
name, ``...`` for any number of dimensions (``"N..."``, ``"...C"``), or the bracketed form with
comma-separated names (``"[N,C,H,W]"``, ``"[batch,...]"``). Names are case-insensitive; ``N`` is
the batch dimension (what ``set_tensors`` splits a batched input along).
"""

from __future__ import annotations

import re
from typing import Any, Final

from ovconform.errors import ValidationError

__all__ = ["BATCH", "Layout", "get_batch_index", "has_batch"]

#: The name of the batch dimension.
BATCH: Final = "N"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$|^\?$")
_ALLOWED = ("letters ('NCHW'), '?' for an unnamed dimension, '...' for any number of dimensions, "
            "or the bracketed form '[N,C,H,W]'")


class Layout:
    """Dimension names, optionally with one ``...``.

    :param layout: the layout string (``""`` is the empty layout: nothing is known).
    :raises ValidationError: when the string is not a layout (names what is allowed).
    """

    __slots__ = ("_ellipsis", "_left", "_right")
    _left: list[str]
    _right: list[str]
    _ellipsis: bool

    def __init__(self, layout: Any = "") -> None:
        if isinstance(layout, Layout):
            self._left, self._right, self._ellipsis = list(layout._left), list(layout._right), layout._ellipsis
            return
        if not isinstance(layout, str):
            raise ValidationError(f"a layout must be a string, not {type(layout).__name__}; use {_ALLOWED}.")
        self._left, self._right, self._ellipsis = [], [], False
        text = layout.strip()
        if not text:
            return
        if text.startswith("[") != text.endswith("]"):
            raise ValidationError(f"layout {layout!r} has an unbalanced bracket; use {_ALLOWED}.")
        if text.startswith("["):
            items = [t.strip() for t in text[1:-1].split(",")] if text[1:-1].strip() else []
        else:
            items = []
            rest = text
            while rest:
                if rest.startswith("..."):
                    items.append("...")
                    rest = rest[3:]
                else:
                    items.append(rest[0])
                    rest = rest[1:]
        for item in items:
            if item == "...":
                if self._ellipsis:
                    raise ValidationError(f"layout {layout!r} has more than one '...'; use {_ALLOWED}.")
                self._ellipsis = True
                continue
            if not _NAME.match(item):
                raise ValidationError(f"layout {layout!r}: {item!r} is not a dimension name; use {_ALLOWED}.")
            name = item.upper()
            if name != "?" and (name in self._left or name in self._right):
                raise ValidationError(f"layout {layout!r} names dimension {name!r} twice.")
            (self._right if self._ellipsis else self._left).append(name)

    def empty(self) -> bool:
        return not (self._left or self._right or self._ellipsis)

    def has_name(self, name: str) -> bool:
        return name.upper() in self._left or name.upper() in self._right

    def get_index_by_name(self, name: str) -> int:
        """The dimension's index: from the left, or negative (from the right) after ``...``."""
        key = name.upper()
        if key in self._left:
            return self._left.index(key)
        if key in self._right:
            return self._right.index(key) - len(self._right)
        raise ValidationError(f"layout {self.to_string()!r} has no dimension {name!r}.")

    def to_string(self) -> str:
        """OpenVINO's spelling: ``[N,C,H,W]``, ``[N,...]`` (``""`` for the empty layout)."""
        if self.empty():
            return ""
        return "[" + ",".join([*self._left, *(["..."] if self._ellipsis else []), *self._right]) + "]"

    def fits_rank(self, rank: int) -> bool:
        named = len(self._left) + len(self._right)
        return named <= rank if self._ellipsis else (self.empty() or named == rank)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"<Layout: {self.to_string()!r}>"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = Layout(other)
            except ValidationError:
                return False
        return isinstance(other, Layout) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())


def has_batch(layout: Layout) -> bool:
    """``ov::layout::has_batch``: the layout names an ``N`` dimension."""
    return layout.has_name(BATCH)


def get_batch_index(layout: Layout, rank: int) -> int:
    """The batch dimension's index in a shape of ``rank`` dimensions.

    :raises ValidationError: when the layout has no ``N`` or does not fit the rank.
    """
    if not has_batch(layout):
        raise ValidationError(f"layout {layout.to_string() or '(empty)'!r} has no batch dimension 'N'.")
    if not layout.fits_rank(rank):
        raise ValidationError(f"layout {layout.to_string()!r} does not fit a shape of rank {rank}.")
    index = layout.get_index_by_name(BATCH)
    return index if index >= 0 else rank + index
