"""The release step of a new solver version: the committed standard benchmark and the dry
run's tail model made again from one run of this version.

    python benchmarks/release.py          # or: make bench-release (10-25 minutes on two cores)

It moves the committed result of an earlier version (``benchmarks/results/standard/``) to
``benchmarks/results/history/standard-v<version>/``, then runs ``halfmoon bench --suite
standard --out benchmarks/results/standard --refit-tail-model``: the 100,000 random deals'
times refit ``halfmoon/batch/tail_model.json``.  ``tests/test_release.py`` fails while either
is of another version than ``SOLVER_VERSION``, and while README.md's speed sentence (between
its ``bench:standard`` markers, which this step writes) quotes other figures than the
committed result's; commit the three together.  Run it on a quiet machine: a result marked
busy says so in the sentence that quotes it.
"""

from __future__ import annotations

import json
import re
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
    code = subprocess.run(cmd, cwd=ROOT).returncode
    if code == 0:
        write_readme(json.loads(saved.read_text()))
    return code


def write_readme(result: dict, readme: Path = ROOT / "README.md") -> None:
    """README.md's speed sentence, between its ``bench:standard`` markers, from ``result``."""
    from halfmoon.bench.output import speed_sentence

    text = readme.read_text(encoding="utf-8")
    marks = re.compile(r"(<!-- bench:standard[^>]*-->\n).*?(\n<!-- /bench:standard -->)", re.S)
    if not marks.search(text):
        raise SystemExit("error: README.md has no bench:standard markers")
    text = marks.sub(lambda m: m.group(1) + _wrap(speed_sentence(result)) + m.group(2), text)
    readme.write_text(text, encoding="utf-8")
    print("README.md: the speed sentence written from benchmarks/results/standard/bench.json")


def _wrap(text: str, width: int = 92) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False,
                                   break_long_words=False))


if __name__ == "__main__":
    sys.exit(main())
