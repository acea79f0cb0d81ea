"""What a local run's fork server loads before it forks the workers (:class:`.backends.Pool`):
the compiled solver, once, so that each worker starts solving at once instead of loading it.

Only when every kernel the workers call is in the cache: on a cold cache the run compiles them
in helper processes first (:func:`solver.compile_in_parallel`) and each worker then loads them
itself.  Importing this module never fails: a worker that finds the solver not loaded loads it
(:func:`.backends.warm_up`).
"""

from __future__ import annotations


def _load() -> bool:
    """Load the solver's kernels here if the cache holds them all; whether it did."""
    try:
        from solver import SOLVING, is_ready

        from .backends import warm_up

        if not all(is_ready(group) for group in SOLVING):
            return False
        warm_up()
        return True
    except Exception:  # the workers load it themselves, and say what is wrong if they cannot
        return False


loaded = _load()
