"""The wording rules of the pages (halfmoon.report.wording), each fed a case where the claim
must not be made, and the pages' sentences that follow them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from halfmoon.report.fairplay import fair_section
from halfmoon.report.wording import (
    count,
    largest_share,
    points,
    sample_words,
    signed,
    told_apart,
)
from halfmoon.research.stats import paired_difference


def _img(name, alt):
    return f"![{alt}]({name})"


# --- counts agree in number ---------------------------------------------------------------
def test_a_count_of_one_takes_the_singular():
    assert count(1, "deal") == "1 deal"
    assert count(2, "deal") == "2 deals"
    assert count(1, "loss", "losses") == "1 loss"
    assert count(28_627, "loss", "losses") == "28,627 losses"
    assert "1 deals" not in sample_words(1, 5)


# --- no signed zero ---------------------------------------------------------------------
def test_a_figure_rounding_to_zero_has_no_sign():
    assert signed(-0.001) == "0.00" and signed(0.004) == "0.00"
    assert signed(-0.006) == "-0.01" and signed(0.47) == "+0.47"
    # the interval of the page that said "+0.47 (−0.00 to +0.94)"
    text = points(0.0047, -0.0000001, 0.0094)
    assert text == "+0.47 points (0.00 to +0.94)"
    assert "-0.00" not in text and "+0.00" not in text


# --- units named ------------------------------------------------------------------------
def test_a_difference_of_shares_names_its_unit():
    assert points(0.1, -0.0745, 0.2822) == "+10.00 points (-7.45 to +28.22)"


# --- a difference claimed only when its interval excludes 0 ------------------------------
def test_an_interval_holding_zero_tells_nothing_apart():
    assert not told_apart(-0.0745, 0.2822)
    assert not told_apart(0.0, 0.2)  # touching 0 is not excluding it
    assert not told_apart(float("nan"), 0.3)
    assert told_apart(0.01, 0.2) and told_apart(-0.3, -0.02)


# --- a sample only when one was drawn -----------------------------------------------------
def test_a_stage_that_took_every_deal_is_not_called_a_sample():
    whole = sample_words(3_000, 3_000, 100_000, option="--players-deals")
    assert whole.startswith("all 3,000 deals of the run")
    assert "sample" not in whole
    # the default 100,000 capped by a run of 3,000: said, not hidden
    assert "`--players-deals 100,000` asks for more than the run holds" in whole
    assert "asks for more" not in sample_words(3_000, 3_000, 3_000)
    part = sample_words(200, 3_000, 200)
    assert part == "a seeded random sample of 200 of the run's 3,000 deals"
    assert "all" not in part.split()


def test_the_players_section_says_all_the_deals_of_a_small_run():
    from halfmoon.report.findings import _players_lines

    pl = pd.DataFrame([{"player": "solver", "deals": 300, "wins": 290, "win_rate": 290 / 300,
                        "ci_low": 0.9, "ci_high": 0.98, "of_winnable": 1.0,
                        "mean_cards_left": 0.0}])
    s = {"deals": 300, "players_deals": 300, "options": {"players_deals": 100_000}}
    text = "\n".join(_players_lines(pl, s, _img))
    assert "all 300 deals of the run" in text and "seeded" not in text
    assert "a seeded sample of the census" not in text
    text = "\n".join(_players_lines(pl, dict(s, deals=3_000), _img))
    assert "a seeded random sample of 300 of the run's 3,000 deals" in text


# --- a best only when told apart from each other -----------------------------------------
def _ladder(rows, games: dict) -> pd.DataFrame:
    """A fair-play ladder as research.findings.fair_ladder makes it, from each player's games
    (1 a win) on the same deals."""
    top = max((p for p in games if p != "solver"), key=lambda p: games[p].mean())
    out = []
    for p in rows:
        a = games[p].astype(float)
        d = paired_difference(a, games["lookahead"].astype(float))
        t = (0.0, 0.0, 0.0) if p == top else paired_difference(a, games[top].astype(float))
        out.append({"player": p, "deals": len(a), "won": int(a.sum()), "win_rate": a.mean(),
                    "ci_low": 0.0, "ci_high": 1.0, "vs_lookahead": d[0], "vs_lookahead_low": d[1],
                    "vs_lookahead_high": d[2], "vs_top": t[0], "vs_top_low": t[1],
                    "vs_top_high": t[2], "seconds_per_game": 0.5})
    return pd.DataFrame(out)


def test_three_players_tied_at_5_of_20_are_no_best_and_win_nothing_back():
    n = 20
    won = lambda k, at=0: np.roll(np.r_[np.ones(k), np.zeros(n - k)], at)  # noqa: E731
    games = {"solver": won(19), "lookahead": won(3), "rollout": won(5, 3), "uct": won(5, 6),
             "fair": won(5, 9), "greedy": won(2)}
    t = _ladder(["solver", "greedy", "lookahead", "rollout", "uct", "fair"], games)
    text = "\n".join(fair_section({"fair-ladder": t, "summary": {"deals": 3_000}}, _img))
    assert "the best fair player" not in text.lower()
    assert "wins back" not in text and "of what seeing the hidden cards is worth" not in text
    assert "tie (`rollout`, `uct` and `fair`, 25.00 % each): none is told apart as the best" \
        in text
    assert "is not told apart from lookahead: +10.00 points (" in text
    assert "an interval holding 0" in text


def test_a_gain_told_apart_is_said_with_its_share_of_the_gap():
    n = 400
    games = {"solver": np.r_[np.ones(380), np.zeros(20)], "lookahead": np.r_[np.ones(100),
                                                                             np.zeros(300)],
             "fair": np.r_[np.ones(200), np.zeros(200)], "greedy": np.r_[np.ones(50),
                                                                           np.zeros(350)]}
    assert all(len(g) == n for g in games.values())
    t = _ladder(["solver", "greedy", "lookahead", "fair"], games)
    text = "\n".join(fair_section({"fair-ladder": t, "summary": {"deals": 400}}, _img))
    assert "The best fair player here is `fair` (50.00 %)" in text
    assert "It wins back +25.00 points (" in text and ": 36 % of what seeing" in text
    assert "On all 400 deals of the run" in text
    small = dict(deals=3_000, players_deals=3_000)
    text = "\n".join(fair_section({"fair-ladder": t, "summary": small}, _img))
    assert "On 400 deals of the run (the first in its seeded sample order)" in text
    assert "players' seeded sample" not in text  # the players took every deal: no sample


# --- "early" only when told apart from each other span ------------------------------------
def _fatal(early: int, middle: int, late: int, never: int) -> pd.DataFrame:
    rows = [("fatal", "90", early), ("fatal", "50", middle), ("fatal", "20", late),
            ("never lost", "", never), ("unresolved", "", 0)]
    return pd.DataFrame([{"player": "fair", "outcome": o, "cards_left": c, "games": g}
                         for o, c, g in rows])


def _fair_with_fatal(fatal) -> str:
    ladder = pd.DataFrame([{"player": p, "deals": 18, "won": w, "win_rate": w / 18,
                            "ci_low": 0.0, "ci_high": 1.0, "vs_lookahead": 0.0,
                            "vs_lookahead_low": -0.3, "vs_lookahead_high": 0.3,
                            "seconds_per_game": 0.1}
                           for p, w in (("solver", 18), ("lookahead", 5), ("fair", 6))])
    return "\n".join(fair_section({"fair-ladder": ladder, "fair-fatal": fatal}, _img))


def test_lost_early_is_not_said_when_the_middle_holds_more():
    # the page that said "lost early" with 33.3 % early against 38.9 % in the middle
    text = _fair_with_fatal(_fatal(6, 7, 3, 2))
    assert "Here the game is lost early" not in text
    assert "not shown to be lost early" not in text and "fall most often" not in text
    # the census's own: 25.6 % early, 39.8 % in the middle, 8.3 % late of 2,000 games
    text = _fair_with_fatal(_fatal(512, 796, 166, 526))
    assert "Here the game is lost early" not in text
    assert ("Its fatal moves fall most often with 79–32 cards left, more than in each other "
            "span (told apart on these 2,000 games): the game is not lost early.") in text


def test_lost_early_is_not_said_when_the_largest_share_is_not_told_apart():
    assert largest_share({"early": 7, "middle": 6, "late": 3}, 18)[0] is None
    text = _fair_with_fatal(_fatal(7, 6, 3, 2))
    assert "Here the game is lost early" not in text
    assert "not shown to be lost early" in text


def test_lost_early_is_said_when_told_apart_from_each_other_span():
    assert largest_share({"early": 150, "middle": 30, "late": 20}, 220)[0] == "early"
    text = _fair_with_fatal(_fatal(150, 30, 20, 20))
    assert "Here the game is lost early" in text and "each told apart on these 220 games" in text


# --- the recheck says what it held --------------------------------------------------------
def _recheck_text(counts: dict, held=None) -> str:
    from halfmoon.report.findings import _recheck_lines

    s = {"recheck": counts, "recheck_deals": sum(counts.values()), "deals": 3_000,
         "recheck_limit": 10.0, "options": {"recheck": 0.01}}
    if held is not None:
        s["recheck_held"] = held
    return "\n".join(_recheck_lines(s))


def test_no_loss_is_said_put_to_the_model_when_the_recheck_held_none():
    counts = {"wins replayed": 30, "wins not replayed": 0, "losses confirmed": 0,
              "losses not confirmed within the limit": 0, "disagreements": 0, "unresolved": 0}
    text = _recheck_text(counts, {"wins": 30, "losses": 0})
    assert "every loss" not in text and "losses put to" not in text
    assert "it held no loss, so none was put to the CP-SAT model" in text
    assert "the recorded line of each of its 30 wins replayed" in text
    assert "a seeded random sample of 30 of the run's 3,000 deals" in text.lower()
    # findings kept before the held verdicts were: read from the counts
    assert "it held no loss" in _recheck_text(counts)
    one = _recheck_text(dict(counts, **{"losses confirmed": 1}), {"wins": 30, "losses": 1})
    assert "its one loss put to the CP-SAT model" in one and "1 losses" not in one


# --- the command as typed -----------------------------------------------------------------
def test_the_batch_command_adds_no_option_never_typed():
    from halfmoon.research.findings import census_command

    m = {"source": {"kind": "range", "start": 10_000, "stop": 13_000}, "chunk_size": 250,
         "budget": 5_000_000, "lines": "all", "deals": {"count": 3_000}}
    # 250 is the chunk size a run of 3,000 deals gets untold: not typed, not quoted
    assert census_command(m, "run") == "halfmoon batch --range 10000:13000 --out run"
    # what made the run differ from the defaults is quoted, as it was typed
    m.update(chunk_size=1000, budget=20_000, lines="none")
    assert census_command(m, "run") == ("halfmoon batch --range 10000:13000 --out run "
                                        "--budget 20000 --lines none --chunk-size 1000")


# --- the data list names only the columns a file holds ---------------------------------
def test_the_data_list_names_no_column_a_file_lacks(tmp_path):
    from halfmoon.report.findings import _columns_held
    from halfmoon.research.findings import FAIR_FILES

    what = FAIR_FILES["fair-ladder.parquet"]
    old = tmp_path / "old.parquet"
    pd.DataFrame({"player": ["fair"], "vs_lookahead": [0.1]}).to_parquet(old)
    assert "vs_top" not in _columns_held(old, what)
    new = tmp_path / "new.parquet"
    pd.DataFrame({"player": ["fair"], "vs_top": [0.0]}).to_parquet(new)
    assert "vs_top (the same against the fair player" in _columns_held(new, what)
