"""Section 4c of the findings page: how hard a deal is for a person (the difficulty levels).

From ``levels.parquet`` (the players' sample given its predicted level:
:mod:`halfmoon.research.findings_levels`) and the difficulty model's own check on held-out
deals (:func:`halfmoon.batch.difficulty.model_check`): the levels across the sample with
their intervals, the measured win rate by predicted level (the calibration), what the deals
of each level have in common, and deals of each level to play on the board.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pandas as pd

from halfmoon.batch.difficulty import LEVELS, UNDO_MOVES
from halfmoon.research.difficulty import MEASURE, REFERENCE
from halfmoon.research.stats import confidence_words, current_z, wilson_interval

from .style import interval, pct, table_lines

REF_SAMPLES = int(REFERENCE.split("@")[1])  # the reference player's layouts a decision
REF_GAMES = dict(MEASURE)[REFERENCE]  # its games a deal in the measure
# the signals the page compares across levels, in words
TRAITS = {
    "greedy_won": "greedy wins it (share)",
    "tuned_won": "the tuned player wins it (share)",
    "greedy_cards_left": "cards greedy leaves (mean)",
    "undo_greedy_log_moves": f"moves greedy with undo needs (mean; {2 * UNDO_MOVES} where not "
                             f"won in {UNDO_MOVES})",
    "start_moves": "legal moves at the start",
    "free_classes": "classes with a move at the start",
    "top_faces": "faces on the pile tops",
    "reserve_faces": "faces in the reserve",
    "same_pile_copies": "a pile holding both copies of a card",
    "max_pile_faces": "faces in the fullest-faced pile",
}


def _levels(d: Path) -> Optional[pd.DataFrame]:
    """The levels stage's data kept in ``d`` (None where there is none)."""
    from halfmoon.research.findings_levels import LEVELS_FILE

    path = Path(d) / LEVELS_FILE
    return pd.read_parquet(path) if path.exists() else None


def levels_lines(d: Path, img, doc) -> list[str]:
    """The section's lines ([] where the findings have no levels: a model that could not be
    used when they were derived, or findings made before the stage)."""
    from halfmoon.research.findings_levels import examples, level_shares, level_traits

    levels = _levels(d)
    if levels is None:
        return []
    if not len(levels):
        return []
    ci = f"{confidence_words()} interval"
    L = ["## 4c. How hard a deal is for a person", "",
         f"Each deal of the players' sample ({len(levels):,} deals) given its difficulty for a "
         "player who sees only the app's cards and does not undo: the chance that the fair "
         f"player ({REF_SAMPLES} layouts a decision) wins it, predicted from cheap signals (the "
         "simple players' games, greedy's game with undo, the deal's features) by the model "
         f"of {doc('difficulty.md')}; its level: {_level_words()}. The solver's verdict comes "
         "first: a lost deal cannot be won.", ""]
    sh = level_shares(levels)
    L += table_lines(("level", "deals", "share", ci, "predicted chance (mean)"),
                     [(r.level, f"{r.deals:,}", pct(r.share, 1), interval(r.ci_low, r.ci_high, 1),
                       pct(r.chance, 1)) for r in sh.itertuples()])
    L += [""] + _calibration_lines()
    traits = level_traits(levels)
    if len(traits):
        names = list(dict.fromkeys(traits["level"]))
        L += ["**What the deals of a level have in common** (means over the sample, with their "
              f"{ci}s, {current_z():.2f} standard errors):", ""]
        rows = []
        for sig, words in TRAITS.items():
            t = traits[traits["signal"] == sig].set_index("level")
            rows.append([words] + [f"{t.loc[n, 'mean']:.2f} ({t.loc[n, 'ci_low']:.2f} – "
                                   f"{t.loc[n, 'ci_high']:.2f})" for n in names])
        L += table_lines(("signal", *names), rows) + [""]
        L += [_trait_words(traits, names), ""]
    ex = examples(levels)
    L += ["**Deals to play** (the smallest-numbered of each level in the sample; `halfmoon play "
          "CODE` opens one on the board):", ""]
    L += table_lines(("level", "code", "deal", "predicted chance"),
                     [(r.level, f"`{r.code}`", f"{r.deal:,}",
                       "—" if r.chance != r.chance else
                       f"{pct(r.chance, 0)} ({interval(r.low, r.high, 0)})")
                      for r in ex.itertuples()])
    return L + [""]


def _level_words() -> str:
    """The levels and the chances they take, from :data:`LEVELS` (easiest first)."""
    out, above = [], None
    for name, least in LEVELS:
        lo, hi = f"{100 * least:g} %", None if above is None else f"{100 * above:g} %"
        out.append(f"{name} ({lo} or more)" if hi is None else
                   f"{name} (under {hi})" if not least else f"{name} ({lo} to {hi})")
        above = least
    return ", ".join(out)


def section_numbers(d: Path) -> list:
    """Every number the section may state: its tables' (from the data in ``d``), the
    model's check and the method's constants (what a test holds the page to)."""
    from halfmoon.batch.difficulty import model_check
    from halfmoon.research.findings_levels import examples, level_shares, level_traits

    levels = _levels(d)
    if levels is None:
        return []
    out: list = [REF_SAMPLES, REF_GAMES, current_z(), UNDO_MOVES, 2 * UNDO_MOVES,
                 *(100 * least for _, least in LEVELS), len(levels)]
    for f in (level_shares(levels), level_traits(levels), examples(levels)):
        for col in f.columns:
            out += [v for v in f[col].tolist() if isinstance(v, (int, float))]
    check = model_check() or {}
    for r in check.get("calibration", []):
        out += [v for v in r.values() if isinstance(v, (int, float))]
        if r["games"]:
            out += list(wilson_interval(r["won"], r["games"]))
    out += [check.get(k) for k in ("heldout_won", "spearman_rating") if k in check]
    return out


def _calibration_lines() -> list[str]:
    from halfmoon.batch.difficulty import model_check

    check = model_check()
    if not check or not check.get("calibration"):
        return []
    rows = [(r["level"], f"{r['deals']:,}", pct(r["predicted"], 1),
             f"{r['won']:,} of {r['games']:,}", pct(r["rate"], 1),
             interval(*wilson_interval(r["won"], r["games"]), 1))  # at the page's confidence
            for r in check["calibration"] if r["deals"]]
    L = [f"**The measured win rate by level** (the model's check on "
         f"{check.get('heldout_won', 0):,} held-out deals the solver wins, not this run's: the "
         f"fair player's own games, {REF_GAMES} a deal, on the deals of each predicted "
         "level):", ""]
    L += table_lines(("predicted level", "deals", "predicted chance (mean)", "fair games won",
                      "win rate", f"{confidence_words()} interval"), rows)
    L += ["", f"Rank correlation (Spearman) of the predicted and the measured difficulty on those "
              f"deals: {check.get('spearman_rating', float('nan')):.2f}.", ""]
    return L


def _trait_words(traits: pd.DataFrame, names: list) -> str:
    """The signals whose intervals at the easiest and the hardest level present are apart
    (told apart: said with both means); the others are said not to be told apart."""
    if len(names) < 2:
        return "One level only: nothing to compare."
    a, b = names[0], names[-1]
    apart, not_apart = [], []
    for sig, words in TRAITS.items():
        t = traits[traits["signal"] == sig].set_index("level")
        if t.loc[b, "ci_high"] < t.loc[a, "ci_low"] or t.loc[a, "ci_high"] < t.loc[b, "ci_low"]:
            apart.append(f"{words}: {t.loc[a, 'mean']:.2f} against {t.loc[b, 'mean']:.2f}")
        else:
            not_apart.append(words)
    if not apart:
        return f"No signal is told apart between the {a} and the {b} deals."
    text = (f"Told apart between the {a} and the {b} deals (intervals apart), {a} first: "
            + "; ".join(apart) + ".")
    if not_apart:
        text += " Not told apart: " + "; ".join(not_apart) + "."
    return text
