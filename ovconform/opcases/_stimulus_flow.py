"""Stimulus cases of the control-flow port maps and run-time conditions the other cases leave at one
setting, and of broadcasting along dimensions that are dynamic in both operands.

A red team wrote a realistic bug for each (``tests/plugins/stimulus_faults_flow.py``) that the op
suite passed at standard depth before: the control-flow cases all build their Loops with a true
``execution_condition`` and a positive trip count, the current-iteration Parameter first, sequences
sliced along axis 0 (Loop) or the whole axis (TensorIterator), one sliced input per node, outputs
concatenated along the sliced axis, and If bodies whose Parameters and Results follow the node's
ports in order; the dynamic binary cases give both operands the same shape. Each label names what
it adds:

* **Loop-5** — ``exec-cond-false``: the ``execution_condition`` input a run-time Parameter holding
  false (the trip count a run-time 5), so no iteration runs (the back-edged output is its initial
  value, the concatenation empty along its axis); ``trip-count-0``: a run-time trip count of 0 (the same outputs);
  ``no-limit-body-stops``: a trip count of -1 (no limit) and a body condition ``i < 3`` that turns
  false mid-way (4 iterations); ``swap-back-edges``: back edges ``(a, b) -> (b, a + b)`` and a swap
  ``(c, d) -> (d, c)`` (body Results that are body Parameters: every back edge reads the values of
  the iteration before, none the value another back edge just wrote); ``iteration-param-last``:
  the current-iteration Parameter is the body's last Parameter, not its first;
  ``slice-axis1``: a batch-first ``[B, T, H]`` sequence sliced along axis 1, concatenated along
  axis 1; ``slice-last-axis-backward``: sliced along axis -1 from the end (stride -1);
  ``nested-if-alternating``: the body holds an If on ``i % 2 == 0`` (adds ``x`` on even
  iterations, subtracts it on odd ones), so the inner branch changes on every iteration.
* **If-8** — ``params-reordered-then``: the then body declares its Parameters in the other order
  than the node's inputs (the port map binds them; ``x - y`` is not symmetric);
  ``params-skip-else``: the else body reads only the second data input (one Parameter, bound to
  node input 2); ``results-reordered-then`` / ``results-reordered-else``: the taken body lists its
  Results in another order than the node's outputs (the port map names which Result is which output).
* **TensorIterator-1** — ``bidirectional``: the same sequence sliced forwards and backwards into two
  body Parameters; ``two-axes``: a batch-first ``[B, T, H]`` and a time-major ``[T, B, H]`` sequence
  sliced along axes 1 and 0 in one node; ``concat-axis0-from-axis1`` / ``concat-axis1-from-axis0``:
  the concatenated output on another axis than the sliced input's (batch-first in, time-major out,
  and the reverse); ``sub-range`` (start 1, end 4: steps 1..4 of 6, both ends included) and
  ``sub-range-backward`` (start -2, end 1, stride -1: steps 4..1): a partial range of the axis.
* **Add-1, Subtract-1, Multiply-1, Maximum-1** — ``dynamic-bcast``: both operands ``[?, ?]`` on one
  compiled model, inferred at shapes where either operand is 1 along an axis the other is not
  (``[3, 8] ∘ [1, 8]``, ``[1, 5] ∘ [4, 5]``, ``[2, 1] ∘ [2, 6]``): numpy broadcasting decided at
  run time, not at compile time.

The conditions are booleans given as inputs or the iteration number compared with an integer, no
float value decides a branch or a stop, and every Loop that runs no iteration has static body
shapes (the empty concatenation's other dimensions are the body's). Every case is small (at most
a few dozen elements per input) and seeded by its op, version and label
(:func:`ovconform.opcases.stimulus.seed_of`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import numpy as np

from ovconform import opset
from ovconform.ir import Model, Node, Type
from ovconform.opcases import OpCase
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S

Make = SR.MakeAt
F32: Final = Type.f32
I64: Final = Type.i64

#: the recipes of this module by (op, version), in registration order (the tests read the labels)
_BOOK = SR.RecipeBook()
RECIPES = _BOOK.recipes
register = _BOOK.register
labels = _BOOK.labels


def stim(op: str, version: int, label: str, make: Make, shape: tuple[int, ...] = (), *,
         shapes: tuple[tuple[int, ...], ...] = (), note: str = "") -> S.Stimulus:
    return S.Stimulus(op, version, label, "tiny", "ordinary", F32,
                      SR.node_case(op, version, label, make, shape, shapes, note), dynamic=bool(shapes))


def _ints(*values: int) -> Node:
    return opset.constant(np.array(values, np.int64))


def _f32(value: float) -> Node:
    return opset.constant(np.array(value, np.float32))


def _data(b: S.StimulusBuilder, name: str, shape: tuple[int, ...] | list[int], low: float = -4,
          high: float = 4) -> Node:
    return b.param(name, b.uniform(tuple(shape), F32, low, high), F32)


# -- Loop-5 ------------------------------------------------------------------------------------------------

#: Iterations of the counted Loops and their state's width.
STEPS: Final = 5
WIDTH: Final = 3


def loop_gate_make(kind: str) -> Make:
    """Body ``acc <- acc/2 + x_i + i/8`` over a ``[5, 3]`` sequence; outputs the last ``acc`` and
    every ``acc`` along a new axis 0. ``kind``: ``"exec-false"`` (a run-time execution_condition
    false, a run-time trip count 5), ``"trip0"`` (a run-time trip count 0), ``"no-limit"`` (trip
    count -1, the body condition ``i < 3``: 4 iterations)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        acc0, xs = _data(b, "acc", [WIDTH]), _data(b, "xs", [STEPS, WIDTH])
        it, acc, x_i = opset.parameter([], I64), opset.parameter([WIDTH], F32), opset.parameter([1, WIDTH], F32)
        step = opset.add(opset.add(opset.multiply(acc, _f32(0.5)), opset.squeeze(x_i, _ints(0))),
                         opset.multiply(opset.convert(it, F32), _f32(0.125)))
        cond: Node = opset.less(it, opset.constant(np.int64(3))) if kind == "no-limit" else opset.constant(True)
        body = Model([step, cond, opset.unsqueeze(step, _ints(0))], [it, acc, x_i], "body")
        r = body.get_results()
        trip: Node = opset.constant(np.int64(STEPS))
        go: Node = opset.constant(True)
        if kind == "exec-false":  # the trip count a Parameter too: with a constant one, shape inference
            # (OpenVINO's rule) makes the concatenation [5, 3] whatever the run-time condition
            trip = b.param("trip_count", np.array(STEPS, np.int64))
            go = b.param("execution_condition", np.array(False))
        elif kind == "trip0":
            trip = b.param("trip_count", np.array(0, np.int64))
        else:
            trip = opset.constant(np.int64(-1))
            go = b.param("execution_condition", np.array(True))
        return opset.loop(trip, go, body,
                          [opset.merged_input(acc, acc0, r[0]), opset.sliced_input(x_i, xs, 0, 1, 1, -1, 0)],
                          [opset.iter_value(r[0]), opset.concatenated_slices(r[2], 0, 1, 1, -1, 0)],
                          current_iteration=it, body_condition=r[1])

    return make


def loop_swap_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    """Back edges ``(a, b) -> (b, a + b)`` and ``(c, d) -> (d, c)`` over 5 iterations; outputs the last
    of each and every ``a`` concatenated."""
    inits = [_data(b, n, [2, WIDTH]) for n in ("a", "b", "c", "d")]
    a, bb, c, d = (opset.parameter([2, WIDTH], F32) for _ in range(4))
    body = Model([bb, opset.add(a, bb), d, c, opset.constant(True), opset.unsqueeze(a, _ints(0))], [a, bb, c, d],
                 "body")
    r = body.get_results()
    carried = zip((a, bb, c, d), inits, strict=True)
    return opset.loop(opset.constant(np.int64(STEPS)), opset.constant(True), body,
                      [opset.merged_input(p, v, r[k]) for k, (p, v) in enumerate(carried)],
                      [*(opset.iter_value(r[k]) for k in range(4)), opset.concatenated_slices(r[5], 0, 1, 1, -1, 0)],
                      body_condition=r[4])


def loop_iteration_last_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    """Body Parameters ``[acc, x_i, i]``: ``acc <- acc/2 + x_i·(i + 1)``, the iteration number last."""
    acc0, xs = _data(b, "acc", [WIDTH]), _data(b, "xs", [STEPS, 1, WIDTH])
    acc, x_i, it = opset.parameter([WIDTH], F32), opset.parameter([1, 1, WIDTH], F32), opset.parameter([], I64)
    weight = opset.convert(opset.add(it, opset.constant(np.int64(1))), F32)
    step = opset.add(opset.multiply(acc, _f32(0.5)), opset.multiply(opset.reshape(x_i, _ints(WIDTH), False), weight))
    body = Model([step, opset.constant(True)], [acc, x_i, it], "body")
    r = body.get_results()
    return opset.loop(opset.constant(np.int64(STEPS)), opset.constant(True), body,
                      [opset.merged_input(acc, acc0, r[0]), opset.sliced_input(x_i, xs, 0, 1, 1, -1, 0)],
                      [opset.iter_value(r[0])], current_iteration=it, body_condition=r[1])


def loop_axis_make(axis: int, backward: bool) -> Make:
    """The case's shape is the sequence's; sliced along ``axis`` (from the end when ``backward``);
    body ``acc <- acc/2 + x_i``; outputs the last ``acc`` and every ``acc`` along ``axis``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        part = list(shape)
        part[axis] = 1
        xs, acc0 = _data(b, "xs", shape), _data(b, "acc", part)
        acc, x_i = opset.parameter(part, F32), opset.parameter(part, F32)
        step = opset.add(opset.multiply(acc, _f32(0.5)), x_i)
        body = Model([step, opset.constant(True)], [acc, x_i], "body")
        r = body.get_results()
        sliced = (opset.sliced_input(x_i, xs, -1, -1, 1, 0, axis) if backward
                  else opset.sliced_input(x_i, xs, 0, 1, 1, -1, axis))
        return opset.loop(opset.constant(np.int64(shape[axis])), opset.constant(True), body,
                          [opset.merged_input(acc, acc0, r[0]), sliced],
                          [opset.iter_value(r[0]), opset.concatenated_slices(r[0], 0, 1, 1, -1, axis)],
                          body_condition=r[1])

    return make


def loop_nested_if_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    """Body: ``acc <- If(i % 2 == 0, acc + x, acc - x)`` over 5 iterations; outputs the last ``acc``
    and every ``acc`` along a new axis 0."""
    acc0, x = _data(b, "acc", [WIDTH]), _data(b, "x", [WIDTH])
    it, acc, xb = opset.parameter([], I64), opset.parameter([WIDTH], F32), opset.parameter([WIDTH], F32)
    even = opset.equal(opset.floor_mod(it, opset.constant(np.int64(2))), opset.constant(np.int64(0)))
    ta, tx, ea, ex = (opset.parameter([WIDTH], F32) for _ in range(4))
    then_body = Model([opset.add(ta, tx)], [ta, tx], "then")
    else_body = Model([opset.subtract(ea, ex)], [ea, ex], "else")
    inner = opset.if_op(even, then_body, else_body, [(acc, ta, ea), (xb, tx, ex)],
                        [(then_body.get_results()[0], else_body.get_results()[0])])
    body = Model([inner.output(0), opset.constant(True), opset.unsqueeze(inner.output(0), _ints(0))], [it, acc, xb],
                 "body")
    r = body.get_results()
    return opset.loop(opset.constant(np.int64(STEPS)), opset.constant(True), body,
                      [opset.merged_input(acc, acc0, r[0]), opset.invariant_input(xb, x)],
                      [opset.iter_value(r[0]), opset.concatenated_slices(r[2], 0, 1, 1, -1, 0)],
                      current_iteration=it, body_condition=r[1])


@register("Loop", 5)
def loop_recipe() -> Iterable[S.Stimulus]:
    op = "Loop"
    yield stim(op, 5, "exec-cond-false", loop_gate_make("exec-false"),
               note="execution_condition false at run time (trip_count 5): no iteration; outputs the initial acc "
                    "and [0, 3].")
    yield stim(op, 5, "trip-count-0", loop_gate_make("trip0"),
               note="trip_count 0 at run time: no iteration; outputs the initial acc and [0, 3].")
    yield stim(op, 5, "no-limit-body-stops", loop_gate_make("no-limit"),
               note="trip_count -1 (no limit); the body condition i < 3 turns false after iteration 3: 4 iterations.")
    yield stim(op, 5, "swap-back-edges", loop_swap_make,
               note="back edges (a, b) -> (b, a + b) and (c, d) -> (d, c): each reads the iteration before.")
    yield stim(op, 5, "iteration-param-last", loop_iteration_last_make,
               note="the current-iteration Parameter is the body's last: acc <- acc/2 + x_i * (i + 1).")
    yield stim(op, 5, "slice-axis1", loop_axis_make(1, False), (2, STEPS, WIDTH),
               note="[B, T, H] sliced along axis 1, acc concatenated along axis 1.")
    yield stim(op, 5, "slice-last-axis-backward", loop_axis_make(2, True), (2, WIDTH, STEPS),
               note="[B, H, T] sliced along axis 2 from the end (stride -1).")
    yield stim(op, 5, "nested-if-alternating", loop_nested_if_make,
               note="an If in the body on i % 2 == 0: acc + x on even iterations, acc - x on odd ones.")


# -- If-8 --------------------------------------------------------------------------------------------------

IF_SHAPE: Final = (3, 7)


def if_params_make(take: bool) -> Make:
    """Then body Parameters ``[ty, tx]`` (reversed), ``x - y``; else body reads ``y`` only: ``2y - 1``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        cond = b.param("cond", np.array(take))
        x, y = _data(b, "x", IF_SHAPE, 1, 2), _data(b, "y", IF_SHAPE, 3, 5)
        tx, ty, ey = (opset.parameter(list(IF_SHAPE), F32) for _ in range(3))
        then_body = Model([opset.subtract(tx, ty)], [ty, tx], "then")
        else_body = Model([opset.subtract(opset.multiply(ey, _f32(2.0)), _f32(1.0))], [ey], "else")
        return opset.if_op(cond, then_body, else_body, [(x, tx, None), (y, ty, ey)],
                           [(then_body.get_results()[0], else_body.get_results()[0])])

    return make


def if_results_make(take: bool) -> Make:
    """Two outputs, ``x - y`` then ``x·y`` (else ``x + y`` then ``x / y``); the taken body lists its
    Results the other way round (the port map names each)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        cond = b.param("cond", np.array(take))
        x, y = _data(b, "x", IF_SHAPE, 1, 2), _data(b, "y", IF_SHAPE, 3, 5)
        tx, ty, ex, ey = (opset.parameter(list(IF_SHAPE), F32) for _ in range(4))
        then_first, then_second = opset.subtract(tx, ty), opset.multiply(tx, ty)
        else_first, else_second = opset.add(ex, ey), opset.divide(ex, ey)
        then_results = [then_second, then_first] if take else [then_first, then_second]
        else_results = [else_first, else_second] if take else [else_second, else_first]
        then_body = Model(then_results, [tx, ty], "then")
        else_body = Model(else_results, [ex, ey], "else")
        t, e = then_body.get_results(), else_body.get_results()
        order = (1, 0) if take else (0, 1)
        other = (0, 1) if take else (1, 0)
        return opset.if_op(cond, then_body, else_body, [(x, tx, ex), (y, ty, ey)],
                           [(t[order[k]], e[other[k]]) for k in range(2)])

    return make


@register("If", 8)
def if_recipe() -> Iterable[S.Stimulus]:
    op = "If"
    yield stim(op, 8, "params-reordered-then", if_params_make(True),
               note="cond true; the then body's Parameters are [y, x] (the port map binds them): x - y.")
    yield stim(op, 8, "params-skip-else", if_params_make(False),
               note="cond false; the else body's one Parameter is bound to node input 2 (y): 2y - 1.")
    yield stim(op, 8, "results-reordered-then", if_results_make(True),
               note="cond true; the then body's Results are [x*y, x - y], the outputs x - y and x*y.")
    yield stim(op, 8, "results-reordered-else", if_results_make(False),
               note="cond false; the else body's Results are [x / y, x + y], the outputs x + y and x / y.")


# -- TensorIterator-1 --------------------------------------------------------------------------------------

TI_SHAPE: Final = (2, 6, WIDTH)


def ti_bidirectional_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    """``[2, 6, 3]`` read forwards (``x_t``) and backwards (``r_t``) along axis 1:
    ``h <- tanh(0.7h + x_t) + 0.3 r_t``; outputs the last ``h`` and every ``h`` along axis 1."""
    batch, _, width = TI_SHAPE
    seq, h0 = _data(b, "seq", TI_SHAPE, -1, 1), _data(b, "h0", [batch, 1, width], -1, 1)
    x_t, r_t, h = (opset.parameter([batch, 1, width], F32) for _ in range(3))
    new_h = opset.add(opset.tanh(opset.add(opset.multiply(h, _f32(0.7)), x_t)), opset.multiply(r_t, _f32(0.3)))
    body = Model([new_h], [x_t, r_t, h], "body")
    r = body.get_results()[0]
    return opset.tensor_iterator(body, [opset.sliced_input(x_t, seq, 0, 1, 1, -1, 1),
                                        opset.sliced_input(r_t, seq, -1, -1, 1, 0, 1), opset.merged_input(h, h0, r)],
                                 [opset.iter_value(r), opset.concatenated_slices(r, 0, 1, 1, -1, 1)])


def ti_two_axes_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    """``a`` ``[2, 5, 3]`` sliced along axis 1 and ``c`` ``[5, 2, 3]`` along axis 0 in one node:
    ``h <- tanh(0.7h + a_t + c_t)``; outputs every ``h`` along axis 1."""
    batch, steps = 2, STEPS
    a, c = _data(b, "a", [batch, steps, WIDTH], -1, 1), _data(b, "c", [steps, batch, WIDTH], -1, 1)
    h0 = _data(b, "h0", [batch, 1, WIDTH], -1, 1)
    a_t, c_t, h = (opset.parameter([batch, 1, WIDTH], F32), opset.parameter([1, batch, WIDTH], F32),
                   opset.parameter([batch, 1, WIDTH], F32))
    c_now = opset.reshape(c_t, _ints(batch, 1, WIDTH), False)
    new_h = opset.tanh(opset.add(opset.add(opset.multiply(h, _f32(0.7)), a_t), c_now))
    body = Model([new_h], [a_t, c_t, h], "body")
    r = body.get_results()[0]
    return opset.tensor_iterator(body, [opset.sliced_input(a_t, a, 0, 1, 1, -1, 1),
                                        opset.sliced_input(c_t, c, 0, 1, 1, -1, 0), opset.merged_input(h, h0, r)],
                                 [opset.concatenated_slices(r, 0, 1, 1, -1, 1)])


def ti_concat_axis_make(in_axis: int) -> Make:
    """The case's shape is the sequence's, sliced along ``in_axis`` (1: ``[B, T, H]``, 0: ``[T, B, H]``);
    the body's ``tanh(x_t)`` is reshaped to the other layout and concatenated along the other axis."""
    out_axis = 1 - in_axis

    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        part = list(shape)
        part[in_axis] = 1
        moved = [part[1], part[0], part[2]]
        seq = _data(b, "seq", shape, -2, 2)
        x_t = opset.parameter(part, F32)
        body = Model([opset.reshape(opset.tanh(x_t), _ints(*moved), False)], [x_t], "body")
        r = body.get_results()[0]
        return opset.tensor_iterator(body, [opset.sliced_input(x_t, seq, 0, 1, 1, -1, in_axis)],
                                     [opset.concatenated_slices(r, 0, 1, 1, -1, out_axis)])

    return make


def ti_range_make(backward: bool) -> Make:
    """``[2, 6, 3]`` walked along axis 1 over a part of it: steps 1..4 (start 1, end 4) or 4..1
    (start -2, end 1, stride -1); body ``h <- tanh(0.7h + x_t)``; outputs the last ``h`` and every
    ``h`` along axis 1."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        batch, _, width = TI_SHAPE
        seq, h0 = _data(b, "seq", TI_SHAPE, -1, 1), _data(b, "h0", [batch, 1, width], -1, 1)
        x_t, h = opset.parameter([batch, 1, width], F32), opset.parameter([batch, 1, width], F32)
        new_h = opset.tanh(opset.add(opset.multiply(h, _f32(0.7)), x_t))
        body = Model([new_h], [x_t, h], "body")
        r = body.get_results()[0]
        sliced = (opset.sliced_input(x_t, seq, -2, -1, 1, 1, 1) if backward
                  else opset.sliced_input(x_t, seq, 1, 1, 1, 4, 1))
        return opset.tensor_iterator(body, [sliced, opset.merged_input(h, h0, r)],
                                     [opset.iter_value(r), opset.concatenated_slices(r, 0, 1, 1, -1, 1)])

    return make


@register("TensorIterator", 1)
def tensor_iterator_recipe() -> Iterable[S.Stimulus]:
    op = "TensorIterator"
    yield stim(op, 1, "bidirectional", ti_bidirectional_make,
               note="one [2, 6, 3] sequence sliced forwards and backwards along axis 1 into two Parameters.")
    yield stim(op, 1, "two-axes", ti_two_axes_make,
               note="[2, 5, 3] sliced along axis 1 and [5, 2, 3] along axis 0 in one node.")
    yield stim(op, 1, "concat-axis0-from-axis1", ti_concat_axis_make(1), (2, STEPS, WIDTH),
               note="batch-first [2, 5, 3] sliced along axis 1; the output time-major [5, 2, 3] (axis 0).")
    yield stim(op, 1, "concat-axis1-from-axis0", ti_concat_axis_make(0), (STEPS, 2, WIDTH),
               note="time-major [5, 2, 3] sliced along axis 0; the output batch-first [2, 5, 3] (axis 1).")
    yield stim(op, 1, "sub-range", ti_range_make(False),
               note="start 1, end 4 on an axis of 6: steps 1, 2, 3, 4 (both ends included, as shape inference says).")
    yield stim(op, 1, "sub-range-backward", ti_range_make(True),
               note="start -2, end 1, stride -1 on an axis of 6: steps 4, 3, 2, 1.")


# -- binary elementwise ops: broadcasting along dimensions dynamic in both operands ---------------------------

#: (a, b) shapes of the inferences: either operand 1 along an axis where the other is not.
BCAST_STEPS: Final = (((3, 8), (1, 8)), ((1, 5), (4, 5)), ((2, 1), (2, 6)))
BINARY_OPS: Final = ("Add", "Subtract", "Multiply", "Maximum")


def bcast_case(op: str) -> S.Stimulus:
    label = "dynamic-bcast"
    make = {"Add": opset.add, "Subtract": opset.subtract, "Multiply": opset.multiply, "Maximum": opset.maximum}[op]

    def build(sa: tuple[int, ...], sb: tuple[int, ...]) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, 1, label))
        node = make(_data(b, "a", sa), _data(b, "b", sb))
        return b.finish(op, 1, node, "")

    steps = ", ".join(f"{list(sa)} and {list(sb)}" for sa, sb in BCAST_STEPS)
    note = f"dynamic mode: both operands [?, ?], inferred at {steps}: numpy broadcasting of a run-time 1."
    return S.Stimulus(op, 1, label, "tiny", "ordinary", F32,
                      lambda: S.dynamic_case([build(sa, sb) for sa, sb in BCAST_STEPS], note=note), dynamic=True)


def bcast_recipe(op: str) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        yield bcast_case(op)

    return recipe


for _op in BINARY_OPS:
    register(_op, 1)(bcast_recipe(_op))
