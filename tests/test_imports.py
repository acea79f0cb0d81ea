"""How the house's modules import one another: no import circle anywhere, and the solver
entered by its front door only.

Read from the source with ``ast`` (as tests/test_layers.py does), so an import inside a
function counts as much as one at the top of a module."""

from __future__ import annotations

import ast
import json

import pytest
from test_layers import MODULES, ROOT, _imports

import solver

PUBLIC = set(solver.__all__)


def _graph() -> dict[str, set[str]]:
    """module -> the project's modules it imports (at the top or inside a function)."""
    return {m: {t for t, _ in _imports(m, p) if t in MODULES and t != m}
            for m, p in MODULES.items()}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_halfmoon_and_solver():
    circles = _cycles(_graph())
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def _solver_uses(tree: ast.AST) -> list[str]:
    """What a piece of code takes from the solver, as ``solver.NAME`` or the submodule it
    reaches into; names not of the front door (or private) are the ones to report."""
    bad = []
    aliases = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for a in node.names if a.name == "solver"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("solver."):
                    bad.append(f"import {a.name}")
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.startswith("solver."):
                bad.append(f"from {node.module} import ...")
            elif node.module == "solver":
                bad += [f"from solver import {a.name}" for a in node.names
                        if a.name not in PUBLIC or a.name.startswith("_")]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases and node.attr not in PUBLIC:
            bad.append(f"{node.value.id}.{node.attr}")
    return bad


def test_the_front_door_check_sees_a_back_door():
    assert _solver_uses(ast.parse("from solver.mirror.position import all_moves")) != []
    assert _solver_uses(ast.parse("from solver import _as_deal")) != []
    assert _solver_uses(ast.parse("import solver\nsolver.portfolio")) != []
    assert _solver_uses(ast.parse("from solver import solve\nimport solver\nsolver.solve")) == []
    assert _solver_uses(ast.parse("solver = frame.loc[0]\nsolver.index")) == []  # not the package


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("halfmoon")))
def test_halfmoon_enters_the_solver_by_its_front_door(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    bad = _solver_uses(tree)
    assert not bad, f"{module} reaches behind solver's front door: {bad}"


@pytest.mark.parametrize("notebook",
                         sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_notebooks_enter_the_solver_by_its_front_door(notebook):
    cells = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    bad = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        code = "\n".join(line for line in source.splitlines()
                         if not line.lstrip().startswith(("%", "!")))
        bad += _solver_uses(ast.parse(code))
    assert not bad, f"{notebook} reaches behind solver's front door: {bad}"


def test_benchmarks_that_measure_an_inner_part_say_which():
    """A benchmark may import the solver's insides to measure them; its docstring names each
    subpackage it reaches into (``solver.grouping``, ...)."""
    silent = []
    for path in sorted((ROOT / "benchmarks").rglob("*.py")):  # benchmarks/lab/ too
        if "results" in path.relative_to(ROOT / "benchmarks").parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module \
                and not node.level else []
            for name in names:
                parts = name.split(".")
                if parts[0] == "solver" and len(parts) > 1:
                    sub = ".".join(parts[:2])
                    if sub not in doc and f"solver/{parts[1]}" not in doc:
                        silent.append(f"{path.name}: {sub}")
    assert not silent, \
        f"benchmarks importing the solver's insides without saying so: {sorted(set(silent))}"
