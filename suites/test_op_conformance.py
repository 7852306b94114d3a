"""Op conformance (``op`` entity): OpenVINO's ``conformance/op`` sub-entities, per generated case.

For every op type and version with a case strategy (:func:`ovconform.opcases.all_case_keys`),
N generated single-op cases (``--ovconform-examples N``, default 10 at standard depth, drawn
deterministically; ids ``<op>-<version>-case<i>``) and, at standard and exhaustive depth
(``--ovconform-depth``), the op's stimulus cases (:mod:`ovconform.opcases.stimulus`: vector
remainders, large shapes, hard values, every element type of its spec, dynamic shapes; ids
``<op>-<version>-<label>``, e.g. ``MatMul-1-k129``), four tests per generated case (a stimulus case
runs Inference only at standard depth, all four at exhaustive):

* **Implemented** — query_model declares the op and the case model compiles (and runs once) on
  the device. An op the device does not declare is *not implemented*: the test fails (as
  OpenVINO's Implemented check does), so it lowers the op pass rate instead of vanishing from it.
* **QueryModel** — ``query_model`` covers the op under test and names the device.
* **Inference** — the device's outputs match REFERENCE within the op's tolerance
  (:mod:`ovconform.tolerances`, refined by the device's ``ovconform_get_tolerance`` hook); the
  tolerance and the observed max abs / rel errors are recorded as facts.
* **ImportExport** — (devices with EXPORT_IMPORT) export → import → the same outputs as before export.

A dynamic-mode case compiles once and infers its min, mid and max shapes on the same request, then
its min shape again (outputs must shrink back).

The tests of one case run one after another (``op_case`` is parametrised at module scope) and share,
within a worker, one ``query_model`` answer and one *first run* (:mod:`ovconform.suites._reuse`):
compile_model, export_model before any inference (devices with EXPORT_IMPORT, for a case with an
ImportExport test), one request inferring every step (the compiled model itself is dropped after
that). Implemented makes that first run afresh; Inference compares its outputs; ImportExport imports
its blob and compares with its outputs — what each did before on its own compiled model.
The Inference tests of an op version's stimulus cases at standard depth (no Implemented test of
theirs compiles them) may pass from one *batch* (:mod:`ovconform.suites._batch`): one query and one
compile of a model holding those cases side by side. A case passes there only when the batch's query
names its op and its outputs are right; anything else is judged on the case alone, as before.
Expected values come from the REFERENCE formulas, once per case and execution precision
(:func:`~ovconform.suites._op_runner.expected_values`); the tolerances follow the device's declared
``INFERENCE_PRECISION_HINT`` and, for sums of products, the terms' magnitudes
(:mod:`ovconform.tolerances`).

Declared vs actual: Implemented fails for an op ``query_model`` does not claim ("not implemented");
QueryModel, Inference and ImportExport skip it with "not supported (declared by query_model)"
(and, when it compiles and computes the right numbers anyway, the fact ``undeclared_but_works``
is recorded). A claimed op that fails to compile or infer or computes wrong numbers FAILS with
"declared supported but failed: ...". A numeric failure writes a standalone reproducer (see
:mod:`ovconform.suites._repro`) named in the message.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovconform import properties as P
from ovconform.ir import Type
from ovconform.opcases import OpCase, all_case_keys
from ovconform.opcases.depth import Depth
from ovconform.suites import _batch, _repro
from ovconform.suites import _op_runner as R
from ovconform.suites._reuse import CaseMemo, FirstRun, Kept, memo_key
from ovconform.tolerances import execution_type

pytestmark = pytest.mark.entity("op")

NOT_DECLARED = "not supported (declared by query_model)"
NOT_IMPLEMENTED = "not implemented:"
DECLARED_FAILED = "declared supported but failed:"
#: Inferences per case of a stateful op (each reads what the previous one assigned).
STATE_STEPS = R.STATE_STEPS


@dataclass(frozen=True)
class CaseId:
    op_type: str
    version: int
    label: str
    n: int
    position: int

    @property
    def key(self) -> str:
        """The case's name without the device (its test id's parameter)."""
        return f"{self.op_type}-{self.version}-{self.label}"

    def case(self) -> OpCase:
        case = R.get_case(self.op_type, self.version, self.label, self.n)
        if case is None:
            count = len(R.generate_cases(self.op_type, self.version, self.n))
            pytest.skip(f"{self.op_type}-{self.version}: the strategy has only {count} distinct case(s)")
        return case


#: The sub-entities that run the stimulus cases at standard depth (exhaustive runs all four): the
#: numbers are what sizes and values test; declaring, compiling and exporting an op are the
#: generated cases' business, and four tests per stimulus case would double the run.
STIMULUS_AT_STANDARD = ("test_op_inference",)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "op_case" in metafunc.fixturenames:
        n, depth = R.examples_count(metafunc.config), R.op_depth(metafunc.config)
        if depth < Depth.EXHAUSTIVE and metafunc.function.__name__ not in STIMULUS_AT_STANDARD:
            depth = Depth.QUICK  # the generated cases only
        ids = [CaseId(op, v, label, n, i) for op, v in all_case_keys()
               for i, label in enumerate(R.case_labels(op, v, n, depth))]
        # module scope: pytest (and xdist's chunks) run the tests of one case one after another,
        # so they share its query answer and first run (suites/_reuse.py)
        metafunc.parametrize("op_case", ids, ids=[c.key for c in ids], scope="module")


def _steps(case: OpCase) -> list[dict[str, np.ndarray]]:
    return R.case_steps(case)


@pytest.fixture(scope="session")
def op_expected_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder the run's processes share for expected values of large cases (xdist workers'
    temporary folders have one parent)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / "ovconform-expected"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def op_memo() -> Iterator[CaseMemo]:
    """The query answers and first runs the tests of one case share in this worker (for this module)."""
    memo = CaseMemo()
    yield memo
    memo.clear()


@pytest.fixture(scope="module")
def op_batches(op_expected_cache: Path) -> Iterator[_batch.BatchMemo]:
    """The stimulus cases compiled together in this worker (suites/_batch.py), for this module; the
    markers of running batches in a folder the run's processes share."""
    markers = op_expected_cache.parent / "ovconform-batches"
    markers.mkdir(exist_ok=True)
    memo = _batch.BatchMemo(markers=markers)
    yield memo
    memo.clear()


_selected_key = pytest.StashKey[dict[tuple[str, int, int], list[str]]]()


def selected_stimuli(session: pytest.Session) -> dict[tuple[str, int, int], list[str]]:
    """The labels of the stimulus cases whose Inference test this session selected and runs, by (op
    type, version, examples), in collection order: the cases a batch may hold."""
    found = session.stash.get(_selected_key, None)
    if found is None:
        found = {}
        for item in session.items:
            callspec = getattr(item, "callspec", None)
            c = callspec.params.get("op_case") if callspec is not None else None
            if getattr(item, "originalname", None) != "test_op_inference" or not isinstance(c, CaseId):
                continue
            xfail = item.get_closest_marker("xfail")
            if xfail is not None and xfail.kwargs.get("run", True) is False:
                continue  # an expected crash ("crash:" expectation) never runs, in a batch neither
            labels = found.setdefault((c.op_type, c.version, c.n), [])
            if R.generated_index(c.label) is None and c.label not in labels:
                labels.append(c.label)
        session.stash[_selected_key] = found
    return found


@dataclass(frozen=True)
class Shared:
    """What one test needs to reach its case's shared answers."""

    memo: CaseMemo
    core: Any
    device: str
    key: tuple[str, str, str]
    export: bool  # the device declares EXPORT_IMPORT and the case has an ImportExport test: the first
    # run exports before it infers

    def answer(self, case: OpCase) -> dict[str, str]:
        return dict(self.memo.query(self.key, lambda: R.declared_nodes(self.core, self.device, case.model)))

    def first_run(self, case: OpCase, *, fresh: bool = False) -> FirstRun:
        return self.memo.first_run(self.key, lambda: _first_run(self, case), fresh=fresh)


def _first_run(shared: Shared, case: OpCase) -> FirstRun:
    """Compile the case, export the compiled model before it runs (when the device exports), infer
    each step on a new request: what Inference and ImportExport used to do each on their own."""
    compiled = Kept.of(lambda: shared.core.compile_model(case.model, shared.device))
    if compiled.error is not None:
        return FirstRun(compiled, None, None, compiled)
    model = compiled.value
    blob = Kept.of(model.export_model) if shared.export else None
    outputs = Kept.of(lambda: R.run_on_device(shared.core, shared.device, case.model, _steps(case), model))
    return FirstRun(Kept(None), R.execution_precision(model), blob, outputs)  # the compiled model goes here


def has_import_export(config: pytest.Config, op_case: CaseId) -> bool:
    """Whether this run has an ImportExport test of ``op_case``: every generated case, and at
    exhaustive depth every stimulus case too (:data:`STIMULUS_AT_STANDARD`)."""
    return R.generated_index(op_case.label) is not None or R.op_depth(config) >= Depth.EXHAUSTIVE


@pytest.fixture
def shared(request: pytest.FixtureRequest, op_memo: CaseMemo, ov_core: Any, ov_device_name: str, op_case: CaseId,
           ov_capabilities: set[str]) -> Shared:
    # the first run exports only for an ImportExport test: a stimulus case at standard depth runs
    # Inference alone, on a compiled model nothing was asked of before it ran (as before the reuse)
    export = str(P.Capability.EXPORT_IMPORT) in ov_capabilities and has_import_export(request.config, op_case)
    return Shared(op_memo, ov_core, ov_device_name, memo_key(ov_device_name, f"{op_case.key}/n{op_case.n}"), export)


@pytest.fixture
def facts(record_ov_fact: Callable[[str, Any], None], op_case: CaseId,
          request: pytest.FixtureRequest) -> Callable[[str, Any], None]:
    entity = request.node.originalname.removeprefix("test_op_")
    sub = {"implemented": "Implemented", "query_model": "QueryModel", "inference": "Inference",
           "import_export": "ImportExport"}[entity]
    record_ov_fact("op_type", op_case.op_type)
    record_ov_fact("version", op_case.version)
    record_ov_fact("case", op_case.position)
    record_ov_fact("sub_entity", sub)
    if R.generated_index(op_case.label) is None:
        record_ov_fact("stimulus", op_case.label)
    return record_ov_fact


def _declared(shared: Shared, case: OpCase, facts: Callable[[str, Any], None]) -> bool:
    device = shared.device
    try:
        answer = shared.answer(case)
    except Exception as e:  # noqa: BLE001 - query_model must not raise on a valid model
        pytest.fail(f"{device}: query_model raised {type(e).__name__}: {e}")
    nodes = R.ops_under_test(case.model, case.op_type)
    declared = all(n.friendly_name in answer for n in nodes)
    facts("declared", declared)
    return declared


def _works_anyway(core: Any, device: str, op_case: CaseId, case: OpCase, facts: Callable[[str, Any], None],
                  cache: Path) -> bool:
    """The op is not claimed: whether it works anyway (a fact)."""
    try:
        compiled = core.compile_model(case.model, device)
        got = R.run_on_device(core, device, case.model, _steps(case), compiled)
        ok = all(c.passed for _, c in _comparisons(device, op_case, case, got, R.execution_precision(compiled), cache))
    except Exception:  # noqa: BLE001 - not claimed, so failing is allowed
        ok = False
    facts("undeclared_but_works", ok)
    return ok


def _require_declared(shared: Shared, op_case: CaseId, case: OpCase, facts: Callable[[str, Any], None],
                      cache: Path) -> None:
    if not _declared(shared, case, facts):
        ok = _works_anyway(shared.core, shared.device, op_case, case, facts, cache)
        pytest.skip(f"{case.op_type}-{case.version}: {NOT_DECLARED}" + (" (it works anyway)" if ok else ""))


def _tolerances(device: str, case: OpCase, precision: Any, expected: R.Expected) -> list[Any]:
    out = []
    for i, r in enumerate(case.model.get_results()):
        conditioned = expected.magnitude is not None and expected.magnitude[0][i] is not None
        out.append(R.tolerance_for(device, r.input_value(0).node, r.get_input_element_type(0), precision, conditioned))
    return out


def _comparisons(device: str, op_case: CaseId, case: OpCase, got: list[list[np.ndarray]], precision: Any,
                 cache: Path) -> list[tuple[str, Any]]:
    expected = R.expected_values(f"{op_case.key}/n{op_case.n}", case, precision, cache)
    return R.compare_outputs(case.model, got, expected.outputs, _tolerances(device, case, precision, expected),
                             _steps(case), alternate=expected.alternate, magnitude=expected.magnitude, copies=True)


def _attempt(case: OpCase, what: str, fn: Callable[[], Any]) -> Any:
    """``fn()``; any error fails the test as "declared supported but failed" (the op is claimed)."""
    __tracebackhide__ = True
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the message names the error
        error = f"{type(e).__name__}: {e}"
    pytest.fail(f"{DECLARED_FAILED} {case.op_type}-{case.version}: {what} raised {error}")


def _compiled(case: OpCase, run: FirstRun) -> Any:
    return _attempt(case, "compile_model", run.compiled.get)


def _outputs(case: OpCase, run: FirstRun) -> list[list[np.ndarray]]:
    return _attempt(case, "infer", run.outputs.get)


def _infer(core: Any, device: str, case: OpCase, compiled: Any) -> list[list[np.ndarray]]:
    return _attempt(case, "infer", lambda: R.run_on_device(core, device, case.model, _steps(case), compiled))


def _record_numbers(facts: Callable[[str, Any], None], precision: Any, comparisons: list[tuple[str, Any]]) -> None:
    if precision is not None and execution_type(Type.f32, precision) != Type.f32:
        facts("precision", precision.name)
    for name, value in R.summary(comparisons).items():
        facts(name, value)


def _check_numbers(request: pytest.FixtureRequest, spec: str, device: str, op_case: CaseId, case: OpCase,
                   got: list[list[np.ndarray]], precision: Any, facts: Callable[[str, Any], None], what: str,
                   cache: Path) -> None:
    __tracebackhide__ = True
    comparisons = _comparisons(device, op_case, case, got, precision, cache)
    _record_numbers(facts, precision, comparisons)
    bad = [(label, c) for label, c in comparisons if not c.passed]
    if not bad:
        return
    expected = R.expected_values(f"{op_case.key}/n{op_case.n}", case, precision, cache)
    tols = [c.tolerance for _, c in comparisons[:len(case.model.get_results())]]
    folder = _repro.repro_dir(request.config, device, request.node.nodeid)
    script = _repro.write_repro(folder, test_id=request.node.nodeid, spec=spec, device=device, model=case.model,
                                steps=_steps(case), expected=expected.outputs, tolerances=tols,
                                bits=[b and expected.alternate is None for b in R.output_copies(case.model)])
    facts("repro", str(script))
    label, c = bad[0]
    pytest.fail(f"{DECLARED_FAILED} {case.op_type}-{case.version} {what}: {label}: {c.message} "
                f"[tolerance {c.tolerance.describe()}; {len(bad)} bad output(s)] (case {op_case.label}: "
                f"{case.note or 'no note'}); repro: python {script}")


# -- the four sub-entities ------------------------------------------------------------------------
# One query_model answer and one first run per case and worker (suites/_reuse.py): Implemented makes
# the first run afresh (it tests that the case compiles and runs); Inference compares that run's
# outputs; ImportExport imports the blob exported before that run and compares with its outputs.

def test_op_implemented(shared: Shared, op_case: CaseId, facts: Callable[[str, Any], None],
                        op_expected_cache: Path) -> None:
    """Implemented: query_model declares the op, and the case compiles and infers once (numbers
    are Inference's business). An undeclared op fails: not implemented."""
    case = op_case.case()
    device = shared.device
    if not _declared(shared, case, facts):
        ok = _works_anyway(shared.core, device, op_case, case, facts, op_expected_cache)
        pytest.fail(f"{NOT_IMPLEMENTED} {device}'s query_model does not declare {case.op_type}-{case.version}"
                    + (" (though it compiles and computes it right)" if ok else ""))
    run = shared.first_run(case, fresh=True)
    _compiled(case, run)
    _outputs(case, run)


def test_op_query_model(shared: Shared, op_case: CaseId, facts: Callable[[str, Any], None]) -> None:
    """QueryModel: query_model claims the op under test, naming this device."""
    case = op_case.case()
    device = shared.device
    if not _declared(shared, case, facts):
        pytest.skip(f"{case.op_type}-{case.version}: {NOT_DECLARED}")
    answer = shared.answer(case)
    wrong = {k: v for k, v in answer.items() if not str(v).split(".")[0] == device}
    assert not wrong, f"query_model names other devices than {device!r}: {wrong}"
    known = {n.friendly_name for n in case.model.get_ordered_ops()}
    extra = sorted(set(answer) - known)
    assert not extra, f"query_model names ops that are not in the model: {extra}"


def _passes_in_batch(request: pytest.FixtureRequest, shared: Shared, batches: _batch.BatchMemo, op_case: CaseId,
                     case: OpCase, facts: Callable[[str, Any], None], cache: Path) -> bool:
    """A stimulus case's Inference passes from its op version's batch (suites/_batch.py): the batch's
    query names the case's ops and its outputs are right. False sends it down the one-case path,
    which gives any verdict but a pass, as it did before batches."""
    if R.generated_index(op_case.label) is not None or R.op_depth(request.config) >= Depth.EXHAUSTIVE \
            or not _batch.batchable(case):
        return False
    version = (op_case.op_type, op_case.version, op_case.n)

    def cases() -> list[tuple[str, OpCase]]:
        out = []
        for label in selected_stimuli(request.session).get(version, []):
            c = case if label == op_case.label else R.get_case(*version[:2], label, op_case.n)
            if c is not None:
                out.append((label, c))
        return out

    batch = batches.batch_of((shared.device, *version), op_case.label, cases,
                             lambda b, by_label: b.run(shared.core, shared.device, by_label))
    if batch is None or not batch.declared(op_case.label, case):
        return False
    got = batch.outputs_of(op_case.label)
    if got is None:
        return False
    comparisons = _comparisons(shared.device, op_case, case, got, batch.precision, cache)
    if not all(c.passed for _, c in comparisons):
        return False
    facts("declared", True)
    _record_numbers(facts, batch.precision, comparisons)
    facts("batched_with", len(batch.labels) - 1)
    return True


def test_op_inference(request: pytest.FixtureRequest, shared: Shared, ov_plugin_spec: str,
                      op_case: CaseId, facts: Callable[[str, Any], None], op_expected_cache: Path,
                      op_batches: _batch.BatchMemo) -> None:
    """Inference: the device's outputs match REFERENCE within the op's tolerance (every shape of a
    dynamic-mode case, on one compiled model and request). A stimulus case at standard depth may
    pass from its op version's batch (suites/_batch.py); anything but a pass is judged alone."""
    case = op_case.case()
    if _passes_in_batch(request, shared, op_batches, op_case, case, facts, op_expected_cache):
        return
    _require_declared(shared, op_case, case, facts, op_expected_cache)
    run = shared.first_run(case)
    _compiled(case, run)
    got = _outputs(case, run)
    _check_numbers(request, ov_plugin_spec, shared.device, op_case, case, got, run.precision, facts, "inference",
                   op_expected_cache)


@pytest.mark.capability(P.Capability.EXPORT_IMPORT)
def test_op_import_export(shared: Shared, op_case: CaseId, facts: Callable[[str, Any], None],
                          op_expected_cache: Path) -> None:
    """ImportExport: export → import gives a compiled model with the same outputs as the exported
    one (bit for bit; whether those numbers are right is Inference's business)."""
    case = op_case.case()
    core, device = shared.core, shared.device
    _require_declared(shared, op_case, case, facts, op_expected_cache)
    run = shared.first_run(case)
    _compiled(case, run)
    exported = run.blob if run.blob is not None else Kept(None, RuntimeError("the first run did not export"))
    blob = _attempt(case, "export_model", exported.get)
    imported = _attempt(case, "import_model", lambda: core.import_model(blob, device))
    before = _outputs(case, run)
    after = _infer(core, device, case, imported)
    for s, (b_step, a_step) in enumerate(zip(before, after, strict=True)):
        for i, (b, a) in enumerate(zip(b_step, a_step, strict=True)):
            same = b.shape == a.shape and b.dtype == a.dtype and np.array_equal(a, b, equal_nan=b.dtype.kind in "fc")
            assert same, (f"{DECLARED_FAILED} {case.op_type}-{case.version}: step {s} output {i} of the imported "
                          f"model differs from the exported one (got {a!r}, expected {b!r})")
