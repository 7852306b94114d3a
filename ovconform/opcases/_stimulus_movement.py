"""Stimulus cases of the data-movement ops that had none (issue #20 gap): Pad, Tile,
StridedSlice, Slice, Broadcast and the scatters (ScatterUpdate, ScatterElementsUpdate,
ScatterNDUpdate, their reductions included).

Data movement copies bits, so the size classes are what matters: a remainder length of the
innermost axis (the tail of a vector copy), pads past that length, negative strides and steps
that walk the tail backwards, and large tensors (threads split the copy). Every element type the
specs allow runs (a kernel keyed on the element's byte width), and each op has a dynamic-mode case.

What the specs leave undefined is avoided: reflect pads are at most ``n - 1`` and symmetric pads
at most ``n``; a negative pad never meets a reflect/symmetric pad on the same axis; scatters
without a reduction never write one position twice (the order of repeated updates is
undefined); the reduction modes (ScatterElementsUpdate-12, ScatterNDUpdate-15) repeat indices
on purpose — there the spec defines the result. Float values of the accumulating reductions are
whole numbers (sums exact in f32 whatever the order) and products multiply by ±1, 2 and 0.5.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type, make_node
from ovconform.opcases import OpCase
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases.depth import Depth

Make = SR.MakeAt

#: Every element type (data movement copies bits); the standard depth runs one of each byte width.
TYPES = (*S.NUMERIC, Type.boolean)
STANDARD_TYPES = (Type.f16, Type.i8, Type.i64, Type.boolean)
DYNAMIC_ROWS = ((3, 7), (3, 65), (3, 129))
I64_MIN = int(np.iinfo(np.int64).min)
NOTE = "values in [-100, 100]; indices in range; no position written twice without a reduction."


def values(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    return b.uniform(shape, et, -100, 100) if et != Type.boolean else b.uniform(shape, et, 0, 1)


def case(op: str, version: int, label: str, make: Make, shape: tuple[int, ...],
         shapes: tuple[tuple[int, ...], ...] = ()) -> Callable[[], OpCase]:
    return SR.node_case(op, version, label, make, shape, shapes, NOTE)


def typed(op: str, version: int, label: str, make: Callable[[Type], Make], shape: tuple[int, ...],
          types: Iterable[Type] = TYPES) -> Iterable[S.Stimulus]:
    """``<type>-<label>`` for every type but f32 (standard depth: one type of each byte width)."""
    for et in types:
        if et != Type.f32:
            depth = Depth.STANDARD if et in STANDARD_TYPES else Depth.EXHAUSTIVE
            name = f"{et.name}-{label}"
            yield S.Stimulus(op, version, name, "remainder", "ordinary", et, case(op, version, name, make(et), shape),
                             depth)


def ints(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=np.int64)


# -- Pad ----------------------------------------------------------------------------------------------------

#: mode -> (pads_begin, pads_end) of the last axis of length n: reflect reaches n - 1, symmetric n,
#: constant and edge pad past the whole axis.
PAD_LAST: dict[str, Callable[[int], tuple[int, int]]] = {
    "constant": lambda n: (n + 3, 9),
    "edge": lambda n: (9, n + 3),
    "reflect": lambda n: (n - 1, (n - 1) // 2),
    "symmetric": lambda n: (n // 2, n),
}


def pad_make(et: Type, mode: str, begin: list[int], end: list[int], version: int) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        fill = b.const(S.cast(np.array(7 if et != Type.boolean else 1), et), et)
        return opset.pad(b.param("data", values(b, shape, et), et), b.const(ints(begin)), b.const(ints(end)), mode,
                         fill, version=version)

    return make


def pad_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op, f32 = "Pad", Type.f32

    def recipe() -> Iterable[S.Stimulus]:
        for mode, pads in PAD_LAST.items():
            for n in S.REMAINDERS:
                pb, pe = pads(n)
                label = f"{mode}-n{n}"
                yield S.Stimulus(op, version, label, "remainder", "ordinary", f32,
                                 case(op, version, label, pad_make(f32, mode, [1, pb], [2, pe], version), (3, n)),
                                 S.remainder_depth(n))
        yield S.Stimulus(op, version, "reflect-nchw-c17", "remainder", "ordinary", f32,
                         case(op, version, "reflect-nchw-c17",
                              pad_make(f32, "reflect", [0, 0, 3, 8], [0, 0, 8, 3], version), (1, 17, 9, 33)))
        yield S.Stimulus(op, version, "large", "large", "ordinary", f32,
                         case(op, version, "large", pad_make(f32, "constant", [0, 5], [1, 3], version), (2, 32771)))
        yield S.Stimulus(op, version, "large-edge", "large", "ordinary", f32,
                         case(op, version, "large-edge", pad_make(f32, "edge", [2, 1], [1, 17], version), (256, 257)),
                         Depth.EXHAUSTIVE)
        if version >= 12:  # negative pads crop (Pad-12)
            yield S.Stimulus(op, version, "crop-n65", "remainder", "ordinary", f32,
                             case(op, version, "crop-n65", pad_make(f32, "constant", [-1, -5], [1, -17], version),
                                  (3, 65)))
            yield S.Stimulus(op, version, "crop-reflect-n129", "remainder", "ordinary", f32,
                             case(op, version, "crop-reflect-n129",
                                  pad_make(f32, "reflect", [-2, 64], [-1, 128], version), (5, 129)))
            yield S.Stimulus(op, version, "crop-edge-n17", "remainder", "ordinary", f32,
                             case(op, version, "crop-edge-n17", pad_make(f32, "edge", [20, -16], [-1, 5], version),
                                  (3, 17)))
        yield from typed(op, version, "reflect-n65", lambda et: pad_make(et, "reflect", [1, 64], [0, 33], version),
                         (3, 65))
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", f32,
                         case(op, version, "dynamic", pad_make(f32, "reflect", [1, 6], [0, 3], version), (3, 7),
                              DYNAMIC_ROWS), dynamic=True)

    return recipe


# -- Tile --------------------------------------------------------------------------------------------------

def tile_make(et: Type, repeats: list[int]) -> Make:
    return lambda b, shape: opset.tile(b.param("data", values(b, shape, et), et), b.const(ints(repeats)))


@S.register_stimuli("Tile", 1)
def tile_recipe() -> Iterable[S.Stimulus]:
    op, f32 = "Tile", Type.f32
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 1, f"n{n}", "remainder", "ordinary", f32,
                         case(op, 1, f"n{n}", tile_make(f32, [2, 3]), (3, n)), S.remainder_depth(n))
    yield S.Stimulus(op, 1, "rank-up-n17", "remainder", "ordinary", f32,
                     case(op, 1, "rank-up-n17", tile_make(f32, [3, 1, 2]), (17,)))
    yield S.Stimulus(op, 1, "inner-n9x65", "remainder", "ordinary", f32,
                     case(op, 1, "inner-n9x65", tile_make(f32, [2, 1, 9]), (2, 9, 65)))
    yield S.Stimulus(op, 1, "large", "large", "ordinary", f32, case(op, 1, "large", tile_make(f32, [1, 2]), (256, 257)))
    yield from typed(op, 1, "n65", lambda et: tile_make(et, [2, 3]), (3, 65))
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", f32,
                     case(op, 1, "dynamic", tile_make(f32, [2, 3]), (3, 7), DYNAMIC_ROWS), dynamic=True)


# -- StridedSlice / Slice ----------------------------------------------------------------------------------

def strided_make(et: Type, begin: list[int], end: list[int], strides: list[int], begin_mask: list[int],
                 end_mask: list[int]) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.strided_slice(b.param("data", values(b, shape, et), et), b.const(ints(begin)),
                                   b.const(ints(end)), b.const(ints(strides)), begin_mask, end_mask)

    return make


def reverse_rows(et: Type, step: int) -> Make:
    """Rows kept, the last axis walked from its end to its start by ``step`` (< 0; masks, not numbers,
    name the ends, so one graph fits every length)."""
    return strided_make(et, [0, -1], [0, 0], [1, step], [1, 0], [1, 1])


@S.register_stimuli("StridedSlice", 1)
def strided_slice_recipe() -> Iterable[S.Stimulus]:
    op, f32 = "StridedSlice", Type.f32
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 1, f"rev-n{n}", "remainder", "ordinary", f32,
                         case(op, 1, f"rev-n{n}", reverse_rows(f32, -1), (3, n)), S.remainder_depth(n))
    for n in (17, 65, 129):
        yield S.Stimulus(op, 1, f"step-3-n{n}", "remainder", "ordinary", f32,
                         case(op, 1, f"step-3-n{n}", strided_make(f32, [0, -2], [0, 1], [1, -3], [1, 0], [1, 0]),
                              (3, n)), Depth.STANDARD)
        yield S.Stimulus(op, 1, f"step3-n{n}", "remainder", "ordinary", f32,
                         case(op, 1, f"step3-n{n}", strided_make(f32, [0, 1], [0, n + 5], [1, 3], [1, 0], [1, 0]),
                              (3, n)), Depth.STANDARD)
    yield S.Stimulus(op, 1, "3d-mixed-n65", "remainder", "ordinary", f32,
                     case(op, 1, "3d-mixed-n65", strided_make(f32, [4, 0, 64], [0, 0, 0], [-1, 2, -2], [0, 1, 0],
                                                              [1, 1, 1]), (5, 9, 65)))
    yield S.Stimulus(op, 1, "large", "large", "ordinary", f32,
                     case(op, 1, "large", reverse_rows(f32, -2), (2, 32771)))
    yield from typed(op, 1, "rev-n65", lambda et: reverse_rows(et, -1), (3, 65))
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", f32,
                     case(op, 1, "dynamic", reverse_rows(f32, -1), (3, 7), DYNAMIC_ROWS), dynamic=True)


def slice_make(et: Type, start: list[int], stop: list[int], step: list[int], axes: list[int]) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.slice(b.param("data", values(b, shape, et), et), b.const(ints(start)), b.const(ints(stop)),
                           b.const(ints(step)), b.const(ints(axes)))

    return make


@S.register_stimuli("Slice", 8)
def slice_recipe() -> Iterable[S.Stimulus]:
    op, f32 = "Slice", Type.f32
    reverse = slice_make(f32, [-1], [I64_MIN], [-1], [-1])  # the whole last axis backwards
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 8, f"rev-n{n}", "remainder", "ordinary", f32, case(op, 8, f"rev-n{n}", reverse, (3, n)),
                         S.remainder_depth(n))
    for n in (17, 65, 129):
        depth = Depth.STANDARD
        yield S.Stimulus(op, 8, f"step-2-n{n}", "remainder", "ordinary", f32,
                         case(op, 8, f"step-2-n{n}", slice_make(f32, [n + 10], [-n - 10], [-2], [1]), (3, n)), depth)
        yield S.Stimulus(op, 8, f"step3-n{n}", "remainder", "ordinary", f32,
                         case(op, 8, f"step3-n{n}", slice_make(f32, [-n + 1], [n - 1], [3], [1]), (3, n)), depth)
    yield S.Stimulus(op, 8, "3d-axes-n65", "remainder", "ordinary", f32,
                     case(op, 8, "3d-axes-n65", slice_make(f32, [-2, 4, 1], [0, -100, 9], [-3, -1, 2], [-1, 0, 1]),
                          (5, 9, 65)))
    yield S.Stimulus(op, 8, "large", "large", "ordinary", f32,
                     case(op, 8, "large", slice_make(f32, [-1], [I64_MIN], [-2], [1]), (2, 32771)))
    yield from typed(op, 8, "rev-n65", lambda et: slice_make(et, [-1], [I64_MIN], [-1], [-1]), (3, 65))
    # stop -200, not INT64_MIN: ovconform's shape inference walks every size up to |stop| on a dynamic dim
    yield S.Stimulus(op, 8, "dynamic", "remainder", "ordinary", f32,
                     case(op, 8, "dynamic", slice_make(f32, [-1], [-200], [-1], [-1]), (3, 7), DYNAMIC_ROWS),
                     dynamic=True)


# -- Broadcast ---------------------------------------------------------------------------------------------

def broadcast_make(et: Type, version: int, target: list[int], mode: str = "numpy", axes: list[int] | None = None,
                   target_param: bool = False) -> Make:
    """``target_param``: the target shape is a Parameter (one graph for every data shape of a
    dynamic case; its value follows the data's last dimension)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        data = b.param("data", values(b, shape, et), et)
        if target_param:
            tgt = b.param("target_shape", ints([*target[:-1], shape[-1]]))
        else:
            tgt = b.const(ints(target))
        inputs = [data.output(0), tgt.output(0)]
        if axes is not None:
            inputs.append(b.const(ints(axes)).output(0))
        ir_mode = "none" if version == 1 and mode == "explicit" else mode
        return make_node("Broadcast", version, inputs, {"mode": ir_mode})

    return make


def broadcast_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op, f32 = "Broadcast", Type.f32

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield S.Stimulus(op, version, f"rows-n{n}", "remainder", "ordinary", f32,
                             case(op, version, f"rows-n{n}", broadcast_make(f32, version, [3, 5, n]), (1, n)),
                             S.remainder_depth(n))
        yield S.Stimulus(op, version, "cols-n65", "remainder", "ordinary", f32,
                         case(op, version, "cols-n65", broadcast_make(f32, version, [3, 65, 65]), (65, 1)))
        yield S.Stimulus(op, version, "explicit-n65", "remainder", "ordinary", f32,
                         case(op, version, "explicit-n65", broadcast_make(f32, version, [3, 65, 17], "explicit", [1]),
                              (65,)))
        yield S.Stimulus(op, version, "explicit-2axes-n17", "remainder", "ordinary", f32,
                         case(op, version, "explicit-2axes-n17",
                              broadcast_make(f32, version, [17, 3, 9, 5], "explicit", [0, 2]), (17, 9)))
        if version >= 3:
            yield S.Stimulus(op, version, "bidirectional-n65", "remainder", "ordinary", f32,
                             case(op, version, "bidirectional-n65",
                                  broadcast_make(f32, version, [1, 65], "bidirectional"), (9, 1)))
            yield S.Stimulus(op, version, "bidirectional-keep-n129", "remainder", "ordinary", f32,
                             case(op, version, "bidirectional-keep-n129",
                                  broadcast_make(f32, version, [3, 1, 1], "bidirectional"), (1, 5, 129)))
        yield S.Stimulus(op, version, "large", "large", "ordinary", f32,
                         case(op, version, "large", broadcast_make(f32, version, [2, 32771]), (1, 32771)))
        yield S.Stimulus(op, version, "large-input", "large", "ordinary", f32,
                         case(op, version, "large-input", broadcast_make(f32, version, [2, 2, 32771]), (1, 2, 32771)),
                         Depth.EXHAUSTIVE)
        yield from typed(op, version, "rows-n65", lambda et: broadcast_make(et, version, [3, 65]), (1, 65))
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", f32,
                         case(op, version, "dynamic", broadcast_make(f32, version, [3, 0], target_param=True), (1, 7),
                              ((1, 7), (1, 65), (1, 129))), dynamic=True)

    return recipe


# -- scatters ----------------------------------------------------------------------------------------------

#: Element types of the scatters' stimulus (their specs allow any type; boolean has no reductions).
SCATTER_TYPES = (Type.f32, Type.f16, Type.bf16, Type.i8, Type.u8, Type.i32, Type.i64, Type.f64)


def reduction_values(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type, reduction: str) -> np.ndarray:
    """Values whose reduction is exact whatever the order: whole numbers (sums, min, max, mean),
    ±1, 2 and 0.5 for floats' products, ±1 and 2 for integers' (few repeats per position)."""
    if reduction == "prod":
        pool = [1.0, -1.0, 2.0, 0.5] if et.is_real() else [1, -1, 2] if et.is_signed() else [1, 2]
        return S.cast(b.rng.choice(np.array(pool), shape), et)
    if not et.is_real() and not et.is_signed():
        return b.uniform(shape, et, 0, 3)  # unsigned sums of a few terms stay in u8
    limit = 3 if et.bitwidth == 8 else 100
    return S.cast(b.rng.integers(-limit, limit, shape, endpoint=True), et)


def distinct(rng: np.random.Generator, count: int, n: int) -> np.ndarray:
    """``count`` different indices in [0, n)."""
    return rng.permutation(n)[:count].astype(np.int64)


def scatter_update_make(et: Type, axis: int, idx_shape: tuple[int, ...], index_range: int = 0) -> Make:
    """ScatterUpdate-3 along ``axis`` with distinct indices in [0, index_range or the axis length)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = np.random.default_rng(S.seed_of("ScatterUpdate", 3, f"{idx_shape}/{axis}"))  # every shape of one graph
        idx = distinct(rng, int(np.prod(idx_shape)), index_range or shape[axis]).reshape(idx_shape)
        upd_shape = (*shape[:axis], *idx_shape, *shape[axis + 1:])
        return opset.scatter_update(b.param("data", values(b, shape, et), et), b.const(idx),
                                    b.param("updates", values(b, upd_shape, et), et), b.const(ints(axis)))

    return make


@S.register_stimuli("ScatterUpdate", 3)
def scatter_update_recipe() -> Iterable[S.Stimulus]:
    op, f32 = "ScatterUpdate", Type.f32
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 3, f"rows-n{n}", "remainder", "ordinary", f32,
                         case(op, 3, f"rows-n{n}", scatter_update_make(f32, 0, (n // 2 + 1,)), (n, 17)),
                         S.remainder_depth(n))
    yield S.Stimulus(op, 3, "axis1-n65", "remainder", "ordinary", f32,
                     case(op, 3, "axis1-n65", scatter_update_make(f32, 1, (2, 9)), (5, 65, 3)))
    yield S.Stimulus(op, 3, "large", "large", "ordinary", f32,
                     case(op, 3, "large", scatter_update_make(f32, 0, (100,)), (257, 256)))
    yield from typed(op, 3, "rows-n65", lambda et: scatter_update_make(et, 0, (33,)), (65, 17), (*TYPES,))
    yield S.Stimulus(op, 3, "dynamic", "remainder", "ordinary", f32,
                     case(op, 3, "dynamic", scatter_update_make(f32, 0, (4,), index_range=7), (7, 17),
                          ((7, 17), (65, 17), (129, 17))), dynamic=True)


def scatter_elements_make(et: Type, version: int, reduction: str, m: int, use_init_val: bool = True,
                          negative: bool = False) -> Make:
    """Along axis 1 of ``(rows, n)`` data: ``m`` updates per row; without a reduction, distinct
    indices per row; with one, indices drawn with repeats (each position about ``m / n`` times)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rows, n = shape
        if reduction == "none":
            idx = np.stack([distinct(b.rng, m, n) for _ in range(rows)])
        else:
            idx = b.rng.integers(0, n, (rows, m))
        if negative:
            idx = np.where(b.rng.random(idx.shape) < 0.5, idx - n, idx)
        data = b.param("data", reduction_values(b, shape, et, reduction), et)
        updates = b.param("updates", reduction_values(b, (rows, m), et, reduction), et)
        return opset.scatter_elements_update(data, b.const(idx.astype(np.int64)), updates, b.const(ints(1)),
                                             reduction, use_init_val, version=version)

    return make


def scatter_elements_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op, f32 = "ScatterElementsUpdate", Type.f32

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield S.Stimulus(op, version, f"none-n{n}", "remainder", "ordinary", f32,
                             case(op, version, f"none-n{n}", scatter_elements_make(f32, version, "none", n // 2 + 1),
                                  (3, n)), S.remainder_depth(n))
        yield S.Stimulus(op, version, "none-large", "large", "ordinary", f32,
                         case(op, version, "none-large", scatter_elements_make(f32, version, "none", 200), (256, 257)))
        if version >= 12:
            for red in ("sum", "prod", "min", "max", "mean"):
                for init in (True, False):
                    label = f"{red}-dup-n65" + ("" if init else "-noinit")
                    yield S.Stimulus(op, version, label, "remainder", "ordinary", f32,
                                     case(op, version, label,
                                          scatter_elements_make(f32, version, red, 3 * 65, init, negative=True),
                                          (3, 65)))
            yield S.Stimulus(op, version, "sum-dup-large", "large", "ordinary", f32,
                             case(op, version, "sum-dup-large", scatter_elements_make(f32, version, "sum", 16411),
                                  (4, 257)))
            yield S.Stimulus(op, version, "max-dup-large", "large", "ordinary", f32,
                             case(op, version, "max-dup-large", scatter_elements_make(f32, version, "max", 16411),
                                  (4, 257)), Depth.EXHAUSTIVE)
            for et in SCATTER_TYPES[1:]:
                depth = Depth.STANDARD if et in (Type.f16, Type.i32, Type.u8) else Depth.EXHAUSTIVE
                label = f"{et.name}-sum-dup-n65"
                yield S.Stimulus(op, version, label, "remainder", "ordinary", et,
                                 case(op, version, label, scatter_elements_make(et, version, "sum", 3 * 65), (3, 65)),
                                 depth)
        yield from typed(op, version, "none-n65", lambda et: scatter_elements_make(et, version, "none", 33), (3, 65))
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", f32,
                         case(op, version, "dynamic", dyn_scatter_elements(version), (3, 7), DYNAMIC_ROWS),
                         dynamic=True)

    return recipe


def dyn_scatter_elements(version: int) -> Make:
    """Indices (a Constant, the same for every shape) that fit the shortest row: the first 4 positions."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        idx = np.stack([np.random.default_rng(r).permutation(7)[:4] for r in range(shape[0])]).astype(np.int64)
        data = b.param("data", values(b, shape, Type.f32), Type.f32)
        updates = b.param("updates", values(b, idx.shape, Type.f32), Type.f32)
        return opset.scatter_elements_update(data, b.const(idx), updates, b.const(ints(1)), "none", True,
                                             version=version)

    return make


def scatter_nd_make(et: Type, version: int, reduction: str, count: int, k: int, negative: bool = False,
                    index_cells: int = 0) -> Make:
    """``count`` index tuples over the first ``k`` axes (distinct without a reduction, with repeats
    with one; ``index_cells`` limits them to the first cells, for a dynamic case)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        cells = int(np.prod(shape[:k]))
        if reduction == "none":
            rng = np.random.default_rng(S.seed_of("ScatterNDUpdate", version, f"{count}/{k}/{index_cells}"))
            flat = distinct(rng, count, index_cells or cells)
        else:
            flat = b.rng.integers(0, cells, count)
        idx = np.stack(np.unravel_index(flat, shape[:k]), axis=-1).astype(np.int64)
        if negative:
            idx = np.where(b.rng.random(idx.shape) < 0.5, idx - np.array(shape[:k]), idx)
        data = b.param("data", reduction_values(b, shape, et, reduction), et)
        updates = b.param("updates", reduction_values(b, (count, *shape[k:]), et, reduction), et)
        return opset.scatter_nd_update(data, b.const(idx), updates, reduction, version=version)

    return make


def scatter_nd_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op, f32 = "ScatterNDUpdate", Type.f32

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield S.Stimulus(op, version, f"rows-n{n}", "remainder", "ordinary", f32,
                             case(op, version, f"rows-n{n}", scatter_nd_make(f32, version, "none", n // 2 + 1, 1),
                                  (n, 17)), S.remainder_depth(n))
        yield S.Stimulus(op, version, "elements-n65", "remainder", "ordinary", f32,
                         case(op, version, "elements-n65", scatter_nd_make(f32, version, "none", 100, 2), (3, 65)))
        yield S.Stimulus(op, version, "large", "large", "ordinary", f32,
                         case(op, version, "large", scatter_nd_make(f32, version, "none", 100, 1), (257, 256)))
        if version >= 15:
            for red in ("sum", "sub", "prod", "min", "max"):
                label = f"{red}-dup-n65"
                yield S.Stimulus(op, version, label, "remainder", "ordinary", f32,
                                 case(op, version, label, scatter_nd_make(f32, version, red, 200, 1, negative=True),
                                      (65, 9)))
            yield S.Stimulus(op, version, "sum-dup-elements-large", "large", "ordinary", f32,
                             case(op, version, "sum-dup-elements-large",
                                  scatter_nd_make(f32, version, "sum", 65536, 2), (4, 257)))
            for et in SCATTER_TYPES[1:]:
                depth = Depth.STANDARD if et in (Type.f16, Type.i32, Type.u8) else Depth.EXHAUSTIVE
                label = f"{et.name}-sum-dup-n65"
                yield S.Stimulus(op, version, label, "remainder", "ordinary", et,
                                 case(op, version, label, scatter_nd_make(et, version, "sum", 200, 1), (65, 9)), depth)
        yield from typed(op, version, "rows-n65", lambda et: scatter_nd_make(et, version, "none", 33, 1), (65, 17))
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", f32,
                         case(op, version, "dynamic", scatter_nd_make(f32, version, "none", 4, 1, index_cells=7),
                              (7, 17), ((7, 17), (65, 17), (129, 17))), dynamic=True)

    return recipe


for _v in (1, 12):
    S.register_stimuli("Pad", _v)(pad_recipe(_v))
for _v in (1, 3):
    S.register_stimuli("Broadcast", _v)(broadcast_recipe(_v))
for _v in (3, 12):
    S.register_stimuli("ScatterElementsUpdate", _v)(scatter_elements_recipe(_v))
for _v in (4, 15):
    S.register_stimuli("ScatterNDUpdate", _v)(scatter_nd_recipe(_v))
