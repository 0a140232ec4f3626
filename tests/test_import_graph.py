"""The import graph of src/rift: no circles anywhere, not even between packages,
and the layers point one way.

A circle means neither module can be read, tested or moved without the other,
and Python's partial-module errors appear the day one import moves to the top.
The same holds one level up: two packages that import each other (even through
different modules) are one package in two folders, so the graph collapsed to
packages, at every level, has no circles either.

Tools, models, extensions, the swarm and the server pool sit below the core: the
core hands them what they need (`ToolContext`, the extension bundle, the race's
start function), so they never import `rift.core`. Under everything lies the
foundation (config, files, network, text, events): it imports only itself.

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
NEVER_IMPORT_CORE = (
    "rift.tools",
    "rift.models",
    "rift.extend",
    "rift.lsp",
    "rift.pool",
    "rift.checks",
    "rift.swarm",
)
"""The swarm is started by the core (the owner hands the race its candidates' start
function), so it never imports the core's front door; the undo journal a merge
records into (`rift.fs.checkpoints`) and the pool's scheduler, whose per-server use
the race shows (`rift.pool.scheduler`), live below the core for that reason."""
FOUNDATION = (
    "rift.config",
    "rift.errors",
    "rift.events",
    "rift.fs",
    "rift.net",
    "rift.text",
)
"""What every layer may use; it imports nothing of rift above it."""
LAYERS: tuple[tuple[str, ...], ...] = (
    ("rift.__main__", "rift.cli", "rift.update"),
    ("rift.frontends", "rift.integrations"),
    ("rift.core",),
    ("rift.swarm",),
    ("rift.checks", "rift.extend", "rift.lsp", "rift.pool"),
    ("rift.models", "rift.tools"),
    (*FOUNDATION, "rift.logs"),
)
"""docs/architecture.md's layout, top to bottom: a module imports only its own line and the
lines below it (`rift` itself, the version, lies under all of them)."""
MAX_TOP_MODULES = 8
"""Modules directly in src/rift; everything else has a package that says what it is."""


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


def test_the_foundation_imports_only_the_foundation() -> None:
    offenders = [
        f"{module} imports {target}"
        for module, targets in sorted(import_graph().items())
        if _under(module, FOUNDATION)
        for target in sorted(targets)
        if not _under(target, FOUNDATION)
    ]
    assert not offenders, "the foundation sits below every layer:\n" + "\n".join(offenders)


def _layer(module: str) -> int:
    """Its line in `LAYERS` (0 on top); `rift` itself lies below them all; -1: in none."""
    if module == "rift":
        return len(LAYERS)
    return next((i for i, line in enumerate(LAYERS) if _under(module, line)), -1)


def test_every_package_has_its_layer_and_imports_only_down() -> None:
    graph = import_graph()
    unplaced = sorted({m.split(".")[1] for m in graph if _layer(m) < 0})
    assert not unplaced, f"packages in no layer (add them to LAYERS and the doc): {unplaced}"
    offenders = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if _layer(target) < _layer(module)
    ]
    assert not offenders, "imports point down the layout:\n" + "\n".join(offenders)


def package_graph(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    """The edges between the children of `package` (its subpackages and modules): a
    module under child A importing one under child B is the edge A → B."""

    def child(module: str) -> str | None:
        if not module.startswith(package + "."):
            return None
        return package + "." + module[len(package) + 1 :].split(".")[0]

    collapsed: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = child(module)
        if source is None:
            continue
        collapsed.setdefault(source, set())
        for target in targets:
            into = child(target)
            if into is not None and into != source:
                collapsed[source].add(into)
    return collapsed


def package_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Circles between sibling packages (or modules), under every package."""
    packages = sorted({m.rsplit(".", i)[0] for m in graph for i in range(1, m.count(".") + 1)})
    return [c for package in packages for c in circles(package_graph(graph, package))]


def test_no_package_circles() -> None:
    found = package_circles(import_graph())
    assert not found, "package circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_few_modules_sit_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, f"modules directly in src/rift: {top}"


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
    assert ["rift.core", "rift.tools"] in package_circles(graph)


def test_the_package_check_sees_circles_no_module_circle_shows() -> None:
    graph = {
        "rift.p": set(),
        "rift.p.a": {"rift.q.b"},  # p → q through one pair of modules,
        "rift.q": set(),
        "rift.q.b": set(),
        "rift.q.c": {"rift.p.d"},  # q → p through another
        "rift.p.d": set(),
        "rift.p.e": set(),
        "rift.p.e.x": {"rift.p.f"},  # inside p: e → f → e
        "rift.p.f": {"rift.p.e.y"},
        "rift.p.e.y": set(),
    }
    assert circles(graph) == []
    assert package_circles(graph) == [["rift.p", "rift.q"], ["rift.p.e", "rift.p.f"]]
