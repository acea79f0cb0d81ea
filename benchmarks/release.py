"""The release step of the solver as committed: the committed standard benchmark and the dry
run's tail model made again from one run of this commit.

    python benchmarks/release.py          # or: make bench-release (10-25 minutes on two cores)

It refuses a tree with changes not committed (the result must be of a commit).  It moves the
committed result of an earlier version (``benchmarks/results/standard/``) to
``benchmarks/results/history/standard-v<version>/`` (a result of the same version but of
another solver source is replaced), then runs ``halfmoon bench --suite standard --out
benchmarks/results/standard --refit-tail-model``: the 100,000 random deals' times refit
``halfmoon/batch/tail_model.json``, and both record the commit and the solver source's digest.
Last it writes README.md's speed sentence (between its ``bench:standard`` markers) and the
history's index and chart across versions (``history/standard-index.md``,
``history/standard-versions.png``).  ``tests/test_release.py`` fails while the result or the
model is of another solver source than the one checked out (any change under ``solver/``,
whatever ``SOLVER_VERSION`` says), or README.md quotes other figures; commit them together.
Run it on a quiet machine: a result marked busy says so in the sentence that quotes it.
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


def changes(root: Path = ROOT) -> list[str]:
    """What keeps the tree from being its commit: tracked files that differ from it, and
    files git does not know under ``solver/`` (the source the result is of)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=True).stdout.splitlines()
    tracked = git("status", "--porcelain", "--untracked-files=no")
    loose = git("status", "--porcelain", "--untracked-files=all", "--", "solver")
    return sorted({line[3:] for line in tracked + loose if line.strip()})


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from solver import SOLVER_VERSION

    changed = changes()
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5
                                          else "")
        print(f"error: the tree has changes not committed ({shown}): the committed result "
              "must be of a commit; commit or stash them, then run the release step",
              file=sys.stderr)
        return 2
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
        write_history()
    return code


def history_rows(history: Path = HISTORY, current: Path = STANDARD) -> list[dict]:
    """Each version's standard result (those kept in ``history``, then the current one),
    oldest version first: the figures the index and the chart show."""
    found = sorted(history.glob("standard-v*/bench.json")) + [current / "bench.json"]
    rows = []
    for path in found:
        if not path.is_file():
            continue
        r = json.loads(path.read_text())
        random = r["parts"]["random"]
        m = r["machine"]
        rows.append({"version": str(r["solver_version"]), "commit": (r["commit"] or "")[:12],
                     "dirty": bool(r.get("dirty")), "created": r["created"][:10],
                     "machine": f"{m['cpu']}, {m['cores']} cores", "workers": r["workers"],
                     "rate": random["deals_per_second_per_core"],
                     "p99": random["per_deal_seconds"]["p99"],
                     "max": random["per_deal_seconds"]["max"], "busy": bool(r.get("busy")),
                     "folder": path.parent.relative_to(path.parent.parent.parent).as_posix()})
    return sorted(rows, key=lambda row: (int(row["version"]) if row["version"].isdigit()
                                         else 0, row["created"]))


def write_history(history: Path = HISTORY, current: Path = STANDARD) -> list[Path]:
    """``standard-index.md`` (a row a version) and ``standard-versions.png`` (deals a second
    per core by version) in ``history``; both say the machines the figures were measured
    on, for figures of two machines are not comparable."""
    rows = history_rows(history, current)
    machines = sorted({row["machine"] for row in rows})
    one = len(machines) == 1
    where = (f"all measured on one machine ({machines[0]})" if one else
             "measured on different machines (see the machine column): figures of two "
             "machines are not comparable")
    lines = ["# The standard benchmark by solver version", "",
             f"`halfmoon bench --suite standard` of each version, {where}; written by "
             "`benchmarks/release.py` (`make bench-release`). The current version's is "
             "`results/standard/`, the earlier ones' here.", "",
             "| version | commit | made | machine | workers | deals/s per core | p99 | max "
             "| quiet | result |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['version']} | {row['commit']}{' (dirty)' if row['dirty'] else ''} "
                     f"| {row['created']} | {row['machine']} | {row['workers']} "
                     f"| {row['rate']:,.0f} | {row['p99'] * 1e3:.1f} ms | {row['max']:.2f} s "
                     f"| {'no: marked busy' if row['busy'] else 'yes'} | {row['folder']} |")
    history.mkdir(parents=True, exist_ok=True)
    index, chart = history / "standard-index.md", history / "standard-versions.png"
    index.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=110)
    x = range(len(rows))
    ax.plot(x, [row["rate"] for row in rows], "o-", color="#1f5f9f")
    for k, row in enumerate(rows):
        if row["busy"]:
            ax.annotate("busy", (k, row["rate"]), textcoords="offset points", xytext=(0, 6),
                        ha="center", fontsize=7)
    ax.set_xticks(list(x), [f"v{row['version']}\n{row['commit'][:7]}" for row in rows],
                  fontsize=7)
    ax.set_ylabel("random deals a second per core")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.set_title("The standard suite by solver version: " + (machines[0] if one else
                 "different machines, not comparable"), fontsize=8)
    fig.tight_layout()
    fig.savefig(chart)
    plt.close(fig)
    print(f"{index.relative_to(ROOT) if index.is_relative_to(ROOT) else index}: "
          f"{len(rows)} version{'s' if len(rows) != 1 else ''}")
    return [index, chart]


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
