"""REFERENCE's compiled model holds no second copy of the weights (issue #26 item 3): compiling
ResNet-50 (25.6M f32 weights, 98 MiB) allocates a small fraction of that. Before, every
Convolution kept an f32 copy of its filters next to the model's read-only Constant (104 MiB); the
few-rows MatMul a transposed copy of each decoder weight."""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import numpy as np

from ovconform import Core, models
from ovconform.ir import Model
from reference_plugin.evaluate import ModelRunner


def _compile_traced(name: str) -> tuple[Model, Any, int, int]:
    """(model, its REFERENCE compiled model, bytes compile allocated, bytes of the model's weights)."""
    model = models.get(name).build()
    weights = sum(n.data.nbytes for n in model.get_ordered_ops() if n.type_name == "Constant")
    core = Core()
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        compiled = core.compile_model(model, "REFERENCE")
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return model, compiled, after - before, weights


def test_compile_does_not_copy_the_weights() -> None:
    _, compiled, allocated, weights = _compile_traced("resnet50_64px")
    assert weights > 90 * 2**20
    assert allocated < 0.25 * weights, (allocated, weights)
    assert compiled.create_infer_request() is not None


def test_compiling_the_f32_decoder_does_not_copy_its_weights() -> None:
    """REFERENCE's few-rows MatMul (reference_plugin/fast/matmul.py) reads a [K, N] weight
    (transpose_b false, as the decoder's Linear layers hold it) transposed in place: compiling
    allocates a small fraction of the weights. Before, it kept a C-contiguous transposed copy of
    each (4.4 GB for the 1.1B decoder)."""
    model, compiled, allocated, weights = _compile_traced("llama_decoder")
    assert weights > 8 * 2**20
    assert allocated < 0.25 * weights, (allocated, weights)
    steps = models.get("llama_decoder").make_steps(model)
    request = compiled.create_infer_request()
    expected = ModelRunner(model)
    state: dict[str, np.ndarray] = {}
    for feed in steps[:3]:
        got = request.infer(feed)[0]
        np.testing.assert_allclose(got, expected.run(feed, state)[0], rtol=1e-4, atol=1e-4)
