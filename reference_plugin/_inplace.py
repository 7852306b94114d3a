"""In-place steps: an elementwise node that writes its result into its input's buffer.

A bias Add after a Convolution, the Relu after it, a residual Add: each would allocate a fresh
output (and touch new pages) only to drop its input right after. When the input is a float
value that only this node reads, produced fresh by a kernel known to return new arrays, the
program computes ``ufunc(a, b, out=a)`` instead: the same ufunc on the same operands, so the
same bits (cnn anchor: its bias Adds and Relus 0.25 -> 0.1 ms). A Result whose value is such a
fresh single-reader value hands it over instead of copying it.

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
from reference_plugin._chains import Chain, static_shape

if TYPE_CHECKING:
    from reference_plugin.compiled_model import Step

__all__ = ["InPlace", "plan_inplace"]

#: Kernels computed in place: op type -> the ufunc their compute is (Relu: maximum with 0).
_UFUNCS = {"Add": np.add, "Subtract": np.subtract, "Multiply": np.multiply, "Maximum": np.maximum,
           "Minimum": np.minimum, "Relu": np.maximum}
#: Kernels whose float outputs are always new arrays no one else holds.
_FRESH = frozenset({"Convolution", "GroupConvolution", "MatMul", "Add", "Subtract", "Multiply", "Maximum",
                    "Minimum", "Relu", "Sigmoid", "Tanh", "Gelu", "Softmax", "MVN"})
_TYPES = (Type.f32, Type.f64)


class InPlace:
    """How one step runs in place: the ufunc, which input's buffer it writes, the entry that
    produces that buffer (a step or a chain) with its planned kernel, and the buffer's planned
    dtype and shape."""

    __slots__ = ("dtype", "kernel", "position", "producer", "shape", "source", "ufunc")

    def __init__(self, step: Step, ufunc: Any, position: int, source: Any, shape: tuple[int, ...]) -> None:
        self.kernel, self.ufunc, self.position, self.source = step.kernel, ufunc, position, source
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
        if self.ufunc is None:  # a Result: hand the value over
            return (out,)
        if len(step.reads) == 1:  # Relu
            self.ufunc(out, np.zeros((), out.dtype), out=out)
        elif self.position == 0:
            self.ufunc(out, values[step.reads[1]], out=out)
        else:
            self.ufunc(values[step.reads[0]], out, out=out)
        return (out,)


def plan_inplace(steps: Sequence[Step], readers: dict[tuple[int, int], int], chains: Sequence[Chain]) -> None:
    """Set ``step.inplace`` (an :class:`InPlace`) on every step that can run in place."""
    source_of: dict[tuple[int, int], Any] = {}
    for step in steps:
        if step.node.get_output_size() == 1 and step.node.type_name in _FRESH:
            source_of[(id(step.node), 0)] = step
    for chain in chains:  # a chain's output is a new array (np.empty per run)
        source_of[(id(steps[chain.links[-1].index].node), 0)] = chain
    for step in steps:
        node = step.node
        kind = node.type_name
        if kind != "Result" and (kind not in _UFUNCS or type(step.kernel).op_type != kind):
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
            step.inplace = InPlace(step, None if kind == "Result" else _UFUNCS[kind], position, entry, shape)
            break
