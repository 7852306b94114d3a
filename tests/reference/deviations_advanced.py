"""OpenVINO CPU deviations from the spec for the "advanced" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Node
from ovconform.opcases import OpCase

# -- FakeQuantize-1 with 15/16/255/256 levels and per-element output limits ---------------------------------------

#: The level counts OpenVINO CPU's low-precision path treats as integer quantization (int4/int8).
LPT_LEVELS = (15, 16, 255, 256)


def _fq_lpt_output_limits(case: OpCase) -> bool:
    for node in op_nodes(case, "FakeQuantize", (1,)):
        if node.attrs["levels"] not in LPT_LEVELS:
            continue
        for port in (3, 4):
            value = input_value(case, node, port)
            if value is None or np.unique(value).size > 1:
                return True
    return False


def _fq_witness() -> Witness:
    x = np.array([[-1.0, 0.3, 2.0], [-1.0, 0.3, 2.0]], np.float32)
    p = _param("x", x)
    high = np.array([[2.0], [4.0]], np.float32)
    node = ops.fake_quantize(p, np.float32(-1), np.float32(1), np.float32(0), high, 16)
    # 0.3 -> level round(1.3 / 2 * 15) = round(9.75) = 10 -> 10/15 of the output range
    expected = np.array([[0.0, 2.0 * 10 / 15, 2.0], [0.0, 4.0 * 10 / 15, 4.0]], np.float32)
    return Witness(_case("FakeQuantize", 1, [node], [p], {"x": x}), [expected])


# -- FakeQuantize-1 with levels 2 and limits varying along axis 2 only -------------------------------------------


def _varying_axes(node: Node, port: int) -> list[int]:
    """The dims (of the data's rank, numpy-aligned) along which limit input ``port`` holds more than one value."""
    rank = len(node.get_input_partial_shape(0))
    limit = node.get_input_partial_shape(port)
    dims = [1] * (rank - len(limit)) + [d.get_length() if d.is_static else 2 for d in limit]
    return [axis for axis, d in enumerate(dims) if d != 1]


def _fq_binary_axis2(case: OpCase) -> bool:
    """levels 2, every limit per-tensor or varying along one axis among 1 and 2 (what OpenVINO CPU keeps as one
    FakeQuantize node instead of decomposing it), and some limit varying along axis 2."""
    for node in op_nodes(case, "FakeQuantize", (1,)):
        if node.attrs["levels"] != 2 or not node.get_input_partial_shape(0).rank.is_static:
            continue
        axes = [_varying_axes(node, port) for port in (1, 2, 3, 4)]
        if all(not a or (len(a) == 1 and a[0] in (1, 2)) for a in axes) and any(a == [2] for a in axes):
            return True
    return False


def _fq_binary_witness() -> Witness:
    x = np.array([[[-2.0, -0.5, 0.2, 3.0]], [[0.8, 0.4, -1.0, 0.9]]], np.float32)
    p = _param("x", x)
    low, high = np.array([-1, -1, 0, 0], np.float32), np.array([1, 1, 1, 2], np.float32)
    node = ops.fake_quantize(p, low, high, np.float32(-1), np.float32(1), 2)
    # level round((x - low) / (high - low)): [0 (clipped), 0.25 -> 0, 0.2 -> 0, 1 (clipped)], [0.9 -> 1, 0.7 -> 1,
    # 0 (clipped), 0.45 -> 0]; level 0 -> output_low -1, level 1 -> output_high 1
    expected = np.array([[[-1.0, -1.0, -1.0, 1.0]], [[1.0, 1.0, -1.0, -1.0]]], np.float32)
    return Witness(_case("FakeQuantize", 1, [node], [p], {"x": x}), [expected])


# -- Convolution-1: one input channel, a strided last axis of output size 1 ----------------------------------------
# (Convolution is a core op; its record lives here, next to the (Group)ConvolutionBackpropData strategies' family.)


def _conv_single_column(case: OpCase) -> bool:
    """One input channel, unit dilations, 2+ spatial axes, kernel >= 2 on the last two, the last axis strided (>= 2)
    to output size 1 while the axis before it has stride 1 and output size >= 2."""
    for node in op_nodes(case, "Convolution", (1,)):
        data, filters = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
        out = node.output(0).get_partial_shape()
        if not (data.is_static and filters.is_static and out.is_static) or len(data) < 4:
            continue
        kernel = [d.get_length() for d in list(filters)[2:]]
        size = [d.get_length() for d in list(out)[2:]]
        strides, dilations = node.attrs["strides"], node.attrs["dilations"]
        if (list(data)[1].get_length() == 1 and all(d == 1 for d in dilations) and strides[-1] >= 2
                and strides[-2] == 1 and size[-1] == 1 and size[-2] >= 2 and min(kernel[-2:]) >= 2):
            return True
    return False


def _conv_witness() -> Witness:
    x = np.arange(20, dtype=np.float32).reshape(1, 1, 5, 4)
    w = np.array([[1, 0, -1], [2, 1, 0], [0, 1, 1]], np.float32).reshape(1, 1, 3, 3)
    p = _param("x", x)
    node = ops.convolution(p, w, [1, 2], [0, 0], [0, 0], [1, 1])
    # output [1, 1, 3, 1]: row i is sum(x[i:i+3, 0:3] * w) = 30 + 20 i
    expected = np.array([30, 50, 70], np.float32).reshape(1, 1, 3, 1)
    return Witness(_case("Convolution", 1, [node], [p], {"x": x}), [expected])


# -- Interpolate-4/11 ---------------------------------------------------------------------------------------------

def _interp_axes(case: OpCase, node: Node) -> list[int] | None:
    if node.version == 1:
        return list(node.attrs["axes"])
    port = 3 if node.version == 4 else 2
    if node.get_input_size() <= port:
        return list(range(len(node.get_input_partial_shape(0))))
    value = input_value(case, node, port)
    return None if value is None else [int(a) for a in value.reshape(-1)]


def _interp_pads(case: OpCase) -> bool:
    return any(any(n.attrs["pads_begin"]) or any(n.attrs["pads_end"])
               for n in op_nodes(case, "Interpolate", (1, 4, 11)))


def _interp_cubic_batch_axes(case: OpCase) -> bool:
    for node in op_nodes(case, "Interpolate", (1, 4, 11)):
        axes = _interp_axes(case, node)
        if node.attrs["mode"] == "cubic" and (axes is None or (len(axes) >= 2 and min(axes) < 2)):
            return True
    return False


def _interp_cubic_witness() -> Witness:
    x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    p = _param("x", x)
    node = ops.interpolate(p, np.array([1, 1], np.int64), "cubic", "sizes", axes=np.array([0, 1], np.int64))
    # half_pixel coordinate 0.5 with a = -0.75: taps (clip(-1), 0, 1, clip(2)) weigh 0.5 on each row
    return Witness(_case("Interpolate", 11, [node], [p], {"x": x}), [x.mean(axis=(0, 1), keepdims=True)])


def _interp_pads_witness() -> Witness:
    x = np.arange(100, dtype=np.float32).reshape(4, 5, 5)
    p = _param("x", x)
    node = ops.interpolate(p, np.array([6], np.int64), "nearest", "sizes", [0, 0, 0], [0, 0, 1],
                           "asymmetric", "floor", axes=np.array([0], np.int64))
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1)))
    rows = np.floor(np.arange(6) / np.float32(6 / 4)).astype(np.int64)
    return Witness(_case("Interpolate", 11, [node], [p], {"x": x}), [padded[rows]])


def _interp_linear_antialias(case: OpCase) -> bool:
    return any(n.attrs["mode"] == "linear" and n.attrs["antialias"] for n in op_nodes(case, "Interpolate", (1, 4, 11)))


def _interp_antialias_witness() -> Witness:
    x = np.array([[[3.0, -1.0, 2.0, 0.5, -2.0, 1.0, 4.0, 0.0]]], np.float32)
    p = _param("x", x)
    node = ops.interpolate(p, np.array([3], np.int64), "linear", "sizes", antialias=True,
                           axes=np.array([2], np.int64))
    scale = 3 / 8  # half_pixel coordinates; the triangle filter widened by 1/scale, normalized
    coords = (np.arange(3) + 0.5) / scale - 0.5
    w = np.maximum(0.0, 1.0 - np.abs(scale * (coords[:, None] - np.arange(8)[None, :])))
    expected = (w / w.sum(axis=1, keepdims=True)) @ x[0, 0].astype(np.float64)
    return Witness(_case("Interpolate", 11, [node], [p], {"x": x}), [expected.astype(np.float32).reshape(1, 1, 3)])


def _interp_scales(case: OpCase, node: Node) -> list[float] | None:
    """The scales input of a scales-mode Interpolate-4/11 (None otherwise)."""
    if node.attrs["shape_calculation_mode"] != "scales":
        return None
    value = input_value(case, node, 2 if node.version == 4 else 1)
    return None if value is None else [float(v) for v in value.reshape(-1)]


def _interp_same_size_moves(case: OpCase) -> bool:
    """An axis keeps its size but the spec's coordinates move: tf_half_pixel_for_nn, or a given scale != 1."""
    for node in op_nodes(case, "Interpolate", (4, 11)):
        if "pillow" in node.attrs["mode"]:
            continue
        axes, data, out = _interp_axes(case, node), node.get_input_partial_shape(0), node.output(0).get_partial_shape()
        if axes is None or not (data.is_static and out.is_static):
            return True
        pb = list(node.attrs["pads_begin"]) + [0] * len(data)
        pe = list(node.attrs["pads_end"]) + [0] * len(data)
        scales = _interp_scales(case, node)
        tf_half = node.attrs["coordinate_transformation_mode"] == "tf_half_pixel_for_nn"
        for i, a in enumerate(axes):
            same = out[a].get_length() == data[a].get_length() + pb[a] + pe[a]
            if same and (tf_half or (scales is not None and scales[i] != 1.0)):
                return True
    return False


def _interp_tf_half_witness() -> Witness:
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    p = _param("x", x)
    node = ops.interpolate(p, np.array([3, 4], np.int64), "nearest", "sizes", None, None, "tf_half_pixel_for_nn",
                           "ceil", axes=np.array([2, 3], np.int64))
    rows, cols = np.minimum(np.arange(3) + 1, 2), np.minimum(np.arange(4) + 1, 3)  # ceil(x + 0.5), clipped
    return Witness(_case("Interpolate", 11, [node], [p], {"x": x}), [x[:, :, rows][:, :, :, cols]])


def _interp_pillow_cube(case: OpCase) -> bool:
    return any(n.attrs["mode"] == "bicubic_pillow" and n.attrs["cube_coeff"] != -0.5
               for n in op_nodes(case, "Interpolate", (11,)))


def _bicubic(x: np.ndarray, a: float) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1, np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))


def _interp_pillow_witness() -> Witness:
    x = np.array([[[[1.0, -2.0, 3.0, 0.5, -1.0, 2.0]]]], np.float32)
    p = _param("x", x)
    node = ops.interpolate(p, np.array([1, 3], np.int64), "bicubic_pillow", "sizes", cube_coeff=-0.75,
                           axes=np.array([2, 3], np.int64))
    # Pillow: scale 6/3 = 2 widens the support 2 to 4 and scales distances by 1/2; weights normalized
    centers, j = (np.arange(3) + 0.5) * 2, np.arange(6)
    inside = (j[None, :] >= np.maximum(np.trunc(centers - 4 + 0.5), 0)[:, None]) & \
             (j[None, :] < np.minimum(np.trunc(centers + 4 + 0.5), 6)[:, None])
    w = np.where(inside, _bicubic((j[None, :] - centers[:, None] + 0.5) * 0.5, -0.75), 0.0)
    expected = (w / w.sum(axis=1, keepdims=True)) @ x[0, 0, 0].astype(np.float64)
    return Witness(_case("Interpolate", 11, [node], [p], {"x": x}), [expected.astype(np.float32).reshape(1, 1, 1, 3)])


def _interp_1_unsorted_axes(case: OpCase) -> bool:
    return any(list(n.attrs["axes"]) != sorted(n.attrs["axes"]) for n in op_nodes(case, "Interpolate", (1,)))


def _interp_1_witness() -> Witness:
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    p = _param("x", x)
    node = ops.interpolate_v1(p, np.array([1, 2], np.int64), {"axes": [1, 0], "mode": "nearest"})
    # axis 1 -> size 1 (align_corners: coordinate 0), axis 0 keeps its 2 rows
    return Witness(_case("Interpolate", 1, [node], [p], {"x": x}), [x[:, :1]])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "FakeQuantize", (1,), _fq_lpt_output_limits,
        "levels 15, 16, 255 or 256 with output_low or output_high holding different values: OpenVINO CPU uses "
        "one output range for every element (the spec broadcasts output_low/output_high per element)",
        f"{SPEC}/quantization/fake-quantize-1.html",
        "x [[-1, 0.3, 2]] * 2 rows, input range [-1, 1], output_low 0, output_high [[2], [4]], levels 16: the spec "
        "gives rows [0, 1.333, 2] and [0, 2.667, 4]; CPU gives the first row's range for both. Every other level "
        "count tried (2..14, 17, 100, 254, 257, 65536) follows the spec, and so do per-element input limits.",
        _fq_witness),
    Deviation(
        "FakeQuantize", (1,), _fq_binary_axis2,
        "levels 2 with limits that vary along axis 2 (data rank >= 3; each limit per-tensor or varying along one "
        "axis, 1 or 2): OpenVINO CPU refuses the model (\"FakeQuantize node ... doesn't support non per-tensor "
        "quantization for axis: 2\", Check 'getAxis() == 0' in fake_quantize.cpp); the spec allows limits of any "
        "shape that broadcasts to the data and any levels >= 2",
        f"{SPEC}/quantization/fake-quantize-1.html",
        "x [2, 1, 4] f32, input_low [-1, -1, 0, 0], input_high [1, 1, 1, 2], output_low -1, output_high 1, levels 2: "
        "compile_model raises at fake_quantize.cpp:1499; the spec gives [[[-1, -1, -1, 1]], [[1, 1, -1, -1]]]. "
        "Refused alike: rank 4 limits [1, 1, 4, 1], rank 5 [4, 1, 1], f16 data, only output_high per element, and "
        "input_low [1, 3, 1] with input_high [1, 1, 4]. Compiled and right: levels 3/5/255/256 with the same limits, "
        "levels 2 with limits along axis 0, 1, 3 or 4, and limits varying along two axes or along different axes "
        "in different inputs (except 1 and 2), which CPU decomposes into elementwise ops.",
        _fq_binary_witness, openvino_refuses=True),
    Deviation(
        "Convolution", (1,), _conv_single_column,
        "one input channel with the last spatial axis strided (stride >= 2) down to output size 1 and the axis before "
        "it of stride 1 and output size >= 2: OpenVINO CPU (f32 and f16) often gives wrong values for the output "
        "rows after the first; the spec's result is the plain sum of products over each window",
        f"{SPEC}/convolution/convolution-1.html",
        "x = arange(20) as [1, 1, 5, 4] f32, 3x3 filter [[1, 0, -1], [2, 1, 0], [0, 1, 1]], strides [1, 2], no "
        "pads: the spec gives [30, 50, 70] (output [1, 1, 3, 1]); CPU gives [30, 44, 70]. Found as f16 "
        "[2, 1, 4, 2, 4] * [2, 1, 3, 3, 3], strides [3, 1, 3], pads [2, 2, 0]/[1, 1, 0] (max error 2.7). Random "
        "shapes (f32, 2D/3D, about 3000 tried): every wrong one had C_in 1, unit dilations, a last-axis stride >= 2 "
        "with output size 1, stride 1 and output >= 2 on the axis before, kernel >= 2 on both; a third to 40% of "
        "the shapes of that description were wrong (which ones depends on the kernel and padding in no simple "
        "way); 2 input channels, an output width >= 2, or a strided second-to-last axis were always right.",
        _conv_witness),
    Deviation(
        "Interpolate", (1, 4, 11), _interp_pads,
        "non-zero pads_begin/pads_end: OpenVINO CPU often pads other dims than the attributes name, so its output "
        "shape differs from its own shape inference (the spec pads every dim by its own pads before interpolating)",
        f"{SPEC}/image/interpolate-11.html",
        "x [4, 5, 5], axes [0], sizes [6], pads_end [0, 0, 1]: the spec (and OpenVINO's shape inference) gives "
        "[6, 5, 6]; CPU returns a [6, 5, 5] tensor (also Interpolate-4, any mode); x [3, 7, 4], axes [1], pads on "
        "dim 1 gives CPU [3, 7, 6]; x [1, 1, 1, 2, 2], axes [3, 1] with pads on dim 1 gives a wrong dim 2. Pads on "
        "the spatial dims of NCHW data with axes [2, 3] are applied correctly. Interpolate-1 (which CPU rewrites to "
        "Interpolate-4) shows the same.",
        _interp_pads_witness),
    Deviation(
        "Interpolate", (1, 4, 11), _interp_linear_antialias,
        "mode linear with antialias=true: OpenVINO CPU's weights differ from the spec's (which widens the "
        "triangle filter by 1/scale only when some axis is downsampled), in a way that depends on the rank",
        f"{SPEC}/image/interpolate-4.html",
        "x [1, 1, 8] resized to [1, 1, 3] (half_pixel): the spec's filter gives values up to 0.42 away from CPU's; "
        "[1, 1, 6, 8] -> [3, 5] differs by 0.57, but [1, 1, 1, 6, 8] -> [3, 5] agrees; upsampling [1, 1, 1, 6, 8] "
        "-> [9, 12] (where the spec ignores antialias) differs by 0.98 while [1, 1, 6, 8] -> [9, 12] agrees. "
        "REFERENCE matches a line-by-line transcription of the spec's Python (tests/test_tier2_advanced.py).",
        _interp_antialias_witness),
    Deviation(
        "Interpolate", (1, 4, 11), _interp_cubic_batch_axes,
        "mode cubic over two or more axes including dim 0 or 1: OpenVINO CPU's values are wrong (interpolating "
        "one of those dims alone, or only dims >= 2, follows the spec)",
        f"{SPEC}/image/interpolate-11.html",
        "x = arange(8).reshape(2, 2, 2), cubic, half_pixel, axes [0, 1] resized to [1, 1]: the spec gives the mean "
        "over dims 0 and 1, [[[3, 4]]]; CPU gives [[[1, 2]]]; x [1, 2, 2, 4] over axes [1, 2, 3] to [3, 3, 3] "
        "differs by 16, over axes [2, 3] it agrees.",
        _interp_cubic_witness),
    Deviation(
        "Interpolate", (4, 11), _interp_same_size_moves,
        "an axis whose size does not change while the spec's coordinates move (tf_half_pixel_for_nn maps x to "
        "x + 0.5; with shape_calculation_mode scales a given scale != 1 such as 1.25 on size 3 keeps size 3): "
        "OpenVINO CPU copies the axis unchanged instead of interpolating it",
        f"{SPEC}/image/interpolate-11.html",
        "x = arange(12).reshape(1, 1, 3, 4) 'resized' to [3, 4], nearest, ceil: the spec takes rows [1, 2, 2] and "
        "columns [1, 2, 3, 3]; CPU returns x (max difference 4; linear differs by 2, cubic by 2.4). "
        "x [1, 1, 3, 3, 3], linear_onnx, asymmetric, scales [1.25] * 3: the spec reads input x / 1.25, CPU returns x. "
        "An axis that changes size next to it follows the spec.",
        _interp_tf_half_witness),
    Deviation(
        "Interpolate", (11,), _interp_pillow_cube,
        "bicubic_pillow with cube_coeff other than -0.5: OpenVINO CPU ignores cube_coeff (uses Pillow's -0.5); "
        "the spec uses cube_coeff as the bicubic a for bicubic_pillow",
        f"{SPEC}/image/interpolate-11.html",
        "x [1, 1, 5, 6] resized to [3, 4] with cube_coeff -0.75 differs by 0.07 (to [7, 9]: 0.26); with -0.5 CPU "
        "and the spec agree to 1e-6.",
        _interp_pillow_witness),
    Deviation(
        "Interpolate", (1,), _interp_1_unsorted_axes,
        "Interpolate-1 with axes not in increasing order: OpenVINO CPU sorts the axes (it keeps them as a set) "
        "but not output_shape, so sizes land on the wrong dims; the spec maps axes[i] to output_shape[i]",
        f"{SPEC}/image/interpolate-1.html",
        "x [2, 3], axes [1, 0], output_shape [1, 2]: the spec gives shape [2, 1]; CPU gives [1, 2].",
        _interp_1_witness),
)
