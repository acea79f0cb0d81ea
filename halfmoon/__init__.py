"""Half Moon: deals, a reference engine, an exact solver and batch statistics.

The package is layered: :mod:`halfmoon.game` (the core game) at the bottom, then the solver
(the top-level :mod:`solver` package), then the applications (:mod:`halfmoon.batch`,
:mod:`halfmoon.research`, :mod:`halfmoon.report`) and the command line (:mod:`halfmoon.cli`).
"""

import sys as _sys

from .game import *  # noqa: F401,F403  (the core game's API is the package's)
from .game import __all__  # noqa: F401  (re-exported: the package's __all__ is the game's)

__version__ = "0.1.0"

# In IPython (a notebook), deals and games show as pictures: the report registers its
# drawing with the shell, so the core game never imports the report.
if "IPython" in _sys.modules:
    from .report.display import register_in_running_ipython as _register

    _register()
