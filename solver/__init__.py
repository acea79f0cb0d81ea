"""The exact solver of Half Moon: numba kernels over a bit-packed mirror of the game.

This package's names are its front door (:mod:`solver.api`): the applications import them
from here alone; the subpackages behind it are private.

- :mod:`solver.mirror` — the packed position format, the deal generator's twin, the table
- :mod:`solver.depth_first` — the depth-first search, its pruning, bounds and projections
- :mod:`solver.grouping` — the grouping search: its model, clause learning, propagation
- :mod:`solver.portfolio` — the searches taking turns on a deal; many deals by number
- :mod:`solver.players` — the simple, tuned and fair players
- :mod:`solver.check` — the independent check (a constraint model)
- :mod:`solver.build` — numba's cache kept in step with the sources, the warm-up groups,
  compiling made cheaper
"""

from pathlib import Path as _Path

from .build.caching import drop_stale_caches as _drop_stale_caches
from .build.compiling import install as _install

_drop_stale_caches(_Path(__file__).resolve().parent)  # before any kernel is compiled or loaded
_install()  # numba: a cheaper inliner and calls between kernels, boxing that fails cleanly

from .api import *  # noqa: E402,F401,F403
from .api import __all__  # noqa: E402,F401
