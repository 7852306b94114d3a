"""Dimensions and partial shapes (``ovconform.Dimension``, ``ovconform.PartialShape``).

A dimension is an interval ``[min, max]``; ``max == -1`` means unbounded. Static: min == max.
Dynamic: ``Dimension()`` or ``Dimension(-1)`` = ``[0, -1]``. Bounded: ``Dimension(1, 8)``.
A PartialShape has a list of dimensions or a dynamic rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ovconform.errors import ValidationError

_INF = -1


class Dimension:
    """One dimension: static, dynamic (``?``) or bounded (``lo..hi``)."""

    __slots__ = ("_max", "_min")

    def __init__(self, min_or_value: int | None = None, max_value: int | None = None) -> None:
        if min_or_value is None or (max_value is None and min_or_value == -1):
            lo, hi = 0, _INF
        elif max_value is None:
            lo = hi = _check_int(min_or_value)
            if lo < 0:
                raise ValidationError(f"dimension {min_or_value!r} is negative; use -1 for dynamic.")
        else:
            lo, hi = _check_int(min_or_value), _check_int(max_value)
            if lo < 0:
                lo = 0
            if hi != _INF and (hi < 0 or hi < lo):
                raise ValidationError(f"dimension bounds [{min_or_value}, {max_value}] are not an interval.")
        self._min, self._max = lo, hi

    # -- OpenVINO-style queries -------------------------------------------------------------
    @property
    def is_static(self) -> bool:
        return self._min == self._max

    @property
    def is_dynamic(self) -> bool:
        return not self.is_static

    def get_length(self) -> int:
        if not self.is_static:
            raise ValidationError(f"dimension {self} is not static; it has no length.")
        return self._min

    def get_min_length(self) -> int:
        return self._min

    def get_max_length(self) -> int:
        return self._max

    @property
    def min_length(self) -> int:
        return self._min

    @property
    def max_length(self) -> int:
        return self._max

    def is_bounded(self) -> bool:
        return self._max != _INF

    def contains(self, value: int) -> bool:
        return value >= self._min and (self._max == _INF or value <= self._max)

    def compatible(self, other: Dimension | int) -> bool:
        """True when some value fits both intervals."""
        o = as_dimension(other)
        lo = max(self._min, o._min)
        hi = _min_max(self._max, o._max)
        return hi == _INF or lo <= hi

    def merge(self, other: Dimension | int) -> Dimension | None:
        """The intersection of both intervals, or None when they do not overlap."""
        o = as_dimension(other)
        lo = max(self._min, o._min)
        hi = _min_max(self._max, o._max)
        if hi != _INF and lo > hi:
            return None
        return Dimension(lo, hi)

    def broadcast_merge(self, other: Dimension | int) -> Dimension | None:
        """Numpy broadcasting of two dimensions, or None when they cannot broadcast.

        A result value r comes from a pair (x, y): r = y when x == 1, r = x when y == 1, r = x
        when x == y. The answer is the hull of those sets: B if 1 ∈ A, A if 1 ∈ B, A ∩ B.
        """
        o = as_dimension(other)
        parts = [d for d in (o if self.contains(1) else None, self if o.contains(1) else None,
                             self.merge(o)) if d is not None]
        if not parts:
            return None
        lo = min(d._min for d in parts)
        hi = _INF if any(d._max == _INF for d in parts) else max(d._max for d in parts)
        return Dimension(lo, hi)

    # -- arithmetic used by shape inference --------------------------------------------------
    def __add__(self, other: Dimension | int) -> Dimension:
        o = as_dimension(other)
        hi = _INF if _INF in (self._max, o._max) else self._max + o._max
        return Dimension(self._min + o._min, hi)

    def __sub__(self, other: Dimension | int) -> Dimension:
        o = as_dimension(other)
        lo = 0 if o._max == _INF else max(0, self._min - o._max)
        hi = _INF if self._max == _INF else max(0, self._max - o._min)
        return Dimension(lo, hi)

    def __mul__(self, other: Dimension | int) -> Dimension:
        o = as_dimension(other)
        if self == 0 or o == 0:
            return Dimension(0)
        hi = _INF if _INF in (self._max, o._max) else self._max * o._max
        return Dimension(self._min * o._min, hi)

    def __floordiv__(self, other: int) -> Dimension:
        if other <= 0:
            raise ValidationError(f"cannot divide dimension {self} by {other}.")
        hi = _INF if self._max == _INF else self._max // other
        return Dimension(-(-self._min // other) if self._min else 0, hi)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, int) and not isinstance(other, bool):
            return self.is_static and self._min == other
        if isinstance(other, Dimension):
            return (self._min, self._max) == (other._min, other._max)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._min, self._max))

    def __str__(self) -> str:
        if self.is_static:
            return str(self._min)
        if self._min == 0 and self._max == _INF:
            return "?"
        return f"{self._min}..{'' if self._max == _INF else self._max}"

    def __repr__(self) -> str:
        return f"<Dimension: {self}>"

    @classmethod
    def dynamic(cls) -> Dimension:
        return cls()

    @classmethod
    def parse(cls, text: str) -> Dimension:
        """Parse ``"3"``, ``"?"``, ``"-1"``, ``"1..8"``, ``"..8"``, ``"2.."``."""
        s = text.strip()
        if s in ("?", "-1"):
            return cls()
        if ".." in s:
            lo_s, hi_s = s.split("..", 1)
            lo = _parse_int(lo_s, text) if lo_s else 0
            hi = _parse_int(hi_s, text) if hi_s else _INF
            return cls(lo, hi)
        return cls(_parse_int(s, text))


def _min_max(a: int, b: int) -> int:
    if a == _INF:
        return b
    if b == _INF:
        return a
    return min(a, b)


def _check_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            import numpy as np

            if isinstance(value, np.integer):
                return int(value)
        except ImportError:  # pragma: no cover
            pass
        raise ValidationError(f"dimension value {value!r} is not an integer.")
    return value


def _parse_int(s: str, whole: str) -> int:
    try:
        return int(s)
    except ValueError:
        raise ValidationError(f"dimension {whole!r} is not an integer, '?', or 'lo..hi'.") from None


def as_dimension(value: Dimension | int | str | None) -> Dimension:
    if isinstance(value, Dimension):
        return value
    if isinstance(value, str):
        return Dimension.parse(value)
    if value is None:
        return Dimension()
    return Dimension(_check_int(value))


class PartialShape:
    """A shape whose rank and dimensions may be dynamic."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable[Dimension | int | str] | str | PartialShape | None = None) -> None:
        if isinstance(dims, PartialShape):
            self._dims: tuple[Dimension, ...] | None = dims._dims
        elif dims is None:
            self._dims = None
        elif isinstance(dims, str):
            self._dims = _parse_shape(dims)
        else:
            try:
                self._dims = tuple(as_dimension(d) for d in dims)
            except TypeError:
                raise ValidationError(f"shape {dims!r} is not a sequence of dimensions.") from None

    @classmethod
    def dynamic(cls, rank: int | None = None) -> PartialShape:
        return cls(None if rank is None else [Dimension()] * rank)

    @property
    def rank(self) -> Dimension:
        return Dimension() if self._dims is None else Dimension(len(self._dims))

    @property
    def is_static(self) -> bool:
        return self._dims is not None and all(d.is_static for d in self._dims)

    @property
    def is_dynamic(self) -> bool:
        return not self.is_static

    def has_rank(self) -> bool:
        return self._dims is not None

    def rank_length(self) -> int:
        if self._dims is None:
            raise ValidationError("shape has a dynamic rank.")
        return len(self._dims)

    def to_shape(self) -> tuple[int, ...]:
        if not self.is_static:
            raise ValidationError(f"shape {self} is not static.")
        assert self._dims is not None
        return tuple(d.get_length() for d in self._dims)

    def get_shape(self) -> tuple[int, ...]:
        return self.to_shape()

    def get_min_shape(self) -> tuple[int, ...]:
        return tuple(d.min_length for d in self._require_rank())

    def get_max_shape(self) -> tuple[int, ...]:
        return tuple(d.max_length for d in self._require_rank())

    def _require_rank(self) -> tuple[Dimension, ...]:
        if self._dims is None:
            raise ValidationError("shape has a dynamic rank.")
        return self._dims

    @property
    def dims(self) -> tuple[Dimension, ...]:
        return self._require_rank()

    def compatible(self, other: PartialShape | Iterable[Any]) -> bool:
        o = as_partial_shape(other)
        if self._dims is None or o._dims is None:
            return True
        return len(self._dims) == len(o._dims) and all(
            a.compatible(b) for a, b in zip(self._dims, o._dims, strict=True)
        )

    def refines(self, other: PartialShape) -> bool:
        """True when every shape this one allows is allowed by ``other``."""
        o = as_partial_shape(other)
        if o._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(o._dims):
            return False
        return all(a.merge(b) == a for a, b in zip(self._dims, o._dims, strict=True))

    def merge(self, other: PartialShape) -> PartialShape | None:
        o = as_partial_shape(other)
        if self._dims is None:
            return o
        if o._dims is None:
            return self
        if len(self._dims) != len(o._dims):
            return None
        merged = [a.merge(b) for a, b in zip(self._dims, o._dims, strict=True)]
        dims = [m for m in merged if m is not None]
        return PartialShape(dims) if len(dims) == len(merged) else None

    def fits(self, shape: Iterable[int]) -> bool:
        """True when the concrete ``shape`` is allowed by this partial shape."""
        s = tuple(shape)
        if self._dims is None:
            return True
        return len(s) == len(self._dims) and all(d.contains(v) for d, v in zip(self._dims, s, strict=True))

    def __len__(self) -> int:
        return len(self._require_rank())

    def __iter__(self) -> Iterator[Dimension]:
        return iter(self._require_rank())

    def __getitem__(self, index: int) -> Dimension:
        return self._require_rank()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PartialShape):
            return self._dims == other._dims
        if isinstance(other, (list, tuple)):
            try:
                return self == PartialShape(other)
            except ValidationError:
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "..."
        return "[" + ",".join(str(d) for d in self._dims) + "]"

    def __repr__(self) -> str:
        return f"<PartialShape: {self}>"

    def to_ir_string(self) -> str:
        """The form IR v11 uses in Parameter's ``shape`` attribute: ``"?,3,1..8"``, ``"..."``."""
        if self._dims is None:
            return "..."
        return ",".join(str(d) for d in self._dims)


def _parse_shape(text: str) -> tuple[Dimension, ...] | None:
    s = text.strip().strip("[]{}")
    if s in ("...", "?") and text.strip() in ("...", "[...]"):
        return None
    if not s:
        return ()
    return tuple(Dimension.parse(p) for p in s.split(","))


def as_partial_shape(value: Any) -> PartialShape:
    if isinstance(value, PartialShape):
        return value
    return PartialShape(value)
