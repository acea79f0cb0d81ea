"""Half Moon: deals, a reference engine, an exact solver and batch statistics.

The package is layered: :mod:`halfmoon.game` (the core game) at the bottom, then the solver
(the top-level :mod:`solver` package), then the applications (:mod:`halfmoon.batch`,
:mod:`halfmoon.research`, :mod:`halfmoon.report`) and the command line (:mod:`halfmoon.cli`).
"""

import sys as _sys


def _hold_ctrl_c_while_the_command_loads() -> None:
    """The ``halfmoon`` command (its installed script, or ``python -m halfmoon``) loads
    this package first: Ctrl-C is blocked from here until the command's ``main()`` takes it
    (:class:`halfmoon.cli.ctrl_c.CtrlC`), so that one pressed while it loads is not a
    traceback but the command's "interrupted".  A program that imports the package is left
    as it was.  Blocked first, looked at after: the moment before the block is the
    interpreter's own start."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    if not _is_the_command():
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _is_the_command() -> bool:
    import os

    argv = getattr(_sys, "orig_argv", [])
    if argv[1:3] == ["-m", "halfmoon"]:
        return True
    if len(argv) < 2 or os.path.basename(argv[1]) != "halfmoon":
        return False
    try:  # the installed script, not another program that happens to share its name
        with open(argv[1], "rb") as f:
            return b"from halfmoon.cli import main" in f.read(4096)
    except OSError:
        return False


_hold_ctrl_c_while_the_command_loads()

from .game import *  # noqa: E402,F401,F403  (the core game's API is the package's)
from .game import __all__  # noqa: E402,F401  (re-exported: the package's __all__ is the game's)

__version__ = "0.1.0"

# In IPython (a notebook), deals and games show as pictures: the report registers its
# drawing with the shell, so the core game never imports the report.
if "IPython" in _sys.modules:
    from .report.display import register_in_running_ipython as _register

    _register()
