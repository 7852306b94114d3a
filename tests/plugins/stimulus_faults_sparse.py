"""REFERENCE variants with one accelerator-kernel bug each in an op version of the issue #20 batch S2
(:mod:`ovconform.opcases._stimulus_sparse`, :mod:`ovconform.opcases._stimulus_misc`), for
``tests/ops/test_stimulus_sparse.py`` (``--plugin=stimulus_faults_sparse:<Class>`` with
``tests/plugins`` on ``PYTHONPATH``). Each bug sits past a size no generated case reaches (bags of at
most 8 indices, images of at most 7 output columns, K of at most 70), so the generated cases pass
and only the stimulus cases catch it. Every fault lives in the device's own kernel, never in
REFERENCE's (the oracle runs in the same process).
"""

from __future__ import annotations

import numpy as np

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from patched_reference import PatchedReference
except ImportError:
    from plugins.patched_reference import PatchedReference
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.ops._base import OpRun
from reference_plugin.ops.op_embedding_bag_offsets_sum import EmbeddingBagOffsetsSum, offset_bags
from reference_plugin.ops.op_embedding_bag_packed_sum import EmbeddingBagPackedSum
from reference_plugin.ops.op_embedding_segments_sum import EmbeddingSegmentsSum
from reference_plugin.ops.op_grouped_mat_mul import GroupedMatMul
from reference_plugin.ops.op_interpolate import Interpolate1

#: Bags longer than this take the faulty kernel's "long bag" path, which accumulates in f16.
LONG_BAG = 1024
#: Output columns per tile of the faulty Interpolate-1 kernel, which never writes the partial tail tile.
COLUMN_TILE = 64
#: GroupedMatMul's K tile: the faulty kernel drops the tail tile once K spans more than one.
K_TILE = 128


def _f16_long_bags(out: np.ndarray, table: np.ndarray, idx: np.ndarray, bags: np.ndarray,
                   weights: np.ndarray | None, mean: bool) -> np.ndarray:
    """``out`` with every bag of more than :data:`LONG_BAG` indices summed in an f16 accumulator (f32
    tables only: the long-bag path of an accelerator that keeps its partial sums in half precision)."""
    if table.dtype != np.float32:
        return out
    out = out.copy()
    for bag in np.unique(bags[bags >= 0]):
        where = np.flatnonzero(bags == bag)
        if where.size <= LONG_BAG:
            continue
        terms = table[idx[where]] * (weights.reshape(-1)[where, None] if weights is not None else 1)
        acc = np.zeros(table.shape[1:], np.float16)
        for term in terms.astype(np.float16):
            acc = acc + term  # float16 + float16: every partial sum rounded to f16
        out[bag] = acc.astype(np.float32) / (where.size if mean else 1)
    return out


class _OffsetsF16(EmbeddingBagOffsetsSum):
    def _run(self, table: np.ndarray, indices: np.ndarray, offsets: np.ndarray, *optional: np.ndarray) -> tuple[
            np.ndarray, ...]:
        out = super()._run(table, indices, offsets, *optional)[0]
        idx = indices.astype(np.int64).reshape(-1)
        weights = optional[1] if len(optional) > 1 else None
        return (_f16_long_bags(out, table, idx, offset_bags(offsets, idx.size), weights, self.mean),)


class _PackedF16(EmbeddingBagPackedSum):
    def _run(self, table: np.ndarray, indices: np.ndarray, *optional: np.ndarray) -> tuple[np.ndarray, ...]:
        out = super()._run(table, indices, *optional)[0]
        bags = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
        return (_f16_long_bags(out, table, indices.astype(np.int64).reshape(-1), bags,
                               optional[0] if optional else None, self.mean),)


class _SegmentsF16(EmbeddingSegmentsSum):
    def _run(self, table: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray, *rest: np.ndarray) -> tuple[
            np.ndarray, ...]:
        out = super()._run(table, indices, segment_ids, *rest)[0]
        weights = rest[2] if len(rest) > 2 else None
        return (_f16_long_bags(out, table, indices.astype(np.int64).reshape(-1),
                               segment_ids.astype(np.int64).reshape(-1), weights, False),)


_EMBEDDING_KERNELS: dict[str, type[OpRun]] = {
    # the opset15 ops compute as the opset3 sums (their ``reduction`` is read by the same __init__)
    "EmbeddingBagOffsetsSum": _OffsetsF16, "EmbeddingBagOffsets": _OffsetsF16,
    "EmbeddingBagPackedSum": _PackedF16, "EmbeddingBagPacked": _PackedF16,
    "EmbeddingSegmentsSum": _SegmentsF16,
}


class EmbeddingLongBagsInF16(PatchedReference):
    """The embedding-bag sums keep their partial sums in f16 for bags of more than 1,024 indices."""

    device_name = "STF_EMBF16"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            kernel = _EMBEDDING_KERNELS.get(step.node.type_name)
            if kernel is not None:
                step.kernel = kernel(step.node)


class _TailTileUnwritten(Interpolate1):
    def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        out, *rest = super()._run(*inputs)
        width = out.shape[-1]
        if width > COLUMN_TILE and width % COLUMN_TILE:
            out = out.copy()
            out[..., width - width % COLUMN_TILE:] = 0  # the zeroed output buffer, never written there
        return (out, *rest)


class InterpolateTailTileUnwritten(PatchedReference):
    """Interpolate-1 leaves the output columns past its last full 64-column tile unwritten (zeros)
    when the output is more than 64 columns wide."""

    device_name = "STF_INTERPCOL"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "Interpolate" and step.node.version == 1:
                step.kernel = _TailTileUnwritten(step.node)


class _KTailDropped(GroupedMatMul):
    def _run(self, a: np.ndarray, b: np.ndarray, *offsets: np.ndarray) -> tuple[np.ndarray, ...]:
        k = a.shape[-1]
        if k > K_TILE and k % K_TILE:
            a = a.copy()
            a[..., k - k % K_TILE:] = 0  # the tail tile's terms never reach the accumulator
        return super()._run(a, b, *offsets)


class GroupedMatMulDropsKTail(PatchedReference):
    """GroupedMatMul tiles K by 128 and skips the partial tail tile when K spans more than one tile."""

    device_name = "STF_GMMKTAIL"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "GroupedMatMul":
                step.kernel = _KTailDropped(step.node)


#: class name -> the op versions it gets wrong.
FAULTS: dict[str, tuple[str, ...]] = {
    "EmbeddingLongBagsInF16": ("EmbeddingBagOffsetsSum-3", "EmbeddingBagOffsets-15", "EmbeddingBagPackedSum-3",
                               "EmbeddingBagPacked-15", "EmbeddingSegmentsSum-3"),
    "InterpolateTailTileUnwritten": ("Interpolate-1",),
    "GroupedMatMulDropsKTail": ("GroupedMatMul-17",),
}

