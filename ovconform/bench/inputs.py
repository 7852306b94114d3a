"""Benchmark inputs: one fixed set, or a pool of seeded random sets used in turn.

* ``fixed``: every iteration uses one set — the model's example inputs (the zoo's first step)
  when it has them, else values from ``seed``. This is benchmark_app's default
  (``-inference_only``: inputs filled once).
* ``random``: iteration ``i`` uses set ``i % pool``; set ``k`` is drawn from
  ``numpy.random.default_rng(seed + k)``, so a run is repeatable. The pool is built before the
  timed loop (filling is never timed) and is as large as the iteration count, capped at
  ``pool`` sets and at :data:`POOL_BYTES` bytes.

Values: real types uniform in [-1, 1), integers in [0, 4), booleans random. Shapes: the
example inputs' shapes, else the port's shape with each dynamic dimension taken from
``data_shape`` (``{parameter name: [dims]}``) or set to 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ovconform.api import Tensor
from ovconform.errors import ValidationError
from ovconform.ir import Model

__all__ = ["INPUT_MODES", "POOL_BYTES", "input_shapes", "make_pool", "parse_data_shape"]

INPUT_MODES = ("fixed", "random")
#: The most memory a random input pool may take.
POOL_BYTES = 256 * 1024 * 1024


def parse_data_shape(text: str, names: Sequence[str]) -> dict[str, list[int]]:
    """``"[1,3,64,64]"`` (one-input model) or ``"a[1,8],b[1,4]"`` as ``{name: dims}``."""
    text = text.replace(" ", "")
    out: dict[str, list[int]] = {}
    for part in filter(None, text.split("]")):
        part = part.lstrip(",")
        name, bracket, dims = part.partition("[")
        if not bracket:
            raise ValidationError(f"--data-shape {text!r}: expected name[d1,d2,...] or [d1,d2,...], got {part!r}.")
        if not name:
            if len(names) != 1:
                raise ValidationError(f"--data-shape {text!r} has no input name, but the model has {len(names)} "
                                      f"inputs: {list(names)}; write name[dims].")
            name = names[0]
        if name not in names:
            raise ValidationError(f"--data-shape names input {name!r}; the model's inputs are {list(names)}.")
        try:
            out[name] = [int(d) for d in dims.split(",")] if dims else []
        except ValueError:
            raise ValidationError(f"--data-shape {text!r}: dimensions of {name!r} must be integers, "
                                  f"got {dims!r}.") from None
    return out


def input_shapes(model: Model, example: Mapping[str, np.ndarray] | None,
                 data_shape: Mapping[str, Sequence[int]] | None = None) -> dict[str, tuple[int, ...]]:
    """The shape each parameter gets (see the module doc)."""
    shapes: dict[str, tuple[int, ...]] = {}
    for p in model.get_parameters():
        name = p.friendly_name
        ps = p.get_output_partial_shape(0)
        if data_shape and name in data_shape:
            shape = tuple(int(d) for d in data_shape[name])
            if not ps.fits(shape):
                raise ValidationError(f"--data-shape {list(shape)} for input {name!r} does not fit its shape {ps}.")
        elif example is not None and name in example:
            shape = tuple(np.shape(example[name]))
        elif ps.rank.is_static:
            shape = tuple(d.get_length() if d.is_static else max(d.get_min_length(), 1) for d in ps)
        else:
            raise ValidationError(f"input {name!r} has a dynamic rank; give its shape with --data-shape.")
        shapes[name] = shape
    return shapes


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.floating) or dtype.kind == "V":
        return rng.uniform(-1, 1, shape).astype(np.float32).astype(dtype)
    return rng.integers(0, 4, shape).astype(dtype)


def make_pool(model: Model, mode: str, seed: int, sets: int, *, example: Mapping[str, np.ndarray] | None = None,
              data_shape: Mapping[str, Sequence[int]] | None = None) -> list[list[Tensor]]:
    """Input sets (one Tensor per parameter, in parameter order): 1 set for ``fixed``, up to
    ``sets`` for ``random``."""
    if mode not in INPUT_MODES:
        raise ValidationError(f"input mode {mode!r} is not one of {', '.join(INPUT_MODES)}.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValidationError(f"the input seed must be an integer, not {seed!r}.")
    params = model.get_parameters()
    shapes = input_shapes(model, example, data_shape)
    dtypes = [np.dtype(p.get_output_element_type(0).to_dtype()) for p in params]
    if mode == "fixed":
        if example is not None and all(p.friendly_name in example for p in params) and not data_shape:
            return [[Tensor(np.ascontiguousarray(example[p.friendly_name], dtype=dt)) for p, dt in zip(params, dtypes,
                                                                                                     strict=True)]]
        sets = 1
    per_set = sum(int(np.prod(shapes[p.friendly_name], dtype=np.int64)) * dt.itemsize
                  for p, dt in zip(params, dtypes, strict=True))
    count = max(1, min(int(sets), POOL_BYTES // max(per_set, 1)))
    pool = []
    for k in range(count):
        rng = np.random.default_rng(seed + k)
        pool.append([Tensor(_values(rng, shapes[p.friendly_name], dt)) for p, dt in zip(params, dtypes, strict=True)])
    return pool


def describe(pool: Sequence[Sequence[Tensor]], model: Model) -> dict[str, Any]:
    """Shapes and element types of the pool's first set, by parameter name."""
    first = pool[0]
    return {p.friendly_name: {"shape": list(t.shape), "element_type": str(t.element_type)}
            for p, t in zip(model.get_parameters(), first, strict=True)}
