"""The models ``ovconform bench`` and the perf suite run: the zoo, the four perf anchors, IR files.

Names (see :func:`available`):

* the model zoo of the model conformance suite (:mod:`ovconform.suites._zoo`): ``mlp``, ``lenet``,
  ``resnet_basic_block``, ... (small models; their first input step gives the input shapes);
* the four perf-anchor models of ``perf-anchors.md`` (the sizes the REFERENCE speed targets are
  measured on): ``cnn``, ``attention``, ``eltwise`` and ``anchor:mlp`` (the bare name ``mlp`` is
  the zoo's; ``zoo:NAME`` and ``anchor:NAME`` always pick one set);
* the real architectures of :mod:`ovconform.models` (``resnet50``, ``bert_base``, ``llama_decoder``,
  ...; ``ovconform models`` lists them; ``arch:NAME`` always picks one), fed their first step (a
  decoder: its 32-token prefill, its KV cache reset before every run, see
  :mod:`ovconform.bench.runner`); a decoder's later steps (16 one-token decode steps) are its
  ``decode_steps``, timed on the cache its prefill filled;
* a path to an IR v11 ``.xml`` file (weights from the ``.bin`` beside it).

Anchor weights are seeded standard normals scaled by ``1/sqrt(fan_in)``; every op is named, so
per-op counters read well (``conv1``, ``conv1_bias``, ``conv1_relu``, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from ovconform import opset as ops
from ovconform.errors import NotFoundError
from ovconform.ir import Model, Node, Output, Type

__all__ = ["ANCHORS", "BenchModel", "architecture_names", "available", "resolve_model", "zoo_names"]

F32 = Type.f32


@dataclass(frozen=True)
class BenchModel:
    """A model to benchmark: its name, the graph, where it came from and its example inputs
    (``{parameter friendly name: array}``, or None to generate them from the port shapes).
    ``decode_steps`` (a stateful architecture with several steps: a decoder) are the inputs of the
    runs that follow the example inputs on one request, on the state they leave (a decoder's
    one-token steps on the KV cache its prefill filled); empty for every other model."""

    name: str
    model: Model
    source: str
    example_inputs: dict[str, np.ndarray] | None = None
    decode_steps: tuple[dict[str, np.ndarray], ...] = ()


class _Weights:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape: int, fan_in: int, name: str | None = None) -> Node:
        values = (self.rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
        return ops.constant(values, F32, name=name)


def _dense(x: Node | Output, w: _Weights, n_in: int, n_out: int, name: str, bias: bool = True) -> Node:
    y = ops.matmul(x, w(n_in, n_out, fan_in=n_in), False, False, name=name)
    return ops.add(y, w(n_out, fan_in=n_in), name=f"{name}_bias") if bias else y


def anchor_mlp() -> Model:
    w = _Weights(11)
    x = ops.parameter([8, 784], F32, name="x")
    h = ops.relu(_dense(x, w, 784, 1024, "fc1"), name="fc1_relu")
    h = ops.relu(_dense(h, w, 1024, 1024, "fc2"), name="fc2_relu")
    return Model([ops.softmax(_dense(h, w, 1024, 10, "fc3"), -1, name="probs")], [x], "mlp")


def _conv_block(x: Node | Output, w: _Weights, c_in: int, c_out: int, name: str) -> Node:
    fan_in = c_in * 9
    y = ops.convolution(x, w(c_out, c_in, 3, 3, fan_in=fan_in), [1, 1], [1, 1], [1, 1], [1, 1], name=name)
    y = ops.add(y, w(1, c_out, 1, 1, fan_in=fan_in), name=f"{name}_bias")
    return ops.relu(y, name=f"{name}_relu")


def anchor_cnn() -> Model:
    w = _Weights(12)
    x = ops.parameter([1, 3, 64, 64], F32, name="image")
    h: Node | Output = _conv_block(x, w, 3, 16, "conv1")
    h = _conv_block(h, w, 16, 32, "conv2")
    h = ops.max_pool(h, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], name="pool").output(0)
    h = _conv_block(h, w, 32, 64, "conv3")
    g = ops.reduce_mean(h, [2, 3], False, name="global_avg")
    return Model([_dense(g, w, 64, 10, "fc")], [x], "cnn")


def _layer_norm(x: Node | Output, w: _Weights, d: int, prefix: str, eps: float = 1e-5) -> Node:
    """LayerNorm as perf-anchors.md has it: MVN-6 over the last axis, then scale and shift."""
    normed = ops.mvn(x, ops.constant(np.array([-1], np.int64)), True, eps, "inside_sqrt", name=f"{prefix}_mvn")
    scaled = ops.multiply(normed, ops.constant(np.ones(d, np.float32), F32), name=f"{prefix}_scale")
    return ops.add(scaled, w(d, fan_in=d), name=f"{prefix}_shift")


def _heads(x: Node | Output, name: str, seq: int, heads: int, dh: int) -> Node:
    r = ops.reshape(x, ops.constant(np.array([1, seq, heads, dh], np.int64)), False, name=f"{name}_split")
    return ops.transpose(r, ops.constant(np.array([0, 2, 1, 3], np.int64)), name=f"{name}_heads")


def anchor_attention() -> Model:
    w, seq, d, heads = _Weights(13), 128, 256, 4
    dh = d // heads
    x = ops.parameter([1, seq, d], F32, name="tokens")
    q, k, v = (_heads(_dense(x, w, d, d, n), n, seq, heads, dh) for n in ("q_proj", "k_proj", "v_proj"))
    scores = ops.multiply(ops.matmul(q, k, False, True, name="qk"), ops.constant(np.float32(1 / np.sqrt(dh)), F32),
                          name="scale")
    ctx = ops.matmul(ops.softmax(scores, -1, name="attn_softmax"), v, False, False, name="attn_v")
    ctx = ops.transpose(ctx, ops.constant(np.array([0, 2, 1, 3], np.int64)), name="merge_heads")
    ctx = ops.reshape(ctx, ops.constant(np.array([1, seq, d], np.int64)), False, name="merge")
    h = _layer_norm(ops.add(_dense(ctx, w, d, d, "o_proj"), x, name="residual_1"), w, d, "ln1")
    ff = ops.gelu(_dense(h, w, d, 4 * d, "ff1", bias=False), "erf", name="ff_gelu")
    ff = _dense(ff, w, 4 * d, d, "ff2", bias=False)
    return Model([_layer_norm(ops.add(ff, h, name="residual_2"), w, d, "ln2")], [x], "attention")


def anchor_eltwise() -> Model:
    w = _Weights(14)
    x = ops.parameter([1, 64, 128, 128], F32, name="x")
    h: Node | Output = x
    for i in range(1, 5):
        h = ops.add(h, w(1, 64, 1, 1, fan_in=1), name=f"add{i}")
        h = ops.multiply(h, ops.constant(np.float32(0.5 + 0.25 * i), F32), name=f"mul{i}")
        h = ops.relu(ops.tanh(ops.sigmoid(h, name=f"sigmoid{i}"), name=f"tanh{i}"), name=f"relu{i}")
    return Model([h], [x], "eltwise")


#: The perf-anchor models (perf-anchors.md), by name.
ANCHORS: dict[str, Callable[[], Model]] = {
    "mlp": anchor_mlp, "cnn": anchor_cnn, "attention": anchor_attention, "eltwise": anchor_eltwise,
}


class _ZooEntry(Protocol):
    """What the bench uses of a zoo entry (:class:`ovconform.suites._zoo.ZooModel`)."""

    @property
    def name(self) -> str: ...
    @property
    def skip(self) -> str: ...
    @property
    def build(self) -> Callable[[], Model]: ...
    def make_steps(self, model: Model) -> list[dict[str, np.ndarray]]: ...


def _zoo() -> dict[str, _ZooEntry]:
    from ovconform.suites import _zoo

    entries: list[_ZooEntry] = _zoo.builtin()
    return {z.name: z for z in entries}


def zoo_names() -> list[str]:
    """The zoo models that can be built (the ones with a ``skip`` reason are left out)."""
    return [n for n, z in _zoo().items() if not z.skip]


def architecture_names() -> list[str]:
    """The real architectures (:data:`ovconform.models.ARCHITECTURES`), by name."""
    from ovconform.models import ARCHITECTURES

    return [a.name for a in ARCHITECTURES]


def available() -> list[str]:
    """Every model name :func:`resolve_model` accepts (besides paths to .xml files)."""
    zoo = zoo_names()
    taken = {*zoo, *ANCHORS}
    return [*zoo, *(f"anchor:{n}" if n in zoo else n for n in ANCHORS),
            *(f"arch:{n}" if n in taken else n for n in architecture_names())]


def resolve_model(spec: str, seed: int = 0) -> BenchModel:
    """The model named ``spec`` (zoo name, anchor name, architecture name, ``zoo:NAME``,
    ``anchor:NAME``, ``arch:NAME``) or stored at the .xml path ``spec``.

    :raises NotFoundError: naming the spec and listing the available names.
    """
    if spec.lower().endswith(".xml") or Path(spec).is_file():
        return _from_file(spec)
    kind, _, name = spec.rpartition(":")
    zoo = _zoo()
    if kind in ("", "zoo") and name in zoo:
        entry = zoo[name]
        if entry.skip:
            raise NotFoundError(f"zoo model {name!r} cannot be built: {entry.skip}")
        model = entry.build()
        return BenchModel(name, model, "zoo", entry.make_steps(model)[0])
    if kind in ("", "anchor") and name in ANCHORS:
        return BenchModel(name if kind == "" else spec, ANCHORS[name](), "anchor")
    if kind in ("", "arch") and name in architecture_names():
        from ovconform import models

        arch = models.get(name)
        model = arch.build()
        steps = arch.make_steps(model)
        later = tuple(steps[1:]) if model.get_sinks() else ()
        return BenchModel(name, model, "ovconform.models", steps[0], later)
    raise NotFoundError(f"--model {spec!r} names no model; available: {', '.join(available())}; "
                        "or give a path to an IR .xml file.")


def _from_file(spec: str) -> BenchModel:
    from ovconform import Core

    path = Path(spec)
    if not path.is_file():
        raise NotFoundError(f"--model {spec!r}: file {str(path.resolve())!r} does not exist; available "
                            f"model names: {', '.join(available())}.")
    model = Core(discover=False).read_model(str(path))
    return BenchModel(model.friendly_name or path.stem, model, str(path))
