"""Classic ImageNet architectures at their real sizes (224×224 input, 1000 classes), as their
exported models have them: DenseNet-121 (torchvision; every dense layer concatenates all earlier
feature maps), Inception-v2 (BN-Inception, Ioffe & Szegedy 2015, laid out as its released Caffe
model: ceil-mode pooling, inception modules of four branches joined by Concat) and ShuffleNet v2
1.0x (torchvision; channel split by Split, channel shuffle as Reshape → Transpose → Reshape).

BatchNorm stays a BatchNormInference op, as exported (OpenVINO folds it only at compile), with
running statistics near (0, 1) as :func:`ovconform.models._blocks.conv_bn` draws them.
Convolutions are He-initialised (std sqrt(2 / fan_in)), dense layers Xavier. The depthwise
convolutions of ShuffleNet are followed by no ReLU, so their BatchNorm gamma is scaled by
sqrt(1/2) to undo He's factor 2 and keep the activations' scale through the 16 blocks.
"""

from __future__ import annotations

import numpy as np

from ovconform import opset as ops
from ovconform.ir import Model, Node, Output

from ._blocks import I64, Weights, conv_bn, i64
from .vision import _classifier, _image

__all__ = ["densenet121", "inception_v2", "shufflenet_v2"]

Value = Node | Output


def _conv_bn_relu(x: Value, w: Weights, c_in: int, c_out: int, k: int, stride: int, name: str) -> Node:
    return ops.relu(conv_bn(x, w, c_in, c_out, k, stride, name), name=f"{name}.relu")


def _max_pool(x: Value, k: int, stride: int, pad: int, name: str, rounding: str = "floor") -> Node:
    return ops.max_pool(x, [stride, stride], [1, 1], [pad, pad], [pad, pad], [k, k], rounding, name=name)


# -- DenseNet-121 ---------------------------------------------------------------------------------

def _bn_relu(x: Value, w: Weights, c: int, name: str) -> Node:
    """Pre-activation BatchNormInference (statistics as :func:`conv_bn` draws them), then ReLU."""
    bn = ops.batch_norm_inference(
        x, w.uniform(c, low=0.8, high=1.2), w.uniform(c, low=-0.05, high=0.05),
        w.uniform(c, low=-0.05, high=0.05), w.uniform(c, low=0.8, high=1.2), 1e-5, name=f"{name}.norm")
    return ops.relu(bn, name=f"{name}.relu")


def _conv(x: Value, w: Weights, c_in: int, c_out: int, k: int, name: str) -> Node:
    pad = (k - 1) // 2
    return ops.convolution(x, w.he(c_out, c_in, k, k, fan_in=c_in * k * k, name=f"{name}.weight"), [1, 1],
                           [pad, pad], [pad, pad], [1, 1], name=name)


#: (dense layers per block) of DenseNet-121; growth rate 32, bottleneck 4 × 32 channels.
DENSENET121_BLOCKS = (6, 12, 24, 16)
GROWTH = 32


def densenet121(size: int = 224) -> Model:
    """DenseNet-121 (torchvision): 7×7 stem, max pool, four dense blocks of [6, 12, 24, 16] layers
    (BN-ReLU-1×1 conv to 128, BN-ReLU-3×3 conv to 32, the layer's input the Concat of all earlier
    maps of its block), transitions (BN-ReLU-1×1 conv halving the channels, 2×2 average pool),
    final BN-ReLU at 1024 channels, global pool, dense 1024→1000."""
    w = Weights(121)
    x = _image(size)
    h: Value = _conv_bn_relu(x, w, 3, 64, 7, 2, "features.conv0")
    h = _max_pool(h, 3, 2, 1, "features.pool0").output(0)
    c = 64
    for b, layers in enumerate(DENSENET121_BLOCKS, start=1):
        maps: list[Value] = [h]
        for i in range(1, layers + 1):
            name = f"features.denseblock{b}.denselayer{i}"
            inp = maps[0] if len(maps) == 1 else ops.concat(maps, 1, name=f"{name}.concat")
            y = _conv(_bn_relu(inp, w, c + (i - 1) * GROWTH, f"{name}.1"), w, c + (i - 1) * GROWTH, 4 * GROWTH, 1,
                      f"{name}.conv1")
            maps.append(_conv(_bn_relu(y, w, 4 * GROWTH, f"{name}.2"), w, 4 * GROWTH, GROWTH, 3, f"{name}.conv2"))
        c += layers * GROWTH
        h = ops.concat(maps, 1, name=f"features.denseblock{b}")
        if b < len(DENSENET121_BLOCKS):
            name = f"features.transition{b}"
            t = _conv(_bn_relu(h, w, c, name), w, c, c // 2, 1, f"{name}.conv")
            h = ops.avg_pool(t, [2, 2], [0, 0], [0, 0], [2, 2], True, name=f"{name}.pool")
            c //= 2
    h = _bn_relu(h, w, c, "features.norm5")
    return Model([_classifier(h, w, c, "classifier")], [x], "densenet121")


# -- Inception-v2 (BN-Inception) ------------------------------------------------------------------

#: Per module: (1×1, 3×3 reduce, 3×3, double 3×3 reduce, double 3×3, pool kind, pool projection,
#: stride). Stride-2 modules have no 1×1 branch and pass the max pool through unprojected (0).
#: The paper's table lists 4c's projection as 128, its output (576) and the released model 96.
INCEPTION_V2 = [
    ("3a", 64, 64, 64, 64, 96, "avg", 32, 1), ("3b", 64, 64, 96, 64, 96, "avg", 64, 1),
    ("3c", 0, 128, 160, 64, 96, "max", 0, 2),
    ("4a", 224, 64, 96, 96, 128, "avg", 128, 1), ("4b", 192, 96, 128, 96, 128, "avg", 128, 1),
    ("4c", 160, 128, 160, 128, 160, "avg", 96, 1), ("4d", 96, 128, 192, 160, 192, "avg", 96, 1),
    ("4e", 0, 128, 192, 192, 256, "max", 0, 2),
    ("5a", 352, 192, 320, 160, 224, "avg", 128, 1), ("5b", 352, 192, 320, 192, 224, "max", 128, 1),
]


def _inception(x: Value, w: Weights, c_in: int, spec: tuple[str, int, int, int, int, int, str, int, int]) -> tuple[
        Node, int]:
    tag, c1, r3, c3, rd, cd, pool, proj, stride = spec
    name = f"inception_{tag}"
    branches: list[Value] = []
    if c1:
        branches.append(_conv_bn_relu(x, w, c_in, c1, 1, 1, f"{name}.1x1"))
    b = _conv_bn_relu(x, w, c_in, r3, 1, 1, f"{name}.3x3_reduce")
    branches.append(_conv_bn_relu(b, w, r3, c3, 3, stride, f"{name}.3x3"))
    d = _conv_bn_relu(x, w, c_in, rd, 1, 1, f"{name}.double_3x3_reduce")
    d = _conv_bn_relu(d, w, rd, cd, 3, 1, f"{name}.double_3x3_1")
    branches.append(_conv_bn_relu(d, w, cd, cd, 3, stride, f"{name}.double_3x3_2"))
    if stride == 2:
        p: Value = _max_pool(x, 3, 2, 0, f"{name}.pool", "ceil").output(0)
    elif pool == "max":
        p = _max_pool(x, 3, 1, 1, f"{name}.pool").output(0)
    else:
        p = ops.avg_pool(x, [1, 1], [1, 1], [1, 1], [3, 3], False, name=f"{name}.pool")
    branches.append(_conv_bn_relu(p, w, c_in, proj, 1, 1, f"{name}.pool_proj") if proj else p)
    c_out = c1 + c3 + cd + (proj or c_in)
    return ops.concat(branches, 1, name=f"{name}.output"), c_out


def inception_v2(size: int = 224) -> Model:
    """BN-Inception: 7×7/2 stem, ceil-mode 3×3/2 max pool, 1×1 + 3×3 convs to 192, max pool, ten
    inception modules (3a-5b; 3×3 and double-3×3 branches, average or max pool with a 1×1
    projection; 3c and 4e halve the grid), 1024 channels at 7×7, global pool, dense 1024→1000.
    Every convolution is followed by BatchNorm and ReLU."""
    w = Weights(22)
    x = _image(size)
    h: Value = _conv_bn_relu(x, w, 3, 64, 7, 2, "conv1_7x7_s2")
    h = _max_pool(h, 3, 2, 0, "pool1_3x3_s2", "ceil").output(0)
    h = _conv_bn_relu(h, w, 64, 64, 1, 1, "conv2_3x3_reduce")
    h = _conv_bn_relu(h, w, 64, 192, 3, 1, "conv2_3x3")
    h = _max_pool(h, 3, 2, 0, "pool2_3x3_s2", "ceil").output(0)
    c = 192
    for spec in INCEPTION_V2:
        h, c = _inception(h, w, c, spec)
    return Model([_classifier(h, w, c, "fc")], [x], "inception_v2")


# -- ShuffleNet v2 1.0x ---------------------------------------------------------------------------

#: (blocks, output channels) of stages 2-4 of ShuffleNet v2 1.0x.
SHUFFLENET_V2_STAGES = ((4, 116), (8, 232), (4, 464))
_DW_GAMMA = float(np.sqrt(0.5))


def _channel_shuffle(x: Value, c: int, hw: int, name: str) -> Node:
    """Two groups: Reshape [1, 2, C/2, H, W], Transpose (0, 2, 1, 3, 4), Reshape [1, C, H, W]."""
    r = ops.reshape(x, i64(1, 2, c // 2, hw, hw), False, name=f"{name}.shuffle_split")
    t = ops.transpose(r, i64(0, 2, 1, 3, 4), name=f"{name}.shuffle_transpose")
    return ops.reshape(t, i64(1, c, hw, hw), False, name=f"{name}.shuffle_merge")


def _shuffle_block(x: Value, w: Weights, c_in: int, c_out: int, stride: int, hw: int, name: str) -> Node:
    half = c_out // 2
    if stride == 1:
        parts = ops.split(x, ops.constant(np.int64(1), I64), 2, name=f"{name}.chunk")
        keep: Value = parts.output(0)
        y: Value = parts.output(1)
        c_branch = half
    else:
        keep = conv_bn(x, w, c_in, c_in, 3, 2, f"{name}.branch1.0", groups=c_in, gamma=_DW_GAMMA)
        keep = _conv_bn_relu(keep, w, c_in, half, 1, 1, f"{name}.branch1.2")
        y, c_branch = x, c_in
    y = _conv_bn_relu(y, w, c_branch, half, 1, 1, f"{name}.branch2.0")
    y = conv_bn(y, w, half, half, 3, stride, f"{name}.branch2.3", groups=half, gamma=_DW_GAMMA)
    y = _conv_bn_relu(y, w, half, half, 1, 1, f"{name}.branch2.5")
    return _channel_shuffle(ops.concat([keep, y], 1, name=f"{name}.concat"), c_out, hw, name)


def shufflenet_v2(size: int = 224) -> Model:
    """ShuffleNet v2 1.0x (torchvision): 3×3/2 stem to 24 channels, 3×3/2 max pool, stages of
    [4, 8, 4] blocks at [116, 232, 464] channels (the first of each stage downsamples through two
    branches; the others split the channels in half by Split and transform one half: 1×1, 3×3
    depthwise, 1×1), Concat and channel shuffle after every block, 1×1 conv to 1024, global pool,
    dense 1024→1000."""
    w = Weights(2)
    x = _image(size)
    h: Value = _conv_bn_relu(x, w, 3, 24, 3, 2, "conv1")
    h = _max_pool(h, 3, 2, 1, "maxpool").output(0)
    c, hw = 24, size // 4
    for s, (blocks, c_out) in enumerate(SHUFFLENET_V2_STAGES, start=2):
        for i in range(blocks):
            stride = 2 if i == 0 else 1
            hw = (hw + 1) // 2 if stride == 2 else hw
            h = _shuffle_block(h, w, c, c_out, stride, hw, f"stage{s}.{i}")
            c = c_out
    h = _conv_bn_relu(h, w, c, 1024, 1, 1, "conv5")
    return Model([_classifier(h, w, 1024, "fc")], [x], "shufflenet_v2")
