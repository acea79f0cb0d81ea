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
