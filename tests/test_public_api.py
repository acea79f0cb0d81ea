"""The public API and its documentation kept in step: every name of ``solver.__all__`` and of
``halfmoon.__all__`` is documented in docs/library.md, and each package's public names are
its ``__all__`` (a name only the package uses is private)."""

from __future__ import annotations

import inspect
import re
from types import ModuleType

import pytest
from test_layers import ROOT

import halfmoon
import solver
from halfmoon.game.engine import Game

LIBRARY = ROOT / "docs" / "library.md"


def documented_names() -> set[str]:
    """The names the page documents: each code span's leading name (``solve`` of
    ``solve(deal, budget)``, ``Deal`` of ``Deal.from_number(n)``), code blocks left out."""
    text = re.sub(r"```.*?```", "", LIBRARY.read_text(encoding="utf-8"), flags=re.S)
    return {m.group(1) for span in re.findall(r"`([^`\n]+)`", text)
            for m in [re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", span)] if m}


def public(module: ModuleType) -> set[str]:
    return {name for name, value in vars(module).items()
            if not name.startswith("_") and not isinstance(value, ModuleType)}


@pytest.mark.parametrize("module", [solver, halfmoon], ids=lambda m: m.__name__)
def test_every_public_name_is_documented_in_library_md(module):
    missing = sorted(set(module.__all__) - documented_names())
    assert missing == [], f"{module.__name__}: not in docs/library.md: {', '.join(missing)}"


@pytest.mark.parametrize("module", [solver, halfmoon], ids=lambda m: m.__name__)
def test_the_public_names_are_the_all(module):
    assert public(module) == set(module.__all__)


def test_the_check_sees_a_name_left_out():
    names = documented_names()
    assert {"solve", "Deal", "fair_hint", "GameWalk"} <= names
    assert "solver" not in set(solver.__all__) and "nothing_documented" not in names


def test_every_public_method_of_game_has_a_docstring():
    undocumented = []
    for name, member in vars(Game).items():
        if name.startswith("_"):
            continue
        target = member.fget if isinstance(member, property) else member
        if callable(target) and not (inspect.getdoc(target) or "").strip():
            undocumented.append(name)
    assert undocumented == []
    assert {"can_undo", "cards_left", "is_legal", "legal_moves"} <= set(vars(Game))
