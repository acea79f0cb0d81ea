"""Deals and games as pictures in IPython: the report registers them with the shell."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.report.display import png, register

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

pytest.importorskip("IPython")


def test_png_draws_a_deal_and_a_game():
    assert png(Deal.from_number(0)).startswith(PNG_MAGIC)
    game = Game(0)
    game.play(next(iter(game.legal_moves)))
    assert png(game).startswith(PNG_MAGIC)
    assert png(game) != png(Deal.from_number(0))  # the game's position, not its deal


def test_a_registered_formatter_gives_png_bytes_and_keeps_the_text():
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    deal = Deal.from_number(0)
    assert "image/png" not in formatter.format(deal)[0]
    register(SimpleNamespace(display_formatter=formatter))
    for shown in (deal, Game(0)):
        data, _ = formatter.format(shown)
        assert data["image/png"].startswith(PNG_MAGIC)
        assert data["text/plain"] == repr(shown)


def _run(code: str, tmp_path) -> None:
    """Run ``code`` in a fresh interpreter (IPython's settings kept under ``tmp_path``)."""
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_in_a_running_shell_import_halfmoon_shows_pictures(tmp_path):
    """As in a notebook: the shell runs first, then ``import halfmoon``; matplotlib waits for
    the first picture."""
    _run(
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "import halfmoon\n"
        "assert 'matplotlib' not in sys.modules\n"
        "for shown in (halfmoon.Deal.from_number(0), halfmoon.Game(0)):\n"
        "    data, _ = shell.display_formatter.format(shown)\n"
        f"    assert data['image/png'].startswith({PNG_MAGIC!r}), sorted(data)\n",
        tmp_path,
    )


def test_load_ext_registers_by_hand(tmp_path):
    _run(
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "from halfmoon.game.deal import Deal\n"
        "shell = InteractiveShell.instance()\n"
        "assert 'image/png' not in shell.display_formatter.format(Deal.from_number(0))[0]\n"
        "shell.run_line_magic('load_ext', 'halfmoon.report.display')\n"
        "data, _ = shell.display_formatter.format(Deal.from_number(0))\n"
        f"assert data['image/png'].startswith({PNG_MAGIC!r})\n",
        tmp_path,
    )


def test_outside_ipython_import_halfmoon_loads_no_report(tmp_path):
    _run(
        "import sys\n"
        "import halfmoon\n"
        "str(halfmoon.Deal.from_number(0)); repr(halfmoon.Game(0))\n"
        "loaded = [m for m in ('matplotlib', 'IPython', 'halfmoon.report') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
        # IPython loaded but no shell running: nothing to register with
        "import IPython\n"
        "from halfmoon.report.display import register_in_running_ipython\n"
        "assert register_in_running_ipython() is False\n",
        tmp_path,
    )
