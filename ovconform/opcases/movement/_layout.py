"""Case strategies of the "layout" family: Tile-1, Roll-7, DepthToSpace-1, SpaceToDepth-1,
ShuffleChannels-1, ReverseSequence-1, Pad-1/12, Slice-8, SliceScatter-15, BatchToSpace-2 and
SpaceToBatch-2.

Data is f32 about half the time, otherwise f16, i32, i64, u8, i8 or boolean; i64 values stay in the
i32 range (OpenVINO CPU moves i64 as i32). The stimulus case ``Tile-1-i64-wide``
(:mod:`ovconform.opcases._stimulus_geometry`) moves i64 values over the whole range, as the spec
defines; OpenVINO CPU fails it (an entry of the bundled openvino-CPU expectations), and
``Tile-1-empty`` tiles zero-size data. Index inputs are i32 or i64 Constants, sometimes
Parameters where OpenVINO CPU compiles that. Shapes stay small (a few hundred elements at most).

Kept away from, because the spec leaves it undefined: BatchToSpace/SpaceToBatch with
``block_shape[0] != 1`` or a cropped/padded batch dim (the spec only "expects" them), ReverseSequence
lengths outside ``[1, dim]``, Pad reflect/symmetric pads beyond the data, a non-zero pad_value
outside the constant mode. Slice may give empty outputs (python slicing does).

Kept away from for OpenVINO CPU: Roll with a scalar shift over several axes (CPU refuses to compile
it: "'shift' and 'axes' dimensions mismatch", though the spec allows it); SliceScatter with
start/stop/step/axes as Parameters (CPU writes to the wrong place or crashes); Slice with only
``axes`` a Parameter (CPU crashes; the strategy makes all or none of the index inputs Parameters);
a SliceScatter with an empty slice; zero-sized data; zero repeats; an empty repeats tensor as a
Parameter (CPU crashes; as a Constant it is drawn, see deviations_layout.py).

Every Pad gets a pad_value input (a zero Constant unless one is drawn for the constant mode), as
OpenVINO's read_model gives every Pad one; with three inputs the IR round trip through OpenVINO
would not be the identity. Slice without drawn axes gets the default axes Constant from the builder,
as ``openvino.opset16.slice`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed

ALL_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8, Type.i8, Type.boolean)
NUMERIC = ALL_TYPES[:-1]
INDEX_TYPES = (Type.i32, Type.i64)
NOTE = "i64 values stay in the i32 range (OpenVINO CPU moves i64 as i32)."


def draw_type(draw: Draw[Any], types: tuple[Type, ...] = ALL_TYPES) -> Type:
    """f32 about half the time, otherwise any of ``types``."""
    return draw(st.one_of(st.just(Type.f32), st.sampled_from(types)))


def draw_dims(draw: Draw[Any], rank: int, low: int = 1, high: int = 4) -> list[int]:
    return [draw(st.integers(low, high)) for _ in range(rank)]


def values(b: CaseBuilder, shape: list[int] | tuple[int, ...], et: Type, f32_exact: bool = False) -> np.ndarray:
    """Random data of ``et``: floats in [-100, 100], integers over the type (i64: the i32 range; with
    ``f32_exact`` within +-2**24, where f32 holds every integer)."""
    if et.is_real():
        return b.uniform(shape, et, -100, 100)
    if f32_exact:
        return b.uniform(shape, et, -2**24, 2**24)
    if et == Type.i64:
        return b.uniform(shape, et, -2**31, 2**31 - 1)
    return b.uniform(shape, et, -2**63, 2**63 - 1)  # clipped to the type's range


class Indexer:
    """Integer index inputs of one case, all i32 or all i64. ``mode``: "const" (Constants only),
    "mixed" (each one sometimes a Parameter) or "all" (sometimes all of them Parameters, else all
    Constants)."""

    def __init__(self, draw: Draw[Any], b: CaseBuilder, mode: str = "mixed") -> None:
        self.draw, self.b, self.mode = draw, b, mode
        self.et = draw(st.sampled_from(INDEX_TYPES))
        self.all_params = mode == "all" and draw(st.integers(0, 2)) == 0

    def __call__(self, name: str, value: Any, param_ok: bool = True) -> Node:
        arr = np.asarray(value, dtype=self.et.to_dtype())
        if self.mode == "all":
            as_param = self.all_params
        else:
            as_param = self.mode == "mixed" and param_ok and self.draw(st.integers(0, 3)) == 0
        return self.b.input(name, arr, not as_param)


# -- Tile / Roll ---------------------------------------------------------------------------------------

@register_case("Tile", 1)
def case_tile(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    shape = draw_dims(draw, draw(st.integers(0, 4)), high=3)
    count = draw(st.integers(1, 5)) if draw(st.integers(0, 19)) != 13 else 0
    repeats = [draw(st.sampled_from((1, 1, 2, 3))) for _ in range(count)]  # 3+ tiled axes: a CPU deviation
    b = CaseBuilder(draw_seed(draw))
    idx = Indexer(draw, b)
    data = b.param("data", values(b, shape, et))
    return b.finish("Tile", 1, opset.tile(data, idx("repeats", repeats, param_ok=bool(repeats))), NOTE)


@register_case("Roll", 7)
def case_roll(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    shape = draw_dims(draw, draw(st.integers(1, 4)), high=5)
    rank = len(shape)
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=3))
    shifts = draw(st.lists(st.integers(-12, 12), min_size=len(axes), max_size=len(axes)))
    b = CaseBuilder(draw_seed(draw))
    idx = Indexer(draw, b)
    data = b.param("data", values(b, shape, et))
    if len(axes) == 1 and draw(st.booleans()):  # scalar forms (a scalar shift over one axis only: CPU)
        shift_node = idx("shift", shifts[0])
        axes_node = idx("axes", axes[0] if draw(st.booleans()) else axes)
    else:
        shift_node, axes_node = idx("shift", shifts), idx("axes", axes)
    return b.finish("Roll", 7, opset.roll(data, shift_node, axes_node), NOTE)


# -- DepthToSpace / SpaceToDepth / ShuffleChannels --------------------------------------------------------

def _block_case(draw: Draw[Any]) -> tuple[Type, int, int, str]:
    et = draw_type(draw)
    k = draw(st.integers(1, 3))
    bs = draw(st.integers(1, 3 if k < 3 else 2))
    return et, k, bs, draw(st.sampled_from(("blocks_first", "depth_first")))


@register_case("DepthToSpace", 1)
def case_depth_to_space(draw: Draw[Any]) -> OpCase:
    et, k, bs, mode = _block_case(draw)
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 3)) * bs ** k, *draw_dims(draw, k, high=3 if k < 3 else 2)]
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", values(b, shape, et))
    return b.finish("DepthToSpace", 1, opset.depth_to_space(data, mode, bs), NOTE)


@register_case("SpaceToDepth", 1)
def case_space_to_depth(draw: Draw[Any]) -> OpCase:
    et, k, bs, mode = _block_case(draw)
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 3)), *(bs * d for d in draw_dims(draw, k, high=2))]
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", values(b, shape, et))
    return b.finish("SpaceToDepth", 1, opset.space_to_depth(data, mode, bs), NOTE)


@register_case("ShuffleChannels", 1)
def case_shuffle_channels(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    shape = draw_dims(draw, draw(st.integers(1, 4)))
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    group = draw(st.integers(1, 4))
    shape[axis] = group * draw(st.integers(1, 3))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", values(b, shape, et))
    return b.finish("ShuffleChannels", 1, opset.shuffle_channels(data, axis, group), NOTE)


# -- ReverseSequence -------------------------------------------------------------------------------------

@register_case("ReverseSequence", 1)
def case_reverse_sequence(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    shape = draw_dims(draw, draw(st.integers(2, 4)), high=5)
    rank = len(shape)
    batch_axis, seq_axis = draw(st.permutations(range(rank)))[:2]
    if draw(st.booleans()):
        batch_axis -= rank
    if draw(st.booleans()):
        seq_axis -= rank
    lt = draw(st.sampled_from((Type.i32, Type.i64, Type.f32)))
    exact = draw(st.integers(0, 3)) > 0  # wide i32/i64 values are a recorded CPU deviation
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", values(b, shape, et, f32_exact=exact))
    lengths = b.integers([shape[batch_axis]], lt, 1, shape[seq_axis])
    seq = b.input("seq_lengths", lengths, draw(st.booleans()))
    return b.finish("ReverseSequence", 1, opset.reverse_sequence(data, seq, batch_axis, seq_axis), NOTE)


# -- Pad --------------------------------------------------------------------------------------------------

def _pad_pair(draw: Draw[Any], n: int, mode: str, negative: bool) -> tuple[int, int]:
    """pads (begin, end) for a dim of size ``n`` valid for ``mode`` and leaving the dim non-empty."""
    high = {"constant": 3, "edge": 3, "reflect": n - 1, "symmetric": n}[mode]
    low = -(n - 1) if negative else 0
    begin = draw(st.integers(low, high))
    end = draw(st.integers(max(low, 1 - n - begin), high))
    return begin, end


def _pad(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw_type(draw)
        shape = draw_dims(draw, draw(st.integers(1, 4)))
        mode = draw(st.sampled_from(("constant", "edge", "reflect", "symmetric")))
        pads = [_pad_pair(draw, n, mode, negative=version == 12 and draw(st.booleans())) for n in shape]
        b = CaseBuilder(draw_seed(draw))
        idx = Indexer(draw, b)
        data = b.param("data", values(b, shape, et))
        if mode == "constant" and draw(st.booleans()):
            value = b.input("pad_value", values(b, [], et), draw(st.booleans()))
        else:  # what OpenVINO's read_model gives every Pad without one
            value = b.const(np.zeros((), et.to_dtype()))
        node = opset.pad(data, idx("pads_begin", [p[0] for p in pads]), idx("pads_end", [p[1] for p in pads]),
                         mode, value, version=version)
        return b.finish("Pad", version, node, NOTE)

    build.__name__ = f"case_pad_{version}"
    register_case("Pad", version)(build)


_pad(1)
_pad(12)


# -- Slice / SliceScatter -----------------------------------------------------------------------------------

def _draw_slice(draw: Draw[Any], shape: list[int],
                non_empty: bool = False) -> tuple[list[int], list[int], list[int], list[int] | None]:
    """start/stop/step over some axes (None: the default 0..n-1), out-of-range values included;
    with ``non_empty`` an empty range becomes one from an in-range start to beyond the end."""
    rank = len(shape)
    if draw(st.booleans()):
        axes: list[int] | None = None
        chosen = list(range(draw(st.integers(1, rank))))
    else:
        chosen = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
        axes = [a - rank if draw(st.booleans()) else a for a in chosen]
    start, stop, step = [], [], []
    for a in chosen:
        n = shape[a]
        far = draw(st.sampled_from((n + 3, 2**31 - 1)))
        start.append(draw(st.integers(-n - 2, n + 2)))
        stop.append(draw(st.one_of(st.integers(-n - 2, n + 2), st.sampled_from((far, -far)))))
        step.append(draw(st.sampled_from((1, 1, 2, 3, -1, -1, -2, -3))))
        if non_empty and not range(*slice(start[-1], stop[-1], step[-1]).indices(n)):
            start[-1] = draw(st.integers(-n, n - 1))
            stop[-1] = far if step[-1] > 0 else -far
    return start, stop, step, axes


def _slice_shape(shape: list[int], start: list[int], stop: list[int], step: list[int],
                 axes: list[int] | None) -> list[int]:
    out = list(shape)
    for i, a in enumerate(range(len(start)) if axes is None else axes):
        out[a] = len(range(*slice(start[i], stop[i], step[i]).indices(shape[a])))
    return out


@register_case("Slice", 8)
def case_slice(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    shape = draw_dims(draw, draw(st.integers(1, 4)), high=6)
    start, stop, step, axes = _draw_slice(draw, shape)
    b = CaseBuilder(draw_seed(draw))
    idx = Indexer(draw, b, "all")
    data = b.param("data", values(b, shape, et))
    axes_node = None if axes is None else idx("axes", axes)
    node = opset.slice(data, idx("start", start), idx("stop", stop), idx("step", step), axes_node)
    return b.finish("Slice", 8, node, NOTE)


@register_case("SliceScatter", 15)
def case_slice_scatter(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw, NUMERIC)
    shape = draw_dims(draw, draw(st.integers(1, 4)), high=6)
    start, stop, step, axes = _draw_slice(draw, shape, non_empty=True)
    target = _slice_shape(shape, start, stop, step, axes)
    b = CaseBuilder(draw_seed(draw))
    idx = Indexer(draw, b, "const")
    data = b.param("data", values(b, shape, et))
    updates = b.param("updates", values(b, target, et))
    axes_node = None if axes is None else idx("axes", axes)
    node = opset.slice_scatter(data, updates, idx("start", start), idx("stop", stop), idx("step", step), axes_node)
    return b.finish("SliceScatter", 15, node, NOTE)


# -- BatchToSpace / SpaceToBatch ------------------------------------------------------------------------------

@register_case("BatchToSpace", 2)
def case_batch_to_space(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    rank = draw(st.integers(2, 4))
    block = [1, *draw_dims(draw, rank - 1, high=3)]
    spatial = draw_dims(draw, rank - 1, high=3)
    begin, end = [0], [0]
    for d, bl in zip(spatial, block[1:], strict=True):
        crop = draw(st.integers(0, d * bl - 1))
        begin.append(draw(st.integers(0, crop)))
        end.append(crop - begin[-1])
    shape = [draw(st.integers(1, 2)) * int(np.prod(block)), *spatial]
    b = CaseBuilder(draw_seed(draw))
    idx = Indexer(draw, b)
    data = b.param("data", values(b, shape, et))
    node = opset.batch_to_space(data, idx("block_shape", block), idx("crops_begin", begin), idx("crops_end", end))
    return b.finish("BatchToSpace", 2, node, NOTE)


@register_case("SpaceToBatch", 2)
def case_space_to_batch(draw: Draw[Any]) -> OpCase:
    et = draw_type(draw)
    rank = draw(st.integers(2, 4))
    block = [1, *draw_dims(draw, rank - 1, high=3)]
    shape, begin, end = [draw(st.integers(1, 2))], [0], [0]
    for bl in block[1:]:
        padded = bl * draw(st.integers(1, 2))
        shape.append(draw(st.integers(1, padded)))
        begin.append(draw(st.integers(0, padded - shape[-1])))
        end.append(padded - shape[-1] - begin[-1])
    b = CaseBuilder(draw_seed(draw))
    idx = Indexer(draw, b)
    data = b.param("data", values(b, shape, et))
    node = opset.space_to_batch(data, idx("block_shape", block), idx("pads_begin", begin), idx("pads_end", end))
    return b.finish("SpaceToBatch", 2, node, NOTE)
