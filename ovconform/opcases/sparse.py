"""Case strategies of the sparse ops (OpenVINO's op-spec folder "sparse"): EmbeddingSegmentsSum-3,
EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingBagOffsets-15, EmbeddingBagPacked-15
and SparseFillEmptyRows-16.

* Embedding bags: indices in range, offsets starting at 0, non-decreasing and below the number of
  indices (OpenVINO's reference rejects an offset equal to it, an empty last bag, though the
  opset15 spec allows it), segment ids sorted, ``num_segments`` a Constant, ``default_index`` in
  range (-1 as well for opset15), ``per_sample_weights`` only after a ``default_index`` (inputs
  are positional) and only with ``reduction="sum"``.
* SparseFillEmptyRows: a dense shape of 1..6 rows and 1..5 columns (i32/i64, a Parameter or a
  Constant) and 0..8 distinct entries at random positions (the order of equal indices is undefined
  in the spec's sort), in random order; values and the default of f32, f16, i32 or i64.
  ``indices`` are a Parameter or a Constant, ``values`` and ``default_value`` Parameters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed

EMB_TYPES = (Type.f32, Type.f16, Type.i32)


def _table(draw: Draw[Any], b: CaseBuilder, et: Type) -> tuple[Node, int]:
    rows = draw(st.integers(1, 6))
    extra = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    values = b.integers((rows, *extra), et, -10, 10) if not et.is_real() else b.uniform((rows, *extra), et, -4, 4)
    return b.param("emb_table", values), rows


def _weights(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> Node:
    values = b.integers(shape, et, -3, 3) if not et.is_real() else b.uniform(shape, et, -2, 2)
    return b.param("per_sample_weights", values)


def _index(b: CaseBuilder, name: str, values: np.ndarray, it: Type, as_const: bool) -> Node:
    return b.input(name, np.asarray(values).astype(it.to_dtype()), as_const)


def _optional(draw: Draw[Any], rows: int, allow_minus_one: bool) -> tuple[int | None, bool]:
    """(default_index or None, whether per_sample_weights follow)."""
    if not draw(st.booleans()):
        return None, False
    low = -1 if allow_minus_one else 0
    return draw(st.integers(low, rows - 1)), draw(st.booleans())


def _offsets_case(op: str, version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(EMB_TYPES))
        it = draw(st.sampled_from((Type.i32, Type.i64)))
        reduction = draw(st.sampled_from(("sum", "mean"))) if version == 15 else "sum"
        b = CaseBuilder(draw_seed(draw))
        table, rows = _table(draw, b, et)
        count = draw(st.integers(1, 8))
        bags = draw(st.integers(1, 4))
        offsets = [0, *sorted(draw(st.lists(st.integers(0, count - 1), min_size=bags - 1, max_size=bags - 1)))]
        default, weighted = _optional(draw, rows, version == 15)
        weighted = weighted and reduction == "sum"
        const = draw(st.booleans())
        indices = _index(b, "indices", b.integers((count,), it, 0, rows - 1), it, const)
        offs = _index(b, "offsets", np.array(offsets), it, const)
        dflt = None if default is None else _index(b, "default_index", np.array(default), it, True)
        weights = _weights(b, (count,), et) if weighted else None
        if version == 15:
            node = opset.embedding_bag_offsets(table, indices, offs, dflt, weights, reduction)
        else:
            node = opset.embedding_bag_offsets_sum(table, indices, offs, dflt, weights)
        return b.finish(op, version, node)

    build.__name__ = f"case_{op}"
    register_case(op, version)(build)


def _packed_case(op: str, version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(EMB_TYPES))
        it = draw(st.sampled_from((Type.i32, Type.i64)))
        reduction = draw(st.sampled_from(("sum", "mean"))) if version == 15 else "sum"
        b = CaseBuilder(draw_seed(draw))
        table, rows = _table(draw, b, et)
        shape = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
        indices = _index(b, "indices", b.integers(shape, it, 0, rows - 1), it, draw(st.booleans()))
        weights = _weights(b, shape, et) if reduction == "sum" and draw(st.booleans()) else None
        if version == 15:
            node = opset.embedding_bag_packed(table, indices, weights, reduction)
        else:
            node = opset.embedding_bag_packed_sum(table, indices, weights)
        return b.finish(op, version, node)

    build.__name__ = f"case_{op}"
    register_case(op, version)(build)


_offsets_case("EmbeddingBagOffsetsSum", 3)
_offsets_case("EmbeddingBagOffsets", 15)
_packed_case("EmbeddingBagPackedSum", 3)
_packed_case("EmbeddingBagPacked", 15)


@register_case("EmbeddingSegmentsSum", 3)
def case_embedding_segments_sum(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(EMB_TYPES))
    it = draw(st.sampled_from((Type.i32, Type.i64)))
    b = CaseBuilder(draw_seed(draw))
    table, rows = _table(draw, b, et)
    count = draw(st.integers(1, 8))
    segments = draw(st.integers(1, 5))
    ids = sorted(draw(st.lists(st.integers(0, segments - 1), min_size=count, max_size=count)))
    default, weighted = _optional(draw, rows, allow_minus_one=False)
    const = draw(st.booleans())
    indices = _index(b, "indices", b.integers((count,), it, 0, rows - 1), it, const)
    seg = _index(b, "segment_ids", np.array(ids), it, const)
    num = _index(b, "num_segments", np.array(segments), it, True)
    dflt = None if default is None else _index(b, "default_index", np.array(default), it, True)
    weights = _weights(b, (count,), et) if weighted else None
    node = opset.embedding_segments_sum(table, indices, seg, num, dflt, weights)
    return b.finish("EmbeddingSegmentsSum", 3, node)


@register_case("SparseFillEmptyRows", 16)
def case_sparse_fill_empty_rows(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((Type.f32, Type.f16, Type.i32, Type.i64)))
    it = draw(st.sampled_from((Type.i32, Type.i64)))
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    count = draw(st.integers(0, min(8, rows * cols)))
    b = CaseBuilder(draw_seed(draw))
    flat = b.rng.choice(rows * cols, count, replace=False)
    indices = np.stack([flat // cols, flat % cols], axis=1).reshape(count, 2).astype(it.to_dtype())
    values = b.param("values", b.uniform((count,), et, -9, 9))
    dense = b.input("dense_shape", np.array([rows, cols], it.to_dtype()), draw(st.booleans()))
    idx = b.input("indices", indices, draw(st.booleans()))
    default = b.param("default_value", b.uniform((), et, -9, 9))
    return b.finish("SparseFillEmptyRows", 16, opset.sparse_fill_empty_rows(values, dense, idx, default))
