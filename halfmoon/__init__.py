"""Half Moon: deals, a reference engine, an exact solver and batch statistics.

The package is layered: :mod:`halfmoon.game` (the core game) at the bottom, then the solver
(the top-level :mod:`solver` package), then the applications (:mod:`halfmoon.batch`,
:mod:`halfmoon.research`, :mod:`halfmoon.report`) and the command line (:mod:`halfmoon.cli`).
"""

from .game import *  # noqa: F401,F403  (the core game's API is the package's)
from .game import __all__

__version__ = "0.1.0"
