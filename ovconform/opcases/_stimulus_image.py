"""Stimulus cases of the detection, image, state and string op versions that had none (issue #20 gap).

Each op version gets the axes its kernels tile at remainder and large sizes, the element types of
its spec and, where it has a dynamic-shape path, one compiled model inferring three shapes:

* **ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2, PSROIPooling-1, DeformablePSROIPooling-1** —
  65 and 129 ROIs (a kernel that tiles ROIs by 64 runs its tail tile), 65 channels, 56×56 maps of
  >= 64K elements, f16 (bf16 and f64 at exhaustive depth) and a dynamic ROI count. ROI corners are
  multiples of 1/4 and the scales powers of two, so sample positions are exact in f32 (as the
  generated cases draw them); ROIAlign boxes are never inverted, and adaptive sampling never meets
  an empty side (the spec defines no samples there). PSROIPooling ROIs stay inside the map.
  ROIPooling's max-mode ROIs are redrawn until no corner times the scale is a half (a rounding tie)
  and every bin edge the spec puts on a whole pixel (``i * size / pooled``) is that pixel in f32 too
  (else ``floor``/``ceil`` take a pixel more or less depending on the order of operations).
* **PriorBox-1/8, PriorBoxClustered-1** — layer grids of 17×33 and 65×129 cells and 128×128 (more
  than 64K output values). The output shape follows the *value* of ``output_size`` (a Constant):
  there is no dynamic-shape path to test.
* **Proposal-1/4, GenerateProposals-9, ExperimentalDetectronGenerateProposalsSingleImage-6** —
  feature maps of 17×33 and 38×50 cells with 9 or 4 anchors (thousands of boxes into NMS). Scores
  are all different as their type holds them, ``(k + 0.5) / count`` or, for f16, distinct f16
  values (the spec leaves the order of ties open); NMS
  thresholds are multiples of 1/1024. Deltas are continuous, so an IoU equal to the threshold has
  probability zero; ``post_nms_topn`` stays far below the boxes that survive (OpenVINO CPU
  misbehaves when fewer survive; see ``opcases/detection/_proposal.py``). With anchors of up to
  512 pixels a corner is the difference of values near the image size: Proposal's tolerance class
  is GenerateProposals' (``ovconform/tolerances.py``).
* **ExperimentalDetectronDetectionOutput-6** — the generated cases' cluster layout (the top box of
  each cluster and class survives NMS, so ``max_detections_per_image`` rows are defined) on
  9×9 and 12×12 grids of clusters (up to about 300 ROIs), 3 to 9 classes, up to 500 detections.
  **ExperimentalDetectronTopKROIs-6** — 129, 1,000 and 16,385 ROIs with distinct probabilities;
  **ExperimentalDetectronPriorGridGenerator-6** — grids of 65×33 and 128×128 cells;
  **ExperimentalDetectronROIFeatureExtractor-6** — 129 ROIs over four levels of a 448-pixel image
  with 16 channels (the finest level 112×112: 200K elements), and 65 channels.
* **RegionYolo-1, ReorgYolo-2** — YOLOv2/v3 heads (125 and 255 channels at 13×13 and 26×26),
  remainder widths, f16; ReorgYolo (pure data movement) also i32/u8 and NaN / ±Inf values; each
  has a dynamic spatial size.
* **NV12toRGB/BGR-8, I420toRGB/BGR-8** — 56×56 and 256×320 images, widths of 34, 66, 130 and 126
  (chroma rows of 17, 33, 65 and 63: the tail of a vector loop), single- and multi-plane, u8 / f32
  / f16, a dynamic image size. With u8 no pixel's R, G or B lies halfway between two integers (the
  spec does not say how such a half rounds; see ``opcases/image.py``).
  **RGBtoNV12/BGRtoNV12-17** — the same sizes from [N, H, W, 3] images.
* **ReadValue-3/6, Assign-3/6** — the generated cases' loop ``ReadValue(init) -> Add(x) ->
  Assign`` over three inferences with states of 3×65 and 2×32771 elements, f16 and i32; values are
  multiples of 1/8 below 16 (f16 sums of three of them are exact, whatever the order: OpenVINO CPU
  rounds f16 accumulations differently). ReadValue-6 and Assign-6 also keep a state of dynamic
  shape: ``ReadValue(x) -> Assign(x)`` returns the previous inference's input, whose shape differs.
* **StringTensorUnpack-15 / StringTensorPack-15** — 4,097 strings, strings of up to 5,000 characters
  (up to 20,000 bytes), empty strings (for Unpack only: OpenVINO CPU packs an empty string from stale
  memory, which is not reproducible) and 1- to 4-byte UTF-8 characters, i32 and i64 offsets, a
  dynamic string count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Model, Node, PartialShape, Type, make_node
from ovconform.opcases import OpCase
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._stimulus_numeric import const_rng, stim
from ovconform.opcases.depth import Depth
from ovconform.opcases.detection._generate_proposals import rpn_anchors
from ovconform.opcases.image import _avoid_halves, _yuv_views

F32, F16, BF16, F64, I64 = Type.f32, Type.f16, Type.bf16, Type.f64, Type.i64
EXH = Depth.EXHAUSTIVE


def _quarters(rng: np.random.Generator, shape: tuple[int, ...], low: float, high: float) -> np.ndarray:
    return rng.integers(int(low * 4), int(high * 4) + 1, shape) / 4


#: Every f16 value in [2^-10, 1): 10,240 distinct scores.
F16_SCORES = np.arange(0x1400, 0x3C00, dtype=np.uint16).view(np.float16).astype(np.float64)


def _scores(rng: np.random.Generator, shape: tuple[int, ...], et: Type = F32) -> np.ndarray:
    """All different as ``et`` holds them: ``(k + 0.5) / count`` for a permutation ``k``, or for f16
    distinct f16 values (``(k + 0.5) / count`` rounds to ties in f16 past 2,048 scores)."""
    count = int(np.prod(shape))
    if et == F16:
        return rng.choice(F16_SCORES, count, replace=False).reshape(shape)
    return ((rng.permutation(count) + 0.5) / count).reshape(shape)


# -- ROIAlign-3/9, ROIAlignRotated-15 ---------------------------------------------------------------------------

def roi_align_make(version: int, *, pooled: int = 7, ratio: int = 2, mode: str = "avg", scale: float = 0.5,
                   aligned: str = "asymmetric", et: Type = F32, it: Type = Type.i32) -> SR.MakeAt:
    """The case's shape is ``(N, C, H, W, rois)``; corners on a quarter grid, up to a pixel outside."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, c, h, w, count = shape
        data = b.param("data", b.uniform((n, c, h, w), et, -4, 4), et)
        x = np.sort(_quarters(b.rng, (count, 2), -1, w / scale + 1), axis=1)
        y = np.sort(_quarters(b.rng, (count, 2), -1, h / scale + 1), axis=1)
        corners = np.stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]], axis=1)
        for lo, hi in ((0, 2), (1, 3)):  # no empty side (adaptive sampling would take 0 samples)
            corners[:, hi] = np.where(corners[:, hi] == corners[:, lo], corners[:, lo] + 0.25, corners[:, hi])
        rois = b.param("rois", S.cast(corners, et), et)
        idx = b.param("batch_indices", b.rng.integers(0, n, count).astype(it.to_dtype()), it)
        return opset.roi_align(data, rois, idx, pooled, pooled, ratio, scale, mode, aligned, version=version)

    return make


def roi_rotated_make(*, pooled: int = 7, ratio: int = 2, scale: float = 0.5, clockwise: bool = False,
                     et: Type = F32) -> SR.MakeAt:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, c, h, w, count = shape
        data = b.param("data", b.uniform((n, c, h, w), et, -4, 4), et)
        hh, ww = h / scale, w / scale
        centre = np.stack([_quarters(b.rng, (count,), 0, ww), _quarters(b.rng, (count,), 0, hh)], axis=1)
        size = _quarters(b.rng, (count, 2), 0.5, max(hh, ww) / 2)
        angle = b.rng.uniform(-np.pi, np.pi, (count, 1))
        rois = b.param("rois", S.cast(np.concatenate([centre, size, angle], axis=1), et), et)
        idx = b.param("batch_indices", b.rng.integers(0, n, count).astype(np.int32), Type.i32)
        return opset.roi_align_rotated(data, rois, idx, pooled, pooled, ratio, scale, clockwise)

    return make


def roi_align_recipe(version: int) -> S.Recipe:
    op = "ROIAlign"

    def recipe() -> Iterable[S.Stimulus]:
        modes = ("half_pixel_for_nn", "half_pixel") if version == 9 else ("asymmetric", "asymmetric")
        for r in (65, 129):
            yield stim(op, version, f"rois{r}", roi_align_make(version, aligned=modes[r % 2]), (2, 4, 14, 14, r))
        yield stim(op, version, "rois129-max", roi_align_make(version, mode="max", pooled=3), (2, 3, 9, 9, 129))
        yield stim(op, version, "c65-adaptive", roi_align_make(version, pooled=3, ratio=0, scale=1.0,
                                                               aligned=modes[0], it=Type.i64), (1, 65, 9, 17, 9))
        yield stim(op, version, "hw56", roi_align_make(version, pooled=7, scale=0.25), (1, 24, 56, 56, 33),
                   size="large")
        for et, depth in ((F16, Depth.STANDARD), (BF16, EXH), (F64, EXH)):
            yield stim(op, version, f"{et.name}-rois65", roi_align_make(version, pooled=3, et=et), (2, 3, 9, 9, 65),
                       et=et, depth=depth)
        yield stim(op, version, "dynamic", roi_align_make(version, pooled=3, aligned=modes[1]), (2, 3, 9, 9, 7),
                   shapes=((2, 3, 9, 9, 7), (2, 3, 9, 9, 65), (2, 3, 9, 9, 129)))

    return recipe


for _v in (3, 9):
    S.register_stimuli("ROIAlign", _v)(roi_align_recipe(_v))


@S.register_stimuli("ROIAlignRotated", 15)
def roi_rotated_recipe() -> Iterable[S.Stimulus]:
    op = "ROIAlignRotated"
    yield stim(op, 15, "rois65", roi_rotated_make(pooled=3), (2, 4, 14, 14, 65))
    yield stim(op, 15, "rois129-cw", roi_rotated_make(pooled=2, clockwise=True), (2, 3, 9, 9, 129))
    yield stim(op, 15, "c65-adaptive", roi_rotated_make(pooled=3, ratio=0, scale=1.0), (1, 65, 9, 17, 9))
    yield stim(op, 15, "hw56", roi_rotated_make(pooled=7, scale=0.25), (1, 24, 56, 56, 17), size="large")
    yield stim(op, 15, "f16-rois65", roi_rotated_make(pooled=3, et=F16), (2, 3, 9, 9, 65), et=F16)
    yield stim(op, 15, "bf16-rois65", roi_rotated_make(pooled=3, et=BF16), (2, 3, 9, 9, 65), et=BF16, depth=EXH)
    yield stim(op, 15, "dynamic", roi_rotated_make(pooled=3), (2, 3, 9, 9, 7),
               shapes=((2, 3, 9, 9, 7), (2, 3, 9, 9, 65), (2, 3, 9, 9, 129)))


# -- ROIPooling-2, PSROIPooling-1, DeformablePSROIPooling-1 -------------------------------------------------------

def _boxes(rng: np.random.Generator, count: int, batches: int, low: float, high: float) -> np.ndarray:
    corners = np.sort(rng.uniform(low, high, (count, 2, 2)), axis=1)  # x1 <= x2, y1 <= y2
    ids = rng.integers(0, batches, (count, 1))
    return np.concatenate([ids, corners[:, 0], corners[:, 1]], axis=1)


def _max_bins_exact(box: np.ndarray, scale: float, pooled: int) -> bool:
    """No corner times ``scale`` is a half (a rounding tie) and each bin edge the spec's real arithmetic puts
    on a whole pixel (``i * size / pooled``) is that pixel in f32 too (``i * (size / pooled)`` may miss it:
    ``floor`` / ``ceil`` would then take one pixel more or less, depending on the order of operations)."""
    coords = np.asarray(box, np.float32) * np.float32(scale)
    if np.any(np.abs(coords - np.trunc(coords)) == 0.5):
        return False
    x1, y1, x2, y2 = (int(np.sign(v) * np.floor(abs(v) + 0.5)) for v in coords)
    for length in (max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)):
        size = np.float32(length) / np.float32(pooled)
        if any((i * length) % pooled == 0 and np.float32(i) * size != i * length // pooled
               for i in range(1, pooled + 1)):
            return False
    return True


def roi_pooling_make(method: str, pooled: int, scale: float = 1.0, et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(N, C, H, W, rois)``; max ROIs redrawn until their bins are exact (see
    :func:`_max_bins_exact`)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, c, h, w, count = shape
        maps = b.param("feature_maps", b.uniform((n, c, h, w), et, -10, 10), et)
        limit = (max(h, w) + 1) / scale if method == "max" else 1.0
        boxes = S.cast(_boxes(b.rng, count, n, -0.1 * limit, limit), et)
        for _ in range(100):
            bad = [k for k, box in enumerate(SR.as_f64(boxes, et)) if method == "max"
                   and not _max_bins_exact(box[1:], scale, pooled)]
            if not bad:
                break
            boxes[bad] = S.cast(_boxes(b.rng, len(bad), n, -0.1 * limit, limit), et)
        rois = b.param("rois", boxes, et)
        return opset.roi_pooling(maps, rois, [pooled, pooled], scale, method)

    return make


@S.register_stimuli("ROIPooling", 2)
def roi_pooling_recipe() -> Iterable[S.Stimulus]:
    op = "ROIPooling"
    yield stim(op, 2, "max-rois129", roi_pooling_make("max", 3, 0.5), (2, 4, 9, 9, 129))
    yield stim(op, 2, "bilinear-rois65", roi_pooling_make("bilinear", 3), (2, 4, 9, 9, 65))
    yield stim(op, 2, "max-c65", roi_pooling_make("max", 2, 0.25), (1, 65, 9, 17, 9))
    yield stim(op, 2, "max-hw56", roi_pooling_make("max", 7, 0.25), (1, 24, 56, 56, 33), size="large")
    yield stim(op, 2, "bilinear-hw56", roi_pooling_make("bilinear", 7), (1, 24, 56, 56, 33), size="large")
    yield stim(op, 2, "f16-max-rois65", roi_pooling_make("max", 3, 0.5, F16), (2, 4, 9, 9, 65), et=F16)
    yield stim(op, 2, "bf16-max-rois65", roi_pooling_make("max", 3, 0.5, BF16), (2, 4, 9, 9, 65), et=BF16,
               depth=EXH)
    yield stim(op, 2, "dynamic", roi_pooling_make("max", 3, 0.5), (2, 4, 9, 9, 7),
               shapes=((2, 4, 9, 9, 7), (2, 4, 9, 9, 65), (2, 4, 9, 9, 129)))


def psroi_make(mode: str, dim: int, group: int, bins: int = 1, scale: float = 1.0, et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(N, H, W, rois)``; channels ``dim * group²`` (average) or ``dim * bins²``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, h, w, count = shape
        per = group * group if mode == "average" else bins * bins
        maps = b.param("feature_maps", b.uniform((n, dim * per, h, w), et, -10, 10), et)
        high = (min(h, w) - 1) / scale if mode == "average" else 1.0
        rois = b.param("rois", S.cast(_boxes(b.rng, count, n, 0.0, high), et), et)
        return opset.psroi_pooling(maps, rois, dim, group, scale, bins, bins, mode)

    return make


@S.register_stimuli("PSROIPooling", 1)
def psroi_recipe() -> Iterable[S.Stimulus]:
    op = "PSROIPooling"
    yield stim(op, 1, "average-rois129", psroi_make("average", 3, 3), (2, 9, 9, 129))
    yield stim(op, 1, "bilinear-rois65", psroi_make("bilinear", 3, 3, bins=2), (2, 9, 9, 65))
    yield stim(op, 1, "average-dim65", psroi_make("average", 65, 2, scale=0.5), (1, 9, 17, 9))
    yield stim(op, 1, "average-hw56", psroi_make("average", 8, 3, scale=0.5), (1, 56, 56, 33), size="large")
    yield stim(op, 1, "bilinear-hw56", psroi_make("bilinear", 8, 3, bins=3), (1, 56, 56, 33), size="large")
    yield stim(op, 1, "f16-average-rois65", psroi_make("average", 3, 3, et=F16), (2, 9, 9, 65), et=F16)
    yield stim(op, 1, "dynamic", psroi_make("average", 3, 3), (2, 9, 9, 7),
               shapes=((2, 9, 9, 7), (2, 9, 9, 65), (2, 9, 9, 129)))


def deformable_make(dim: int, group: int, *, bins: int = 2, part: int = 3, offsets: bool = True,
                    scale: float = 0.5, et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(N, H, W, rois)``; corners on a quarter grid avoiding .5 (a rounding tie)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, h, w, count = shape
        data = b.param("data", b.uniform((n, dim * group * group, h, w), et, -2, 2), et)
        quarters = b.rng.choice(np.array([0.0, 0.25, 0.75]), (count, 4))
        xs = np.sort(b.rng.integers(0, int(w / scale) + 2, (count, 2)) + quarters[:, :2], axis=1)
        ys = np.sort(b.rng.integers(0, int(h / scale) + 2, (count, 2)) + quarters[:, 2:], axis=1)
        ids = b.rng.integers(0, n, count)
        rois = b.param("rois", S.cast(np.stack([ids, xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1]], axis=1), et), et)
        trans = b.param("offsets", b.uniform((count, 2, part, part), et, -1, 1), et) if offsets else None
        return opset.deformable_psroi_pooling(data, rois, dim, scale, group, "bilinear_deformable", bins, bins,
                                              0.125, part, trans)

    return make


@S.register_stimuli("DeformablePSROIPooling", 1)
def deformable_recipe() -> Iterable[S.Stimulus]:
    op = "DeformablePSROIPooling"
    yield stim(op, 1, "rois129", deformable_make(3, 3), (2, 9, 9, 129))
    yield stim(op, 1, "rois65-no-offsets", deformable_make(2, 3, offsets=False), (2, 9, 9, 65))
    yield stim(op, 1, "dim65", deformable_make(65, 2, bins=1, part=2), (1, 9, 17, 9))
    yield stim(op, 1, "hw56", deformable_make(8, 3, scale=0.25), (1, 56, 56, 33), size="large")
    yield stim(op, 1, "f16-rois65", deformable_make(3, 3, et=F16), (2, 9, 9, 65), et=F16)
    yield stim(op, 1, "dynamic", deformable_make(3, 3), (2, 9, 9, 7),
               shapes=((2, 9, 9, 7), (2, 9, 9, 65), (2, 9, 9, 129)))


# -- PriorBox-1/8, PriorBoxClustered-1 ------------------------------------------------------------------------------

def prior_make(version: int, attrs: dict[str, Any], image: tuple[int, int], it: Type = Type.i64,
               clustered: bool = False) -> SR.MakeAt:
    """The case's shape is the layer grid ``(H, W)`` (a Constant); the image size is a Parameter."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        layer = b.const(np.array(shape, it.to_dtype()), it)
        size = b.param("image_size", np.array(image, it.to_dtype()), it)
        if clustered:
            return opset.prior_box_clustered(layer, size, attrs)
        return opset.prior_box(layer, size, attrs, version=version)

    return make


SSD_PRIOR = {"min_size": [30.0], "max_size": [60.0], "aspect_ratio": [2.0, 3.0], "flip": True, "clip": False,
             "offset": 0.5, "variance": [0.1, 0.1, 0.2, 0.2], "scale_all_sizes": True, "step": 8.0}


def prior_recipe(version: int) -> S.Recipe:
    op = "PriorBox"

    def recipe() -> Iterable[S.Stimulus]:
        extra = {"min_max_aspect_ratios_order": False} if version == 8 else {}
        ssd = {**SSD_PRIOR, **extra}
        yield stim(op, version, "grid17x33", prior_make(version, ssd, (300, 300)), (17, 33), et=I64)
        yield stim(op, version, "grid65x129-clip-i32", prior_make(version, {**ssd, "clip": True, "step": 0.0},
                                                                  (512, 1024), Type.i32), (65, 129), et=Type.i32)
        yield stim(op, version, "grid128", prior_make(version, {**ssd, "aspect_ratio": [2.0], "step": 4.0},
                                                      (512, 512)), (128, 128), size="large", et=I64)
        fixed = {"fixed_size": [32.0], "density": [2.0], "aspect_ratio": [2.0], "flip": False, "clip": False,
                 "offset": 0.5, "variance": [0.1], "scale_all_sizes": True, "step": 16.0, "min_size": [],
                 **extra}
        yield stim(op, version, "fixed-grid33x17", prior_make(version, fixed, (544, 272)), (33, 17), et=I64)

    return recipe


for _v in (1, 8):
    S.register_stimuli("PriorBox", _v)(prior_recipe(_v))


@S.register_stimuli("PriorBoxClustered", 1)
def prior_clustered_recipe() -> Iterable[S.Stimulus]:
    op = "PriorBoxClustered"
    yolo = {"width": [10.0, 16.0, 33.0, 30.0, 62.0], "height": [13.0, 30.0, 23.0, 61.0, 45.0], "clip": False,
            "offset": 0.5, "variance": [0.1, 0.1, 0.2, 0.2], "step_w": 16.0, "step_h": 16.0}
    yield stim(op, 1, "grid17x33", prior_make(1, yolo, (272, 528), clustered=True), (17, 33), et=I64)
    yield stim(op, 1, "grid65x129-clip-i32", prior_make(1, {**yolo, "clip": True, "step_w": 0.0, "step_h": 0.0},
                                                        (520, 1032), Type.i32, clustered=True), (65, 129),
               et=Type.i32)
    yield stim(op, 1, "grid128", prior_make(1, {**yolo, "width": [12.0, 24.0, 48.0], "height": [8.0, 24.0, 40.0]},
                                            (1024, 1024), clustered=True), (128, 128), size="large", et=I64)


# -- Proposal-1/4 --------------------------------------------------------------------------------------------------

def proposal_make(version: int, attrs: dict[str, Any], image: tuple[float, float], et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(N, H, W)`` of the feature map."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, h, w = shape
        anchors = len(attrs["ratio"]) * len(attrs["scale"])
        probs = b.param("class_probs", S.cast(_scores(b.rng, (n, 2 * anchors, h, w), et), et), et)
        deltas = b.param("bbox_deltas", b.uniform((n, 4 * anchors, h, w), et, -0.5, 0.5), et)
        info = b.param("image_shape", np.array([*image, 1.0], et.to_dtype()), et)
        return opset.proposal(probs, deltas, info, attrs, version=version)

    return make


RPN = {"base_size": 16, "pre_nms_topn": 600, "post_nms_topn": 32, "nms_thresh": 717 / 1024, "feat_stride": 16,
       "min_size": 16, "ratio": [0.5, 1.0, 2.0], "scale": [8.0, 16.0, 32.0], "clip_before_nms": True,
       "clip_after_nms": False, "normalize": False, "box_size_scale": 1.0, "box_coordinate_scale": 1.0,
       "framework": ""}


def proposal_recipe(version: int) -> S.Recipe:
    op = "Proposal"

    def recipe() -> Iterable[S.Stimulus]:
        yield stim(op, version, "map17x33", proposal_make(version, RPN, (272.0, 528.0)), (1, 17, 33))
        yield stim(op, version, "map38x50", proposal_make(version, {**RPN, "pre_nms_topn": 1000,
                                                                    "post_nms_topn": 64}, (600.0, 800.0)),
                   (1, 38, 50), size="large")
        yield stim(op, version, "tf-b2-map15x15", proposal_make(version, {**RPN, "framework": "tensorflow",
                                                                          "normalize": True, "clip_after_nms": True},
                                                                (240.0, 240.0)), (2, 15, 15))
        yield stim(op, version, "f16-map9x17", proposal_make(version, {**RPN, "pre_nms_topn": 300},
                                                             (144.0, 272.0), F16), (1, 9, 17), et=F16)
        yield stim(op, version, "dynamic", proposal_make(version, RPN, (272.0, 528.0)), (1, 9, 9),
                   shapes=((1, 9, 9), (1, 17, 33), (1, 20, 40)))

    return recipe


for _v in (1, 4):
    S.register_stimuli("Proposal", _v)(proposal_recipe(_v))


# -- RegionYolo-1, ReorgYolo-2 -----------------------------------------------------------------------------------

def region_make(coords: int, classes: int, num: int, softmax: bool, mask: list[int], et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(N, H, W)``; channels ``regions * (coords + classes + 1)``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, h, w = shape
        regions = num if softmax else len(mask)
        data = b.param("data", b.uniform((n, regions * (coords + classes + 1), h, w), et, -4, 4), et)
        anchors = [10.0, 13.0, 16.0, 30.0, 33.0, 23.0, 30.0, 61.0, 62.0, 45.0, 59.0, 119.0][:2 * max(num, 3)]
        return opset.region_yolo(data, coords, classes, num, softmax, mask, 1, 3, anchors)

    return make


@S.register_stimuli("RegionYolo", 1)
def region_recipe() -> Iterable[S.Stimulus]:
    op = "RegionYolo"
    yield stim(op, 1, "v2-voc13", region_make(4, 20, 5, True, []), (1, 13, 13))  # 125 channels
    yield stim(op, 1, "v3-coco26", region_make(4, 80, 9, False, [3, 4, 5]), (1, 26, 26), size="large")  # 255
    yield stim(op, 1, "classes17-w65", region_make(4, 17, 3, True, []), (2, 3, 65))
    yield stim(op, 1, "mask-w129", region_make(4, 7, 6, False, [0, 2, 4]), (1, 5, 129))
    yield stim(op, 1, "f16-v2-voc13", region_make(4, 20, 5, True, [], F16), (1, 13, 13), et=F16)
    yield stim(op, 1, "bf16-v2-voc13", region_make(4, 20, 5, True, [], BF16), (1, 13, 13), et=BF16, depth=EXH)
    yield stim(op, 1, "dynamic", region_make(4, 20, 3, False, [0, 1, 2]), (1, 7, 7),
               shapes=((1, 7, 7), (1, 13, 17), (2, 26, 33)))


def reorg_make(stride: int, et: Type = F32, specials: bool = False) -> SR.MakeAt:
    """The case's shape is the data's ``(N, C, H, W)``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        if specials:
            value = S.with_specials(b.rng, b.rng.uniform(-50, 50, shape), et, ("nan", "inf", "-inf", "-0"))
        else:
            value = b.uniform(shape, et, -50, 50) if et.is_real() or et.is_signed() else b.uniform(shape, et, 0, 200)
        return opset.reorg_yolo(b.param("data", value, et), stride)

    return make


@S.register_stimuli("ReorgYolo", 2)
def reorg_recipe() -> Iterable[S.Stimulus]:
    op = "ReorgYolo"
    yield stim(op, 2, "v2-c64-hw26", reorg_make(2), (1, 64, 26, 26))
    yield stim(op, 2, "w66", reorg_make(2), (1, 4, 6, 66))
    yield stim(op, 2, "s3-c9-w129", reorg_make(3), (1, 9, 3, 129))
    yield stim(op, 2, "large", reorg_make(2), (1, 64, 32, 34), size="large")
    yield stim(op, 2, "special-f32", reorg_make(2, specials=True), (1, 4, 6, 34), values="special")
    for et, depth in ((F16, Depth.STANDARD), (Type.i32, Depth.STANDARD), (Type.u8, Depth.STANDARD),
                      (Type.i64, EXH), (Type.i8, EXH), (BF16, EXH)):
        yield stim(op, 2, f"{et.name}-w66", reorg_make(2, et), (1, 4, 6, 66), et=et, depth=depth)
    yield stim(op, 2, "dynamic", reorg_make(2), (1, 4, 6, 14), shapes=((1, 4, 6, 14), (1, 4, 10, 66), (2, 4, 26, 130)))


# -- GenerateProposals-9, ExperimentalDetectronGenerateProposalsSingleImage-6 --------------------------------------

GRID_SHAPES = [(16 / np.sqrt(r), 16 * np.sqrt(r)) for r in (0.5, 1.0, 2.0)] + [(48.0, 48.0)]


def _deltas(rng: np.random.Generator, anchors: int, h: int, w: int) -> np.ndarray:
    deltas = rng.uniform(-0.5, 0.5, (anchors, 4, h, w))
    big = rng.random((anchors, 2, h, w)) < 0.05  # past the log(1000 / 16) clamp
    deltas[:, 2:] = np.where(big, rng.uniform(4.0, 4.5, big.shape), deltas[:, 2:])
    return deltas


def generate_make(single: bool, pre: int, post: int, *, et: Type = F32, stride: int = 8, min_size: float = 1.0,
                  normalized: bool = True, roi_type: Type = Type.i64) -> SR.MakeAt:
    """The case's shape is ``(N, H, W)``: anchors of 4 shapes on an H x W map of ``stride`` pixels."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, h, w = shape
        a = len(GRID_SHAPES)
        dt = et.to_dtype()
        anchors = rpn_anchors(h, w, stride, GRID_SHAPES)
        threshold = 717 / 1024
        if single:
            return opset.experimental_detectron_generate_proposals_single_image(
                b.param("im_info", np.array([h * stride, w * stride, 1.0], dt), et),
                b.param("anchors", anchors.reshape(-1, 4).astype(dt), et),
                b.param("deltas", _deltas(b.rng, a, h, w).reshape(4 * a, h, w).astype(dt), et),
                b.param("scores", _scores(b.rng, (a, h, w), et).astype(dt), et), min_size, threshold, pre, post)
        info = np.concatenate([np.tile([[h * stride, w * stride]], (n, 1)), b.rng.choice([1.0, 1.5], (n, 2))], axis=1)
        deltas = np.stack([_deltas(b.rng, a, h, w) for _ in range(n)]).reshape(n, 4 * a, h, w)
        return opset.generate_proposals(
            b.param("im_info", info.astype(dt), et), b.param("anchors", anchors.astype(dt), et),
            b.param("deltas", deltas.astype(dt), et),
            b.param("scores", _scores(b.rng, (n, a, h, w), et).astype(dt), et),
            min_size, threshold, pre, post, normalized=normalized, nms_eta=1.0, roi_num_type=roi_type)

    return make


@S.register_stimuli("GenerateProposals", 9)
def generate_recipe() -> Iterable[S.Stimulus]:
    op = "GenerateProposals"
    yield stim(op, 9, "map17x33", generate_make(False, 1000, 65), (1, 17, 33))
    yield stim(op, 9, "b2-map15x17-i32", generate_make(False, 600, 129, roi_type=Type.i32, normalized=False),
               (2, 15, 17))
    yield stim(op, 9, "map38x50", generate_make(False, 2000, 300, stride=16), (1, 38, 50), size="large")
    yield stim(op, 9, "f16-map17x33", generate_make(False, 500, 33, et=F16), (1, 17, 33), et=F16)
    yield stim(op, 9, "dynamic", generate_make(False, 300, 17), (1, 7, 9),
               shapes=((1, 7, 9), (1, 17, 33), (2, 20, 25)))


@S.register_stimuli("ExperimentalDetectronGenerateProposalsSingleImage", 6)
def generate_single_recipe() -> Iterable[S.Stimulus]:
    op = "ExperimentalDetectronGenerateProposalsSingleImage"
    yield stim(op, 6, "map17x33", generate_make(True, 1000, 65), (1, 17, 33))
    yield stim(op, 6, "map15x17-post129", generate_make(True, 600, 129, min_size=0.0), (1, 15, 17))
    yield stim(op, 6, "map38x50", generate_make(True, 2000, 300, stride=16), (1, 38, 50), size="large")
    yield stim(op, 6, "f16-map17x33", generate_make(True, 500, 33, et=F16), (1, 17, 33), et=F16)
    yield stim(op, 6, "dynamic", generate_make(True, 300, 17), (1, 7, 9), shapes=((1, 7, 9), (1, 17, 33), (1, 20, 25)))


# -- ExperimentalDetectron DetectionOutput / PriorGridGenerator / ROIFeatureExtractor / TopKROIs -------------------

def ed_output_make(classes: int, post: int, max_det: int, *, agnostic: bool = False, et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(grid,)``: ``grid`` x ``grid`` clusters 64 px apart, 1..3 overlapping ROIs each,
    deltas small enough that refined boxes stay inside their cell (opcases/detection/_detectron.py): the top
    box of each cluster and class survives NMS, so ``max_det`` (at most clusters x classes) rows are defined."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        grid = shape[0]
        rois, owner = [], []
        for k in range(grid * grid):
            ox, oy = 8 + 64 * (k % grid), 8 + 64 * (k // grid)
            for _ in range(int(b.rng.integers(1, 4))):
                x0, y0 = ox + b.rng.uniform(8, 14), oy + b.rng.uniform(8, 14)
                rois.append([x0, y0, x0 + b.rng.uniform(24, 30), y0 + b.rng.uniform(24, 30)])
                owner.append(k)
        n = len(rois)
        deltas = b.rng.uniform(-0.5, 0.5, (n, classes, 4))
        scores = _scores(b.rng, (n, classes), et)
        threshold = 0.0
        if not agnostic:
            scores[:, 0] = 0.0  # the background never passes (OpenVINO CPU never returns class 0)
        side = 64 * grid + 16
        dt = et.to_dtype()
        attrs = {"score_threshold": threshold, "nms_threshold": 512 / 1024,
                 "max_delta_log_wh": float(np.float32(np.log(1000 / 16))), "num_classes": classes,
                 "post_nms_count": post, "max_detections_per_image": max_det,
                 "class_agnostic_box_regression": agnostic, "deltas_weights": [10.0, 10.0, 5.0, 5.0]}
        return opset.experimental_detectron_detection_output(
            b.param("rois", np.array(rois, dt), et), b.param("deltas", deltas.reshape(n, 4 * classes).astype(dt), et),
            b.param("scores", scores.astype(dt), et), b.param("im_info", np.array([[side, side, 1]], dt), et), attrs)

    return make


@S.register_stimuli("ExperimentalDetectronDetectionOutput", 6)
def ed_output_recipe() -> Iterable[S.Stimulus]:
    op = "ExperimentalDetectronDetectionOutput"
    yield stim(op, 6, "clusters81-c9", ed_output_make(9, 129, 129), (9,))
    yield stim(op, 6, "clusters144-c5", ed_output_make(5, 300, 500), (12,), size="large")
    yield stim(op, 6, "agnostic-clusters64-c3", ed_output_make(3, 65, 65, agnostic=True), (8,))
    yield stim(op, 6, "f16-clusters49-c5", ed_output_make(5, 65, 100, et=F16), (7,), et=F16)
    yield stim(op, 6, "dynamic", ed_output_make(5, 33, 30), (3,), shapes=((3,), (7,), (9,)))


def prior_grid_make(priors: int, stride: int, flatten: bool, et: Type = F32, from_image: bool = False) -> SR.MakeAt:
    """The case's shape is the feature map's ``(H, W)``; the image ``stride`` times larger (1 channel)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        h, w = shape
        half = const_rng("ExperimentalDetectronPriorGridGenerator", 6, f"{priors}").uniform(2, 32, (priors, 2))
        pri = b.param("priors", np.concatenate([-half, half], axis=1).astype(et.to_dtype()), et)
        fmap = b.param("feature_map", b.uniform((1, 2, h, w), et, -1, 1), et)
        image = b.param("im_data", b.uniform((1, 1, h * stride, w * stride), et, 0, 1), et)
        attrs = {"flatten": flatten, "h": 0, "w": 0, "stride_x": 0.0 if from_image else float(stride),
                 "stride_y": 0.0 if from_image else float(stride)}
        return opset.experimental_detectron_prior_grid_generator(pri, fmap, image, attrs)

    return make


@S.register_stimuli("ExperimentalDetectronPriorGridGenerator", 6)
def prior_grid_recipe() -> Iterable[S.Stimulus]:
    op = "ExperimentalDetectronPriorGridGenerator"
    yield stim(op, 6, "grid65x33", prior_grid_make(3, 4, True), (65, 33))
    yield stim(op, 6, "grid17x129-4d", prior_grid_make(3, 2, False, from_image=True), (17, 129))
    yield stim(op, 6, "grid128", prior_grid_make(3, 2, True), (128, 128), size="large")
    yield stim(op, 6, "f16-grid65x33", prior_grid_make(3, 4, True, F16), (65, 33), et=F16)
    yield stim(op, 6, "dynamic", prior_grid_make(3, 4, True), (7, 9), shapes=((7, 9), (33, 17), (65, 33)))


def feature_extractor_make(channels: int, output: int, ratio: int, aligned: bool, et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(rois,)``: four levels (strides 4..32) of a 448-pixel image; ROIs inside it with
    sides from 8 to 448 (every level)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        count = shape[0]
        image, scales = 448, [4, 8, 16, 32]
        maps = [b.param(f"level{k}", b.uniform((1, channels, image // s, image // s), et, -4, 4), et)
                for k, s in enumerate(scales)]
        sides = np.exp(b.rng.uniform(np.log(8), np.log(image), (count, 2)))
        x0 = b.rng.uniform(0, image - sides[:, 0])
        y0 = b.rng.uniform(0, image - sides[:, 1])
        rois = np.stack([x0, y0, x0 + sides[:, 0], y0 + sides[:, 1]], axis=1).astype(et.to_dtype())
        attrs = {"output_size": output, "sampling_ratio": ratio, "pyramid_scales": scales, "aligned": aligned}
        return opset.experimental_detectron_roi_feature_extractor([b.param("rois", rois, et), *maps], attrs)

    return make


@S.register_stimuli("ExperimentalDetectronROIFeatureExtractor", 6)
def feature_extractor_recipe() -> Iterable[S.Stimulus]:
    op = "ExperimentalDetectronROIFeatureExtractor"
    yield stim(op, 6, "rois129", feature_extractor_make(4, 3, 2, False), (129,))
    yield stim(op, 6, "c65-rois17", feature_extractor_make(65, 2, 0, True), (17,))
    yield stim(op, 6, "c16-hw112-rois65", feature_extractor_make(16, 7, 2, True), (65,), size="large")
    yield stim(op, 6, "f16-rois65", feature_extractor_make(4, 3, 2, False, F16), (65,), et=F16)
    yield stim(op, 6, "dynamic", feature_extractor_make(4, 3, 2, False), (7,), shapes=((7,), (65,), (129,)))


def topk_rois_make(limit: int, et: Type = F32) -> SR.MakeAt:
    """The case's shape is ``(rois,)``; probabilities all different (ties leave the order undefined)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n = shape[0]
        corners = b.rng.uniform(0, 256, (n, 2, 2))
        rois = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1).astype(et.to_dtype())
        probs = _scores(b.rng, (n,), et).astype(et.to_dtype())
        return opset.experimental_detectron_topk_rois(b.param("input_rois", rois, et), b.param("rois_probs", probs, et),
                                                      limit)

    return make


@S.register_stimuli("ExperimentalDetectronTopKROIs", 6)
def topk_rois_recipe() -> Iterable[S.Stimulus]:
    op = "ExperimentalDetectronTopKROIs"
    yield stim(op, 6, "rois129-top65", topk_rois_make(65), (129,))
    yield stim(op, 6, "rois1000-top129", topk_rois_make(129), (1000,))
    yield stim(op, 6, "rois16385-top1000", topk_rois_make(1000), (16385,), size="large")
    yield stim(op, 6, "f16-rois1000-top129", topk_rois_make(129, F16), (1000,), et=F16)
    yield stim(op, 6, "dynamic", topk_rois_make(33), (65,), shapes=((65,), (129,), (1000,)))


# -- NV12/I420 to RGB/BGR, RGB/BGR to NV12 --------------------------------------------------------------------------

COLOR_BUILDERS: dict[str, Callable[..., Node]] = {
    "NV12toRGB": opset.nv12_to_rgb, "NV12toBGR": opset.nv12_to_bgr, "I420toRGB": opset.i420_to_rgb,
    "I420toBGR": opset.i420_to_bgr}


def color_make(op: str, single: bool, et: Type = Type.u8) -> SR.MakeAt:
    """The case's shape is ``(N, H, W)`` of the RGB image (even H and W); values in [0, 255]."""
    planes = 2 if op.startswith("NV12") else 3

    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, h, w = shape
        if single:
            arrays = {"yuv": b.uniform((n, h * 3 // 2, w, 1), et, 0, 255)}
        elif planes == 2:
            arrays = {"y": b.uniform((n, h, w, 1), et, 0, 255), "uv": b.uniform((n, h // 2, w // 2, 2), et, 0, 255)}
        else:
            arrays = {"y": b.uniform((n, h, w, 1), et, 0, 255), "u": b.uniform((n, h // 2, w // 2, 1), et, 0, 255),
                      "v": b.uniform((n, h // 2, w // 2, 1), et, 0, 255)}
        if et == Type.u8:
            _avoid_halves(*_yuv_views(arrays, planes, h, w))
        return COLOR_BUILDERS[op](*(b.param(name, value, et) for name, value in arrays.items()))

    return make


def color_recipe(op: str) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        yield stim(op, 8, "hw56", color_make(op, False), (1, 56, 56))
        yield stim(op, 8, "single-h56-w130", color_make(op, True), (1, 56, 130), et=Type.u8)
        yield stim(op, 8, "h58-w34", color_make(op, False), (2, 58, 34), et=Type.u8)
        yield stim(op, 8, "single-h56-w126", color_make(op, True), (1, 56, 126), et=Type.u8,
                   depth=EXH)
        yield stim(op, 8, "h256-w320", color_make(op, False), (1, 256, 320), size="large", et=Type.u8)
        yield stim(op, 8, "f32-h56-w66", color_make(op, False, F32), (1, 56, 66))
        yield stim(op, 8, "f16-single-h56-w66", color_make(op, True, F16), (1, 56, 66), et=F16)
        yield stim(op, 8, "dynamic", color_make(op, False), (1, 56, 56), et=Type.u8,
                   shapes=((1, 56, 56), (1, 58, 66), (2, 60, 130)))

    return recipe


for _op in COLOR_BUILDERS:
    S.register_stimuli(_op, 8)(color_recipe(_op))


def to_nv12_make(op: str, single: bool, et: Type = Type.u8) -> SR.MakeAt:
    """The case's shape is ``(N, H, W)``; u8 covers 0..255, floats [-40, 300] (every formula clips)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        image = b.uniform((*shape, 3), et, 0, 255) if et == Type.u8 else b.uniform((*shape, 3), et, -40, 300)
        build = opset.rgb_to_nv12 if op == "RGBtoNV12" else opset.bgr_to_nv12
        return build(b.param("image", image, et), single)

    return make


def to_nv12_recipe(op: str) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        yield stim(op, 17, "hw56", to_nv12_make(op, False), (1, 56, 56), et=Type.u8)
        yield stim(op, 17, "single-h56-w130", to_nv12_make(op, True), (1, 56, 130), et=Type.u8)
        yield stim(op, 17, "h58-w34", to_nv12_make(op, False), (2, 58, 34), et=Type.u8)
        yield stim(op, 17, "h256-w320", to_nv12_make(op, True), (1, 256, 320), size="large", et=Type.u8)
        yield stim(op, 17, "f32-h56-w66", to_nv12_make(op, False, F32), (1, 56, 66))
        yield stim(op, 17, "f16-single-h56-w66", to_nv12_make(op, True, F16), (1, 56, 66), et=F16)
        yield stim(op, 17, "dynamic", to_nv12_make(op, False), (1, 56, 56), et=Type.u8,
                   shapes=((1, 56, 56), (1, 58, 66), (2, 60, 130)))

    return recipe


for _op in ("RGBtoNV12", "BGRtoNV12"):
    S.register_stimuli(_op, 17)(to_nv12_recipe(_op))


# -- ReadValue-3/6, Assign-3/6 ----------------------------------------------------------------------------------------

STATE_NOTE = ("stateful: three inferences on one request; each reads what the previous one assigned. Values are "
              "multiples of 1/8 below 16 in magnitude: every sum is exact, in f16 too.")
DELAY_NOTE = ("stateful, dynamic state: ReadValue(x) -> Assign(x) returns the previous inference's input (the "
              "first inference: its own), of another shape than this one's.")


def _eighths(b: S.StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    if et.is_real():
        return S.cast(b.rng.integers(-40, 41, shape) / 8, et)
    return b.uniform(shape, et, -1000, 1000)


def state_case(op: str, version: int, label: str, shape: tuple[int, ...], et: Type, init: str) -> Callable[[], OpCase]:
    """``ReadValue(init) -> Add(x) -> Assign`` on a state of ``shape`` (init: "constant" or "parameter",
    or "none" for ReadValue-6: zeros)."""
    def build() -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, version, label))
        vid = f"state_{label}"
        inputs = []
        if init == "constant":
            inputs.append(b.const(_eighths(b, shape, et), et).output(0))
        elif init == "parameter":
            inputs.append(b.param("init", _eighths(b, shape, et), et).output(0))
        attrs: dict[str, Any] = {"variable_id": vid}
        if version == 6:
            attrs |= {"variable_type": et, "variable_shape": PartialShape(list(shape))}
        read = make_node("ReadValue", version, inputs, attrs)
        x = b.param("x", _eighths(b, shape, et), et)
        new_value = opset.add(read, x)
        sink = make_node("Assign", version, [new_value.output(0)], {"variable_id": vid})
        model = Model([opset.result(new_value), opset.result(read)], [sink], _params(b), f"{op}_{version}")
        return OpCase(op, version, model, dict(_inputs(b)), STATE_NOTE, {"stateful": True, "variables": [vid]})

    return build


def _params(b: S.StimulusBuilder) -> list[Node]:
    return list(b._params)  # noqa: SLF001 - the builder keeps them for finish(), which makes no sinks


def _inputs(b: S.StimulusBuilder) -> dict[str, np.ndarray]:
    return dict(b._inputs)  # noqa: SLF001


def delay_case(op: str, label: str, shapes: tuple[tuple[int, ...], ...], et: Type) -> Callable[[], OpCase]:
    """ReadValue-6 of a dynamic variable shape: ``ReadValue(x) -> Assign(x)``, three shapes in turn."""
    def one(shape: tuple[int, ...]) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, 6, label))
        vid = f"state_{label}"
        x = b.param("x", _eighths(b, shape, et), et)
        read = opset.read_value(x, vid, et, PartialShape([-1, shape[1]]))
        sink = opset.assign(x, vid)
        model = Model([opset.result(read)], [sink], _params(b), f"{op}_6")
        return OpCase(op, 6, model, _inputs(b), DELAY_NOTE, {"stateful": True, "variables": [vid]})

    def build() -> OpCase:
        case = S.dynamic_case([one(s) for s in shapes], note=DELAY_NOTE)
        case.extra.update(stateful=True, variables=[f"state_{label}"])
        return case

    return build


def state_recipe(op: str, version: int) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        def s(label: str, shape: tuple[int, ...], et: Type, init: str, size: str = "remainder",
              depth: Depth = Depth.STANDARD) -> S.Stimulus:
            return S.Stimulus(op, version, label, size, "ordinary", et, state_case(op, version, label, shape, et, init),
                              depth)

        yield s("rem65", (3, 65), F32, "constant")
        yield s("rem129-param", (1, 129), F32, "parameter")
        yield s("large", (2, 32771), F32, "parameter", "large")
        yield s("f16-rem65", (3, 65), F16, "constant")
        yield s("i32-rem63", (3, 63), Type.i32, "parameter")
        yield s("f16-large", (2, 32771), F16, "constant", "large", EXH)
        if version == 6:
            yield s("zeros-rem17", (17,), F32, "none")
            yield S.Stimulus(op, 6, "dynamic-state", "remainder", "ordinary", F32,
                             delay_case(op, "dynamic-state", ((1, 65), (3, 65), (5, 65)), F32), dynamic=True)

    return recipe


for _op in ("ReadValue", "Assign"):
    for _v in (3, 6):
        S.register_stimuli(_op, _v)(state_recipe(_op, _v))


# -- StringTensorUnpack-15, StringTensorPack-15 -----------------------------------------------------------------------

ALPHABET = list("abcXYZ09 _-éßø€中文字😀🚀")


def _words(rng: np.random.Generator, count: int, longest: int, empty: bool) -> list[str]:
    sizes = rng.integers(0 if empty else 1, longest + 1, count)
    if empty and count > 2:
        sizes[[0, count // 2, count - 1]] = 0  # first, middle and last
    return ["".join(rng.choice(ALPHABET, int(n))) for n in sizes]


def unpack_make(longest: int, empty: bool = True) -> SR.MakeAt:
    """The case's shape is the string tensor's."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        strings = np.empty(int(np.prod(shape)), dtype=object)
        strings[:] = _words(b.rng, strings.size, longest, empty)
        return opset.string_tensor_unpack(b.param("data", strings.reshape(shape), Type.string))

    return make


@S.register_stimuli("StringTensorUnpack", 15)
def unpack_recipe() -> Iterable[S.Stimulus]:
    op = "StringTensorUnpack"
    yield stim(op, 15, "strings4097", unpack_make(8), (4097,), size="large", et=Type.string)
    yield stim(op, 15, "long-strings", unpack_make(5000), (3, 3), et=Type.string)
    yield stim(op, 15, "rem65x3", unpack_make(20), (65, 3), et=Type.string)
    yield stim(op, 15, "all-empty", unpack_make(0), (17,), et=Type.string)
    yield stim(op, 15, "dynamic", unpack_make(12), (7,), et=Type.string, shapes=((7,), (65,), (129,)))


def pack_make(longest: int, it: Type = Type.i32) -> SR.MakeAt:
    """Begins/ends of whole UTF-8 characters in a symbols buffer, with unused bytes between them; no empty
    string (OpenVINO CPU packs one from stale memory, not reproducible)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        words = _words(b.rng, int(np.prod(shape)), longest, False)
        buffer, begins, ends = bytearray(), [], []
        for k, text in enumerate(words):
            buffer += b"#" if k % 3 == 0 else b""
            begins.append(len(buffer))
            buffer += text.encode("utf-8")
            ends.append(len(buffer))
        buffer += b"tail"
        dt = it.to_dtype()
        return opset.string_tensor_pack(b.param("begins", np.array(begins, dt).reshape(shape), it),
                                        b.param("ends", np.array(ends, dt).reshape(shape), it),
                                        b.param("symbols", np.frombuffer(bytes(buffer), np.uint8).copy(), Type.u8))

    return make


@S.register_stimuli("StringTensorPack", 15)
def pack_recipe() -> Iterable[S.Stimulus]:
    op = "StringTensorPack"
    yield stim(op, 15, "strings4097", pack_make(8), (4097,), size="large", et=Type.string)
    yield stim(op, 15, "long-strings-i64", pack_make(5000, Type.i64), (3, 3), et=Type.string)
    yield stim(op, 15, "rem65x3", pack_make(20), (65, 3), et=Type.string)
    yield stim(op, 15, "dynamic", pack_make(12), (7,), et=Type.string, shapes=((7,), (65,), (129,)))
