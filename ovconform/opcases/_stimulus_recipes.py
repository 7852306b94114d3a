"""Stimulus recipes shared by the op families: one-input and two-input elementwise ops.

:func:`unary` and :func:`binary` register, for one op version, the stimulus cases of
:mod:`ovconform.opcases.stimulus`: remainder sizes along the innermost axis, a large case, special
values, boundary integers, every element type of the op's spec and a dynamic-mode case. The
family modules give the domain of ordinary values (``gen``) and which special values the spec
defines a result for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ovconform.ir import Node, Type, bf16_to_f32, make_node
from ovconform.opcases import OpCase
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import (
    FLOATS,
    REMAINDERS,
    SIGNED,
    Stimulus,
    StimulusBuilder,
    cast,
    dynamic_case,
    register_stimuli,
    remainder_depth,
    seed_of,
    with_boundaries,
    with_specials,
)

#: Ordinary values of (builder, shape, element type); called with Type.f64 for the values special
#: values are mixed into.
Gen = Callable[[StimulusBuilder, tuple[int, ...], Type], np.ndarray]
Gen2 = Callable[[StimulusBuilder, tuple[int, ...], tuple[int, ...], Type], tuple[np.ndarray, np.ndarray]]
Make1 = Callable[[StimulusBuilder, Node], Node]
Make2 = Callable[[StimulusBuilder, Node, Node], Node]
#: Builds the op under test from the builder and the case's main input shape.
MakeAt = Callable[[StimulusBuilder, tuple[int, ...]], Node]

#: Shapes of the innermost-axis classes: 3 rows (an odd total, so a flat vector loop has a tail too).
ROWS = 3
LARGE_SHAPE = (2, 32771)  # 65542 elements; 32771 % 8 = 3
HUGE_SHAPE = (4, 32771)  # 131084 elements (exhaustive)
SPECIAL_SHAPE = (4, 33)
DYNAMIC_SHAPES = ((1, 7), (3, 65), (5, 129))
TYPE_REMAINDER = 65
DYNAMIC_NOTE = "dynamic mode: one compiled model infers the shapes " + ", ".join(map(str, DYNAMIC_SHAPES))


def node_case(op: str, version: int, label: str, make: MakeAt, shape: tuple[int, ...],
              shapes: tuple[tuple[int, ...], ...] = (), note: str = "") -> Callable[[], OpCase]:
    """A stimulus case's builder: ``make(builder, shape)`` returns the op node; with ``shapes``, one
    dynamic-mode case over them (``make`` must then build the same Constants at every shape)."""
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = StimulusBuilder(seed_of(op, version, label))
        return b.finish(op, version, make(b, shape), note)

    if shapes:
        return lambda: dynamic_case([build(s) for s in shapes], note=f"dynamic mode: shapes {list(shapes)}; {note}")
    return build


def uniform_gen(low: float, high: float, int_range: tuple[int, int] | None = None) -> Gen:
    """Values in ``[low, high]`` (integers in ``int_range`` when given)."""
    def gen(b: StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
        if not et.is_real() and int_range is not None:
            return b.uniform(shape, et, *int_range)
        return b.uniform(shape, et, low, high)

    return gen


def as_f64(values: np.ndarray, et: Type) -> np.ndarray:
    return (bf16_to_f32(values) if et == Type.bf16 else values).astype(np.float64)


def _default_make(op: str, version: int, attrs: dict[str, Any] | None = None) -> Make1:
    return lambda b, x: make_node(op, version, [x.output(0)], dict(attrs or {}))


def _label_types(types: Sequence[Type]) -> list[Type]:
    return [t for t in types if t != Type.f32]


def unary(op: str, version: int, types: Sequence[Type], gen: Gen, *, make: Make1 | None = None,
          specials: Sequence[str] = (), boundary: tuple[bool, bool] | None = None, note: str = "",
          large: bool = True, dynamic: bool = True) -> None:
    """Register the stimulus cases of a one-input elementwise op.

    :param types: the element types the op's spec allows (f32 first if allowed).
    :param gen: ordinary values in the op's domain.
    :param make: builds the op from the builder and the Parameter (default: no attributes).
    :param specials: special-value kinds the spec defines the result for (see :func:`special_pool`).
    :param boundary: ``(lowest, highest)``: integer types also get their min / max values.
    :param note: why the values are what they are (shown on failure).
    """
    build = make or _default_make(op, version)
    floats = [t for t in types if t.is_real()]
    main = Type.f32 if Type.f32 in types else types[0]

    def case(label: str, shape: tuple[int, ...], et: Type, kind: str = "ordinary") -> Callable[..., OpCase]:
        def make_case(shape: tuple[int, ...] = shape) -> OpCase:
            b = StimulusBuilder(seed_of(op, version, label))
            if kind == "special":
                value = with_specials(b.rng, as_f64(gen(b, shape, Type.f64), Type.f64), et, specials)
            elif kind == "int-boundary":
                assert boundary is not None
                value = with_boundaries(b.rng, gen(b, shape, et), et, lowest=boundary[0], highest=boundary[1])
            else:
                value = gen(b, shape, et)
            x = b.param("x", value, et)
            return b.finish(op, version, build(b, x), note)

        return make_case

    def recipe() -> Iterable[Stimulus]:
        for n in REMAINDERS:
            yield Stimulus(op, version, f"rem{n}", "remainder", "ordinary", main, case(f"rem{n}", (ROWS, n), main),
                           remainder_depth(n))
        if large:
            yield Stimulus(op, version, "large", "large", "ordinary", main, case("large", LARGE_SHAPE, main))
            yield Stimulus(op, version, "large-131k", "large", "ordinary", main, case("large-131k", HUGE_SHAPE, main),
                           Depth.EXHAUSTIVE)
        if specials:
            for et in floats:
                depth = Depth.STANDARD if et in (Type.f32, Type.f16) else Depth.EXHAUSTIVE
                yield Stimulus(op, version, f"special-{et.name}", "remainder", "special", et,
                               case(f"special-{et.name}", SPECIAL_SHAPE, et, "special"), depth)
        if boundary is not None:
            for et in (t for t in types if not t.is_real() and t != Type.boolean):
                depth = Depth.STANDARD if et in (Type.i32, Type.u8, Type.i64) else Depth.EXHAUSTIVE
                yield Stimulus(op, version, f"boundary-{et.name}", "remainder", "int-boundary", et,
                               case(f"boundary-{et.name}", SPECIAL_SHAPE, et, "int-boundary"), depth)
        for et in _label_types(types):
            label = f"{et.name}-rem{TYPE_REMAINDER}"
            yield Stimulus(op, version, label, "remainder", "ordinary", et, case(label, (ROWS, TYPE_REMAINDER), et))
            for n in (7, 129):
                label = f"{et.name}-rem{n}"
                yield Stimulus(op, version, label, "remainder", "ordinary", et, case(label, (ROWS, n), et),
                               Depth.EXHAUSTIVE)
        if dynamic:
            def dyn(bounded: bool) -> Callable[[], OpCase]:
                label = "dynamic-bounded" if bounded else "dynamic"
                make_case = case(label, DYNAMIC_SHAPES[0], main)
                return lambda: dynamic_case([make_case(s) for s in DYNAMIC_SHAPES], bounded,
                                            DYNAMIC_NOTE)

            yield Stimulus(op, version, "dynamic", "remainder", "ordinary", main, dyn(False), dynamic=True)
            yield Stimulus(op, version, "dynamic-bounded", "remainder", "ordinary", main, dyn(True), Depth.EXHAUSTIVE,
                           dynamic=True)

    register_stimuli(op, version)(recipe)


def same_gen(gen: Gen) -> Gen2:
    """Both operands from ``gen``."""
    def gen2(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
        return gen(b, sa, et), gen(b, sb, et)

    return gen2


def binary(op: str, version: int, types: Sequence[Type], gen: Gen2, *, make: Make2 | None = None,
           specials: Sequence[str] = (), special_rhs: Sequence[str] | None = None,
           boundary: tuple[bool, bool] | None = None, boundary_gen: Gen2 | None = None, note: str = "",
           large: bool = True, dynamic: bool = True) -> None:
    """Register the stimulus cases of a two-input elementwise op (numpy broadcasting).

    Like :func:`unary`, plus broadcasting along the remainder axis: a row ``(1, n)``, a column
    ``(3, 1)`` and a scalar second operand.

    :param specials: special-value kinds for the first operand; ``special_rhs`` for the second
        (default: the same).
    :param boundary_gen: the integer operands of the boundary cases (default: ``gen`` with boundary
        values mixed into both).
    """
    def default_make(b: StimulusBuilder, x: Node, y: Node) -> Node:
        return make_node(op, version, [x.output(0), y.output(0)], {"auto_broadcast": "numpy"})

    build = make or default_make
    floats = [t for t in types if t.is_real()]
    main = Type.f32 if Type.f32 in types else types[0]
    rhs_specials = specials if special_rhs is None else special_rhs

    def case(label: str, sa: tuple[int, ...], sb: tuple[int, ...], et: Type,
             kind: str = "ordinary") -> Callable[..., OpCase]:
        def make_case(sa: tuple[int, ...] = sa, sb: tuple[int, ...] = sb) -> OpCase:
            b = StimulusBuilder(seed_of(op, version, label))
            if kind == "special":
                x0, y0 = gen(b, sa, sb, Type.f64)
                x = with_specials(b.rng, x0, et, specials) if specials else cast(x0, et)
                y = with_specials(b.rng, y0, et, rhs_specials) if rhs_specials else cast(y0, et)
            elif kind == "int-boundary":
                assert boundary is not None
                if boundary_gen is not None:
                    x, y = boundary_gen(b, sa, sb, et)
                else:
                    x0, y0 = gen(b, sa, sb, et)
                    x = with_boundaries(b.rng, x0, et, lowest=boundary[0], highest=boundary[1])
                    y = with_boundaries(b.rng, y0, et, lowest=boundary[0], highest=boundary[1])
            else:
                x, y = gen(b, sa, sb, et)
            return b.finish(op, version, build(b, b.param("a", x, et), b.param("b", y, et)), note)

        return make_case

    def recipe() -> Iterable[Stimulus]:
        for n in REMAINDERS:
            shape = (ROWS, n)
            yield Stimulus(op, version, f"rem{n}", "remainder", "ordinary", main, case(f"rem{n}", shape, shape, main),
                           remainder_depth(n))
        n = 63
        for label, sb in ((f"bcast-row{n}", (1, n)), (f"bcast-col{n}", (ROWS, 1)), (f"bcast-scalar{n}", ())):
            yield Stimulus(op, version, label, "remainder", "ordinary", main, case(label, (ROWS, n), sb, main))
        if large:
            yield Stimulus(op, version, "large", "large", "ordinary", main,
                           case("large", LARGE_SHAPE, LARGE_SHAPE, main))
            yield Stimulus(op, version, "large-bcast", "large", "ordinary", main,
                           case("large-bcast", LARGE_SHAPE, (1, LARGE_SHAPE[1]), main), Depth.EXHAUSTIVE)
        if specials or rhs_specials:
            for et in floats:
                depth = Depth.STANDARD if et in (Type.f32, Type.f16) else Depth.EXHAUSTIVE
                label = f"special-{et.name}"
                yield Stimulus(op, version, label, "remainder", "special", et,
                               case(label, SPECIAL_SHAPE, SPECIAL_SHAPE, et, "special"), depth)
        if boundary is not None:
            for et in (t for t in types if not t.is_real() and t != Type.boolean):
                depth = Depth.STANDARD if et in (Type.i32, Type.u8, Type.i64) else Depth.EXHAUSTIVE
                label = f"boundary-{et.name}"
                yield Stimulus(op, version, label, "remainder", "int-boundary", et,
                               case(label, SPECIAL_SHAPE, SPECIAL_SHAPE, et, "int-boundary"), depth)
        for et in _label_types(types):
            label = f"{et.name}-rem{TYPE_REMAINDER}"
            shape = (ROWS, TYPE_REMAINDER)
            yield Stimulus(op, version, label, "remainder", "ordinary", et, case(label, shape, shape, et))
            for n in (7, 129):
                label = f"{et.name}-rem{n}"
                yield Stimulus(op, version, label, "remainder", "ordinary", et, case(label, (ROWS, n), (ROWS, n), et),
                               Depth.EXHAUSTIVE)
        if dynamic:
            def dyn(bounded: bool) -> Callable[[], OpCase]:
                label = "dynamic-bounded" if bounded else "dynamic"
                make_case = case(label, DYNAMIC_SHAPES[0], DYNAMIC_SHAPES[0], main)
                return lambda: dynamic_case([make_case(s, s) for s in DYNAMIC_SHAPES], bounded,
                                            DYNAMIC_NOTE)

            yield Stimulus(op, version, "dynamic", "remainder", "ordinary", main, dyn(False), dynamic=True)
            yield Stimulus(op, version, "dynamic-bounded", "remainder", "ordinary", main, dyn(True), Depth.EXHAUSTIVE,
                           dynamic=True)

    register_stimuli(op, version)(recipe)


# -- value generators and special-value sets shared by the families ------------------------------------------

ALL_SPECIALS = ("nan", "inf", "-inf", "-0", "sub")
#: Exactly compared ops: no subnormals (a device may flush them to zero).
EXACT_SPECIALS = ("nan", "inf", "-inf", "-0")
NO_INF = ("nan", "-0", "sub")



def halves(low: float, high: float) -> Gen:
    """Multiples of 0.5 (so half the values are exact ties for Round), integers for integer types."""
    def gen(b: StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
        if not et.is_real():
            return b.uniform(shape, et, low, high)
        values = np.round(b.rng.uniform(low, high, shape) * 2) / 2
        return cast(values, et)

    return gen


def const_make(op: str, version: int, *consts: float) -> Any:
    def make(b: StimulusBuilder, x: Node) -> Node:
        et = x.get_output_element_type(0)
        inputs = [x.output(0)] + [b.const(cast(np.array(c), et), et).output(0) for c in consts]
        return make_node(op, version, inputs, {})

    return make


SIGNED_NUMERIC = (*FLOATS, *SIGNED)


def bounded(low: float, high: float, narrow: dict[int, tuple[int, int]]) -> Gen2:
    """Both operands in ``[low, high]``; integer types of a bit width in ``narrow`` in that range
    (so results stay inside the type)."""
    def gen(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = (low, high)
        if not et.is_real():
            lo, hi = narrow.get(et.bitwidth, (int(low), int(high)))
            if not et.is_signed():
                lo = max(lo, 0)
        return b.uniform(sa, et, lo, hi), b.uniform(sb, et, lo, hi)

    return gen


def subtract_gen(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...],
                 et: Type) -> tuple[np.ndarray, np.ndarray]:
    if not et.is_real() and not et.is_signed():  # every a >= every b: no wrap-around
        return b.uniform(sa, et, 50, 100), b.uniform(sb, et, 0, 50)
    return b.uniform(sa, et, -50, 50), b.uniform(sb, et, -50, 50)


def nonzero(b: StimulusBuilder, shape: tuple[int, ...], et: Type, low: float, high: float) -> np.ndarray:
    magnitude = b.rng.uniform(low, high, shape)
    if not et.is_real():
        magnitude = np.floor(magnitude)
    sign = np.where(b.rng.random(shape) < 0.5, -1.0, 1.0) if (et.is_real() or et.is_signed()) else 1.0
    return cast(magnitude * sign, et)


def divide_gen(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
    """Dividends of both signs; divisors of both signs, never 0 (integers: |b| in 1..9)."""
    if et.is_real():
        return b.uniform(sa, et, -10, 10), nonzero(b, sb, et, 0.5, 4)
    lo = -100 if et.is_signed() else 0
    return b.uniform(sa, et, lo, 100), nonzero(b, sb, et, 1, 10)


def divide_boundary(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...],
                     et: Type) -> tuple[np.ndarray, np.ndarray]:
    """Dividends with the type's minimum and maximum; divisors 2..9 of both signs (never -1 with
    INT_MIN, which overflows)."""
    a, _ = divide_gen(b, sa, sb, et)
    a = with_boundaries(b.rng, a, et)
    return a, nonzero(b, sb, et, 2, 10)


NARROW_ADD = {8: (-60, 60), 16: (-10000, 10000)}
NARROW_MUL = {8: (-11, 11), 16: (-150, 150)}
COMPARE = uniform_gen(-3, 3, (-3, 3))
def mm_values(rng: np.random.Generator, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """Uniform in [-1, 1] for floats; integers small enough that a K-long sum stays in the type."""
    if et.is_real():
        return cast(rng.uniform(-1, 1, shape), et)
    bound = {8: 1, 16: 3}.get(et.bitwidth, 20)
    low = -bound if et.is_signed() else 0
    return rng.integers(low, bound, shape, endpoint=True).astype(et.to_dtype())

def small_values(rng: np.random.Generator, shape: tuple[int, ...], et: Type, bound: int = 2) -> np.ndarray:
    if et.is_real():
        return cast(rng.uniform(-1, 1, shape), et)
    return rng.integers(-bound, bound, shape, endpoint=True).astype(et.to_dtype())

def distinct(rng: np.random.Generator, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """All-different values (a shuffled ramp centred on 0; unsigned from 1 up): no ties."""
    size = int(np.prod(shape))
    ramp = rng.permutation(size) + (-(size // 2) if (et.is_real() or et.is_signed()) else 1)
    scale = 0.25 if et == Type.f32 else 1.0
    return cast((ramp * scale).reshape(shape), et)


def register_unary(table: dict[tuple[str, int], dict[str, Any]]) -> None:
    """:func:`unary` for each ``(op, version) -> {types, gen, make?, specials?, boundary?, note?}``."""
    for (op, version), spec in table.items():
        unary(op, version, spec["types"], spec["gen"], make=spec.get("make"), specials=spec.get("specials", ()),
              boundary=spec.get("boundary"), note=spec.get("note", ""))


def register_binary(table: dict[tuple[str, int], dict[str, Any]]) -> None:
    """:func:`binary` for each ``(op, version) -> {types, gen, make?, specials?, special_rhs?, boundary?,
    boundary_gen?, note?}``."""
    for (op, version), spec in table.items():
        binary(op, version, spec["types"], spec["gen"], make=spec.get("make"), specials=spec.get("specials", ()),
               special_rhs=spec.get("special_rhs"), boundary=spec.get("boundary"),
               boundary_gen=spec.get("boundary_gen"), note=spec.get("note", ""))


Recipe = Callable[[], Iterable[Stimulus]]


class RecipeBook:
    """The recipes a recipe module registers (:func:`register_stimuli`), remembered by (op, version)
    in registration order, so its tests can read the labels it adds."""

    def __init__(self) -> None:
        self.recipes: dict[tuple[str, int], list[Recipe]] = {}

    def register(self, op: str, version: int) -> Callable[[Recipe], Recipe]:
        """:func:`ovconform.opcases.stimulus.register_stimuli`, remembered in :attr:`recipes`."""
        def deco(fn: Recipe) -> Recipe:
            self.recipes.setdefault((op, version), []).append(fn)
            return register_stimuli(op, version)(fn)

        return deco

    def labels(self, op: str, version: int) -> list[str]:
        """The labels the module adds to ``op``-``version``."""
        return [s.label for recipe in self.recipes.get((op, version), []) for s in recipe()]
