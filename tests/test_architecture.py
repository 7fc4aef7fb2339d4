"""The direction of dependencies, read from the source with ``ast`` (nothing is imported).

Every ``.py`` under ``engine/``, ``gpuquote/``, ``catalog/`` and ``quotes/`` (migrations and tests
aside) is parsed and every import in it, function-local ones included, becomes an edge of the
module graph. The rules (README "Architecture"):

- ``engine`` is pure: it imports the standard library and itself only (no Django, DRF, Celery),
  plus the pure libraries named in ``ENGINE_PURE_LIBRARIES``;
- ``catalog`` never imports ``quotes`` (quotes builds on the catalog, not the other way round);
- the shared plumbing (``gpuquote.core``, ``gpuquote.api``) imports neither app;
- no cycle between modules: a function-local import that hides one still counts. Imports under
  ``if TYPE_CHECKING:`` never run: they count for the rules above, not for cycles (annotations
  may name a module that imports this one, as import-linter's ``exclude_type_checking_imports``),
  except inside the engine, where a type-only cycle fails too (a protocol or a leaf module of
  records breaks it) and the type-only imports are counted against a ceiling;
- no module over ``MODULE_LINES_MAX`` lines (migrations and the data modules listed aside).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "gpuquote", "catalog", "quotes")
SKIPPED_DIRS = {"migrations", "tests", "__pycache__"}

# Third-party libraries the engine may use: pure Python, no framework, no I/O.
ENGINE_PURE_LIBRARIES = frozenset(
    {
        "stdnum",  # python-stdnum: the EU VAT number checksums of engine.commerce.vat
    }
)
# Cycles still present, each as its sorted members; an entry here must carry its reason. The test
# fails on any cycle not listed (a new one) and on a listed one that no longer exists (remove it).
ALLOWED_CYCLES: tuple[tuple[str, ...], ...] = ()
# Type-only imports between engine modules today: a new one needs a reason (it is how a cycle
# hides); lower the ceiling when one goes.
ENGINE_TYPE_ONLY_IMPORTS_MAX = 0
# A module past this is split by what it does; data tables are the exception.
MODULE_LINES_MAX = 600
DATA_MODULES: frozenset[str] = frozenset()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _source_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts):
                yield path


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, type_only: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Every import statement in the tree (function bodies included), and whether it sits under
    ``if TYPE_CHECKING:`` (type-only: it never runs)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, type_only
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), True)
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), type_only)
        else:
            yield from _imports(node, type_only)


def _imported_names(tree: ast.Module, module: str, is_package: bool) -> Iterator[tuple[str, bool]]:
    """Every dotted name an import statement anywhere in the tree may load (``from a import b``
    gives ``a`` and ``a.b``: ``b`` may be a submodule), with its type-only flag."""
    for node, type_only in _imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, type_only
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against this module's package
                package = module.split(".")
                if not is_package:
                    package = package[:-1]
                base = package[: len(package) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            yield prefix, type_only
            for alias in node.names:
                yield f"{prefix}.{alias.name}", type_only


def _import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]:
    """(edges between project modules, the same without type-only imports, top-level names of
    everything each module imports)."""
    files = {_module_name(path): path for path in _source_files()}
    edges: dict[str, set[str]] = {module: set() for module in files}
    runtime: dict[str, set[str]] = {module: set() for module in files}
    external: dict[str, set[str]] = {module: set() for module in files}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, type_only in _imported_names(tree, module, path.name == "__init__.py"):
            external[module].add(name.split(".")[0])
            # The deepest project module the name points to (``a.b.C``: ``a.b`` if C is a class).
            target = name
            while target and target not in files:
                target = target.rpartition(".")[0]
            if target and target != module:
                edges[module].add(target)
                if not type_only:
                    runtime[module].add(target)
    return edges, runtime, external


def _cycles(edges: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Strongly connected components of more than one module (Tarjan, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return sorted(found)


def _cycle_path(edges: dict[str, set[str]], members: tuple[str, ...]) -> str:
    """One concrete loop inside a component, for the failure message (a -> b -> a)."""
    inside = set(members)
    start = members[0]
    previous: dict[str, str] = {}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges[node] & inside):
            if child == start:
                path = [start]
                while node != start:
                    path.append(node)
                    node = previous[node]
                return " -> ".join([start, *reversed(path[1:]), start])
            if child not in previous:
                previous[child] = node
                queue.append(child)
    return " <-> ".join(members)


GRAPH, RUNTIME_GRAPH, EXTERNAL = _import_graph()


def _upward(source_prefix: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if module == source_prefix or module.startswith(source_prefix + ".")
        for target in targets
        if target.split(".")[0] in forbidden
    )


def test_the_graph_covers_the_project():
    assert "engine" in GRAPH
    assert "catalog.services" in GRAPH
    assert "quotes.models" in GRAPH
    assert "gpuquote.core.outbound" in GRAPH


def test_engine_imports_the_standard_library_and_itself_only():
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    offenders = sorted(
        f"{module} imports {name}"
        for module, names in EXTERNAL.items()
        if module == "engine" or module.startswith("engine.")
        for name in names
        if name and name != "engine" and name not in stdlib | ENGINE_PURE_LIBRARIES
    )
    assert offenders == [], "the engine must stay pure:\n" + "\n".join(offenders)


def test_catalog_never_imports_quotes():
    offenders = _upward("catalog", ("quotes",))
    assert offenders == [], "catalog sits below quotes:\n" + "\n".join(offenders)


@pytest.mark.parametrize("package", ["gpuquote.core", "gpuquote.api"])
def test_shared_plumbing_imports_neither_app(package):
    offenders = _upward(package, ("catalog", "quotes"))
    assert offenders == [], f"{package} is shared plumbing:\n" + "\n".join(offenders)


# Inside the quotes app (README "Architecture"): models and advice under the edges (the wizard,
# sales, partners and their PDFs), the REST API on top. A module never imports a higher layer.
QUOTES_LAYERS = {
    "quotes.advice.inputs": 0,  # the answers' values and defaults: the models' choices too
    "quotes.models": 0,
    "quotes.advice": 1,
    "quotes.wizard": 2,
    "quotes.sales": 2,
    "quotes.partners": 2,
    "quotes.pdf": 2,
    "quotes.api": 3,
}
# Advice modules that hold or read the one result object: pure Python, like the engine.
PURE_ADVICE_MODULES = ("quotes.advice.result", "quotes.advice.store", "quotes.advice.checklist")


def _layer(module: str) -> int | None:
    return next(
        (
            level
            for prefix, level in QUOTES_LAYERS.items()
            if (module + ".").startswith(prefix + ".")
        ),
        None,
    )


def test_quotes_layers_point_down():
    offenders = sorted(
        f"{module} (layer {_layer(module)}) imports {target} (layer {_layer(target)})"
        for module, targets in GRAPH.items()
        if _layer(module) is not None
        for target in targets
        if (_layer(target) or 0) > (_layer(module) or 0)
    )
    assert offenders == [], "an upward import inside quotes:\n" + "\n".join(offenders)


def test_sales_never_imports_webhook_code():
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if module.startswith("quotes.sales")
        for target in targets
        if target.startswith("quotes.partners.webhooks") or target == "quotes.partners.relay"
    )
    assert offenders == [], "status changes reach webhooks through signals:\n" + "\n".join(
        offenders
    )


@pytest.mark.parametrize("module", PURE_ADVICE_MODULES)
def test_the_result_object_is_pure(module):
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    allowed = stdlib | {"engine", "quotes"}
    assert EXTERNAL[module] - allowed == set()
    project = {name for name in GRAPH[module] if name.startswith("quotes.")}
    assert project <= {"quotes.advice.result"} | set(PURE_ADVICE_MODULES), project


def test_no_import_cycle_between_modules():
    cycles = _cycles(RUNTIME_GRAPH)
    new = [cycle for cycle in cycles if cycle not in ALLOWED_CYCLES]
    gone = [cycle for cycle in ALLOWED_CYCLES if cycle not in cycles]
    report = "\n".join(f"- {_cycle_path(RUNTIME_GRAPH, cycle)}" for cycle in new)
    assert new == [], f"{len(new)} import cycle(s) between modules:\n{report}"
    assert gone == [], f"allowed cycles that no longer exist (remove them): {gone}"


def _engine_only(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    return {
        module: {target for target in targets if target.split(".")[0] == "engine"}
        for module, targets in edges.items()
        if module.split(".")[0] == "engine"
    }


def test_no_import_cycle_inside_the_engine_even_type_only():
    engine = _engine_only(GRAPH)
    cycles = _cycles(engine)
    report = "\n".join(f"- {_cycle_path(engine, cycle)}" for cycle in cycles)
    assert cycles == [], f"{len(cycles)} engine cycle(s), type-only imports included:\n{report}"


def test_engine_type_only_imports_stay_under_the_ceiling():
    engine, runtime = _engine_only(GRAPH), _engine_only(RUNTIME_GRAPH)
    type_only = sorted(
        f"{module} -> {target}"
        for module, targets in engine.items()
        for target in targets - runtime[module]
    )
    assert len(type_only) <= ENGINE_TYPE_ONLY_IMPORTS_MAX, "\n".join(type_only)


def test_no_module_is_over_the_line_limit():
    long = sorted(
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in _source_files()
        if _module_name(path) not in DATA_MODULES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES_MAX
    )
    assert long == [], (
        f"split these by what they do (over {MODULE_LINES_MAX} lines):\n" + "\n".join(long)
    )


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [("a", "b")]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [("a", "b", "c")]),
    ],
)
def test_the_cycle_finder_finds_cycles(edges, expected):
    assert _cycles(edges) == expected


def test_function_local_imports_count_and_type_only_imports_are_flagged():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from a.b import C\n"
        "def f():\n    import d\n    from . import e\n"
    )

    names = set(_imported_names(tree, "pkg.mod", is_package=False))

    assert {("a.b", True), ("a.b.C", True), ("d", False), ("pkg", False), ("pkg.e", False)} <= names
