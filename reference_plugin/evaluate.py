"""The plain interpreter: run a model on the op formulas, :class:`ModelRunner` and :func:`evaluate`.

This is where the suites take their expected values from, so it runs the formula kernels of
:mod:`reference_plugin.ops` and nothing else: no fast route, chain, in-place step or intra-op
thread (those are the device's, :mod:`reference_plugin.fast`, each tested against the formula
it replaces). A ModelRunner builds one kernel per node once (all attribute work happens there) and plans
where every value lives. ``run`` then goes in three steps: 1) bind the inputs, 2) execute the
nodes in ``model.get_ordered_ops()`` order (dropping each value after its last use), 3) collect
the outputs and commit the variable state written by Assign nodes.

Weight decompression (``Constant(u4) → Convert → Subtract → Multiply → Reshape → Convert(f32)``,
as OpenVINO's weight compression writes it) depends on Constants only: the first run computes it
with the formula kernels like every other node, and the runner keeps the values where such a
subgraph meets the rest of the model (the decompressed weight a MatMul reads); later runs
(decode steps) reuse them instead of decompressing every weight again in f16. The values are
those the formulas computed, so the outputs are the same bits.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ovconform.errors import InferError
from reference_plugin.ops import OpRun, RunContext, make_kernel
from reference_plugin.ops.op_parameter import Parameter as ParameterKernel

if TYPE_CHECKING:
    from ovconform.ir import Model, Node

Inputs = Mapping[str, Any] | Sequence[Any]


#: The pure ops a subgraph of Constants is made of when it decompresses weights: a runner keeps
#: what such a subgraph computes across runs (see the module docstring).
CONSTANT_OPS = frozenset({"Constant", "Convert", "Subtract", "Multiply", "Add", "Reshape", "Transpose",
                          "Squeeze", "Unsqueeze"})


class _Step:
    """One node to execute: its kernel, where its inputs are read and its outputs written.
    ``constant``: it depends on Constants only; ``keep``: it is where such a subgraph meets the
    rest of the model, and ``kept`` holds its outputs once computed."""

    __slots__ = ("constant", "keep", "kept", "kernel", "node", "reads", "release", "writes")

    def __init__(self, node: Node, kernel: OpRun, reads: list[int], writes: list[int]) -> None:
        self.node, self.kernel, self.reads, self.writes = node, kernel, reads, writes
        self.release: list[int] = []
        self.constant = False
        self.keep = False
        self.kept: tuple[Any, ...] | None = None


class ModelRunner:
    """A model prepared for repeated evaluation on the REFERENCE kernels.

    :param model: the model; its nodes must not change while the runner is in use.
    :raises UnsupportedOpError: when a node has no kernel.
    :raises CompileError: when a kernel rejects its node.
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        self._slot: dict[tuple[int, int], int] = {}
        self._params = model.get_parameters()
        self._param_kernels = [cast(ParameterKernel, make_kernel(p)) for p in self._params]
        self._steps: list[_Step] = []
        for node in model.get_ordered_ops():
            if node.type_name != "Parameter":
                self._steps.append(self._plan(node))
        self._result_slots = [self._slot[(id(r), 0)] for r in model.get_results()]
        self._param_slots = [self._slot_of(p, 0) for p in self._params]
        self._plan_constants()
        self._plan_releases()

    # -- planning ------------------------------------------------------------------------------
    def _slot_of(self, node: Node, index: int) -> int:
        return self._slot.setdefault((id(node), index), len(self._slot))

    def _plan(self, node: Node) -> _Step:
        reads = [self._slot_of(src.node, src.index) for src in node.input_values()]
        writes = [self._slot_of(node, i) for i in range(node.get_output_size())]
        return _Step(node, make_kernel(node), reads, writes)

    def _plan_constants(self) -> None:
        """Mark the steps that depend on Constants only (through :data:`CONSTANT_OPS`), and among
        them the ones whose outputs another kind of step (or a result) reads: their outputs are kept."""
        constant_slots: set[int] = set()
        for step in self._steps:
            if step.node.type_name in CONSTANT_OPS and all(s in constant_slots for s in step.reads):
                step.constant = True
                constant_slots.update(step.writes)
        read_elsewhere = set(self._result_slots)
        for step in self._steps:
            if not step.constant:
                read_elsewhere.update(step.reads)
        for step in self._steps:
            step.keep = step.constant and bool(read_elsewhere.intersection(step.writes))

    def _drop_constant_steps(self) -> None:
        """After a run that computed every kept value: the steps only they needed are dropped. The
        plan is rebuilt on new steps and swapped in whole, so a run in progress on another thread
        (a control-flow body shared by requests) keeps the plan it started with."""
        steps = []
        for old in self._steps:
            if old.constant and old.kept is None:
                continue
            step = _Step(old.node, old.kernel, old.reads, old.writes)
            step.constant, step.keep, step.kept = old.constant, old.keep, old.kept
            steps.append(step)
        self._plan_releases(steps)
        self._steps = steps

    def _plan_releases(self, steps: list[_Step] | None = None) -> None:
        steps = self._steps if steps is None else steps
        keep = set(self._result_slots)
        last: dict[int, int] = {}
        for i, step in enumerate(steps):
            for s in [*step.reads, *step.writes]:
                last[s] = i
        for slot, i in last.items():
            if slot not in keep:
                steps[i].release.append(slot)

    @property
    def input_names(self) -> list[list[str]]:
        """For each parameter (in order): its friendly name, then its tensor names."""
        return [[p.friendly_name, *sorted(p.output(0).get_names())] for p in self._params]

    # -- running -------------------------------------------------------------------------------
    def run(self, inputs: Inputs, state: dict[str, np.ndarray] | None = None, *,
            timings: list[tuple[Node, float]] | None = None) -> list[np.ndarray]:
        """Evaluate the model once.

        :param inputs: one value per parameter: a sequence in parameter order, or a mapping keyed
            by a parameter's friendly name or one of its tensor names.
        :param state: variable values keyed by variable_id; ReadValue reads it, and the values
            written by Assign replace its entries after the call succeeds. None: no persistence.
        :param timings: when given, (node, seconds) is appended for every executed node.
        :return: one array per model result, in result order.
        :raises InferError: naming the input or node at fault.
        """
        values: list[Any] = [None] * len(self._slot)
        for slot, arr in zip(self._param_slots, self._bind(inputs), strict=True):  # 1) bind
            values[slot] = arr
        ctx = RunContext(state if state is not None else {})
        fresh = False
        for step in self._steps:  # 2) execute
            start = time.perf_counter() if timings is not None else 0.0
            if step.kept is not None:
                outs = step.kept
            else:
                outs = step.kernel.run([values[s] for s in step.reads], ctx)
                if step.keep:
                    step.kept, fresh = tuple(outs), True
            if timings is not None:
                timings.append((step.node, time.perf_counter() - start))
            for slot, arr in zip(step.writes, outs, strict=True):
                values[slot] = arr
            for slot in step.release:
                values[slot] = None
        if fresh:
            self._drop_constant_steps()
        if state is not None:  # 3) collect
            state.update(ctx.updates)
        return [values[s] for s in self._result_slots]

    def _bind(self, inputs: Inputs) -> list[np.ndarray]:
        if isinstance(inputs, Mapping):
            ordered = self._order_mapping(inputs)
        elif isinstance(inputs, Sequence) and not isinstance(inputs, (str, bytes)):
            if len(inputs) != len(self._params):
                raise InferError(f"model {self.model.friendly_name!r} takes {len(self._params)} input(s) "
                                 f"{self.input_names}; got {len(inputs)}.")
            ordered = list(inputs)
        else:
            raise InferError(f"inputs must be a sequence (parameter order) or a mapping by name, "
                             f"not {type(inputs).__name__}.")
        return [k.bind(v) for k, v in zip(self._param_kernels, ordered, strict=True)]

    def _order_mapping(self, inputs: Mapping[str, Any]) -> list[Any]:
        index: dict[str, int] = {}
        for i, names in enumerate(self.input_names):
            for name in names:
                index.setdefault(name, i)
        unknown = sorted(str(k) for k in inputs if k not in index)
        if unknown:
            raise InferError(f"model {self.model.friendly_name!r} has no input named {', '.join(map(repr, unknown))}; "
                             f"input names: {sorted(index)}.")
        ordered: list[Any] = [None] * len(self._params)
        seen: list[bool] = [False] * len(self._params)
        for key, value in inputs.items():
            i = index[key]
            if seen[i]:
                raise InferError(f"input {self.input_names[i][0]!r} is given twice (as {key!r} and another name).")
            ordered[i], seen[i] = value, True
        missing = [self.input_names[i][0] for i, ok in enumerate(seen) if not ok]
        if missing:
            raise InferError(f"model {self.model.friendly_name!r}: no value for input(s) {missing}.")
        return ordered


def evaluate(model: Model, inputs: Inputs, state: dict[str, np.ndarray] | None = None) -> list[np.ndarray]:
    """Evaluate ``model`` once on the REFERENCE kernels (builds a :class:`ModelRunner`; reuse one
    for repeated calls).

    :param model: the model to run.
    :param inputs: a sequence in parameter order or a mapping by friendly/tensor name.
    :param state: variable values by variable_id, updated in place by Assign nodes.
    :return: one array per model result.
    """
    return ModelRunner(model).run(inputs, state)
