"""REFERENCE's compiled model holds no second copy of the weights (issue #26 item 3): compiling
ResNet-50 (25.6M f32 weights, 98 MiB) allocates a small fraction of that. Before, every
Convolution kept an f32 copy of its filters next to the model's read-only Constant (104 MiB)."""

from __future__ import annotations

import gc
import tracemalloc

from ovconform import Core, models


def test_compile_does_not_copy_the_weights() -> None:
    model = models.get("resnet50_64px").build()
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
    assert weights > 90 * 2**20
    assert after - before < 0.25 * weights, (after - before, weights)
    assert compiled.create_infer_request() is not None
