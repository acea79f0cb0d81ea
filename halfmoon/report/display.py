"""Deals and games as pictures in IPython and Jupyter.

The report hands IPython's PNG formatter a picture of each
:class:`~halfmoon.game.deal.Deal` and :class:`~halfmoon.game.engine.Game`, so that the core
game draws nothing itself and never imports the report.  ``import halfmoon`` does it when
IPython is running (:func:`register_in_running_ipython`); ``%load_ext halfmoon.report.display``
does it by hand.  matplotlib is imported by the first picture, not before.
"""

from __future__ import annotations

import sys
from typing import Optional, Union

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game


def png(deal: Union[Deal, Game]) -> Optional[bytes]:
    """The picture of a deal or of a game's position as PNG bytes; None without matplotlib
    (IPython then shows the text alone)."""
    try:
        from .pictures import deal_png
    except ImportError:
        return None
    return deal_png(deal)


def register(shell) -> None:
    """Make an IPython shell (an ``InteractiveShell``) show deals and games as pictures."""
    formatter = shell.display_formatter.formatters["image/png"]
    formatter.for_type(Deal, png)
    formatter.for_type(Game, png)


load_ipython_extension = register  # the name ``%load_ext`` calls


def register_in_running_ipython() -> bool:
    """Register with the IPython shell of this process if there is one; whether there was.
    Imports no part of IPython that is not loaded already."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if get_ipython is not None else None
    if shell is None:
        return False
    register(shell)
    return True
