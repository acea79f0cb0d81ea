"""Benchmarks of the solver as an engineer runs them: ``halfmoon bench``.

- :mod:`.suites` — the suites (quick, standard, tail) and the published deal sets;
- :mod:`.lanes` and :mod:`.worker` — worker processes pinned to cores, each running a
  revision's own solver;
- :mod:`.machine` — what the machine is and whether it was quiet (load, other processes,
  the reference workload);
- :mod:`.figures` — a part's rates, percentiles and settling searches; a ratio's interval;
- :mod:`.run` and :mod:`.against` — a suite alone, or beside another revision or a saved
  result;
- :mod:`.output` — bench.json, bench.md, deals.parquet and the charts;
- :mod:`.sets` — a set's layout files for another solver.
"""

from .against import run_against_revision as run_against
from .output import write as write_result
from .run import SCHEMA, run_suite

__all__ = ["SCHEMA", "run_suite", "run_against", "write_result"]
