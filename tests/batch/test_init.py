"""The batch's face (``halfmoon/batch/__init__.py``): what it exports, and that no module of
the batch imports it (tests/test_imports.py checks every application's use of the solver).

Read from the source with ``ast``, imports inside functions included, so that an import
that would only run on a worker or in a rare branch is seen too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import halfmoon.batch

ROOT = Path(__file__).resolve().parents[2]


def _files(package: str) -> list[Path]:
    return sorted((ROOT / "halfmoon" / package).glob("*.py"))


def _imports(path: Path):
    """(node, absolute module, names) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).parent.parts)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([module] if module else []))
            yield node, module, [alias.name for alias in node.names]


def test_the_face_names_what_it_exports():
    assert sorted(halfmoon.batch.__all__) == sorted(set(halfmoon.batch.__all__))
    missing = [name for name in halfmoon.batch.__all__ if not hasattr(halfmoon.batch, name)]
    assert missing == []


@pytest.mark.parametrize("path", _files("batch"), ids=lambda p: p.name)
def test_no_module_of_the_batch_imports_its_face(path):
    """A module imports the module that defines a name, never ``halfmoon.batch`` itself:
    the face imports the modules, so that would be a circle."""
    if path.name == "__init__.py":
        return
    bad = []
    for node, module, names in _imports(path):
        if module == "halfmoon.batch" or (module == "halfmoon" and "batch" in names):
            bad.append(f"line {node.lineno}: {ast.unparse(node)}")
    assert bad == [], f"{path.name} imports the package's face: {bad}"
