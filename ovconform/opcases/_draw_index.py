"""Drawing helpers of the index-taking strategies (GatherElements, GatherND, the scatters, Unique,
TopK, SearchSorted, NonZero, Bucketize, SegmentMax): data types, seeded values and index inputs.

Every array comes from one drawn seed (:class:`ovconform.opcases._draw.CaseBuilder`); data types
are f32 about half the time, else f16, i32, i64 (values in the i32 range), u8 or boolean.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform.ir import Type
from ovconform.opcases._draw import CaseBuilder, Draw

DATA_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8, Type.boolean)
INDEX_TYPES = (Type.i32, Type.i64)


def draw_type(draw: Draw[Any], types: tuple[Type, ...] = DATA_TYPES) -> Type:
    """f32 about half the time, otherwise any of ``types``."""
    return draw(st.one_of(st.just(Type.f32), st.sampled_from(types)))


def values(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """Data of ``et``: floats in [-10, 10], integers in [-100, 100] (clipped to the type), booleans."""
    return b.uniform(shape, et, -10, 10) if et.is_real() else b.uniform(shape, et, -100, 100)


def index_array(draw: Draw[Any], value: np.ndarray) -> np.ndarray:
    return np.asarray(value).astype(draw(st.sampled_from(INDEX_TYPES)).to_dtype())


def index_input(b: CaseBuilder, draw: Draw[Any], name: str, value: np.ndarray, param_chance: int = 2) -> Any:
    """An index tensor: a Parameter (one time in ``param_chance``; never when 0) or a Constant."""
    arr = index_array(draw, value)
    return b.input(name, arr, as_constant=not param_chance or draw(st.integers(1, param_chance)) != 1)


def axis_input(b: CaseBuilder, draw: Draw[Any], axis: int) -> Any:
    """A scalar axis input: a Constant, or one time in four a Parameter."""
    value = np.array(axis, dtype=draw(st.sampled_from(INDEX_TYPES)).to_dtype())
    return b.input("axis", value, as_constant=draw(st.integers(0, 3)) != 0)
