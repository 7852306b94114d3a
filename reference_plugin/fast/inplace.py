"""In-place steps: an elementwise node that writes its result into its input's buffer.

A bias Add after a Convolution, the Relu after it, a residual Add: each would allocate a fresh
output (and touch new pages) only to drop its input right after. When the input is a float
value that only this node reads, produced fresh by a kernel known to return new arrays, and the
node's kernel has a writer route (:mod:`.elementwise`, as chains use them), the program has it
write into that input instead: the same computation, so the same bits (the cnn anchor's bias
Adds and Relus run this way). A Result whose value is such a fresh single-reader value hands it
over instead of copying it.

A kernel route that has no writer but can write its whole result into a given array (a
``write_into(inputs, out) -> bool`` method: BatchNormInference's and Swish's block routes, which
copy each block into their work array before writing it back) runs in place the same way: the
BatchNormInference after a Convolution, the Swish after it, all in the Convolution's buffer.
``write_into`` returns False, having written nothing, where its route does not apply to the
run's inputs; the step then runs its kernel.

Planned at compile time (:func:`plan_inplace`), checked again at every run
(:meth:`InPlace.run`): the buffer must be writable, C-contiguous and of the planned dtype and
shape, and the kernels involved must still be the planned ones (a device derived from
REFERENCE may wrap kernels after compiling; those steps then run their kernel as usual).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ovconform.ir import Type
from reference_plugin.fast import formula_of, writer_for
from reference_plugin.fast.chains import Chain, static_shape
from reference_plugin.fast.elementwise import into_runner

if TYPE_CHECKING:
    from reference_plugin.compiled_model import Step

__all__ = ["InPlace", "plan_inplace"]

#: Kernels whose float outputs are always new arrays no one else holds. (Concat: ``np.concatenate``,
#: a new array even of one input; DenseNet's BatchNormInference after each Concat then runs in
#: the Concat's buffer, where it allocated a second one beside it, at the model's peak.)
_FRESH = frozenset({"Convolution", "GroupConvolution", "MatMul", "Add", "Subtract", "Multiply", "Maximum",
                    "Minimum", "Relu", "Sigmoid", "Tanh", "Gelu", "Softmax", "MVN", "BatchNormInference", "Swish",
                    "Concat"})
_TYPES = (Type.f32, Type.f64)


def _writer(kernel: Any) -> Any:
    """The kernel's writer route when it is what the kernel's float runner writes with (it has
    one and computes in its own dtype), else None."""
    into = into_runner(kernel)
    return into if into is not None and into is writer_for(kernel) else None


def _whole_writer(kernel: Any) -> bool:
    """Whether ``kernel`` is exactly what :func:`~reference_plugin.fast.make_kernel` builds and
    one of its routes writes a whole result in place (``write_into``): a derived device's
    subclass, which may compute otherwise, never has its computation bypassed."""
    return formula_of(kernel) is not None and callable(getattr(kernel, "write_into", None))


class InPlace:
    """How one step runs in place: the kernel's writer route (None for a Result, which hands
    the value over), which input's buffer it writes, the entry that produces that buffer (a step
    or a chain) with its planned kernel, and the buffer's planned dtype and shape."""

    __slots__ = ("dtype", "into", "kernel", "position", "producer", "shape", "source", "whole")

    def __init__(self, step: Step, into: Any, position: int, source: Any, shape: tuple[int, ...]) -> None:
        self.kernel, self.into, self.position, self.source = step.kernel, into, position, source
        #: the kernel's own ``write_into`` (``into`` is then that bound method)
        self.whole = into is not None and getattr(into, "__self__", None) is step.kernel
        self.producer = source if isinstance(source, Chain) else source.kernel
        self.dtype = step.node.get_output_element_type(0).to_dtype()
        self.shape = shape

    def run(self, step: Step, values: list[Any]) -> tuple[np.ndarray, ...] | None:
        """The step's outputs computed in place, or None when this run cannot (run the kernel)."""
        current = self.source if isinstance(self.source, Chain) else self.source.kernel
        out = values[step.reads[self.position]]
        if step.kernel is not self.kernel or current is not self.producer or type(out) is not np.ndarray:
            return None
        flags = out.flags
        if not (flags.writeable and flags.c_contiguous) or out.dtype != self.dtype or out.shape != self.shape:
            return None
        if self.into is None:  # a Result: hand the value over
            return (out,)
        if self.whole:
            return (out,) if self.into([values[s] for s in step.reads], out) else None
        if len(step.reads) == 1:
            self.into(out, out)
        elif self.position == 0:
            self.into(out, values[step.reads[1]], out)
        else:
            self.into(values[step.reads[0]], out, out)
        return (out,)


def plan_inplace(steps: Sequence[Step], readers: dict[tuple[int, int], int], chains: Sequence[Chain]) -> None:
    """Set ``step.inplace`` (an :class:`InPlace`) on every step that can run in place."""
    source_of: dict[tuple[int, int], Any] = {}
    for step in steps:
        if step.node.get_output_size() == 1 and step.node.type_name in _FRESH:
            source_of[(id(step.node), 0)] = step
    for chain in chains:  # a chain's output is a new array (or the output tensor only a Result reads)
        source_of[(id(steps[chain.links[-1].index].node), 0)] = chain
    for step in steps:
        node = step.node
        kind = node.type_name
        into = None if kind == "Result" else _writer(step.kernel)
        if into is None and kind != "Result" and _whole_writer(step.kernel):
            into = getattr(step.kernel, "write_into")  # noqa: B009 (a route's method, not OpRun's)
        if kind != "Result" and into is None:
            continue
        if step.rounds or step.fixed is not None or node.get_output_size() != 1:
            continue
        shape = static_shape(node)
        if shape is None or node.get_output_element_type(0) not in _TYPES:
            continue
        if kind != "Result" and str(node.attrs.get("auto_broadcast", "numpy")).lower() not in ("numpy", "none"):
            continue
        for position, source in enumerate(node.input_values()):
            key = (id(source.node), source.index)
            entry = source_of.get(key)
            if entry is None or readers.get(key, 0) != 1:
                continue
            if source.get_element_type() != node.get_output_element_type(0):
                continue
            if static_shape(source.node) != shape:  # (a source is output 0 of a one-output entry)
                continue
            step.inplace = InPlace(step, into, position, entry, shape)
            break
