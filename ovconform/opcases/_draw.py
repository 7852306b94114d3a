"""Drawing helpers shared by the case strategies: shapes, seeds, seeded arrays, model assembly,
the element-type groups, the elementwise case factories (binary and unary) and the sliding windows
of the convolution and pooling cases.

Hypothesis draws the structure of a case (types, shapes, attributes) and one integer seed;
every array is then generated from that seed with numpy's ``default_rng``, never element by
element, so cases stay fast and are reproduced exactly from the same draws.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Model, Node, Output, Type, as_type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opset import parameter
from ovconform.opset._window import AUTO_PAD, dilated

T = TypeVar("T")
Draw = Callable[[st.SearchStrategy[T]], T]

MAX_ELEMENTS: Final = 4096
FLOATS: Final = (Type.f32, Type.f16)

Shape = tuple[int, ...]


def draw_seed(draw: Draw[Any]) -> int:
    return draw(st.integers(0, 2**32 - 1))


def draw_dim(draw: Draw[Any], max_side: int = 5) -> int:
    """A dimension in ``[1, max_side]``, size 1 drawn often (it exercises broadcasting)."""
    return draw(st.one_of(st.just(1), st.integers(1, max_side)))


def draw_shape(draw: Draw[Any], min_rank: int = 0, max_rank: int = 4, max_side: int = 5) -> Shape:
    rank = draw(st.integers(min_rank, max_rank))
    return tuple(draw_dim(draw, max_side) for _ in range(rank))


def draw_broadcast_shapes(draw: Draw[Any], count: int = 2, min_rank: int = 0, max_rank: int = 4,
                          max_side: int = 5) -> list[Shape]:
    """``count`` shapes that broadcast together (numpy rules): each is a suffix of one target
    shape, with some of its dims replaced by 1."""
    target = draw_shape(draw, min_rank, max_rank, max_side)
    shapes = []
    for _ in range(count):
        rank = draw(st.integers(0, len(target)))
        suffix = target[len(target) - rank:]
        ones = draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
        shapes.append(tuple(1 if one else d for d, one in zip(suffix, ones, strict=True)))
    full = draw(st.integers(0, count - 1))  # one operand carries the full rank, so it is used
    shapes[full] = target[:len(target) - len(shapes[full])] + shapes[full]
    return shapes


def type_limits(et: Type) -> tuple[float, float]:
    if et.is_real():
        return -65504.0, 65504.0
    if et == Type.boolean:
        return 0, 1
    info = np.iinfo(et.to_dtype())
    return int(info.min), int(info.max)


class CaseBuilder:
    """Collects the Parameters of one case and generates their arrays from one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self._params: list[Node] = []
        self._inputs: dict[str, np.ndarray] = {}

    # -- arrays ---------------------------------------------------------------------------
    def uniform(self, shape: Sequence[int], et: Type, low: float, high: float) -> np.ndarray:
        """Values in ``[low, high]`` (clipped to the type): uniform floats, integers, or booleans."""
        if et == Type.boolean:
            return self.rng.random(tuple(shape)) < 0.5
        tlo, thi = type_limits(et)
        low, high = max(low, tlo), min(high, thi)
        if et.is_real():
            return self.rng.uniform(low, high, tuple(shape)).astype(et.to_dtype())
        return self.rng.integers(int(np.ceil(low)), int(np.floor(high)) + 1, tuple(shape)).astype(et.to_dtype())

    def integers(self, shape: Sequence[int], et: Type, low: int, high: int) -> np.ndarray:
        """Whole numbers in ``[low, high]`` stored as ``et`` (booleans: 0 or 1)."""
        tlo, thi = type_limits(et)
        values = self.rng.integers(max(low, int(tlo)), min(high, int(thi)) + 1, tuple(shape))
        return values.astype(et.to_dtype())

    def nonzero(self, shape: Sequence[int], et: Type, low: float, high: float) -> np.ndarray:
        """Values with ``low <= |v| <= high`` and a random sign (unsigned types: positive)."""
        magnitude = self.uniform(shape, et, low, high)
        if et.is_signed():
            sign = np.where(self.rng.random(tuple(shape)) < 0.5, -1, 1).astype(et.to_dtype())
            return (magnitude * sign).astype(et.to_dtype())
        return magnitude

    def distinct(self, shape: Sequence[int], et: Type, scale: float = 1.0) -> np.ndarray:
        """All-different values (a shuffled ramp, centred on 0 for signed types and from 1 up for
        unsigned ones, so none equals the lowest value a padded max may use), hence no ties."""
        size = int(np.prod(shape, dtype=np.int64))
        ramp = (self.rng.permutation(size) + (-(size // 2) if et.is_signed() else 1)) * scale
        return ramp.reshape(tuple(shape)).astype(et.to_dtype())

    # -- graph ----------------------------------------------------------------------------
    def param(self, name: str, value: np.ndarray) -> Node:
        """A Parameter named ``name`` (friendly and tensor name) whose input is ``value`` (an object
        array of str: a string Parameter)."""
        value = np.asarray(value)
        node = parameter(list(value.shape), Type.string if value.dtype == object else as_type(value.dtype), name)
        self._params.append(node)
        self._inputs[name] = value
        return node

    def const(self, value: np.ndarray, et: Type | None = None) -> Node:
        """A Constant holding ``value`` with its exact shape (0-d stays 0-d)."""
        arr = np.array(value, dtype=(et or as_type(np.asarray(value).dtype)).to_dtype(), order="C")
        arr.setflags(write=False)
        return make_node("Constant", 1, [], {"element_type": as_type(arr.dtype), "shape": list(arr.shape)},
                         data=arr)

    def input(self, name: str, value: np.ndarray, as_constant: bool) -> Node:
        return self.const(value) if as_constant else self.param(name, value)

    def finish(self, op_type: str, version: int, node: Node | Output, note: str = "") -> OpCase:
        """The case: every output of the op under test becomes a model Result."""
        outputs = node.outputs() if isinstance(node, Node) else [node]
        model = Model(outputs, self._params, f"{op_type}_{version}")
        for name, value in self._inputs.items():
            assert value.size <= MAX_ELEMENTS, f"input {name!r} of {op_type}-{version} has {value.size} elements"
        return OpCase(op_type, version, model, dict(self._inputs), note)


#: Makes an input array of (shape, element type) from the case's seeded generator.
Gen1 = Callable[["CaseBuilder", tuple[int, ...], Type], np.ndarray]


def unary_case(op: str, version: int, types: tuple[Type, ...], gen: Gen1, note: str,
               attrs: Callable[[Draw[Any]], dict[str, Any]] = lambda draw: {}) -> None:
    """Register the case strategy of a one-input op: a Parameter "x" of a drawn type and shape,
    filled by ``gen``, and the op with ``attrs(draw)``."""
    from ovconform.opcases import register_case

    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(types))
        shape = draw_shape(draw)
        node_attrs = attrs(draw)
        b = CaseBuilder(draw_seed(draw))
        x = b.param("x", gen(b, shape, et))
        return b.finish(op, version, make_node(op, version, [x.output(0)], node_attrs), note)

    build.__name__ = f"case_{op}_{version}"
    register_case(op, version)(build)


SIGNED = (Type.i32, Type.i64, Type.i8)
NUMERIC = (*FLOATS, *SIGNED, Type.u8)


_FLOAT_NOTE = "floating-point inputs only: OpenVINO CPU rounds integer results where the spec is silent."


AXES_TYPES = (Type.i32, Type.i64)


def _ints(b: CaseBuilder, name: str, values: list[int], et: Type, constant: bool) -> Any:
    return b.input(name, np.array(values, dtype=et.to_dtype()), constant)


Gen2 = Callable[[CaseBuilder, tuple[int, ...], tuple[int, ...], Type], tuple[np.ndarray, np.ndarray]]


def _both(low: float, high: float, small: tuple[float, float] | None = None) -> Gen2:
    """Both operands in ``[low, high]``; 8-bit types in ``small`` (so results do not overflow)."""
    def gen(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = small if (small and et.bitwidth == 8) else (low, high)
        return b.uniform(sa, et, lo, hi), b.uniform(sb, et, lo, hi)

    return gen


def _range(low: float, high: float, f16: tuple[float, float] | None = None) -> Gen1:
    def gen(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
        lo, hi = f16 if (f16 and et == Type.f16) else (low, high)
        return b.uniform(shape, et, lo, hi)

    return gen


def _draw_pair_shapes(draw: Draw[Any], mode: str) -> list[tuple[int, ...]]:
    if mode == "none":
        shape = draw_shape(draw)
        return [shape, shape]
    return draw_broadcast_shapes(draw, 2)


def _binary_case(op: str, types: tuple[Type, ...], gen: Gen2, note: str) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(types))
        mode = draw(st.sampled_from(("numpy", "numpy", "numpy", "none")))
        sa, sb = _draw_pair_shapes(draw, mode)
        # OpenVINO CPU fails to compile auto_broadcast="none" with a Constant of only size-1 dims
        rhs_constant = mode == "numpy" and draw(st.booleans()) and draw(st.booleans())
        b = CaseBuilder(draw_seed(draw))
        a_val, b_val = gen(b, sa, sb, et)
        x, y = b.param("x", a_val), b.input("y", b_val, rhs_constant)
        if op == "Divide":
            node = opset.divide(x, y, mode, draw(st.booleans()))
        else:
            node = make_node(op, 1, [x.output(0), y.output(0)], {"auto_broadcast": mode})
        return b.finish(op, 1, node, note)

    build.__name__ = f"case_{op}"
    register_case(op, 1)(build)


def draw_axes(draw: Draw[Any], rank: int) -> list[int]:
    """A non-empty subset of ``range(rank)`` in drawn order, each axis possibly written negative."""
    axes = draw(st.permutations(range(rank)))[:draw(st.integers(1, rank))]
    return [a - rank if draw(st.booleans()) else a for a in axes]


MAX_SIDE = {1: 12, 2: 7, 3: 4}


@dataclass
class Window:
    """Drawn sliding-window attributes and a data spatial shape they fit."""

    kernel: list[int]
    strides: list[int]
    dilations: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    auto_pad: str
    spatial: list[int]


def draw_window(draw: Draw[Any], n: int, max_kernel: int = 3, dilate: bool = True,
                pads_below_kernel: bool = False) -> Window:
    """Window attributes for ``n`` spatial axes and input sizes the (padded) kernel fits in."""
    auto_pad = draw(st.sampled_from(AUTO_PAD + ("explicit",)))
    w = Window([], [], [], [], [], auto_pad, [])
    for _ in range(n):
        k, d = draw(st.integers(1, max_kernel)), draw(st.integers(1, 2)) if dilate else 1
        dk = dilated(k, d)
        pad = st.integers(0, dk - 1) if pads_below_kernel else st.integers(0, 2)
        pb, pe = draw(pad), draw(pad)
        used = 0 if auto_pad != "explicit" else pb + pe
        need = 1 if auto_pad.startswith("same") else max(1, dk - used)
        w.kernel.append(k)
        w.dilations.append(d)
        w.strides.append(draw(st.integers(1, 3)))
        w.pads_begin.append(pb)
        w.pads_end.append(pe)
        w.spatial.append(draw(st.integers(need, max(need, MAX_SIDE[n]))))
    return w
