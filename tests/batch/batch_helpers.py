"""Helpers of the batch tests: small runs with a small budget, and what they left on disk."""

from __future__ import annotations

from pathlib import Path

from halfmoon.batch import run_batch
from halfmoon.batch.results import load_results

BUDGET = 20_000
TIMEOUT = 180  # seconds for one subprocess run, on a busy machine


def batch_args(out: Path, *args: str) -> list[str]:
    return ["batch", "--out", str(out), "--budget", str(BUDGET), *args]


def solved(out: Path):
    """The results without the timings, which differ from run to run."""
    return load_results(out).drop(columns="seconds")


def chunk_names(out: Path) -> set[str]:
    return {p.name for p in out.glob("part-*.parquet")}


def temp_files(out: Path) -> list[str]:
    return [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def quiet_run(deals, out: Path, **kwargs):
    warnings = []
    summary = run_batch(deals, out, budget=BUDGET, progress=False, log=warnings.append, **kwargs)
    return summary, warnings


def peak_rss_mib(argv: list[str]) -> float:
    """The peak memory of ``halfmoon`` run with ``argv`` in a fresh process, in MiB."""
    import subprocess
    import sys

    code = ("import resource, sys\nfrom halfmoon.cli.main import main\nrc = main(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\nsys.exit(rc)\n")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    return float(proc.stdout.split()[-1])
