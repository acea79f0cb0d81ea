"""How fast this machine runs at the moment: the solver's reference workload
(:class:`solver.Reference`, in ``solver/timing.py``), timed once a second.

The machine was measured to run at full speed or at about half of it, switching within a
second (figures in docs/tuning-log.md); ``halfmoon bench`` times this workload before,
between and after its parts and reports it with its figures.

    python benchmarks/reference.py [--rounds 10]    # the machine's speed, once a second
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver import Reference  # noqa: E402,F401  (the benchmarks import it from here)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=10)
    args = p.parse_args(argv)
    ref = Reference()
    for _ in range(args.rounds):
        print(f"{ref.time():.1f} ns per generation", flush=True)
        time.sleep(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
