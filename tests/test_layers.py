"""The layers of the house: imports point down only (core game <- solver <- applications).

Read from the source with ``ast``, so an import added anywhere (at module level or inside a
function) is seen without running it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Lower number = lower layer.  The applications are ordered among themselves too, so that
# the graph between subpackages has no cycle.
LAYERS = {
    "halfmoon.game": 0,
    "solver": 1,
    "halfmoon.batch": 2,
    "halfmoon.research": 3,
    "halfmoon.report": 4,
    "halfmoon.bench": 5,
    "halfmoon.board": 6,
    "halfmoon.cli": 7,  # its play command imports the board lazily
    "halfmoon": 8,  # the package's __init__ and __main__: the public face
}
ALLOWED_UP: set[tuple[str, str]] = set()


def _modules():
    for top in ("halfmoon", "solver"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


MODULES = dict(_modules())


def _unit(module: str) -> str:
    """The subpackage (layer unit) a module belongs to; ``halfmoon`` itself, as a target,
    is the core game's API that it re-exports."""
    if module == "halfmoon":
        return "halfmoon.game"
    parts = module.split(".")
    if parts[0] == "solver":
        return "solver"
    if len(parts) >= 2 and f"halfmoon.{parts[1]}" in LAYERS:
        return f"halfmoon.{parts[1]}"
    return "halfmoon"


def _imports(module: str, path: Path):
    """(imported module, at module level?) for every import of the project in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    top_level = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            # "from pkg import x" imports the module pkg.x where there is one, else pkg
            names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix
                     for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in ("halfmoon", "solver"):
                yield name, id(node) in top_level


def test_every_subpackage_has_a_layer():
    units = {_unit(m) for m in MODULES}
    assert units == set(LAYERS), units ^ set(LAYERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    mine = "halfmoon" if module == "halfmoon" else _unit(module)  # the face imports from the top
    up = []
    for target, _ in _imports(module, MODULES[module]):
        theirs = _unit(target)
        if LAYERS[theirs] > LAYERS[mine] and (module, target) not in ALLOWED_UP:
            up.append(target)
    assert not up, f"{module} ({mine}) imports from a higher layer: {up}"


def _is_kernel_module(path: Path) -> bool:
    """A module that compiles numba kernels (it imports numba)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "numba"
                                                for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level \
                and (node.module or "").split(".")[0] == "numba":
            return True
    return False


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("solver")))
def test_solver_imports_only_the_core_game(module):
    """The solver imports the core game and nothing else of halfmoon; its kernels (the
    modules that import numba) import nothing of halfmoon at all."""
    targets = [t for t, _ in _imports(module, MODULES[module]) if t.startswith("halfmoon")]
    assert all(t.startswith("halfmoon.game.") for t in targets), targets
    if _is_kernel_module(MODULES[module]):
        assert targets == [], f"{module} is a kernel module but imports {targets}"


def test_the_core_game_is_pure_python():
    """No numba, numpy, pandas or pyarrow in the core game (pictures come lazily from above)."""
    heavy = ("numba", "numpy", "pandas", "pyarrow", "matplotlib")
    for module, path in MODULES.items():
        if _unit(module) != "halfmoon.game":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            assert not [n for n in names if n.split(".")[0] in heavy], (module, names)


def test_the_graph_between_subpackages_has_no_cycle():
    """Module-level imports between subpackages form a graph without a cycle."""
    edges = {u: set() for u in LAYERS}
    for module, path in MODULES.items():
        for target, top in _imports(module, path):
            a, b = _unit(module), _unit(target)
            if top and a != b:
                edges[a].add(b)
    state = {}

    def visit(u, trail):
        state[u] = "open"
        for v in edges[u]:
            assert state.get(v) != "open", f"import cycle: {' -> '.join(trail + [u, v])}"
            if v not in state:
                visit(v, trail + [u])
        state[u] = "done"

    for u in edges:
        if u not in state:
            visit(u, [])


def test_every_module_has_its_test_file():
    """One test file per module, in the folder matching its package: halfmoon/game/deal.py
    is tested in tests/game/test_deal.py, solver/depth_first/dfs.py in
    tests/solver/depth_first/test_dfs.py.  Package files and the modules that only declare
    error types are exempt."""
    missing = []
    for module, path in MODULES.items():
        if path.name in ("__init__.py", "__main__.py", "errors.py"):
            continue
        parts = module.split(".")
        folder = parts[1:2] if parts[0] == "halfmoon" else parts[:-1]
        expected = ROOT.joinpath("tests", *folder, f"test_{parts[-1]}.py")
        if not expected.is_file():
            missing.append(str(expected.relative_to(ROOT)))
    assert not missing, f"modules without their test file: {missing}"
