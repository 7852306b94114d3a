"""Vision architectures at their real sizes: ResNet-50, MobileNetV3-Small, EfficientNet-B0 (the
torchvision layer tables, 224×224 input, 1000 classes) and a YOLO-style detector (a CSP-like
backbone, two detection scales, box decoding and NonMaxSuppression).

BatchNorm stays a BatchNormInference op (OpenVINO's converted models fold it only at compile).
Convolutions are He-initialised; the last BatchNorm of each residual branch has a small gamma so
the residual sums keep their scale over 16 blocks.
"""

from __future__ import annotations

import numpy as np

from ovconform import opset as ops
from ovconform.ir import Model, Node, Output

from ._blocks import F32, Weights, conv_bn, dense, i64

__all__ = ["efficientnet_b0", "mobilenet_v3_small", "resnet50", "yolo_detector"]

Value = Node | Output


def _image(size: int = 224) -> Node:
    return ops.parameter([1, 3, size, size], F32, name="image")


def _classifier(x: Value, w: Weights, c: int, name: str = "fc", classes: int = 1000) -> Node:
    pooled = ops.reduce_mean(x, i64(2, 3), False, name="avgpool")
    return dense(pooled, w, c, classes, name)


# -- ResNet-50 ------------------------------------------------------------------------------------

def _bottleneck(x: Value, w: Weights, c_in: int, width: int, stride: int, name: str) -> Node:
    c_out = 4 * width
    h = ops.relu(conv_bn(x, w, c_in, width, 1, 1, f"{name}.conv1"), name=f"{name}.relu1")
    h = ops.relu(conv_bn(h, w, width, width, 3, stride, f"{name}.conv2"), name=f"{name}.relu2")
    h = conv_bn(h, w, width, c_out, 1, 1, f"{name}.conv3", gamma=0.2)
    skip: Value = x
    if stride != 1 or c_in != c_out:
        skip = conv_bn(x, w, c_in, c_out, 1, stride, f"{name}.downsample")
    return ops.relu(ops.add(h, skip, name=f"{name}.add"), name=f"{name}.relu")


def resnet50(size: int = 224) -> Model:
    """ResNet-50 v1.5 (torchvision): 7×7 stem, max pool, bottleneck stages [3, 4, 6, 3] of widths
    64..512 (stride on the 3×3), 2048 channels, global average pool, 1000-way dense."""
    w = Weights(50)
    x = _image(size)
    h: Value = ops.relu(conv_bn(x, w, 3, 64, 7, 2, "conv1"), name="relu")
    h = ops.max_pool(h, [2, 2], [1, 1], [1, 1], [1, 1], [3, 3], name="maxpool").output(0)
    c_in = 64
    for stage, (blocks, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512), strict=True), start=1):
        for b in range(blocks):
            h = _bottleneck(h, w, c_in, width, 2 if b == 0 and stage > 1 else 1, f"layer{stage}.{b}")
            c_in = 4 * width
    return Model([_classifier(h, w, 2048)], [x], "resnet50")


# -- MobileNetV3-Small ----------------------------------------------------------------------------

def _divisible(v: float, d: int = 8) -> int:
    out = max(d, int(v + d / 2) // d * d)
    return out + d if out < 0.9 * v else out


def _act(x: Value, kind: str, name: str) -> Node:
    if kind == "RE":
        return ops.relu(x, name=name)
    if kind == "HS":
        return ops.hswish(x, name=name)
    return ops.swish(x, name=name)


def _squeeze_excite(x: Value, w: Weights, c: int, squeeze: int, name: str, *, gate: str, inner: str) -> Node:
    """Global average pool, 1×1 conv + bias, ``inner`` activation, 1×1 conv + bias, ``gate``, scale."""
    s = ops.reduce_mean(x, i64(2, 3), True, name=f"{name}.avgpool")
    s = ops.convolution(s, w.he(squeeze, c, 1, 1, fan_in=c), [1, 1], [0, 0], [0, 0], [1, 1], name=f"{name}.fc1")
    s = ops.add(s, w.normal(1, squeeze, 1, 1, std=0.01), name=f"{name}.fc1.add_bias")
    s = _act(s, inner, f"{name}.act1")
    s = ops.convolution(s, w.xavier(c, squeeze, 1, 1, fan_in=squeeze, fan_out=c), [1, 1], [0, 0], [0, 0], [1, 1],
                        name=f"{name}.fc2")
    s = ops.add(s, w.normal(1, c, 1, 1, std=0.01), name=f"{name}.fc2.add_bias")
    g = ops.hsigmoid(s, name=f"{name}.gate") if gate == "HS" else ops.sigmoid(s, name=f"{name}.gate")
    return ops.multiply(x, g, name=f"{name}.scale")


#: (kernel, expanded channels, out channels, squeeze-excite, activation, stride) per block.
MOBILENET_V3_SMALL = [
    (3, 16, 16, True, "RE", 2), (3, 72, 24, False, "RE", 2), (3, 88, 24, False, "RE", 1),
    (5, 96, 40, True, "HS", 2), (5, 240, 40, True, "HS", 1), (5, 240, 40, True, "HS", 1),
    (5, 120, 48, True, "HS", 1), (5, 144, 48, True, "HS", 1), (5, 288, 96, True, "HS", 2),
    (5, 576, 96, True, "HS", 1), (5, 576, 96, True, "HS", 1),
]


def mobilenet_v3_small(size: int = 224) -> Model:
    """MobileNetV3-Small (torchvision): hard-swish stem, 11 inverted-residual blocks with
    depthwise 3×3/5×5 convolutions and squeeze-excite (hard-sigmoid gates), a 576-channel 1×1
    conv, global pool, dense 576→1024 (hard-swish) →1000."""
    w = Weights(3)
    x = _image(size)
    h: Value = ops.hswish(conv_bn(x, w, 3, 16, 3, 2, "features.0"), name="features.0.act")
    c_in = 16
    for i, (k, exp, out, se, act, stride) in enumerate(MOBILENET_V3_SMALL, start=1):
        name = f"features.{i}"
        y: Value = h
        if exp != c_in:
            y = _act(conv_bn(y, w, c_in, exp, 1, 1, f"{name}.expand"), act, f"{name}.expand.act")
        y = _act(conv_bn(y, w, exp, exp, k, stride, f"{name}.depthwise", groups=exp), act, f"{name}.depthwise.act")
        if se:
            y = _squeeze_excite(y, w, exp, _divisible(exp / 4), f"{name}.se", gate="HS", inner="RE")
        y = conv_bn(y, w, exp, out, 1, 1, f"{name}.project", gamma=0.5)
        h = ops.add(y, h, name=f"{name}.add") if stride == 1 and c_in == out else y
        c_in = out
    h = ops.hswish(conv_bn(h, w, c_in, 576, 1, 1, "features.12"), name="features.12.act")
    pooled = ops.reduce_mean(h, i64(2, 3), False, name="avgpool")
    hidden = ops.hswish(dense(pooled, w, 576, 1024, "classifier.0"), name="classifier.1")
    return Model([dense(hidden, w, 1024, 1000, "classifier.3")], [x], "mobilenet_v3_small")


# -- EfficientNet-B0 ------------------------------------------------------------------------------

#: (expand ratio, kernel, stride, out channels, repeats) per stage.
EFFICIENTNET_B0 = [(1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3), (6, 5, 1, 112, 3),
                   (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)]


def efficientnet_b0(size: int = 224) -> Model:
    """EfficientNet-B0 (torchvision): swish stem, 16 MBConv blocks in 7 stages (depthwise
    3×3/5×5, squeeze-excite with sigmoid gates at a quarter of the block's input channels), a
    1280-channel head conv, global pool, dense 1280→1000."""
    w = Weights(4)
    x = _image(size)
    h: Value = ops.swish(conv_bn(x, w, 3, 32, 3, 2, "features.0"), name="features.0.act")
    c_in = 32
    for s, (ratio, k, stride, out, repeats) in enumerate(EFFICIENTNET_B0, start=1):
        for r in range(repeats):
            name = f"features.{s}.{r}"
            st = stride if r == 0 else 1
            exp = c_in * ratio
            y: Value = h
            if ratio != 1:
                y = ops.swish(conv_bn(y, w, c_in, exp, 1, 1, f"{name}.expand"), name=f"{name}.expand.act")
            y = ops.swish(conv_bn(y, w, exp, exp, k, st, f"{name}.depthwise", groups=exp), name=f"{name}.depthwise.act")
            y = _squeeze_excite(y, w, exp, max(1, c_in // 4), f"{name}.se", gate="SIGMOID", inner="SWISH")
            y = conv_bn(y, w, exp, out, 1, 1, f"{name}.project", gamma=0.5)
            h = ops.add(y, h, name=f"{name}.add") if st == 1 and c_in == out else y
            c_in = out
    h = ops.swish(conv_bn(h, w, c_in, 1280, 1, 1, "features.8"), name="features.8.act")
    return Model([_classifier(h, w, 1280, "classifier.1")], [x], "efficientnet_b0")


# -- YOLO-style detector --------------------------------------------------------------------------

def _yolo_decode(feat: Value, w: Weights, c_in: int, grid: int, stride: int, anchors: list[tuple[float, float]],
                 classes: int, name: str) -> tuple[Node, Node]:
    """One detection scale: 1×1 conv to A·(5+C) channels, sigmoid, YOLOv5 box decoding
    (xy = (2σ - 0.5 + cell)·stride, wh = (2σ)²·anchor) to corner boxes [1, A·G², 4] and class
    scores (objectness × class) [1, A·G², C]."""
    a, per = len(anchors), 5 + classes
    head = ops.convolution(feat, w.xavier(a * per, c_in, 1, 1, fan_in=c_in, fan_out=a * per), [1, 1], [0, 0], [0, 0],
                           [1, 1], name=f"{name}.conv")
    # YOLOv5's prior biases: objectness log(8 / cells), classes log(0.6 / (C - 0.99)), so that few
    # boxes pass the score threshold, as in a trained detector
    bias = np.zeros((a, per), np.float32)
    bias[:, 4] = np.log(8 / grid ** 2)
    bias[:, 5:] = np.log(0.6 / (classes - 0.99))
    head = ops.add(head, ops.constant(bias.reshape(1, a * per, 1, 1), F32, name=f"{name}.bias"),
                   name=f"{name}.add_bias")
    p = ops.reshape(head, i64(1, a, per, grid * grid), False, name=f"{name}.reshape")
    p = ops.sigmoid(ops.transpose(p, i64(0, 1, 3, 2), name=f"{name}.transpose"), name=f"{name}.sigmoid")
    parts = ops.variadic_split(p, i64(3), i64(2, 2, 1, classes), name=f"{name}.split")
    gy, gx = np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij")
    cells = np.stack([gx.ravel(), gy.ravel()], -1).astype(np.float32)[None, None] - 0.5  # [1, 1, G², 2]
    two = ops.constant(np.float32(2.0), F32)
    xy = ops.multiply(ops.add(ops.multiply(parts.output(0), two, name=f"{name}.xy2"), ops.constant(cells, F32),
                              name=f"{name}.xy_cell"), ops.constant(np.float32(stride), F32), name=f"{name}.xy")
    anchor = np.array(anchors, np.float32).reshape(1, a, 1, 2)
    wh = ops.multiply(ops.power(ops.multiply(parts.output(1), two, name=f"{name}.wh2"), two, name=f"{name}.wh_sq"),
                      ops.constant(anchor, F32), name=f"{name}.wh")
    half = ops.multiply(wh, ops.constant(np.float32(0.5), F32), name=f"{name}.half_wh")
    corners = ops.concat([ops.subtract(xy, half, name=f"{name}.xy_min"), ops.add(xy, half, name=f"{name}.xy_max")],
                         -1, name=f"{name}.corners")
    boxes = ops.reshape(corners, i64(1, -1, 4), False, name=f"{name}.boxes")
    scores = ops.multiply(parts.output(3), parts.output(2), name=f"{name}.conf")
    return boxes, ops.reshape(scores, i64(1, -1, classes), False, name=f"{name}.scores")


def _silu_conv(x: Value, w: Weights, c_in: int, c_out: int, k: int, stride: int, name: str) -> Node:
    return ops.swish(conv_bn(x, w, c_in, c_out, k, stride, name), name=f"{name}.act")


def yolo_detector(size: int = 320, classes: int = 80) -> Model:
    """A YOLOv5-style detector: SiLU conv backbone to stride 32 with a residual stage, an FPN-like
    upsample-and-concat neck, heads at strides 16 and 32 (3 anchors each), box decoding and
    NonMaxSuppression-9 (IoU 0.5, score 0.01, 20 boxes per class; the heads start from YOLOv5's prior
    biases, so about a hundred candidate boxes pass)."""
    w = Weights(5)
    x = _image(size)
    h: Value = x
    c_in = 3
    feats = {}
    for i, c in enumerate((16, 32, 64, 128, 256)):
        h = _silu_conv(h, w, c_in, c, 3, 2, f"backbone.{i}")
        r = _silu_conv(_silu_conv(h, w, c, c // 2, 1, 1, f"backbone.{i}.res.cv1"), w, c // 2, c, 3, 1,
                       f"backbone.{i}.res.cv2")
        h = ops.add(h, ops.multiply(r, ops.constant(np.float32(0.5), F32)), name=f"backbone.{i}.res.add")
        c_in = c
        feats[2 ** (i + 1)] = h
    p5 = _silu_conv(feats[32], w, 256, 128, 1, 1, "neck.lateral")
    up = ops.interpolate(p5, i64(size // 16, size // 16), "nearest", "sizes",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor", axes=i64(2, 3),
                         name="neck.upsample")
    p4 = _silu_conv(ops.concat([up, feats[16]], 1, name="neck.concat"), w, 256, 128, 3, 1, "neck.fuse")
    b1, s1 = _yolo_decode(p4, w, 128, size // 16, 16, [(30, 61), (62, 45), (59, 119)], classes, "head.p4")
    b2, s2 = _yolo_decode(p5, w, 128, size // 32, 32, [(116, 90), (156, 198), (373, 326)], classes, "head.p5")
    boxes = ops.concat([b1, b2], 1, name="boxes")
    scores = ops.transpose(ops.concat([s1, s2], 1, name="scores_all"), i64(0, 2, 1), name="scores")
    nms = ops.non_max_suppression(boxes, scores, 20, 0.5, 0.01, 0.0, sort_result_descending=True, name="nms")
    return Model([boxes, scores, nms.output(0), nms.output(1), nms.output(2)], [x], "yolo_detector")
