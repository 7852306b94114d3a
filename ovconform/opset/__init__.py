"""Builders for every op, named as in ``openvino.opset16``: ``parameter``, ``add``, ``relu``, ...

Each builder checks its arguments and infers output types and shapes; a bad construction raises
:class:`ovconform.errors.ValidationError` naming the op type, the node and what was wrong.
Each family module lists its builders in ``__all__``; this package re-exports them all.
"""

from __future__ import annotations

from ovconform.opset import (
    _activation,
    _advanced,
    _bitwise,
    _conv,
    _core,
    _detect,
    _elementwise,
    _index,
    _layout,
    _linear,
    _misc,
    _movement,
    _norm,
    _pool,
    _recurrent,
    _reduce,
    _shape_ops,
    _signal,
    _softmax,
    _state,
    _trig,
)
from ovconform.opset._activation import *  # noqa: F403
from ovconform.opset._advanced import *  # noqa: F403
from ovconform.opset._bitwise import *  # noqa: F403
from ovconform.opset._conv import *  # noqa: F403
from ovconform.opset._core import *  # noqa: F403
from ovconform.opset._detect import *  # noqa: F403
from ovconform.opset._elementwise import *  # noqa: F403
from ovconform.opset._index import *  # noqa: F403
from ovconform.opset._layout import *  # noqa: F403
from ovconform.opset._linear import *  # noqa: F403
from ovconform.opset._misc import *  # noqa: F403
from ovconform.opset._movement import *  # noqa: F403
from ovconform.opset._norm import *  # noqa: F403
from ovconform.opset._pool import *  # noqa: F403
from ovconform.opset._recurrent import *  # noqa: F403
from ovconform.opset._reduce import *  # noqa: F403
from ovconform.opset._shape_ops import *  # noqa: F403
from ovconform.opset._signal import *  # noqa: F403
from ovconform.opset._softmax import *  # noqa: F403
from ovconform.opset._state import *  # noqa: F403
from ovconform.opset._trig import *  # noqa: F403

_FAMILIES = (_activation, _advanced, _bitwise, _conv, _core, _detect, _elementwise, _index, _layout, _linear, _misc,
             _movement, _norm, _pool, _recurrent, _reduce, _shape_ops, _signal, _softmax, _state, _trig)
__all__ = sorted({name for mod in _FAMILIES for name in mod.__all__})
