"""The findings of a census: the derived data behind ``docs/findings.md``.

    halfmoon findings census   # data in census/_findings/findings/, then the page beside it

A census is a results directory written by ``halfmoon batch`` (local, or at an fsspec
URL).  From it, each stage derives a part of the findings; the expensive ones work in
pieces kept under ``<census>/_findings/<stage>/`` (names starting with ``_`` are not
results data; a census at a URL names a local directory for them), so an interrupted run
goes on where it stopped.  Each stage's pieces record what they were made from: the rows
they read (a count and a digest of the deals and verdicts), the options that shaped them
and the solver version (:mod:`.pieces`).  A later run reads a stage back while these are the
same, extends it where only its rows changed (a run that grew: the rows already done are
kept, the others done) and redoes it where its options or the solver changed; a page is
never made of stages of different states of its run.

- ``census``: verdict counts, the win rate and the dead-on-arrival rate with Wilson
  intervals (at 95 %, or the ``confidence`` asked: every interval of the findings is), the
  loss rate by simple features of the deal, the running win rate —
  counted in one streamed pass (:mod:`.census`), in bounded memory;
- ``deadlocks``: for every loss, the smallest set of classes whose cards alone cannot be
  cleared (:mod:`.deadlocks`);
- ``players``: the simple players of :mod:`.strategies` on a seeded sample of the census;
- ``forgiveness``: winnable positions along the random and greedy players' games on a
  seeded sample of the census's winnable deals (:mod:`.forgiveness`);
- ``recheck``: a seeded share of it, wins replayed, losses put to CP-SAT (:mod:`.recheck`);
- ``difficulty``: positions searched per deal, and the hardest deals, solved again.
- ``levels``: each deal of the players' sample given its difficulty for a person, the level
  predicted by :mod:`halfmoon.batch.difficulty` (:mod:`.findings_levels`).

Before the first stage starts, each one's cost is estimated from the run's size and printed
(:mod:`.costs`); samples not given are scaled to the run.  The data kept beside the page are
written by :mod:`.findings_data`.

Samples are taken in the sample order of ``seed`` (:func:`.census.sample_keys`, a keyed
hash of the deal numbers): the players take its first deals, the forgiveness stage the
first winnable ones; the recheck has its own order (``seed + 1``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional, Union

import numpy as np
import pandas as pd

from .census import FindingsError, count_census, dataset_rows, open_census
from .costs import default_samples, estimate, plan_lines
from .findings_data import (  # noqa: F401  (the data files' names and writers, kept here too)
    DATA_FILES,
    FAIR_FILES,
    PLAYERS,
    VS_TOP,
    fair_curve,
    fair_ladder,
    players_table,
    save_data,
    save_fair,
)
from .pieces import run_pieces
from .stats import at_confidence

WORK_DIR = "_findings"
# the fair-play ladder: every player on the same deals; the fair player also at fewer samples
FAIR_LADDER = ("random", "greedy", "lookahead", "tuned", "rollout", "rollout-lookahead", "uct",
               "fair")
FAIR_CURVE = ("fair@16", "fair@64")
# deals a piece of each stage (a piece: a worker's task, kept as soon as it is done); the fair
# stage's small, so that even a small run's 20 fair-play deals keep two workers busy
PIECE = {"deadlocks": 250, "players": 5_000, "fair": 10, "forgiveness": 50, "recheck": 500,
         "hardest": 20, "levels": 500}


def census_command(manifest: dict, path: str) -> str:
    """The ``halfmoon batch`` command that writes (or resumes) the census: its deals, where it
    writes, and only the options that made it differ from that command's defaults (a budget,
    the lines left out, a chunk size other than the one chosen for its size), as a user types
    it.  Runs pooled (:func:`.pool.pooled_run`): the command of each run, a line each."""
    from halfmoon.batch.plan import choose_chunk_size
    from solver import DEFAULT_BUDGET

    src = manifest.get("source", {})
    if src.get("kind") == "pooled":  # runs pooled: the command of each, one a line
        return "\n".join(census_command({**run, "source": run.get("source", {})}, where)
                         for run, where in zip(src.get("runs", []), manifest.get("read_from", [])))
    if src.get("kind") == "random":
        what = f"--random {src['count']} --seed {src['seed']}"
    elif src.get("kind") == "range":
        what = f"--range {src.get('start')}:{src.get('stop')}"
    else:
        what = "--codes FILE"
    words = [f"halfmoon batch {what} --out {path}"]
    budget = manifest.get("budget")
    if budget is not None and int(budget) != DEFAULT_BUDGET:
        words.append(f"--budget {int(budget)}")
    if manifest.get("lines") == "none":
        words.append("--lines none")
    count = int((manifest.get("deals") or {}).get("count") or 0)
    size = manifest.get("chunk_size")
    if size is not None and (not count or int(size) != choose_chunk_size(count, cluster=False,
                                                                          cores=1)):
        words.append(f"--chunk-size {int(size)}")
    return " ".join(words)


def run_identity(manifest: dict, path: str) -> dict:
    """What names the run a page was made from: its deals (the manifest's count and digest),
    how they were chosen, its budget and when it began; and where it was read."""
    return {"results": path, "source": manifest.get("source", {}),
            "deals": manifest.get("deals", {}), "budget": manifest.get("budget"),
            "created": str(manifest.get("created", ""))}


def same_run(a: dict, b: dict) -> bool:
    """Whether two run identities (:func:`run_identity`) name one run: the same deals, chosen
    the same way, with the same budget (wherever the directory lies now)."""
    return all(a.get(k) == b.get(k) for k in ("source", "deals", "budget"))


def _hardest_piece(top: pd.DataFrame, budget: int) -> dict[str, pd.DataFrame]:
    from halfmoon.game.codes import number_to_code
    from solver import solve

    rows = []
    for deal, verdict, nodes, seconds in zip(top["deal"], top["verdict"], top["nodes"],
                                             top["seconds"]):
        r = solve(int(deal), budget=budget)
        rows.append((int(deal), number_to_code(int(deal)), verdict, int(nodes), float(seconds),
                     r.verdict == verdict, r.settled_by or ""))
    return {"hardest": pd.DataFrame(rows, columns=["deal", "code", "verdict", "nodes", "seconds",
                                                   "same_again", "settled_by"])}


# --- the stages' pieces (kept by .pieces, keyed by what they were made from) -----------
def _deadlock_piece(rows: pd.DataFrame, budget: int) -> dict[str, pd.DataFrame]:
    from .deadlocks import deadlocks

    return {"deadlocks": deadlocks(rows["deal"].to_numpy(), budget)}


def _players_piece(rows: pd.DataFrame, players: tuple, seed: int) -> dict[str, pd.DataFrame]:
    from .strategies import play_many

    out = pd.DataFrame({"deal": rows["deal"].to_numpy()})
    for name in players:
        g = play_many(out["deal"].to_numpy(), name, seed=seed)
        out[f"{name}_won"] = g["won"].to_numpy()
        out[f"{name}_left"] = g["cards_left"].to_numpy().astype(np.int8)
    return {"players": out}


def _fair_piece(rows: pd.DataFrame, names: tuple, seed: int, samples: Optional[int],
                budget: int) -> dict[str, pd.DataFrame]:
    from .fairplay import play_players

    return {"fair": play_players(rows["deal"].to_numpy(), names, seed=seed, samples=samples,
                                 workers=1, fatal_budget=budget)}


def _forgiveness_piece(rows: pd.DataFrame, players: tuple, seed: int,
                       budget: int) -> dict[str, pd.DataFrame]:
    from .forgiveness import forgiveness

    positions, games = forgiveness(rows["deal"].to_numpy(), strategies=players, seed=seed,
                                   budget=budget, workers=1)
    return {"positions": positions, "games": games}


def _recheck_piece(rows: pd.DataFrame, limit: float) -> dict[str, pd.DataFrame]:
    from .recheck import recheck

    return {"recheck": recheck(rows, limit=limit)}


def _lines(ds, numbers) -> pd.DataFrame:
    """The winning lines of some deals of a census (:class:`.scan.Dataset`), read a row group
    at a time."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from halfmoon.batch.results import stored_columns, to_rows

    want = pa.array(sorted({int(n) for n in numbers}), pa.int64())
    parts = []
    for g in ds.row_groups(stored_columns(ds.format, ["deal", "verdict", "line"])):
        hit = g.filter(pc.is_in(g["deal"], value_set=want))
        if len(hit):
            parts.append(to_rows(hit, ds.format, ["deal", "verdict", "line"]).to_pandas())
    return (pd.concat(parts, ignore_index=True) if parts
            else pd.DataFrame(columns=["deal", "verdict", "line"]))


# --- all of it ----------------------------------------------------------------------
def derive(census: Union[str, Path], *, seed: int = 2026, workers: int = 2,
           players_deals: Optional[int] = None, forgiveness_deals: Optional[int] = None,
           recheck_share: float = 0.01, recheck_limit: float = 60.0,
           budget: Optional[int] = None, players: tuple = PLAYERS, progress: bool = True,
           work: Union[str, Path, None] = None, fair_deals: Optional[int] = None,
           fair_samples: Optional[int] = None,
           fair_players: tuple = FAIR_LADDER + FAIR_CURVE, partial: bool = False,
           confidence: float = 0.95) -> dict:
    """Every stage on a census (a directory or an fsspec URL); returns the derived frames and
    the summary (a dict).  The stages' pieces are kept in ``work`` (default: the census's
    ``_findings``; a census at a URL needs a local one).  The fair-play stage plays
    ``fair_players`` on the first ``fair_deals`` deals of the players' sample (0: none), the
    sampling ones at ``fair_samples`` samples if given, else each at its own.  A sample not
    given (None) is scaled to the run's planned deals (:func:`.costs.default_samples`).  With
    ``progress``, each stage's estimated cost is printed before the first starts.
    ``partial``: a run not finished is taken as it stands (its summary says so), else
    refused.  Every interval is at ``confidence``; the stages' pieces hold no interval (games,
    walks, deadlocks: what intervals are made from), so they serve any confidence."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    with at_confidence(confidence):
        return _derive(census, seed, workers, players_deals, forgiveness_deals, recheck_share,
                       recheck_limit, budget, players, progress, work, fair_deals, fair_samples,
                       fair_players, partial, confidence)


def _derive(census, seed, workers, players_deals, forgiveness_deals, recheck_share, recheck_limit,
            budget, players, progress, work, fair_deals, fair_samples, fair_players, partial,
            confidence) -> dict:
    work = _work_dir(census, work)
    ds, manifest = open_census(census, complete=not partial)
    asked = {"players_deals": players_deals, "forgiveness_deals": forgiveness_deals,
             "fair_deals": fair_deals}
    planned = int((manifest.get("deals") or {}).get("count") or 0) or dataset_rows(ds)
    scaled = {k: v for k, v in default_samples(planned).items() if asked[k] is None}
    players_deals, forgiveness_deals, fair_deals = (scaled.get(k, v) for k, v in asked.items())
    c = count_census(census, seed=seed, players_deals=players_deals,
                     forgiveness_deals=forgiveness_deals, recheck_share=recheck_share, dataset=ds,
                     manifest=manifest, partial=partial)
    summary = c.summary
    budget = int(budget or summary["budget"])
    summary["command"] = census_command(manifest, str(census))
    summary["created"] = str(manifest.get("created", ""))
    summary["run"] = run_identity(manifest, str(census))
    if manifest.get("source", {}).get("kind") == "pooled":  # the runs, as they were named
        summary["pooled_from"] = list(manifest.get("read_from", []))
    # the options as asked: the Reproduce block repeats them (a stage may have found fewer)
    summary["options"] = {"seed": seed, "players_deals": players_deals,
                          "forgiveness_deals": forgiveness_deals, "fair_deals": fair_deals,
                          "recheck": recheck_share, "limit": recheck_limit,
                          "partial": bool(partial), "confidence": float(confidence)}
    summary["confidence"] = float(confidence)
    # the samples not given, scaled to the run: the page says so
    summary["scaled"] = {"planned": planned, **scaled} if scaled else None
    from halfmoon.batch.state import run_state

    summary["writer"] = run_state(census).writer if partial else None

    pick = c.recheck
    rows = _lines(ds, pick["deal"]).set_index("deal").loc[pick["deal"]].reset_index()
    if progress:
        costs = _costs(work, c, rows, budget, players, seed, fair_deals, fair_players,
                       fair_samples, recheck_limit, workers)
        print("\n".join(plan_lines(costs, workers)), file=sys.stderr, flush=True)

    dl = run_pieces(work, "deadlocks", c.losses[["deal", "verdict"]], _deadlock_piece,
                    {"budget": budget}, PIECE["deadlocks"], workers, progress)["deadlocks"]
    losses = c.losses.merge(dl, on="deal", suffixes=("", "_projections"))

    pl = run_pieces(work, "players", c.players[["deal", "verdict"]], _players_piece,
                    {"players": tuple(players), "seed": seed}, PIECE["players"], workers,
                    progress)["players"]
    pl = pl.merge(c.players, on="deal")

    fair = _fair_stage(work, c.players, fair_deals, fair_players, seed, fair_samples, budget,
                       workers, progress)
    lv = _levels_stage(work, c.players, workers, progress)

    fg = run_pieces(work, "forgiveness", c.winnable, _forgiveness_piece,
                    {"players": ("random", "greedy"), "seed": seed, "budget": budget},
                    PIECE["forgiveness"], workers, progress)

    rc = run_pieces(work, "recheck", rows, _recheck_piece, {"limit": recheck_limit},
                    PIECE["recheck"], workers, progress)["recheck"]
    hd = run_pieces(work, "hardest", c.hardest, _hardest_piece, {"budget": budget},
                    PIECE["hardest"], 1, False)["hardest"]

    summary.update(seed=seed, players_deals=len(pl), forgiveness_deals=len(c.winnable),
                   recheck_deals=len(rc), recheck_limit=recheck_limit,
                   fair_deals=0 if fair is None else int(fair["deal"].nunique()))
    return {"summary": summary, "features": c.features, "losses": losses, "win_rate": c.win_rate,
            "fair": fair, "players": pl, "positions": fg.get("positions"),
            "games": fg.get("games"), "recheck": rc, "difficulty": c.difficulty, "hardest": hd,
            "levels": lv}


def _levels_piece(rows: pd.DataFrame, model: str) -> dict[str, pd.DataFrame]:
    from .findings_levels import levels_piece

    return levels_piece(rows, model)


def _levels_stage(work: Path, sample: pd.DataFrame, workers: int, progress: bool):
    """The players' sample given its difficulty levels (:mod:`.findings_levels`); None where
    the package's difficulty model cannot be used."""
    from .findings_levels import model_id

    made = model_id()
    if not made:
        return None
    return run_pieces(work, "levels", sample[["deal", "verdict"]], _levels_piece,
                      {"model": made}, PIECE["levels"], workers, progress)["levels"]


def _costs(work: Path, c, rows: pd.DataFrame, budget: int, players: tuple, seed: int,
           fair_deals: int, fair_players: tuple, fair_samples: Optional[int],
           recheck_limit: float, workers: int) -> list:
    """Each stage's estimated cost on this run (:mod:`.costs`): its rows no kept piece holds,
    at the seconds a unit of it takes."""
    from .pieces import rows_to_do

    def todo(stage: str, items: pd.DataFrame, params: dict) -> tuple[int, int]:
        return rows_to_do(work, stage, items, params), len(items)

    out = [estimate("deadlocks", *todo("deadlocks", c.losses[["deal", "verdict"]],
                                       {"budget": budget}), workers, piece=PIECE["deadlocks"]),
           estimate("players", *todo("players", c.players[["deal", "verdict"]],
                                     {"players": tuple(players), "seed": seed}), workers,
                    piece=PIECE["players"])]
    from .findings_levels import model_id

    if model_id():
        out.append(estimate("levels", *todo("levels", c.players[["deal", "verdict"]],
                                            {"model": model_id()}), workers,
                            piece=PIECE["levels"]))
    if fair_deals > 0 and fair_players:
        fsample = c.players.iloc[:fair_deals][["deal", "verdict"]]
        out.append(estimate("fair", *todo("fair", fsample, {
            "names": tuple(fair_players), "seed": seed, "samples": fair_samples,
            "budget": budget}), workers, fair_players=fair_players, piece=PIECE["fair"]))
    out.append(estimate("forgiveness", *todo("forgiveness", c.winnable, {
        "players": ("random", "greedy"), "seed": seed, "budget": budget}), workers,
        piece=PIECE["forgiveness"]))
    n, of = todo("recheck", rows, {"limit": recheck_limit})
    losses = int((rows["verdict"] == "loss").sum()) if n else 0
    out.append(estimate("recheck", n, of, workers, losses=losses, limit=recheck_limit,
                        piece=PIECE["recheck"]))
    n, of = todo("hardest", c.hardest, {"budget": budget})
    out.append(estimate("hardest", n, of, 1,
                        seconds=float(c.hardest["seconds"].sum()) if n else 0.0))
    return out


def _work_dir(census: Union[str, Path], work: Union[str, Path, None]) -> Path:
    """Where the stages keep their pieces: ``work``, or the census's own ``_findings``."""
    from halfmoon.batch.store import location

    if work is not None:
        return Path(work)
    where = location(census)
    if not where.is_local:
        raise FindingsError(f"{census}: a census at a URL needs a local directory for the "
                            "findings' pieces (--work DIR)")
    return where.path / WORK_DIR


def _fair_stage(work: Path, sample: pd.DataFrame, deals: int, names: tuple, seed: int,
                samples: Optional[int], budget: int, workers: int,
                progress: bool) -> Optional[pd.DataFrame]:
    """The fair players' games on the first ``deals`` of the players' sample (None for none),
    with the census's verdicts and each game's fatal move."""
    if deals <= 0 or not names:
        return None
    fsample = sample.iloc[:deals]
    return run_pieces(work, "fair", fsample[["deal", "verdict"]], _fair_piece,
                       {"names": tuple(names), "seed": seed, "samples": samples, "budget": budget},
                       PIECE["fair"], workers, progress)["fair"].merge(fsample, on="deal")


class RunChanged(FindingsError):
    """The run changed (it grew, or was redone) since the findings were derived from it."""


def findings_options(findings: Union[str, Path]) -> dict:
    """The options of :func:`derive` the findings in ``findings`` were made with (from their
    summary; findings kept before their options were: from the figures they kept)."""
    s = json.loads((Path(findings) / "summary.json").read_text(encoding="utf-8"))
    o = s.get("options")
    if o:
        return {"seed": int(o["seed"]), "players_deals": int(o["players_deals"]),
                "forgiveness_deals": int(o["forgiveness_deals"]),
                "recheck_share": float(o["recheck"]), "recheck_limit": float(o["limit"]),
                "confidence": float(o.get("confidence", 0.95))}
    return {"seed": int(s["seed"]), "players_deals": int(s["players_deals"]),
            "forgiveness_deals": int(s["forgiveness_deals"]),
            "recheck_share": float(s["recheck_deals"]) / float(s["deals"]),
            "recheck_limit": float(s["recheck_limit"])}


def derive_fair(census: Union[str, Path], findings: Union[str, Path], *, workers: int = 2,
                fair_deals: Optional[int] = None, fair_samples: Optional[int] = None,
                fair_players: tuple = FAIR_LADDER + FAIR_CURVE, progress: bool = True,
                work: Union[str, Path, None] = None) -> pd.DataFrame:
    """The fair-play stage alone, for findings already derived from ``census`` (their data in
    ``findings``: the same seed, samples and budget as they used); an error if they are of
    another census or there are no fair-play deals, :class:`RunChanged` if the run changed
    since (its other stages are then out of date too)."""
    d = Path(findings)
    if not (d / "summary.json").exists():
        raise FindingsError(f"{findings}: no findings data to add the fair-play stage to; "
                            "make them with 'halfmoon findings CENSUS'")
    old = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    partial = bool((old.get("options") or {}).get("partial"))
    ds, manifest = open_census(census, complete=not partial)
    if (census_command(manifest, str(census)).split(" --out ")[0]
            != str(old.get("command", "")).split(" --out ")[0]):
        raise FindingsError(f"{findings}: these findings are of another census "
                            f"({old.get('command')!r})")
    if fair_deals is None:
        planned = int((manifest.get("deals") or {}).get("count") or 0)
        fair_deals = default_samples(planned)["fair_deals"]
    if fair_deals < 1:
        raise FindingsError("--fair-deals must be at least 1 for the fair-play stage alone, "
                            f"got {fair_deals}")
    work = _work_dir(census, work)
    c = count_census(census, seed=int(old["seed"]), players_deals=int(old["players_deals"]),
                     forgiveness_deals=int(old["forgiveness_deals"]), dataset=ds, manifest=manifest,
                     partial=partial)
    if any(c.summary[k] != old.get(k) for k in ("deals", "wins", "losses")):
        raise RunChanged(f"{census}: the run changed since these findings ({int(old['deals']):,} "
                         f"deals then, {int(c.summary['deals']):,} now)")
    return _fair_stage(work, c.players, fair_deals, fair_players, int(old["seed"]), fair_samples,
                       int(old["budget"]), workers, progress)
