"""Elementwise chains: runs of elementwise nodes executed block by block, in cache.

A chain is a node ``h`` followed by nodes each of whose non-constant input is the output of the
one before, where every link's value has no other reader and is not a model output: Sigmoid →
Tanh → Add(bias) → Relu, say. :class:`Program <reference_plugin.compiled_model.Program>` runs a
chain as one entry of its schedule: for each block of about :data:`BLOCK` elements (a slice of
the leading axes, so blocks stay in the input's layout) the first member writes the chain
output's block from the input's block and every next member rewrites that block in place
(the kernel's writer route, :mod:`.elementwise`; a kernel without one computes the block and
copies it in), so the
intermediate values never leave the cache and no array is made per member. Elementwise kernels
compute each element from the same elements of their inputs, so the values are the ones the
unchained run gives (tests/reference/test_chains.py checks it bit for bit).

Members are the kernels known to be elementwise: :class:`UnaryOp` kernels (one input) and
:class:`BinaryOp` kernels under numpy (or no) broadcasting whose other input is a Constant that
broadcasts into the chain's shape without growing it. Only f32/f64 chains with static shapes of
at least :data:`MIN_ELEMENTS` elements are formed, and none under f16 rounding (INFERENCE_PRECISION_HINT=f16).
Under profiling each member's time is summed over the blocks, so the counters stay per node.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ovconform.ir import Node, Type
from reference_plugin.fast.elementwise import into_runner
from reference_plugin.fast.parallel import BLOCK_BYTES, map_shared
from reference_plugin.ops import RunContext
from reference_plugin.ops._common_binary import BinaryOp
from reference_plugin.ops._common_unary import UnaryOp

if TYPE_CHECKING:
    from reference_plugin.compiled_model import Step

__all__ = ["BLOCK", "MIN_ELEMENTS", "Chain", "find_chains"]

#: Target elements per block: twice :data:`.parallel.BLOCK_BYTES` of float32 (half the L2
#: cache). Members run in place, so a block is the one array in cache while they run (the
#: eltwise anchor's chain was fastest at this size among 64K..512K elements).
BLOCK = BLOCK_BYTES // 2
#: Chains are formed for values of at least this many elements (1 MiB of float32): smaller ones
#: stay in cache anyway, and blocking them only adds calls (cnn's bias+Relu pairs ran slower).
MIN_ELEMENTS = 1 << 18
_TYPES = (Type.f32, Type.f64)


class _Link:
    """One member: its step index, kernel, and where its chain input goes among its inputs
    (with a constant, the constant's part for each of the chain's blocks, sliced once).

    A kernel with an :func:`~.elementwise.into_runner` runs through it: the chain has planned
    the types and shapes, so the per-call conversions and checks of ``run_trusted`` are skipped
    (the same computation; on two intra-op threads that Python work would hold the GIL)."""

    __slots__ = ("constant", "index", "into", "kernel", "parts", "position")

    def __init__(self, index: int, step: Step, position: int, constant: np.ndarray | None) -> None:
        self.index, self.kernel, self.position, self.constant = index, step.kernel, position, constant
        self.into: Callable[..., None] | None = into_runner(step.kernel)
        self.parts: list[np.ndarray] = []

    def plan(self, blocks: Sequence[tuple[slice, ...]]) -> None:
        """Slice the constant for each block (a block's slices of the axes it does not broadcast)."""
        c = self.constant
        if c is not None:
            self.parts = [c[tuple(p if n > 1 else slice(None) for p, n in zip(picks, c.shape, strict=False))]
                          for picks in blocks]

    def run(self, x: np.ndarray, block: int, ctx: RunContext, out: np.ndarray) -> None:
        """This member on the chain's block number ``block``: its chain input is ``x``, its result
        goes to ``out`` (the chain output's block, which ``x`` may be)."""
        if self.constant is None:
            if self.into is not None:
                self.into(x, out)
            else:
                out[...] = self.kernel.run_trusted([x], ctx)[0]
            return
        a, b = (x, self.parts[block]) if self.position == 0 else (self.parts[block], x)
        if self.into is not None:
            self.into(a, b, out)
        else:
            out[...] = self.kernel.run_trusted([a, b], ctx)[0]


class Chain:
    """A chain as one schedule entry: reads the head's chain input, writes the tail's output."""

    def __init__(self, links: list[_Link], source: int, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self.links = links
        self.reads = [source]
        self.writes: list[int] = []
        self.release: list[int] = []
        self.shape, self.dtype = shape, dtype
        self.blocks = _blocks(shape)
        for link in links:
            link.plan(self.blocks)

    @property
    def indices(self) -> list[int]:
        return [link.index for link in self.links]

    def run(self, x: np.ndarray, ctx: RunContext, timings: list[Any] | None,
            out: np.ndarray | None = None) -> np.ndarray:
        """The chain's output, a new array or ``out`` (C-contiguous, of the chain's shape and
        dtype, sharing no memory with ``x``): each block of it is written by the first member
        from the input's block, then rewritten in place by each next member (in cache, and no
        array per member and block)."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        blocks, links = self.blocks, self.links
        if timings is None:
            def part(numbers: Iterable[int]) -> None:
                for b in numbers:
                    block = out[blocks[b]]
                    value = x[blocks[b]]
                    for link in links:
                        link.run(value, b, ctx, block)
                        value = block

            map_shared(part, range(len(blocks)))
            return out

        def timed(numbers: Iterable[int]) -> list[list[float]]:
            spent = [[0.0, 0.0] for _ in links]
            for b in numbers:
                block = out[blocks[b]]
                value = x[blocks[b]]
                for link, acc in zip(links, spent, strict=True):
                    wall, cpu = time.perf_counter(), time.thread_time()
                    link.run(value, b, ctx, block)
                    acc[0] += time.perf_counter() - wall
                    acc[1] += time.thread_time() - cpu
                    value = block
            return spent

        parts = map_shared(timed, range(len(blocks)))
        for i, link in enumerate(self.links):
            # elapsed: each thread's time averaged over the threads (so the members' counters
            # still add up to about the chain's wall time); CPU: the threads' sum
            timings[link.index] = (sum(p[i][0] for p in parts) / len(parts), sum(p[i][1] for p in parts))
        return out


def _blocks(shape: tuple[int, ...]) -> list[tuple[slice, ...]]:
    """Slices of the leading axes covering ``shape`` in blocks of about :data:`BLOCK` elements
    (whole trailing axes, so a block of a C-contiguous array is contiguous)."""
    axis = 0
    while axis < len(shape) - 1 and math.prod(shape[axis + 1:]) > BLOCK:
        axis += 1
    inner = math.prod(shape[axis + 1:])
    step = max(1, BLOCK // max(1, inner))
    out = []
    for lead in np.ndindex(*shape[:axis]):
        for start in range(0, shape[axis], step):
            out.append((*(slice(i, i + 1) for i in lead), slice(start, min(start + step, shape[axis]))))
    return out


def static_shape(node: Node) -> tuple[int, ...] | None:
    """The static shape of ``node``'s output 0, None when it is not static."""
    ps = node.get_output_partial_shape(0)
    return tuple(ps.to_shape()) if ps.is_static else None


def _member(step: Step, source: tuple[int, int], fixed: Callable[[Node], np.ndarray | None],
            shape: tuple[int, ...], et: Type) -> tuple[int, np.ndarray | None] | None:
    """``(position of the chain input, constant or None)`` when ``step`` can extend a chain whose
    value is output ``source`` of a node, else None."""
    node, kernel = step.node, step.kernel
    if step.rounds or node.get_output_size() != 1 or node.get_output_element_type(0) != et \
            or static_shape(node) != shape:
        return None
    ins = node.input_values()
    if isinstance(kernel, UnaryOp) and len(ins) == 1:
        ok = (id(ins[0].node), ins[0].index) == source and ins[0].get_element_type() == et
        return (0, None) if ok else None
    if not isinstance(kernel, BinaryOp) or len(ins) != 2 or kernel.mode not in ("numpy", "none"):
        return None
    for position in (0, 1):
        this, other = ins[position], ins[1 - position]
        if (id(this.node), this.index) != source:
            continue
        this_shape = this.get_partial_shape()
        if this.get_element_type() != et or not this_shape.is_static or tuple(this_shape.to_shape()) != shape:
            return None
        constant = fixed(other.node)
        if constant is None or constant.ndim > len(shape):
            return None
        constant = constant.reshape((1,) * (len(shape) - constant.ndim) + constant.shape)
        if all(c in (1, s) for c, s in zip(constant.shape, shape, strict=True)):
            return position, constant
        return None
    return None


def find_chains(steps: Sequence[Step], readers: dict[tuple[int, int], int]) -> list[Chain]:
    """The chains of ``steps`` (in order), each of two members or more.

    :param readers: how many inputs read each ``(id(node), output)`` (a Result is a reader, so a
        model output never has a single elementwise reader).
    """
    fixed_of = {id(s.node): s.fixed[0] for s in steps if s.fixed is not None and len(s.fixed) == 1}
    consumer: dict[tuple[int, int], int] = {}
    for index, step in enumerate(steps):
        for v in step.node.input_values():
            consumer[(id(v.node), v.index)] = index

    def fixed(node: Node) -> np.ndarray | None:
        return fixed_of.get(id(node))

    taken: set[int] = set()
    chains = []
    for index, step in enumerate(steps):
        if index in taken or step.fixed is not None or step.param_index is not None:
            continue
        et, shape = (step.node.get_output_element_type(0) if step.node.get_output_size() == 1 else None,
                     static_shape(step.node) if step.node.get_output_size() == 1 else None)
        if et not in _TYPES or shape is None or math.prod(shape) < MIN_ELEMENTS or len(_blocks(shape)) < 2:
            continue
        ins = step.node.input_values()
        head = next((_member(step, (id(v.node), v.index), fixed, shape, et) for v in ins
                     if fixed(v.node) is None), None)
        if head is None:
            continue
        links = [_Link(index, step, *head)]
        value = (id(step.node), 0)
        while readers.get(value, 0) == 1 and value in consumer:
            nxt = consumer[value]
            found = _member(steps[nxt], value, fixed, shape, et)
            if found is None or nxt in taken:
                break
            links.append(_Link(nxt, steps[nxt], *found))
            value = (id(steps[nxt].node), 0)
        if len(links) < 2:
            continue
        source = step.reads[links[0].position]
        chain = Chain(links, source, shape, et.to_dtype())
        chain.writes = list(steps[links[-1].index].writes)
        taken.update(chain.indices)
        chains.append(chain)
    return chains
