"""The findings' data kept beside their page: the small files :func:`save_data` writes
(:data:`DATA_FILES`, :data:`FAIR_FILES`) from what :func:`.findings.derive` derived, the
players' and the fair-play ladder's tables among them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Union

import numpy as np
import pandas as pd

from .provenance import provenance, write_parquet
from .stats import at_confidence, paired_difference, wilson_interval

PLAYERS = ("random", "greedy", "lookahead", "lookahead3")


def players_table(p: pd.DataFrame, solver_wins: np.ndarray, players=PLAYERS) -> pd.DataFrame:
    """Per player: games won, their rate, and the share of the winnable deals won, with
    Wilson intervals (at the current confidence); the solver's row is the census's own verdicts."""
    n, w = len(p), int(solver_wins.sum())
    rows = [("solver", n, w, w / n, *wilson_interval(w, n), w, 1.0, 1.0, 1.0, 0.0)]
    for name in players:
        won = p[f"{name}_won"].to_numpy()
        k, kw = int(won.sum()), int((won & solver_wins).sum())
        rows.append((name, n, k, k / n, *wilson_interval(k, n), kw, kw / w, *wilson_interval(kw, w),
                     float(p[f"{name}_left"].mean())))
    out = pd.DataFrame(rows, columns=["player", "deals", "wins", "win_rate", "ci_low", "ci_high",
                                      "winnable_won", "of_winnable", "of_winnable_low",
                                      "of_winnable_high", "mean_cards_left"])
    if "greedy_won" in p:
        base = p["greedy_won"].to_numpy().astype(float)
        diffs = [paired_difference(solver_wins.astype(float), base)]
        diffs += [paired_difference(p[f"{name}_won"].to_numpy().astype(float), base)
                  for name in players]
        out["vs_greedy"], out["vs_greedy_low"], out["vs_greedy_high"] = map(list, zip(*diffs))
    return out


def save_fair(fair: pd.DataFrame, data_dir: Union[str, Path]) -> None:
    """Write the fair-play stage's data (see :data:`FAIR_FILES`) into ``data_dir``, and its
    deals into the summary."""
    from .forgiveness import fatal_points

    d = Path(data_dir)
    path = d / "summary.json"
    s = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    with at_confidence(float(s.get("confidence", 0.95))):  # the findings' own confidence
        write_parquet(fair_ladder(fair), d / "fair-ladder.parquet")
        write_parquet(fair_curve(fair), d / "fair-curve.parquet")
        if "fatal_ply" in fair:
            write_parquet(fatal_points(fair, buckets=None), d / "fair-fatal.parquet")
    if s:
        s["fair_deals"] = int(fair["deal"].nunique())
        if "options" in s:
            s["options"]["fair_deals"] = max(int(s["options"].get("fair_deals") or 0),
                                             s["fair_deals"])
        path.write_text(json.dumps(_plain(s), indent=1) + "\n", encoding="utf-8")


DATA_FILES = {
    "summary.json": "headline figures: counts, rates and intervals, commands, versions, "
                    "recheck counts, provenance (the package's version and commit and the "
                    "solver's version that derived them; each Parquet file's metadata holds it "
                    "too, as halfmoon.provenance)",
    "win-rate.parquet": "n, wins, win_rate, ci_low, ci_high: the win rate of the census's first "
                        "n deals in the order its chart names (summary.json's win_rate_order "
                        "\"run\": the run's own; findings made before it: the seeded sample "
                        "order), at sizes spaced evenly on a log scale",
    "features.parquet": "feature, value, deals, losses, loss_rate, ci_low, ci_high",
    "losses.parquet": "one row per loss: deal, verdict, nodes, the six features, deadlock "
                      "(classes, spaces between), kind, size, minimal_sets, unresolved, solves, "
                      "nodes_projections",
    "players.parquet": "one row per player: deals, wins, win_rate, ci_low, ci_high, winnable_won, "
                       "of_winnable (with its interval), mean_cards_left, vs_greedy (the win "
                       "rate's difference from greedy's on the same deals, with its interval)",
    "players-left.parquet": "player, cards_left, games: where each player's games end",
    "forgiveness.parquet": "player, cards_left, positions, deals, keep_share, ci_low, ci_high, "
                           "unresolved_share: moves keeping a winnable position winnable, by "
                           "cards left",
    "forgiveness-buckets.parquet": "the same by buckets of cards left (104–96, 95–80, …)",
    "random-move.parquet": "player, measure, n, deals, loses, ci_low, ci_high: the chance that a "
                           "uniformly random legal move (or the player's own move) loses a "
                           "winnable position",
    "fatal-moves.parquet": "player, outcome, cards_left, games, share, ci_low, ci_high, "
                           "share_of_fatal: walked games by cards left before their fatal move, "
                           "never lost, unresolved",
    "forgiveness-games.parquet": "deal, player, won, moves_made, fatal_ply, fatal_cards_left, "
                                 "unresolved, solves, nodes: one row per walked game",
    "difficulty.parquet": "nodes_from, nodes_below, wins, losses, unresolved",
    "hardest.parquet": "deal, code, verdict, nodes, seconds, same_again, settled_by",
    "recheck.parquet": "deal, verdict, check, seconds: the recheck of a seeded random share of "
                       "the census",
}
# the fair ladder's columns against its top player (findings made before them have none)
VS_TOP = "vs_top (the same against the fair player of the highest win rate), "
STANDING = ("standing (best, highest, tied highest, not told apart from the highest, below the "
            "highest: what the page's sentence and chart say of it), ")
# written when the fair-play stage ran (findings made before it have none)
FAIR_FILES = {
    "fair-ladder.parquet": "one row per player on the fair-play deals, the solver (every card "
                           "shown) first: player, deals, won, win_rate, ci_low, ci_high, vs_greedy "
                           "and vs_lookahead (paired differences with their intervals), "
                           + VS_TOP + STANDING + "seconds_per_game (the mean), seconds_median, "
                           "evaluations_per_game",
    "fair-curve.parquet": "the fair player at each number of samples: player, samples, deals, "
                          "won, win_rate, ci_low, ci_high, vs_lookahead (with its interval), "
                          "seconds_per_game (the mean), seconds_median",
    "fair-fatal.parquet": "as fatal-moves.parquet, for each fair-play player's games on the deals "
                          "the solver wins: by cards left before the fatal move, never lost, "
                          "unresolved",
}


def save_data(derived: dict, data_dir: Union[str, Path]) -> Path:
    """Write the small derived data of :func:`derive` (see :data:`DATA_FILES`) into ``data_dir``,
    every interval at the summary's ``confidence`` (0.95 where it names none)."""
    with at_confidence(float(derived["summary"].get("confidence", 0.95))):
        return _save_data(derived, data_dir)


def _save_data(derived: dict, data_dir: Union[str, Path]) -> Path:
    from solver import SOLVER_VERSION

    from .recheck import recheck_counts

    d = Path(data_dir)
    d.mkdir(parents=True, exist_ok=True)
    s = dict(derived["summary"])
    s["recheck"] = recheck_counts(derived["recheck"])
    held = derived["recheck"]["verdict"].value_counts()
    s["recheck_held"] = {"wins": int(held.get("win", 0)), "losses": int(held.get("loss", 0))}
    s["solver_version_now"] = SOLVER_VERSION
    s["provenance"] = provenance()  # the package, its commit and the solver that derived these
    write_parquet(derived["win_rate"], d / "win-rate.parquet")
    write_parquet(derived["features"], d / "features.parquet")
    write_parquet(derived["losses"], d / "losses.parquet")
    pl = derived["players"]
    players = [c[: -len("_won")] for c in pl.columns if c.endswith("_won")]
    write_parquet(players_table(pl, (pl["verdict"] == "win").to_numpy(), players),
                  d / "players.parquet")
    left = pd.concat([pl[f"{p}_left"].value_counts().rename_axis("cards_left")
                      .reset_index(name="games").assign(player=p) for p in players],
                     ignore_index=True)
    write_parquet(left[["player", "cards_left", "games"]].sort_values(["player", "cards_left"]),
                  d / "players-left.parquet")
    from .forgiveness import fatal_points, keep_share_by_cards_left, random_move_loses

    pos, games = derived["positions"], derived["games"]
    write_parquet(keep_share_by_cards_left(pos, buckets=None), d / "forgiveness.parquet")
    write_parquet(keep_share_by_cards_left(pos), d / "forgiveness-buckets.parquet")
    write_parquet(random_move_loses(pos), d / "random-move.parquet")
    write_parquet(fatal_points(games, buckets=None), d / "fatal-moves.parquet")
    write_parquet(games.drop(columns=["start"]), d / "forgiveness-games.parquet")
    s["forgiveness_positions"] = len(pos)
    write_parquet(derived["difficulty"], d / "difficulty.parquet")
    write_parquet(derived["hardest"], d / "hardest.parquet")
    write_parquet(derived["recheck"], d / "recheck.parquet")
    (d / "summary.json").write_text(json.dumps(_plain(s), indent=1) + "\n", encoding="utf-8")
    fair = derived.get("fair")
    if fair is not None and len(fair):
        save_fair(fair, d)
    if derived.get("levels") is not None:
        from .findings_levels import save_levels

        save_levels(derived["levels"], d)
    return d


def fair_ladder(games: pd.DataFrame) -> pd.DataFrame:
    """:func:`.fairplay.ladder` of the fair-play games, with the solver's row (the census's
    verdicts on the same deals: every card shown) first."""
    from .fairplay import ladder

    one = games.drop_duplicates("deal")
    solver = one.assign(player="solver", won=one["verdict"] == "win", seconds=0.0, evaluations=0)
    both = pd.concat([solver, games], ignore_index=True)
    t = ladder(both[["deal", "player", "won", "seconds", "evaluations"]])
    # each player against the fair player of the highest win rate (the first of a tie), so
    # that the page names a best only where it is told apart from each other
    fair = t[t["player"] != "solver"]
    if len(fair):
        top = fair.loc[fair["win_rate"].idxmax(), "player"]
        wide = both.pivot(index="deal", columns="player", values="won")
        diffs = [(0.0, 0.0, 0.0) if p == top else
                 paired_difference(wide[p].to_numpy(float), wide[top].to_numpy(float))
                 for p in t["player"]]
        t["vs_top"], t["vs_top_low"], t["vs_top_high"] = map(list, zip(*diffs))
        t["standing"] = standings(t)
    return t


# a fair player's standing on the ladder (:func:`standings`): the page's sentence, its chart
# and the data file all read it, so that they cannot disagree
BEST = "best"  # the highest win rate, told apart from each other fair player
HIGHEST = "highest"  # the highest win rate, not told apart from some other
TIED = "tied highest"  # one of several at the highest win rate
CLOSE = "not told apart from the highest"
BELOW = "below the highest"  # told apart from the highest, below it
SHOWN = "every card shown"  # the solver's row: no fair player
STANDINGS = (BEST, HIGHEST, TIED, CLOSE, BELOW, SHOWN)


def standings(t: pd.DataFrame) -> list[str]:
    """Each row's standing among the fair players of a ladder (:func:`fair_ladder`'s, with its
    ``vs_top`` columns): every fair player of the table is a candidate, lookahead too; one
    whose difference from the top's rate has an interval holding 0 is not told apart
    from it (a missing interval: not told apart)."""
    fair = t["player"] != "solver"
    high = t.loc[fair, "win_rate"].max()
    tied = fair & (t["win_rate"] == high)
    apart = [bool(lo > 0 or hi < 0) if lo == lo and hi == hi else False
             for lo, hi in zip(t.get("vs_top_low", [float("nan")] * len(t)),
                               t.get("vs_top_high", [float("nan")] * len(t)))]
    out = []
    for is_fair, is_tied, is_apart in zip(fair, tied, apart):
        if not is_fair:
            out.append(SHOWN)
        elif is_tied:
            out.append(TIED if int(tied.sum()) > 1 else None)
        else:
            out.append(BELOW if is_apart else CLOSE)
    top = HIGHEST if CLOSE in out else BEST
    return [top if s is None else s for s in out]


def fair_curve(games: pd.DataFrame) -> pd.DataFrame:
    """The fair player's win rate against its samples a decision (``fair@K`` and ``fair``)."""
    from .fairplay import ladder, players

    names = [n for n in dict.fromkeys(games["player"]) if n == "fair" or n.startswith("fair@")]
    keep = games[games["player"].isin([*names, "greedy", "lookahead"])]
    t = ladder(keep[["deal", "player", "won", "seconds", "evaluations"]])
    t = t[t["player"].isin(names)].copy()
    t.insert(1, "samples", [players([n])[0].samples for n in t["player"]])
    cols = ["player", "samples", "deals", "won", "win_rate", "ci_low", "ci_high", "vs_lookahead",
            "vs_lookahead_low", "vs_lookahead_high", "seconds_per_game", "seconds_median"]
    return t.sort_values("samples")[[c for c in cols if c in t]].reset_index(drop=True)


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and x != x:
        return None
    return x
