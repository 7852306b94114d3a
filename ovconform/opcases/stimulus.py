"""Stimulus cases: named, deterministic op cases at the sizes and values where kernels break.

The generated cases (:func:`ovconform.opcases.case_strategy`) draw attributes and shapes broadly
but small — the *tiny* size class. A vector kernel, a tiled matrix product or a blocked
reduction only shows its bugs at other sizes and values, so each op version whose kernel a
device would tile or vectorise also gets **stimulus cases**, registered by its family module
(``ovconform/opcases/<family>.py``, at its end) with :func:`register_stimuli` or the recipes of
:mod:`ovconform.opcases._stimulus_recipes` — or, for the op versions issue #20 left without any, by
the :data:`RECIPE_MODULES` (``_stimulus_movement``: Pad, Tile, slices, Broadcast, scatters;
``_stimulus_numeric``: Convert, normalizations, FakeQuantize, attention, ConvolutionBackpropData,
Einsum, adaptive pooling; ``_stimulus_recurrent``: RNN/GRU/LSTM cells and sequences, the DFT family;
``_stimulus_detection``: GroupConvolutionBackpropData, NonMaxSuppression, DetectionOutput), and
``_stimulus_geometry`` adds geometries across families (rank-5/6 axes and broadcasts, asymmetric and
automatic pads, TopK index order past k = 32, Concat of 10-12 inputs, ``ceil_torch`` windows, exact
nearest-neighbour ties, zero-size tensors, i64 values beyond the i32 range) and ``_stimulus_modes``
the attribute modes and values the generated cases do not draw (DepthToSpace/SpaceToDepth modes at
block 3 and 4, StridedSlice masks and begins on negative strides, Einsum diagonals, Bucketize ties of
integers, NormalizeL2/MVN ``eps_mode`` with a deciding ``eps``, Round's halves away from zero) and
``_stimulus_types`` the element-type corners (run-time Converts to f8 and narrowing ones, bf16 NaN
payloads, i64 beyond i32, FakeConvert past the f8 maximum, f16 overflow to infinity, i32 past 2^24,
NUL bytes and empty ranges in strings) —
and run by the op suite next to the generated ones (test ids
``MatMul-1-k65``, ``Relu-1-special-f32``, ...).

**Size classes**, along the axes that matter for the op (innermost, reduction, channel, K):

* ``tiny`` — the generated cases (a handful of elements per axis);
* ``remainder`` — an axis of 7, 9, 15, 17, 31, 33, 63, 65, 127 or 129 elements (:data:`REMAINDERS`):
  one short of and one past the 8-, 16-, 32-, 64- and 128-wide blocks vector and tiled kernels
  use, so the remainder lanes and the tail tile run (:data:`STANDARD_REMAINDERS` at standard
  depth, all of them at exhaustive);
* ``large`` — at least 64K elements in an input (:data:`LARGE_ELEMENTS`), K and channels of at
  least 256 (:data:`LARGE_K`), spatial sizes of at least 56×56 (:data:`LARGE_SPATIAL`) for 2-D
  convolution and pooling: where devices split work across threads and tiles.

**Value classes** (:data:`VALUE_CLASSES`), only where the spec defines the result:

* ``ordinary`` — values inside the op's domain;
* ``large-magnitude`` — e.g. Softmax logits whose exponentials overflow unless the maximum is
  subtracted first;
* ``long-reduction`` — at least 4096 terms per output element (:data:`LONG_REDUCTION`);
* ``cancellation`` — sums of large opposite values, judged against the terms' magnitudes
  (:func:`ovconform.tolerances.conditioned_tolerance`);
* ``special`` — NaN, ±Inf, -0.0 and subnormals (:func:`with_specials`) for elementwise,
  comparison, pooling, reduction and Softmax ops, following IEEE 754 arithmetic (NaN propagates
  through max as through any arithmetic, as IEEE 754-2019 ``maximum`` does);
* ``int-boundary`` — negative operands (floor division and modulo), the type's minimum and
  maximum (:func:`with_boundaries`), where the result does not overflow.

**Element types**: every type the op's spec allows (:data:`NUMERIC`, :data:`FLOATS`, ...), given
per op by its family module; bf16 values are stored as uint16 as everywhere in ovconform.

**Dynamic mode**: :func:`dynamic_case` turns cases of one structure at a min, mid and max shape
into one case whose Parameters have dynamic dimensions; the op suite compiles it once and infers
the three shapes on the same request (``OpCase.extra["dynamic_inputs"]`` holds the second and
third input sets), as OpenVINO's dynamic conformance mode does, and then the min shape again (an
output that must shrink after the largest).

Each stimulus case carries the lowest :class:`~ovconform.opcases.depth.Depth` that runs it.
Cases are built lazily (collection needs only the labels) and deterministically: the seed is a
hash of the op, version and label.
"""

from __future__ import annotations

import functools
import importlib
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from ovconform.errors import NotFoundError, ValidationError
from ovconform.ir import Model, Node, Output, Type, as_partial_shape, as_type, f32_to_bf16, make_node
from ovconform.opcases import OpCase
from ovconform.opcases.depth import Depth
from ovconform.opset import parameter

__all__ = [
    "FLOATS", "INTEGERS", "LARGE_ELEMENTS", "LARGE_K", "LARGE_SPATIAL", "LONG_REDUCTION", "NUMERIC", "REMAINDERS",
    "SIGNED", "SIZE_CLASSES", "STANDARD_REMAINDERS", "UNSIGNED", "VALUE_CLASSES", "Stimulus", "StimulusBuilder",
    "all_stimulus_keys", "build_stimulus", "cast", "dynamic_case", "register_stimuli", "remainder_depth",
    "seed_of", "special_pool", "stimuli", "with_boundaries", "with_specials",
]

#: Axis lengths one short of and one past the block widths of vector and tiled kernels.
REMAINDERS: Final = (7, 9, 15, 17, 31, 33, 63, 65, 127, 129)
#: The remainders standard depth runs (7 of 8; 1 past 16; 31 of 32 with 63 past 32; 1 past 128).
STANDARD_REMAINDERS: Final = (7, 17, 63, 129)
#: The large size class: elements in an input, K / channels, spatial side.
LARGE_ELEMENTS: Final = 1 << 16
LARGE_K: Final = 256
LARGE_SPATIAL: Final = 56
#: Terms per output element of a long reduction.
LONG_REDUCTION: Final = 4096
SIZE_CLASSES: Final = ("tiny", "remainder", "large")
VALUE_CLASSES: Final = ("ordinary", "large-magnitude", "long-reduction", "cancellation", "special", "int-boundary")

FLOATS: Final = (Type.f32, Type.f16, Type.bf16, Type.f64)
SIGNED: Final = (Type.i8, Type.i16, Type.i32, Type.i64)
UNSIGNED: Final = (Type.u8, Type.u16, Type.u32, Type.u64)
INTEGERS: Final = (*SIGNED, *UNSIGNED)
#: "any numeric type" in the spec's Types sections.
NUMERIC: Final = (*FLOATS, *INTEGERS)
#: Largest elements of one stimulus input (a guard against a recipe gone wrong).
MAX_STIMULUS_ELEMENTS: Final = 1 << 21


def remainder_depth(n: int) -> Depth:
    """Standard for :data:`STANDARD_REMAINDERS`, exhaustive for the other remainders."""
    return Depth.STANDARD if n in STANDARD_REMAINDERS else Depth.EXHAUSTIVE


def seed_of(op_type: str, version: int, label: str) -> int:
    """The case's seed: stable across processes and Python versions (crc32, not hash())."""
    return zlib.crc32(f"{op_type}-{version}-{label}".encode())


# -- arrays -------------------------------------------------------------------------------------------

def cast(values: Any, et: Type) -> np.ndarray:
    """``values`` (numbers) stored as ``et``: bf16 rounded to nearest and kept as uint16, booleans
    as ``values != 0``, other types by numpy's conversion (callers keep integers in range)."""
    arr = np.asarray(values)
    if et == Type.bf16:
        return f32_to_bf16(arr.astype(np.float32))
    if et == Type.boolean:
        return arr != 0
    with np.errstate(over="ignore", invalid="ignore"):
        return arr.astype(et.to_dtype())


def _finfo(et: Type) -> tuple[float, float, float]:
    """(smallest subnormal, smallest normal, largest finite) of a floating-point type."""
    if et == Type.bf16:
        return 2.0 ** -133, 2.0 ** -126, float(np.float32(3.3895314e38))
    info = np.finfo(et.to_dtype())
    return float(info.smallest_subnormal), float(info.tiny), float(info.max)


def special_pool(et: Type, kinds: Iterable[str]) -> list[float]:
    """The special values of ``et`` for ``kinds`` (``nan``, ``inf``, ``-inf``, ``-0``, ``sub``:
    ± the smallest subnormal and a mid-range subnormal; ``max``: ± the largest finite value)."""
    sub, tiny, big = _finfo(et)
    pool: dict[str, list[float]] = {"nan": [float("nan")], "inf": [float("inf")], "-inf": [float("-inf")],
                                    "-0": [-0.0], "sub": [sub, -sub, tiny / 8, -tiny / 8], "max": [big, -big]}
    out: list[float] = []
    for kind in kinds:
        if kind not in pool:
            raise ValidationError(f"special value kind {kind!r} is not known; allowed: {sorted(pool)}.")
        out += pool[kind]
    return out


def with_specials(rng: np.random.Generator, values: np.ndarray, et: Type, kinds: Iterable[str],
                  fraction: float = 0.25) -> np.ndarray:
    """``values`` (float64, ordinary) with about ``fraction`` of the elements replaced by special
    values of ``et``, every special value at least once, at seeded positions; cast to ``et``."""
    out = np.array(values, dtype=np.float64).reshape(-1)
    pool = special_pool(et, kinds)
    count = min(out.size, max(len(pool), int(out.size * fraction)))
    where = rng.permutation(out.size)[:count]
    out[where] = np.resize(np.array(pool), count)
    return cast(out.reshape(np.shape(values)), et)


def with_boundaries(rng: np.random.Generator, values: np.ndarray, et: Type, *, lowest: bool = True,
                    highest: bool = True, fraction: float = 0.25) -> np.ndarray:
    """Integer ``values`` with about ``fraction`` of the elements replaced by boundary values of
    ``et`` (its minimum and minimum + 1 when ``lowest``, maximum and maximum - 1 when ``highest``,
    and -1, 0, 1), each at least once, at seeded positions."""
    info = np.iinfo(et.to_dtype())
    pool = [0, 1] + ([-1] if info.min < 0 else [])
    pool += [int(info.min), int(info.min) + 1] if lowest else []
    pool += [int(info.max), int(info.max) - 1] if highest else []
    out = np.array(values, dtype=object).reshape(-1)
    count = min(out.size, max(len(pool), int(out.size * fraction)))
    where = rng.permutation(out.size)[:count]
    for i, w in enumerate(where):
        out[w] = pool[i % len(pool)]
    return np.array(out.tolist(), dtype=et.to_dtype()).reshape(np.shape(values))


class StimulusBuilder:
    """The Parameters and seeded arrays of one stimulus case (like the generated cases' builder,
    with bf16 inputs and large arrays)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self._params: list[Node] = []
        self._inputs: dict[str, np.ndarray] = {}

    def uniform(self, shape: Sequence[int], et: Type, low: float, high: float) -> np.ndarray:
        """Values in ``[low, high]`` stored as ``et`` (integers: whole numbers; booleans: random)."""
        shape = tuple(shape)
        if et == Type.boolean:
            return self.rng.random(shape) < 0.5
        if et.is_real():
            return cast(self.rng.uniform(low, high, shape), et)
        info = np.iinfo(et.to_dtype())
        lo, hi = max(int(np.ceil(low)), int(info.min)), min(int(np.floor(high)), int(info.max))
        return self.rng.integers(lo, hi, shape, endpoint=True, dtype=np.int64 if info.min < 0 or info.max < 2 ** 63
                                 else np.uint64).astype(et.to_dtype())

    def normal(self, shape: Sequence[int], et: Type, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        """Normal values stored as ``et`` (a floating-point type)."""
        return cast(self.rng.normal(mean, std, tuple(shape)), et)

    def param(self, name: str, value: np.ndarray, et: Type | None = None) -> Node:
        """A Parameter ``name`` of ``value``'s shape and type ``et`` (default: from the dtype)."""
        value = np.asarray(value)
        if value.size > MAX_STIMULUS_ELEMENTS:
            raise ValidationError(f"stimulus input {name!r} has {value.size} elements; at most "
                                  f"{MAX_STIMULUS_ELEMENTS} are allowed.")
        node = parameter(list(value.shape), et or as_type(value.dtype), name)
        self._params.append(node)
        self._inputs[name] = value
        return node

    def const(self, value: Any, et: Type | None = None) -> Node:
        """A Constant holding ``value`` (stored as ``et``; bf16 values given as uint16)."""
        arr = np.array(value, order="C")
        element_type = et or as_type(arr.dtype)
        arr = np.array(arr, dtype=element_type.to_dtype(), order="C")
        arr.setflags(write=False)
        return make_node("Constant", 1, [], {"element_type": element_type, "shape": list(arr.shape)}, data=arr)

    def input(self, name: str, value: np.ndarray, as_constant: bool, et: Type | None = None) -> Node:
        return self.const(value, et) if as_constant else self.param(name, value, et)

    def finish(self, op_type: str, version: int, node: Node | Output, note: str = "") -> OpCase:
        """The case: every output of the op under test becomes a model Result."""
        outputs = node.outputs() if isinstance(node, Node) else [node]
        model = Model(outputs, self._params, f"{op_type}_{version}")
        return OpCase(op_type, version, model, dict(self._inputs), note)


# -- dynamic mode ---------------------------------------------------------------------------------------

def _constants(model: Model) -> list[np.ndarray]:
    return [np.asarray(n.data) for n in model.get_ordered_ops() if n.type_name == "Constant"]


def dynamic_case(cases: Sequence[OpCase], bounded: bool = False, note: str = "") -> OpCase:
    """One case from ``cases`` (the same op and graph built at a min, mid and max shape): the first
    case's model with every Parameter dimension that differs between the cases made dynamic
    (``?``, or ``min..max`` when ``bounded``); its inputs are the first case's, and
    ``extra["dynamic_inputs"]`` holds the others' in order (the op suite infers them all on one request,
    then the first again: a smaller shape after the largest, :func:`suites._op_runner.case_steps`).

    :raises ValidationError: when the cases differ in anything but Parameter dimensions (ranks,
        Parameters, constants).
    """
    if len(cases) < 2:
        raise ValidationError(f"dynamic_case needs at least two cases of one graph, got {len(cases)}.")
    first = cases[0]
    model = first.model
    names = [p.friendly_name for p in model.get_parameters()]
    for other in cases[1:]:
        if [p.friendly_name for p in other.model.get_parameters()] != names:
            raise ValidationError(f"dynamic_case: {first.op_type}-{first.version} cases have different Parameters.")
        theirs = _constants(other.model)
        ours = _constants(model)
        if len(theirs) != len(ours) or any(a.shape != b.shape or not np.array_equal(a, b, equal_nan=True)
                                           for a, b in zip(ours, theirs, strict=True)):
            raise ValidationError(f"dynamic_case: {first.op_type}-{first.version} cases have different constants; "
                                  "only Parameter shapes may change between the shapes of a dynamic case.")
    for p in model.get_parameters():
        shapes = [np.shape(c.inputs[p.friendly_name]) for c in cases]
        if len({len(s) for s in shapes}) != 1:
            raise ValidationError(f"dynamic_case: Parameter {p.friendly_name!r} changes rank: {shapes}.")
        dims: list[Any] = []
        for sizes in zip(*shapes, strict=True):
            if len(set(sizes)) == 1:
                dims.append(sizes[0])
            else:
                dims.append(f"{min(sizes)}..{max(sizes)}" if bounded else -1)
        p.attrs["shape"] = as_partial_shape(dims)
    model.validate_nodes_and_infer_types()
    extra = {"dynamic_inputs": [dict(c.inputs) for c in cases[1:]]}
    return OpCase(first.op_type, first.version, model, dict(first.inputs), note or first.note, extra)


# -- the registry --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Stimulus:
    """One stimulus case of an op version.

    :param label: the case's name in test ids (``"k65"``, ``"special-f16"``), unique per op version.
    :param size: its size class (:data:`SIZE_CLASSES`).
    :param values: its value class (:data:`VALUE_CLASSES`).
    :param element_type: the element type of the op's main input.
    :param build: makes the :class:`OpCase` (called once per process, lazily).
    :param depth: the lowest depth that runs it.
    :param dynamic: True for a dynamic-mode case (several shapes on one compiled model).
    """

    op_type: str
    version: int
    label: str
    size: str
    values: str
    element_type: Type
    build: Callable[[], OpCase] = field(compare=False, repr=False)
    depth: Depth = Depth.STANDARD
    dynamic: bool = False

    def __post_init__(self) -> None:
        if self.size not in SIZE_CLASSES:
            raise ValidationError(f"stimulus {self.op_type}-{self.version}-{self.label}: size class {self.size!r} "
                                  f"is not one of {SIZE_CLASSES}.")
        if self.values not in VALUE_CLASSES:
            raise ValidationError(f"stimulus {self.op_type}-{self.version}-{self.label}: value class "
                                  f"{self.values!r} is not one of {VALUE_CLASSES}.")


Recipe = Callable[[], Iterable[Stimulus]]
_RECIPES: dict[tuple[str, int], list[Recipe]] = {}


def register_stimuli(op_type: str, version: int) -> Callable[[Recipe], Recipe]:
    """Decorator: ``fn()`` yields the :class:`Stimulus` cases of ``op_type``-``version`` (called once,
    on first lookup; several recipes per op version add up)."""
    def deco(fn: Recipe) -> Recipe:
        _RECIPES.setdefault((op_type, version), []).append(fn)
        _all.cache_clear()
        return fn

    return deco


#: Recipe modules of op versions whose family module registers no stimulus cases itself (and
#: ``_stimulus_geometry``: the ranks, pads, ties, zero-size and 64-bit cases added across families;
#: ``_stimulus_modes``: attribute modes and values across families; ``_stimulus_types``: element-type corners:
#: 8-bit float and narrowing Converts, bf16 NaN payloads, f16/i32 results past their range, NUL in strings;
#: ``_stimulus_flow``: control-flow port maps and run-time conditions, broadcasting of run-time 1s).
RECIPE_MODULES: Final = ("ovconform.opcases._stimulus_movement", "ovconform.opcases._stimulus_numeric",
                          "ovconform.opcases._stimulus_recurrent", "ovconform.opcases._stimulus_detection",
                          "ovconform.opcases._stimulus_layout", "ovconform.opcases._stimulus_sparse",
                          "ovconform.opcases._stimulus_image", "ovconform.opcases._stimulus_control",
                          "ovconform.opcases._stimulus_geometry", "ovconform.opcases._stimulus_modes",
                          "ovconform.opcases._stimulus_types", "ovconform.opcases._stimulus_flow")


def _load() -> None:
    """Import the family modules (:mod:`ovconform.opcases`), which register their stimulus cases,
    and the :data:`RECIPE_MODULES`."""
    from ovconform.opcases import _load as load_families

    load_families()
    for module in RECIPE_MODULES:
        importlib.import_module(module)


@functools.cache
def _all(op_type: str, version: int) -> tuple[Stimulus, ...]:
    out: list[Stimulus] = []
    for recipe in _RECIPES.get((op_type, version), []):
        out += list(recipe())
    labels = [s.label for s in out]
    repeated = sorted({x for x in labels if labels.count(x) > 1})
    if repeated:
        raise ValidationError(f"stimulus cases of {op_type}-{version} repeat the label(s) {repeated}.")
    bad = [s.label for s in out if (s.op_type, s.version) != (op_type, version)]
    if bad:
        raise ValidationError(f"stimulus cases {bad} were registered for {op_type}-{version} but name another op.")
    return tuple(out)


def stimuli(op_type: str, version: int, depth: Depth = Depth.STANDARD) -> list[Stimulus]:
    """The stimulus cases of ``op_type``-``version`` that ``depth`` runs, in registration order."""
    _load()
    return [s for s in _all(op_type, version) if s.depth <= depth]


def all_stimulus_keys() -> list[tuple[str, int]]:
    """Every op version with stimulus cases, sorted."""
    _load()
    return sorted(_RECIPES)


@functools.lru_cache(maxsize=256)
def build_stimulus(op_type: str, version: int, label: str) -> OpCase:
    """The case of stimulus ``label`` of ``op_type``-``version`` (built once per process; the
    largest cases hold a few MB, so the cache is bounded).

    :raises NotFoundError: naming the op version, the label and the labels that exist.
    """
    _load()
    for s in _all(op_type, version):
        if s.label == label:
            case = s.build()
            case.extra.setdefault("stimulus", {"label": s.label, "size": s.size, "values": s.values,
                                               "element_type": s.element_type.name, "dynamic": s.dynamic})
            return case
    known = ", ".join(s.label for s in _all(op_type, version)) or "none"
    raise NotFoundError(f"no stimulus case {label!r} for {op_type}-{version}; it has: {known}.")
