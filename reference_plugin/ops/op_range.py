"""Range-1 and Range-4: ``val[i] = start + i * step`` for ``i`` in ``[0, max(ceil((stop - start) /
step), 0))``.

Range-1: start, stop and step share the output type. Range-4: each is first converted to
``output_type`` (Convert semantics: a float becomes an integer by truncation toward zero, as the
spec's "after casting to output_type" says). Integers compute exactly (wrapping to the type);
floats compute in float64 and round once. A zero step (after the cast) is an InferError: the
spec leaves it undefined.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node, Type
from ovconform.opset._generation import range_length
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_norm import MAX_OUTPUT_ELEMENTS, scalar, store_float
from reference_plugin.ops._common_types import convert_array, to_compute


@register_op("Range", since=1)
class Range1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.out_t: Type = self.out_types[0]

    def cast(self, value: np.ndarray, t: Type) -> int | float:
        """One input value in the output type, as a Python number."""
        one = np.asarray(scalar(value)).reshape(1)
        converted = convert_array(one, t, self.out_t) if t != self.out_t else one
        number = to_compute(converted, self.out_t)[0]
        return int(number) if self.out_t.is_integral_number() else float(number)

    def _run(self, start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, ...]:
        a, b, s = (self.cast(v, t) for v, t in zip((start, stop, step), self.in_types, strict=True))
        if s == 0:
            raise self.fail(f"step is {scalar(step).item()!r}, which is 0 in {self.out_t}; "
                            "Range needs a non-zero step.")
        if not all(np.isfinite(v) for v in (a, b, s)):
            raise self.fail(f"start {a}, stop {b} and step {s} must be finite.")
        n = range_length(a, b, s)
        if n > MAX_OUTPUT_ELEMENTS:
            raise self.fail(f"start {a}, stop {b}, step {s} give {n} elements; at most {MAX_OUTPUT_ELEMENTS} are "
                            "produced.")
        if self.out_t.is_integral_number():
            values = a + np.arange(n, dtype=np.int64) * s
            return (values.astype(self.out_t.to_dtype()),)
        return (store_float(a + np.arange(n, dtype=np.float64) * s, self.out_t),)


@register_op("Range", since=4)
class Range4(Range1):
    """Range-4: inputs of any numeric types, converted to ``output_type`` first."""
