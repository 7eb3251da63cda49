"""The shape of the code, read from the source alone (no Isaac Lab needed): imports that only go down, folders that
keep to their layer, files a reader can take in.

Module-level imports (those not inside a function) of every LocoLab module form a graph that must have no cycle:
importing ``a.b.c`` also imports the package ``a.b`` (its ``__init__``), so that edge counts too, except towards the
importer's own packages, which are already being imported when it runs. The imports inside functions, added to that
graph, must not close a cycle either: a function-level import may defer a heavy or optional dependency, not hide a
circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = {"locolab": REPO / "source" / "locolab", "locolab.tasks": REPO / "tasks", "locolab.agents": REPO / "agents"}
"""Where each installed package's source lives (setup.py's package_dir)."""
LOWER_LAYERS = ("envs", "runners", "algorithms", "models", "tasks")
"""Folders below evaluation: none of their modules may import locolab.eval."""
MAX_SCRIPT_LINES = 120
MAX_SOURCE_LINES = 450


def module_files() -> dict[str, Path]:
    """Every LocoLab module by dotted name."""
    modules = {}
    for package, root in PACKAGES.items():
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if package == "locolab" and parts[0] in ("tasks", "agents"):
                continue
            name = ".".join((package, *parts))
            modules[name.removesuffix(".__init__")] = path
    return modules


def _top_level_nodes(tree: ast.Module):
    """Statements that run at import: the module's own, including those under if/try/with, not inside functions
    or classes' methods."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imported_modules(name: str, path: Path, modules: dict[str, Path], in_functions: bool = False) -> set[str]:
    """The LocoLab modules ``name`` imports at module level (also inside functions with ``in_functions``; a ``from
    package import submodule`` names the submodule), with the packages each one's import initialises on the way."""
    is_package = path.name == "__init__.py"
    found = set()
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree) if in_functions else _top_level_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # ``import locolab.x.y`` of a name, not a module
                target = target.rpartition(".")[0]
            parts = target.split(".")
            for depth in range(1, len(parts) + 1):
                ancestor = ".".join(parts[:depth])
                if ancestor in modules and ancestor != name and not name.startswith(ancestor + "."):
                    found.add(ancestor)
    return found


def import_graph(in_functions: bool = False) -> dict[str, set[str]]:
    modules = module_files()
    return {name: imported_modules(name, path, modules, in_functions) for name, path in modules.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted: every cycle lies in one."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_no_import_cycles():
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles (modules that import each other, directly or around a loop):\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles)


def test_no_function_level_import_hides_a_cycle():
    cycles = import_cycles(import_graph(in_functions=True))
    assert not cycles, "cycles closed by imports inside functions:\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles)


def test_lower_layers_do_not_import_evaluation():
    offenders = [f"{name} imports {target}" for name, targets in import_graph(in_functions=True).items()
                 for target in sorted(targets)
                 if any(name == f"locolab.{layer}" or name.startswith(f"locolab.{layer}.") for layer in LOWER_LAYERS)
                 and (target == "locolab.eval" or target.startswith("locolab.eval."))]
    assert not offenders, "\n".join(offenders)


def test_file_lengths():
    scripts = [f"{path.relative_to(REPO)}: {lines}" for path in sorted((REPO / "scripts").glob("*.py"))
               if (lines := len(path.read_text().splitlines())) > MAX_SCRIPT_LINES]
    sources = [f"{path.relative_to(REPO)}: {lines}" for path in module_files().values()
               if (lines := len(path.read_text().splitlines())) > MAX_SOURCE_LINES]
    assert not scripts, f"scripts over {MAX_SCRIPT_LINES} lines: {scripts}"
    assert not sources, f"source files over {MAX_SOURCE_LINES} lines: {sources}"


def test_a_planted_cycle_is_found():
    """The checker itself: two modules that import each other are one cycle."""
    assert import_cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
