"""Graph fuzz (``graph`` entity, opt-in: ``-m graphfuzz``): random multi-op graphs on the device
vs REFERENCE.

hypothesis draws ``--ovconform-graphfuzz-examples`` graphs (default 200) from
:func:`ovconform.graphs.fuzz.graphs` — coherent shapes, static and dynamic, branches and joins,
one to three outputs, biased towards the patterns compilers fuse — deterministically (the same
graphs on every run and xdist worker). Each runs on the device and on REFERENCE and is judged with
the tolerance composed along the graph (:mod:`ovconform.suites._graph_check`); a graph with an op
query_model does not claim is left out.

A failure is shrunk by hypothesis to a minimal graph (for at most :data:`SHRINK_BUDGET_S`
seconds), which gets the unfused control and is written as IR v11 with its inputs, expected
outputs and a standalone ``repro.py`` (:func:`ovconform.suites._repro.write_repro`); the record
carries the shrunk graph op by op (``graph_ops``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings

from ovconform.graphs import GraphCase, fuzz
from ovconform.graphs.pytest_graphfuzz import examples
from ovconform.suites import _graph_check as G
from ovconform.suites import _op_runner as R
from ovconform.suites import _repro

pytestmark = [pytest.mark.entity("graph"), pytest.mark.graphfuzz]

DECLARED_FAILED = "declared supported but failed:"
#: Seconds hypothesis may spend shrinking a failure (then the smallest failing graph so far stands).
SHRINK_BUDGET_S = 120.0


def _key(case: GraphCase) -> tuple[Any, ...]:
    """What makes a drawn graph itself: its ops and its inputs' shapes."""
    return (*case.op_list(), *(tuple(v.shape) for step in case.steps for v in step.values()))


def test_graph_fuzz(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str, ov_plugin_spec: str,
                    record_ov_fact: Callable[[str, Any], None]) -> None:
    """Every drawn graph computes what REFERENCE computes, within the composed tolerance."""
    budget = examples(request.config)
    record_ov_fact("graph", "graphfuzz")
    record_ov_fact("examples", budget)
    ran, skipped = [0], [0]
    failures: list[tuple[GraphCase, G.Verdict]] = []
    first_failure: list[float] = []

    @settings(max_examples=budget, derandomize=True, database=None, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=(Phase.generate, Phase.shrink),
              report_multiple_bugs=False)
    @given(fuzz.graphs())
    def check(case: GraphCase) -> None:
        answer = R.declared_nodes(ov_core, ov_device_name, case.model)
        if any(n.friendly_name not in answer for n in R.ops_under_test(case.model)):
            skipped[0] += 1
            assume(False)
        if first_failure and time.monotonic() - first_failure[0] > SHRINK_BUDGET_S:
            # out of shrinking time: only the smallest failure so far still fails (so hypothesis stops there)
            if _key(case) == _key(failures[-1][0]):
                raise AssertionError(failures[-1][1].describe())
            return
        ran[0] += 1
        verdict = G.judge(ov_core, ov_device_name, case.model, case.steps)
        if not verdict.passed:
            if not first_failure:
                first_failure.append(time.monotonic())
            failures.append((case, verdict))  # hypothesis replays its smallest failure last
            raise AssertionError(verdict.describe())

    try:
        check()
    except Exception:  # noqa: BLE001, S110 - the failing graphs are in `failures`; hypothesis's own error adds nothing
        pass
    record_ov_fact("graphs_run", ran[0])
    record_ov_fact("graphs_not_declared", skipped[0])
    if not failures:
        return
    case, verdict = failures[-1]
    ops = case.op_list()
    record_ov_fact("graph_ops", ops)
    if verdict.comparisons:
        for name, value in R.summary(verdict.comparisons).items():
            record_ov_fact(name, value)
    control = G.unfused_control(ov_core, ov_device_name, case.model, case.steps)
    record_ov_fact("unfused_control", control.facts())
    folder = _repro.repro_dir(request.config, ov_device_name, request.node.nodeid)
    script = _repro.write_repro(folder, test_id=request.node.nodeid, spec=ov_plugin_spec, device=ov_device_name,
                                model=case.model, steps=case.steps, expected=verdict.expected,
                                tolerances=verdict.tolerances)
    record_ov_fact("repro", str(script))
    chain = " → ".join(line.split(" (")[0] for line in ops)
    pytest.fail(f"{DECLARED_FAILED} graph fuzz: shrunk failing graph of {len(ops)} op(s) "
                f"({'dynamic' if case.dynamic else 'static'}: {chain}): {verdict.describe()}; {control.sentence}; "
                f"IR: {folder / 'model.xml'}; repro: python {script}")
