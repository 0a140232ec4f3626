"""The import graph of src/rift: no circles anywhere, and the layers point one way.

A circle means neither module can be read, tested or moved without the other,
and Python's partial-module errors appear the day one import moves to the top.
Tools, models and extensions sit below the core: the core hands them what they
need (`ToolContext`, the extension bundle), so they never import `rift.core`.

The graph is read with `ast`, not by importing: every `import` and `from …
import` counts, also the lazy ones inside functions and those under
`if TYPE_CHECKING:`: they do not run, but they still tie the two modules
together (neither type-checks, reads or moves without the other).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "rift"

CIRCLES_ALLOWED_UNDER: tuple[str, ...] = ()
"""Packages whose modules may import each other in a circle: none. The TUI's
app/commands/view loop was the last; its modules now name `tui/host.py`'s
protocols, which the app satisfies, and only the launcher imports the app."""
NEVER_IMPORT_CORE = ("rift.tools", "rift.models", "rift.extend")
SWARM_MAY_IMPORT_OF_CORE = (
    "rift.core.sessions.checkpoints",
    "rift.core.pool.scheduler",
    "rift.core.checks.discover",
    "rift.core.checks.results",
)
"""The swarm is started by the core (the owner hands the race its candidates' start
function), so it never imports the core's front door; only the undo journal, which a
merge records into, the pool's scheduler, whose per-server use the race shows, and the
checks' discovery and reading of a run, which its tests judge shares with the turn's:
none imports anything of the core itself."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root: Path) -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(root.rglob("*.py"))}


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    return (n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom))


def _targets(
    node: ast.Import | ast.ImportFrom, here: str, is_package: bool, modules: Collection[str]
) -> list[str]:
    """The modules one import statement loads.

    `from pkg import sub` of a submodule loads `pkg.sub`; it counts as an edge to `pkg`
    only when it also takes a name defined in `pkg` itself (running a package's
    `__init__` on the way to a submodule is not a dependency on it).
    """
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parent = here.split(".") if is_package else here.split(".")[:-1]
        parent = parent[: len(parent) - (node.level - 1)]
        base = ".".join([*parent, base] if base else parent)
    subs = [f"{base}.{alias.name}" for alias in node.names]
    found = [sub for sub in subs if sub in modules]
    return found if len(found) == len(subs) else [base, *found]


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module → the rift modules it imports (only modules that exist under `root`)."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        graph[name] = {
            target
            for node in _imports(tree)
            for target in _targets(node, name, is_package, modules)
            if target in modules and target != name
        }
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_no_import_circles() -> None:
    found = [
        c for c in circles(import_graph()) if not all(_under(m, CIRCLES_ALLOWED_UNDER) for m in c)
    ]
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_tools_models_and_extensions_never_import_the_core() -> None:
    offenders = [
        f"{module} imports {target}"
        for module, targets in sorted(import_graph().items())
        if _under(module, NEVER_IMPORT_CORE)
        for target in sorted(targets)
        if _under(target, ("rift.core",))
    ]
    assert not offenders, "the core hands these layers what they need:\n" + "\n".join(offenders)


def test_the_swarm_imports_the_core_only_for_its_undo_journal() -> None:
    graph = import_graph()
    offenders = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        if _under(module, ("rift.swarm",))
        for target in sorted(targets)
        if _under(target, ("rift.core",)) and target not in SWARM_MAY_IMPORT_OF_CORE
    ]
    assert not offenders, "the owner hands the swarm what it needs:\n" + "\n".join(offenders)
    for allowed in SWARM_MAY_IMPORT_OF_CORE:
        assert not [t for t in graph[allowed] if _under(t, ("rift.core",))]


def test_the_checks_would_catch_a_circle_and_a_core_import(tmp_path: Path) -> None:
    pkg = tmp_path / "rift"
    (pkg / "core").mkdir(parents=True)
    (pkg / "tools").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "tools" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from rift import b\n")
    (pkg / "b.py").write_text("from .a import f\n")
    (pkg / "core" / "x.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rift.tools import t\n"
    )
    (pkg / "core" / "y.py").write_text("")
    (pkg / "tools" / "t.py").write_text("from rift.core.x import y\n")
    global SRC
    saved, SRC = SRC, tmp_path
    try:
        graph = import_graph(pkg)
    finally:
        SRC = saved
    assert circles(graph) == [["rift.a", "rift.b"], ["rift.core.x", "rift.tools.t"]]
    assert graph["rift.tools.t"] == {"rift.core.x"}
    assert graph["rift.core.x"] == {"rift.tools.t"}  # a type-only import ties them too
