"""What the notebooks read, said in words: the run they are given (never a sample made in its
place unless no run was named), and that run's findings (never the shipped census's unless
asked for by name).

    df, source = load_run(RESULTS, SAMPLE_DIR)           # the run's rows, in the run's order
    seed, said = players_seed(RESULTS)                   # the findings' seed for the players
    where, words = findings_of(RESULTS, FINDINGS, "../docs/findings")
    drawn_from(where, "win-rate.parquet")                # the line a cell prints first
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Union

import pandas as pd

from halfmoon.game.errors import HalfMoonError

SHIPPED = "census"  # FINDINGS = "census": the shipped census's findings, asked for by name


def load_run(results: Union[str, Path], sample_dir: Union[str, Path, None] = None,
             sample_deals: int = 300, budget: int = 200_000) -> tuple[pd.DataFrame, str]:
    """The rows of the run in ``results`` in the run's own order
    (:func:`halfmoon.research.scan.in_run_order`), and a line naming them.  Only where no
    such folder exists, and ``sample_dir`` is given, is a small sample made there once and
    read instead, and the line says so; a folder that is not a run is an error."""
    from halfmoon.research import scan, stats

    if not Path(results).exists() and sample_dir is not None:
        df = stats.load_or_make(sample_dir, range(sample_deals), budget)
        df = scan.in_run_order(df, sample_dir)
        return df, (f"NOT a run of yours: {results} does not exist, so {len(df):,} deals "
                    f"(0 to {sample_deals - 1}) solved once into {sample_dir}, in the run's order")
    df = scan.in_run_order(stats.load(results), results)
    return df, f"{len(df):,} deals from {results}{_made_by(results)}, in the run's order"


def _made_by(results) -> str:
    from halfmoon.batch.sources import describe_source
    from halfmoon.batch.state import run_state

    try:
        manifest = run_state(results).manifest
    except (HalfMoonError, OSError):
        return ""
    if not manifest or not manifest.get("source"):
        return ""
    return f" (halfmoon batch {describe_source(manifest['source'])})"


FINDINGS_SEED = 2026  # halfmoon findings --seed's default


def players_seed(results: Union[str, Path]) -> tuple[int, str]:
    """The seed the players' games are played with, so that a notebook's games are the
    findings page's on the same deals: the seed of the run's findings
    (``results/_findings/findings``) where it has them, else ``halfmoon findings``'s default;
    and a line saying which."""
    path = Path(results) / "_findings" / "findings" / "summary.json"
    try:
        seed = int(json.loads(path.read_text(encoding="utf-8"))["seed"])
        return seed, f"players seeded with {seed}, the seed of the findings in {path.parent}"
    except (OSError, ValueError, KeyError, TypeError):
        return FINDINGS_SEED, (f"players seeded with {FINDINGS_SEED}, the seed 'halfmoon "
                               f"findings {results}' plays them with by default")


def findings_of(results: Union[str, Path], findings: Optional[str],
                shipped: Union[str, Path]) -> tuple[Path, str]:
    """Where the findings to draw are, and what they are in words.

    ``findings``: empty or None for the run's own (``results/_findings/findings``, where
    ``halfmoon findings RESULTS`` writes them); :data:`SHIPPED` for the shipped census's
    (``shipped``); else a findings data folder.  Where the run has none (a checkout after
    ``make run``), the shipped census's, the words starting with "NOT of your run" and
    saying how to make the run's own (as the other notebooks say "NOT a run of yours" of the
    sample they draw in its place); findings of another run than ``results`` are said to be
    so."""
    if findings == SHIPPED:
        where = Path(shipped)
        s = _summary(where)
        return where, (f"the shipped census's findings ({where}: {s['deals']:,} deals of "
                       f"{s['command']}), as asked (FINDINGS = {SHIPPED!r}); not of {results}")
    if not findings:
        where = Path(results) / "_findings" / "findings"
        if not (where / "summary.json").exists():
            s = _summary(Path(shipped))
            return Path(shipped), (
                f"NOT of your run: {results} has no findings in {where} ('halfmoon findings "
                f"{results}' writes them there; findings written with --out DIR are in "
                "DIR/findings: set FINDINGS to it). Drawn instead: the shipped census's "
                f"findings ({shipped}: {s['deals']:,} deals of {s['command']})")
    else:
        where = Path(findings)
    s = _summary(where)
    words = f"findings in {where}: {s['deals']:,} deals of {s['command']}"
    other = _other_run(results, s)
    if other:
        words += f"; NOT of {results}: {other}"
    elif s.get("partial") or s.get("writer"):
        words += (f"; the run was not finished ({s['deals']:,} of {int(s.get('planned') or 0):,}"
                  " planned deals)")
    return where, words


def _summary(where: Path) -> dict:
    try:
        return json.loads((where / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise HalfMoonError(f"{where}: no findings data (no readable summary.json); "
                            "'halfmoon findings RUN' makes it") from None


def _other_run(results, s: dict) -> str:
    """Why findings are not of the run in ``results`` (empty where they are, or where it
    cannot be told)."""
    from halfmoon.batch.state import run_state
    from halfmoon.research.findings import run_identity, same_run

    try:
        manifest = run_state(results).manifest
    except (HalfMoonError, OSError):
        manifest = None
    if manifest is None:
        return ""
    if "run" in s:
        same = same_run(s["run"], run_identity(manifest, str(results)))
    else:  # findings made before the run was kept: its deals as the batch command named them
        from halfmoon.batch.sources import describe_source

        same = f"halfmoon batch {describe_source(manifest.get('source', {}))} " in \
            s.get("command", "") + " "
    return "" if same else "they are of another run"


def drawn_from(where: Union[str, Path], *names: str) -> str:
    """The line a cell prints first: the data files it draws, and what each holds."""
    from halfmoon.research.findings import DATA_FILES, FAIR_FILES

    files = {**DATA_FILES, **FAIR_FILES}
    return "\n".join(f"drawn from {Path(where) / n}: {files.get(n, '')}" for n in names)
