"""REFERENCE variants whose KV cache or stateful decoding is wrong in one way each (a red team's
devices that passed the whole default run), for ``tests/suites/test_kv_cache_faults.py``
(``--plugin=kv_cache_faults:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``); the suite that
catches them is ``suites/test_infer_request_kv_cache.py``.

Each fault lives in the device's own request or variable-state classes, in the kernels of its own
compiled program (``kernels``/``_patch``) — never in REFERENCE's shared kernels or states (the
oracle runs in the same process).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import properties as P
from ovconform.api import Tensor
from ovconform.errors import UnsupportedOpError
from ovconform.ir import Model, Node
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops.op_read_value import ReadValue3, ReadValue6
from reference_plugin.ops.op_scaled_dot_product_attention import ScaledDotProductAttention
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest, ReferenceVariableState

try:
    from patched_reference import PatchedReference
except ImportError:  # imported as plugins.kv_cache_faults
    from plugins.patched_reference import PatchedReference

#: Tokens in one KV-cache page of :class:`DecodePageNotMapped`.
PAGE = 64


def _request_class(base_compiled: type, sync: type) -> type:
    return type(f"{sync.__name__}Compiled", (base_compiled,), {"sync_request_class": sync})


class _RequestFault(PatchedReference):
    """PatchedReference whose compiled (and imported) models make requests of ``request``."""

    request: type = ReferenceSyncInferRequest

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        super()._patch(compiled)
        if self.request is not ReferenceSyncInferRequest:
            compiled.__class__ = _request_class(type(compiled), self.request)


def _with_state_class(state_cls: type) -> type:
    class _Req(ReferenceSyncInferRequest):
        def _create_states(self) -> list[Any]:
            states = super()._create_states()
            for s in states:
                s.__class__ = state_cls
            return states
    return _Req


class _MemcpyResetState(ReferenceVariableState):
    def reset(self) -> None:
        # reset = memcpy(buffer, initializer, initializer.nbytes): an empty initializer copies
        # nothing, the buffer keeps its shape and contents and stays "written".
        if self._initial.data.size == 0:
            return
        super().reset()


class KvResetKeepsCache(_RequestFault):
    """VariableState.reset() copies the initializer into the state buffer in place: a KV cache
    (empty initializer) is not cleared by reset/reset_state, the next prompt sees the old tokens."""

    device_name = "KVF_RESET_MEMCPY"
    request = _with_state_class(_MemcpyResetState)

class _SharedDynamicStates(ReferenceSyncInferRequest):
    def _create_states(self) -> list[Any]:
        states = super()._create_states()
        pool = self._compiled_model.__dict__.setdefault("_kv_pool", {})
        dynamic = {v.variable_id for v in self._program.variables if not v.data_shape.is_static}
        return [pool.setdefault(s.get_name(), s) if s.get_name() in dynamic else s for s in states]


class KvCacheSharedBetweenRequests(_RequestFault):
    """Variables of dynamic shape (the KV cache) live in one buffer of the compiled model, shared
    by all its infer requests (static-shape states are per request): two concurrent chats mix."""

    device_name = "KVF_SHARED_KV"
    request = _SharedDynamicStates

class _NoShrinkState(ReferenceVariableState):
    def set_state(self, value: Any) -> None:
        new = np.asarray(value.data if isinstance(value, Tensor) else value)
        old = np.asarray(self._state.data)
        if (self._written and new.ndim == old.ndim and new.ndim >= 3 and new.shape[-2] < old.shape[-2]
                and new.shape[:-2] == old.shape[:-2] and new.shape[-1] == old.shape[-1]):
            buf = np.array(old, copy=True)
            buf[..., : new.shape[-2], :] = new  # copied into the preallocated cache; length not shrunk
            super().set_state(Tensor(buf))
            return
        super().set_state(value)


class KvSetStateNoTruncate(_RequestFault):
    """set_state with a shorter KV cache (roll back a chat / speculative decoding) copies the
    value into the existing buffer and keeps the old length: the dropped tokens stay cached."""

    device_name = "KVF_SETSTATE_NOSHRINK"
    request = _with_state_class(_NoShrinkState)

class _PrefillPathSdpa(ScaledDotProductAttention):
    def _run(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        length = q.shape[-2]
        if length > 1 and k.shape[-2] > length:  # "prefill" kernel: assumes the cache was empty
            k, v = k[..., -length:, :], v[..., -length:, :]
            if rest and np.ndim(rest[0]) >= 1 and rest[0].shape[-1] > 1:
                rest = (rest[0][..., -length:], *rest[1:])
        return super()._run(q, k, v, *rest)


def _feeds_from_cache(node: Node) -> bool:
    src = node.input_value(1).node
    while src.type_name in ("Unsqueeze", "Reshape", "Convert", "Broadcast"):
        src = src.input_value(0).node
    return src.type_name == "Concat" and src.input_value(0).node.type_name == "ReadValue"


class ChunkedPrefillIgnoresCache(PatchedReference):
    """Fused KV-cache attention (ReadValue → Concat → SDPA) takes its prefill kernel whenever the
    query has more than one token, and that kernel ignores the cached past: a second prompt chunk
    (chunked prefill, a follow-up chat turn, speculative verification) attends to itself only."""

    device_name = "KVF_CHUNKED_PREFILL"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            node = getattr(step, "node", None)
            if node is not None and node.type_name == "ScaledDotProductAttention" and _feeds_from_cache(node):
                step.kernel = _PrefillPathSdpa(node)

class _DecodePagesAliased(ReferenceSyncInferRequest):
    def _start_pipeline(self) -> None:
        before = {n: s.get_state().data.shape for n, s in self._states.items()}
        super()._start_pipeline()
        pages = self.__dict__.setdefault("_pages", {})
        aliased = self.__dict__.setdefault("_aliased", {})
        for name, state in self._states.items():
            value = state.get_state().data
            if value.ndim < 3:
                continue
            old, new = (before[name][-2] if len(before[name]) == value.ndim else 0), value.shape[-2]
            if new - old != 1 or name not in pages:  # a prefill allocates all its pages up front
                pages[name], aliased[name] = -(-new // PAGE), set()
            elif new > pages[name] * PAGE:  # a decode step allocates a page: its table entry is never set
                aliased[name].add(pages[name])
                pages[name] += 1
            if aliased[name]:
                bad = np.array(value, copy=True)
                for p in aliased[name]:
                    n = min(PAGE, new - p * PAGE)
                    bad[..., p * PAGE: p * PAGE + n, :] = value[..., :n, :]
                state.set_state(bad)


class DecodePageNotMapped(_RequestFault):
    """Paged KV cache of 64-token pages: a prefill maps all its pages, but a page a decode step
    allocates is never entered in the page table (reads page 0): generation going past the
    prefill's last page reads wrong keys/values."""

    device_name = "KVF_DECODE_PAGE"
    request = _DecodePagesAliased

class _FirstRowAppend(ReferenceSyncInferRequest):
    def _start_pipeline(self) -> None:
        before = {n: s.get_state().data.shape for n, s in self._states.items()}
        super()._start_pipeline()
        for name, state in self._states.items():
            value = state.get_state().data
            if value.ndim >= 3 and value.shape[0] > 1 and len(before[name]) == value.ndim:
                old = before[name][-2]
                if value.shape[-2] > old and before[name][0] == value.shape[0]:
                    bad = np.array(value, copy=True)
                    bad[1:, ..., old:, :] = 0  # the in-place append copied batch row 0 only
                    state.set_state(bad)


class KvAppendFirstBatchRowOnly(_RequestFault):
    """In-place KV-cache append (ReadValue → Concat → Assign) copies the new tokens of batch row 0
    only (loop bound heads·len instead of batch·heads·len): batch > 1 generation (beams, batched
    prompts) reads zeros for every other row's new tokens from the next step on."""

    device_name = "KVF_BATCH_APPEND"
    request = _FirstRowAppend

class _InitOnce3(ReadValue3):
    def _run(self, *init: np.ndarray, ctx: Any) -> tuple[np.ndarray, ...]:
        if init and ctx.state.get(self.variable_id) is None:
            cached = self.__dict__.setdefault("_cached", np.array(init[0], copy=True))
            if cached.shape == np.shape(init[0]):
                return (cached,)
        return super()._run(*init, ctx=ctx)


class _InitOnce6(_InitOnce3, ReadValue6):
    pass


class ReadValueInitEvaluatedOnce(PatchedReference):
    """ReadValue's initializer subgraph is evaluated at the compiled model's first inference and
    cached: after reset_state (or on a second request) a new init value (a new prompt's encoder
    cross-attention K/V, a new initial hidden state) is ignored."""

    device_name = "KVF_INIT_ONCE"
    kernels = {"ReadValue": {3: _InitOnce3, 6: _InitOnce6}}

class _PluginPool(ReferenceSyncInferRequest):
    def _create_states(self) -> list[Any]:
        states = super()._create_states()
        pool = self._compiled_model.plugin.__dict__.setdefault("_kv_pool", {})
        dynamic = {v.variable_id for v in self._program.variables if not v.data_shape.is_static}
        for s in states:
            if s.get_name() in dynamic and s.get_name() in pool:
                s.set_state(Tensor(np.array(pool[s.get_name()], copy=True)))  # recycled, not cleared
        return states

    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        pool = self._compiled_model.plugin.__dict__.setdefault("_kv_pool", {})
        dynamic = {v.variable_id for v in self._program.variables if not v.data_shape.is_static}
        for name in dynamic:
            pool[name] = self._states[name].get_state().data


class KvPoolSurvivesRecompile(_RequestFault):
    """KV-cache buffers (dynamic-shape variables) come from a plugin-wide pool keyed by variable
    id and are not cleared when handed out: a new request of a new compiled model with the same
    variable names (a recompiled or another LLM) starts from the cache the last one left."""

    device_name = "KVF_KV_POOL"
    request = _PluginPool

class _ValueDimScale(ScaledDotProductAttention):
    def _run(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        if len(rest) > 1 or q.shape[-1] == v.shape[-1] or q.dtype not in (np.float32, np.float64):
            return super()._run(q, k, v, *rest)
        scale = np.asarray(1.0 / np.sqrt(v.shape[-1]), q.dtype)
        mask = rest[0] if rest else np.zeros((), q.dtype)
        return super()._run(q, k, v, mask, scale)


class SdpaDefaultScaleFromValueDim(PatchedReference):
    """SDPA's default scale is 1/sqrt(Ev) (value head size) instead of 1/sqrt(E) (query/key head
    size): right whenever the two are equal, as in every standard attention."""

    device_name = "KVF_SCALE_EV"
    kernels = {"ScaledDotProductAttention": {13: _ValueDimScale}}

class _TiledGqa(ScaledDotProductAttention):
    def _run(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        if q.ndim != 5 or k.shape[2] != 1 or q.shape[2] == 1:
            return super()._run(q, k, v, *rest)
        b, kv, g, length, e = q.shape
        flat = q.reshape(b, kv * g, length, e)
        heads = np.arange(kv * g) % kv  # repeat (tile) instead of repeat_interleave
        kk, vv = k[:, heads, 0], v[:, heads, 0]
        out = super()._run(flat, kk, vv, *rest)[0]
        return (out.reshape(b, kv, g, length, v.shape[-1]),)


class GqaHeadsTiled(PatchedReference):
    """Grouped-query attention (q [B, KV, G, L, E] against k/v [B, KV, 1, S, E]) maps query head
    h = i·G + j to KV head h mod KV (tile) instead of h div G (repeat_interleave)."""

    device_name = "KVF_GQA_TILE"
    kernels = {"ScaledDotProductAttention": {13: _TiledGqa}}


#: class name -> one-line description of its fault.
FAULTS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (
    KvResetKeepsCache, KvCacheSharedBetweenRequests, KvSetStateNoTruncate, ChunkedPrefillIgnoresCache,
    DecodePageNotMapped, KvAppendFirstBatchRowOnly, ReadValueInitEvaluatedOnce, KvPoolSurvivesRecompile,
    SdpaDefaultScaleFromValueDim, GqaHeadsTiled)}


# -- controls: devices that must skip, not fail ---------------------------------------------------------
class NoStatefulOps(PatchedReference):
    """REFERENCE without ReadValue/Assign: query_model does not claim them and compile_model refuses
    them; every test of the KV-cache suite skips, naming the unclaimed ops."""

    device_name = "KVF_NO_STATE"
    missing = ("ReadValue", "Assign")

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        return node.type_name not in self.missing and super()._is_node_supported(node, config)

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        if any(n.type_name in self.missing for n in model.get_ordered_ops()):
            raise UnsupportedOpError(f"device {self.device_name!r} has no ReadValue/Assign; "
                                     f"model {model.friendly_name!r} has them.")
        return super()._compile_model(model, config, context)


class StaticShapesOnly(PatchedReference):
    """REFERENCE declaring ``supports_dynamic_shapes = False``: the tests of models with dynamic
    inputs skip as on a static-only device; the static one runs and passes."""

    device_name = "KVF_STATIC_ONLY"
    supports_dynamic_shapes = False


#: class name -> what the control shows.
CONTROLS = {cls.__name__: (cls.__doc__ or "").split("\n")[0] for cls in (NoStatefulOps, StaticShapesOnly)}
