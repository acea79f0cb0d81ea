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
    as it is."""
    import os
    import signal

    argv = getattr(_sys, "orig_argv", [])
    if not hasattr(signal, "pthread_sigmask") or len(argv) < 2:
        return
    if argv[1:3] != ["-m", "halfmoon"]:
        script = argv[1]
        if os.path.basename(script) != "halfmoon":
            return
        try:  # the installed script, not another program that happens to share its name
            with open(script, "rb") as f:
                if b"from halfmoon.cli import main" not in f.read(4096):
                    return
        except OSError:
            return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


_hold_ctrl_c_while_the_command_loads()

from .game import *  # noqa: E402,F401,F403  (the core game's API is the package's)
from .game import __all__  # noqa: E402,F401  (re-exported: the package's __all__ is the game's)

__version__ = "0.1.0"

# In IPython (a notebook), deals and games show as pictures: the report registers its
# drawing with the shell, so the core game never imports the report.
if "IPython" in _sys.modules:
    from .report.display import register_in_running_ipython as _register

    _register()
