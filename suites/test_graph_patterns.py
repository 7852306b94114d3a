"""Fusion-pattern catalogue (``graph`` entity): the subgraphs device compilers fuse, on the device
vs REFERENCE.

Every pattern of :mod:`ovconform.graphs.patterns` (conv + bias + activation, MatMul + Add + Gelu,
normalisations and attention written out, ScaledDotProductAttention, RoPE, FakeQuantize around
Convolution and MatMul, u8/i8/u4/i4 weight decompression, residual add, concatenated
convolutions, cancelling transpose/reshape chains, Squeeze/Unsqueeze and StridedSlice views
around elementwise ops) at realistic sizes, static and dynamic (two shapes on one compiled
model). Outputs are judged with the tolerance composed along the graph
(:func:`ovconform.suites._graph_check.composed_tolerances`). A pattern with an op query_model
does not claim is skipped.

A failing pattern gets the unfused control (:func:`ovconform.suites._graph_check.unfused_control`:
the graph again with every intermediate an output), whose sentence ("fused path only" or "not the
fused path only") joins the message and the record's ``unfused_control`` fact, and a standalone
reproducer (IR + inputs + expected outputs + ``repro.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ovconform.graphs import patterns
from ovconform.suites import _graph_check as G
from ovconform.suites import _op_runner as R
from ovconform.suites import _repro

pytestmark = pytest.mark.entity("graph")

NOT_DECLARED = "not supported (declared by query_model)"
DECLARED_FAILED = "declared supported but failed:"


@pytest.mark.parametrize("variant", ["static", "dynamic"])
@pytest.mark.parametrize("pattern", patterns.names())
def test_graph_pattern(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str, ov_plugin_spec: str,
                       pattern: str, variant: str, record_ov_fact: Callable[[str, Any], None]) -> None:
    """The pattern computes what REFERENCE computes, within the tolerance composed along the graph."""
    case = patterns.build(pattern, dynamic=variant == "dynamic")
    record_ov_fact("graph", pattern)
    record_ov_fact("variant", variant)
    record_ov_fact("fuses", case.fuses)
    answer = R.declared_nodes(ov_core, ov_device_name, case.model)
    unclaimed = sorted(f"{n.type_name} {n.friendly_name!r}" for n in R.ops_under_test(case.model)
                       if n.friendly_name not in answer)
    if unclaimed:
        record_ov_fact("unclaimed_ops", unclaimed)
        pytest.skip(f"graph {pattern!r}: {NOT_DECLARED}: {', '.join(unclaimed)}")
    verdict = G.judge(ov_core, ov_device_name, case.model, case.steps)
    if verdict.comparisons:
        for name, value in R.summary(verdict.comparisons).items():
            record_ov_fact(name, value)
    if verdict.passed:
        return
    record_ov_fact("graph_ops", case.op_list())
    control = G.unfused_control(ov_core, ov_device_name, case.model, case.steps)
    record_ov_fact("unfused_control", control.facts())
    folder = _repro.repro_dir(request.config, ov_device_name, request.node.nodeid)
    script = _repro.write_repro(folder, test_id=request.node.nodeid, spec=ov_plugin_spec, device=ov_device_name,
                                model=case.model, steps=case.steps, expected=verdict.expected,
                                tolerances=verdict.tolerances)
    record_ov_fact("repro", str(script))
    pytest.fail(f"{DECLARED_FAILED} graph {pattern!r} ({variant}): {verdict.describe()}; {control.sentence}; "
                f"repro: python {script}")
