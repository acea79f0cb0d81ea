"""The exact solver: numba kernels over a bit-packed mirror of the game, and the search."""

from pathlib import Path as _Path

from .caching import drop_stale_caches as _drop_stale_caches

_drop_stale_caches(_Path(__file__).resolve().parent)  # before any kernel is compiled or loaded

from .search import DEFAULT_BUDGET, SOLVER_VERSION, Result, solve  # noqa: E402

__all__ = ["solve", "Result", "DEFAULT_BUDGET", "SOLVER_VERSION"]
