"""Builders for every op, named as in ``openvino.opset16``: ``parameter``, ``add``, ``relu``, ...

Each builder checks its arguments and infers output types and shapes; a bad construction raises
:class:`ovconform.errors.ValidationError` naming the op type, the node and what was wrong.

The builders live in one module per op family, named after the folders of OpenVINO's operation
specification (activation, arithmetic, ... type; :data:`ovconform.ir.op_families.OP_FAMILIES` says
which op is in which), with a leading underscore: ``ovconform.opset.convolution`` is the
Convolution builder, as in ``openvino.opset16``, not a module. Each family module lists its
builders in ``__all__``; this package re-exports them all. Shared helpers: :mod:`._helpers`
(input coercion, broadcasting, elementwise builder factories), :mod:`._inputs` (checks on inputs
and their build-time values), :mod:`._window` (sliding windows), :mod:`._einsum_eq` (Einsum
equations).
"""

from __future__ import annotations

from ovconform.opset import (
    _activation,
    _arithmetic,
    _bitwise,
    _bodies,
    _comparison,
    _condition,
    _convolution,
    _detection,
    _generation,
    _image,
    _infrastructure,
    _logical,
    _matrix,
    _movement,
    _normalization,
    _pooling,
    _quantization,
    _reduction,
    _sequence,
    _shape,
    _signals,
    _sort,
    _sparse,
    _type,
)
from ovconform.opset._activation import *  # noqa: F403
from ovconform.opset._arithmetic import *  # noqa: F403
from ovconform.opset._bitwise import *  # noqa: F403
from ovconform.opset._bodies import *  # noqa: F403
from ovconform.opset._comparison import *  # noqa: F403
from ovconform.opset._condition import *  # noqa: F403
from ovconform.opset._convolution import *  # noqa: F403
from ovconform.opset._detection import *  # noqa: F403
from ovconform.opset._generation import *  # noqa: F403
from ovconform.opset._image import *  # noqa: F403
from ovconform.opset._infrastructure import *  # noqa: F403
from ovconform.opset._logical import *  # noqa: F403
from ovconform.opset._matrix import *  # noqa: F403
from ovconform.opset._movement import *  # noqa: F403
from ovconform.opset._normalization import *  # noqa: F403
from ovconform.opset._pooling import *  # noqa: F403
from ovconform.opset._quantization import *  # noqa: F403
from ovconform.opset._reduction import *  # noqa: F403
from ovconform.opset._sequence import *  # noqa: F403
from ovconform.opset._shape import *  # noqa: F403
from ovconform.opset._signals import *  # noqa: F403
from ovconform.opset._sort import *  # noqa: F403
from ovconform.opset._sparse import *  # noqa: F403
from ovconform.opset._type import *  # noqa: F403

_FAMILIES = (
    _activation, _arithmetic, _bitwise, _comparison, _condition, _convolution, _detection, _generation, _image,
    _infrastructure, _logical, _matrix, _movement, _normalization, _pooling, _quantization, _reduction, _sequence,
    _shape, _signals, _sort, _sparse, _type, _bodies,
)
__all__ = sorted({name for mod in _FAMILIES for name in mod.__all__})
