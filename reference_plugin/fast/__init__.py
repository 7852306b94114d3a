"""Everything the REFERENCE device does for speed, next door to the formulas it replaces.

:mod:`reference_plugin.ops` holds each op's formula and nothing else; the plain interpreter
(:mod:`reference_plugin.evaluate`, where the suites take their expected values) runs those.
The device's programs (:class:`reference_plugin.compiled_model.Program`) run the same formulas
with *routes* mixed in: a route replaces a formula kernel's computation, for the nodes and
inputs it states, by a faster one within a stated bound of the formula's result. The program
machinery around the kernels lives here too: elementwise chains (:mod:`.chains`), in-place
steps (:mod:`.inplace`), intra-op threads (:mod:`.parallel`), BLAS threads per stream
(:mod:`.blas`) and stream worker processes (:mod:`.process_streams`).

Two kinds of route are registered, each keyed by the formula kernel class (op type + version):

* a *kernel* route is a class overriding the formula's computation (``compute``, or the
  kernel's one computing method) and falling back to it (``super()``) where it does not apply;
  :func:`make_kernel` builds a node's formula class with every route registered for it mixed in
  front (:func:`fast_class`);
* a *writer* route writes a kernel's result into a given array (``writer(*inputs, out)``, ``out``
  possibly one of the inputs): what chains and in-place steps run. It is used only for a kernel
  whose class is exactly the one :func:`fast_class` made, so a derived device's kernel that
  redefines its computation is never bypassed by its base's writer.

Each route states its :class:`Bound` against the formula: bit for bit, a number of ulp, or the
accumulation bound of a sum of products. ``tests/reference/test_fast_vs_formula.py`` runs every
registered route against its formula on generated cases and asserts that bound.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from reference_plugin.ops import OpRun, build_kernel, load_op

if TYPE_CHECKING:
    from ovconform.ir import Node

__all__ = ["EXACT", "PROGRAM_ROUTES", "Bound", "ProgramRoute", "Route", "accumulation", "fast_class", "formula_of",
           "kernel_route", "make_kernel", "route_class", "routes", "ulp", "writer_for", "writer_route"]

M = TypeVar("M", bound=type)


@dataclass(frozen=True)
class Bound:
    """How far a route's result may be from its formula's.

    ``exact``: bit for bit. ``ulp``: within ``ulp`` units in the last place of the output type,
    NaN exactly where the formula has NaN and the same infinities. ``accumulation``: a sum of
    products, ``|fast - formula| <= factor * e * sqrt(K) * sum(|a*b|)`` (``e`` the machine epsilon
    of the computing type, 2**-23 for float32, ``K`` the number of terms): the two summation
    orders' rounding; NaN and infinities as the formula's. ``note`` says where another limit
    applies instead.
    """

    kind: Literal["exact", "ulp", "accumulation"]
    ulp: int = 0
    factor: float = 0.0
    note: str = ""

    def __str__(self) -> str:
        text = {"exact": "bit for bit", "ulp": f"within {self.ulp} ulp",
                "accumulation": f"within {self.factor:g}·e·sqrt(K)·sum|a·b|"}[self.kind]
        return f"{text} ({self.note})" if self.note else text


EXACT = Bound("exact")


def ulp(n: int, note: str = "") -> Bound:
    """A bound of ``n`` ulp of the output type."""
    return Bound("ulp", ulp=n, note=note)


def accumulation(factor: float, note: str = "") -> Bound:
    """The bound of a sum of products summed in another order (see :class:`Bound`)."""
    return Bound("accumulation", factor=factor, note=note)


@dataclass(frozen=True)
class Route:
    """One fast route: what it replaces, when it applies and how close it stays."""

    #: Short name, unique per formula class (``"softmax-f32"``).
    name: str
    #: The formula kernel class (in :mod:`reference_plugin.ops`) the route replaces.
    formula: type[OpRun]
    bound: Bound
    #: Which nodes and inputs take it (the rest falls back to the formula).
    when: str
    #: Kernel route: the class whose methods are mixed in front of the formula's.
    mixin: type | None = None
    #: Writer route: ``writer(*inputs, out)``.
    writer: Callable[..., None] | None = None
    #: Kernel routes of one formula are mixed in ascending order (lowest outermost).
    order: int = 10

    @property
    def op_type(self) -> str:
        return self.formula.op_type

    @property
    def since(self) -> int:
        return self.formula.since

    @property
    def kind(self) -> str:
        return "kernel" if self.mixin is not None else "writer"

    @property
    def key(self) -> tuple[str, int, str]:
        """``(op type, version, name)``: how the route is listed."""
        return (self.op_type, self.since, self.name)


@dataclass(frozen=True)
class ProgramRoute:
    """Speed the program adds around its kernels: the same kernels on the same values, so the
    same bits as running them one by one on one thread in this process."""

    name: str
    #: The module that implements it.
    module: str
    when: str
    bound: Bound = EXACT


#: The program's own routes (what the compiled Program does around its kernels).
PROGRAM_ROUTES: tuple[ProgramRoute, ...] = (
    ProgramRoute("chains", "reference_plugin.fast.chains",
                 "runs of f32/f64 elementwise nodes over static values of 256K elements or more"),
    ProgramRoute("in-place", "reference_plugin.fast.inplace",
                 "an elementwise node with a writer route (or a route's write_into: BatchNormInference, "
                 "Swish) whose input is a fresh value only it reads"),
    ProgramRoute("intra-op-threads", "reference_plugin.fast.parallel",
                 "chains, unary-blocks and the row routes, with more than one core per stream"),
    ProgramRoute("process-streams", "reference_plugin.fast.process_streams",
                 "REFERENCE_PROCESS_STREAMS: each stream's inferences in a worker process"),
)

_ROUTES: dict[tuple[type[OpRun], str], Route] = {}
_FAST: dict[type[OpRun], type[OpRun]] = {}
#: Every class :func:`fast_class` returned -> its formula class.
_FORMULA_OF: dict[type, type[OpRun]] = {}
#: The modules that register routes (imported on first use, in this order).
ROUTE_MODULES: tuple[str, ...] = ("elementwise", "gelu", "softmax", "mvn", "matmul", "convolution", "pooling",
                                 "batch_norm", "swish", "attention")
_loaded = False
_lock = threading.RLock()  # programs are compiled from several threads at once


def _add(route: Route) -> None:
    key = (route.formula, route.name)
    if key in _ROUTES:
        raise ValueError(f"route {route.name!r} of {route.op_type}-{route.since} is registered twice")
    if _FAST:
        raise RuntimeError(f"route {route.name!r} registered after kernels were built")
    _ROUTES[key] = route


def kernel_route(name: str, formulas: tuple[type[OpRun], ...], bound: Bound, when: str,
                 order: int = 10) -> Callable[[M], M]:
    """Class decorator: the class is a kernel route for each of ``formulas`` (each must be a
    subclass of the class's own base, so the class can be mixed in front of it)."""

    def deco(mixin: M) -> M:
        for formula in formulas:
            _add(Route(name, formula, bound, when, mixin=mixin, order=order))
        return mixin

    return deco


def writer_route(name: str, formula: type[OpRun], writer: Callable[..., None], when: str,
                 bound: Bound = EXACT) -> None:
    """Register ``writer`` as the in-place writer of ``formula``'s kernels."""
    _add(Route(name, formula, bound, when, writer=writer))


def _load() -> None:
    global _loaded
    with _lock:
        if not _loaded:
            for name in ROUTE_MODULES:
                importlib.import_module(f"reference_plugin.fast.{name}")
            _loaded = True


def routes() -> list[Route]:
    """Every registered route, by op type, version and name."""
    _load()
    return sorted(_ROUTES.values(), key=lambda r: r.key)


def fast_class(formula: type[OpRun]) -> type[OpRun]:
    """``formula`` with its kernel routes mixed in front (``formula`` itself when it has none);
    built once per class. The class keeps the formula's name, op type and version."""
    cls = _FAST.get(formula)
    if cls is not None:
        return cls
    _load()
    with _lock:
        cls = _FAST.get(formula)
        if cls is None:
            mixins = sorted((r for r in _ROUTES.values() if r.formula is formula and r.mixin is not None),
                            key=lambda r: (r.order, r.name))
            if mixins:
                bases = tuple(dict.fromkeys(r.mixin for r in mixins if r.mixin is not None))
                cls = type(formula.__name__, (*bases, formula),
                           {"__module__": __name__, "__qualname__": formula.__qualname__,
                            "__doc__": formula.__doc__})
            else:
                cls = formula
            _FORMULA_OF[cls] = formula
            _FAST[formula] = cls
        return cls


def route_class(route: Route) -> type[OpRun]:
    """The formula class with this one kernel route mixed in (for testing a route alone)."""
    if route.mixin is None:
        raise ValueError(f"route {route.name!r} of {route.op_type}-{route.since} is a writer, not a kernel route")
    return type(route.formula.__name__, (route.mixin, route.formula), {"__module__": __name__})


def make_kernel(node: Node) -> OpRun:
    """The device's kernel for ``node``: its formula kernel with the node's routes mixed in.

    :raises UnsupportedOpError: when no kernel fits the node's op type and version.
    :raises CompileError: naming the node, when the kernel rejects the node's attributes or inputs.
    """
    return build_kernel(fast_class(load_op(node.type_name, node.version)), node)


def formula_of(kernel: Any) -> type[OpRun] | None:
    """The formula class of a kernel :func:`make_kernel` built, else None (a kernel of any other
    class: a derived device's subclass, or a wrapper)."""
    return _FORMULA_OF.get(type(kernel))


def writer_for(kernel: Any) -> Callable[..., None] | None:
    """The writer route of ``kernel``'s formula when ``kernel`` is exactly what
    :func:`make_kernel` builds for it, else None."""
    formula = formula_of(kernel)
    if formula is None:
        return None
    route = next((r for r in _ROUTES.values() if r.formula is formula and r.writer is not None), None)
    return route.writer if route is not None else None
