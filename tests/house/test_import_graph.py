"""The package's folders by role import each other without cycles.

Every ``import`` and ``from ... import`` in ``ovconform`` (function-level and ``TYPE_CHECKING``
imports included: a deferred import is still a dependency) is read with :mod:`ast`; modules are
grouped into roles (``contract``, ``host``, ``hetero``, ``reports``, ``ir``, ``opset``, ``opcases``,
``bench``, ``adapters``, and ``top`` for the modules directly in ``ovconform/``), and the
role-to-role graph must have no cycle among the checked roles.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ovconform

PACKAGE = Path(ovconform.__file__).parent
CHECKED = ("contract", "host", "hetero", "reports", "ir", "opset")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The ``ovconform.*`` modules ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = _module_name(path).split(".")
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_pkg else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            # ``from ovconform import opset`` / ``from ovconform.host import cache`` name submodules
            found.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in found if m == "ovconform" or m.startswith("ovconform.")}


def role(module: str) -> str:
    parts = module.split(".")
    if len(parts) < 2:
        return "top"
    sub = PACKAGE / parts[1]
    return parts[1] if sub.is_dir() else "top"


def role_graph() -> dict[str, dict[str, list[str]]]:
    """``{role: {imported role: [an example 'module -> module' edge, ...]}}``."""
    graph: dict[str, dict[str, list[str]]] = {}
    known = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    for path in sorted(PACKAGE.rglob("*.py")):
        src = _module_name(path)
        for dst in _imports(path):
            if dst not in known and dst.rsplit(".", 1)[0] in known:
                dst = dst.rsplit(".", 1)[0]  # ``from pkg.mod import name``
            a, b = role(src), role(dst)
            if a != b:
                graph.setdefault(a, {}).setdefault(b, []).append(f"{src} -> {dst}")
    return graph


def find_cycle(graph: dict[str, dict[str, list[str]]], nodes: tuple[str, ...]) -> list[str] | None:
    """A cycle among ``nodes`` as a list of roles (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, {}):
            if m not in nodes:
                continue
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state and (c := visit(m)):
                return c
        stack.pop()
        state[n] = 2
        return None

    for n in nodes:
        if n not in state and (c := visit(n)):
            return c
    return None


def test_roles_exist():
    for name in CHECKED:
        assert (PACKAGE / name / "__init__.py").is_file(), f"ovconform/{name}/ is missing"


def test_no_cycle_between_roles():
    graph = role_graph()
    cycle = find_cycle(graph, CHECKED)
    if cycle:
        edges = [f"{a} -> {b}: {graph[a][b][:3]}" for a, b in zip(cycle, cycle[1:], strict=False)]
        pytest.fail("import cycle between folders: " + " -> ".join(cycle) + "\n" + "\n".join(edges))


def test_contract_builds_on_nothing_that_drives_it():
    """``contract/`` is what a device builds on: it never reaches into the host, HETERO or reports."""
    graph = role_graph()
    bad = {dst: graph["contract"][dst][:3] for dst in ("host", "hetero", "reports", "bench", "adapters")
           if dst in graph.get("contract", {})}
    assert not bad, f"contract/ imports {bad}"


def test_the_cycle_finder_sees_a_cycle():
    graph = {"a": {"b": ["x"]}, "b": {"c": ["y"]}, "c": {"a": ["z"]}}
    assert find_cycle(graph, ("a", "b", "c")) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": ["x"]}}, ("a", "b")) is None
