"""The adapter hands a real model's weights to OpenVINO with one copy (issue #24: the 1.1B decoder).

``to_ov_model`` writes the IR's weights straight into a tensor OpenVINO owns (its Constants share
it): the Python heap gets none of them. Before, ``serialize`` held each Constant's bytes as a dict
key, the joined blob and its ``bytes`` copy, and the adapter copied that again: four copies of the
weights at once, which put the 1.1B decoder (4.4 GB of f32 weights) past a 24 GB machine's memory.
"""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

pytest.importorskip("openvino")

import openvino as ov  # noqa: E402

import ovconform  # noqa: E402
from ovconform import Model, opset  # noqa: E402
from ovconform.adapters.openvino import _convert  # noqa: E402
from ovconform.errors import ValidationError  # noqa: E402
from ovconform.ir import Type  # noqa: E402

ROWS = 2048  # four [2048, 2048] f32 weights: 64 MiB, well past the read cache's 4 MiB


def _mlp(rows: int = ROWS, layers: int = 4, shared: bool = True) -> Model:
    """MatMuls on [rows, rows] f32 weights; with ``shared`` the last reuses the first's values in
    a Constant of its own (identical bytes, written once)."""
    rng = np.random.default_rng(0)
    x = opset.parameter([1, rows], Type.f32, name="x")
    h = x
    first = None
    for i in range(layers):
        w = rng.standard_normal((rows, rows)).astype(np.float32) / np.float32(np.sqrt(rows))
        if first is None:
            first = w
        value = first.copy() if shared and i == layers - 1 else w
        h = opset.matmul(h, opset.constant(value, name=f"w{i}"), False, True, name=f"mm{i}")
    return Model([h], [x], "mlp")


def test_serialize_chunks_are_views_and_dedup_identical_weights() -> None:
    from ovconform.ir._serialize import serialize_chunks

    model = _mlp(256)
    xml, chunks = serialize_chunks(model)
    weights = [n.data for n in model.get_ordered_ops() if n.type_name == "Constant"]
    assert chunks.nbytes == 3 * weights[0].nbytes  # the fourth holds the first's bytes: one copy
    assert all(np.shares_memory(np.frombuffer(c, np.uint8), w) for c, w in zip(chunks.chunks, weights, strict=False))
    out = np.empty(chunks.nbytes, np.uint8)
    chunks.write_into(out)
    assert (xml, out.tobytes()) == ovconform.serialize(model)
    with pytest.raises(ValidationError, match=f"take {chunks.nbytes} bytes; the buffer holds 8"):
        chunks.write_into(np.empty(8, np.uint8))


def test_to_ov_model_copies_the_weights_once_outside_python() -> None:
    model = _mlp()
    weights = sum(n.data.nbytes for n in model.get_ordered_ops() if n.type_name == "Constant")
    core = ov.Core()
    gc.collect()
    tracemalloc.start()
    try:
        ov_model = _convert.to_ov_model(core, model)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert weights >= 64 * 2**20
    assert peak < 0.05 * weights, (peak, weights)  # before: 2.25 x the weights (bytes keys, blob, its copy)
    feed = np.random.default_rng(1).standard_normal((1, ROWS)).astype(np.float32)
    got = core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request().infer(
        {0: feed})[0]
    want = feed
    for n in model.get_ordered_ops():
        if n.type_name == "MatMul":
            want = want @ n.input_value(1).node.data.T
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
