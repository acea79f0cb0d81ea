"""The release step of a new solver version: the committed standard benchmark and the dry
run's tail model made again from one run of this version.

    python benchmarks/release.py          # or: make bench-release (10-25 minutes on two cores)

It moves the committed result of an earlier version (``benchmarks/results/standard/``) to
``benchmarks/results/history/standard-v<version>/``, then runs ``halfmoon bench --suite
standard --out benchmarks/results/standard --refit-tail-model``: the 100,000 random deals'
times refit ``halfmoon/batch/tail_model.json``.  ``tests/test_release.py`` fails while either
is of another version than ``SOLVER_VERSION``, and while README.md's speed sentence quotes
other figures than the committed result's; commit the three together.  Run it on a quiet
machine: a result marked busy says so on every page that quotes it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STANDARD = ROOT / "benchmarks" / "results" / "standard"
HISTORY = ROOT / "benchmarks" / "results" / "history"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from solver import SOLVER_VERSION

    saved = STANDARD / "bench.json"
    if saved.is_file():
        old = str(json.loads(saved.read_text()).get("solver_version"))
        if old != str(SOLVER_VERSION):
            target = HISTORY / f"standard-v{old}"
            if target.exists():
                print(f"error: {target.relative_to(ROOT)} exists already", file=sys.stderr)
                return 2
            shutil.move(str(STANDARD), str(target))
            print(f"moved the result of version {old} to {target.relative_to(ROOT)}")
    cmd = [sys.executable, "-m", "halfmoon", "bench", "--suite", "standard", "--out",
           "benchmarks/results/standard", "--refit-tail-model"]
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
