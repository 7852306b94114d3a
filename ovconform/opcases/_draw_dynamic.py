"""The case builder of the basic movement, shape and infrastructure strategies (Transpose, Concat,
Split, VariadicSplit, Gather, StridedSlice, Broadcast, Reshape, Squeeze, Unsqueeze, ShapeOf,
ReadValue, Assign).

It draws its own seed, makes every array with ``numpy.random.default_rng`` from it (so a case is a
pure function of hypothesis' draws), sometimes declares a Parameter's shape dynamic (``?``) or
bounded, and builds integer index inputs as Constants or Parameters. Shapes stay tiny (at most a
few thousand elements); data tensors are never zero-sized (only an index list may be empty).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform.ir import Dimension, Model, Node, Output, Type
from ovconform.opcases import OpCase
from ovconform.opset import constant, parameter, result

Draw = Callable[[st.SearchStrategy[Any]], Any]

DATA_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8, Type.boolean)
INDEX_TYPES = (Type.i32, Type.i64)
MAX_ELEMENTS = 4096


# -- drawing helpers ------------------------------------------------------------------------------

def draw_type(draw: Draw, types: Sequence[Type] = DATA_TYPES) -> Type:
    """f32 about half the time, otherwise any of ``types``."""
    return draw(st.one_of(st.just(Type.f32), st.sampled_from(list(types))))


def draw_shape(draw: Draw, min_rank: int = 0, max_rank: int = 4, max_dim: int = 5) -> list[int]:
    """A static shape with dims 1..max_dim (size-1 dims are common) and few elements."""
    rank = draw(st.integers(min_rank, max_rank))
    dims = draw(st.lists(st.integers(1, max_dim), min_size=rank, max_size=rank))
    while int(np.prod(dims, dtype=np.int64)) > MAX_ELEMENTS:
        dims[dims.index(max(dims))] -= 1
    return dims


def draw_axis(draw: Draw, rank: int) -> int:
    """An axis in [-rank, rank-1]: the negative spelling about a third of the time."""
    axis = draw(st.integers(0, rank - 1))
    return axis - rank if draw(st.integers(0, 2)) == 0 else axis


def random_array(rng: np.random.Generator, shape: Sequence[int], et: Type) -> np.ndarray:
    """Values of element type ``et``: normals for floats, small integers, random booleans."""
    shape = tuple(shape)
    if et == Type.boolean:
        return rng.random(shape) < 0.5
    if et.is_real():
        return rng.standard_normal(shape).astype(et.to_dtype())
    lo = 0 if not et.is_signed() else -100
    return rng.integers(lo, 100, size=shape).astype(et.to_dtype())


class CaseBuilder:
    """Collects a case's Parameters and their arrays (in order) from one drawn seed."""

    def __init__(self, draw: Draw) -> None:
        self.draw = draw
        self.rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        self.params: list[Node] = []
        self.inputs: dict[str, np.ndarray] = {}
        self.dynamic = False

    def data(self, shape: Sequence[int], et: Type, name: str = "data", dynamic_ok: bool = True,
             bounded_ok: bool = True) -> Node:
        """A Parameter fed with random values; its declared shape is sometimes dynamic (``?``) or,
        when ``bounded_ok``, bounded."""
        return self.feed(random_array(self.rng, shape, et), et, name, dynamic_ok, bounded_ok)

    def feed(self, value: np.ndarray, et: Type, name: str, dynamic_ok: bool = False, bounded_ok: bool = True) -> Node:
        """A Parameter fed with ``value``."""
        shape: list[Any] = list(value.shape)
        if dynamic_ok and shape and self.draw(st.integers(0, 5)) == 0:
            shape = [self._relax(d, bounded_ok) for d in shape]
            self.dynamic = True
        node = parameter(shape, et, name=name)
        self.params.append(node)
        self.inputs[name] = np.asarray(value, dtype=et.to_dtype())
        return node

    def _relax(self, d: int, bounded_ok: bool) -> Dimension | int:
        kind = self.draw(st.integers(0, 2 if bounded_ok else 1))
        return d if kind == 0 else Dimension() if kind == 1 else Dimension(max(1, d - 1), d + 2)

    def index(self, values: Any, name: str, param_chance: int = 0, types: Sequence[Type] = INDEX_TYPES) -> Output:
        """An integer index input: a Constant, or (one time in ``param_chance``) a Parameter."""
        et = self.draw(st.sampled_from(list(types)))
        arr = np.asarray(values, dtype=et.to_dtype())
        if param_chance and self.draw(st.integers(1, param_chance)) == 1:
            return self.feed(arr, et, name).output(0)
        return constant(arr).output(0)

    def case(self, op_type: str, version: int, outputs: Sequence[Output], note: str = "",
             sinks: Sequence[Node] = (), **extra: Any) -> OpCase:
        results = [result(o) for o in outputs]
        name = f"{op_type}-{version}"
        model = Model(results, list(sinks), self.params, name) if sinks else Model(results, self.params, name)
        extra.setdefault("dynamic", self.dynamic)
        return OpCase(op_type, version, model, self.inputs, note, extra)
