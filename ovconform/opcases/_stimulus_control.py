"""Stimulus cases of the control-flow op versions (If-8, Loop-5, TensorIterator-1), with dynamic-shape
cases (issue #20 gap).

A device runs a control-flow op by running its bodies: what tiles is the body's work (the axes of
the tensors it reads), and what a device gets wrong is the bookkeeping around it — the iteration
count, the part of a sliced input each iteration reads, the growing concatenated output, the back
edge that carries a tensor from one iteration to the next, and the plan it builds for the shapes
it saw first. So the cases reach:

* **Loop-5** — 65 and 129 iterations (a sliced input of that length, every iteration concatenated)
  over a ``[3, 17]`` back edge; a back edge of a large tensor (``[2, 32771]``, 65,542 elements,
  9 iterations, every iteration concatenated along a new axis — OpenVINO CPU concatenates body
  values one wide along the axis only, as exported models write them); a Loop its body condition
  stops (``i < stop``, a run-time ``stop`` of 64: 65 iterations of a possible 100); the sequence
  walked backwards with NaN, ±Inf and -0.0 carried through (data movement: the body passes the
  slice through); f16, bf16, i32 and i64 bodies; and a **dynamic** case: one compiled Loop whose trip count (a run-time
  Parameter), sequence length and batch change — ``T×B`` 7×1, 65×3, 129×5.
* **TensorIterator-1** — a GRU-like step ``h = tanh(x·W + h·U + b)`` over 65 and 129 steps (hidden 17
  and 33), a large one (``[4, 64, 256]`` input, hidden 256: the MatMuls tile), a backward walk
  in parts of 2 over 130 steps with the outputs concatenated in reverse, NaN/±Inf carried through
  a reversing body, f16/bf16 GRU steps and i32/i64 steps (clamped, exact), and a **dynamic** case
  whose batch and sequence length change (``B×T`` 1×7, 3×65, 5×129).
* **If-8** — each branch on every remainder length of the innermost axis (7, 17, 63 and 129 at
  standard depth) and on large (65,542 elements) tensors, data-moving
  branches (Concat in either order) carrying NaN/±Inf, f16/bf16/i32/i64, and two **dynamic**
  cases: the condition is a Parameter that takes the then, else, then branch at the min, mid and
  max shapes of one compiled model; in the second the branches give outputs of different shapes
  (``[B, H]`` and ``[B, 2H]``), so the output shape follows the branch taken.

What the specs leave open is avoided: a Loop never runs past the parts of its sliced input (the
trip count is the sliced length, or the body condition stops it first), integer bodies stay far
from overflow (clamped accumulators, values in [-4, 4]), and no float value decides a branch or a
stop (conditions are booleans given as inputs or the iteration number compared with an integer).
No dynamic case runs a Loop zero times: the spec does not say what the other dimensions of an
empty concatenation are when the body's shapes are dynamic (REFERENCE gives the body's shape at
the run's inputs, OpenVINO CPU gives 0 for every dynamic dimension).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ovconform import opset
from ovconform.ir import Model, Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._stimulus_numeric import const_rng, stim
from ovconform.opcases.depth import Depth

F32 = Type.f32
I64 = Type.i64
#: Element types of the bodies: the standard depth runs the half-precision and 32-bit integer ones.
TYPES = (Type.f16, Type.bf16, Type.i32, Type.i64)
STANDARD_TYPES = (Type.f16, Type.bf16, Type.i32)
#: (iterations, batch) of the dynamic Loop and TensorIterator cases.
DYNAMIC_STEPS = ((7, 1), (65, 3), (129, 5))
#: Special values a data-moving body carries through.
SPECIALS = ("nan", "inf", "-inf", "-0")
LARGE_COLUMNS = 32771  # 2 rows: 65,542 elements; 32771 % 8 = 3


def _depth(et: Type) -> Depth:
    return Depth.STANDARD if et in STANDARD_TYPES else Depth.EXHAUSTIVE


def _axes(*axes: int) -> Node:
    return opset.constant(np.array(axes, np.int64))


def _scalar(value: float, et: Type) -> Node:
    return opset.constant(S.cast(np.array(value), et), et)


# -- Loop-5 ---------------------------------------------------------------------------------------------------

def loop_make(et: Type = F32, *, trip: str = "counted", stop: int = 0, large: bool = False) -> SR.MakeAt:
    """The case's shape is the sliced sequence's ``[T, B, H]`` (``large``: the back edge's ``[B, H]``,
    no sliced input, ``T`` = 9 iterations). Body: ``acc ← acc·½ + x_i + i/8`` (integers:
    ``clamp(acc + x_i - i, ±1000)``); outputs the last ``acc`` and every ``acc`` concatenated along
    a new axis 0. ``trip``: ``"counted"`` (a Constant ``T``), ``"param"`` (a run-time trip count ``T``),
    ``"stop"`` (trip count 100, the body condition ``i < stop`` stops it after ``stop + 1``)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        steps, *state = shape if not large else (9, *shape)
        real = et.is_real()
        acc0 = b.param("acc", b.uniform(state, et, -4, 4), et)
        it = opset.parameter([], I64)
        acc = opset.parameter(list(state), et)
        params = [it, acc]
        if large:
            xv = b.param("x", b.uniform(state, et, -1, 1), et)
            x_i = opset.parameter(list(state), et)
            x_now: Node = x_i
        else:
            xv = b.param("xs", b.uniform((steps, *state), et, -4, 4), et)
            x_i = opset.parameter([1, *state], et)
            x_now = opset.squeeze(x_i, _axes(0))
        params.append(x_i)
        if real:
            step = opset.add(opset.add(opset.multiply(acc, _scalar(0.5, et)), x_now),
                             opset.multiply(opset.convert(it, et), _scalar(0.125, et)))
        else:
            step = opset.clamp(opset.subtract(opset.add(acc, x_now), opset.convert(it, et)), -1000, 1000)
        limit = b.param("stop", np.array(stop, np.int64)) if trip == "stop" else None
        stop_p = opset.parameter([], I64)
        cond: Node = opset.constant(True)
        if limit is not None:
            params.append(stop_p)
            cond = opset.less(it, stop_p)
        body = Model([step, cond, opset.unsqueeze(step, _axes(0))], params, "body")
        r = body.get_results()
        entries = [opset.merged_input(acc, acc0, r[0]),
                   opset.invariant_input(x_i, xv) if large else opset.sliced_input(x_i, xv, 0, 1, 1, -1, 0)]
        if limit is not None:
            entries.append(opset.invariant_input(stop_p, limit))
            count: Node = opset.constant(np.int64(100))
        elif trip == "param":
            count = b.param("trip_count", np.array(steps, np.int64))
        else:
            count = opset.constant(np.int64(steps))
        return opset.loop(count, opset.constant(True), body, entries,
                          [opset.iter_value(r[0]), opset.concatenated_slices(r[2], 0, 1, 1, -1, 0)],
                          current_iteration=it, body_condition=r[1])

    return make


def loop_reverse_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    """Data movement: the sequence ``[T, H]`` sliced from the end, each part passed through and
    concatenated: the output is the sequence reversed, NaN, ±Inf and -0.0 included."""
    xs = b.param("xs", S.with_specials(b.rng, b.rng.uniform(-4, 4, shape), F32, SPECIALS), F32)
    x_i = opset.parameter([1, *shape[1:]], F32)
    body = Model([opset.concat([x_i], 0), opset.constant(True)], [x_i], "body")
    r = body.get_results()
    return opset.loop(opset.constant(np.int64(shape[0])), opset.constant(True), body,
                      [opset.sliced_input(x_i, xs, -1, -1, 1, 0, 0)],
                      [opset.concatenated_slices(r[0], 0, 1, 1, -1, 0)], body_condition=r[1])


@S.register_stimuli("Loop", 5)
def loop_recipe() -> Iterable[S.Stimulus]:
    op = "Loop"
    yield stim(op, 5, "it65", loop_make(), (65, 3, 17))
    yield stim(op, 5, "it129", loop_make(), (129, 3, 17))
    yield stim(op, 5, "it129-h65", loop_make(), (129, 2, 65), depth=Depth.EXHAUSTIVE)
    yield stim(op, 5, "back-edge-65542", loop_make(large=True), (2, LARGE_COLUMNS), size="large")
    yield stim(op, 5, "stop-at-65", loop_make(trip="stop", stop=64), (80, 3, 17))
    yield stim(op, 5, "reverse-special", loop_reverse_make, (33, 17), values="special")
    for et in TYPES:
        label = f"{et.name}-it65"
        yield stim(op, 5, label, loop_make(et), (65, 3, 17), et=et, depth=_depth(et))
    yield stim(op, 5, "dynamic", loop_make(trip="param"), (7, 1, 17),
               shapes=tuple((t, n, 17) for t, n in DYNAMIC_STEPS),
               note="the trip count, sequence length and batch change on one compiled model")


# -- TensorIterator-1 -----------------------------------------------------------------------------------------

def gru_make(label: str, hidden: int, et: Type = F32) -> SR.MakeAt:
    """The case's shape is the sequence's ``[B, T, I]``, walked along axis 1; body
    ``h ← tanh(x_t·W + h·U + b)`` with Constants ``W`` and ``U`` scaled ``1/√fan_in`` (the same at
    every shape of a dynamic case); outputs the last ``h`` and every ``h`` along axis 1."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        batch, _, inputs = shape
        rng = const_rng("TensorIterator", 1, label)
        w = S.cast(rng.uniform(-1, 1, (inputs, hidden)) / np.sqrt(inputs), et)
        u = S.cast(rng.uniform(-1, 1, (hidden, hidden)) / np.sqrt(hidden), et)
        bias = S.cast(rng.uniform(-0.1, 0.1, (hidden,)), et)
        seq = b.param("seq", b.uniform(shape, et, -1, 1), et)
        h0 = b.param("h0", b.uniform((batch, hidden), et, -1, 1), et)
        x_t, h = opset.parameter([batch, 1, inputs], et), opset.parameter([batch, hidden], et)
        mixed = opset.add(opset.matmul(opset.squeeze(x_t, _axes(1)), b.const(w, et), False, False),
                          opset.add(opset.matmul(h, b.const(u, et), False, False), b.const(bias, et)))
        new_h = opset.tanh(mixed)
        body = Model([new_h, opset.unsqueeze(new_h, _axes(1))], [x_t, h], "body")
        r = body.get_results()
        return opset.tensor_iterator(body, [opset.sliced_input(x_t, seq, 0, 1, 1, -1, 1),
                                            opset.merged_input(h, h0, r[0])],
                                     [opset.iter_value(r[0]), opset.concatenated_slices(r[1], 0, 1, 1, -1, 1)])

    return make


def ti_elementwise_make(et: Type = F32, part: int = 1, backward: bool = False) -> SR.MakeAt:
    """The case's shape is the sequence's ``[B, T·part, H]``; body ``h ← tanh(h·w + x_t)`` (integers:
    ``clamp(h·w + x_t, ±50)``, ``w`` in {-1, 0, 1}) over parts of ``part`` steps, from the end when
    ``backward`` (the concatenated output then reversed too)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        batch, _, hidden = shape
        part_shape = [batch, part, hidden]
        seq = b.param("seq", b.uniform(shape, et, -3, 3), et)
        h0 = b.param("h0", b.uniform(part_shape, et, -3, 3), et)
        w = b.param("w", b.uniform([1, 1, hidden], et, -1, 1), et)
        x_t, h, w_i = (opset.parameter(part_shape, et), opset.parameter(part_shape, et),
                       opset.parameter([1, 1, hidden], et))
        mixed = opset.add(opset.multiply(h, w_i), x_t)
        new_h = opset.tanh(mixed) if et.is_real() else opset.clamp(mixed, -50, 50)
        body = Model([new_h], [x_t, h, w_i], "body")
        r = body.get_results()[0]
        start, stride, end = (-1, -part, 0) if backward else (0, part, -1)
        out = (opset.concatenated_slices(r, -1, -part, part, 0, 1) if backward
               else opset.concatenated_slices(r, 0, part, part, -1, 1))
        return opset.tensor_iterator(body, [opset.sliced_input(x_t, seq, start, stride, part, end, 1),
                                            opset.merged_input(h, h0, r), opset.invariant_input(w_i, w)],
                                     [opset.iter_value(r), out])

    return make


def ti_reverse_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    """Data movement: ``[B, T, H]`` walked from the end along axis 1, each part passed through (a
    Concat of one input) and concatenated forwards: the sequence reversed, specials included."""
    seq = b.param("seq", S.with_specials(b.rng, b.rng.uniform(-4, 4, shape), F32, SPECIALS), F32)
    x_t = opset.parameter([shape[0], 1, shape[2]], F32)
    body = Model([opset.concat([x_t], 1)], [x_t], "body")
    r = body.get_results()[0]
    return opset.tensor_iterator(body, [opset.sliced_input(x_t, seq, -1, -1, 1, 0, 1)],
                                 [opset.concatenated_slices(r, 0, 1, 1, -1, 1)])


@S.register_stimuli("TensorIterator", 1)
def tensor_iterator_recipe() -> Iterable[S.Stimulus]:
    op = "TensorIterator"
    yield stim(op, 1, "seq65-h17", gru_make("seq65-h17", 17), (3, 65, 9))
    yield stim(op, 1, "seq129-h33", gru_make("seq129-h33", 33), (2, 129, 17))
    yield stim(op, 1, "seq64-i256-h256", gru_make("seq64-i256-h256", 256), (4, 64, 256), size="large",
               values="long-reduction")
    yield stim(op, 1, "rev-part2-it65", ti_elementwise_make(part=2, backward=True), (3, 130, 17))
    yield stim(op, 1, "reverse-special", ti_reverse_make, (2, 65, 9), values="special")
    for et in TYPES:
        label = f"{et.name}-seq65"
        make = gru_make(label, 17, et) if et.is_real() else ti_elementwise_make(et)
        yield stim(op, 1, label, make, (3, 65, 17), et=et, depth=_depth(et))
    yield stim(op, 1, "dynamic", gru_make("dynamic", 17), (1, 7, 9),
               shapes=tuple((n, t, 9) for t, n in DYNAMIC_STEPS),
               note="the batch and the sequence length change on one compiled model")


# -- If-8 -----------------------------------------------------------------------------------------------------

def if_make(et: Type = F32, branch: bool | None = None, *, moving: bool = False,
            values: str = "ordinary", widen: bool = False) -> SR.MakeAt:
    """The case's shape is ``x``'s and ``y``'s; ``cond`` a boolean Parameter (``branch``, or the
    branches in turn at the shapes of a dynamic case: then, else, then — chosen from the batch,
    which differs at each). Bodies: then ``x·y + x``, else ``x - y`` (``moving``: Concat of
    ``[x, y]`` and of ``[y, x]`` on the last axis; ``widen``: then ``x + y`` ``[B, H]``, else
    ``[x, y]`` ``[B, 2H]``)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        take = branch if branch is not None else shape[0] % 2 == 1  # batches 1, 2, 5: then, else, then
        cond = b.param("cond", np.array(take))
        if values == "special":
            x = b.param("x", S.with_specials(b.rng, b.rng.uniform(-20, 20, shape), et, SPECIALS), et)
            y = b.param("y", S.with_specials(b.rng, b.rng.uniform(-20, 20, shape), et, SPECIALS), et)
        else:
            x = b.param("x", b.uniform(shape, et, -20, 20), et)
            y = b.param("y", b.uniform(shape, et, -20, 20), et)
        dims = [-1] * len(shape) if branch is None else list(shape)
        tx, ty, ex, ey = (opset.parameter(dims, et) for _ in range(4))
        if moving:
            then_value, else_value = opset.concat([tx, ty], -1), opset.concat([ey, ex], -1)
        elif widen:
            then_value, else_value = opset.add(tx, ty), opset.concat([ex, ey], -1)
        else:
            then_value, else_value = opset.add(opset.multiply(tx, ty), tx), opset.subtract(ex, ey)
        then_body = Model([then_value], [tx, ty], "then")
        else_body = Model([else_value], [ex, ey], "else")
        return opset.if_op(cond, then_body, else_body, [(x, tx, ex), (y, ty, ey)],
                           [(then_body.get_results()[0], else_body.get_results()[0])])

    return make


@S.register_stimuli("If", 8)
def if_recipe() -> Iterable[S.Stimulus]:
    op = "If"
    for n in S.REMAINDERS:
        depth = S.remainder_depth(n)
        yield stim(op, 8, f"then-n{n}", if_make(branch=True), (3, n), depth=depth)
        yield stim(op, 8, f"else-n{n}", if_make(branch=False), (3, n), depth=depth)
    yield stim(op, 8, "then-65542", if_make(branch=True), (2, LARGE_COLUMNS), size="large")
    yield stim(op, 8, "else-65542", if_make(branch=False), (2, LARGE_COLUMNS), size="large")
    yield stim(op, 8, "concat-then-special", if_make(branch=True, moving=True, values="special"), (4, 33),
               values="special")
    yield stim(op, 8, "concat-else-special", if_make(branch=False, moving=True, values="special"), (4, 33),
               values="special")
    for et in TYPES:
        yield stim(op, 8, f"{et.name}-else-n65", if_make(et, branch=False), (3, 65), et=et, depth=_depth(et))
    shapes = ((1, 7), (2, 65), (5, 129))
    yield stim(op, 8, "dynamic-both-branches", if_make(), shapes[0], shapes=shapes,
               note="the then, else and then branch on one compiled model")
    yield stim(op, 8, "dynamic-branch-shapes", if_make(widen=True), shapes[0], shapes=shapes,
               note="the branches give [B, H] and [B, 2H]; the output shape follows the branch taken")
