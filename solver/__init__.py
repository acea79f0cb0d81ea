"""The exact solver: numba kernels over a bit-packed mirror of the game, and the search."""

from .search import DEFAULT_BUDGET, SOLVER_VERSION, Result, solve

__all__ = ["solve", "Result", "DEFAULT_BUDGET", "SOLVER_VERSION"]
