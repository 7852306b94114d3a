"""The Multinomial-13 model and sampler of the generation tests, in a module of its own so that a
fresh Python process can import them (``from tests.ops._multinomial import draw``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Model, as_type
from reference_plugin.evaluate import evaluate

MULTINOMIAL_ATTRS = ["convert_type", "with_replacement", "log_probs", "global_seed", "op_seed"]


def multinomial_model(probs_shape: list[int], count: int, with_replacement: bool = True, log_probs: bool = False,
                      seeds: tuple[int, int] = (3, 5), et: str = "f32", convert_type: str = "i64") -> Model:
    probs = opset.parameter(probs_shape, et, name="probs")
    node = opset.multinomial(probs, np.array([count], np.int64), convert_type, with_replacement, log_probs, *seeds)
    return Model([node.output(0)], [probs], "multinomial")


def draw(probs: Any, count: int, with_replacement: bool = True, log_probs: bool = False,
         seeds: tuple[int, int] = (3, 5), convert_type: str = "i64") -> np.ndarray:
    probs = np.asarray(probs)
    et = as_type(probs.dtype).name
    model = multinomial_model(list(probs.shape), count, with_replacement, log_probs, seeds, et, convert_type)
    (out,) = evaluate(model, [probs])
    return out
