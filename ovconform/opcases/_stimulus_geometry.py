"""Stimulus cases of the geometries the other stimulus cases leave out: high ranks with negative axes,
rank-5 broadcasting, asymmetric and automatic padding, large ``k`` with index order, many inputs,
``ceil_torch`` windows, exact nearest-neighbour ties, zero-size tensors and 64-bit integers beyond
the 32-bit range.

A red team wrote a realistic kernel bug for most of them (``tests/plugins/stimulus_faults_geometry.py``)
that the op suite passed at standard depth before; each label names the geometry it adds:

* **Softmax-1/8, LogSoftmax-5** — rank-5 and rank-6 data (``rank5-axis-1``, ``rank6-axis-4``, ...:
  negative axes from version 8 on, a kernel that normalises a negative axis with the 4-D layout's
  rank picks another axis; Softmax-1's axis is non-negative by its spec). The **reductions** get one
  rank-5 case with two negative axes each (``rank5-axes-1-3``).
* **binary arithmetic** (Add, Subtract, Multiply, Divide, Power, Maximum, Minimum,
  SquaredDifference, FloorMod, Mod) — rank-5 numpy broadcasting whose outermost output dimension
  is greater than 1 and comes from one operand (``rank5-bcast-outer``: both operands broadcast;
  ``rank5-bcast-rank3``: a rank-3 operand against a rank-5 one), a few hundred elements; the values
  are the family's own stimulus generators (``ovconform.opcases.arithmetic.BINARY_STIMULI``).
* **Convolution / GroupConvolution** — 16 and more input channels (where devices take their blocked
  kernels) with asymmetric explicit pads and ``same_lower`` / ``same_upper`` with an even kernel or
  a stride that makes the total padding odd, so the two modes differ (``c16-same_lower``,
  ``c16-same_upper-s2``, ``g2-c32-pads-asym``, ...); ``c8-pads-asym`` is the same geometry under 16
  channels.
* **TopK-1/3/11** — ``k`` of 33..64 with ``sort="index"``, along the last axis and along axis 0
  (``k40-sort-index``, ``axis0-k33-sort-index-min``); values along the axis are all different.
  ``sort="none"`` leaves the order to the implementation, so it gets no such case.
* **Concat-1** — 10, 11 and 12 inputs of different lengths along the axis (``inputs11``,
  ``inputs12-axis0``, ``inputs10-axis-2``; ``inputs8`` for comparison).
* **MaxPool-14, AvgPool-14/16** — ``rounding_type="ceil_torch"`` where ``ceil`` would add a last
  window that starts in the end padding (``ceil_torch-2d``: one axis drops that window, the other
  keeps a last window that starts inside the data; ``ceil_torch-pads-1d``). Where a kept window
  reaches past the end padding, AvgPool excludes the padding: what exclude-pad=false divides by there
  the spec does not say (see :mod:`ovconform.opcases.pooling`).
* **Interpolate-4/11 nearest** — every ``nearest_mode`` with every
  ``coordinate_transformation_mode`` on sizes whose coordinates land exactly on the mode's decisions
  (``nearest-<nearest_mode>-<coordinate mode>``): half-integers for the round modes, integers for
  floor, ceil and simple. The scales are 2, 0.5 and 3 (exact in float32), and align_corners maps 4
  to 7 and 5 to 9 (a step of exactly 0.5): float32 computes every coordinate on a decision exactly
  (``x / 3`` too, for the ``x + 0.5`` that give one) and the others lie at least 1/6 from one, so
  the spec's rounding decides (the generated cases reach such a coordinate only by chance).
* **AvgPool-1/14/16** — ``auto_pad`` ``same_upper`` and ``same_lower`` with one padded element at
  one end of each axis, exclude-pad true and false (``same_lower-exclude``, ...).
* **zero-size tensors** (``empty*`` labels, size class ``tiny``), where the spec's formula gives the
  result: Add and Multiply (an empty operand, broadcasting ``1`` against ``0`` too), Transpose, Tile
  and Reshape of empty data, Concat of an empty input between non-empty ones (a non-empty result),
  Gather-1/7/8 with empty indices and of empty data (OpenVINO CPU dies of SIGFPE on both: ``crash:``
  entries of the bundled openvino-CPU expectations).
* **i64 beyond i32** (``i64-wide`` labels): Transpose, Concat, Tile and Gather-1/7/8 of i64 values
  over the whole range (INT64_MIN and INT64_MAX included), MatMul of i64 whose products and sums
  leave the i32 range but stay far inside i64 (``i64-wide-k8``: inputs inside i32;
  ``i64-wide-inputs``: inputs beyond it). The generated cases keep i64 inside the i32 range because
  OpenVINO CPU computes i64 as i32; these cases follow the spec, and the bundled openvino-CPU
  expectations record the cases OpenVINO CPU fails.

Every case is small (at most a few thousand elements) and seeded by its op, version and label
(:func:`ovconform.opcases.stimulus.seed_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type, make_node
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases.arithmetic import BINARY_STIMULI
from ovconform.opcases.reduction import STIMULUS_REDUCTIONS

Make = SR.MakeAt
F32: Final = Type.f32
I64: Final = Type.i64
I64_INFO: Final = np.iinfo(np.int64)

#: the recipes of this module by (op, version), in registration order (the tests read the labels)
_BOOK = SR.RecipeBook()
RECIPES = _BOOK.recipes
register = _BOOK.register
labels = _BOOK.labels


def stim(op: str, version: int, label: str, make: Make, shape: tuple[int, ...] = (), *, size: str = "remainder",
         values: str = "ordinary", et: Type = F32, note: str = "") -> S.Stimulus:
    return S.Stimulus(op, version, label, size, values, et, SR.node_case(op, version, label, make, shape, (), note))


def ints(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=np.int64)


def floats(b: S.StimulusBuilder, shape: Sequence[int], low: float = -4, high: float = 4) -> np.ndarray:
    return S.cast(b.rng.uniform(low, high, tuple(shape)), F32)


# -- Softmax / LogSoftmax and the reductions: ranks 5 and 6 -------------------------------------------------

#: label -> (shape, axis) of Softmax-8 / LogSoftmax-5 (axis lengths all different: another axis changes the result).
SOFTMAX_NEGATIVE: Final = {
    "rank5-axis-1": ((2, 3, 4, 5, 7), -1),
    "rank5-axis-3": ((2, 3, 4, 5, 7), -3),
    "rank5-axis-5": ((2, 3, 4, 5, 7), -5),
    "rank6-axis-1": ((2, 3, 2, 3, 4, 5), -1),
    "rank6-axis-4": ((2, 3, 4, 3, 2, 5), -4),
    "rank5-axis4": ((2, 3, 4, 5, 7), 4),
}
#: Softmax-1 takes a non-negative axis only.
SOFTMAX_1: Final = {
    "rank5-axis4": ((2, 3, 4, 5, 7), 4),
    "rank5-axis2": ((2, 3, 4, 5, 7), 2),
    "rank6-axis5": ((2, 3, 2, 3, 4, 5), 5),
}


def softmax_make(op: str, version: int, axis: int) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        x = b.param("data", floats(b, shape, -5, 5), F32)
        return opset.log_softmax(x, axis) if op == "LogSoftmax" else opset.softmax(x, axis, version=version)

    return make


def softmax_recipe(op: str, version: int) -> Callable[[], Iterable[S.Stimulus]]:
    table = SOFTMAX_1 if version == 1 else SOFTMAX_NEGATIVE

    def recipe() -> Iterable[S.Stimulus]:
        for label, (shape, axis) in table.items():
            yield stim(op, version, label, softmax_make(op, version, axis), shape,
                       note=f"logits in [-5, 5]; rank {len(shape)}, axis {axis}.")

    return recipe


def reduce_make(op: str, axes: list[int]) -> Make:
    _version, maker, _types, (low, high) = STIMULUS_REDUCTIONS[op]

    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        if op.startswith("ReduceLogical"):
            x = b.param("data", b.rng.random(shape) < (0.9 if op == "ReduceLogicalAnd" else 0.1), Type.boolean)
        else:
            x = b.param("data", floats(b, shape, low, high), F32)
        return maker(x, b.const(ints(axes)), False)

    return make


def reduce_recipe(op: str) -> Callable[[], Iterable[S.Stimulus]]:
    version, _maker, types, _range = STIMULUS_REDUCTIONS[op]
    et = F32 if F32 in types else types[0]

    def recipe() -> Iterable[S.Stimulus]:
        yield stim(op, version, "rank5-axes-1-3", reduce_make(op, [-1, -3]), (2, 3, 4, 5, 6), et=et,
                   note="rank 5, axes [-1, -3] (keep_dims false).")

    return recipe


# -- binary arithmetic: rank-5 broadcasting --------------------------------------------------------------------

#: label -> (shape of a, shape of b): the outermost output dim (3 or 2) comes from one operand only.
BROADCAST_5D: Final = {
    "rank5-bcast-outer": ((3, 1, 4, 1, 5), (1, 2, 1, 3, 5)),
    "rank5-bcast-rank3": ((2, 3, 1, 4, 5), (3, 1, 5)),
}


def binary_recipe(op: str, version: int, spec: dict[str, Any]) -> Callable[[], Iterable[S.Stimulus]]:
    gen: SR.Gen2 = spec["gen"]
    build: SR.Make2 = spec.get("make") or (
        lambda b, x, y: make_node(op, version, [x.output(0), y.output(0)], {"auto_broadcast": "numpy"}))

    def case(sa: tuple[int, ...], sb: tuple[int, ...]) -> Make:
        def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
            x, y = gen(b, sa, sb, F32)
            return build(b, b.param("a", x, F32), b.param("b", y, F32))

        return make

    def recipe() -> Iterable[S.Stimulus]:
        for label, (sa, sb) in BROADCAST_5D.items():
            yield stim(op, version, label, case(sa, sb),
                       note=f"numpy broadcast of {list(sa)} and {list(sb)} (rank 5, outermost dim > 1).")

    return recipe


# -- Convolution / GroupConvolution: asymmetric and automatic pads from 16 channels ------------------------------

def conv_make(op: str, filters: tuple[int, ...], stride: int = 1, pads: tuple[list[int], list[int]] | None = None,
              auto_pad: str = "explicit") -> Make:
    """``op`` with Constant ``filters`` (their own seed) and explicit ``pads`` or ``auto_pad``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rank = len(shape) - 2
        w = SR.small_values(np.random.default_rng(S.seed_of(op, 1, f"{filters}/{stride}/{pads}/{auto_pad}")),
                            filters, F32)
        x = b.param("data", SR.small_values(b.rng, shape, F32), F32)
        begin, end = pads if pads is not None else ([0] * rank, [0] * rank)
        maker = opset.convolution if op == "Convolution" else opset.group_convolution
        return maker(x, b.const(w, F32), [stride] * rank, begin, end, [1] * rank, auto_pad)

    return make


def conv_recipe(op: str) -> Callable[[], Iterable[S.Stimulus]]:
    def case(label: str, data: tuple[int, ...], filters: tuple[int, ...], stride: int = 1,
             pads: tuple[list[int], list[int]] | None = None, auto_pad: str = "explicit") -> S.Stimulus:
        how = f"pads {pads[0]} / {pads[1]}" if pads is not None else auto_pad
        return stim(op, 1, label, conv_make(op, filters, stride, pads, auto_pad), data,
                    note=f"{data[1]} input channels, stride {stride}, {how}; values in [-1, 1].")

    asym = ([2, 0], [0, 1])

    def recipe() -> Iterable[S.Stimulus]:
        if op == "Convolution":
            yield case("c16-pads-asym", (1, 16, 9, 8), (4, 16, 3, 3), pads=asym)
            yield case("c17-pads-asym-1d", (1, 17, 13), (3, 17, 4), pads=([3], [0]))
            yield case("c8-pads-asym", (1, 8, 9, 8), (4, 8, 3, 3), pads=asym)
            for mode in ("same_lower", "same_upper"):  # total pad 1 (even kernel), then odd from stride 2
                yield case(f"c16-{mode}", (1, 16, 7, 8), (4, 16, 2, 2), auto_pad=mode)
                yield case(f"c16-{mode}-s2", (1, 16, 9, 10), (4, 16, 3, 3), 2, auto_pad=mode)
        else:
            yield case("g2-c32-pads-asym", (1, 32, 9, 8), (2, 2, 16, 3, 3), pads=asym)
            for mode in ("same_lower", "same_upper"):
                yield case(f"g2-c32-{mode}", (1, 32, 7, 8), (2, 2, 16, 2, 2), auto_pad=mode)
                yield case(f"dw-c16-{mode}-s2", (1, 16, 9, 10), (16, 1, 1, 3, 3), 2, auto_pad=mode)

    return recipe


# -- TopK: k past 32 in index order ------------------------------------------------------------------------------

def topk_make(version: int, k: int, axis: int, mode: str, sort: str) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        ax = axis % len(shape)
        n = shape[ax]
        moved = (*shape[:ax], *shape[ax + 1:], n)
        ramp = np.stack([b.rng.permutation(n) for _ in range(int(np.prod(moved[:-1])))]).reshape(moved)
        data = np.moveaxis(ramp, -1, ax).astype(np.float64) - n // 2  # all different along the axis
        x = b.param("data", S.cast(data * 0.5, F32), F32)
        return opset.topk(x, b.const(np.array(k, np.int64)), axis, mode, sort, "i32", False, version=version)

    return make


def topk_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    note = "values along the axis all different; k > 32."

    def recipe() -> Iterable[S.Stimulus]:
        yield stim("TopK", version, "k40-sort-index", topk_make(version, 40, -1, "max", "index"), (3, 97), note=note)
        yield stim("TopK", version, "k64-sort-index-min", topk_make(version, 64, 1, "min", "index"), (2, 65, 3),
                   note=note)
        yield stim("TopK", version, "axis0-k33-sort-index-min", topk_make(version, 33, 0, "min", "index"),
                   (70, 3, 2), note=note)
        yield stim("TopK", version, "k40-sort-value", topk_make(version, 40, -1, "max", "value"), (3, 97), note=note)

    return recipe


# -- Concat: many inputs ---------------------------------------------------------------------------------------

#: label -> (shape with the axis length left 0, axis, lengths along the axis of each input)
CONCAT_MANY: Final = {
    "inputs11": ((3, 0), 1, (3, 1, 7, 2, 5, 9, 1, 4, 6, 2, 8)),
    "inputs12-axis0": ((0, 17), 0, (2, 1, 3, 5, 1, 2, 4, 1, 3, 2, 6, 1)),
    "inputs10-axis-2": ((2, 0, 5), -2, (4, 1, 2, 7, 3, 1, 5, 2, 1, 3)),
    "inputs8": ((3, 0), 1, (3, 1, 7, 2, 5, 9, 1, 4)),
}


def concat_make(base: tuple[int, ...], axis: int, lengths: Sequence[int], et: Type = F32) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        parts = []
        for i, n in enumerate(lengths):
            piece = list(base)
            piece[axis] = n
            parts.append(b.param(f"data{i}", data_values(b, tuple(piece), et), et))
        return opset.concat(parts, axis)

    return make


# -- pooling: ceil_torch and auto_pad with exclude-pad -----------------------------------------------------------

def pool_make(op: str, version: int, kernel: list[int], strides: list[int], pads_begin: list[int],
              pads_end: list[int], rounding: str = "floor", auto_pad: str = "explicit",
              exclude_pad: bool = True) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rank = len(shape) - 2
        if op == "MaxPool":
            x = b.param("data", SR.distinct(b.rng, shape, F32), F32)
            return opset.max_pool(x, strides, [1] * rank, pads_begin, pads_end, kernel, rounding, auto_pad, Type.i64,
                                  0, version=version)
        x = b.param("data", floats(b, shape), F32)
        return opset.avg_pool(x, strides, pads_begin, pads_end, kernel, exclude_pad, rounding, auto_pad,
                              [1] * rank if version == 16 else None, version=version)

    return make


def ceil_torch_recipe(op: str, version: int) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        # H: 6 rows, kernel 2, stride 3, pads 0/1: ceil adds a window starting at row 6 (in the end padding), which
        # ceil_torch drops (2 rows out, not 3); W: 7 columns, kernel 2, stride 2: the last window starts at column 6
        # (inside the data) and both keep it (4 columns out, where floor gives 3)
        yield stim(op, version, "ceil_torch-2d",
                   pool_make(op, version, [2, 2], [3, 2], [0, 0], [1, 0], "ceil_torch", exclude_pad=True), (1, 3, 6, 7),
                   note="ceil_torch: H drops the window that would start in the end padding, W keeps the last one "
                        "(it starts inside the data); values all different.")
        # 10 columns, kernel 3, stride 3, pads 1/2: ceil's 5th window would start at column 11 (end padding)
        yield stim(op, version, "ceil_torch-pads-1d",
                   pool_make(op, version, [3], [3], [1], [2], "ceil_torch", exclude_pad=False), (2, 4, 10),
                   note="ceil_torch drops the window that would start in the end padding (4 outputs, ceil gives 5).")

    return recipe


def auto_pad_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        for mode in ("same_upper", "same_lower"):
            for exclude in (True, False):
                label = f"{mode}-{'exclude' if exclude else 'include'}"
                # H: 7 rows, kernel 2, stride 1; W: 8 columns, kernel 3, stride 2: one padded element per axis
                yield stim("AvgPool", version, label,
                           pool_make("AvgPool", version, [2, 3], [1, 2], [0, 0], [0, 0], "floor", mode, exclude),
                           (1, 3, 7, 8), note=f"auto_pad {mode}: one padded element per axis, exclude-pad={exclude}.")

    return recipe


# -- Interpolate nearest: exact ties ------------------------------------------------------------------------------

NEAREST_MODES: Final = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
#: coordinate mode -> (input H, W), (output H, W): every coordinate exact in float32, and some on the
#: decisions of the round modes (x.5) and of floor / ceil / simple (whole numbers).
TIE_SIZES: Final = {
    "asymmetric": ((3, 4), (6, 8)),  # x / 2
    "align_corners": ((4, 5), (7, 9)),  # x * (in - 1) / (out - 1) = x / 2
    "half_pixel": ((8, 3), (4, 9)),  # H: 2x + 0.5; W: (x + 0.5) / 3 - 0.5, whole at x = 1, 4, 7
    "pytorch_half_pixel": ((8, 3), (4, 9)),
    "tf_half_pixel_for_nn": ((3, 8), (9, 4)),  # H: (x + 0.5) / 3, x.5 at x = 1, 4, 7; W: 2x + 1
}


def nearest_make(version: int, coordinate_mode: str, nearest_mode: str) -> Make:
    (h, w), (oh, ow) = TIE_SIZES[coordinate_mode]

    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        x = b.param("image", floats(b, (1, 2, h, w)), F32)
        sizes, axes = b.const(ints([oh, ow])), b.const(ints([2, 3]))
        if version == 11:
            return opset.interpolate(x, sizes, "nearest", "sizes", [0] * 4, [0] * 4, coordinate_mode, nearest_mode,
                                     axes=axes)
        scales = b.const(np.array([oh / h, ow / w], np.float32))
        return opset.interpolate_v4(x, sizes, scales, "nearest", "sizes", [0] * 4, [0] * 4, coordinate_mode,
                                    nearest_mode, axes=axes)

    return make


def nearest_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        for nearest in NEAREST_MODES:
            for coords, ((h, w), (oh, ow)) in TIE_SIZES.items():
                label = f"nearest-{nearest}-{coords}"
                yield stim("Interpolate", version, label, nearest_make(version, coords, nearest),
                           note=f"nearest {nearest}, {coords}: {h}x{w} to {oh}x{ow}; coordinates exact in float32, "
                                "some exactly on the rounding decision.")

    return recipe


# -- zero-size tensors ----------------------------------------------------------------------------------------------

def data_values(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """Floats in [-100, 100]; i64 over its whole range, INT64_MIN and INT64_MAX included."""
    if et == I64:
        out = b.rng.integers(I64_INFO.min, I64_INFO.max, shape, endpoint=True, dtype=np.int64)
        flat = out.reshape(-1)
        if flat.size >= 4:
            flat[b.rng.choice(flat.size, 4, replace=False)] = [I64_INFO.min, I64_INFO.max, 2**31, -(2**31) - 1]
        return out
    return b.uniform(shape, et, -100, 100)


def elementwise_make(op: str, sa: tuple[int, ...], sb: tuple[int, ...]) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        x, y = b.param("a", floats(b, sa), F32), b.param("b", floats(b, sb), F32)
        return make_node(op, 1, [x.output(0), y.output(0)], {"auto_broadcast": "numpy"})

    return make


def transpose_make(order: list[int], et: Type = F32) -> Make:
    return lambda b, shape: opset.transpose(b.param("data", data_values(b, shape, et), et), b.const(ints(order)))


def tile_make(repeats: list[int], et: Type = F32) -> Make:
    return lambda b, shape: opset.tile(b.param("data", data_values(b, shape, et), et), b.const(ints(repeats)))


def reshape_make(target: list[int]) -> Make:
    return lambda b, shape: opset.reshape(b.param("data", floats(b, shape), F32), b.const(ints(target)), False)


def gather_make(version: int, indices: np.ndarray, axis: int, et: Type = F32) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        attrs = {"batch_dims": 0} if version > 1 else {}
        inputs = [b.param("data", data_values(b, shape, et), et).output(0), b.const(ints(indices)).output(0),
                  b.const(np.int64(axis)).output(0)]
        return make_node("Gather", version, inputs, attrs)

    return make


EMPTY_NOTE = "a zero-size dimension: the spec's formula gives the result (an empty one unless Concat)."


def empty_binary_recipe(op: str) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        yield stim(op, 1, "empty", elementwise_make(op, (3, 0, 5), (3, 0, 5)), size="tiny", note=EMPTY_NOTE)
        yield stim(op, 1, "empty-bcast", elementwise_make(op, (2, 1, 4), (0, 4)), size="tiny",
                   note=EMPTY_NOTE + " [2, 1, 4] against [0, 4]: numpy broadcasts 1 to 0.")

    return recipe


# -- i64 beyond the i32 range ----------------------------------------------------------------------------------------

WIDE_NOTE = "i64 values over the whole range (INT64_MIN and INT64_MAX included): a copy moves all 64 bits."


def matmul_make(a_shape: tuple[int, ...], b_shape: tuple[int, ...], a_bound: int, b_bound: int) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        a = b.rng.integers(-a_bound, a_bound, a_shape, endpoint=True, dtype=np.int64)
        w = b.rng.integers(-b_bound, b_bound, b_shape, endpoint=True, dtype=np.int64)
        return opset.matmul(b.param("a", a, I64), b.param("b", w, I64), False, False)

    return make


def matmul_recipe() -> Iterable[S.Stimulus]:
    # |sum| <= 8 * 2**20 * 2**20 = 2**43 and <= 4 * 2**34 * 2**4 = 2**40: far inside i64, beyond i32
    yield stim("MatMul", 1, "i64-wide-k8", matmul_make((2, 5, 8), (2, 8, 7), 2**20, 2**20), values="large-magnitude",
               et=I64, note="i64 inputs inside i32 (|x| <= 2**20), products and sums beyond it (up to 2**43).")
    yield stim("MatMul", 1, "i64-wide-inputs", matmul_make((5, 4), (4, 3), 2**34, 16), values="large-magnitude",
               et=I64, note="i64 inputs beyond i32 (|a| <= 2**34, |b| <= 16): sums up to 2**40.")


# -- registration ----------------------------------------------------------------------------------------------------

def _softmax_all() -> None:
    for op, version in (("Softmax", 1), ("Softmax", 8), ("LogSoftmax", 5)):
        register(op, version)(softmax_recipe(op, version))
    for op in STIMULUS_REDUCTIONS:
        register(op, STIMULUS_REDUCTIONS[op][0])(reduce_recipe(op))


def _binary_all() -> None:
    for (op, version), spec in BINARY_STIMULI.items():
        register(op, version)(binary_recipe(op, version, spec))
    for op in ("Add", "Multiply"):
        register(op, 1)(empty_binary_recipe(op))


def _windows_all() -> None:
    for op in ("Convolution", "GroupConvolution"):
        register(op, 1)(conv_recipe(op))
    for version in (1, 3, 11):
        register("TopK", version)(topk_recipe(version))
    for op, version in (("MaxPool", 14), ("AvgPool", 14), ("AvgPool", 16)):
        register(op, version)(ceil_torch_recipe(op, version))
    for version in (1, 14, 16):
        register("AvgPool", version)(auto_pad_recipe(version))
    for version in (4, 11):
        register("Interpolate", version)(nearest_recipe(version))


@register("Concat", 1)
def concat_recipe() -> Iterable[S.Stimulus]:
    for label, (base, axis, lengths) in CONCAT_MANY.items():
        yield stim("Concat", 1, label, concat_make(base, axis, lengths),
                   note=f"{len(lengths)} inputs of lengths {list(lengths)} along axis {axis}; values in [-100, 100].")
    yield stim("Concat", 1, "empty-input", concat_make((2, 0), 1, (3, 0, 4)), size="tiny",
               note="the middle input has length 0 along the axis: the result is the other two, [2, 7].")
    yield stim("Concat", 1, "i64-wide", concat_make((3, 0), 1, (17, 9), I64), values="int-boundary", et=I64,
               note=WIDE_NOTE)


@register("Transpose", 1)
def transpose_recipe() -> Iterable[S.Stimulus]:
    yield stim("Transpose", 1, "empty", transpose_make([2, 0, 1]), (2, 0, 3), size="tiny", note=EMPTY_NOTE)
    yield stim("Transpose", 1, "i64-wide", transpose_make([2, 0, 1], I64), (3, 5, 17), values="int-boundary", et=I64,
               note=WIDE_NOTE)


@register("Tile", 1)
def tile_recipe() -> Iterable[S.Stimulus]:
    yield stim("Tile", 1, "empty", tile_make([2, 2]), (0, 3), size="tiny", note=EMPTY_NOTE)
    yield stim("Tile", 1, "i64-wide", tile_make([2, 3], I64), (3, 17), values="int-boundary", et=I64, note=WIDE_NOTE)


@register("Reshape", 1)
def reshape_recipe() -> Iterable[S.Stimulus]:
    yield stim("Reshape", 1, "empty", reshape_make([6, 0]), (2, 0, 3), size="tiny",
               note=EMPTY_NOTE + " Target [6, 0] with special_zero=false: 0 is a zero-size dim.")


def gather_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        yield stim("Gather", version, "empty-indices", gather_make(version, np.zeros((0,), np.int64), 0), (5, 7),
                   size="tiny", note=EMPTY_NOTE + " Empty indices gather nothing: [0, 7].")
        yield stim("Gather", version, "empty-data", gather_make(version, np.array([1, 3, 6]), 1), (0, 7), size="tiny",
                   note=EMPTY_NOTE + " Empty data along another axis than the gathered one: [0, 3].")
        idx = np.random.default_rng(S.seed_of("Gather", version, "i64-wide/indices")).integers(0, 17, (11,))
        yield stim("Gather", version, "i64-wide", gather_make(version, idx, 0, I64), (17, 9), values="int-boundary",
                   et=I64, note=WIDE_NOTE)

    return recipe


_softmax_all()
_binary_all()
_windows_all()
register("MatMul", 1)(matmul_recipe)
for _v in (1, 7, 8):
    register("Gather", _v)(gather_recipe(_v))
