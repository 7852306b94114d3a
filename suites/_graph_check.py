"""Judging a multi-op graph (the pattern catalogue and the graph fuzz): the composed tolerance and
the unfused control.

**Composed tolerance.** An output's error is the rounding of every op on its paths from the
inputs, carried forward by the ops after it. :func:`composed_tolerances` adds, for each output,
the tolerances of the ops it depends on (:func:`ovconform.suites._op_runner.tolerance_for`, so
the device's ``ovconform_get_tolerance`` hook refines them: atol and rtol summed along the graph)
and a conditioning term ``ctol·S`` where S is the output's measured sensitivity
(:func:`sensitivity`): REFERENCE runs the graph with every float input and constant perturbed
elementwise, and every float op output scaled, by a relative ``DELTA`` of random sign; ``S =
|Δoutput| / DELTA`` (the larger of :data:`PROBES` draws). So an output that cancels or
amplifies (a normalisation's ``x - mean``, a Softmax over large logits) gets the room its
conditioning needs, and a well-conditioned one stays tight.

**Unfused control** (:func:`unfused_control`): the graph again with every intermediate made a
model output, which defeats most fusion (a fused kernel cannot hand out what it never stores).
When the original outputs are then right, the failure is in the fused path only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.graphs import describe_ops
from ovconform.ir import Model, Node, Output, Type
from ovconform.suites import _op_runner as R
from ovconform.tolerances import EPSILON, Comparison, Tolerance, execution_type

__all__ = ["CTOL_ULPS", "DELTA", "FUSED_ONLY", "NOT_FUSED_ONLY", "Control", "Verdict", "composed_tolerances",
           "judge", "op_list", "sensitivity", "unfused_control", "unfused_model"]

#: The relative perturbation of :func:`sensitivity` (2**-14: far above f32 rounding, first order).
DELTA = 2.0 ** -14
#: Perturbation draws of :func:`sensitivity` (the larger S wins).
PROBES = 2
#: ctol = CTOL_ULPS · epsilon of the output's element type: a device may round every value it
#: holds a few times over without leaving the bound.
CTOL_ULPS = 32
FUSED_ONLY = "fused path only"
NOT_FUSED_ONLY = "not the fused path only"
_FLOATS = ("f32", "f64", "f16", "bf16")


def _ancestors(out: Output) -> list[Node]:
    """The ops ``out`` depends on (no Parameters, Constants or Results), each once."""
    seen: dict[int, Node] = {}
    stack = [out.node]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(src.node for src in node.input_values())
    return [n for n in seen.values() if n.type_name not in R.HOUSEKEEPING]


def composed_tolerances(device: str, model: Model, precision: Type | None = None) -> list[Tolerance]:
    """One tolerance per Result of ``model``: the tolerances of the ops it depends on, summed
    (atol, rtol), plus ``ctol = CTOL_ULPS·e`` for the sensitivity term (exact for integer and
    boolean outputs); for a device computing in ``precision`` (its INFERENCE_PRECISION_HINT) the
    op tolerances and ``e`` are that precision's."""
    out = []
    for result in model.get_results():
        source = result.input_value(0)
        et = source.get_element_type()
        if et.name not in _FLOATS:
            out.append(Tolerance(0.0, 0.0))
            continue
        atol = rtol = 0.0
        for node in _ancestors(source):
            for o in node.outputs():
                if o.get_element_type().name not in _FLOATS:
                    continue
                tol = R.tolerance_for(device, node, o.get_element_type(), precision)
                atol, rtol = atol + tol.atol, rtol + tol.rtol
        out.append(Tolerance(atol, rtol, ctol=CTOL_ULPS * EPSILON[execution_type(et, precision).name]))
    return out


def _perturbed(model: Model, rng: np.random.Generator) -> Model:
    """A clone of ``model`` whose float Constants are perturbed elementwise and whose float op
    outputs are scaled by ``1 ± DELTA`` (one random sign per output)."""
    clone = model.clone()
    for node in clone.get_ordered_ops():
        if node.type_name == "Constant":
            data = np.asarray(node.data)
            if data.dtype in (np.float32, np.float64):
                noisy = data * (1 + DELTA * rng.choice([-1.0, 1.0], data.shape)).astype(data.dtype)
                noisy.setflags(write=False)
                node.data = noisy
            continue
        if node.type_name in R.HOUSEKEEPING:
            continue
        for o in node.outputs():
            et = o.get_element_type()
            if et not in (Type.f32, Type.f64):
                continue
            targets = o.get_target_inputs()
            factor = opset.constant(np.array(1 + DELTA * rng.choice([-1.0, 1.0]), et.to_dtype()), et)
            scaled = opset.multiply(o, factor)
            for t in targets:
                t.replace_source_output(scaled.output(0))
    return clone


def sensitivity(model: Model, steps: R.Steps, expected: list[list[np.ndarray]], seed: int = 0
                ) -> list[list[np.ndarray | None]]:
    """S per step and output (None for a non-float output): ``|Δoutput| / DELTA`` under the
    perturbation of :func:`_perturbed`, the larger of :data:`PROBES` draws."""
    rng = np.random.default_rng(seed)
    best: list[list[np.ndarray | None]] = [[None] * len(outs) for outs in expected]
    for _ in range(PROBES):
        clone = _perturbed(model, rng)
        feeds = []
        for step in steps:
            feed = {}
            for k, v in step.items():
                a = np.asarray(v)
                if a.dtype in (np.float32, np.float64):
                    a = a * (1 + DELTA * rng.choice([-1.0, 1.0], a.shape)).astype(a.dtype)
                feed[k] = a
            feeds.append(feed)
        for s, outs in enumerate(R.run_reference(clone, feeds)):
            for i, (o, want) in enumerate(zip(outs, expected[s], strict=True)):
                if want.dtype not in (np.float32, np.float64) or o.shape != want.shape:
                    continue
                with np.errstate(all="ignore"):
                    d = np.abs(o.astype(np.float64) - want.astype(np.float64)) / DELTA
                d = np.where(np.isfinite(d), d, 0.0)
                prev = best[s][i]
                best[s][i] = d if prev is None else np.maximum(prev, d)
    return best


@dataclass
class Verdict:
    """How one graph did on the device: the outputs, the comparisons (or the device's error)."""

    expected: list[list[np.ndarray]]
    tolerances: list[Tolerance]
    comparisons: list[tuple[str, Comparison]] = field(default_factory=list)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.passed for _, c in self.comparisons)

    def bad(self) -> list[tuple[str, Comparison]]:
        return [(label, c) for label, c in self.comparisons if not c.passed]

    def describe(self) -> str:
        """The first failure in a sentence (the device's error, or the first bad output)."""
        if self.error is not None:
            return self.error
        bad = self.bad()
        if not bad:
            return "every output matches REFERENCE"
        label, c = bad[0]
        text = f"{label}: {c.message} [tolerance {c.tolerance.describe()}; {len(bad)} bad output(s)]"
        return text.replace("Σ|terms|", "S (S: the output's measured sensitivity)", 1).replace("Σ|terms|", "S")


def judge(core: Any, device: str, model: Model, steps: R.Steps) -> Verdict:
    """Run ``model`` on ``device`` and on REFERENCE and compare every output of every step under
    the composed tolerance (at the compiled model's execution precision)."""
    expected = R.run_reference(model, steps)
    try:
        compiled = core.compile_model(model, device)
        tols = composed_tolerances(device, model, R.execution_precision(compiled))
        got = R.run_on_device(core, device, model, steps, compiled=compiled)
    except Exception as e:  # noqa: BLE001 - the device's error is the finding
        return Verdict(expected, composed_tolerances(device, model), error=f"{type(e).__name__}: {e}")
    magnitude = sensitivity(model, steps, expected)
    return Verdict(expected, tols, R.compare_outputs(model, got, expected, tols, steps, magnitude=magnitude))


def unfused_model(model: Model) -> Model:
    """A clone of ``model`` whose Results are the original ones, then one per output of every
    op (in topological order): no intermediate is private to a fused kernel any more."""
    clone = model.clone()
    extra = [opset.result(o) for n in clone.get_ordered_ops() if n.type_name not in R.HOUSEKEEPING
             and n.type_name not in ("Assign",) for o in n.outputs()]
    return Model([*clone.get_results(), *extra], clone.get_sinks(), clone.get_parameters(),
                 f"{model.friendly_name}_unfused")


@dataclass(frozen=True)
class Control:
    """The unfused control's finding: ``fused_only`` (None when the control could not tell) and
    the sentence for the failure message."""

    fused_only: bool | None
    sentence: str

    def facts(self) -> dict[str, Any]:
        return {"fused_only": self.fused_only, "sentence": self.sentence}


def unfused_control(core: Any, device: str, model: Model, steps: R.Steps) -> Control:
    """Rerun ``model`` with every intermediate made an output: whether its original outputs are
    then right (the failure is in the fused path only), else the first intermediate that is
    wrong."""
    try:
        unfused = unfused_model(model)
        verdict = judge(core, device, unfused, steps)
    except Exception as e:  # noqa: BLE001 - the control is best effort; the failure stands
        return Control(None, f"unfused control could not run: {type(e).__name__}: {e}")
    if verdict.error is not None:
        return Control(None, f"unfused control: with every intermediate made a model output the device fails "
                             f"too ({verdict.error})")
    n, total = len(model.get_results()), len(unfused.get_results())
    # compare_outputs goes step by step, output by output: entry k is output k % total
    originals = [c for k, (_, c) in enumerate(verdict.comparisons) if k % total < n]
    if all(c.passed for c in originals):
        return Control(True, f"unfused control: {FUSED_ONLY} (with every intermediate made a model output, "
                             f"every output matches REFERENCE)")
    first = next((k for k, (_, c) in enumerate(verdict.comparisons) if not c.passed and k % total >= n), None)
    where = ""
    if first is not None:
        src = unfused.get_results()[first % total].input_value(0)
        where = f"; first wrong intermediate: {src.node.type_name} {src.node.friendly_name!r} output {src.index}"
    return Control(False, f"unfused control: {NOT_FUSED_ONLY} (with every intermediate made a model output the "
                          f"outputs are still wrong{where})")


def op_list(model: Model) -> list[str]:
    """The graph op by op (for the record's ``graph_ops`` fact)."""
    return describe_ops(model)
