"""Numeric tolerances as data: defaults per op type × element type, overrides, and :func:`compare`.

A :class:`Tolerance` is ``(atol, rtol, ulp, ctol)``. An element of ``actual`` matches ``expected`` when

* both are NaN, or both are the same infinity (NaN and ±inf must match exactly), or
* both are finite and ``|actual - expected| <= atol + rtol·|expected|``, or
* ``ulp`` is set and they are at most ``ulp`` units in the last place apart in the output's
  element type (counted across zero, so ``-0.0``/``+0.0`` are 0 ulp apart), or
* ``ctol`` is set, :func:`compare` is given ``magnitude`` (``S``, the sum of the magnitudes of the
  terms an output element adds up) and ``|actual - expected| <= atol + rtol·|expected| + ctol·S``.

Integer and boolean outputs compare exactly by default (``Tolerance(0, 0)``); a non-zero atol or
rtol given for them is applied to the integer values (``ulp`` is ignored for integers). An output
that is a copy (:data:`COPYING_OPS`: Reshape, Transpose, Gather, Concat, ... in an op case) compared
under an exact tolerance must also match bit for bit: a NaN's payload and sign, the sign of a zero.

**Defaults** (:func:`default_tolerance`) come from the op's class in :data:`OP_CLASSES` and the
machine epsilon ``e`` of the element type (f32 ``2**-23``, f16 ``2**-10``, bf16 ``2**-7``,
f64 ``2**-52``), so they fit a device that computes natively in the element type as well as one
that computes in f32 and rounds once:

============== ======================================================================= =========================
class          ops                                                                     float tolerance
============== ======================================================================= =========================
exact          data movement, selection, comparisons, Convert, Relu/Abs/Clamp/Max/...  ``(0, 0)``
rounded        one IEEE operation per element: Add, Subtract, Multiply, Divide, Sqrt   ``(tiny, 2e, ulp=2)``
remainder      Mod, FloorMod (error relative to the dividend, not the result)          ``(8e·M, 2e, ulp=2)``
transcendental Exp, Log, Sigmoid, Tanh, Erf, Power                                     ``(8e, 8e, ulp=8)``
composite      Gelu (x times a transcendental: cancels in the negative tail)           ``(4e·M, 8e, ulp=8)``
softmax        Softmax (a reduction of K exponentials along the axis)                  ``(8e, 8e + 2e·√K)``
accumulating   MatMul, Convolution, GroupConvolution, ReduceSum, ReduceMean, AvgPool   ``(e·K·M, 4e·√K)``
============== ======================================================================= =========================

``tiny`` is the smallest normal number of the type (so a device that flushes denormals to zero
still matches), ``K`` the reduction size (:func:`reduction_size`: the inner MatMul dim, the
kernel volume × input channels of a convolution, the number of reduced elements, the product of
a DFT's transformed lengths (the inverse transforms divide their sums by K, so their absolute
term is ``e·M``); :data:`DEFAULT_REDUCTION_SIZE` when unknown), ``M`` =
:data:`MAGNITUDE`, the input magnitude the absolute terms assume (cases draw inputs of magnitude
≲ 10). Integer and boolean element types are always ``(0, 0)``. An op type not in
:data:`OP_CLASSES` falls back to the transcendental class (:data:`FALLBACK_CLASS`): a few ulp,
never exact, so a new op is neither waved through nor failed on rounding.

**Overrides** refine the defaults: a device's ``ovconform_get_tolerance`` hook result
(``{"atol": .., "rtol": .., "ulp": ..}``, any subset; :func:`apply_override`) and then a user's
file (:func:`load_overrides`, TOML or JSON, never pickle or eval)::

    [tolerances]
    "Softmax" = { rtol = 1e-4 }          # every element type
    "MatMul:f16" = { atol = 0.05 }       # one element type
    "Gelu-7:f32" = { ulp = 16 }          # one op version and element type
    "*:bf16" = { rtol = 0.02 }           # every op on bf16

Keys are ``OP[-VERSION][:ELEMENT_TYPE]`` (``*`` for any op); the more specific key wins field by
field (``*`` < ``*:et`` < ``OP`` < ``OP-V`` < ``OP:et`` < ``OP-V:et``). :func:`resolve_tolerance`
applies default → hook → file.

:func:`compare` returns a :class:`Comparison` whose :meth:`Comparison.to_dict` is JSON-ready, so a
report can record the tolerance used next to the errors observed.

**Execution precision.** A device may compute an f32 model in f16 or bf16: the precision it
declares in ``INFERENCE_PRECISION_HINT`` (which, as in OpenVINO, applies to f32 values). Passed
as ``precision``, f16 or bf16 replaces f32's ``e`` and ``tiny`` in the formulas above for f32
outputs (and drops ``ulp``, which counts units of the stored type): an f16-precision device is
judged by f16 bounds. The op suite then also computes a second expected value from inputs (and constants)
rounded to that precision, and :func:`compare` accepts anything within tolerance of the interval
between the two (``alternate``): a device may round its inputs or keep them.

**Conditioning** (:data:`CONDITIONED_OPS`). For ops whose every output element is a sum of
products of input elements (MatMul, convolutions, AvgPool, ReduceSum/Mean/L1, CumSum, Einsum,
the EmbeddingBag sums), the error of any summation order is bounded by the sum of the terms'
magnitudes ``S`` (the op applied to the inputs' absolute values), not by the result, which
cancellation can make arbitrarily small. :func:`conditioned_tolerance` gives
``(tiny, 2e, ctol=2e·√K)``: ``|actual - expected| <= tiny + 2e·|expected| + 2e·√K·S`` — the
probabilistic rounding-error bound of a length-K sum (λ√K·u with λ = 4, u = e/2; Higham & Mary
2019) plus the output's own rounding. It holds for pairwise, blocked and sequential summation
in the declared precision; a device that accumulates in a coarser precision than it declares
(f16 sums for an f32 model) exceeds it by orders of magnitude (the achieved error and the bound
are recorded on every Inference record). Without ``S`` (``magnitude=None``) the accumulating
class's ``(e·K·M, 4e·√K)`` applies.

**Attention** (:data:`ATTENTION_OPS`). ScaledDotProductAttention's output is a softmax-weighted
mean of V (``|out| <= max|V|``), so the accumulating class's ``e·K·M`` says nothing about it. Its
error model (:func:`attention_magnitude`) follows the computation at the execution precision: the
logits' QKᵀ accumulation over the head size, the softmax of perturbed logits (which moves the
output only as far as the values differ from it), the normaliser and the PV accumulation over the
keys; it gives S, the bound in units of ``e``, per output element, and
:func:`attention_tolerance` is ``(tiny, 2e, ctol=e)``. A device that omits the scale, or computes
the softmax in f16 while it declares f32, exceeds it; a correct f16 or bf16 device does not.

**Models** (:func:`model_tolerance`): a whole model's output is judged by a depth-aware bound,
``B·e`` relative to the output's magnitude, B growing as the root sum of squares of the error
terms of the accumulating layers on the output's deepest path (:func:`model_layer_term`,
:func:`model_error_units`), ``e`` the declared execution precision's.

**Samples of a categorical distribution** (:data:`CATEGORICAL_OPS`): a device may draw them with
another generator than REFERENCE (OpenVINO CPU's Multinomial uses std::mt19937, OpenVINO's
reference code RandomUniform's Philox), so they are not compared by value (:func:`is_categorical`).
:func:`ovconform.categorical.sample_space` derives from the op's input values what a sample may be,
and :func:`ovconform.categorical.compare_samples` checks the shape, the element type, that every value
is a class index in ``[0, classes)``, never a class of probability 0 and (without replacement)
never twice in a row; whether the samples equal REFERENCE's is recorded as a fact.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from ovconform.errors import ValidationError
from ovconform.ir import Type, as_type, bf16_to_f32, constant_value

if TYPE_CHECKING:
    import os

    from ovconform.ir import Node

#: An element type: a Type, a type name ("f32", "FP32", "float32") or a numpy dtype.
TypeLike = Type | str | np.dtype[Any]

__all__ = [
    "ATTENTION_OPS", "CATEGORICAL_OPS", "CONDITIONED_OPS", "DEFAULT_REDUCTION_SIZE", "EPSILON", "EXP_ERROR",
    "FALLBACK_CLASS", "INVERSE_SIGNAL_OPS", "MAGNITUDE", "MODEL_ERROR_FACTOR", "MODEL_LAYER_CLASSES", "OP_CLASSES",
    "RECURRENT_OPS", "SIGNAL_OPS", "Comparison", "Overrides", "Tolerance", "TypeLike", "apply_override",
    "attention_magnitude", "attention_tolerance", "bool_byte_error", "compare", "conditioned_tolerance",
    "default_tolerance",
    "execution_type", "is_attention", "is_categorical", "is_conditioned", "is_model_layer", "load_overrides",
    "model_error_units", "model_layer_term", "model_tolerance", "parse_overrides", "reduction_size",
    "resolve_tolerance", "ulp_distance",
]


# -- the tolerance record --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Tolerance:
    """Allowed difference: ``|actual - expected| <= atol + rtol·|expected| (+ ctol·S)``, or within
    ``ulp`` units in the last place when ``ulp`` is set (floats only). ``ctol`` applies when the
    comparison is given ``S``, the sum of the magnitudes of the terms each output element adds up
    (see :func:`conditioned_tolerance`)."""

    atol: float
    rtol: float
    ulp: int | None = None
    ctol: float | None = None

    def __post_init__(self) -> None:
        for name in ("atol", "rtol", "ctol"):
            value = getattr(self, name)
            if name == "ctol" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise ValidationError(f"Tolerance {name}={value!r} must be a finite number >= 0.")
            object.__setattr__(self, name, float(value))
        if self.ulp is not None and (isinstance(self.ulp, bool) or not isinstance(self.ulp, int) or self.ulp < 0):
            raise ValidationError(f"Tolerance ulp={self.ulp!r} must be None or an integer >= 0.")

    @property
    def exact(self) -> bool:
        """True when only identical values match."""
        return self.atol == 0 and self.rtol == 0 and not self.ulp and not self.ctol

    def describe(self) -> str:
        """``"atol 1e-05 + rtol 0.0001·|expected|"`` (``" + ctol ..·Σ|terms|"`` and ``" or 2 ulp"``
        appended when set), or ``"exact match"``."""
        if self.exact:
            return "exact match"
        text = f"atol {self.atol:.3g} + rtol {self.rtol:.3g}·|expected|"
        if self.ctol:
            text += f" + ctol {self.ctol:.3g}·Σ|terms|"
        return text + (f" or {self.ulp} ulp" if self.ulp else "")

    def scaled(self, factor: float) -> Tolerance:
        """Every bound times ``factor`` (ulp rounded up), e.g. for errors carried through state."""
        ulp = None if self.ulp is None else math.ceil(self.ulp * factor)
        return Tolerance(self.atol * factor, self.rtol * factor, ulp, None if self.ctol is None else self.ctol * factor)

    def to_dict(self) -> dict[str, float | int | None]:
        """``{atol, rtol, ulp}`` plus ``ctol`` when it is set."""
        out: dict[str, float | int | None] = {"atol": self.atol, "rtol": self.rtol, "ulp": self.ulp}
        if self.ctol is not None:
            out["ctol"] = self.ctol
        return out


EXACT: Final = Tolerance(0.0, 0.0)

# -- defaults --------------------------------------------------------------------------------------------------

#: Machine epsilon (2**-mantissa bits) and smallest normal number per floating-point type.
EPSILON: Final[dict[str, float]] = {"f64": 2.0 ** -52, "f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}
TINY: Final[dict[str, float]] = {"f64": 2.0 ** -1022, "f32": 2.0 ** -126, "f16": 2.0 ** -14, "bf16": 2.0 ** -126}
#: Input magnitude the absolute terms of the remainder and accumulating classes assume.
MAGNITUDE: Final = 10.0
#: Reduction size assumed for an accumulating op when the caller does not give one.
DEFAULT_REDUCTION_SIZE: Final = 64

#: The recurrent cells and sequences: each step's gates sum products of the step's input and of
#: the previous hidden state.
RECURRENT_OPS: Final = ("RNNCell", "LSTMCell", "GRUCell", "RNNSequence", "LSTMSequence", "GRUSequence")

_EXACT_OPS = (
    "Parameter", "Constant", "Result", "Convert", "ConvertLike", "Reshape", "Transpose", "Squeeze", "Unsqueeze",
    "Concat", "Split", "VariadicSplit", "Gather", "Broadcast", "ShapeOf", "StridedSlice", "ReadValue", "Assign",
    "Select", "Relu", "Abs", "Negative", "Clamp", "Maximum", "Minimum", "ReduceMax", "MaxPool",
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
    "LogicalAnd", "LogicalOr", "LogicalXor", "LogicalNot", "Xor",
    "Floor", "Ceiling", "Sign", "Round", "Identity", "IsNaN", "IsInf", "IsFinite",
    "ReduceMin", "ReduceLogicalAnd", "ReduceLogicalOr", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot",
    "BitwiseLeftShift", "BitwiseRightShift",
)
#: Op type → tolerance class (see the module docstring).
OP_CLASSES: Final[dict[str, str]] = {
    **dict.fromkeys(_EXACT_OPS, "exact"),
    **dict.fromkeys(("Add", "Subtract", "Multiply", "Divide", "Sqrt", "SquaredDifference", "PRelu", "SoftSign",
                     "HSigmoid"), "rounded"),
    **dict.fromkeys(("Mod", "FloorMod"), "remainder"),
    **dict.fromkeys(("Exp", "Log", "Sigmoid", "Tanh", "Erf", "ErfInv", "Power"), "transcendental"),
    **dict.fromkeys(("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"),
                    "transcendental"),
    **dict.fromkeys(("SoftPlus", "Elu", "Selu", "Swish"), "transcendental"),
    **dict.fromkeys(("Gelu", "Mish", "HSwish", "HardSigmoid"), "composite"),
    "Softmax": "softmax",
    **dict.fromkeys(("MatMul", "Convolution", "GroupConvolution", "ReduceSum", "ReduceMean", "AvgPool",
                     "ReduceProd", "ReduceL1", "ReduceL2"), "accumulating"),
    "GroupedMatMul": "accumulating",  # a MatMul per group
    "LogSoftmax": "softmax",
    # tier-2/3 families: one block per family (a change adding a family's ops edits that block only)
    # -- norm
    **dict.fromkeys(("MVN", "NormalizeL2", "BatchNormInference", "GroupNormalization", "LRN", "GRN", "CumSum"),
                    "accumulating"),
    **{"Range": "rounded", "Eye": "exact", "OneHot": "exact"},
    # -- layout
    **dict.fromkeys(("Pad", "Tile", "Slice", "SliceScatter", "Roll", "Reverse", "ReverseSequence", "DepthToSpace",
                     "SpaceToDepth", "BatchToSpace", "SpaceToBatch", "ShuffleChannels"), "exact"),
    # -- index
    **dict.fromkeys(("GatherElements", "GatherND", "ScatterUpdate", "TopK", "NonZero", "Bucketize", "SearchSorted",
                     "Unique", "SegmentMax"), "exact"),
    **dict.fromkeys(("ScatterElementsUpdate", "ScatterNDUpdate"), "accumulating"),
    # -- advanced
    **dict.fromkeys(("ConvolutionBackpropData", "GroupConvolutionBackpropData", "AdaptiveAvgPool", "Interpolate",
                     "Einsum", "ScaledDotProductAttention", "Inverse", "Col2Im"), "accumulating"),
    **{"AdaptiveMaxPool": "exact", "FakeQuantize": "composite"},
    # -- recurrent
    **dict.fromkeys(RECURRENT_OPS, "accumulating"),
    # -- signal
    **dict.fromkeys(("DFT", "IDFT", "RDFT", "IRDFT", "STFT", "ISTFT"), "accumulating"),
    # -- misc
    **dict.fromkeys(("EmbeddingBagOffsetsSum", "EmbeddingBagPackedSum", "EmbeddingSegmentsSum", "EmbeddingBagOffsets",
                     "EmbeddingBagPacked", "NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR"), "accumulating"),
    **dict.fromkeys(("GatherTree", "ExtractImagePatches", "CTCGreedyDecoder", "CTCGreedyDecoderSeqLen",
                     "ConvertPromoteTypes", "ReorgYolo"), "exact"),
    "Multinomial": "exact",  # by value only REFERENCE against itself; devices: CATEGORICAL_OPS
    "RandomUniform": "composite",  # u * (max - min) + min: OpenVINO CPU fuses it (FMA); cancels near 0
    "RegionYolo": "transcendental",
    "GridSample": "accumulating",
    "ROIPooling": "composite",
    "PSROIPooling": "accumulating",
    # -- detect
    **dict.fromkeys(("PriorBox", "PriorBoxClustered", "FakeConvert"), "rounded"),
    "SparseFillEmptyRows": "exact",
    **dict.fromkeys(("NonMaxSuppression", "DetectionOutput"), "transcendental"),
    **dict.fromkeys(("ROIAlign", "ROIAlignRotated", "CTCLoss", "DeformableConvolution", "DeformablePSROIPooling"),
                    "accumulating"),
    # opset6's ExperimentalDetectron ops, GenerateProposals-9, Proposal: box corners are differences of values up
    # to the image size (centre -/+ half a size), so their absolute error scales with it, as an accumulation's
    **dict.fromkeys(("ExperimentalDetectronROIFeatureExtractor", "ExperimentalDetectronDetectionOutput",
                     "ExperimentalDetectronGenerateProposalsSingleImage", "GenerateProposals", "Proposal"),
                    "accumulating"),
    **{"ExperimentalDetectronTopKROIs": "exact", "ExperimentalDetectronPriorGridGenerator": "rounded"},
    # -- sort (NMS): selected boxes and scores as NonMaxSuppression's (MatrixNms decays scores with exp)
    **dict.fromkeys(("MatrixNms", "MulticlassNms", "NMSRotated"), "transcendental"),
    # -- opset completion: colour conversion as NV12toRGB's; binary convolution counts matching bits (exact);
    # string tensors are compared by value
    **dict.fromkeys(("RGBtoNV12", "BGRtoNV12"), "accumulating"),
    **dict.fromkeys(("BinaryConvolution", "StringTensorPack", "StringTensorUnpack"), "exact"),
    # -- control flow: a body's ops run once per iteration, their errors add up across iterations
    **dict.fromkeys(("If", "Loop", "TensorIterator"), "accumulating"),
    # -- end of families
}
FALLBACK_CLASS: Final = "transcendental"


#: Op types whose output is samples of a categorical distribution: devices are checked with
#: :func:`ovconform.categorical.compare_samples`, not by value (their OP_CLASSES entry is the exact
#: class, what REFERENCE gives against itself).
CATEGORICAL_OPS: Final = frozenset({"Multinomial"})


def is_categorical(op_type: str) -> bool:
    """True when ``op_type``'s output is samples of a categorical distribution (:data:`CATEGORICAL_OPS`)."""
    return _canonical(op_type) in CATEGORICAL_OPS


#: Ops whose every output element is a sum of products of input elements with non-negative
#: coefficients, so the op applied to the inputs' absolute values gives S = Σ|terms| for
#: :func:`conditioned_tolerance` (integer inputs such as axes and indices are left as they are).
CONDITIONED_OPS: Final = frozenset({
    "MatMul", "Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData",
    "ReduceSum", "ReduceMean", "ReduceL1", "AvgPool", "AdaptiveAvgPool", "CumSum", "Einsum",
    "EmbeddingBagOffsetsSum", "EmbeddingBagPackedSum", "EmbeddingSegmentsSum", "EmbeddingBagOffsets",
    "EmbeddingBagPacked", "GroupedMatMul",
})


def is_conditioned(op_type: str) -> bool:
    """True when ``op_type`` is in :data:`CONDITIONED_OPS` (its tolerance can use S = Σ|terms|)."""
    return _canonical(op_type) in CONDITIONED_OPS


#: Ops with an error model of their own, whose comparison is given S from
#: :func:`attention_magnitude` (not the op on the inputs' magnitudes): see :func:`attention_tolerance`.
ATTENTION_OPS: Final = frozenset({"ScaledDotProductAttention"})


def is_attention(op_type: str) -> bool:
    """True when ``op_type`` is in :data:`ATTENTION_OPS` (its S comes from :func:`attention_magnitude`)."""
    return _canonical(op_type) in ATTENTION_OPS


def _float_default(cls: str, eps: float, tiny: float, k: int) -> Tolerance:
    if cls == "exact":
        return EXACT
    if cls == "rounded":
        return Tolerance(tiny, 2 * eps, ulp=2)
    if cls == "remainder":
        return Tolerance(8 * eps * MAGNITUDE, 2 * eps, ulp=2)
    if cls == "composite":
        return Tolerance(4 * eps * MAGNITUDE, 8 * eps, ulp=8)
    if cls == "softmax":
        return Tolerance(8 * eps, 8 * eps + 2 * eps * math.sqrt(k))
    if cls == "accumulating":
        return Tolerance(eps * k * MAGNITUDE, 4 * eps * math.sqrt(k))
    return Tolerance(8 * eps, 8 * eps, ulp=8)


def execution_type(element_type: TypeLike, precision: TypeLike | None) -> Type:
    """The type whose rounding an output of ``element_type`` carries on a device that computes
    in ``precision`` (its INFERENCE_PRECISION_HINT): the hint applies to f32 values, as in
    OpenVINO, so an f32 output of an f16 or bf16 device carries that type's rounding; any other
    element type (f64, f16, bf16, integers), a finer precision or None leaves ``element_type``."""
    et = as_type(element_type)
    if precision is None or et != Type.f32:
        return et
    p = as_type(precision)
    if not p.is_real() or EPSILON.get(p.name, 0.0) <= EPSILON[et.name]:
        return et
    return p


def _reduced(element_type: TypeLike, precision: TypeLike | None) -> tuple[Type, bool]:
    et = as_type(element_type)
    ex = execution_type(et, precision)
    return ex, ex != et


def default_tolerance(op_type: str, element_type: TypeLike, version: int | None = None, *,
                      reduction_size: int | None = None, precision: TypeLike | None = None) -> Tolerance:
    """The default tolerance for an output of ``op_type`` with ``element_type``.

    :param op_type: the op producing the output (``"Softmax"``; ``"SoftMax"``/``"ReLU"`` spellings too).
    :param element_type: a :class:`~ovconform.ir.Type` or a type name (``"f32"``) or numpy dtype.
    :param version: the op version (no default depends on it today; kept for the table's key).
    :param reduction_size: K for softmax and accumulating ops (:func:`reduction_size`);
        :data:`DEFAULT_REDUCTION_SIZE` when None.
    :param precision: the device's execution precision (INFERENCE_PRECISION_HINT); a coarser one
        than ``element_type`` sets ``e`` and ``tiny`` (:func:`execution_type`) and drops ``ulp``.
    :return: ``Tolerance(0, 0)`` for integer and boolean types; the class formula for floats.
    """
    del version
    et = as_type(element_type)
    if not et.is_real():
        return EXACT
    ex, reduced = _reduced(et, precision)
    k = DEFAULT_REDUCTION_SIZE if reduction_size is None else max(1, int(reduction_size))
    cls = OP_CLASSES.get(_canonical(op_type), FALLBACK_CLASS)
    tol = _float_default(cls, EPSILON.get(ex.name, EPSILON["f32"]), TINY.get(ex.name, TINY["f32"]), k)
    if _canonical(op_type) in INVERSE_SIGNAL_OPS:  # the sum of K terms, divided by K
        tol = replace(tol, atol=tol.atol / k)
    return replace(tol, ulp=None) if reduced else tol


def conditioned_tolerance(element_type: TypeLike, reduction_size: int | None = None, *,
                          precision: TypeLike | None = None) -> Tolerance:
    """``(tiny, 2e, ctol=2e·√K)`` for an op of :data:`CONDITIONED_OPS` whose comparison is given
    S = Σ|terms| (see the module docstring); exact for integer and boolean outputs.

    :param element_type: the output's element type.
    :param reduction_size: K, the terms per output element (:data:`DEFAULT_REDUCTION_SIZE` when None).
    :param precision: the device's execution precision (as for :func:`default_tolerance`).
    """
    et = as_type(element_type)
    if not et.is_real():
        return EXACT
    ex = execution_type(et, precision)
    eps, tiny = EPSILON.get(ex.name, EPSILON["f32"]), TINY.get(ex.name, TINY["f32"])
    k = DEFAULT_REDUCTION_SIZE if reduction_size is None else max(1, int(reduction_size))
    return Tolerance(tiny, 2 * eps, None, 2 * eps * math.sqrt(k))


#: Relative error of one computed exponential in units of ``e`` (a correctly rounded exp is within
#: e/2; an f16/bf16 kernel's polynomial within about 1 ulp more), a term of :func:`attention_magnitude`.
EXP_ERROR: Final = 2.0


def attention_tolerance(element_type: TypeLike, *, precision: TypeLike | None = None) -> Tolerance:
    """``(tiny, 2e, ctol=e)`` for ScaledDotProductAttention whose comparison is given
    S = :func:`attention_magnitude` (the first-order error in units of ``e``; see there), ``e`` and
    ``tiny`` those of the execution type (:func:`execution_type`); exact for integer outputs."""
    et = as_type(element_type)
    if not et.is_real():
        return EXACT
    ex = execution_type(et, precision)
    eps, tiny = EPSILON.get(ex.name, EPSILON["f32"]), TINY.get(ex.name, TINY["f32"])
    return Tolerance(tiny, 2 * eps, None, eps)


#: Elements of the largest temporary :func:`attention_magnitude` builds (it works in blocks of query rows).
_ATTENTION_BLOCK: Final = 1 << 22


def attention_magnitude(query: npt.ArrayLike, key: npt.ArrayLike, value: npt.ArrayLike,
                        attention_mask: npt.ArrayLike | None = None, scale: float | None = None,
                        causal: bool = False) -> np.ndarray:
    """S per output element of ScaledDotProductAttention-13 (``softmax(Q·Kᵀ·scale + mask)·V``): its
    error bound in units of the execution precision's ``e`` (:func:`attention_tolerance`).

    The error model, for a device computing every step in precision ``p`` (``u = e/2`` its unit
    roundoff, sums of K terms within the probabilistic bound λ√K·u·Σ|terms| with λ = 4, as
    :func:`conditioned_tolerance`); rounding of the inputs themselves is the ``alternate`` oracle's
    business, not this bound's:

    * **logits** ``l_j = scale·Σ_d q_d·k_jd + mask_j``: the QKᵀ product accumulates over the head
      size ``E``, so ``|δl_j| <= e·((2√E + 2)·A_j + |mask_j|)`` with ``A_j = |scale|·Σ_d |q_d|·|k_jd|``
      (the accumulation, the scaling, the mask's addition and the rounding of ``l_j - max l``);
      the exponential adds :data:`EXP_ERROR`·e, as a perturbation of ``l_j`` would. Call the sum ``e·m_j``.
    * **softmax** of perturbed logits: ``w'_j = w_j·exp(δ_j) / Σ_k w_k·exp(δ_k)`` moves the output by
      ``Σ_j (w'_j - w_j)·(v_j - out)`` (the weights sum to one either way), to first order at most
      ``e·Σ_j w_j·(m_j + m̄)·|v_j - out|`` with ``m̄ = Σ_k w_k·m_k``: a weight's error matters only as
      far as its value differs from the output, and a key masked out (``w_j = 0``) not at all.
    * **normaliser and PV**: the sum of the exponentials over the ``S`` keys (relative
      ``2e√S``), the division (``e/2``) and the PV product, which accumulates over the keys
      (``2e√S·Σ_j w_j·|v_j|``): at most ``e·(4√S + 2)·Σ_j w_j·|v_j|``.

    So ``S = Σ_j w_j·(m_j + m̄)·|v_j - out| + (4√S + 2)·Σ_j w_j·|v_j|`` <= ``(4·max m + 4√S + 2)·max|V|``:
    bounded by the values, never by a fixed magnitude, and growing with the logits' conditioning.
    The output's own rounding is the tolerance's ``2e·|expected|``. First order: when ``e·m`` nears
    1 (f16 logits in the hundreds) the bound exceeds ``2·max|V|`` and can no longer fail, as the
    precision can say nothing then. A row masked everywhere (NaN output) gets 0.

    :param query: ``[..., L, E]`` values (float; bf16 given as float values).
    :param key: ``[..., S, E]``.
    :param value: ``[..., S, Ev]``.
    :param attention_mask: a boolean mask (False: masked out) or float values added to the logits
        (broadcastable to ``[..., L, S]``); ignored when ``causal``.
    :param scale: the logits' scale (``1/√E`` when None).
    :param causal: mask the keys past each query's position.
    :return: S, float64, of the output's shape ``[..., L, Ev]``.
    """
    q, k, v = (np.asarray(a, np.float64) for a in (query, key, value))
    head, keys, length = q.shape[-1], k.shape[-2], q.shape[-2]
    factor = 1.0 / math.sqrt(head) if scale is None else float(scale)
    kt = np.swapaxes(k, -1, -2)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        logits = np.matmul(q, kt) * factor
        terms = np.matmul(np.abs(q), np.abs(kt)) * abs(factor)
        bias: np.ndarray | float = 0.0
        if causal:
            bias = np.triu(np.full((length, keys), -np.inf), k=1)
        elif attention_mask is not None:
            mask = np.asarray(attention_mask)
            bias = np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64)
        logits = logits + bias
        peak = np.max(logits, axis=-1, keepdims=True)
        weights = np.exp(logits - peak)
        weights = weights / np.sum(weights, axis=-1, keepdims=True)
        weights = np.where(np.isfinite(weights), weights, 0.0)
        added = np.abs(np.asarray(bias, np.float64))
        per_logit = (2 * math.sqrt(head) + 2) * terms + np.where(np.isfinite(added), added, 0.0) + EXP_ERROR
        per_logit = np.where(weights > 0, per_logit, 0.0)
        mean = np.sum(weights * per_logit, axis=-1, keepdims=True)
        out = np.matmul(weights, v)
        coef = weights * (per_logit + mean)
        spread = np.zeros(np.broadcast_shapes(coef.shape[:-1] + (1,), out.shape))
        per_row = max(1, math.prod(spread.shape) // max(1, length) * keys)
        block = max(1, _ATTENTION_BLOCK // per_row)
        for start in range(0, length, block):
            rows = slice(start, start + block)
            diff = np.abs(v[..., None, :, :] - out[..., rows, None, :])  # [..., rows, S, Ev]
            spread[..., rows, :] = np.sum(coef[..., rows, :, None] * diff, axis=-2)
        bound = spread + (4 * math.sqrt(keys) + 2) * np.matmul(weights, np.abs(v))
    return np.where(np.isfinite(bound), bound, 0.0)


def _canonical(op_type: str) -> str:
    return {"SoftMax": "Softmax", "ReLU": "Relu", "Const": "Constant"}.get(op_type, op_type)


def reduction_size(node: Node) -> int | None:
    """K, the number of terms each output element of ``node`` reduces (None when the op does not
    reduce or its shapes are not static): MatMul's (and GroupedMatMul's) inner dim, a convolution's
    weights volume per output channel, the reduced elements of ReduceSum/ReduceMean (all elements
    when the axes are not constant), AvgPool's kernel volume, Softmax's axis length
    (ReduceProd/L1/L2 and LogSoftmax likewise), the product of a DFT's (IDFT, RDFT, IRDFT)
    transformed lengths (its ``signal_size`` when given)."""
    def shape(i: int) -> list[int] | None:
        ps = node.get_input_partial_shape(i)
        return list(ps.to_shape()) if ps.is_static else None

    op = _canonical(node.type_name)
    data = shape(0) if node.get_input_size() else None
    if data is None:
        return None
    if op == "GroupedMatMul":  # mat_a [T, K] or [G, M, K]
        return data[-1]
    if op == "MatMul":
        if len(data) == 1:
            return data[0]
        return data[-2] if node.attrs.get("transpose_a") else data[-1]
    if op in ("Convolution", "GroupConvolution"):
        weights = shape(1)
        return None if weights is None else math.prod(weights[1 if op == "Convolution" else 2:])
    if op in ("ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2"):
        axes = constant_value(node.input_value(1))
        if axes is None:
            return math.prod(data)
        return math.prod(data[int(a)] for a in np.atleast_1d(axes)) if data else 1
    if op == "AvgPool":
        return math.prod(node.attrs["kernel"])
    if op in ("Softmax", "LogSoftmax"):
        return data[node.attrs["axis"]] if data else 1
    if op in SIGNAL_OPS:
        return _signal_length(node, op, data)
    return None


#: The discrete Fourier transforms: each output element sums the product of the transformed axes' lengths.
SIGNAL_OPS: Final = frozenset({"DFT", "IDFT", "RDFT", "IRDFT"})
#: The inverse transforms, which divide that sum by its length K: their absolute term is ``e·M``, not ``e·K·M``.
INVERSE_SIGNAL_OPS: Final = frozenset({"IDFT", "IRDFT"})


def _signal_length(node: Node, op: str, data: list[int]) -> int | None:
    """The terms per output element of a DFT-family op: the product of the transformed axes'
    signal lengths (``signal_size`` where given and not -1; IRDFT's last axis ``2·(n - 1)``)."""
    axes = constant_value(node.input_value(1))
    rank = len(data) if op == "RDFT" else len(data) - 1  # complex data ends in a dimension of 2
    if axes is None or rank < 1:
        return None
    lengths = [data[int(a) % rank] for a in np.atleast_1d(axes)]
    if op == "IRDFT" and lengths:
        lengths[-1] = 2 * (lengths[-1] - 1)
    if node.get_input_size() > 2:
        sizes = constant_value(node.input_value(2))
        if sizes is None:
            return None
        lengths = [n if int(s) == -1 else int(s) for n, s in zip(lengths, np.atleast_1d(sizes), strict=False)]
    return max(1, math.prod(lengths))


# -- overrides -------------------------------------------------------------------------------------------------

_FIELDS: Final = ("atol", "rtol", "ulp", "ctol")
_KEY = re.compile(r"^(?P<op>\*|[A-Za-z][A-Za-z0-9_]*)(?:-(?P<version>\d+))?(?::(?P<et>[A-Za-z0-9_]+))?$")


def apply_override(base: Tolerance, override: Mapping[str, Any] | None, source: str = "override") -> Tolerance:
    """``base`` with the fields of ``override`` (a hook result such as ``{"atol": 1e-4, "ulp": 4}``;
    any subset of atol/rtol/ulp) replaced; None gives ``base``.

    :raises ValidationError: naming ``source`` for an unknown key or a bad value.
    """
    if override is None:
        return base
    if not isinstance(override, Mapping):
        raise ValidationError(f"{source}: a tolerance override must be a mapping with keys {list(_FIELDS)}, "
                              f"not {type(override).__name__}.")
    unknown = sorted(str(k) for k in override if k not in _FIELDS)
    if unknown:
        raise ValidationError(f"{source}: unknown tolerance field(s) {unknown}; allowed: {list(_FIELDS)}.")
    try:
        return replace(base, **dict(override))
    except ValidationError as e:
        raise ValidationError(f"{source}: {e}") from e


@dataclass(frozen=True)
class Overrides:
    """Parsed override entries: ``(op or "*", version or None, element type name or None)`` → fields."""

    entries: Mapping[tuple[str, int | None, str | None], Mapping[str, Any]] = field(default_factory=dict)
    source: str = "<overrides>"

    def lookup(self, op_type: str, version: int | None, element_type: TypeLike) -> dict[str, Any]:
        """The merged fields that apply, most specific last (empty when none does)."""
        et, op = as_type(element_type).name, _canonical(op_type)
        merged: dict[str, Any] = {}
        versioned = version is not None
        keys = [("*", None, None), ("*", None, et), (op, None, None), *([(op, version, None)] if versioned else []),
                (op, None, et), *([(op, version, et)] if versioned else [])]
        for key in keys:
            merged.update(self.entries.get(key, {}))
        return merged

    def apply(self, base: Tolerance, op_type: str, version: int | None, element_type: TypeLike) -> Tolerance:
        fields = self.lookup(op_type, version, element_type)
        return apply_override(base, fields, self.source) if fields else base


def parse_overrides(data: Mapping[str, Any], source: str = "<overrides>") -> Overrides:
    """Overrides from an already-parsed document ``{"tolerances": {KEY: {atol/rtol/ulp...}}}``.

    :raises ValidationError: naming ``source`` and the bad key or value.
    """
    if not isinstance(data, Mapping) or set(data) != {"tolerances"}:
        got = sorted(data) if isinstance(data, Mapping) else type(data).__name__
        raise ValidationError(f"tolerance overrides {source}: the document must have exactly one top-level "
                              f"table 'tolerances'; got {got}.")
    table = data["tolerances"]
    if not isinstance(table, Mapping):
        raise ValidationError(f"tolerance overrides {source}: 'tolerances' must be a table of KEY = {{atol, rtol, "
                              f"ulp}}, not {type(table).__name__}.")
    entries: dict[tuple[str, int | None, str | None], Mapping[str, Any]] = {}
    for raw_key, fields in table.items():
        key = _parse_key(str(raw_key), source)
        where = f"tolerance overrides {source}: key {raw_key!r}"
        if key in entries:
            raise ValidationError(f"{where} repeats an earlier key.")
        apply_override(Tolerance(0.0, 0.0), fields, where)  # validates names and values
        entries[key] = dict(fields)
    return Overrides(entries, source)


def _parse_key(key: str, source: str) -> tuple[str, int | None, str | None]:
    m = _KEY.match(key)
    where = f"tolerance overrides {source}: key {key!r}"
    if not m or (m["op"] == "*" and m["version"]):
        raise ValidationError(f"{where} is not OP[-VERSION][:ELEMENT_TYPE] (e.g. 'Softmax', 'MatMul:f16', "
                              f"'Gelu-7:f32', '*:bf16'; '*' takes no version).")
    et = None
    if m["et"]:
        try:
            et = as_type(m["et"]).name
        except ValidationError as e:
            raise ValidationError(f"{where}: {e}") from None
    return _canonical(m["op"]), int(m["version"]) if m["version"] else None, et


def load_overrides(path: str | os.PathLike[str]) -> Overrides:
    """Read a ``.toml`` or ``.json`` overrides file (see the module docstring for the format).

    :raises ValidationError: naming the file for an unreadable file, a syntax error, an unknown
        extension, a bad key or a bad value.
    """
    p = Path(path)
    if p.suffix.lower() not in (".toml", ".json"):
        raise ValidationError(f"tolerance overrides file {str(p)!r}: unsupported extension {p.suffix!r}; "
                              f"use .toml or .json.")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValidationError(f"cannot read tolerance overrides file {str(p)!r}: {e}.") from e
    try:
        data = tomllib.loads(text) if p.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        kind = "TOML" if p.suffix.lower() == ".toml" else "JSON"
        raise ValidationError(f"tolerance overrides file {str(p)!r} is not valid {kind}: {e}.") from e
    return parse_overrides(data, repr(str(p)))


def resolve_tolerance(op_type: str, element_type: TypeLike, version: int | None = None, *,
                      reduction_size: int | None = None, hook_result: Mapping[str, Any] | None = None,
                      overrides: Overrides | None = None, precision: TypeLike | None = None,
                      conditioned: bool = False) -> Tolerance:
    """The tolerance to use: the default (when ``conditioned``, for a comparison that will be given
    S: :func:`attention_tolerance` for :data:`ATTENTION_OPS`, else :func:`conditioned_tolerance`),
    then the device hook's result, then the user's file."""
    if conditioned and is_attention(op_type):
        tol = attention_tolerance(element_type, precision=precision)
    elif conditioned:
        tol = conditioned_tolerance(element_type, reduction_size, precision=precision)
    else:
        tol = default_tolerance(op_type, element_type, version, reduction_size=reduction_size, precision=precision)
    tol = apply_override(tol, hook_result, f"ovconform_get_tolerance({op_type!r}, {element_type!s})")
    return overrides.apply(tol, op_type, version, element_type) if overrides else tol


# -- comparing -------------------------------------------------------------------------------------------------

def _json_float(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


@dataclass(frozen=True)
class Comparison:
    """The outcome of :func:`compare`. Errors are over the elements where both values are finite;
    a NaN or infinity mismatch counts as an infinite error. ``worst_index`` is the mismatching
    element with the largest error (any element when all match; None for empty or ill-shaped)."""

    passed: bool
    message: str
    tolerance: Tolerance
    element_type: str
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    max_ulp_err: int | None = None
    worst_index: tuple[int, ...] | None = None
    mismatch_count: int = 0
    size: int = 0
    #: The achieved error as a fraction of the allowed one, worst element (floats with a non-zero
    #: bound; above 1 fails unless that element is within ``ulp``); None otherwise.
    error_to_bound: float | None = None

    def __bool__(self) -> bool:
        return self.passed

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (non-finite errors as the strings ``"inf"``/``"nan"``; ``error_to_bound``
        when it is set)."""
        out = {"passed": self.passed, "message": self.message, "tolerance": self.tolerance.to_dict(),
               "element_type": self.element_type, "max_abs_err": _json_float(self.max_abs_err),
               "max_rel_err": _json_float(self.max_rel_err), "max_ulp_err": self.max_ulp_err,
               "worst_index": None if self.worst_index is None else list(self.worst_index),
               "mismatch_count": self.mismatch_count, "size": self.size}
        if self.error_to_bound is not None:
            out["error_to_bound"] = self.error_to_bound
        return out


_ULP_VIEW: Final[dict[str, type[np.signedinteger[Any]]]] = {"f64": np.int64, "f32": np.int32, "f16": np.int16,
                                                            "bf16": np.int16}


def ulp_distance(actual: np.ndarray, expected: np.ndarray, element_type: TypeLike) -> np.ndarray:
    """Units in the last place between two arrays stored as ``element_type`` (bf16 as uint16),
    as int64 (0 between -0.0 and +0.0; meaningless where either is NaN)."""
    et = as_type(element_type)
    view = _ULP_VIEW[et.name]
    bits = [np.ascontiguousarray(a).view(view).astype(np.int64) for a in (actual, expected)]
    lowest = int(np.iinfo(view).min)
    keys = [np.where(b < 0, lowest - b, b) for b in bits]
    return np.abs(keys[0] - keys[1])


def _values(arr: np.ndarray, et: Type) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # NaN of an f8 (ml_dtypes) array: NaN in float64, not a warning
        return bf16_to_f32(arr).astype(np.float64) if et.name == "bf16" else arr.astype(np.float64)


def _fmt_index(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"


def _fmt_value(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return f"{float(value):.8g}"


#: Ops whose float outputs are input elements moved, not computed: a device must copy their bits,
#: the payload of a NaN and the sign of a zero included (:func:`compare`'s ``bits``). Select picks
#: each element from one input by its condition, Pad copies the data and its pad value. Max/Min-like
#: ops, Relu, Clamp, pooling and sorting (TopK) are exact too but may pick either of two equal zeros.
COPYING_OPS: Final = frozenset({
    "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Split", "VariadicSplit", "Gather",
    "GatherElements", "GatherND", "Broadcast", "StridedSlice", "Slice", "Tile", "Roll", "Reverse",
    "ReverseSequence", "DepthToSpace", "SpaceToDepth", "BatchToSpace", "SpaceToBatch", "ShuffleChannels",
    "Identity", "SliceScatter", "ScatterUpdate", "Select", "Pad",
})


def copies_bits(op_type: str) -> bool:
    """Whether ``op_type``'s float outputs must be bit copies of its inputs (:data:`COPYING_OPS`)."""
    return _canonical(op_type) in COPYING_OPS


def compare(actual: npt.ArrayLike, expected: npt.ArrayLike, tol: Tolerance,
            element_type: TypeLike | None = None, *, alternate: npt.ArrayLike | None = None,
            magnitude: npt.ArrayLike | None = None, bits: bool = False) -> Comparison:
    """Compare ``actual`` with ``expected`` elementwise under ``tol``.

    :param actual: the device's output (a numpy array or array-like).
    :param expected: the oracle's output.
    :param tol: the tolerance (see the module docstring for the matching rule).
    :param element_type: the output's element type; needed for bf16 (stored as uint16), else taken
        from ``expected``'s dtype.
    :param alternate: a second oracle output of the same shape and dtype (from inputs rounded to a
        device's coarser execution precision): an element matches when it is within tolerance of
        the interval between the two expected values (NaN/±inf: when it matches either).
    :param magnitude: S per element (broadcastable to ``expected``), the sum of the magnitudes of the
        terms an output element adds up; ``tol.ctol·S`` joins the bound when both are given.
    :param bits: the output is copied, not computed (:func:`copies_bits`): with an exact tolerance
        and no ``alternate``, a float element must also have the expected bits (a NaN's payload and
        sign, the sign of a zero), which a comparison of values cannot see.
    :return: a :class:`Comparison`; a shape mismatch is reported first, then a dtype mismatch, then
        a boolean held as a byte other than 0 and 1 (:func:`bool_byte_error`: the byte and where), then
        values (``"max abs err 3.1e-04 at [0, 2] (got 1.2, expected 1.5) > atol ..."``).
    :raises ValidationError: when ``alternate`` does not have ``expected``'s shape and dtype.
    """
    a, e = np.asarray(actual), np.asarray(expected)
    et = as_type(element_type) if element_type is not None else as_type(e.dtype)
    alt = None if alternate is None else np.asarray(alternate)
    if alt is not None and (alt.shape != e.shape or alt.dtype != e.dtype):
        raise ValidationError(f"compare(): the alternate expected value has shape {list(alt.shape)} and dtype "
                              f"{alt.dtype}; it must match expected's {list(e.shape)} and {e.dtype}.")
    base: dict[str, Any] = {"tolerance": tol, "element_type": et.name, "size": int(e.size)}
    if a.shape != e.shape:
        return Comparison(False, f"shape mismatch: got {list(a.shape)}, expected {list(e.shape)}", **base)
    if a.dtype != e.dtype:
        return Comparison(False, f"dtype mismatch: got {a.dtype}, expected {e.dtype}", **base)
    if e.size == 0:
        return Comparison(True, "no elements to compare", **base)
    if a.dtype == np.bool_:
        byte = bool_byte_error(a)
        if byte is not None:
            return Comparison(False, byte[0], worst_index=byte[1], mismatch_count=byte[2], **base)
    if et.name == "string":  # str values: equal or not
        bad = np.asarray(a != e, dtype=bool).reshape(e.shape)
        if not bad.any():
            return Comparison(True, "all strings equal", **base)
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        return Comparison(False, f"{int(bad.sum())} of {e.size} strings differ; first at {list(where)}: got "
                                 f"{a[where]!r}, expected {e[where]!r}", worst_index=where,
                          mismatch_count=int(bad.sum()), **base)
    if et.is_real():
        scale = None
        if magnitude is not None and tol.ctol:
            scale = np.broadcast_to(np.abs(_values(np.asarray(magnitude), et)), e.shape)
        result = _compare_floats(a, e, tol, et, base, alt, scale)
        if bits and result.passed and tol.exact and alt is None and et.name in _ULP_VIEW:
            return _compare_bits(a, e, et, result)
        return result
    return _compare_integers(a, e, tol, base, alt)


def bool_byte_error(a: np.ndarray) -> tuple[str, tuple[int, ...], int] | None:
    """(message, first index, count) when a boolean array holds bytes other than 0 and 1 (a
    vector compare mask's 0xFF stored as is): numpy, like C++ code reading ``bool``, may take such a
    byte as true in one place and as a value != 1 in another, so a boolean must be the byte 0 or 1."""
    raw = np.ascontiguousarray(a).view(np.uint8).reshape(a.shape)
    bad = raw > 1
    count = int(np.count_nonzero(bad))
    if not count:
        return None
    where = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), a.shape))
    return (f"boolean stored as the byte 0x{int(raw[where]):02x} at {_fmt_index(where)}; a boolean element must be "
            f"the byte 0x00 (false) or 0x01 (true); {count} of {a.size} element(s) hold other bytes", where, count)


def _compare_bits(a: np.ndarray, e: np.ndarray, et: Type, matched: Comparison) -> Comparison:
    """``matched`` (equal values) unless some element's bits differ: a NaN with another payload or
    sign, or a zero of the other sign."""
    view = _ULP_VIEW[et.name]
    unsigned = np.dtype(f"u{np.dtype(view).itemsize}")
    got, want = (np.ascontiguousarray(x).view(unsigned).reshape(e.shape) for x in (a, e))
    differ = got != want
    count = int(np.count_nonzero(differ))
    if not count:
        return matched
    where = tuple(int(i) for i in np.unravel_index(int(np.argmax(differ)), e.shape))
    width = 2 * unsigned.itemsize
    message = (f"bits differ at {_fmt_index(where)} (got 0x{int(got[where]):0{width}x}, expected "
               f"0x{int(want[where]):0{width}x}: {_fmt_value(_values(a, et)[where])} for "
               f"{_fmt_value(_values(e, et)[where])}); a copy must move every bit, a NaN's payload and the sign of "
               f"a zero included; {count} of {e.size} element(s) differ")
    return replace(matched, passed=False, message=message, worst_index=where, mismatch_count=count)


def _compare_integers(a: np.ndarray, e: np.ndarray, tol: Tolerance, base: dict[str, Any],
                      alt: np.ndarray | None = None) -> Comparison:
    av, ev = a.astype(np.float64), e.astype(np.float64)
    diff = np.abs(av - ev)
    bad = (a != e) if tol.atol == 0 and tol.rtol == 0 else diff > tol.atol + tol.rtol * np.abs(ev)
    if alt is not None:  # the other oracle value is as good
        alt_diff = np.abs(av - alt.astype(np.float64))
        bad &= (a != alt) if tol.atol == 0 and tol.rtol == 0 else alt_diff > tol.atol + tol.rtol * np.abs(ev)
        diff = np.minimum(diff, alt_diff)
    rel = np.divide(diff, np.abs(ev), out=np.where(diff > 0, np.inf, 0.0), where=ev != 0)
    return _finish(a, e, _Errors(bad, diff, rel, None, np.zeros(a.shape, bool)), tol, base)


@dataclass(frozen=True)
class _Errors:
    bad: np.ndarray
    diff: np.ndarray
    rel: np.ndarray
    ulps: np.ndarray | None
    special: np.ndarray  # a NaN or infinity that does not match


def _special_mismatch(av: np.ndarray, ev: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(both finite, a NaN or infinity that does not match) per element."""
    nan_a, nan_e = np.isnan(av), np.isnan(ev)
    finite = np.isfinite(av) & np.isfinite(ev)
    return finite, (nan_a != nan_e) | (~finite & ~(nan_a & nan_e) & (av != ev))


def _compare_floats(a: np.ndarray, e: np.ndarray, tol: Tolerance, et: Type, base: dict[str, Any],
                    alt: np.ndarray | None = None, scale: np.ndarray | None = None) -> Comparison:
    av, ev = _values(a, et), _values(e, et)
    finite, special = _special_mismatch(av, ev)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.where(finite, np.abs(av - ev), np.where(special, np.inf, 0.0))
        bound_ref = np.abs(np.where(finite, ev, 0.0))
        ulps = np.where(finite, ulp_distance(a, e, et), 0) if et.name in _ULP_VIEW else None
        if alt is not None:  # anything within tolerance of the interval between the two oracle values
            xv = _values(alt, et)
            finite_x, special_x = _special_mismatch(av, xv)
            both = finite & finite_x
            lo, hi = np.minimum(ev, xv), np.maximum(ev, xv)
            inside = np.where(av < lo, lo - av, np.where(av > hi, av - hi, 0.0))
            diff_x = np.where(finite_x, np.abs(av - xv), np.where(special_x, np.inf, 0.0))
            diff = np.where(both, inside, np.minimum(diff, diff_x))
            bound_ref = np.maximum(bound_ref, np.abs(np.where(finite_x, xv, 0.0)))
            finite, special = finite | finite_x, special & special_x
            if ulps is not None:
                ulps = np.minimum(ulps, np.where(finite_x, ulp_distance(a, alt, et), 0))
        rel = np.where(finite & (ev != 0), diff / np.abs(ev), np.where(diff > 0, np.inf, 0.0))
        allowed = tol.atol + tol.rtol * bound_ref
        if scale is not None and tol.ctol:
            allowed = allowed + tol.ctol * np.where(np.isfinite(scale), scale, 0.0)
    within = diff <= allowed
    if tol.ulp and ulps is not None:
        within |= ulps <= tol.ulp
    bad = special | (finite & ~within)
    ratio = None
    if not tol.exact and finite.any():
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(finite, diff / np.where(allowed > 0, allowed, np.inf), 0.0)
        ratio = float(np.max(share)) if np.isfinite(share).all() else None
    base = {**base, "error_to_bound": ratio}
    return _finish(av, ev, _Errors(bad, diff, rel, ulps, special), tol, base)


def _finish(a: np.ndarray, e: np.ndarray, err: _Errors, tol: Tolerance, base: dict[str, Any]) -> Comparison:
    count, size = int(np.count_nonzero(err.bad)), int(e.size)
    flat = int(np.argmax(np.where(err.bad, err.diff, -1.0) if count else err.diff))
    worst = tuple(int(i) for i in np.unravel_index(flat, e.shape))
    max_abs, max_rel = float(np.max(err.diff)), float(np.max(err.rel))
    max_ulp = int(np.max(err.ulps)) if err.ulps is not None else None
    where = f"at {_fmt_index(worst)} (got {_fmt_value(a.ravel()[flat])}, expected {_fmt_value(e.ravel()[flat])})"
    worst_err = float(err.diff.ravel()[flat])
    integral = a.dtype.kind in "iub"
    if integral:  # exact, even where float64 cannot hold the difference
        worst_err = float(abs(int(a.ravel()[flat]) - int(e.ravel()[flat])))
        max_abs = max(max_abs, worst_err)
    err_text = str(int(worst_err)) if integral else f"{worst_err:.2g}"
    if err.special.ravel()[flat]:
        kind = "NaN" if np.isnan(a.ravel()[flat]) or np.isnan(e.ravel()[flat]) else "inf"
        message = f"{kind} mismatch {where}: NaN and ±inf must match exactly"
    elif count == 0 and max_abs == 0:
        message = f"all {size} element(s) equal"
    else:
        message = f"{'max abs err' if worst_err == max_abs else 'abs err'} {err_text} {where}"
        if count and tol.exact:
            message += ", exact match required"
        elif count:
            ulp_note = f" ({err.ulps.ravel()[flat]} ulp)" if tol.ulp and err.ulps is not None else ""
            message += f" > {tol.describe()}{ulp_note}"
        else:
            message += f" <= {tol.describe()}"
    message += f"; {count} of {size} element(s) out of tolerance" if count else \
        ("" if max_abs == 0 else f"; all {size} element(s) within tolerance")
    return Comparison(count == 0, message, max_abs_err=max_abs, max_rel_err=max_rel, max_ulp_err=max_ulp,
                      worst_index=worst, mismatch_count=count, **base)


# -- models ----------------------------------------------------------------------------------------------------

#: λ, the safety factor of the model error model (:func:`model_error_units`), calibrated on the quick
#: architectures: correct f16/bf16 devices reach at most 0.7 of the bound, OpenVINO CPU (f32) 0.3.
MODEL_ERROR_FACTOR: Final = 1.5
#: The op classes (:data:`OP_CLASSES`) that make a layer of the model error model, with :data:`ATTENTION_OPS`.
MODEL_LAYER_CLASSES: Final = frozenset({"accumulating", "softmax"})


def is_model_layer(op_type: str) -> bool:
    """True when ``op_type`` counts as an accumulating layer of the model error model (MatMul,
    convolutions, reductions, normalisations, Softmax, attention, recurrent cells, ...)."""
    op = _canonical(op_type)
    return OP_CLASSES.get(op) in MODEL_LAYER_CLASSES or op in ATTENTION_OPS


def model_layer_term(reduction: int, precision: TypeLike | None = None) -> float:
    """ρ, the error one accumulating layer of ``reduction`` (K) terms adds, in units of the execution
    precision's ``e``: ``1 + √K·e_f32 / (2·e_p)`` — the rounding of the layer's values to the
    execution precision ``p`` (one ``e``, the layer's inputs, weights and result together) plus
    the probabilistic error of a length-K sum in f32 accumulators (``√K·u``, u = e_f32/2)."""
    ex = execution_type(Type.f32, precision)
    e = EPSILON.get(ex.name, EPSILON["f32"])
    return 1.0 + math.sqrt(max(1, int(reduction))) * EPSILON["f32"] / (2 * e)


def model_error_units(terms: list[float] | tuple[float, ...]) -> float:
    """B = λ·√(1 + Σ ρᵢ²), the model output's error bound in units of ``e``, from the terms ρᵢ
    (:func:`model_layer_term`) of the accumulating layers on its deepest path (see :func:`model_tolerance`)."""
    return MODEL_ERROR_FACTOR * math.sqrt(1.0 + sum(t * t for t in terms))


def model_tolerance(units: float, element_type: TypeLike, precision: TypeLike | None = None,
                    scale: float = 0.0) -> Tolerance:
    """The tolerance of one output of a whole model at one step: ``(tiny + B·e·scale, B·e)``.

    The error model: every accumulating layer (:func:`is_model_layer`) on the path from the
    inputs to the output adds an error ρᵢ·e relative to its values' magnitude
    (:func:`model_layer_term`: the rounding to the execution precision, and the accumulation of
    its K terms in f32); the elementwise ops between layers are counted with their layer.
    Normalisations keep errors relative, so an error carries to the output at about its relative
    size, and the rounding errors of different layers are independent: they add as a root sum of
    squares, B = λ·√(1 + Σ ρᵢ²) (:func:`model_error_units`, over the path with the largest sum,
    λ = :data:`MODEL_ERROR_FACTOR`). The bound is normwise: ``|actual - expected| <= tiny +
    B·e·(|expected| + scale)``, ``scale`` the output's RMS at that step (an element near zero
    carries the error of its neighbours' magnitude).

    ``e`` and ``tiny`` are the execution type's (:func:`execution_type`: an f32 output of a device
    declaring INFERENCE_PRECISION_HINT f16/bf16 is judged by f16/bf16). The accumulators are
    assumed f32 (what OpenVINO's CPU does at bf16 and f16): a device that keeps running sums in
    its execution precision exceeds the bound on long reductions, as one that loses precision in
    a layer or in its state does; a device that means to may widen its bound with the
    ``ovconform_get_tolerance(op_type="*model*")`` hook. Exact for integer and boolean outputs.

    :param units: B (:func:`model_error_units`).
    :param element_type: the output's element type.
    :param precision: the device's execution precision (INFERENCE_PRECISION_HINT), or None.
    :param scale: the RMS of the expected output at this step.
    """
    et = as_type(element_type)
    if not et.is_real():
        return EXACT
    ex = execution_type(et, precision)
    eps, tiny = EPSILON.get(ex.name, EPSILON["f32"]), TINY.get(ex.name, TINY["f32"])
    safe_scale = float(scale) if math.isfinite(scale) and scale > 0 else 0.0
    return Tolerance(tiny + units * eps * safe_scale, units * eps)
