"""Which family each op type belongs to: the folder of OpenVINO's operation specification that
holds its page (data).

OpenVINO files every op specification under
``docs/articles_en/documentation/openvino-ir-format/operation-sets/operation-specs/<family>/``
(``activation/softmax-8.rst``, ``image/interpolate-11.rst``, ...). The builders
(``ovconform/opset/_<family>.py``), the case strategies (``ovconform/opcases/_<family>.py``) and the
op tests (``tests/ops/test_<family>.py``) are split by the same families, so Softmax is found under
activation and Interpolate under image. Where OpenVINO files an op twice (StringTensorPack and
StringTensorUnpack are in both ``movement`` and ``type``), the family is the one the index page
``operation-specs.rst`` links.
"""

from __future__ import annotations

from typing import Final

from ovconform.errors import NotFoundError, UnsupportedOpError

#: The folders of ``operation-specs/`` (without ``internal``, whose ops are in no opset).
FAMILIES: Final[tuple[str, ...]] = (
    "activation", "arithmetic", "bitwise", "comparison", "condition", "convolution", "detection", "generation",
    "image", "infrastructure", "logical", "matrix", "movement", "normalization", "pooling", "quantization",
    "reduction", "sequence", "shape", "signals", "sort", "sparse", "type",
)

_MEMBERS: Final[dict[str, tuple[str, ...]]] = {
    "activation": ("Clamp", "Elu", "Exp", "Gelu", "HSigmoid", "HSwish", "HardSigmoid", "Identity", "LogSoftmax",
                   "Mish", "PRelu", "Relu", "Selu", "Sigmoid", "SoftPlus", "SoftSign", "Softmax", "Swish"),
    "arithmetic": ("Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "Ceiling", "Cos", "Cosh",
                   "CumSum", "Divide", "Erf", "ErfInv", "Floor", "FloorMod", "Log", "Maximum", "Minimum", "Mod",
                   "Multiply", "Negative", "Power", "Round", "SegmentMax", "Sign", "Sin", "Sinh", "Sqrt",
                   "SquaredDifference", "Subtract", "Tan", "Tanh"),
    "bitwise": ("BitwiseAnd", "BitwiseLeftShift", "BitwiseNot", "BitwiseOr", "BitwiseRightShift", "BitwiseXor"),
    "comparison": ("Equal", "Greater", "GreaterEqual", "IsFinite", "IsInf", "IsNaN", "Less", "LessEqual",
                   "NotEqual"),
    "condition": ("Bucketize", "If", "NonZero", "Select"),
    "convolution": ("BinaryConvolution", "Convolution", "ConvolutionBackpropData", "DeformableConvolution",
                    "GroupConvolution", "GroupConvolutionBackpropData"),
    "detection": ("DeformablePSROIPooling", "DetectionOutput", "ExperimentalDetectronDetectionOutput",
                  "ExperimentalDetectronGenerateProposalsSingleImage", "ExperimentalDetectronPriorGridGenerator",
                  "ExperimentalDetectronROIFeatureExtractor", "GenerateProposals", "PSROIPooling", "PriorBox",
                  "PriorBoxClustered", "Proposal", "ROIAlign", "ROIAlignRotated", "ROIPooling", "RegionYolo",
                  "ReorgYolo"),
    "generation": ("Eye", "Multinomial", "RandomUniform", "Range"),
    "image": ("BGRtoNV12", "GridSample", "I420toBGR", "I420toRGB", "Interpolate", "NV12toBGR", "NV12toRGB",
              "RGBtoNV12"),
    "infrastructure": ("Assign", "Constant", "Loop", "Parameter", "ReadValue", "Result", "TensorIterator"),
    "logical": ("LogicalAnd", "LogicalNot", "LogicalOr", "LogicalXor", "Xor"),
    "matrix": ("Einsum", "GroupedMatMul", "Inverse", "MatMul"),
    "movement": ("BatchToSpace", "Broadcast", "Col2Im", "Concat", "DepthToSpace", "ExtractImagePatches", "Gather",
                 "GatherElements", "GatherND", "GatherTree", "Pad", "Reverse", "ReverseSequence", "Roll",
                 "ScatterElementsUpdate", "ScatterNDUpdate", "ScatterUpdate", "ShuffleChannels", "Slice",
                 "SliceScatter", "SpaceToBatch", "SpaceToDepth", "Split", "StridedSlice", "Tile", "Transpose",
                 "Unique", "VariadicSplit"),
    "normalization": ("BatchNormInference", "GRN", "GroupNormalization", "LRN", "MVN", "NormalizeL2"),
    "pooling": ("AdaptiveAvgPool", "AdaptiveMaxPool", "AvgPool", "MaxPool"),
    "quantization": ("FakeConvert", "FakeQuantize"),
    "reduction": ("ReduceL1", "ReduceL2", "ReduceLogicalAnd", "ReduceLogicalOr", "ReduceMax", "ReduceMean",
                  "ReduceMin", "ReduceProd", "ReduceSum"),
    "sequence": ("CTCGreedyDecoder", "CTCGreedyDecoderSeqLen", "CTCLoss", "GRUCell", "GRUSequence", "LSTMCell",
                 "LSTMSequence", "OneHot", "RNNCell", "RNNSequence", "ScaledDotProductAttention"),
    "shape": ("Reshape", "ShapeOf", "Squeeze", "Unsqueeze"),
    "signals": ("DFT", "IDFT", "IRDFT", "ISTFT", "RDFT", "STFT"),
    "sort": ("ExperimentalDetectronTopKROIs", "MatrixNms", "MulticlassNms", "NMSRotated", "NonMaxSuppression",
             "SearchSorted", "TopK"),
    "sparse": ("EmbeddingBagOffsets", "EmbeddingBagOffsetsSum", "EmbeddingBagPacked", "EmbeddingBagPackedSum",
               "EmbeddingSegmentsSum", "SparseFillEmptyRows"),
    "type": ("Convert", "ConvertLike", "ConvertPromoteTypes", "StringTensorPack", "StringTensorUnpack"),
}

#: Op type -> its family, for every op type of opset1..opset17
#: (:data:`ovconform.ir.opset_table.OPSET_VERSIONS`).
OP_FAMILIES: Final[dict[str, str]] = {op: family for family, ops in _MEMBERS.items() for op in ops}


def family_of(op_type: str) -> str:
    """The family of ``op_type`` (``"activation"`` for ``"Softmax"``).

    :raises UnsupportedOpError: naming the op type when it is in no family (no op of opset1..17).
    """
    try:
        return OP_FAMILIES[op_type]
    except KeyError:
        raise UnsupportedOpError(f"op type {op_type!r} is in no op family: it is not an op type of opset1..opset17 "
                                 "(see ovconform.ir.opset_table.OPSET_VERSIONS).") from None


def ops_of(family: str) -> tuple[str, ...]:
    """The op types of ``family``, in name order.

    :raises NotFoundError: naming the family and listing the families when it is not one.
    """
    try:
        return _MEMBERS[family]
    except KeyError:
        raise NotFoundError(f"{family!r} is not an op family; the families are: {', '.join(FAMILIES)}.") from None
