"""KV cache and stateful decoding (``ov_infer_request`` entity, optional: beyond OpenVINO's
``memory_states.cpp``, from its API documentation of ``InferRequest``/``VariableState`` and how
OpenVINO GenAI drives a stateful LLM).

What a chat, a beam search or speculative decoding does to the KV cache of a stateful decoder,
on the device and the same on REFERENCE's formulas (an oracle request: one variable state per
conversation, :class:`_Oracle`):

* ``reset_state()`` and ``VariableState.reset()`` empty a cache whose ReadValue initializer is empty;
* two requests of one compiled model hold two caches (dynamic-shape variables too);
* ``set_state`` with a shorter cache rolls it back (the dropped tokens are gone);
* a multi-token step after the prefill (chunked prefill, speculative verification) attends to the past;
* decode steps that cross 64 and 128 cached tokens (KV-cache pages and blocks);
* batch 2 with grouped-query attention over a cache (each batch row appends its own tokens; rank-5
  GQA heads; a value head size unlike the key's, so SDPA's default scale 1/sqrt(key size) shows);
* a ReadValue whose initializer is a Parameter takes the new value after a reset and in a new request;
* a model compiled again on the same core starts with an empty cache.

The decoder is :func:`ovconform.models.language.llama_decoder` (2 layers, hidden 256, GQA 8/2,
KV cache as ReadValue → Concat → Assign with empty initializers), small hand-built models where
the decoder is too big. Every output of every step is compared within the model suite's
depth-aware tolerance (:func:`ovconform.suites._model_tolerance.compare_steps`, following the
declared INFERENCE_PRECISION_HINT); a failure names the scenario step and the call. Every test is
optional (no ``mandatory`` marker): a device whose query_model does not claim the model's ops
(ReadValue/Assign) skips naming them, a static-only device skips the models with dynamic inputs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest

from ovconform import Tensor
from ovconform import opset as ops
from ovconform.assertions import assert_equal, call, fail, no_error
from ovconform.ir import Model, Type
from ovconform.models import language
from ovconform.suites import _model_tolerance as MT
from ovconform.suites import _op_runner as R
from ovconform.suites._helpers import supports_dynamic_shapes
from reference_plugin.evaluate import ModelRunner  # the formulas' interpreter

pytestmark = pytest.mark.entity("ov_infer_request")

NOT_DECLARED = "not supported (declared by query_model)"
VOCAB = language.LLAMA_SMALL.vocab_size
#: (prefill, decode steps) of the long-decode test's two requests: decoding passes 64, then 128 cached
#: tokens (page and block sizes of paged KV caches), with steps after each boundary that read it.
PAGE_CROSSINGS = ((62, 5), (126, 5))
F32 = Type.f32
Feed = Mapping[str, np.ndarray]


def _ids(seed: int, length: int) -> dict[str, np.ndarray]:
    return {"input_ids": np.random.default_rng(seed).integers(0, VOCAB, (1, length)).astype(np.int64)}


class _Oracle:
    """REFERENCE's formulas as one request: the variable state of one conversation."""

    def __init__(self, runner: ModelRunner) -> None:
        self.runner = runner
        self.state: dict[str, np.ndarray] = {}
        self.names = [p.friendly_name for p in runner.model.get_parameters()]

    def infer(self, feed: Feed) -> list[np.ndarray]:
        return [np.array(v) for v in self.runner.run([feed[n] for n in self.names], self.state)]


def _dynamic(model: Model) -> bool:
    return any(not p.get_output_partial_shape(0).is_static for p in model.get_parameters())


def _skip_unless_supported(core: Any, device: str, model: Model) -> None:
    """Skip, saying why, on a static-only device (for a model with dynamic inputs) and where
    query_model does not claim every op of the model (a device without ReadValue/Assign)."""
    if _dynamic(model) and not supports_dynamic_shapes(core, device):
        pytest.skip(f"{device}: a static-only device (supports_dynamic_shapes = False); model "
                    f"{model.friendly_name!r} has dynamic inputs")
    with no_error(call(device, "query_model", model.friendly_name)):
        answer = R.declared_nodes(core, device, model)
    unclaimed = sorted(f"{n.type_name} {n.friendly_name!r}" for n in R.ops_under_test(model)
                       if n.friendly_name not in answer)
    if unclaimed:
        pytest.skip(f"{device}: model {model.friendly_name!r} {NOT_DECLARED}: its plugin does not declare "
                    f"{', '.join(unclaimed[:10])}")


class _Scenario:
    """One model on the device and on REFERENCE: requests side by side, every step recorded and
    compared at the end (:meth:`check`), each named by what the scenario did before it."""

    def __init__(self, core: Any, device: str, model: Model, record: Callable[[str, Any], None],
                 runner: ModelRunner | None = None) -> None:
        self.core, self.device, self.model, self.record = core, device, model, record
        _skip_unless_supported(core, device, model)
        self.runner = runner or ModelRunner(model)
        self.compiled = self.compile()
        self.precision = R.execution_precision(self.compiled)
        self.types = {p.friendly_name: p.get_output_element_type(0) for p in model.get_parameters()}
        self.names = [p.friendly_name for p in model.get_parameters()]
        self.got: list[list[np.ndarray]] = []
        self.want: list[list[np.ndarray]] = []
        self.labels: list[str] = []

    def compile(self, model: Model | None = None) -> Any:
        model = model or self.model
        with no_error(call(self.device, "compile_model", model.friendly_name)):
            return self.core.compile_model(model, self.device)

    def request(self, compiled: Any = None) -> tuple[Any, _Oracle]:
        with no_error(call(self.device, "CompiledModel.create_infer_request")):
            return (compiled or self.compiled).create_infer_request(), _Oracle(self.runner)

    def infer(self, pair: tuple[Any, _Oracle], feed: Feed, label: str) -> None:
        """One inference on both sides; ``label`` says what the step is in the scenario."""
        request, oracle = pair
        shapes = {k: list(np.shape(v)) for k, v in feed.items()}
        where = call(self.device, "InferRequest.infer", shapes) + f" at {label}"
        with no_error(where):
            results = request.infer({self.names.index(k): Tensor(np.asarray(v), element_type=self.types[k])
                                     for k, v in feed.items()})
        values = list(results.values()) if isinstance(results, Mapping) else list(results)
        self.got.append([np.array(getattr(v, "data", v)) for v in values])
        self.want.append(oracle.infer(feed))
        self.labels.append(where)

    def check(self) -> None:
        """Every recorded step within the model tolerance; the first failing one names its step."""
        comparisons, _ = MT.compare_steps(self.device, self.model, self.got, self.want, self.precision)
        self.record("model", self.model.friendly_name)
        for name, value in R.summary(comparisons).items():
            if name != "tolerances":
                self.record(name, value)
        for label, c in comparisons:
            if not c.passed:
                step = int(label.split()[1])
                fail(f"{label} of {self.model.friendly_name!r}", c.message, f"within {c.tolerance.describe()}",
                     self.labels[step])


def _states(device: str, request: Any) -> dict[str, Any]:
    with no_error(call(device, "InferRequest.query_state")):
        return {s.get_name(): s for s in request.query_state()}


@functools.cache
def _decoder_runner() -> ModelRunner:
    """The decoder's oracle, prepared once per process (on a model of its own, never given to a
    device): each conversation keeps its state in its own :class:`_Oracle`."""
    return ModelRunner(language.llama_decoder())


@pytest.fixture
def decoder(ov_core: Any, ov_device_name: str, record_ov_fact: Callable[[str, Any], None]) -> Callable[[], _Scenario]:
    """Makes the decoder's scenario inside the test (a compile failure fails the test, not its setup)."""
    return lambda: _Scenario(ov_core, ov_device_name, language.llama_decoder(), record_ov_fact, _decoder_runner())


def test_reset_state_empties_the_kv_cache(decoder: Callable[[], _Scenario]) -> None:
    """InferRequest.reset_state() and VariableState.reset() of every variable empty the KV cache
    (its initializer is empty): the next prompt computes as on a fresh request."""
    s = decoder()
    chat = s.request()
    s.infer(chat, _ids(1, 16), "prefill of 16 tokens")
    s.infer(chat, _ids(2, 1), "decode step")
    with no_error(call(s.device, "InferRequest.reset_state")):
        chat[0].reset_state()
    chat[1].state.clear()
    s.infer(chat, _ids(3, 8), "prefill of 8 tokens after InferRequest.reset_state()")
    s.infer(chat, _ids(4, 1), "decode step after reset_state() and a prefill")
    for name, state in _states(s.device, chat[0]).items():
        with no_error(call(s.device, "VariableState.reset", name)):
            state.reset()
    chat[1].state.clear()
    s.infer(chat, _ids(5, 8), "prefill of 8 tokens after VariableState.reset() of every variable")
    s.check()


def test_requests_keep_their_own_kv_cache(decoder: Callable[[], _Scenario]) -> None:
    """Two chats interleaved on two requests of one compiled model: each request has its own KV
    cache (dynamic-shape variables too), and the second, created after the first has run, starts empty."""
    s = decoder()
    first = s.request()
    s.infer(first, _ids(1, 16), "prefill of 16 tokens on request 1")
    second = s.request()
    s.infer(second, _ids(2, 8), "prefill of 8 tokens on request 2 (created after request 1 ran)")
    s.infer(first, _ids(3, 1), "decode step on request 1 after request 2's prefill")
    s.infer(second, _ids(4, 1), "decode step on request 2")
    s.infer(first, _ids(5, 1), "second decode step on request 1")
    s.check()


def test_set_state_rolls_the_kv_cache_back(decoder: Callable[[], _Scenario]) -> None:
    """set_state with the first 12 of 24 cached tokens (a chat rolled back, rejected speculative
    tokens): get_state shows 12 tokens and the next steps attend to those only."""
    s = decoder()
    chat = s.request()
    s.infer(chat, _ids(1, 24), "prefill of 24 tokens")
    for name, state in _states(s.device, chat[0]).items():
        where = call(s.device, "VariableState.set_state", name) + " with its first 12 of 24 tokens"
        with no_error(where):
            value = np.asarray(state.get_state().data)
            shorter = np.ascontiguousarray(value[..., :12, :])
            state.set_state(Tensor(shorter))
            got = list(np.shape(state.get_state().data))
        assert_equal(got, list(shorter.shape), f"VariableState.get_state() shape of {name!r}", where)
    for name, value in chat[1].state.items():
        chat[1].state[name] = np.ascontiguousarray(value[..., :12, :])
    s.infer(chat, _ids(2, 1), "decode step after set_state of the first 12 tokens")
    s.infer(chat, _ids(3, 1), "second decode step after the roll-back")
    s.check()


def test_multi_token_step_extends_the_kv_cache(decoder: Callable[[], _Scenario]) -> None:
    """A step of several tokens after the prefill (chunked prefill, a follow-up chat turn,
    speculative verification) attends to the cached past and to itself, causally."""
    s = decoder()
    chat = s.request()
    s.infer(chat, _ids(1, 16), "first prompt chunk of 16 tokens")
    s.infer(chat, _ids(2, 8), "second chunk of 8 tokens over a cache of 16")
    s.infer(chat, _ids(3, 1), "decode step after two chunks")
    s.infer(chat, _ids(4, 4), "4 draft tokens verified in one step over a cache of 25")
    s.check()


def test_decode_past_64_and_128_cached_tokens(decoder: Callable[[], _Scenario]) -> None:
    """Decode steps whose new token is the 64th/65th and the 128th/129th in the cache (a paged
    cache's page or block boundary reached by decoding, not by the prefill)."""
    s = decoder()
    for r, (prefill, steps) in enumerate(PAGE_CROSSINGS):
        chat = s.request()
        s.infer(chat, _ids(10 * r, prefill), f"prefill of {prefill} tokens (request {r + 1})")
        for t in range(steps):
            s.infer(chat, _ids(10 * r + t + 1, 1), f"decode step {t + 1}: token {prefill + t + 1} of the cache")
    s.check()


def test_recompiled_model_starts_with_an_empty_kv_cache(decoder: Callable[[], _Scenario]) -> None:
    """The decoder compiled again on the same core (same variable names) starts with an empty KV
    cache, while the first compiled model's request keeps its own."""
    s = decoder()
    first = s.request()
    s.infer(first, _ids(1, 16), "prefill of 16 tokens on the first compiled model")
    again = s.compile(language.llama_decoder())
    second = s.request(again)
    s.infer(second, _ids(2, 8), "prefill of 8 tokens on a request of the model compiled again")
    s.infer(first, _ids(3, 1), "decode step on the first compiled model's request")
    s.check()


# -- small hand-built stateful models ------------------------------------------------------------------

#: batch, KV heads, query heads per KV head, key head size, value head size
BATCH, KV_HEADS, GROUP, E, EV = 2, 2, 2, 8, 12


def batched_gqa_cache() -> Model:
    """Batch 2 of grouped-query attention over a KV cache: q [2, 2, 2, L, 8] (2 query heads per KV
    head, rank 5), keys [2, 2, S, 8] and values [2, 2, S, 12] (a value head size that is not the
    key's, so the default scale 1/sqrt(8) shows) appended to ReadValue → Concat → Assign caches."""
    q = ops.parameter([BATCH, KV_HEADS, GROUP, -1, E], F32, name="q")
    k = ops.parameter([BATCH, KV_HEADS, -1, E], F32, name="k")
    v = ops.parameter([BATCH, KV_HEADS, -1, EV], F32, name="v")
    caches, sinks = [], []
    for name, new, size in (("key_cache", k, E), ("value_cache", v, EV)):
        empty = ops.constant(np.zeros((BATCH, KV_HEADS, 0, size), np.float32), F32, name=f"{name}.init")
        past = ops.read_value(empty, name, F32, [BATCH, KV_HEADS, -1, size], name=f"{name}.read")
        full = ops.concat([past, new], 2, name=f"{name}.concat")
        sinks.append(ops.assign(full, name, name=f"{name}.assign"))
        caches.append(ops.unsqueeze(full, ops.constant(np.array([2], np.int64), Type.i64), name=f"{name}.groups"))
    out = ops.scaled_dot_product_attention(q, caches[0], caches[1], name="sdpa")
    return Model([out], sinks, [q, k, v], "batched_gqa_cache")


def _qkv(seed: int, length: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"q": rng.standard_normal((BATCH, KV_HEADS, GROUP, length, E)).astype(np.float32),
            "k": rng.standard_normal((BATCH, KV_HEADS, length, E)).astype(np.float32),
            "v": rng.standard_normal((BATCH, KV_HEADS, length, EV)).astype(np.float32)}


def test_batched_grouped_query_kv_cache(ov_core: Any, ov_device_name: str,
                                       record_ov_fact: Callable[[str, Any], None]) -> None:
    """Batch 2 (beams, batched prompts) of grouped-query attention over a KV cache: every batch row
    appends its own tokens, query head h reads KV head h // 2, the default scale is 1/sqrt(key size)."""
    s = _Scenario(ov_core, ov_device_name, batched_gqa_cache(), record_ov_fact)
    chat = s.request()
    s.infer(chat, _qkv(1, 5), "prefill of 5 tokens per batch row")
    s.infer(chat, _qkv(2, 1), "decode step")
    s.infer(chat, _qkv(3, 1), "second decode step")
    s.check()


def initializer_from_parameter() -> Model:
    """A ReadValue whose initializer is a Parameter (an encoder's output feeding a decoder's
    cross-attention state, an initial hidden state): h = ReadValue(init); out = h + x; Assign(out)."""
    init = ops.parameter([1, 4, 8], F32, name="init")
    x = ops.parameter([1, 4, 8], F32, name="x")
    h = ops.read_value(init, "hidden", name="hidden.read")
    out = ops.add(h, x, name="hidden.update")
    return Model([out], [ops.assign(out, "hidden", name="hidden.assign")], [init, x], "initializer_from_parameter")


def _init_feed(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"init": rng.standard_normal((1, 4, 8)).astype(np.float32),
            "x": rng.standard_normal((1, 4, 8)).astype(np.float32)}


def test_read_value_initializer_from_a_parameter(ov_core: Any, ov_device_name: str,
                                                 record_ov_fact: Callable[[str, Any], None]) -> None:
    """A ReadValue initialized from a Parameter takes that input's value of the run that finds the
    variable unset: at the first run, after reset_state() (with a new value) and in a new request."""
    s = _Scenario(ov_core, ov_device_name, initializer_from_parameter(), record_ov_fact)
    chat = s.request()
    s.infer(chat, _init_feed(1), "first run (the state takes the init input)")
    s.infer(chat, _init_feed(2), "second run (the state is kept, the init input is ignored)")
    with no_error(call(s.device, "InferRequest.reset_state")):
        chat[0].reset_state()
    chat[1].state.clear()
    s.infer(chat, _init_feed(3), "run after reset_state() with a new init input")
    other = s.request()
    s.infer(other, _init_feed(4), "first run of a second request with another init input")
    s.check()

