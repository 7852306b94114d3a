"""Multinomial-13: the spec's algorithm, with the uniform numbers of OpenVINO's reference implementation.

The spec leaves "randomly generate a sequence of double-precision floating point numbers in
[0, 1]" open; OpenVINO's reference implementation (``openvino/reference/multinomial.hpp``) draws
them with RandomUniform (Philox4x32-10, its default "tensorflow" alignment) of the probs element
type ``T``, shape ``[batch, num_samples]``, min 0, max 1, keyed by ``global_seed`` and
``op_seed``. REFERENCE does exactly that through its own RandomUniform-8 kernel, so the samples
are deterministic under a seed and the same in every process. Then, per row and in ``T``'s
arithmetic (rounded to ``T`` after every operation, as the reference code's ``T`` does):

1. ``log_probs``: ``p = exp(probs)``; else ``p = probs``.
2. ``cdf`` = the running sum of ``p``, divided by its last value.
3. Sample ``j`` takes the lowest class ``k`` with ``u[j] <= cdf[k]``.
4. Without replacement: ``q = cdf[k] - cdf[k-1]`` (``cdf[0]`` for k = 0); ``cdf[i] -= q`` for
   ``i >= k``; then ``cdf /= 1 - q``.

Where OpenVINO's reference code would break the op's contract, REFERENCE keeps it: a class whose
probability is 0 (or, without replacement, one already drawn) is never drawn. The reference code
draws class 0 for ``u == 0`` even when its probability is 0 (``0 <= cdf[0] == 0``; likely for f16,
whose uniform numbers are multiples of 2^-10), and after rounding in step 4 it may find no class
or an already-drawn one; REFERENCE takes the lowest *eligible* class with ``u <= cdf[k]``, and the
last eligible class when none qualifies (``u`` beyond a last ``cdf`` rounded below 1). (OpenVINO
CPU runs the same update and does draw a class twice, e.g. probs [[1e-7, 2e-7, 4e-7, 1]], seeds
(8, 1), 4 samples give [[3, 3, 1, 2]]: a recorded deviation.)

Errors (InferError): probabilities that are negative or NaN, a row whose sum is 0 or not finite
(``exp`` overflowing, too), a negative ``num_samples``, and without replacement more samples than
the row has classes of non-zero probability.

Seeds both 0 mean "non-deterministic": RandomUniform then draws its key from the OS, so every
inference gives new samples. Otherwise REFERENCE restarts the stream at every inference.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import compute_dtype, from_compute, to_compute
from reference_plugin.ops.op_random_uniform import RandomUniform


def _rounding(et: Type) -> Callable[[np.ndarray], np.ndarray]:
    """Round a computed array to ``et``'s precision (kept in the compute dtype)."""
    if et in (Type.f32, Type.f64):
        return lambda x: np.asarray(x, compute_dtype(et))
    return lambda x: to_compute(from_compute(np.asarray(x, np.float32), et), et)


@register_op("Multinomial", since=13)
class Multinomial(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.et: Type = node.get_input_element_type(0)
        self.log_probs: bool = a["log_probs"]
        self.with_replacement: bool = a["with_replacement"]
        self.round = _rounding(self.et)
        shape = opset.parameter([2], Type.i64, name="shape")
        self.uniform = RandomUniform(opset.random_uniform(shape, 0.0, 1.0, self.et, a["global_seed"], a["op_seed"]))
        self.bounds = [from_compute(np.array(v, compute_dtype(self.et)), self.et) for v in (0.0, 1.0)]

    def _run(self, probs: np.ndarray, num_samples: np.ndarray) -> tuple[np.ndarray, ...]:
        if probs.ndim != 2:
            raise self.fail(f"probs has shape {list(probs.shape)}; it must be 2D [batch_size, class_size].")
        if num_samples.size != 1:
            raise self.fail(f"num_samples has shape {list(num_samples.shape)}; it must hold one value.")
        count = int(num_samples.reshape(-1)[0])
        if count < 0:
            raise self.fail(f"num_samples {count} must not be negative.")
        batch, classes = probs.shape
        p = self._probabilities(probs)
        eligible = p > 0
        if not self.with_replacement:
            self._check_enough_classes(eligible, count)
        out = np.zeros((batch, count), self.out_dtypes[0])
        if batch == 0 or count == 0:
            return (out,)
        if classes == 0:
            raise self.fail(f"probs has shape {list(probs.shape)}: no class to draw {count} sample(s) from.")
        cdf = self._cdf(p)
        u = to_compute(self.uniform.run([np.array([batch, count], np.int64), *self.bounds])[0], self.et)
        if self.with_replacement:
            out[...] = _select(u[:, :, None], cdf[:, None, :], eligible[:, None, :])
        else:
            out[...] = self._without_replacement(u, cdf, eligible)
        return (out,)

    def _probabilities(self, probs: np.ndarray) -> np.ndarray:
        x = to_compute(probs, self.et)
        if np.isnan(x).any():
            row = int(np.argwhere(np.isnan(x))[0][0])
            raise self.fail(f"probs row {row} holds NaN; probabilities must be numbers.")
        if self.log_probs:
            return self.round(np.exp(x))
        if (x < 0).any():
            row, k = (int(i) for i in np.argwhere(x < 0)[0])
            raise self.fail(f"probs[{row}, {k}] = {float(x[row, k])} is negative; with log_probs=false the "
                            "probabilities must be non-negative, finite and have a non-zero sum.")
        return x

    def _check_enough_classes(self, eligible: np.ndarray, count: int) -> None:
        available = eligible.sum(axis=1)
        if available.size and int(available.min()) < count:
            row = int(np.argmin(available))
            raise self.fail(f"without replacement, num_samples {count} exceeds the {int(available[row])} "
                            f"class(es) of non-zero probability in probs row {row}.")

    def _cdf(self, p: np.ndarray) -> np.ndarray:
        """The running sum along the classes in ``T``, divided by its last value."""
        cdf = np.empty_like(p)
        total = np.zeros(p.shape[0], p.dtype)
        for k in range(p.shape[1]):
            total = self.round(total + p[:, k])
            cdf[:, k] = total
        bad = ~(np.isfinite(total) & (total > 0))
        if bad.any():
            row = int(np.argmax(bad))
            what = "exp(probs)" if self.log_probs else "probs"
            raise self.fail(f"{what} row {row} sums to {float(total[row])}; the probabilities of a row must be "
                            "finite with a non-zero sum.")
        return self.round(cdf / total[:, None])

    def _without_replacement(self, u: np.ndarray, cdf: np.ndarray, eligible: np.ndarray) -> np.ndarray:
        """Draw column by column; after each draw remove the class and renormalise the cdf."""
        rows = np.arange(cdf.shape[0])
        cols = np.arange(cdf.shape[1])
        eligible = eligible.copy()
        out = np.empty(u.shape, np.int64)
        one = self.round(np.ones(1, cdf.dtype))
        for j in range(u.shape[1]):
            k = _select(u[:, j, None], cdf, eligible)
            out[:, j] = k
            below = np.where(k > 0, cdf[rows, np.maximum(k - 1, 0)], 0)
            q = self.round(cdf[rows, k] - below)
            divisor = self.round(one - q)
            cdf = np.where(cols[None, :] >= k[:, None], self.round(cdf - q[:, None]), cdf)
            cdf = self.round(cdf / divisor[:, None])
            eligible[rows, k] = False
        return out


def _select(u: np.ndarray, cdf: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """Per sample, the lowest eligible class ``k`` with ``u <= cdf[k]`` (the last eligible class when
    none qualifies); the arrays broadcast to ``[..., classes]``."""
    hit = (u <= cdf) & eligible
    chosen = np.argmax(hit, axis=-1)
    last = eligible.shape[-1] - 1 - np.argmax(eligible[..., ::-1], axis=-1)
    return np.where(hit.any(axis=-1), chosen, np.broadcast_to(last, chosen.shape))
