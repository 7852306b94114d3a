"""ConvertPromoteTypes-14: both inputs converted to their common type (inferred at build time by
:func:`ovconform.opset._type.promote_types`); each conversion follows Convert-1
(``_common_types.convert_array``: integer → float rounds to nearest, wider types are exact)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import convert_array


@register_op("ConvertPromoteTypes", since=14)
class ConvertPromoteTypes(OpRun):
    def _run(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        return (convert_array(a, self.in_types[0], self.out_types[0]),
                convert_array(b, self.in_types[1], self.out_types[1]))
