"""The REFERENCE device's transformation pipeline (seed 002 ``transform_model``).

Passes run in place on the compiled model's private clone, in this order:

1. ``ConstantFolding``: a node whose inputs are all known at build time (Constants, or ShapeOf
   of a static shape) is computed with its REFERENCE kernel and replaced by Constants. Stateful
   nodes (ReadValue, Assign) and housekeeping nodes are never folded; a node without a kernel,
   or whose kernel fails on the constant values (integer division by zero, ...), is left for
   run time.
2. ``FuseIdempotentUnary``: ``Relu(Relu(x))`` and ``Abs(Abs(x))`` become one node (exact).
3. ``DecomposeDivide``: a floating ``x / c`` with a Constant divisor becomes ``x * (1 / c)`` only
   where that is bit-exact: every divisor is a power of two whose reciprocal is a normal number
   of the computing type (under INFERENCE_PRECISION_HINT=f16, the float16 range for f32 values).
   Integer Divides and other divisors stay Divide, so no pass changes any result.
4. ``EliminateDeadCode``: nodes no result or sink depends on are disconnected from the live graph.

Parameters and Results are never replaced (the compiled model's ports are those nodes); a
replaced output hands its tensor names to its replacement. A node that absorbs others records
their friendly names in ``rt_info["fused_names"]`` (comma-separated, OpenVINO's FusedNames
form; names that contain "," cannot be told apart, as in OpenVINO). Under the f16 precision
rule (:func:`reference_plugin.properties.rounds_to_f16`) folding rounds inputs and outputs as
the device would at run time, so folded and unfolded models give the same values.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np

from ovconform import opset
from ovconform import properties as P
from ovconform.errors import CompileError, OVConformError
from ovconform.ir import Model, Node, Output, Type, bf16_to_f32, constant_value
from reference_plugin.fast import make_kernel
from reference_plugin.properties import log, round_f16, rounds_to_f16

FUSED_NAMES: Final = "fused_names"
#: Never folded: housekeeping and stateful nodes.
_NOT_FOLDED: Final = frozenset({"Parameter", "Constant", "Result", "ReadValue", "Assign"})
_IDEMPOTENT: Final = frozenset({"Relu", "Abs"})


@dataclass
class PassContext:
    """What a pass may look at: the model name (for messages) and the inference precision."""

    model_name: str
    precision: Type


Pass = Callable[[Model, PassContext], int]


# -- fused names ----------------------------------------------------------------------------------
def fused_names(node: Node) -> list[str]:
    """The original friendly names ``node`` stands for (its own name when it absorbed nothing)."""
    raw = node.rt_info.get(FUSED_NAMES)
    return [n for n in raw.split(",") if n] if isinstance(raw, str) and raw else [node.friendly_name]


def absorb(target: Node, *sources: Node) -> None:
    """Record that ``target`` now also computes ``sources`` (their fused names come first); the
    last source's other rt_info entries are copied to ``target`` when it has none of its own."""
    names: list[str] = []
    for node in (*sources, target):
        names += [n for n in fused_names(node) if n not in names]
    for key, value in (sources[-1].rt_info.items() if sources else ()):
        target.rt_info.setdefault(key, value)
    target.rt_info[FUSED_NAMES] = ",".join(names)


def replace_output(old: Output, new: Output) -> None:
    """Make every consumer of ``old`` read ``new``; ``new`` takes over ``old``'s tensor names."""
    names = old.get_names()
    old.set_names(())
    new.add_names(names)
    old.replace(new)


# -- 1. constant folding --------------------------------------------------------------------------
def fold_constants(model: Model, ctx: PassContext) -> int:
    """Fold every foldable node in topological order. A folded node lets go of its inputs (they
    read a tiny placeholder): the intermediate values of a chain (weight decompression's f16
    Convert, Subtract, Multiply of a u4 weight) are freed as soon as the next node is folded,
    instead of living, through the replaced nodes, until the pass ends (3 f16 copies and the
    f32 result of every weight at once: 14 GB for the 1.1B u4 decoder)."""
    folded = 0
    detached: Output | None = None
    for node in model.get_ordered_ops():
        if node.type_name in _NOT_FOLDED:
            continue
        values = _fold_values(node, ctx)
        if values is not None:
            _replace_with_constants(node, values)
            if detached is None:
                detached = opset.constant(np.zeros((), np.uint8), name="folded").output(0)
            for port in node.inputs():
                port.replace_source_output(detached)
            folded += 1
    return folded


def _fold_values(node: Node, ctx: PassContext) -> list[np.ndarray] | None:
    if node.type_name == "ShapeOf":
        value = constant_value(node.output(0))
        return None if value is None else [value]
    inputs = [constant_value(v) for v in node.input_values()]
    if any(v is None for v in inputs):
        return None
    try:
        kernel = make_kernel(node)
        args = [_round(np.asarray(v), v_out.get_element_type(), ctx)
                for v, v_out in zip(inputs, node.input_values(), strict=True)]
        outs = kernel.run(args)
    except OVConformError:
        return None  # no kernel, or it fails on these values: the node runs (and fails) at run time
    return [_round(o, out.get_element_type(), ctx) for o, out in zip(outs, node.outputs(), strict=True)]


def _round(value: np.ndarray, element_type: Type, ctx: PassContext) -> np.ndarray:
    return round_f16(value) if rounds_to_f16(element_type, ctx.precision) else value


def _replace_with_constants(node: Node, values: list[np.ndarray]) -> None:
    single = len(values) == 1
    for i, (out, value) in enumerate(zip(node.outputs(), values, strict=True)):
        name = node.friendly_name if single else f"{node.friendly_name}.{i}"
        const = opset.constant(value, out.get_element_type(), name=name)
        absorb(const, *[v.node for v in node.input_values() if FUSED_NAMES in v.node.rt_info], node)
        replace_output(out, const.output(0))


# -- 2. idempotent unary fusion -------------------------------------------------------------------
def fuse_idempotent_unary(model: Model, ctx: PassContext) -> int:
    fused = 0
    for node in model.get_ordered_ops():
        if node.type_name not in _IDEMPOTENT:
            continue
        inner = node.input_value(0).node
        if inner.type_name == node.type_name and inner.version == node.version:
            node.set_argument(0, inner.input_value(0))
            absorb(node, inner)
            fused += 1
    return fused


# -- 3. Divide decomposition ----------------------------------------------------------------------
def decompose_divide(model: Model, ctx: PassContext) -> int:
    changed = 0
    for node in model.get_ordered_ops():
        if node.type_name != "Divide" or not node.get_output_element_type(0).is_real():
            continue
        divisor = constant_value(node.input_value(1))
        element_type = node.get_input_element_type(1)
        reciprocal = None if divisor is None else _exact_reciprocal(divisor, element_type, ctx)
        if reciprocal is None:
            continue
        const = opset.constant(reciprocal, element_type, name=f"{node.friendly_name}/reciprocal")
        mul = opset.multiply(node.input_value(0), const, auto_broadcast=node.attrs["auto_broadcast"],
                             name=node.friendly_name)
        absorb(mul, node)
        replace_output(node.output(0), mul.output(0))
        changed += 1
    return changed


def _exact_reciprocal(divisor: np.ndarray, element_type: Type, ctx: PassContext) -> np.ndarray | None:
    """``1 / divisor`` as float64 when every divisor is a power of two and it and its reciprocal
    are normal numbers of the computing type (so ``x * (1/c)`` equals ``x / c`` bit for bit)."""
    values = bf16_to_f32(divisor) if element_type == Type.bf16 else np.asarray(divisor)
    values = values.astype(np.float64)
    computing = Type.f16 if rounds_to_f16(element_type, ctx.precision) else element_type
    info = np.finfo(np.float32 if computing == Type.bf16 else computing.to_dtype())
    if values.size == 0 or not np.all(np.isfinite(values)):
        return None
    mantissa, _ = np.frexp(values)
    with np.errstate(all="ignore"):
        reciprocal = 1.0 / values
    magnitudes = np.abs(np.concatenate([values.ravel(), reciprocal.ravel()]))
    if not np.all(np.abs(mantissa) == 0.5) or not np.all((magnitudes >= info.tiny) & (magnitudes <= info.max)):
        return None
    return reciprocal


# -- 4. dead code elimination ---------------------------------------------------------------------
def eliminate_dead_code(model: Model, ctx: PassContext) -> int:
    """Disconnect every consumer of a live output that no result or sink depends on."""
    live = {id(n) for n in model.get_ordered_ops()}
    dead: dict[int, Node] = {}
    detached: Output | None = None
    for node in model.get_ordered_ops():
        for out in node.outputs():
            for target in out.get_target_inputs():
                if id(target.get_node()) in live:
                    continue
                if detached is None:
                    detached = opset.constant(np.zeros((), np.uint8), name="detached").output(0)
                dead[id(target.get_node())] = target.get_node()
                target.replace_source_output(detached)
    return len(dead)


PIPELINE: Final[tuple[tuple[str, Pass], ...]] = (
    ("ConstantFolding", fold_constants),
    ("FuseIdempotentUnary", fuse_idempotent_unary),
    ("DecomposeDivide", decompose_divide),
    ("EliminateDeadCode", eliminate_dead_code),
)


def transform_model(model: Model, config: P.PropertyStore) -> dict[str, int]:
    """Run :data:`PIPELINE` on ``model`` in place; return the number of changes per pass.

    :raises CompileError: naming the pass and the model when a pass fails.
    """
    ctx = PassContext(model.friendly_name, config.get(P.INFERENCE_PRECISION_HINT))
    changes: dict[str, int] = {}
    for name, run in PIPELINE:
        start = time.perf_counter()
        try:
            changes[name] = run(model, ctx)
        except Exception as e:
            raise CompileError(f"transformation {name!r} failed on model {model.friendly_name!r}: "
                               f"{type(e).__name__}: {e}") from e
        log(config, P.LogLevel.DEBUG, "REFERENCE: %s changed %d node(s) of model %r in %.3f ms", name,
            changes[name], model.friendly_name, (time.perf_counter() - start) * 1e3)
    try:
        model.validate()
    except OVConformError as e:
        raise CompileError(f"the transformed model {model.friendly_name!r} is invalid: {e}") from e
    return changes
