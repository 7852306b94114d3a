"""Building blocks of the real architectures: seeded weights scaled as each architecture
initialises them, and the layers the architectures share (conv + BatchNorm, dense, LayerNorm,
RMSNorm, attention heads). Every op gets a dotted name (``layer3.0.conv1``) so that a triage
message names the op as the architecture's source does."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ovconform import opset as ops
from ovconform.ir import Node, Output, Type

__all__ = ["F32", "I64", "Weights", "conv_bn", "dense", "i64", "layer_norm", "rms_norm", "shapes_only"]

F32 = Type.f32
I64 = Type.i64
Value = Node | Output


def i64(*values: int, name: str | None = None) -> Node:
    """An i64 Constant (shapes, axes, indices)."""
    return ops.constant(np.array(values, np.int64), I64, name=name)


_SHAPES_ONLY: ContextVar[bool] = ContextVar("shapes_only", default=False)


@contextmanager
def shapes_only() -> Iterator[None]:
    """Build with zero weights (``np.zeros``: pages never written, so a 1.1B-weight model costs no
    memory until read) where only shapes and counts matter (``ovconform models``)."""
    token = _SHAPES_ONLY.set(True)
    try:
        yield
    finally:
        _SHAPES_ONLY.reset(token)


class Weights:
    """Seeded f32 weights: normal draws scaled by the initialisation rule of each layer kind, so
    that activations keep their scale through depth (He for ReLU convs, Xavier/0.02 for
    transformers). ``count`` is the number of weight values drawn so far."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def draw(self, *shape: int, std: float) -> np.ndarray:
        """N(0, std²) values as an f32 array (zeros under :func:`shapes_only`), counted."""
        self.count += int(np.prod(shape))
        if _SHAPES_ONLY.get():
            return np.zeros(shape, np.float32)
        values = self.rng.standard_normal(shape, dtype=np.float32)
        values *= np.float32(std)  # in place: a 1.1B-weight model is not copied on the way to its Constants
        return values

    def normal(self, *shape: int, std: float, name: str | None = None) -> Node:
        # the drawn array is the Constant's own (nothing else holds it): shared, not copied
        return ops.constant(self.draw(*shape, std=std), F32, name=name, shared_memory=True)

    def he(self, *shape: int, fan_in: int, name: str | None = None) -> Node:
        """He (Kaiming) normal: std sqrt(2 / fan_in) — conv and dense layers before a ReLU."""
        return self.normal(*shape, std=float(np.sqrt(2.0 / fan_in)), name=name)

    def xavier(self, *shape: int, fan_in: int, fan_out: int, name: str | None = None) -> Node:
        """Xavier (Glorot) normal: std sqrt(2 / (fan_in + fan_out))."""
        return self.normal(*shape, std=float(np.sqrt(2.0 / (fan_in + fan_out))), name=name)

    def uniform(self, *shape: int, low: float, high: float, name: str | None = None) -> Node:
        if _SHAPES_ONLY.get():
            return self._zeros(shape, name)
        values = self.rng.uniform(low, high, shape).astype(np.float32)
        self.count += values.size
        return ops.constant(values, F32, name=name)

    def _zeros(self, shape: tuple[int, ...], name: str | None) -> Node:
        self.count += int(np.prod(shape))
        return ops.constant(np.zeros(shape, np.float32), F32, name=name)


def conv_bn(x: Value, w: Weights, c_in: int, c_out: int, k: int, stride: int, name: str, *, groups: int = 1,
            gamma: float = 1.0) -> Node:
    """Convolution (or GroupConvolution with ``groups``), no bias, then BatchNormInference with
    running statistics near (0, 1) and ``gamma`` scaling (a small gamma on the last BN of a
    residual branch keeps the sum's variance from doubling at every block)."""
    pad = (k - 1) // 2
    fan_in = (c_in // groups) * k * k
    if groups == 1:
        y = ops.convolution(x, w.he(c_out, c_in, k, k, fan_in=fan_in, name=f"{name}.weight"), [stride, stride],
                            [pad, pad], [pad, pad], [1, 1], name=name)
    else:
        filters = w.he(groups, c_out // groups, c_in // groups, k, k, fan_in=fan_in, name=f"{name}.weight")
        y = ops.group_convolution(x, filters, [stride, stride], [pad, pad], [pad, pad], [1, 1], name=name)
    bn = f"{name}.bn"
    return ops.batch_norm_inference(
        y, w.uniform(c_out, low=0.8 * gamma, high=1.2 * gamma), w.uniform(c_out, low=-0.05, high=0.05),
        w.uniform(c_out, low=-0.05, high=0.05), w.uniform(c_out, low=0.8, high=1.2), 1e-5, name=bn)


def dense(x: Value, w: Weights, n_in: int, n_out: int, name: str, *, bias: bool = True,
          std: float | None = None) -> Node:
    """MatMul with a [n_in, n_out] weight (Xavier, or normal ``std``), then a bias Add."""
    weight = (w.normal(n_in, n_out, std=std, name=f"{name}.weight") if std is not None
              else w.xavier(n_in, n_out, fan_in=n_in, fan_out=n_out, name=f"{name}.weight"))
    y = ops.matmul(x, weight, False, False, name=name)
    return ops.add(y, w.normal(n_out, std=0.02, name=f"{name}.bias"), name=f"{name}.add_bias") if bias else y


def layer_norm(x: Value, w: Weights, d: int, name: str, eps: float = 1e-12) -> Node:
    """LayerNorm over the last axis: MVN-6 (inside_sqrt), then gamma and beta."""
    norm = ops.mvn(x, i64(-1), True, eps, "inside_sqrt", name=f"{name}.mvn")
    scaled = ops.multiply(norm, w.uniform(d, low=0.9, high=1.1), name=f"{name}.gamma")
    return ops.add(scaled, w.uniform(d, low=-0.05, high=0.05), name=f"{name}.beta")


def rms_norm(x: Value, w: Weights, d: int, name: str, eps: float = 1e-6) -> Node:
    """RMSNorm as Llama has it: x / sqrt(mean(x²) + eps) · weight (Power, ReduceMean, Add, Sqrt,
    Divide, Multiply — the pattern OpenVINO fuses into its internal RMS op)."""
    sq = ops.power(x, ops.constant(np.float32(2.0), F32), name=f"{name}.pow")
    mean = ops.reduce_mean(sq, i64(-1), True, name=f"{name}.mean")
    root = ops.sqrt(ops.add(mean, ops.constant(np.float32(eps), F32), name=f"{name}.add_eps"), name=f"{name}.sqrt")
    normed = ops.divide(x, root, name=f"{name}.div")
    return ops.multiply(normed, w.uniform(d, low=0.9, high=1.1, name=f"{name}.weight"), name=name)


def to_heads(x: Value, shape: Sequence[int], name: str) -> Node:
    """[B, L, H·E] → [B, H, L, E] (Reshape with ``0`` copying dims, then Transpose)."""
    r = ops.reshape(x, i64(*shape), True, name=f"{name}.split_heads")
    return ops.transpose(r, i64(0, 2, 1, 3), name=f"{name}.transpose")


def from_heads(x: Value, d: int, name: str) -> Node:
    """[B, H, L, E] → [B, L, H·E]."""
    t = ops.transpose(x, i64(0, 2, 1, 3), name=f"{name}.transpose_back")
    return ops.reshape(t, i64(0, 0, d), True, name=f"{name}.merge_heads")
