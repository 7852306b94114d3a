"""REFERENCE variants with faults only multi-op graphs and models reach (a red team's devices that
passed the whole default run), for ``tests/suites/test_graph_faults_redteam.py``
(``--plugin=graph_faults_redteam:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``).

Each fault lives in the device's private model copy (``_rewrite``/``_rewrite_model``), in its own
compiled program (``_patch``) or in its own request class, never in REFERENCE's shared kernels (the
oracle runs in the same process). Device names hold no op or pattern name, so a ``-k`` on pattern
names selects the same tests for every device.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Output
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

try:
    from patched_reference import PatchedReference
except ImportError:  # imported as plugins.graph_faults_redteam
    from plugins.patched_reference import PatchedReference

#: The activations a bias Add is fused with.
ACTIVATIONS = {"Relu", "Sigmoid", "Tanh", "Clamp", "Swish", "HSwish", "Gelu", "Mish", "Elu", "HSigmoid"}


def _only_reader(out: Output, type_name: str) -> Node | None:
    targets = out.get_target_inputs()
    if len(targets) != 1:
        return None
    node = targets[0].get_node()
    return node if node.type_name == type_name else None


class ConvAddConstAsChannelBias(PatchedReference):
    """Convolution -> Add(Constant) is fused as a per-channel bias post-op whatever the Constant's
    shape: the kernel reads bias[c] from the Constant's flat buffer, so a full [1,C,H,W] (or
    [1,1,H,W]) constant, e.g. a positional/grid term, is replaced by its first C values."""

    device_name = "GFRT_FLATBIAS"
    joined = "Add"

    def _rewrite(self, node: Node) -> None:
        if node.type_name not in ("Convolution", "GroupConvolution"):
            return
        op = _only_reader(node.output(0), self.joined)
        shape = node.get_output_partial_shape(0)
        if op is None or not shape.has_rank() or shape[1].is_dynamic:
            return
        port = 1 if op.input_value(0).node is node else 0
        const = op.input_value(port).node
        if const.type_name != "Constant":
            return
        data = np.asarray(const.data)
        c, rank = shape[1].get_length(), shape.rank_length()
        lead = [1] * (rank - data.ndim) + list(data.shape)
        per_channel = data.size == 1 or (len(lead) == rank and lead[1] in (1, c)
                                         and all(d == 1 for i, d in enumerate(lead) if i != 1))
        if per_channel or data.size < c:
            return
        before = str(op.get_output_partial_shape(0))
        flat = data.reshape(-1)[:c].reshape([1, c] + [1] * (rank - 2))
        op.set_argument(port, opset.constant(np.ascontiguousarray(flat), const.get_output_element_type(0)).output(0))
        op.validate_and_infer_types()
        if str(op.get_output_partial_shape(0)) != before:  # never change a shape: put it back
            op.set_argument(port, const.output(0))
            op.validate_and_infer_types()


class ConvMultiplyFoldedPerChannel(ConvAddConstAsChannelBias):
    """Convolution -> Multiply(Constant) is folded into the convolution's weights (W[c] *= s[c])
    whatever the Constant's shape: a spatial or full-tensor scale is taken as its first C values."""

    device_name = "GFRT_FOLDSCALE"
    joined = "Multiply"


class ActivationFusedIntoSharedBias(PatchedReference):
    """Convolution/MatMul -> Add(bias) -> activation is fused even when the Add's value has other
    readers: the fused kernel stores only the activated value, so every other reader of the
    pre-activation value (a residual, x * sigmoid(x)) reads the activated one."""

    device_name = "GFRT_SHAREDACT"

    def _rewrite(self, node: Node) -> None:
        if node.type_name not in ("Convolution", "GroupConvolution", "MatMul"):
            return
        add = _only_reader(node.output(0), "Add")
        if add is None or add.input_value(1 if add.input_value(0).node is node else 0).node.type_name != "Constant":
            return
        readers = [t.get_node() for t in add.output(0).get_target_inputs()]
        acts = [r for r in readers if r.type_name in ACTIVATIONS]
        if len(readers) < 2 or len(acts) != 1:
            return
        for target in add.output(0).get_target_inputs():
            reader = target.get_node()
            if reader is not acts[0] and reader.type_name != "Result":
                target.replace_source_output(acts[0].output(0))


class ConvertRoundTripEliminated(PatchedReference):
    """A "redundant Convert" pass removes Convert(T) -> Convert(back to the first type) pairs on
    run-time values: f32 -> f16 -> f32 loses its f16 rounding, f32 -> i32 -> f32 its truncation."""

    device_name = "GFRT_PAIRDROP"

    def _rewrite(self, node: Node) -> None:
        if node.type_name != "Convert":
            return
        inner = node.input_value(0).node
        if inner.type_name != "Convert" or inner.input_value(0).node.type_name == "Constant":
            return
        source = inner.input_value(0)
        if source.get_element_type() != node.get_output_element_type(0):
            return
        for target in node.output(0).get_target_inputs():
            if target.get_node().type_name != "Result":
                target.replace_source_output(source)


class UnusedParameterShiftsInputs(PatchedReference):
    """Dead-code elimination drops a Parameter nothing reads, and the device then binds the user's
    input tensors to its remaining Parameters by position: every input after the unused one is fed
    the tensor of the port before it."""

    device_name = "GFRT_DEADINPUT"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        super()._patch(compiled)
        program = compiled.program
        params = program.model.get_parameters()
        used = [i for i, p in enumerate(params) if p.output(0).get_target_inputs()]
        if len(used) == len(params):
            return
        run = program.run

        def shifted_run(inputs: Any, state: Any, **kw: Any) -> Any:
            inputs = list(inputs)
            fed = list(inputs)
            for k, i in enumerate(used):
                fed[i] = inputs[k]
            return run(fed, state, **kw)

        program.run = shifted_run  # type: ignore[method-assign]


#: Tokens in one KV-cache page of :class:`KvCacheSecondPageAliased`.
PAGE = 64


class _PagedRequest(ReferenceSyncInferRequest):
    """After each run, a variable of rank >= 3 longer than one page on axis -2 gets its second page
    mapped onto the first page (a page table that is never extended)."""

    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        for state in self._states.values():
            value = state.get_state().data
            if value.ndim >= 3 and value.shape[-2] > PAGE:
                bad = np.array(value, copy=True)
                bad[..., PAGE:, :] = value[..., : value.shape[-2] - PAGE, :]
                state.set_state(bad)


class _PagedCompiled(ReferenceCompiledModel):
    sync_request_class = _PagedRequest


class KvCacheSecondPageAliased(PatchedReference):
    """The KV cache is paged in pages of 64 tokens and the page table is never extended: from the
    65th cached token on, entries are read from the first page (a long prompt or long decode)."""

    device_name = "GFRT_PAGEDKV"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        compiled.__class__ = _PagedCompiled


class _StaleIdentityRequest(ReferenceSyncInferRequest):
    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        kept = self.__dict__.setdefault("_kept", {})
        for k in self._compiled_model.__dict__.get("_identity", ()):
            if k in kept:
                self._output_arrays[k] = kept[k]
            else:
                kept[k] = self._output_arrays[k]


class _StaleIdentityCompiled(ReferenceCompiledModel):
    sync_request_class = _StaleIdentityRequest


class IdentityOutputBoundOnce(PatchedReference):
    """A Result fed straight by a Parameter is bound (zero-copy) to the input the request saw at its
    first inference: later inferences of that request return the first input again."""

    device_name = "GFRT_STALEOUT"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        results = compiled.program.model.get_results()
        compiled.__dict__["_identity"] = [k for k, r in enumerate(results)
                                          if r.input_value(0).node.type_name == "Parameter"]
        compiled.__class__ = _StaleIdentityCompiled


class _InPlaceInto:
    """Wraps a binary kernel: computes, then stores the result into input ``port``'s buffer and
    returns that buffer (the in-place planner's choice)."""

    def __init__(self, kernel: Any, port: int) -> None:
        self.kernel, self.port = kernel, port

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)

    def _store(self, inputs: Any, outs: Any) -> Any:
        buf = inputs[self.port]
        np.copyto(buf, outs[0])
        return (buf, *outs[1:])

    def run_trusted(self, inputs: Any, ctx: Any) -> Any:
        return self._store(inputs, self.kernel.run_trusted(inputs, ctx))

    def run(self, inputs: Any, *a: Any, **kw: Any) -> Any:
        return self._store(inputs, self.kernel.run(inputs, *a, **kw))


class ConstantOverwrittenInPlace(PatchedReference):
    """The in-place planner lets a binary elementwise op write its result into an input buffer of
    the output's shape that has no other reader (input 0 first, then input 1) without excluding
    Constants: a full-shape constant operand (positional table, grid, mask) is overwritten by the
    first inference, and every later inference of the compiled model reads the previous result."""

    device_name = "GFRT_OVERWRITE"
    BINARY = ("Add", "Multiply", "Subtract", "Maximum", "Minimum")

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        super()._patch(compiled)
        program = compiled.program
        by_node = {id(s.node): s for s in program.steps}
        for step in program.steps:
            node = step.node
            if node.type_name not in self.BINARY or step.fixed is not None or step.inplace is not None:
                continue
            out_shape = node.get_output_partial_shape(0)
            for port in (0, 1):
                src = node.input_value(port)
                if (str(src.get_partial_shape()) == str(out_shape)
                        and src.get_element_type() == node.get_output_element_type(0)
                        and len(src.get_target_inputs()) == 1):
                    if src.node.type_name == "Constant":
                        const = by_node[id(src.node)]
                        fixed = tuple(np.array(a, copy=True) for a in const.fixed)  # its device memory
                        const.fixed = fixed
                        program._template[const.writes[0]] = fixed[0]
                        step.kernel = _InPlaceInto(step.kernel, port)
                    break


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (
    ConvAddConstAsChannelBias, ConvMultiplyFoldedPerChannel, ActivationFusedIntoSharedBias,
    ConvertRoundTripEliminated, UnusedParameterShiftsInputs, KvCacheSecondPageAliased,
    IdentityOutputBoundOnce, ConstantOverwrittenInPlace)}
