"""Helpers of the op and model conformance suites: generate the cases, run a model on the device
under test and on REFERENCE, compare under the tolerances, and check what query_model declares.

* :func:`generate_cases` draws N cases of one op deterministically (hypothesis with
  ``derandomize=True`` and no database), so every xdist worker collects and runs the same cases.
* :func:`run_on_device` compiles with ``core.compile_model`` and infers (one or more steps, for
  stateful models); :func:`run_reference` evaluates on the REFERENCE kernels.
* :func:`tolerance_for` gives the tolerance of one output: the default table, then the device's
  ``ovconform_get_tolerance`` hook, so tolerances stay data.
* :func:`compare_outputs` compares by value, except the samples of a categorical distribution
  (Multinomial), which a device may draw with another generator: those are checked as samples
  (:func:`ovconform.categorical.compare_samples`), with the op's probabilities taken from Constants or
  from ``feeds`` (the step inputs) when given.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ovconform import Tensor
from ovconform.categorical import SampleComparison, compare_samples, sample_space
from ovconform.ir import Model, Node, constant_value
from ovconform.opcases import OpCase, case_strategy, same_draws_everywhere
from ovconform.tolerances import (
    EPSILON,
    Comparison,
    Tolerance,
    apply_override,
    compare,
    reduction_size,
    resolve_tolerance,
)
from reference_plugin._evaluate import ModelRunner

__all__ = ["DEFAULT_EXAMPLES", "MODEL_TOLERANCE", "HOUSEKEEPING", "Steps", "compare_outputs", "declared_nodes",
           "examples_count", "generate_cases", "model_tolerance", "ops_under_test", "plugin_manager", "run_on_device",
           "run_reference", "tolerance_for"]

#: Cases per op type and version when ``--ovconform-examples`` is not given.
DEFAULT_EXAMPLES = 10
#: Housekeeping node types: not "the op under test" of a case, not triaged on their own.
HOUSEKEEPING = ("Parameter", "Constant", "Result")
#: Whole-model comparison tolerance on f32 (f16 scales by its epsilon): models chain many
#: accumulating ops, so it is wider than any single op's default; devices refine it through
#: ``ovconform_get_tolerance(op_type="*model*")``.
MODEL_TOLERANCE = Tolerance(1e-4, 1e-3)

#: A run of several steps: one input dict per infer call (stateful models run > 1 step).
Steps = Sequence[Mapping[str, np.ndarray]]


def examples_count(config: Any) -> int:
    """N from ``--ovconform-examples``, else ``OVCONFORM_EXAMPLES``, else 10.

    :raises pytest.UsageError: naming the source when the value is not an integer >= 1.
    """
    import pytest

    value, source = None, "--ovconform-examples"
    try:
        value = config.getoption("ovconform_examples")
    except ValueError:  # the option is not registered (suites collected without their conftest)
        pass
    if value is None:
        value, source = os.environ.get("OVCONFORM_EXAMPLES") or DEFAULT_EXAMPLES, "OVCONFORM_EXAMPLES"
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise pytest.UsageError(f"{source}={value!r}: the number of cases per op must be an integer >= 1.")
    return n


@functools.cache
def generate_cases(op_type: str, version: int, n: int) -> tuple[OpCase, ...]:
    """The first ``n`` cases hypothesis draws for ``op_type``-``version`` with a fixed seed
    (fewer when the strategy has fewer distinct cases)."""
    from hypothesis import HealthCheck, Phase, given, settings

    out: list[OpCase] = []

    @settings(derandomize=True, max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(case_strategy(op_type, version))
    def collect(case: OpCase) -> None:
        if len(out) < n:
            out.append(case)

    with same_draws_everywhere():
        collect()
    return tuple(out)


def ops_under_test(model: Model, op_type: str | None = None) -> list[Node]:
    """The nodes of ``model`` that are not housekeeping (of ``op_type`` when given)."""
    return [n for n in model.get_ordered_ops()
            if n.type_name not in HOUSEKEEPING and (op_type is None or n.type_name == op_type)]


# -- running -------------------------------------------------------------------------------------

def _param_names(model: Model) -> list[str]:
    return [p.friendly_name for p in model.get_parameters()]


def run_on_device(core: Any, device: str, model: Model, steps: Steps, compiled: Any = None) -> list[list[np.ndarray]]:
    """Compile (unless ``compiled`` is given) and infer each step on one request; outputs per step."""
    if compiled is None:
        compiled = core.compile_model(model, device)
    request = compiled.create_infer_request()
    names = _param_names(model)
    outputs = []
    for step in steps:
        results = request.infer({names.index(k): Tensor(np.asarray(v)) for k, v in step.items()})
        values = list(results.values()) if isinstance(results, Mapping) else list(results)
        outputs.append([np.array(getattr(v, "data", v)) for v in values])
    return outputs


def run_reference(model: Model, steps: Steps) -> list[list[np.ndarray]]:
    """The REFERENCE oracle's outputs per step (variable state carried across the steps)."""
    runner = ModelRunner(model)
    state: dict[str, np.ndarray] = {}
    names = _param_names(model)
    return [[np.array(v) for v in runner.run([step[n] for n in names], state)] for step in steps]


# -- tolerances ----------------------------------------------------------------------------------

@functools.cache
def plugin_manager() -> Any:
    """ovconform's plugin manager, built once per process (entry points are scanned once)."""
    from ovconform.host.manager import get_plugin_manager

    return get_plugin_manager()


def _hook_override(device: str, op_type: str, version: int, et: str) -> Mapping[str, Any] | None:
    return plugin_manager().hook.ovconform_get_tolerance(device=device, op_type=op_type, version=version,
                                                             element_type=et)


def tolerance_for(device: str, node: Node, element_type: Any) -> Tolerance:
    """The tolerance of ``node``'s output: default table → the device's hook."""
    et = str(getattr(element_type, "name", element_type))
    hook = _hook_override(device, node.type_name, node.version, et)
    return resolve_tolerance(node.type_name, element_type, node.version, reduction_size=reduction_size(node),
                             hook_result=hook)


def model_tolerance(device: str, element_type: Any) -> Tolerance:
    """:data:`MODEL_TOLERANCE` for f32/f64, ``(64e, 16e)`` for f16/bf16, exact for integers; then
    the device's ``ovconform_get_tolerance(op_type="*model*")`` hook."""
    et = str(getattr(element_type, "name", element_type))
    if et in ("f32", "f64"):
        base = MODEL_TOLERANCE
    elif et in EPSILON:
        base = Tolerance(64 * EPSILON[et], 16 * EPSILON[et])
    else:
        base = Tolerance(0.0, 0.0)
    return apply_override(base, _hook_override(device, "*model*", 0, et), f"ovconform_get_tolerance('*model*', {et})")


def compare_outputs(model: Model, actual: list[list[np.ndarray]], expected: list[list[np.ndarray]],
                    tolerances: list[Tolerance], feeds: Steps | None = None) -> list[tuple[str, Comparison]]:
    """Compare every output of every step: ``[(label, Comparison)]`` (a missing output is a
    failed comparison). Samples of a categorical distribution are checked as samples; ``feeds``
    (one input dict per step) lets that check see probabilities fed through Parameters."""
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
            out.append((label, compare(got_step[i], want, tolerances[i], et) if space is None
                        else compare_samples(got_step[i], want, space, tolerances[i], et)))
    return out


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
    samples = [c for _, c in comparisons if isinstance(c, SampleComparison)]
    if samples:  # checked as samples, not by value: whether they equal REFERENCE's is a fact
        facts["samples_equal_reference"] = all(c.equal_to_reference for c in samples)
    return facts


# -- declared support ----------------------------------------------------------------------------

def declared_nodes(core: Any, device: str, model: Model) -> dict[str, str]:
    """query_model's answer (friendly name → device)."""
    return dict(core.query_model(model, device))
