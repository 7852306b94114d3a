"""The template-method base of every REFERENCE kernel.

A kernel is built once per graph node: ``__init__`` reads the node's attributes (and constant
inputs, when they are known at build time) and precomputes everything it can. ``run(inputs,
ctx)`` checks the call (arity and input dtypes), calls ``_run`` and checks the outputs; any
failure becomes an :class:`~ovconform.errors.InferError` that names the op type, its version and
the node's friendly name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Type, constant_value

if TYPE_CHECKING:
    from ovconform.ir import Node


@dataclass
class RunContext:
    """Per-call context handed to kernels that need it (``needs_ctx``): the variable state.

    ReadValue reads ``state`` (the values as they were when the call started); Assign writes
    ``updates``, which the evaluator commits to ``state`` only after the whole call succeeded.
    """

    state: dict[str, np.ndarray] = field(default_factory=dict)
    updates: dict[str, np.ndarray] = field(default_factory=dict)


class OpRun:
    """Base class of every kernel: subclasses override ``_run`` (and usually ``__init__``).

    :param node: the graph node this kernel computes.
    """

    op_type: ClassVar[str] = ""
    since: ClassVar[int] = 0
    #: True for kernels whose ``_run`` takes the call context (``ctx=``): ReadValue, Assign.
    needs_ctx: ClassVar[bool] = False
    #: The computation, defined by each subclass with its own typed signature: one array per
    #: node input (keyword ``ctx`` when ``needs_ctx``), returning one array per node output.
    _run: Callable[..., tuple[np.ndarray, ...]]

    def __init__(self, node: Node) -> None:
        self.node = node
        self.label = f"{node.type_name}-{node.version} node {node.friendly_name!r}"
        self.n_inputs = node.get_input_size()
        self.in_types: tuple[Type, ...] = tuple(node.get_input_element_type(i) for i in range(self.n_inputs))
        self.in_dtypes = tuple(t.to_dtype() for t in self.in_types)
        self.out_types: tuple[Type, ...] = tuple(
            node.get_output_element_type(i) for i in range(node.get_output_size()))
        self.out_dtypes = tuple(t.to_dtype() for t in self.out_types)

    # -- helpers for subclasses --------------------------------------------------------------
    def attr(self, name: str) -> Any:
        """The node attribute ``name`` (an InferError names the node when it is missing)."""
        try:
            return self.node.attrs[name]
        except KeyError:
            raise InferError(f"{self.label}: attribute {name!r} is missing; it has "
                             f"{sorted(self.node.attrs)}.") from None

    def const_input(self, i: int) -> np.ndarray | None:
        """The value of input ``i`` when it is known at build time, else None."""
        if i >= self.n_inputs:
            return None
        return constant_value(self.node.input_value(i))

    def fail(self, message: str) -> InferError:
        """An InferError about this node (raise it)."""
        return InferError(f"{self.label}: {message}")

    # -- the template method -----------------------------------------------------------------
    def run(self, inputs: list[np.ndarray] | tuple[np.ndarray, ...],
            ctx: RunContext | None = None) -> tuple[np.ndarray, ...]:
        """Compute this node's outputs from its input arrays: the call is checked (arity and
        dtypes), then :meth:`run_trusted` computes it with numpy's floating-point warnings off.

        :param inputs: one array per node input, in port order, of the port's element type.
        :param ctx: the call context (variable state); a fresh one when None.
        :return: one array per node output, of the declared element type.
        :raises InferError: naming the node, for a bad call or any failure inside the kernel.
        """
        self._check_inputs(inputs)
        with np.errstate(all="ignore"):
            return self.run_trusted(inputs, ctx if ctx is not None else RunContext())

    def run_trusted(self, inputs: list[np.ndarray] | tuple[np.ndarray, ...],
                    ctx: RunContext | None) -> tuple[np.ndarray, ...]:
        """The computation itself, the one path every call takes (:meth:`run` is this after its
        checks): ``_run``, its failures turned into an InferError naming the node, and the
        outputs checked. Called directly by a caller that guarantees the inputs (the compiled
        Program: every input is a checked kernel output, a bound Parameter or a constant) and has
        entered ``np.errstate(all="ignore")`` for the whole run."""
        try:
            outs = self._run(*inputs, ctx=ctx if ctx is not None else RunContext()) if self.needs_ctx \
                else self._run(*inputs)
        except InferError as e:
            if self.label in str(e):
                raise
            raise InferError(f"{self.label}: {e}") from e
        except Exception as e:
            raise InferError(f"{self.label}: {type(e).__name__}: {e}") from e
        return self._check_outputs(outs)

    def _check_inputs(self, inputs: list[np.ndarray] | tuple[np.ndarray, ...]) -> None:
        if len(inputs) != self.n_inputs:
            raise self.fail(f"got {len(inputs)} input(s); expected {self.n_inputs}.")
        for i, (arr, want) in enumerate(zip(inputs, self.in_dtypes, strict=True)):
            if not isinstance(arr, np.ndarray):
                raise self.fail(f"input {i} is {type(arr).__name__}, not a numpy array.")
            if arr.dtype != want:
                raise self.fail(f"input {i} has dtype {arr.dtype}; expected {want} "
                                f"(element type {self.in_types[i]}).")

    def _check_outputs(self, outs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        if len(outs) == 1 and len(self.out_dtypes) == 1:  # the common case, without the loops below
            arr = outs[0]
            if type(arr) is np.ndarray and arr.dtype == self.out_dtypes[0]:
                return outs if type(outs) is tuple else (arr,)
        if len(outs) != len(self.out_dtypes):
            raise self.fail(f"kernel returned {len(outs)} output(s); the node declares {len(self.out_dtypes)}.")
        if all(type(arr) is np.ndarray and arr.dtype == want for arr, want in zip(outs, self.out_dtypes, strict=True)):
            return tuple(outs)
        fixed = []
        for i, (arr, want) in enumerate(zip(outs, self.out_dtypes, strict=True)):
            arr = np.asarray(arr)
            if arr.dtype != want:
                raise self.fail(f"kernel output {i} has dtype {arr.dtype}; the node declares "
                                f"{self.out_types[i]} ({want}).")
            fixed.append(arr)
        return tuple(fixed)
