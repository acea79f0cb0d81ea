"""Section 4b of the findings page: what a player who sees only the app's cards can win
(the fair-play ladder, the fair player's win rate against its samples, and where the fair
players' games are lost); its charts are in :mod:`.fair_charts`."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from halfmoon.research.stats import confidence_words, duration

from .style import interval, pct, table_lines
from .wording import count, largest_share, name_list, points, sample_words, signed, told_apart

# the fatal move's timing: the last players of the ladder, random's games lost at once aside
FATAL_SHOWN = ("greedy", "lookahead", "tuned", "fair")
EARLY, LATE = 80, 31  # "early": 80 or more cards left before the fatal move; "late": 31 or fewer


def _fatal_rows(fatal: pd.DataFrame, player: str) -> tuple[np.ndarray, np.ndarray, int]:
    """A player's fatal moves: cards left before each (as an array of values), their
    counts, and its walked games."""
    t = fatal[fatal["player"] == player]
    f = t[t["outcome"] == "fatal"]
    return f["cards_left"].astype(int).to_numpy(), f["games"].to_numpy(), int(t["games"].sum())


def fatal_shown(fatal: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The players whose fatal moves the chart draws (those of :data:`FATAL_SHOWN` with games
    on winnable deals: more lines would hide each other), and every player of the table."""
    every = [p for p in dict.fromkeys(fatal["player"])]
    shown = [p for p in FATAL_SHOWN if p in every and _fatal_rows(fatal, p)[2]]
    return shown, every


def fatal_summary(fatal: pd.DataFrame) -> pd.DataFrame:
    """One row per player: walked games (deals the solver wins), never lost, and the fatal
    moves made early (80 or more cards left), in the middle and late (31 or fewer), as shares
    of the walked games, with the median cards left before the fatal move."""
    rows = []
    for player in dict.fromkeys(fatal["player"]):
        left, games, total = _fatal_rows(fatal, player)
        t = fatal[fatal["player"] == player]
        never = int(t[t["outcome"] == "never lost"]["games"].sum())
        order = np.argsort(left)
        cum = np.cumsum(games[order])
        median = float("nan")
        if len(cum) and cum[-1]:
            median = float(left[order][np.searchsorted(cum, cum[-1] / 2)])
        rows.append({"player": player, "games": total, "never_lost": _share(never, total),
                     "lost": total - never, "early_games": int(games[left >= EARLY].sum()),
                     "late_games": int(games[left <= LATE].sum()),
                     "early": _share(games[left >= EARLY].sum(), total),
                     "middle": _share(games[(left < EARLY) & (left > LATE)].sum(), total),
                     "late": _share(games[left <= LATE].sum(), total),
                     "median_cards_left": median})
    return pd.DataFrame(rows)


def _early_words(r) -> str:
    """Whether a player's games are lost early (fatal moves with 80 or more cards left more
    often than in the middle and late, each told apart), said only where the games say it."""
    n = int(r.games)
    spans = {"early": r.early, "middle": r.middle, "late": r.late}
    if not n or any(v != v for v in spans.values()):
        return ""
    counts = {k: int(round(v * n)) for k, v in spans.items()}
    top, _ = largest_share(counts, n)
    if top == "early":
        return ("Here the game is lost early, while most cards are hidden, which is where a "
                "player who cannot see them has least to go on (more fatal moves early than in "
                f"the middle and late, each told apart on these {count(n, 'game')}).")
    if counts["early"] > max(counts["middle"], counts["late"]):
        return (f"More of its fatal moves fall early than later, but on these "
                f"{count(n, 'game')} not by more than the sample tells apart: the game is not "
                "shown to be lost early.")
    if top is not None:  # the middle or the late span, told apart from each other
        span = (f"{EARLY - 1}–{LATE + 1} cards left" if top == "middle"
                else f"{LATE} or fewer cards left")
        return (f"Its fatal moves fall most often with {span}, more than in each other span "
                f"(told apart on these {count(n, 'game')}): the game is not lost early.")
    return ""


def _of_games(k: int, r) -> str:
    """``k`` of a player's walked games, with both denominators: of all its games, and of the
    ones it lost (``7 (35.0 % of the games; 46.7 % of the 15 lost)``)."""
    lost = f"; {pct(_share(k, r.lost), 1)} of the {r.lost:,} lost" if r.lost else ""
    return f"{k:,} ({pct(_share(k, r.games), 1)} of the games{lost})"


def _share(games, total: int) -> float:
    return games / total if total else float("nan")


def bandit_note(doc) -> str:
    """The bandit player, which the findings' stages do not play: where it was measured."""
    return ("The `bandit` fair player (capped solves of sampled layouts chosen by a bandit) is not "
            "in this ladder and was not measured in this run; its measurements, made on other "
            f"deals outside these findings, are in {doc('fair-play.md')}.")


def undo_note(doc) -> str:
    """Winning with the app's undo, which the findings' stages do not measure: where it was."""
    return ("How many moves a winnable deal takes for a player who uses the app's undo (and "
            "remembers every card an undone move uncovered), with the board's advice or without, "
            "was not measured in this run: it is measured by `benchmarks/bench_undo.py` on other "
            f"deals, and {doc('fair-play.md')} gives its figures.")


def fair_section(data: dict, img, doc=lambda name: f"`docs/{name}`") -> list[str]:
    """Section 4b: the fair-play ladder, if these findings have it; ``doc(name)`` links a page
    of the toolkit's documentation."""
    L = ["## 4b. What a player who sees only the app's cards can win", ""]
    if "fair-ladder" not in data:
        if data.get("summary", {}).get("options", {}).get("fair_deals") == 0:
            return L + ["Not measured in this run: its findings were derived with "
                        "`--fair-deals 0`.", ""]
        return L + ["Not in these findings yet: they were derived before the fair-play stage; "
                    "`halfmoon findings` on the census adds it.", ""]
    L += _ladder_lines(data["fair-ladder"], img, doc, data.get("summary", {}))
    if "fair-curve" in data and len(data["fair-curve"]):
        L += _curve_lines(data["fair-curve"], img)
    if "fair-fatal" in data and len(data["fair-fatal"]):
        L += _fatal_lines(data["fair-fatal"], img)
    return L


def _fair_deals_words(n: int, s: dict) -> str:
    """The fair-play deals in words: all the run's, or the first of the players' sample."""
    run = int(s.get("deals") or 0)
    asked = (s.get("options") or {}).get("fair_deals")
    if run and n >= run:
        return sample_words(n, run, asked, option="--fair-deals",
                            given="fair_deals" not in (s.get("scaled") or {}))
    if run and int(s.get("players_deals") or 0) >= run:  # the players took every deal
        return f"{count(n, 'deal')} of the run (the first in its seeded sample order)"
    return f"{count(n, 'deal')} of the run (the first of the players' seeded sample)"


def ladder_standings(t: pd.DataFrame) -> pd.Series:
    """Each row's standing (:func:`halfmoon.research.findings_data.standings`), as the data
    file keeps it; worked out the same way for findings kept before it was (None where they
    hold no comparison with the top player)."""
    from halfmoon.research.findings_data import standings

    if "standing" in t:
        return t["standing"]
    if "vs_top" not in t:
        return None
    return pd.Series(standings(t), index=t.index)


def _ladder_lines(t: pd.DataFrame, img, doc, s: Optional[dict] = None) -> list[str]:
    """The ladder's table and chart, and what the best fair player wins back."""
    t = t.reset_index(drop=True)
    n = int(t["deals"].iloc[0])
    L = [f"The solver sees all 104 cards; a player sees 20. On {_fair_deals_words(n, s or {})}, "
         "each fair player of `halfmoon players` — given only the "
         "tops, the reserve and how many of each card are still hidden, never the deal (see "
         f"{doc('fair-play.md')}) — against every card shown, paired by deal:", ""]
    median = "seconds_median" in t
    rows = []
    for r in t.itertuples():
        vs = "" if r.player in ("lookahead",) else (
            f"{signed(100 * r.vs_lookahead)} ({signed(100 * r.vs_lookahead_low)} "
            f"to {signed(100 * r.vs_lookahead_high)})")
        time = r.seconds_median if median else r.seconds_per_game
        rows.append(("every card shown (solver)" if r.player == "solver" else r.player,
                     f"{r.deals:,}", f"{r.won:,}", pct(r.win_rate), interval(r.ci_low, r.ci_high),
                     vs, "" if r.player == "solver" else duration(time)))
    L += table_lines(("player", "deals", "won", "win rate", f"{confidence_words()} interval",
                      "against lookahead (points)",
                      "time a game (median)" if median else "time a game (mean)"), rows)
    at = _samples_note(list(t["player"]))
    L += ["", *([at, ""] if at else []), img("fair-ladder.png", "the fair-play ladder"), ""]
    look, solver = t[t["player"] == "lookahead"], t[t["player"] == "solver"]
    if (t["player"] != "solver").any() and len(solver):
        L += [_best_sentence(t, look.iloc[0] if len(look) else None, solver.iloc[0]), ""]
    L += [bandit_note(doc), "", undo_note(doc), ""]
    return L


def _samples_note(names: list[str]) -> str:
    """What the ``NAME@K`` rows of the table are, in words ("" when there are none)."""
    from solver import player_named

    at: dict[str, list[int]] = {}
    for name in names:
        base, _, k = name.partition("@")
        if k.isdigit():
            at.setdefault(base, []).append(int(k))
    said = []
    for base, ks in at.items():
        rows = " and ".join(f"`{base}@{k}`" for k in ks)
        said.append(f"{rows} {'is' if len(ks) == 1 else 'are'} `{base}` sampling "
                    f"{' and '.join(f'{k:,}' for k in ks)} layouts a decision instead of its "
                    f"{player_named(base).samples:,}")
    return ("; ".join(said) + ".") if said else ""


def standing_words(t: pd.DataFrame) -> tuple[list[str], str]:
    """The fair players of the highest win rate (one, or a tie) and a sentence saying where
    they stand, from the table's standings (every fair player of the table a candidate,
    lookahead too): a best only where told apart from each other player."""
    from halfmoon.research.findings_data import BEST, CLOSE, HIGHEST, TIED

    fair = t[t["player"] != "solver"]
    st = ladder_standings(t)
    high = float(fair["win_rate"].max())
    if st is None:  # findings kept before the differences from the top were
        top = [str(p) for p in fair.loc[fair["win_rate"] == high, "player"]]
        if len(top) > 1:
            return top, (f"The fair players with the highest win rate here tie "
                         f"({name_list([f'`{p}`' for p in top])}, {100 * high:.2f} % each): "
                         "none is told apart as the best.")
        return top, (f"The fair player with the highest win rate here is `{top[0]}` "
                     f"({100 * high:.2f} %); these findings keep no paired difference of the "
                     "others from it, so none is called the best.")
    st = st[fair.index]
    top = [p for p, v in zip(fair["player"], st) if v in (BEST, HIGHEST, TIED)]
    close = name_list([f"`{p}`" for p, v in zip(fair["player"], st) if v == CLOSE])
    if len(top) > 1:
        said = (f"The fair players with the highest win rate here tie "
                f"({name_list([f'`{p}`' for p in top])}, {100 * high:.2f} % each): none is told "
                "apart as the best.")
        if close:
            said += f" Not told apart from `{top[0]}` either: {close}."
        return top, said
    if not close:
        return top, (f"The best fair player here is `{top[0]}` ({100 * high:.2f} %), told apart "
                     "from each other.")
    return top, (f"The fair player with the highest win rate here, `{top[0]}` "
                 f"({100 * high:.2f} %), is not told apart from {close} on these deals: none is "
                 "told apart as the best.")


def _best_sentence(t: pd.DataFrame, look, solver) -> str:
    """Where the fair players stand (:func:`standing_words`), and what the one of the highest
    win rate wins back of the gap between lookahead and every card shown: a gain and its
    share claimed only where told apart."""
    from halfmoon.research.findings_data import BEST

    top, said = standing_words(t)
    if look is None:
        return said
    gap = float(solver["win_rate"] - look["win_rate"])
    if "vs_lookahead_low" in solver:
        gain = points(gap, solver["vs_lookahead_low"], solver["vs_lookahead_high"])
        said = f"Every card shown wins {gain} more than lookahead on these deals. {said}"
    if "lookahead" in top:
        return f"{said} No fair player here wins more than lookahead."
    r = t[t["player"] == top[0]].iloc[0]
    st = ladder_standings(t)
    best = st is not None and st[r.name] == BEST
    diff = points(r.vs_lookahead, r.vs_lookahead_low, r.vs_lookahead_high)
    who = "It" if best else f"`{r.player}`"
    if not told_apart(r.vs_lookahead_low, r.vs_lookahead_high):
        return f"{said} {who} is not told apart from lookahead: {diff}, an interval holding 0."
    if r.vs_lookahead < 0:
        return f"{said} {who} wins less than lookahead: {diff}."
    share = (f": {100 * r.vs_lookahead / gap:.0f} % of what seeing the hidden cards is worth"
             if gap > 0 else "")
    return f"{said} {who} wins back {diff} against lookahead{share}."


def _curve_lines(c: pd.DataFrame, img) -> list[str]:
    """The fair player's win rate against its samples, with what a game costs at each."""
    costs = ", ".join(f"{int(r.samples)}: {duration(r.seconds_per_game)}" for r in c.itertuples())
    return ["The fair player's win rate against the layouts it samples a decision (the cost of a "
            "game grows with them: " + costs + " on one core):", "",
            img("fair-curve.png", "win rate against samples"), ""]


def _fatal_lines(fatal: pd.DataFrame, img) -> list[str]:
    """Where the fair players' games are lost: the table, the chart and what they say."""
    f = fatal_summary(fatal)
    L = ["Where their games are lost. On the deals the solver wins (it never loses one), each "
         "game's fatal move is the first whose position the solver proves lost, found by "
         "bisection along the game; the share of the games on winnable deals, by the cards left "
         "before it (section 3 has the same for the random and the greedy player's games):", ""]
    L += table_lines(("player", "games on winnable deals", "never lost",
                      f"fatal with {EARLY}+ cards left", f"{EARLY - 1}–{LATE + 1}",
                      f"{LATE} or fewer", "median cards left at the fatal move"),
                     [(r.player, f"{r.games:,}", pct(r.never_lost, 1), pct(r.early, 1),
                       pct(r.middle, 1), pct(r.late, 1), f"{r.median_cards_left:.0f}")
                      for r in f.itertuples()])
    shown, every = fatal_shown(fatal)
    if len(shown) < len(every):
        left = name_list([f"`{p}`" for p in every if p not in shown])
        L += ["", f"The chart draws only {name_list([f'`{p}`' for p in FATAL_SHOWN])} of the "
              "table's players, four lines at most so that none hides another: here "
              f"{len(shown)} of its {len(every)} ({name_list([f'`{p}`' for p in shown])}; not "
              f"{left})."]
    L += ["", img("fair-fatal.png", "where the fair players' games are lost"), ""]
    top = f[f["player"] == "fair"] if (f["player"] == "fair").any() else f.iloc[-1:]
    r = top.iloc[0]
    said = (f"The `{r.player}` player loses {r.lost:,} of its {count(r.games, 'game')} on "
            f"winnable deals ({pct(1 - r.never_lost, 1)}). Of all {count(r.games, 'game')}, "
            f"{_of_games(r.early_games, r)} lost by a move made with {EARLY} or more cards "
            f"left, {_of_games(r.late_games, r)} with {LATE} or fewer.")
    said += " " + _early_words(r)
    L += [said, ""]
    return L
