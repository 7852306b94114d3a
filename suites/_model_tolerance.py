"""The model suite's depth-aware judgement: the accumulating layers on each output's deepest path
(:func:`output_depths`), the per-step tolerance that follows from them and the declared execution
precision (:func:`ovconform.tolerances.model_tolerance`), and the comparison of every output at
every step with the achieved error recorded per output and per step (:func:`compare_steps`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ovconform.ir import Model, Node
from ovconform.suites import _op_runner as R
from ovconform.tolerances import (
    DEFAULT_REDUCTION_SIZE,
    RECURRENT_OPS,
    Comparison,
    Tolerance,
    apply_override,
    is_model_layer,
    model_error_units,
    model_layer_term,
    model_tolerance,
    reduction_size,
)

__all__ = ["OutputDepth", "compare_steps", "layer_reduction", "output_depths", "output_errors", "step_errors"]


@dataclass(frozen=True)
class OutputDepth:
    """The accumulating layers on an output's deepest path: their count, and the reduction length K
    of each (from the inputs to the output); ``units`` is B (:func:`ovconform.tolerances.model_error_units`)."""

    layers: int
    reductions: tuple[int, ...]
    units: float

    def to_dict(self) -> dict[str, Any]:
        return {"layers": self.layers, "max_reduction": max(self.reductions, default=0), "units": self.units}


def layer_reduction(node: Node) -> int:
    """K of an accumulating layer: :func:`~ovconform.tolerances.reduction_size` where the shapes are
    static; the input size plus the hidden size of a recurrent op's step (X and H: a sequence
    counts as one layer of that K, not one per time step: an earlier step's error reaches the last
    step through the forget or update gate and the activations' slopes, all below 1, so it is
    damped rather than added at full size); else a static inner
    dimension of a MatMul's other input (a dynamic-length sequence times a weight), a static head
    size of attention; :data:`DEFAULT_REDUCTION_SIZE` otherwise."""
    k = reduction_size(node)
    if k:
        return k
    if node.type_name in RECURRENT_OPS and node.get_input_size() >= 2:
        x, h = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
        if x.rank.is_static and h.rank.is_static and x[-1].is_static and h[-1].is_static:
            return int(x[-1].get_length()) + int(h[-1].get_length())
    if node.type_name == "MatMul" and node.get_input_size() == 2:
        for port, flag, axis in ((1, "transpose_b", -2), (0, "transpose_a", -1)):
            shape = node.get_input_partial_shape(port)
            if shape.rank.is_static and shape.rank.get_length() >= 2:
                dim = shape[(-1 if axis == -2 else -2) if node.attrs.get(flag) else axis]
                if dim.is_static:
                    return int(dim.get_length())
    if node.type_name == "ScaledDotProductAttention":
        shape = node.get_input_partial_shape(0)
        if shape.rank.is_static and shape[-1].is_static:
            return int(shape[-1].get_length())
    return DEFAULT_REDUCTION_SIZE


def output_depths(model: Model, precision: Any = None) -> list[OutputDepth]:
    """Per Result of ``model``, the accumulating layers on the path from the inputs with the largest
    Σρ² (ρ of each layer from :func:`~ovconform.tolerances.model_layer_term` at ``precision``).
    State carried across steps (ReadValue) starts a path, as an input does."""
    best: dict[int, tuple[float, tuple[int, ...]]] = {}
    for node in model.get_ordered_ops():
        sources = [best.get(id(v.node), (0.0, ())) for v in node.input_values()]
        total, path = max(sources, key=lambda s: s[0], default=(0.0, ()))
        if is_model_layer(node.type_name):
            k = layer_reduction(node)
            total, path = total + model_layer_term(k, precision) ** 2, (*path, k)
        best[id(node)] = (total, path)
    out = []
    for result in model.get_results():
        _, path = best[id(result)]
        out.append(OutputDepth(len(path), path, model_error_units([model_layer_term(k, precision) for k in path])))
    return out


def _rms(values: np.ndarray) -> float:
    v = np.asarray(values)
    if not v.dtype.kind == "f" or v.size == 0:
        return 0.0
    finite = v[np.isfinite(v)].astype(np.float64)
    return float(np.sqrt(np.mean(finite * finite))) if finite.size else 0.0


def step_tolerances(device: str, model: Model, depths: list[OutputDepth], expected: list[np.ndarray],
                    precision: Any) -> list[Tolerance]:
    """The tolerance of each output at one step (its RMS there sets the absolute term), then the
    device's ``ovconform_get_tolerance(op_type="*model*")`` hook."""
    tols = []
    for result, depth, want in zip(model.get_results(), depths, expected, strict=True):
        et = result.get_input_element_type(0)
        base = model_tolerance(depth.units, et, precision, _rms(want))
        hook = R.plugin_manager().hook.ovconform_get_tolerance(device=device, op_type="*model*", version=0,
                                                               element_type=et.name)
        tols.append(apply_override(base, hook, f"ovconform_get_tolerance('*model*', {et.name})"))
    return tols


def compare_steps(device: str, model: Model, actual: list[list[np.ndarray]], expected: list[list[np.ndarray]],
                  precision: Any, steps: list[dict[str, np.ndarray]] | None = None,
                  ) -> tuple[list[tuple[str, Comparison]], list[OutputDepth]]:
    """Every output at every step against its depth-aware tolerance: ``([(label, Comparison)], depths)``."""
    depths = output_depths(model, precision)
    out: list[tuple[str, Comparison]] = []
    for s, (got, want) in enumerate(zip(actual, expected, strict=True)):
        tols = step_tolerances(device, model, depths, want, precision)
        feeds = [steps[s]] if steps is not None else None
        for label, c in R.compare_outputs(model, [got], [want], tols, feeds):
            out.append((f"step {s}" + label.removeprefix("step 0"), c))
    return out, depths


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None  # the report schema takes numbers or null


def step_errors(comparisons: list[tuple[str, Comparison]], steps: int) -> list[dict[str, Any]]:
    """Per step: the worst absolute and relative error and error/bound over the outputs, and whether all passed."""
    per: list[dict[str, Any]] = [{"step": s, "max_abs_err": 0.0, "max_rel_err": 0.0, "error_to_bound": 0.0,
                                  "passed": True} for s in range(steps)]
    for label, c in comparisons:
        row = per[int(label.split()[1])]
        row["max_abs_err"] = max(row["max_abs_err"], float(c.max_abs_err))
        row["max_rel_err"] = max(row["max_rel_err"], float(c.max_rel_err))
        ratio = getattr(c, "error_to_bound", None)
        row["error_to_bound"] = max(row["error_to_bound"], float("inf") if ratio is None and not c.passed
                                    else (ratio or 0.0))
        row["passed"] = row["passed"] and c.passed
    for row in per:
        for k in ("max_abs_err", "max_rel_err", "error_to_bound"):
            row[k] = _finite(row[k])
    return per


def output_errors(model: Model, comparisons: list[tuple[str, Comparison]],
                  depths: list[OutputDepth]) -> list[dict[str, Any]]:
    """Per output: its name, depth (layers, longest reduction, B), and its worst error and
    error/bound over the steps."""
    rows = []
    for i, (result, depth) in enumerate(zip(model.get_results(), depths, strict=True)):
        mine = [c for label, c in comparisons if label.split()[3] == str(i)]
        ratios = [float(r) for c in mine if (r := getattr(c, "error_to_bound", None)) is not None]
        rows.append({"output": i, "name": result.input_value(0).node.friendly_name, **depth.to_dict(),
                     "max_abs_err": _finite(max((float(c.max_abs_err) for c in mine), default=0.0)),
                     "error_to_bound": _finite(max(ratios)) if ratios else None,
                     "passed": all(c.passed for c in mine)})
    return rows
