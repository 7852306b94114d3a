"""Op conformance (``op`` entity): OpenVINO's ``conformance/op`` sub-entities, per generated case.

For every op type and version with a case strategy (:func:`ovconform.opcases.all_case_keys`),
N single-op cases (``--ovconform-examples N``, default 10, drawn deterministically) and four tests
per case:

* **Implemented** — the case model compiles (and runs once) on the device.
* **QueryModel** — ``query_model`` covers the op under test and names the device.
* **Inference** — the device's outputs match REFERENCE within the op's tolerance
  (:mod:`ovconform.tolerances`, refined by the device's ``ovconform_get_tolerance`` hook); the
  tolerance and the observed max abs / rel errors are recorded as facts.
* **ImportExport** — (devices with EXPORT_IMPORT) export → import → the same outputs as before export.

Declared vs actual: an op ``query_model`` does not claim is skipped with "not supported (declared
by query_model)" (and, when it compiles and computes the right numbers anyway, the fact
``undeclared_but_works`` is recorded and the test still skips); a claimed op that fails to compile
or infer or computes wrong numbers FAILS with "declared supported but failed: ...". A numeric
failure writes a standalone reproducer (see :mod:`ovconform.suites._repro`) named in the message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from ovconform import properties as P
from ovconform.opcases import OpCase, all_case_keys
from ovconform.suites import _op_runner as R
from ovconform.suites import _repro

pytestmark = pytest.mark.entity("op")

NOT_DECLARED = "not supported (declared by query_model)"
DECLARED_FAILED = "declared supported but failed:"
#: Inferences per case of a stateful op (each reads what the previous one assigned).
STATE_STEPS = 3


@dataclass(frozen=True)
class CaseId:
    op_type: str
    version: int
    index: int
    n: int

    def case(self) -> OpCase:
        cases = R.generate_cases(self.op_type, self.version, self.n)
        if self.index >= len(cases):
            pytest.skip(f"{self.op_type}-{self.version}: the strategy has only {len(cases)} distinct case(s)")
        return cases[self.index]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "op_case" in metafunc.fixturenames:
        n = R.examples_count(metafunc.config)
        ids = [CaseId(op, v, i, n) for op, v in all_case_keys() for i in range(n)]
        metafunc.parametrize("op_case", ids, ids=[f"{c.op_type}-{c.version}-case{c.index}" for c in ids])


def _steps(case: OpCase) -> list[dict[str, np.ndarray]]:
    count = STATE_STEPS if case.op_type in ("ReadValue", "Assign") else 1
    return [dict(case.inputs)] * count


@pytest.fixture
def facts(record_ov_fact: Callable[[str, Any], None], op_case: CaseId,
          request: pytest.FixtureRequest) -> Callable[[str, Any], None]:
    entity = request.node.originalname.removeprefix("test_op_")
    sub = {"implemented": "Implemented", "query_model": "QueryModel", "inference": "Inference",
           "import_export": "ImportExport"}[entity]
    record_ov_fact("op_type", op_case.op_type)
    record_ov_fact("version", op_case.version)
    record_ov_fact("case", op_case.index)
    record_ov_fact("sub_entity", sub)
    return record_ov_fact


def _declared(core: Any, device: str, case: OpCase, facts: Callable[[str, Any], None]) -> bool:
    try:
        answer = R.declared_nodes(core, device, case.model)
    except Exception as e:  # noqa: BLE001 - query_model must not raise on a valid model
        pytest.fail(f"{device}: query_model raised {type(e).__name__}: {e}")
    nodes = R.ops_under_test(case.model, case.op_type)
    declared = all(n.friendly_name in answer for n in nodes)
    facts("declared", declared)
    return declared


def _probe_undeclared(core: Any, device: str, case: OpCase, facts: Callable[[str, Any], None]) -> None:
    """The op is not claimed: see whether it works anyway (a fact), then skip."""
    try:
        got = R.run_on_device(core, device, case.model, _steps(case))
        ok = all(c.passed for _, c in R.compare_outputs(case.model, got, _expected(case), _tolerances(device, case),
                                                        _steps(case)))
    except Exception:  # noqa: BLE001 - not claimed, so failing is allowed
        ok = False
    facts("undeclared_but_works", ok)
    pytest.skip(f"{case.op_type}-{case.version}: {NOT_DECLARED}" + (" (it works anyway)" if ok else ""))


def _require_declared(core: Any, device: str, case: OpCase, facts: Callable[[str, Any], None]) -> None:
    if not _declared(core, device, case, facts):
        _probe_undeclared(core, device, case, facts)


def _expected(case: OpCase) -> list[list[np.ndarray]]:
    return R.run_reference(case.model, _steps(case))


def _tolerances(device: str, case: OpCase) -> list[Any]:
    return [R.tolerance_for(device, r.input_value(0).node, r.get_input_element_type(0))
            for r in case.model.get_results()]


def _attempt(case: OpCase, what: str, fn: Callable[[], Any]) -> Any:
    """``fn()``; any error fails the test as "declared supported but failed" (the op is claimed)."""
    __tracebackhide__ = True
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the message names the error
        error = f"{type(e).__name__}: {e}"
    pytest.fail(f"{DECLARED_FAILED} {case.op_type}-{case.version}: {what} raised {error}")


def _compile(core: Any, device: str, case: OpCase) -> Any:
    return _attempt(case, "compile_model", lambda: core.compile_model(case.model, device))


def _infer(core: Any, device: str, case: OpCase, compiled: Any) -> list[list[np.ndarray]]:
    return _attempt(case, "infer", lambda: R.run_on_device(core, device, case.model, _steps(case), compiled))


def _check_numbers(request: pytest.FixtureRequest, spec: str, device: str, case: OpCase,
                   got: list[list[np.ndarray]], facts: Callable[[str, Any], None], what: str) -> None:
    __tracebackhide__ = True
    expected, tols = _expected(case), _tolerances(device, case)
    comparisons = R.compare_outputs(case.model, got, expected, tols, _steps(case))
    for name, value in R.summary(comparisons).items():
        facts(name, value)
    bad = [(label, c) for label, c in comparisons if not c.passed]
    if not bad:
        return
    folder = _repro.repro_dir(request.config, device, request.node.nodeid)
    script = _repro.write_repro(folder, test_id=request.node.nodeid, spec=spec, device=device, model=case.model,
                                steps=_steps(case), expected=expected, tolerances=tols)
    facts("repro", str(script))
    label, c = bad[0]
    pytest.fail(f"{DECLARED_FAILED} {case.op_type}-{case.version} {what}: {label}: {c.message} "
                f"[tolerance {c.tolerance.describe()}; {len(bad)} bad output(s)] (case: {case.note or 'no note'}); "
                f"repro: python {script}")


# -- the four sub-entities ------------------------------------------------------------------------

def test_op_implemented(ov_core: Any, ov_device_name: str, op_case: CaseId,
                        facts: Callable[[str, Any], None]) -> None:
    """Implemented: the case compiles and infers once (numbers are Inference's business)."""
    case = op_case.case()
    _require_declared(ov_core, ov_device_name, case, facts)
    _infer(ov_core, ov_device_name, case, _compile(ov_core, ov_device_name, case))


def test_op_query_model(ov_core: Any, ov_device_name: str, op_case: CaseId,
                        facts: Callable[[str, Any], None]) -> None:
    """QueryModel: query_model claims the op under test, naming this device."""
    case = op_case.case()
    if not _declared(ov_core, ov_device_name, case, facts):
        pytest.skip(f"{case.op_type}-{case.version}: {NOT_DECLARED}")
    answer = R.declared_nodes(ov_core, ov_device_name, case.model)
    wrong = {k: v for k, v in answer.items() if not str(v).split(".")[0] == ov_device_name}
    assert not wrong, f"query_model names other devices than {ov_device_name!r}: {wrong}"
    known = {n.friendly_name for n in case.model.get_ordered_ops()}
    extra = sorted(set(answer) - known)
    assert not extra, f"query_model names ops that are not in the model: {extra}"


def test_op_inference(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str, ov_plugin_spec: str,
                      op_case: CaseId, facts: Callable[[str, Any], None]) -> None:
    """Inference: the device's outputs match REFERENCE within the op's tolerance."""
    case = op_case.case()
    _require_declared(ov_core, ov_device_name, case, facts)
    got = _infer(ov_core, ov_device_name, case, _compile(ov_core, ov_device_name, case))
    _check_numbers(request, ov_plugin_spec, ov_device_name, case, got, facts, "inference")


@pytest.mark.capability(P.Capability.EXPORT_IMPORT)
def test_op_import_export(ov_core: Any, ov_device_name: str, op_case: CaseId,
                          facts: Callable[[str, Any], None]) -> None:
    """ImportExport: export → import gives a compiled model with the same outputs as the exported
    one (bit for bit; whether those numbers are right is Inference's business)."""
    case = op_case.case()
    _require_declared(ov_core, ov_device_name, case, facts)
    compiled = _compile(ov_core, ov_device_name, case)
    blob = _attempt(case, "export_model", compiled.export_model)
    imported = _attempt(case, "import_model", lambda: ov_core.import_model(blob, ov_device_name))
    before = _infer(ov_core, ov_device_name, case, compiled)
    after = _infer(ov_core, ov_device_name, case, imported)
    for s, (b_step, a_step) in enumerate(zip(before, after, strict=True)):
        for i, (b, a) in enumerate(zip(b_step, a_step, strict=True)):
            same = b.shape == a.shape and b.dtype == a.dtype and np.array_equal(a, b, equal_nan=b.dtype.kind in "fc")
            assert same, (f"{DECLARED_FAILED} {case.op_type}-{case.version}: step {s} output {i} of the imported "
                          f"model differs from the exported one (got {a!r}, expected {b!r})")
