"""Real architectures built with :mod:`ovconform.opset`, at their real sizes and layer counts,
weights from a fixed seed scaled as each architecture's initialisation would.

:data:`ARCHITECTURES` lists them; each :class:`Architecture` has a builder, the inputs of each
inference (one step, or a prefill and decode steps for the decoder), a one-line description and
a tier: ``quick`` ones run by default in the model suite (``--ovconform-models quick``), ``full``
ones only in a full run (``--ovconform-models full``, nightly). ``ovconform models`` lists them
with op, weight and FLOP counts (:func:`stats`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from ovconform.errors import NotFoundError
from ovconform.ir import Model

from . import control, language, sequence, vision, vision_classic

__all__ = ["ARCHITECTURES", "TIERS", "Architecture", "architectures", "get", "stats"]

Steps = list[dict[str, np.ndarray]]
#: The ``--ovconform-models`` values: each runs its own tier and the ones before it.
TIERS = ("quick", "full")


@dataclass(frozen=True)
class Architecture:
    """One architecture: ``build()`` makes a fresh model, ``make_steps(model)`` its inputs."""

    name: str
    description: str
    build: Callable[[], Model]
    tier: str = "quick"
    steps: Callable[[Model], Steps] | None = None
    #: The model suite multiplies the per-test time limit by this (``--ovconform-test-timeout``):
    #: a 1.1B decoder runs 17 inferences on the device and 17 on REFERENCE.
    time_factor: float = 1.0

    def make_steps(self, model: Model) -> Steps:
        return (self.steps or single_step)(model)


def single_step(model: Model, seed: int = 0) -> Steps:
    """One inference: N(0, 1) images/features, token ids below the embedding size, masks of ones
    with a padded tail (the last quarter of ``attention_mask`` is 0)."""
    rng = np.random.default_rng(seed)
    feed: dict[str, np.ndarray] = {}
    for p in model.get_parameters():
        shape = tuple(p.get_output_partial_shape(0).to_shape())
        name = p.friendly_name
        if name == "attention_mask":
            mask = np.ones(shape, np.int64)
            mask[..., shape[-1] * 3 // 4:] = 0
            feed[name] = mask
        elif name == "input_ids":
            table = next(t.get_node() for t in p.output(0).get_target_inputs() if t.get_node().type_name == "Gather")
            vocab = table.get_input_partial_shape(0)[0].get_length()
            feed[name] = rng.integers(0, vocab, shape).astype(np.int64)
        else:
            feed[name] = rng.standard_normal(shape).astype(np.float32)
    return [feed]


def _decoder_steps(vocab: int, prefill: int = 32) -> Callable[[Model], Steps]:
    return lambda _model: language.decoder_steps(vocab, prefill)


#: The prefill of ``llama_decoder_i4`` in the quick tier: past 64 and 128 cached tokens (KV-cache
#: pages and blocks of 64/128 tokens), so a device whose cache breaks past its first page fails.
LONG_PREFILL = 131


ARCHITECTURES: tuple[Architecture, ...] = (
    Architecture("mobilenet_v3_small", "MobileNetV3-Small, 224x224: depthwise convs, squeeze-excite, hard-swish",
                 vision.mobilenet_v3_small),
    Architecture("resnet50_64px", "ResNet-50 (all 53 convs, up to 2048 channels) on a 64x64 image",
                 partial(vision.resnet50, 64)),
    Architecture("efficientnet_b0", "EfficientNet-B0, 224x224: 16 MBConv blocks, swish, squeeze-excite",
                 vision.efficientnet_b0),
    Architecture("llama_decoder", "Llama-style decoder, 2 layers x 256, GQA 8/2 heads, RoPE, SwiGLU, KV cache "
                 "state: prefill 32 tokens + 16 decode steps", language.llama_decoder,
                 steps=_decoder_steps(language.LLAMA_SMALL.vocab_size)),
    *(Architecture(f"llama_decoder_{bits}", f"the Llama-style decoder with {bits} weights as OpenVINO's weight "
                   f"compression writes them: groups of 64 channels, f16 scales{zp}, decompressed before MatMul; "
                   f"u8 embedding and LM head; prefill {prefill} tokens + 16 decode steps",
                   partial(language.llama_decoder, language.LLAMA_SMALL, f"llama_decoder_{bits}", bits),
                   steps=_decoder_steps(language.LLAMA_SMALL.vocab_size, prefill))
      for bits, zp, prefill in (("u4", ", u4 zero points", 32), ("i4", "", LONG_PREFILL))),
    Architecture("greedy_decoder", "early-exit encoder (If on the exit classifier's confidence) + greedy GRU "
                 "decoding Loop (stops on the end token; tokens and logits concatenated): a confident and an "
                 "ambiguous input", control.greedy_decoder, steps=control.steps),
    Architecture("resnet50", "ResNet-50 v1.5, 224x224, 1000 classes", vision.resnet50, tier="full"),
    Architecture("densenet121", "DenseNet-121, 224x224: 58 dense layers, each the Concat of all earlier maps of its "
                 "block, BN-ReLU-conv, average-pool transitions", vision_classic.densenet121, tier="full"),
    Architecture("inception_v2", "Inception-v2 (BN-Inception), 224x224: ten 4-branch inception modules, "
                 "conv+BN+ReLU, ceil-mode pools", vision_classic.inception_v2, tier="full"),
    Architecture("shufflenet_v2", "ShuffleNet v2 1.0x, 224x224: channel Split, depthwise 3x3, channel shuffle "
                 "as Reshape/Transpose/Reshape", vision_classic.shufflenet_v2, tier="full"),
    Architecture("bert_base", "BERT-base encoder: 12 layers x 768, 12 heads, sequence 128, padding mask",
                 language.bert_base, tier="full"),
    Architecture("whisper_tiny_encoder", "Whisper-tiny audio encoder: 2 conv1d + 4 layers x 384 over 1500 frames",
                 language.whisper_tiny_encoder, tier="full"),
    Architecture("yolo_detector", "YOLOv5-style detector, 320x320: SiLU backbone, 2 scales, box decode, "
                 "NonMaxSuppression", vision.yolo_detector, tier="full"),
    Architecture("rnn_tagger", "Bidirectional LSTM (256) + GRU (256) tagger, 64 steps, 4 sequences of "
                 "different lengths", sequence.rnn_tagger, tier="full"),
    Architecture("llama_decoder_1b", "Llama decoder at TinyLlama-1.1B geometry (22 layers x 2048, GQA 32/4, "
                 "32000 tokens): prefill 32 + 16 decode steps",
                 partial(language.llama_decoder, language.LLAMA_FULL, "llama_decoder_1b"), tier="full",
                 steps=_decoder_steps(language.LLAMA_FULL.vocab_size), time_factor=8.0),
    *(Architecture(f"llama_decoder_1b_{bits}", f"the TinyLlama-1.1B-geometry decoder with {bits} weights as "
                   "OpenVINO's weight compression writes them (groups of 64 channels, f16 scales"
                   f"{zp}; u8 embedding and LM head): prefill 32 + 16 decode steps",
                   partial(language.llama_decoder, language.LLAMA_FULL, f"llama_decoder_1b_{bits}", bits),
                   tier="full", steps=_decoder_steps(language.LLAMA_FULL.vocab_size), time_factor=8.0)
      for bits, zp in (("u4", ", u4 zero points"), ("i4", ""))),
)


def architectures(tier: str = "quick") -> list[Architecture]:
    """The architectures a run at ``tier`` covers (``full`` includes the ``quick`` ones).

    :raises NotFoundError: for a tier that is not one of :data:`TIERS`.
    """
    if tier not in TIERS:
        raise NotFoundError(f"model tier {tier!r} does not exist; allowed: {', '.join(TIERS)}.")
    upto = TIERS[: TIERS.index(tier) + 1]
    return [a for a in ARCHITECTURES if a.tier in upto]


def get(name: str) -> Architecture:
    """The architecture called ``name``.

    :raises NotFoundError: naming the unknown name and listing the known ones.
    """
    for a in ARCHITECTURES:
        if a.name == name:
            return a
    raise NotFoundError(f"architecture {name!r} does not exist; known: {', '.join(a.name for a in ARCHITECTURES)}.")


def stats(arch: Architecture) -> dict[str, int]:
    """``{"ops", "weights", "flops"}``: ops other than Parameter/Constant/Result, the values held in
    floating-point Constants and in compressed ones (integer codes a Convert decompresses), and
    the FLOPs of the first inference (counted by
    :mod:`ovconform.bench.flops` at the shapes of the first step, so a dynamic model is counted at
    its prefill). The model is built with zero weights: the counts depend on shapes only."""
    from ovconform.models._blocks import shapes_only
    from ovconform.models._stats import count

    with shapes_only():
        model = arch.build()
    return count(model, arch.make_steps(model)[0])
