"""Elementwise routes: unary kernels block by block, in-place writers, and the runners chains use.

**unary-blocks** (every transcendental :class:`~reference_plugin.ops._common_unary.UnaryOp`):
``compute`` over blocks of :meth:`BlockwiseUnary.chunk` elements instead of the whole tensor, so
a formula of several numpy passes runs in the L2 cache instead of streaming the tensor through
memory once per pass; with intra-op threads (:mod:`.parallel`) a tensor of
:data:`~.parallel.SPLIT_MIN` elements per thread or more shares its blocks among them.
Elementwise kernels compute each element from that element alone, so: bit for bit.

**writers** (Add, Subtract, Multiply, Maximum, Minimum, Relu, Sigmoid, Tanh, Exp, Abs, Negative,
HSwish, HSigmoid): the formula's ufuncs with ``out=``, so a chain member or an in-place step
writes its result where the caller says (possibly over its input) instead of into a new array
(HSwish and HSigmoid chunk by chunk, MobileNetV3's activations after a BatchNormInference). Same
ufuncs, same order, same dtype: bit for bit.

:func:`block_runner` and :func:`into_runner` give what a chain (:mod:`.chains`) and an in-place
step (:mod:`.inplace`) call per block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ovconform.ir import Type
from reference_plugin.fast import EXACT, kernel_route, writer_for, writer_route
from reference_plugin.fast.parallel import BLOCK_BYTES, SPLIT_MIN, map_shared, threads
from reference_plugin.fast.rows import workspace
from reference_plugin.ops import load_op, registered_ops
from reference_plugin.ops._common_binary import BinaryOp
from reference_plugin.ops._common_unary import UnaryOp
from reference_plugin.ops.op_sigmoid import Sigmoid

if TYPE_CHECKING:
    from ovconform.ir import Node

__all__ = ["CHUNK", "BlockwiseUnary", "block_runner", "into_runner"]

#: Elements per block of a blockwise elementwise computation (float32 in
#: :data:`~.parallel.BLOCK_BYTES`: a few passes over it stay in the L2 cache).
CHUNK = BLOCK_BYTES // 4
_FLOATS = (Type.f32, Type.f64)


class BlockwiseUnary(UnaryOp):
    """The unary-blocks route: ``compute`` of the formula over blocks (see the module docstring)."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self._out_dtypes: dict[np.dtype[Any], np.dtype[Any]] = {}

    def compute(self, x: np.ndarray) -> np.ndarray:
        chunk = self.chunk()
        n = threads()
        if n > 1 and x.size < n * SPLIT_MIN:
            n = 1
        if x.size <= 2 * chunk:
            return super().compute(x)
        flat = np.ascontiguousarray(x).reshape(-1)
        dtype = self._out_dtypes.get(flat.dtype)
        if dtype is None:  # what compute returns for this input dtype, probed once on one element
            dtype = self._out_dtypes[flat.dtype] = np.asarray(super().compute(flat[:1])).dtype
        out = np.empty(flat.size, dtype)
        formula = super().compute

        def part(starts: Iterable[int]) -> None:
            for start in starts:
                out[start:start + chunk] = formula(flat[start:start + chunk])

        map_shared(part, range(0, flat.size, chunk), n)
        return out.reshape(x.shape)

    def chunk(self) -> int:
        """Elements per block: :data:`CHUNK` for a formula keeping two arrays alive, less for one
        keeping more (a route's ``temporaries``: how many arrays of the input's size its
        ``compute`` keeps alive at once), so all of them stay in the L2 cache."""
        return max(1 << 12, CHUNK * 2 // max(2, getattr(self, "temporaries", 2)))


def _register_blocks() -> None:
    """unary-blocks for every registered transcendental UnaryOp kernel class."""
    classes = {load_op(t, v) for t, versions in registered_ops().items() for v in versions}
    blockwise = tuple(sorted((c for c in classes if issubclass(c, UnaryOp) and c.transcendental),
                             key=lambda c: (c.op_type, c.since)))
    kernel_route("unary-blocks", blockwise, EXACT,
                 "float inputs of more than two blocks (integer inputs too, after their conversion)",
                 order=0)(BlockwiseUnary)


def relu_into(x: np.ndarray, out: np.ndarray) -> None:
    np.maximum(x, np.zeros((), x.dtype), out=out)


def sigmoid_into(x: np.ndarray, out: np.ndarray) -> None:
    """``1 / (1 + exp(-x))`` in four in-place passes over ``out``."""
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1
    np.divide(1, out, out=out)


def _chunks(x: np.ndarray, out: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(x part, out part, work)``: C-contiguous ``x`` and ``out`` (of one shape and dtype) in
    parts of :data:`CHUNK` elements, each with a work array of its size in this thread's work
    buffer (:func:`~reference_plugin.fast.rows.workspace`, kept between calls); other layouts in
    one part with a new work array."""
    if not (x.flags.c_contiguous and out.flags.c_contiguous):
        yield x, out, np.empty(out.shape, out.dtype)
        return
    work = workspace((min(CHUNK, out.size),), out.dtype)
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)
    for start in range(0, flat_out.size, CHUNK):
        stop = min(start + CHUNK, flat_out.size)
        yield flat_x[start:stop], flat_out[start:stop], work[:stop - start]


def hswish_into(x: np.ndarray, out: np.ndarray) -> None:
    """HSwish's ``x * min(max(x + 3, 0), 6) / 6``: the formula's five passes (the same operands,
    Python-float constants in the array's dtype), chunk by chunk, ``min(max(x + 3, 0), 6)`` in a
    work array so that ``out`` may be ``x``."""
    for xs, os, work in _chunks(x, out):
        np.add(xs, 3.0, out=work)
        np.maximum(work, 0.0, out=work)
        np.minimum(work, 6.0, out=work)
        np.multiply(xs, work, out=os)
        np.divide(os, 6.0, out=os)


def hsigmoid_into(x: np.ndarray, out: np.ndarray) -> None:
    """HSigmoid's ``min(max(x + 3, 0), 6) / 6``: the formula's four passes, chunk by chunk, in
    ``out`` (which may be ``x``)."""
    for xs, os, _ in _chunks(x, out):
        np.add(xs, 3.0, out=os)
        np.maximum(os, 0.0, out=os)
        np.minimum(os, 6.0, out=os)
        np.divide(os, 6.0, out=os)


def _ufunc_writer(ufunc: np.ufunc) -> Callable[..., None]:
    """``ufunc`` with ``out=`` (one or two inputs: a writer is called per block, so no packing)."""
    if ufunc.nin == 1:
        def write1(x: np.ndarray, out: np.ndarray) -> None:
            ufunc(x, out=out)

        write1.__name__ = f"{ufunc.__name__}_into"
        return write1

    def write2(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        ufunc(a, b, out=out)

    write2.__name__ = f"{ufunc.__name__}_into"
    return write2


def _register_writers() -> None:
    when = "f32/f64 values of the kernel's own type, in chains and in-place steps"
    for op_type, ufunc in (("Add", np.add), ("Subtract", np.subtract), ("Multiply", np.multiply),
                           ("Maximum", np.maximum), ("Minimum", np.minimum), ("Tanh", np.tanh), ("Exp", np.exp),
                           ("Abs", np.abs), ("Negative", np.negative)):
        writer_route("writer", load_op(op_type, 1), _ufunc_writer(ufunc), when)
    writer_route("writer", load_op("Relu", 1), relu_into, when)
    writer_route("writer", Sigmoid, sigmoid_into, when)
    writer_route("writer", load_op("HSwish", 4), hswish_into, when)
    writer_route("writer", load_op("HSigmoid", 5), hsigmoid_into, when)


_register_blocks()
_register_writers()


def block_runner(kernel: Any) -> Callable[..., np.ndarray] | None:
    """What ``kernel.run_trusted`` computes for f32/f64 inputs of the kernel's own type (and,
    binary, shapes known to broadcast), without its per-call conversions and checks: for chains,
    whose types and shapes are planned. None when the kernel's run is not its base class's (a
    subclass overriding ``_run``) or its types do not fit."""
    if isinstance(kernel, UnaryOp):
        if not (type(kernel)._run is UnaryOp._run or kernel.float_run_is_base) \
                or kernel.t not in _FLOATS or kernel.out_t != kernel.t:
            return None
        out = kernel.out_t.to_dtype()
        compute = kernel.compute
        if not kernel.transcendental:
            return lambda x: np.asarray(compute(x)).astype(out, copy=False)
        dtype = kernel.compute_dtype()
        return lambda x: np.asarray(compute(x.astype(dtype, copy=False))).astype(out, copy=False)
    if isinstance(kernel, BinaryOp):
        if type(kernel)._run is not BinaryOp._run or kernel.t not in _FLOATS or kernel.out_t != kernel.t:
            return None
        out, compute2 = kernel.out_t.to_dtype(), kernel.compute
        return lambda a, b: np.asarray(compute2(a, b)).astype(out, copy=False)
    return None


def into_runner(kernel: Any) -> Callable[..., None] | None:
    """``runner(*inputs, out)``: what :func:`block_runner` computes, written into ``out`` (an array
    of the result's shape and dtype, which may be one of the inputs), or None when there is no
    block runner. The kernel's writer route when it has one and computes in its own dtype (no
    new array); else the block runner's result copied into ``out``."""
    runner = block_runner(kernel)
    if runner is None:
        return None
    writer = writer_for(kernel)
    own_dtype = not isinstance(kernel, UnaryOp) or not kernel.transcendental \
        or kernel.compute_dtype() == kernel.out_t.to_dtype()
    if writer is not None and own_dtype:
        return writer

    def copy_into(*args: np.ndarray) -> None:
        args[-1][...] = runner(*args[:-1])

    return copy_into
