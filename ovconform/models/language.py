"""Transformer architectures: a BERT-base encoder, a Llama-style decoder with its KV cache, and a
Whisper-tiny-style audio encoder.

The decoder keeps its KV cache as model state, as OpenVINO's stateful LLM exports do: per layer,
``ReadValue`` of the past keys/values ([1, kv_heads, past, head_dim], a dynamic past length, an
empty initial value), ``Concat`` with the new ones, ``Assign`` back. The past length comes from the
cache's own shape (``ShapeOf``), so positions (rotary embedding) and the causal mask follow the
state: a cache that loses or duplicates an entry changes every later step's numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ovconform import opset as ops
from ovconform.errors import NotFoundError
from ovconform.ir import Model, Node, Output

from ._blocks import F32, I64, Weights, dense, from_heads, i64, layer_norm, rms_norm, to_heads
from ._compress import compressed_embedding, compressed_linear

__all__ = ["LLAMA_FULL", "LLAMA_SMALL", "LlamaConfig", "bert_base", "llama_decoder", "whisper_tiny_encoder"]

Value = Node | Output


# -- BERT-base ------------------------------------------------------------------------------------

def _bert_attention(x: Value, w: Weights, mask: Value, d: int, heads: int, seq: int, name: str) -> Node:
    dh = d // heads
    q, k, v = (to_heads(dense(x, w, d, d, f"{name}.{p}", std=0.02), [0, 0, heads, dh], f"{name}.{p}")
               for p in ("query", "key", "value"))
    scores = ops.matmul(q, k, False, True, name=f"{name}.qk")
    scores = ops.multiply(scores, ops.constant(np.float32(1 / np.sqrt(dh)), F32), name=f"{name}.scale")
    scores = ops.add(scores, mask, name=f"{name}.add_mask")
    probs = ops.softmax(scores, -1, name=f"{name}.softmax")
    ctx = from_heads(ops.matmul(probs, v, False, False, name=f"{name}.attn_v"), d, name)
    return dense(ctx, w, d, d, f"{name}.output", std=0.02)


def bert_base(seq: int = 128, layers: int = 12, d: int = 768, heads: int = 12, ffn: int = 3072,
              vocab: int = 30522) -> Model:
    """BERT-base (uncased geometry): word + position + token-type embeddings, 12 post-LN encoder
    layers (12 heads, MatMul-Softmax-MatMul attention with an additive padding mask built from
    ``attention_mask``, GELU FFN of 3072), and the tanh pooler; weights N(0, 0.02) as BERT's init."""
    w = Weights(12)
    ids = ops.parameter([1, seq], I64, name="input_ids")
    attention_mask = ops.parameter([1, seq], I64, name="attention_mask")
    words = ops.gather(w.normal(vocab, d, std=0.02, name="embeddings.word"), ids, i64(0), name="embeddings.word_lookup")
    positions = w.normal(1, seq, d, std=0.02, name="embeddings.position")
    token_type = w.normal(1, 1, d, std=0.02, name="embeddings.token_type")
    h: Value = ops.add(ops.add(words, positions, name="embeddings.add_position"), token_type,
                       name="embeddings.add_token_type")
    h = layer_norm(h, w, d, "embeddings.layer_norm")
    keep = ops.convert(attention_mask, F32, name="mask.to_float")
    bias = ops.multiply(ops.subtract(ops.constant(np.float32(1.0), F32), keep, name="mask.invert"),
                        ops.constant(np.float32(-10000.0), F32), name="mask.bias")
    bias = ops.reshape(bias, i64(1, 1, 1, seq), False, name="mask.reshape")
    for i in range(layers):
        name = f"encoder.layer.{i}"
        a = _bert_attention(h, w, bias, d, heads, seq, f"{name}.attention")
        h = layer_norm(ops.add(a, h, name=f"{name}.attention.residual"), w, d, f"{name}.attention.layer_norm")
        f = ops.gelu(dense(h, w, d, ffn, f"{name}.intermediate", std=0.02), "erf", name=f"{name}.intermediate.gelu")
        f = dense(f, w, ffn, d, f"{name}.output", std=0.02)
        h = layer_norm(ops.add(f, h, name=f"{name}.output.residual"), w, d, f"{name}.output.layer_norm")
    first = ops.gather(h, i64(0), i64(1), name="pooler.first_token")
    pooled = ops.tanh(dense(first, w, d, d, "pooler.dense", std=0.02), name="pooler.tanh")
    return Model([h, pooled], [ids, attention_mask], "bert_base")


# -- Llama-style decoder ----------------------------------------------------------------------------

@dataclass(frozen=True)
class LlamaConfig:
    """The decoder's geometry (Hugging Face ``LlamaConfig`` names)."""

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    vocab_size: int
    max_position_embeddings: int = 2048
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads


#: The default run's decoder: 2 layers, hidden 256, 8 query heads sharing 2 KV heads.
LLAMA_SMALL = LlamaConfig(256, 2, 8, 2, 688, 2048, max_position_embeddings=256)
#: TinyLlama-1.1B's geometry (22 layers, hidden 2048, 32 heads over 4 KV heads, 32000 tokens).
LLAMA_FULL = LlamaConfig(2048, 22, 32, 4, 5632, 32000)


def _scalar(value: int) -> Node:
    """A scalar i64 Constant (Range bounds and a Gather index that drops the axis)."""
    return ops.constant(np.array(value, np.int64), I64)


def _rope_tables(cfg: LlamaConfig) -> tuple[np.ndarray, np.ndarray]:
    inv = 1.0 / cfg.rope_theta ** (np.arange(0, cfg.head_dim, 2, dtype=np.float64) / cfg.head_dim)
    angles = np.outer(np.arange(cfg.max_position_embeddings, dtype=np.float64), inv)
    full = np.concatenate([angles, angles], -1)
    return np.cos(full).astype(np.float32), np.sin(full).astype(np.float32)


def _rotate(x: Value, cos: Value, sin: Value, half: int, name: str) -> Node:
    """Rotary embedding, Llama's rotate_half form: x·cos + concat(-x₂, x₁)·sin."""
    parts = ops.variadic_split(x, i64(-1), i64(half, half), name=f"{name}.rope_split")
    rotated = ops.concat([ops.negative(parts.output(1), name=f"{name}.rope_neg"), parts.output(0)], -1,
                         name=f"{name}.rope_rotate")
    return ops.add(ops.multiply(x, cos, name=f"{name}.rope_cos"), ops.multiply(rotated, sin, name=f"{name}.rope_sin"),
                   name=f"{name}.rope")


def _read_cache(cfg: LlamaConfig, variable: str, name: str) -> Node:
    """ReadValue of one cache variable, [1, kv_heads, past, head_dim], an empty initial value."""
    empty = ops.constant(np.zeros((1, cfg.num_key_value_heads, 0, cfg.head_dim), np.float32), F32,
                         name=f"{name}.init")
    return ops.read_value(empty, variable, F32, [1, cfg.num_key_value_heads, -1, cfg.head_dim], name=f"{name}.read")


def _write_cache(past: Value, new: Value, variable: str, name: str) -> tuple[Node, Node]:
    """Concat of the past and the new entries on the sequence axis, and its Assign."""
    full = ops.concat([past, new], 2, name=f"{name}.concat")
    return full, ops.assign(full, variable, name=f"{name}.assign")


def llama_decoder(cfg: LlamaConfig = LLAMA_SMALL, name: str = "llama_decoder", weights: str = "f32") -> Model:
    """A Llama-style decoder: token embedding, ``num_hidden_layers`` pre-RMSNorm blocks (rotary
    embedding on q and k, grouped-query ScaledDotProductAttention-13 over the KV cache with a
    boolean causal mask offset by the past length, SwiGLU MLP), final RMSNorm, LM head → logits
    [1, L, vocab]. ``input_ids`` is [1, L] with L dynamic: a prefill of many tokens, then one token
    per decode step on the same request. Linear weights are N(0, 1/fan_in), the projections back
    into the residual stream scaled by 1/sqrt(2·layers) as GPT-2/Llama initialisations do.

    ``weights="u4"`` or ``"i4"``: the same model as OpenVINO's weight compression (NNCF INT4_ASYM /
    INT4_SYM) writes it: every projection of the blocks holds 4-bit weights in groups of 64 input
    channels (16 for down_proj's 688) with f16 scales (and u4 zero points), decompressed before its
    MatMul; the embedding and the LM head hold u8 weights per row (NNCF's 8-bit backup mode)
    (:mod:`ovconform.models._compress`). The f32 values quantized are the f32 decoder's."""
    if weights not in ("f32", "u4", "i4"):
        raise NotFoundError(f"decoder weights {weights!r} do not exist; allowed: f32, u4, i4.")
    w = Weights(7)

    def linear(x: Value, n_in: int, n_out: int, layer: str, std: float, mode: str = weights) -> Node:
        if mode == "f32":
            return dense(x, w, n_in, n_out, layer, bias=False, std=std)
        return compressed_linear(x, w, n_in, n_out, layer, mode, std=std)

    d, heads, kv, dh = cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
    group = heads // kv
    out_std = 1.0 / np.sqrt(d) / np.sqrt(2 * cfg.num_hidden_layers)
    ids = ops.parameter([1, -1], I64, name="input_ids")
    h: Value = (ops.gather(w.normal(cfg.vocab_size, d, std=1.0, name="embed_tokens.weight"), ids, i64(0),
                           name="embed_tokens") if weights == "f32"
                else compressed_embedding(ids, w, cfg.vocab_size, d, "embed_tokens"))
    length = ops.gather(ops.shape_of(ids, name="input_shape"), _scalar(1), _scalar(0), name="seq_len")
    cos_table, sin_table = _rope_tables(cfg)
    sinks, past_len, positions, cos, sin, mask = [], None, None, None, None, None
    for i in range(cfg.num_hidden_layers):
        name_l = f"layers.{i}"
        x = rms_norm(h, w, d, f"{name_l}.input_layernorm", cfg.rms_norm_eps)
        q = to_heads(linear(x, d, heads * dh, f"{name_l}.self_attn.q_proj", 1 / np.sqrt(d)),
                     [0, 0, heads, dh], f"{name_l}.self_attn.q")
        k = to_heads(linear(x, d, kv * dh, f"{name_l}.self_attn.k_proj", 1 / np.sqrt(d)),
                     [0, 0, kv, dh], f"{name_l}.self_attn.k")
        v = to_heads(linear(x, d, kv * dh, f"{name_l}.self_attn.v_proj", 1 / np.sqrt(d)),
                     [0, 0, kv, dh], f"{name_l}.self_attn.v")
        k_var, v_var = f"past_key_values.{i}.key", f"past_key_values.{i}.value"
        past_k = _read_cache(cfg, k_var, f"{name_l}.self_attn.key_cache")
        past_v = _read_cache(cfg, v_var, f"{name_l}.self_attn.value_cache")
        if past_len is None:  # positions and mask, once, from the first layer's cache length
            past_len = ops.gather(ops.shape_of(past_k, name="past_shape"), _scalar(2), _scalar(0), name="past_len")
            total = ops.add(past_len, length, name="total_len")
            positions = ops.range(past_len, total, _scalar(1), I64, name="positions")
            cos = ops.gather(ops.constant(cos_table, F32, name="rope.cos_table"), positions, i64(0), name="rope.cos")
            sin = ops.gather(ops.constant(sin_table, F32, name="rope.sin_table"), positions, i64(0), name="rope.sin")
            keys = ops.range(_scalar(0), total, _scalar(1), I64, name="key_positions")
            query_col = ops.unsqueeze(positions, i64(1), name="query_positions")
            mask = ops.less_equal(keys, query_col, name="causal_mask")  # [L, S]: key j visible from query i
        assert cos is not None and sin is not None and mask is not None
        q = _rotate(q, cos, sin, dh // 2, f"{name_l}.self_attn.q")
        k = _rotate(k, cos, sin, dh // 2, f"{name_l}.self_attn.k")
        keys_all, assign_k = _write_cache(past_k, k, k_var, f"{name_l}.self_attn.key_cache")
        values_all, assign_v = _write_cache(past_v, v, v_var, f"{name_l}.self_attn.value_cache")
        sinks += [assign_k, assign_v]
        # grouped-query attention: q as [1, kv, group, L, dh] against k/v as [1, kv, 1, S, dh]
        q5 = ops.reshape(q, i64(1, kv, group, -1, dh), False, name=f"{name_l}.self_attn.q_groups")
        k5 = ops.unsqueeze(keys_all, i64(2), name=f"{name_l}.self_attn.k_groups")
        v5 = ops.unsqueeze(values_all, i64(2), name=f"{name_l}.self_attn.v_groups")
        attn = ops.scaled_dot_product_attention(q5, k5, v5, mask, name=f"{name_l}.self_attn.sdpa")
        attn = ops.reshape(attn, i64(1, heads, -1, dh), False, name=f"{name_l}.self_attn.merge_groups")
        o = linear(from_heads(attn, heads * dh, f"{name_l}.self_attn"), heads * dh, d, f"{name_l}.self_attn.o_proj",
                   out_std)
        h = ops.add(h, o, name=f"{name_l}.attn_residual")
        x = rms_norm(h, w, d, f"{name_l}.post_attention_layernorm", cfg.rms_norm_eps)
        gate = linear(x, d, cfg.intermediate_size, f"{name_l}.mlp.gate_proj", 1 / np.sqrt(d))
        up = linear(x, d, cfg.intermediate_size, f"{name_l}.mlp.up_proj", 1 / np.sqrt(d))
        act = ops.multiply(ops.swish(gate, name=f"{name_l}.mlp.silu"), up, name=f"{name_l}.mlp.gated")
        down = linear(act, cfg.intermediate_size, d, f"{name_l}.mlp.down_proj",
                      1.0 / np.sqrt(cfg.intermediate_size) / np.sqrt(2 * cfg.num_hidden_layers))
        h = ops.add(h, down, name=f"{name_l}.mlp_residual")
    h = rms_norm(h, w, d, "norm", cfg.rms_norm_eps)
    logits = linear(h, d, cfg.vocab_size, "lm_head", 1 / np.sqrt(d), "f32" if weights == "f32" else "u8")
    return Model([logits], sinks, [ids], name)


def decoder_steps(vocab: int, prefill: int = 32, decode: int = 16, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """A prefill of ``prefill`` tokens, then ``decode`` steps of one token each (seeded ids)."""
    rng = np.random.default_rng(seed)
    steps = [{"input_ids": rng.integers(0, vocab, (1, prefill)).astype(np.int64)}]
    steps += [{"input_ids": rng.integers(0, vocab, (1, 1)).astype(np.int64)} for _ in range(decode)]
    return steps


# -- Whisper-tiny-style encoder ----------------------------------------------------------------------

def whisper_tiny_encoder(frames: int = 3000, mels: int = 80, d: int = 384, heads: int = 6, layers: int = 4,
                         ffn: int = 1536) -> Model:
    """Whisper-tiny's audio encoder: two 1-D convolutions (the second with stride 2) with GELU over
    an 80-bin log-mel spectrogram of 3000 frames, sinusoidal positions, 4 pre-LN layers (6 heads,
    ScaledDotProductAttention over 1500 positions, GELU MLP of 1536), final LayerNorm."""
    w = Weights(9)
    mel = ops.parameter([1, mels, frames], F32, name="input_features")
    c1 = ops.convolution(mel, w.he(d, mels, 3, fan_in=mels * 3), [1], [1], [1], [1], name="conv1")
    c1 = ops.gelu(ops.add(c1, w.normal(1, d, 1, std=0.02), name="conv1.add_bias"), "erf", name="conv1.gelu")
    c2 = ops.convolution(c1, w.he(d, d, 3, fan_in=d * 3), [2], [1], [1], [1], name="conv2")
    c2 = ops.gelu(ops.add(c2, w.normal(1, d, 1, std=0.02), name="conv2.add_bias"), "erf", name="conv2.gelu")
    seq = frames // 2
    h: Value = ops.transpose(c2, i64(0, 2, 1), name="to_sequence")
    inv = np.exp(-np.log(10000.0) * np.arange(d // 2) / (d // 2 - 1))
    angles = np.arange(seq)[:, None] * inv[None, :]
    pos = np.concatenate([np.sin(angles), np.cos(angles)], 1).astype(np.float32)[None]
    h = ops.add(h, ops.constant(pos, F32, name="embed_positions"), name="add_positions")
    dh = d // heads
    for i in range(layers):
        name = f"layers.{i}"
        x = layer_norm(h, w, d, f"{name}.self_attn_layer_norm", 1e-5)
        q = to_heads(dense(x, w, d, d, f"{name}.self_attn.q_proj"), [0, 0, heads, dh], f"{name}.self_attn.q")
        k = to_heads(dense(x, w, d, d, f"{name}.self_attn.k_proj", bias=False), [0, 0, heads, dh],
                     f"{name}.self_attn.k")
        v = to_heads(dense(x, w, d, d, f"{name}.self_attn.v_proj"), [0, 0, heads, dh], f"{name}.self_attn.v")
        attn = ops.scaled_dot_product_attention(q, k, v, name=f"{name}.self_attn.sdpa")
        o = dense(from_heads(attn, d, f"{name}.self_attn"), w, d, d, f"{name}.self_attn.out_proj")
        h = ops.add(h, o, name=f"{name}.attn_residual")
        x = layer_norm(h, w, d, f"{name}.final_layer_norm", 1e-5)
        f = ops.gelu(dense(x, w, d, ffn, f"{name}.fc1"), "erf", name=f"{name}.gelu")
        h = ops.add(h, dense(f, w, ffn, d, f"{name}.fc2"), name=f"{name}.mlp_residual")
    return Model([layer_norm(h, w, d, "layer_norm", 1e-5)], [mel], "whisper_tiny_encoder")


