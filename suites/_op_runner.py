"""Helpers of the op and model conformance suites: generate the cases, run a model on the device
under test and on REFERENCE, compare under the tolerances, and check what query_model declares.

* :func:`generate_cases` (:func:`ovconform.opcases.generate_cases`) draws N cases of one op
  deterministically (hypothesis with ``derandomize=True`` and no database), so every xdist worker
  collects and runs the same cases.
* :func:`run_on_device` compiles with ``core.compile_model`` and infers (one or more steps, for
  stateful models); :func:`run_reference` evaluates on the REFERENCE kernels.
* :func:`tolerance_for` gives the tolerance of one output: the default table, then the device's
  ``ovconform_get_tolerance`` hook, so tolerances stay data.
* :func:`compare_outputs` compares by value, except the samples of a categorical distribution
  (Multinomial), which a device may draw with another generator: those are checked as samples
  (:func:`ovconform.categorical.compare_samples`), with the op's probabilities taken from Constants or
  from ``feeds`` (the step inputs) when given; in an op case (``copies``) a copying op's float
  output is compared bit for bit (a NaN's payload, the sign of a zero).
* :func:`case_labels` / :func:`get_case` name and build the cases of an op version at a depth
  (``--ovconform-depth``): the generated ``case0..caseN-1`` and the stimulus cases of
  :mod:`ovconform.opcases.stimulus`; :func:`case_steps` gives the inputs of each inference (one,
  several for stateful ops, the min/mid/max shapes of a dynamic-mode case and then its min again).
* :func:`expected_values` computes what the device must give, once per case and execution
  precision, from the REFERENCE formulas, cached in the process and (large cases) on disk in a
  folder the run's processes share, so a second device in one run costs nothing extra: the
  outputs, for a device with a coarser execution precision (its ``INFERENCE_PRECISION_HINT``,
  :func:`execution_precision`) the outputs from inputs rounded to it, and for the ops of
  :data:`ovconform.tolerances.CONDITIONED_OPS` S = Σ|terms| (the op on the inputs' magnitudes), for
  attention its error model's S (:func:`ovconform.tolerances.attention_magnitude`).
"""

from __future__ import annotations

import functools
import json
import math
import os
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ovconform import Tensor
from ovconform.categorical import SampleComparison, compare_samples, sample_space
from ovconform.ir import Model, Node, Type, as_type, bf16_to_f32, constant_value, f32_to_bf16
from ovconform.opcases import CASE_TIERS, OpCase, case_at, generate_cases, generated_cases
from ovconform.opcases.depth import DEFAULT_EXAMPLES as EXAMPLES_AT
from ovconform.opcases.depth import Depth, depth_from_config, examples_from_config
from ovconform.opcases.stimulus import build_stimulus, stimuli
from ovconform.tolerances import (
    EPSILON,
    Comparison,
    Tolerance,
    apply_override,
    attention_magnitude,
    compare,
    copies_bits,
    execution_type,
    is_attention,
    is_conditioned,
    reduction_size,
    resolve_tolerance,
)
from reference_plugin.evaluate import ModelRunner  # the formulas' interpreter

__all__ = ["DEFAULT_EXAMPLES", "HOUSEKEEPING", "MODEL_TOLERANCE", "Expected", "Steps", "case_labels", "case_steps",
           "compare_outputs", "declared_nodes", "examples_count", "execution_precision", "expected_values",
           "generate_cases", "generated_cases", "get_case", "model_tolerance", "op_depth", "ops_under_test",
           "output_copies", "plugin_manager", "run_on_device", "run_reference", "suite_cases", "tolerance_for"]

#: Cases per op type and version when ``--ovconform-examples`` is not given (at the default depth).
DEFAULT_EXAMPLES = EXAMPLES_AT[Depth.STANDARD]
#: Housekeeping node types: not "the op under test" of a case, not triaged on their own.
HOUSEKEEPING = ("Parameter", "Constant", "Result")
#: Whole-model comparison tolerance on f32 (f16 scales by its epsilon): models chain many
#: accumulating ops, so it is wider than any single op's default; devices refine it through
#: ``ovconform_get_tolerance(op_type="*model*")``.
MODEL_TOLERANCE = Tolerance(1e-4, 1e-3)

#: A run of several steps: one input dict per infer call (stateful models run > 1 step).
Steps = Sequence[Mapping[str, np.ndarray]]


def op_depth(config: Any) -> Depth:
    """The run's depth (``--ovconform-depth``, ``OVCONFORM_DEPTH``, else standard)."""
    return depth_from_config(config)


def examples_count(config: Any) -> int:
    """N generated cases per op version (:func:`ovconform.opcases.depth.examples_from_config`)."""
    return examples_from_config(config)


def ops_under_test(model: Model, op_type: str | None = None) -> list[Node]:
    """The nodes of ``model`` that are not housekeeping (of ``op_type`` when given)."""
    return [n for n in model.get_ordered_ops()
            if n.type_name not in HOUSEKEEPING and (op_type is None or n.type_name == op_type)]


# -- which cases -----------------------------------------------------------------------------------------

GENERATED = "case"


def case_labels(op_type: str, version: int, n: int, depth: Depth) -> list[str]:
    """The labels of the cases the suite runs for ``op_type``-``version``: ``case{i}`` for each
    generated case (``case0``..``case{n-1}`` from the default ``n`` up, where a strategy with fewer
    distinct cases skips the rest; below it, the indices of
    :func:`~ovconform.opcases.generated_cases`), then the stimulus cases ``depth`` runs (none at
    quick)."""
    if n >= CASE_TIERS[0]:
        labels = [f"{GENERATED}{i}" for i in range(n)]
    else:
        labels = [f"{GENERATED}{i}" for i, _ in generated_cases(op_type, version, n)]
    if depth > Depth.QUICK:
        labels += [s.label for s in stimuli(op_type, version, depth)]
    return labels


def generated_index(label: str) -> int | None:
    """``i`` for the generated case ``case{i}``, None for a stimulus label."""
    rest = label.removeprefix(GENERATED)
    return int(rest) if rest != label and rest.isdigit() else None


def get_case(op_type: str, version: int, label: str, n: int) -> OpCase | None:
    """The case ``label`` (None when the strategy has fewer than ``i + 1`` distinct generated cases)."""
    index = generated_index(label)
    if index is None:
        return build_stimulus(op_type, version, label)
    return case_at(op_type, version, index, n)


def suite_cases(op_type: str, version: int, n: int, depth: Depth | str) -> list[tuple[str, OpCase]]:
    """``(label, case)`` for every case the suite runs for ``op_type``-``version`` at ``depth``."""
    from ovconform.opcases.depth import parse_depth

    d = parse_depth(depth)
    out = []
    for label in case_labels(op_type, version, n, d):
        case = get_case(op_type, version, label, n)
        if case is not None:
            out.append((label, case))
    return out


#: Inferences per case of a stateful op (each reads what the previous one assigned).
STATE_STEPS = 3


def case_steps(case: OpCase) -> list[dict[str, np.ndarray]]:
    """The input dict of each inference on one request: the dynamic-mode shapes in order and then the
    first again (a smaller shape after the largest: a device must shrink its outputs too), or
    :data:`STATE_STEPS` times the inputs of a stateful op (ReadValue/Assign), else once."""
    dynamic = case.extra.get("dynamic_inputs")
    if dynamic:
        return [dict(case.inputs), *(dict(d) for d in dynamic), dict(case.inputs)]
    count = STATE_STEPS if case.op_type in ("ReadValue", "Assign") else 1
    return [dict(case.inputs)] * count


# -- running -------------------------------------------------------------------------------------

def _param_names(model: Model) -> list[str]:
    return [p.friendly_name for p in model.get_parameters()]


def run_on_device(core: Any, device: str, model: Model, steps: Steps, compiled: Any = None) -> list[list[np.ndarray]]:
    """Compile (unless ``compiled`` is given) and infer each step on one request; outputs per step.
    Inputs are handed over as tensors of the Parameters' element types (bf16 as uint16 data)."""
    if compiled is None:
        compiled = core.compile_model(model, device)
    request = compiled.create_infer_request()
    names = _param_names(model)
    types = {p.friendly_name: p.get_output_element_type(0) for p in model.get_parameters()}
    outputs = []
    for step in steps:
        results = request.infer({names.index(k): Tensor(np.asarray(v), element_type=types[k])
                                 for k, v in step.items()})
        values = list(results.values()) if isinstance(results, Mapping) else list(results)
        outputs.append([np.array(getattr(v, "data", v)) for v in values])
    return outputs


def run_reference(model: Model, steps: Steps) -> list[list[np.ndarray]]:
    """The REFERENCE oracle's outputs per step (variable state carried across the steps)."""
    runner = ModelRunner(model)
    state: dict[str, np.ndarray] = {}
    names = _param_names(model)
    return [[np.array(v) for v in runner.run([step[n] for n in names], state)] for step in steps]


def execution_precision(compiled: Any) -> Type | None:
    """The compiled model's INFERENCE_PRECISION_HINT as a Type (None when it has none, or for a
    value that is not a floating-point type)."""
    try:
        value = compiled.get_property("INFERENCE_PRECISION_HINT")
    except Exception:  # noqa: BLE001 - a device without the property computes in the model's types
        return None
    try:
        et = as_type(getattr(value, "name", value) if not isinstance(value, (str, Type)) else value)
    except Exception:  # noqa: BLE001 - an odd value: judged by the model's types
        return None
    return et if et.is_real() else None


# -- expected values -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Expected:
    """What a device must give for one case, per step and output.

    :param outputs: the REFERENCE formulas' outputs.
    :param alternate: (coarser execution precision only) the outputs from inputs and constants
        rounded to that precision, the f32 outputs rounded to it too; None otherwise.
    :param magnitude: (ops of CONDITIONED_OPS) S = Σ|terms| per output element, else None entries.
    """

    outputs: list[list[np.ndarray]]
    alternate: list[list[np.ndarray]] | None = None
    magnitude: list[list[np.ndarray | None]] | None = None


def _round_to(value: np.ndarray, precision: Type) -> np.ndarray:
    """An f32 array rounded to ``precision`` (f16 or bf16) and kept as f32; other arrays unchanged."""
    if value.dtype != np.float32:
        return value
    with np.errstate(all="ignore"):
        if precision == Type.f16:
            return value.astype(np.float16).astype(np.float32)
        if precision == Type.bf16:
            return bf16_to_f32(f32_to_bf16(value))
    return value


def _map_model(model: Model, fn: Any) -> Model:
    """A clone of ``model`` with ``fn(array, element_type)`` applied to every Constant's data."""
    clone = model.clone()
    for node in clone.get_ordered_ops():
        if node.type_name == "Constant" and node.data is not None:
            data = np.array(fn(np.asarray(node.data), node.get_output_element_type(0)), order="C")
            data.setflags(write=False)
            node.data = data
    return clone


def _magnitude_of(value: np.ndarray, et: Type) -> np.ndarray:
    if et == Type.bf16:
        return np.asarray(value, np.uint16) & np.uint16(0x7FFF)
    return np.abs(value) if et.is_real() else value


def _alternate(model: Model, steps: Steps, precision: Type) -> list[list[np.ndarray]]:
    """The outputs a device computing in ``precision`` gives when it rounds every f32 value it
    holds: inputs, constants, the variables' state between inferences, the results."""
    runner = ModelRunner(_map_model(model, lambda a, et: _round_to(a, precision)))
    names = _param_names(model)
    state: dict[str, np.ndarray] = {}
    out = []
    for step in steps:
        outs = runner.run([_round_to(np.asarray(step[n]), precision) for n in names], state)
        out.append([_round_to(np.array(o), precision) for o in outs])
        for key in list(state):
            state[key] = _round_to(np.asarray(state[key]), precision)
    return out


def _attention_s(node: Node, step: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """S of an attention op (:func:`ovconform.tolerances.attention_magnitude`) from its inputs'
    values, when each is a Constant or a fed Parameter (else None: the default tolerance)."""
    values = []
    for src in node.input_values():
        value = constant_value(src)
        if value is None and src.node.type_name == "Parameter" and src.node.friendly_name in step:
            value = step[src.node.friendly_name]
        if value is None:
            return None
        arr = np.asarray(value)
        values.append(bf16_to_f32(arr) if src.get_element_type() == Type.bf16 else arr)
    q, k, v, *rest = values
    scale = float(np.asarray(rest[1], np.float64).reshape(-1)[0]) if len(rest) > 1 else None
    bound = attention_magnitude(q, k, v, rest[0] if rest else None, scale, bool(node.attrs.get("causal")))
    if node.get_output_element_type(0) == Type.bf16:  # stored as the output is (rounded up, not down)
        return f32_to_bf16(np.asarray(bound * (1 + 2.0 ** -7), np.float32))
    return bound


def _magnitudes(model: Model, steps: Steps) -> list[list[np.ndarray | None]] | None:
    results = model.get_results()
    real = [r.get_input_element_type(0).is_real() for r in results]
    attention = [is_attention(r.input_value(0).node.type_name) and ok for r, ok in zip(results, real, strict=True)]
    wanted = [is_conditioned(r.input_value(0).node.type_name) and ok for r, ok in zip(results, real, strict=True)]
    if not any(wanted) and not any(attention):
        return None
    terms: list[list[Any]] = [[None] * len(results) for _ in steps]
    if any(wanted):
        types = {p.friendly_name: p.get_output_element_type(0) for p in model.get_parameters()}
        feeds = [{k: _magnitude_of(np.asarray(v), types[k]) for k, v in step.items()} for step in steps]
        terms = run_reference(_map_model(model, _magnitude_of), feeds)
    out: list[list[np.ndarray | None]] = []
    for step, outs in zip(steps, terms, strict=True):
        row: list[np.ndarray | None] = []
        for r, o, w, a in zip(results, outs, wanted, attention, strict=True):
            row.append(o if w else _attention_s(r.input_value(0).node, step) if a else None)
        out.append(row)
    return out if any(m is not None for row in out for m in row) else None


def _coarser(model: Model, precision: Type | None) -> Type | None:
    """``precision`` when it is coarser than some f32 value of ``model`` (else None: no alternate)."""
    if precision is None:
        return None
    return precision if execution_type(Type.f32, precision) != Type.f32 else None


#: Cases with at least this many input elements are cached on disk as well.
DISK_CACHE_MIN_ELEMENTS = 1 << 14
_memory: dict[str, Expected] = {}
_MEMORY_LIMIT = 64


def expected_values(key: str, case: OpCase, precision: Type | None = None,
                    cache_dir: Path | None = None) -> Expected:
    """The :class:`Expected` values of ``case`` (``key`` names it uniquely, e.g. its test id
    without the device) for a device computing in ``precision``; cached in this process and, for
    large cases, as ``.npz`` files in ``cache_dir`` (shared by the run's processes; never pickle)."""
    precision = _coarser(case.model, precision)
    full = f"{key}@{precision.name if precision else 'native'}"
    if full in _memory:
        return _memory[full]
    steps = case_steps(case)
    size = sum(np.asarray(v).size for step in steps for v in step.values())
    path = None
    if cache_dir is not None and size >= DISK_CACHE_MIN_ELEMENTS:
        path = Path(cache_dir) / f"{zlib.crc32(full.encode()):08x}-{_safe(full)[:80]}.npz"
        loaded = _load(path)
        if loaded is not None:
            return _remember(full, loaded)
    result = Expected(run_reference(case.model, steps),
                      _alternate(case.model, steps, precision) if precision is not None else None,
                      _magnitudes(case.model, steps))
    if path is not None:
        _save(path, result)
    return _remember(full, result)


def _remember(key: str, value: Expected) -> Expected:
    if len(_memory) >= _MEMORY_LIMIT:
        _memory.pop(next(iter(_memory)))
    _memory[key] = value
    return value


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def _save(path: Path, value: Expected) -> None:
    if any(np.asarray(o).dtype.hasobject for outs in value.outputs for o in outs):
        return  # string outputs stay in memory: .npz holds object arrays only by pickling them
    arrays: dict[str, np.ndarray] = {}
    layout: dict[str, Any] = {"steps": [len(s) for s in value.outputs], "alternate": value.alternate is not None,
                              "magnitude": None}
    for s, outs in enumerate(value.outputs):
        for i, o in enumerate(outs):
            arrays[f"o{s}_{i}"] = o
            if value.alternate is not None:
                arrays[f"a{s}_{i}"] = value.alternate[s][i]
    if value.magnitude is not None:
        layout["magnitude"] = [[m is not None for m in outs] for outs in value.magnitude]
        for s, mags in enumerate(value.magnitude):
            for i, m in enumerate(mags):
                if m is not None:
                    arrays[f"m{s}_{i}"] = m
    arrays["layout"] = np.frombuffer(json.dumps(layout).encode(), np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(tmp, allow_pickle=False, **arrays)
    os.replace(tmp, path)


def _load(path: Path) -> Expected | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            layout = json.loads(bytes(data["layout"]).decode())
            outputs = [[data[f"o{s}_{i}"] for i in range(n)] for s, n in enumerate(layout["steps"])]
            alternate = ([[data[f"a{s}_{i}"] for i in range(n)] for s, n in enumerate(layout["steps"])]
                         if layout["alternate"] else None)
            magnitude = None
            if layout["magnitude"] is not None:
                magnitude = [[data[f"m{s}_{i}"] if has else None for i, has in enumerate(row)]
                             for s, row in enumerate(layout["magnitude"])]
    except (OSError, ValueError, KeyError):
        return None
    return Expected(outputs, alternate, magnitude)


# -- tolerances ----------------------------------------------------------------------------------

@functools.cache
def plugin_manager() -> Any:
    """ovconform's plugin manager, built once per process (entry points are scanned once)."""
    from ovconform.host.manager import get_plugin_manager

    return get_plugin_manager()


def _hook_override(device: str, op_type: str, version: int, et: str) -> Mapping[str, Any] | None:
    return plugin_manager().hook.ovconform_get_tolerance(device=device, op_type=op_type, version=version,
                                                             element_type=et)


def tolerance_for(device: str, node: Node, element_type: Any, precision: Any = None,
                  conditioned: bool = False) -> Tolerance:
    """The tolerance of ``node``'s output: default table (for a device computing in ``precision``;
    the conditioned form when the comparison gets S) → the device's hook."""
    et = str(getattr(element_type, "name", element_type))
    hook = _hook_override(device, node.type_name, node.version, et)
    return resolve_tolerance(node.type_name, element_type, node.version, reduction_size=reduction_size(node),
                             hook_result=hook, precision=precision, conditioned=conditioned)


def model_tolerance(device: str, element_type: Any, precision: Any = None) -> Tolerance:
    """:data:`MODEL_TOLERANCE` for f32/f64, ``(64e, 16e)`` for f16/bf16, exact for integers; an f32
    output of a device computing in a coarser ``precision`` (its INFERENCE_PRECISION_HINT,
    :func:`execution_precision`) gets that precision's ``(64e, 16e)``, as the op suite's bounds
    follow it (:func:`ovconform.tolerances.execution_type`); then the device's
    ``ovconform_get_tolerance(op_type="*model*")`` hook."""
    et = str(getattr(element_type, "name", element_type))
    computed = execution_type(et, precision).name if et in EPSILON else et
    if computed in ("f32", "f64"):
        base = MODEL_TOLERANCE
    elif computed in EPSILON:
        base = Tolerance(64 * EPSILON[computed], 16 * EPSILON[computed])
    else:
        base = Tolerance(0.0, 0.0)
    return apply_override(base, _hook_override(device, "*model*", 0, et), f"ovconform_get_tolerance('*model*', {et})")


def compare_outputs(model: Model, actual: list[list[np.ndarray]], expected: list[list[np.ndarray]],
                    tolerances: list[Tolerance], feeds: Steps | None = None, *,
                    alternate: list[list[np.ndarray]] | None = None,
                    magnitude: list[list[np.ndarray | None]] | None = None,
                    copies: bool = False) -> list[tuple[str, Comparison]]:
    """Compare every output of every step: ``[(label, Comparison)]`` (a missing output is a
    failed comparison). Samples of a categorical distribution are checked as samples; ``feeds``
    (one input dict per step) lets that check see probabilities fed through Parameters.
    ``alternate`` and ``magnitude`` (per step and output, as :class:`Expected` holds them) go to
    :func:`ovconform.tolerances.compare`. With ``copies`` (a model whose ops read its inputs: the
    op suite's cases) an output of a copying op is compared bit for bit (:func:`output_copies`)."""
    out = []
    results = model.get_results()
    for s, (got_step, want_step) in enumerate(zip(actual, expected, strict=True)):
        for i, want in enumerate(want_step):
            label = f"step {s} output {i} ({results[i].input_value(0).node.friendly_name})"
            et = results[i].get_input_element_type(0)
            if i >= len(got_step):
                out.append((label, Comparison(False, "output missing", tolerances[i], et.name)))
                continue
            node = results[i].input_value(0).node
            space = sample_space(node, _input_values(node, feeds[s] if feeds else {}))
            if space is not None:
                out.append((label, compare_samples(got_step[i], want, space, tolerances[i], et)))
                continue
            alt = alternate[s][i] if alternate is not None else None
            mag = magnitude[s][i] if magnitude is not None else None
            out.append((label, compare(got_step[i], want, tolerances[i], et, alternate=alt, magnitude=mag,
                                       bits=copies and copies_bits(node.type_name))))
    return out


def output_copies(model: Model) -> list[bool]:
    """Per Result of ``model``: whether a copying op makes it (:func:`ovconform.tolerances.copies_bits`),
    so that an op case compares it bit for bit."""
    return [copies_bits(r.input_value(0).node.type_name) for r in model.get_results()]


def _input_values(node: Node, feed: Mapping[str, np.ndarray]) -> list[np.ndarray | None]:
    """``node``'s input values where known: Constants (build-time values) and fed Parameters."""
    values: list[np.ndarray | None] = []
    for src in node.input_values():
        value = constant_value(src)
        if value is None and src.node.type_name == "Parameter" and src.node.friendly_name in feed:
            value = np.asarray(feed[src.node.friendly_name])
        values.append(None if value is None else np.asarray(value))
    return values


def summary(comparisons: list[tuple[str, Comparison]]) -> dict[str, Any]:
    """Facts: the worst abs/rel errors and the tolerance of every output (and, for samples of a
    categorical distribution, ``samples_equal_reference``)."""
    def finite(x: float) -> float | None:
        return x if math.isfinite(x) else None  # the report schema takes a number or null

    facts: dict[str, Any] = {"max_abs_err": finite(max((c.max_abs_err for _, c in comparisons), default=0.0)),
             "max_rel_err": finite(max((c.max_rel_err for _, c in comparisons), default=0.0)),
             "tolerances": [c.tolerance.to_dict() for _, c in comparisons]}
    ratios = [r for _, c in comparisons if (r := getattr(c, "error_to_bound", None)) is not None]
    if ratios:  # the achieved error as a fraction of the bound (worst element of any output)
        facts["error_to_bound"] = finite(max(ratios))
    samples = [c for _, c in comparisons if isinstance(c, SampleComparison)]
    if samples:  # checked as samples, not by value: whether they equal REFERENCE's is a fact
        facts["samples_equal_reference"] = all(c.equal_to_reference for c in samples)
    return facts


# -- declared support ----------------------------------------------------------------------------

def declared_nodes(core: Any, device: str, model: Model) -> dict[str, str]:
    """query_model's answer (friendly name → device)."""
    return dict(core.query_model(model, device))
