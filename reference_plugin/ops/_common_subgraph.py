"""Shared by the control-flow kernels (If-8, Loop-5, TensorIterator-1): a body run on the plain
interpreter, its Parameters fed by the port map, and the outputs gathered from its Results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ovconform.ir import as_partial_shape
from ovconform.ir._subgraph import (
    BodyOutputDescription,
    ConcatOutputDescription,
    MergedInputDescription,
    SliceInputDescription,
)

if TYPE_CHECKING:
    from ovconform.ir import Model

#: A Loop with no trip-count limit stops with an error after this many iterations (its body
#: condition never turned false).
MAX_ITERATIONS = 1 << 20


def runner(body: Model) -> Any:
    """A plain-interpreter runner of ``body`` (imported here: the interpreter imports the kernels)."""
    from reference_plugin.evaluate import ModelRunner

    return ModelRunner(body)


def iteration_setup(body: Model, in_descs: Sequence[Any], edges: Sequence[Any], out_descs: Sequence[Any],
                    inputs: Sequence[np.ndarray], count: int | None
                    ) -> tuple[list[np.ndarray | None], dict[int, list[np.ndarray]], dict[int, np.ndarray],
                               dict[int, list[np.ndarray]]]:
    """What a Loop or TensorIterator needs before its first iteration: the body's feed (invariant
    and merged inputs in place), each sliced input's parts (``count`` of them, or as many as fit),
    each back edge's initial value by body Result, and an empty list per concatenated output."""
    feed: list[np.ndarray | None] = [None] * len(body.get_parameters())
    sliced: dict[int, list[np.ndarray]] = {}
    for d in in_descs:
        if isinstance(d, SliceInputDescription):
            sliced[d.body_parameter_index] = slices(inputs[d.input_index], d, count)
        else:
            feed[d.body_parameter_index] = inputs[d.input_index]
    initial = {d.body_value_index: inputs[d.input_index] for d in edges}
    concats: dict[int, list[np.ndarray]] = {d.output_index: [] for d in out_descs
                                            if isinstance(d, ConcatOutputDescription)}
    return feed, sliced, initial, concats


def slices(arr: np.ndarray, d: SliceInputDescription, count: int | None) -> list[np.ndarray]:
    """The parts of ``arr`` a sliced input feeds, in iteration order: ``part_size`` wide along the
    axis, from ``start`` on in steps of ``stride`` (from the end back when it is negative)."""
    axis = d.axis % arr.ndim
    dim = arr.shape[axis]
    start = d.start + dim if d.start < 0 else d.start
    end = d.end + dim if d.end < 0 else d.end
    if not (0 <= start < dim and 0 <= end < dim):
        raise ValueError(f"{d!r}: start {d.start} and end {d.end} lie outside the axis of size {dim}.")
    n = (abs(end - start) + 1) // d.part_size if count is None else count
    out = []
    for i in range(n):
        first = start + i * d.stride if d.stride > 0 else start + i * d.stride - d.part_size + 1
        if first < 0 or first + d.part_size > dim:
            raise ValueError(f"{d!r}: iteration {i} reads [{first}, {first + d.part_size}) outside the axis of "
                             f"size {dim}.")
        out.append(np.take(arr, range(first, first + d.part_size), axis=axis))
    return out


def concat(values: Sequence[np.ndarray], d: ConcatOutputDescription, empty_shape: Any, dtype: Any) -> np.ndarray:
    """The values of every iteration along the axis (reversed for a negative stride)."""
    if not values:
        if empty_shape is None:
            raise ValueError(f"{d!r}: no iteration ran and the body value's shape is not static, even with the "
                             "body's Parameters bound to this run's input shapes.")
        dims = list(empty_shape) or [1]
        dims[d.axis % len(dims)] = 0
        return np.zeros(dims, dtype=dtype)
    parts = [v.reshape(v.shape or (1,)) for v in values]
    if d.stride < 0:
        parts.reverse()
    return np.concatenate(parts, axis=d.axis % parts[0].ndim)


def body_input_shapes(body: Model, in_descs: Sequence[Any], inputs: Sequence[np.ndarray],
                      current_iteration: int = -1, current_shape: tuple[int, ...] = ()
                      ) -> list[tuple[int, ...] | None]:
    """The shape each body Parameter has at this run (a sliced input's: its part), from the node's
    inputs; None for a Parameter nothing feeds."""
    shapes: list[tuple[int, ...] | None] = [None] * len(body.get_parameters())
    for d in in_descs:
        shape = list(np.shape(inputs[d.input_index]))
        if isinstance(d, SliceInputDescription) and shape:
            shape[d.axis % len(shape)] = d.part_size
        shapes[d.body_parameter_index] = tuple(shape)
    if current_iteration >= 0:
        shapes[current_iteration] = current_shape
    return shapes


def _empty_shape(body: Model, index: int, body_shapes: Sequence[tuple[int, ...] | None] | None) -> Any:
    """The shape of body Result ``index`` when no iteration ran: static in the body, or inferred with
    the body's Parameters bound to this run's shapes (``body_shapes``) — a body of dynamic shape
    whose Result follows its inputs; None when neither gives a static shape."""
    shape = body.get_results()[index].get_input_partial_shape(0)
    if shape.is_static:
        return shape.to_shape()
    if body_shapes is None or any(s is None for s in body_shapes):
        return None
    bound = body.clone()
    for p, s in zip(bound.get_parameters(), body_shapes, strict=True):
        p.attrs["shape"] = as_partial_shape(list(s or ()))
    bound.validate_nodes_and_infer_types()
    shape = bound.get_results()[index].get_input_partial_shape(0)
    return shape.to_shape() if shape.is_static else None


def gather_outputs(n_out: int, out_descs: Sequence[Any], last: list[np.ndarray] | None,
                   concats: dict[int, list[np.ndarray]], initial: dict[int, np.ndarray], body: Model,
                   dtypes: Sequence[Any], body_shapes: Sequence[tuple[int, ...] | None] | None = None
                   ) -> tuple[np.ndarray, ...]:
    """The node outputs: the last iteration's Result values and the concatenations; with no iteration
    run, a back-edged value is its initial value (``initial`` by body Result index) and a
    concatenation is empty along its axis, of the shape the body gives at this run's input shapes
    (``body_shapes``, from :func:`body_input_shapes`)."""
    outs: list[np.ndarray | None] = [None] * n_out
    for d in out_descs:
        if isinstance(d, BodyOutputDescription):
            if last is not None:
                outs[d.output_index] = last[d.body_value_index]
            elif d.body_value_index in initial:
                outs[d.output_index] = initial[d.body_value_index]
            else:
                raise ValueError(f"no iteration ran, so output {d.output_index} (body Result {d.body_value_index}) "
                                 "has no value.")
        else:
            empty = _empty_shape(body, d.body_value_index, body_shapes) if not concats[d.output_index] else None
            outs[d.output_index] = concat(concats[d.output_index], d, empty, dtypes[d.output_index])
    assert all(o is not None for o in outs)
    return tuple(np.ascontiguousarray(o) for o in outs if o is not None)


def back_edges(in_descs: Sequence[Any]) -> list[MergedInputDescription]:
    return [d for d in in_descs if isinstance(d, MergedInputDescription)]
