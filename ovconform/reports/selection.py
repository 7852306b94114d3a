"""Whether a run is partial, and what it selected (``run.selection`` and ``run.partial`` of a report).

A *full* run runs every test of the suites it collected: ``pytest --plugin=X`` with no test paths
(or with the suites folder itself), nothing deselected, every selected test ran to a result. A run
is **partial** when any of these holds, and its report says so (``run.partial: true``):

* it names test paths or node ids other than the suites folder, or ``--ignore``/``--ignore-glob``
  (``paths``, ``ignore``);
* its selection removed tests: ``-k``, ``-m``, ``--deselect``, ``--lf`` or a plugin (``deselected``
  counts them; perf and graphfuzz tests left out because those suites are opt-in do not count);
* some selected test never ran (``not_run``: ``-x``/``--maxfail``, an interrupted or killed run);
* its op suite ran fewer cases than the default: ``--ovconform-depth quick`` (``depth``), or fewer
  generated cases per op than the depth's default (``examples``). The depth is always recorded;
* it is one shard of a run split by ``--ovconform-shard I/N`` (``shard``; ``shard_out`` counts the
  tests of the other shards). The merge of shards 1..N is not partial on that account
  (:func:`partial_besides_shard`).

A partial report never replaces a full one (:func:`ovconform.reports.conformance.write_document`)
and ``ovconform report diff`` reads a partial NEW as a narrower selection, not as missing tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ovconform.reports.collection import Collection, suites_root


def declared(config: pytest.Config) -> dict[str, Any]:
    """What the command line selects (only the options that are set)."""
    out: dict[str, Any] = {}
    paths = _paths(config)
    if paths:
        out["paths"] = paths
    ignore = [*(config.getoption("ignore", None) or []), *(config.getoption("ignore_glob", None) or [])]
    if ignore:
        out["ignore"] = [str(p) for p in ignore]
    for key, option in (("keyword", "keyword"), ("markexpr", "markexpr"), ("deselect", "deselect"),
                        ("last_failed", "lf")):
        value = config.getoption(option, None)
        if value:
            out[key] = list(value) if isinstance(value, (list, tuple)) else value
    from ovconform.opcases.depth import DEFAULT_EXAMPLES, depth_from_config, examples_from_config

    depth = depth_from_config(config)
    out["depth"] = str(depth)
    examples = examples_from_config(config)
    if examples != DEFAULT_EXAMPLES[depth]:
        out["examples"] = examples
    models = config.getoption("ovconform_models", None)
    if models and models != "quick":
        out["models"] = models  # --ovconform-models full: more real architectures than the default run
    own = config.getoption("ovconform_model", None)
    if own:
        out["own_models"] = [str(p) for p in own]  # --ovconform-model: model files beside the architectures
    from ovconform.reports.shard import label, shard_key

    if shard_key in config.stash:
        out["shard"] = label(config.stash[shard_key])
    return out


def _fewer_op_cases(selection: dict[str, Any]) -> bool:
    """Whether the op suite ran fewer cases than a default (standard-depth) run would."""
    from ovconform.opcases.depth import DEFAULT, DEFAULT_EXAMPLES, Depth, parse_depth

    depth = parse_depth(selection.get("depth", str(DEFAULT)))
    return depth is Depth.QUICK or selection.get("examples", DEFAULT_EXAMPLES[depth]) < DEFAULT_EXAMPLES[depth]


def _paths(config: pytest.Config) -> list[str]:
    """The test paths named on the command line, unless they are the suites folder itself."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return []
    base = Path(config.invocation_params.dir)
    if all("::" not in a and (base / a).resolve() == suites_root() for a in config.args):
        return []
    return [str(a) for a in config.args]


def finish(selection: dict[str, Any], collection: Collection | None, ran: set[str]) -> dict[str, Any]:
    """``{"selection": ..., "partial": ...}`` for a report: the declared ``selection`` plus the counts
    ``selected``, ``deselected`` and ``not_run`` (None when the collection is unknown), given the
    test ids that got a record (``ran``)."""
    out = {k: v for k, v in selection.items() if k not in ("selected", "deselected", "not_run", "shard_out")}
    if collection is None:
        out.update(selected=None, deselected=None, not_run=None)
    else:
        selected = {m["test_id"] for m in collection.tests.values()}
        out.update(selected=len(selected), deselected=collection.deselected, not_run=len(selected - ran))
        if "shard" in out:
            out["shard_out"] = collection.shard_out
    return {"selection": out, "partial": partial_besides_shard(out) or bool(out.get("shard"))}


def partial_besides_shard(selection: dict[str, Any]) -> bool:
    """Whether a run's ``selection`` makes it partial for a reason other than being one shard."""
    return bool(selection.get("paths") or selection.get("ignore") or selection.get("deselected")
                or selection.get("not_run") or _fewer_op_cases(selection))


def describe(run: dict[str, Any]) -> str:
    """One line saying why a run is partial (empty for a full run), or that it did not finish."""
    if not run.get("partial") and not run.get("unfinished"):
        return ""
    sel = run.get("selection") or {}
    if run.get("unfinished"):
        return (f"UNFINISHED run: the process writing this report ended before the run did (it was killed, "
                f"or a device ended it); none of its {sel.get('not_run')} selected test(s) has a result here; "
                "`ovconform report rebuild <report folder>` writes the results its journal kept")
    parts = []
    if sel.get("paths"):
        parts.append("paths " + " ".join(sel["paths"]))
    if sel.get("ignore"):
        parts.append("--ignore " + " ".join(sel["ignore"]))
    for key, flag in (("keyword", "-k"), ("markexpr", "-m")):
        if sel.get(key):
            parts.append(f"{flag} {sel[key]!r}")
    if sel.get("deselect"):
        parts.append("--deselect " + " ".join(sel["deselect"]))
    if sel.get("last_failed"):
        parts.append("--lf")
    if sel.get("deselected"):
        parts.append(f"{sel['deselected']} test(s) deselected")
    if sel.get("not_run"):
        parts.append(f"{sel['not_run']} selected test(s) did not run")
    if _fewer_op_cases(sel):
        parts.append(f"op suite at --ovconform-depth {sel.get('depth')}"
                     + (f" with {sel['examples']} generated case(s) per op" if "examples" in sel else ""))
    if sel.get("shard"):
        parts.append(f"shard {sel['shard']}" + (f" ({sel['shard_out']} test(s) in the other shards)"
                                                 if sel.get("shard_out") is not None else ""))
    return "partial run: " + ("; ".join(parts) or "a narrower selection")


__all__ = ["declared", "describe", "finish", "partial_besides_shard"]
