"""MVN-2 (the spec page "MVN-1"; first in opset2) and MVN-6: mean-variance normalisation.

``y = x - mean(x)`` over the reduction axes; with ``normalize_variance`` it is divided by
``sqrt(var + eps)`` (MVN-1, and MVN-6 ``INSIDE_SQRT``) or ``sqrt(var) + eps`` (MVN-6
``OUTSIDE_SQRT``), ``var`` the population variance over the same axes. MVN-1 reduces over
``reduction_axes`` (negative counts from the end), or when that is absent over dims 1..
(``across_channels``) or 2.. of the data.
Over no axis each element is its own mean (``x - x = 0``). Computed in float64 for every element
type and rounded once. (REFERENCE's programs take a faster
float64 route for f32 data normalised over its trailing axes, within 1 ulp of this:
:mod:`reference_plugin.fast.mvn`.)
"""

from __future__ import annotations

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import Node
from ovconform.opset._normalization import mvn1_axes
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_norm import AxesOp, mean_variance, store_float, to_f64


def mvn(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, eps: float, inside: bool) -> np.ndarray:
    centred, var = mean_variance(x, axes)
    if not normalize_variance:
        return centred
    return centred / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)


class MVNFormula(OpRun):
    """The computation both MVN versions share (:mod:`reference_plugin.fast.mvn` replaces it)."""

    def normalized(self, x: np.ndarray, axes: tuple[int, ...], normalize: bool, eps: float,
                   inside: bool) -> np.ndarray:
        """The output for the input ``x`` (as stored): :func:`mvn` in float64, rounded once."""
        return store_float(mvn(to_f64(x, self.in_types[0]), axes, normalize, eps, inside), self.out_types[0])


@register_op("MVN", since=2)
class MVN1(MVNFormula):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.eps: float = self.attr("eps")
        self.across: bool = self.attr("across_channels")
        self.normalize: bool = self.attr("normalize_variance")
        self.reduction_axes: list[int] | None = self.attr("reduction_axes")

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        try:
            axes = mvn1_axes(x.ndim, self.across, self.reduction_axes)
        except ValidationError as e:
            raise self.fail(str(e)) from None
        return (self.normalized(x, tuple(axes), self.normalize, self.eps, True),)


@register_op("MVN", since=6)
class MVN6(AxesOp, MVNFormula):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.eps: float = float(np.float32(self.attr("eps")))  # a C++ float in OpenVINO
        self.normalize: bool = self.attr("normalize_variance")
        self.inside = str(self.attr("eps_mode")).upper() == "INSIDE_SQRT"

    def _run(self, x: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        return (self.normalized(x, self.axes(axes, x.ndim), self.normalize, self.eps, self.inside),)
