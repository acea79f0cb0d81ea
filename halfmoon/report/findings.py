"""The findings page: ``docs/findings.md`` and its charts, from the data in ``docs/findings/``.

    python -m halfmoon.report.findings --data docs/findings --page docs/findings.md
    halfmoon findings RUN              # derives the data from a run first, into RUN/_findings/
    halfmoon findings census --out docs    # the shipped page (make findings)

Every chart is drawn from the small data files that :func:`halfmoon.research.findings.save_data`
writes, on a given matplotlib Axes, so that the page and ``notebooks/findings.ipynb`` draw
the same pictures from the same data.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence, Union

import pandas as pd

from halfmoon.game.errors import HalfMoonError
from halfmoon.research.deadlocks import KINDS, class_table, kind_table, kind_words
from halfmoon.research.stats import at_confidence, confidence_words, duration

from .fairplay import fair_section
from .findings_charts import common_deals, draw_charts, win_rate_order
from .findings_head import head_lines, versions
from .findings_levels import levels_lines
from .style import interval, pct, table_lines
from .wording import count, points, sample_words


def load_data(data_dir: Union[str, Path]) -> dict:
    """The findings data (summary and tables) in ``data_dir``; an error naming what is missing."""
    from halfmoon.research.findings import DATA_FILES, FAIR_FILES

    d = Path(data_dir)
    missing = [name for name in DATA_FILES if not (d / name).exists()]
    if missing:
        raise HalfMoonError(f"{data_dir}: no findings data ({', '.join(missing)} missing); "
                            "make it with 'halfmoon findings CENSUS'")
    out = {"summary": json.loads((d / "summary.json").read_text(encoding="utf-8"))}
    for name in [*DATA_FILES, *(n for n in FAIR_FILES if (d / n).exists())]:
        if name.endswith(".parquet"):
            out[name[: -len(".parquet")]] = pd.read_parquet(d / name)
    return out


# --- the page -------------------------------------------------------------------------
def example_layouts(losses: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """For each kind of deadlock, its example (the smallest deal number of that kind): its
    code and the layout of only the cards of its deadlock classes (bottom first), the
    cards that cannot be cleared."""
    from halfmoon.game.deal import Deal
    from halfmoon.game.layouts import format_layout
    from halfmoon.research.deadlocks import CLASSES, FACES

    out = {}
    for kind, row in kind_table(losses).iterrows():
        if kind not in KINDS:
            continue
        deal = Deal.from_number(int(row["example"]))
        cls = losses.loc[losses["deal"] == row["example"], "deadlock"].iloc[0].split()
        keep = {CLASSES.index(c) for c in cls}

        def of(card) -> bool:
            return (FACES if card.is_face else min(card.rank, 11 - card.rank) - 1) in keep

        proj = Deal(piles=[[c for c in p if of(c)] for p in deal.piles],
                    reserve=[c if c is not None and of(c) else None for c in deal.reserve])
        title = f"{deal.code} ({int(row['example'])}), {' '.join(cls)} only"
        out[kind] = (title, format_layout(proj))
    return out


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def write_page(data_dir: Union[str, Path], page: Union[str, Path], formats=()) -> Path:
    """Draw the charts into ``data_dir`` and write the page ``page`` (links relative to it);
    with ``formats`` (:func:`.exports.parse_formats`), its tables also as CSV and LaTeX in
    ``data_dir/tables/`` and its charts also as SVG and PDF beside the PNGs."""
    d = Path(data_dir)
    data = load_data(d)
    # every interval the page, its charts and its tables give: at the data's confidence
    with at_confidence(float(data["summary"].get("confidence", 0.95))):
        return _write_page(d, data, page, formats)


def _write_page(d: Path, data: dict, page: Union[str, Path], formats=()) -> Path:
    from halfmoon.research.provenance import provenance, provenance_words

    from .exports import write_tables

    made_by = provenance_words(provenance())
    draw_charts(data, d, formats, made_by)
    here = Path(page).resolve().parent
    rel = Path(*d.resolve().relative_to(here).parts) if d.resolve().is_relative_to(here) \
        else d.resolve()

    def img(name: str, alt: str) -> str:
        return f"![{alt}]({rel.as_posix()}/{name})"

    def doc(name: str) -> str:  # a page of the documentation: linked where it lies beside
        if (Path(page).parent / name).exists():
            return f"[{name}]({name})"
        return f"the toolkit's `docs/{name}`"

    s = data["summary"]
    L = head_lines(s)
    L += _win_rate_lines(s, img)
    L += _deadlock_lines(data["losses"], img, s.get("budget"))
    L += _feature_lines(data["features"], s["deals"], img)
    L += _forgiveness_lines(data, s, img)
    L += _players_lines(data["players"], s, img)
    L += fair_section(data, img, doc)
    L += levels_lines(d, img, doc)
    L += _difficulty_lines(data["difficulty"], data["hardest"], s, img)
    L += _recheck_lines(s)
    L += _data_lines(d, rel, s, formats)
    path = Path(page)
    path.write_text("\n".join(L), encoding="utf-8")
    write_tables("\n".join(L), d / "tables", formats, made_by, path.name)
    return path


def _ci() -> str:
    """An interval's heading, at the page's confidence: ``95 % interval``."""
    return f"{confidence_words()} interval"


def _win_rate_lines(s: dict, img) -> list[str]:
    """Section 1: how often a deal can be won, and how many are dead on arrival."""
    return ["## 1. How often Half Moon can be won", "",
            f"**{pct(s['win_rate'], 3)}** of deals can be won "
            f"({confidence_words()} Wilson interval "
            f"{interval(s['win_low'], s['win_high'], 3)}; {count(s['wins'], 'win')} and "
            f"{count(s['losses'], 'loss', 'losses')} of {count(s['deals'], 'deal')}, "
            f"{s['unresolved']:,} unresolved).", "",
            "**Dead on arrival** (no legal move at the start): "
            f"{count(s['dead_on_arrival'], 'deal')}, {pct(s['doa_rate'], 4)} "
            f"(interval {interval(s['doa_low'], s['doa_high'], 4)}).", "",
            img("win-rate.png", "win rate as the sample grows"), "",
            f"The win rate of the run's first n deals, {win_rate_order(s)}, with "
            "its interval, which narrows as one over the square root of n.", ""]


def _deadlock_lines(losses: pd.DataFrame, img, budget: Optional[int] = None) -> list[str]:
    """Section 2, first part: the kinds of deadlock, the classes in them, an example of each;
    the budget each projection had (the run's), and how ``halfmoon solve`` looks the same way."""
    from halfmoon.research.deadlocks import CLASSES

    rows = [(kind_words(kind), f"{int(r['losses']):,}", pct(r["share"], 1),
             interval(r["ci_low"], r["ci_high"], 1), f"{int(r['example'])}")
            for kind, r in kind_table(losses).iterrows()]
    ct = class_table(losses)
    several = int((losses["minimal_sets"] > 1).sum())
    unsettled = int((losses["kind"] == "unresolved").sum())
    L = ["## 2. Why deals are lost", "",
         "A lost deal's **deadlock** is the smallest set of classes (J+Q+K, A+10, 2+9, 3+8, 4+7, "
         "5+6) whose cards alone, in their places, already cannot be cleared: the solver settles "
         "the deal projected onto each set of classes, one class, then two, and so on "
         "(`halfmoon.research.deadlocks`; a win of the deal is a win of every projection, so a "
         "lost projection proves the loss)" + _why_budget_words(budget) + ". Over the run's "
         f"{count(len(losses), 'loss', 'losses')}:", ""]
    L += table_lines(("deadlock", "losses", "share", _ci(), "example deal"), rows)
    L += ["", img("deadlocks.png", "kinds of deadlock"), "",
          "How often each class takes part in the deadlock: " + ", ".join(
              f"{c} {pct(ct.loc[c, 'share'], 1)}" for c in ("J+Q+K",) + CLASSES[:5]) + ". "
          f"{_plural(several, 'loss has', 'losses have')} more than one smallest set; "
          f"{_plural(unsettled, 'has', 'have')} a projection the budget did not settle.", "",
          "An example of each kind (the run's lowest-numbered deal with it), with only the "
          "cards of its deadlock classes, in their places (layout notation, bottom card "
          "first):", "",
          "<details><summary>the examples</summary>", ""]
    for kind, (title, layout) in example_layouts(losses).items():
        L += [f"{kind_words(kind).capitalize()}: {title}", "", "```", layout.rstrip("\n"), "```",
              ""]
    L += ["</details>", ""]
    return L


def _why_budget_words(budget: Optional[int]) -> str:
    """The budget of the deadlock stage's projections, and the ``solve`` option that looks the
    same way (its default look is bounded in all, so it may stop short of the page's answer)."""
    if not budget:
        return ""
    return (f", each projection given the run's budget of {int(budget):,} positions with no "
            f"bound in all: `halfmoon solve DEAL --why-budget {int(budget)}` gives a loss's "
            "deadlock the same way (without it, `solve` takes a shorter look, bounded in all, "
            "and says where it stops)")


def _feature_lines(ft: pd.DataFrame, deals: int, img) -> list[str]:
    """Section 2, second part: the loss rate by simple features of the deal."""
    common = common_deals(deals)
    L = ["**Loss rate by simple features of the deal**: legal moves at the start, face cards on "
         "the pile tops and in the reserve, classes with a legal move, cards whose two copies lie "
         "in the same pile, the most face cards in one pile. The chart pools neighbouring values "
         f"until each rate rests on at least {common:,} deals (and names the values pooled); the "
         "deals behind each rate are written along its top.", "",
         img("loss-by-feature.png", "loss rate by feature"), ""]
    rows = []
    for f in dict.fromkeys(ft["feature"]):
        t = ft[(ft["feature"] == f) & (ft["deals"] >= common)]
        if t.empty:
            continue
        for _, r in t.iloc[sorted({0, len(t) // 2, len(t) - 1})].iterrows():
            rows.append((f.replace("_", " "), int(r["value"]), f"{int(r['deals']):,}",
                         pct(r["loss_rate"]), interval(r["ci_low"], r["ci_high"])))
    L += [f"Lowest, middle and highest value of each seen in at least {common:,} deals:", ""]
    L += table_lines(("feature", "value", "deals", "lost", _ci()), rows)
    L += [""]
    return L


def _forgiveness_lines(data: dict, s: dict, img) -> list[str]:
    """Section 3: how often a move loses a winnable game, by cards left, and where the fatal
    move is made."""
    from halfmoon.research.forgiveness import fatal_points

    rm = data["random-move"]
    uni = rm[(rm["measure"] == "uniform move")].set_index("player")
    own = rm[(rm["measure"] == "own move")].set_index("player")
    allp = uni.loc["all"] if "all" in uni.index else uni.iloc[0]
    fp = fatal_points(data["forgiveness-games"].assign(start="win"))
    never = fp[fp["outcome"] == "never lost"].set_index("player")
    deals = sample_words(s["forgiveness_deals"], s["wins"],
                         (s.get("options") or {}).get("forgiveness_deals"), "winnable deal",
                         option="--forgiveness-deals", given=_given(s, "forgiveness_deals"))
    L = ["## 3. How forgiving the game is", "",
         f"Along the games of the random and the greedy player on {deals}, every legal move "
         "of every position "
         f"still winnable was settled ({s['forgiveness_positions']:,} positions; "
         "`halfmoon.research.forgiveness`). Intervals of means over positions are clustered by "
         "deal.", "",
         f"- A uniformly random legal move from a winnable position **loses it with chance "
         f"{pct(allp['loses'])}** ({interval(allp['ci_low'], allp['ci_high'])}; mean over "
         f"{count(int(allp['n']), 'position')} of both players' games)."]
    L += [f"- The {p} player's own moves from winnable positions lose the game {pct(r['loses'])} "
          f"of the time ({interval(r['ci_low'], r['ci_high'])}, {count(int(r['n']), 'move')}); "
          f"its game is never lost on {pct(never.loc[p, 'share'], 1)} of the deals "
          f"({interval(never.loc[p, 'ci_low'], never.loc[p, 'ci_high'], 1)})."
          for p, r in own.iterrows() if p in never.index]
    kb = data["forgiveness-buckets"]
    kb = kb[kb["player"] == "all"] if (kb["player"] == "all").any() else kb
    L += ["", "Share of the legal moves that keep a winnable position winnable, by cards left "
          "(both players' positions):", ""]
    L += table_lines(("cards left", "positions", "keep it winnable", _ci()),
                     [(r.cards_left, f"{r.positions:,}", pct(r.keep_share, 1),
                       interval(r.ci_low, r.ci_high, 1)) for r in kb.itertuples()])
    L += ["", img("forgiveness.png", "share of moves keeping the game winnable"), "",
          "Where the fatal move is made (share of the player's walked games, by cards left "
          "before it):", ""]
    fatal = fp[fp["outcome"] == "fatal"]
    players_ = list(dict.fromkeys(fatal["player"]))

    def share(player, label) -> str:
        at = fatal[(fatal["player"] == player) & (fatal["cards_left"] == label)]
        return pct(at["share"].iloc[0], 1)

    L += table_lines(("cards left",) + tuple(players_),
                     [(label,) + tuple(share(p, label) for p in players_)
                      for label in dict.fromkeys(fatal["cards_left"])])
    L += ["", img("fatal-moves.png", "where the fatal moves are made"), ""]
    return L


def _players_lines(pl: pd.DataFrame, s: dict, img) -> list[str]:
    """Section 4: the simple players against the solver's verdicts."""
    rows = [(p.player, f"{p.deals:,}", f"{p.wins:,}", pct(p.win_rate),
             interval(p.ci_low, p.ci_high), pct(p.of_winnable, 1), f"{p.mean_cards_left:.1f}")
            for p in pl.itertuples()]
    L = ["## 4. The price of not thinking ahead", "",
         f"The same deals, {_players_deals_words(s)}, played once by each simple player of "
         "`halfmoon.research.strategies`: random (a uniformly random legal move), greedy (the "
         "move uncovering most pile cards, pairs before triplets, fullest piles first), "
         "lookahead and lookahead3 (the best line of 2 or 3 moves over the cards on show; "
         "rules in `solver/players/simple.py`), against the solver's verdicts.", ""]
    L += table_lines(("player", "deals", "won", "win rate", _ci(), "of the winnable",
                      "cards left (mean)"), rows)
    if "vs_greedy" in pl:
        L += ["", "Each player against the greedy one on the same deals (difference of the win "
              f"rates in points, paired by deal, with its {_ci()}): " + "; ".join(
                  f"{p.player} {points(p.vs_greedy, p.vs_greedy_low, p.vs_greedy_high)}"
                  for p in pl.itertuples() if p.player not in ("greedy",)) + "."]
    L += ["", img("players.png", "players"), ""]
    return L


def _players_deals_words(s: dict) -> str:
    """The players' deals: all the run's, or a seeded sample of them."""
    return sample_words(s["players_deals"], s["deals"],
                        (s.get("options") or {}).get("players_deals"), option="--players-deals",
                        given=_given(s, "players_deals"))


def _given(s: dict, option: str) -> bool:
    """Whether the findings' ``option`` was typed (not its default, scaled to the run)."""
    return option not in (s.get("scaled") or {})


def _difficulty_lines(dt: pd.DataFrame, hd: pd.DataFrame, s: dict, img) -> list[str]:
    """Section 5: positions searched per deal, by decade, and the hardest deals solved again."""
    L = ["## 5. Difficulty", "",
         "Positions the solver searched per deal (a conflict of its clause-learning search counts "
         "as one): " + ", ".join(f"{k} {v:,.0f}" for k, v in s.get("nodes", {}).items()) + ". "
         f"The run took {duration(s['seconds'])} of solving in all "
         f"({s['deals'] / s['seconds']:,.0f} deals a second of one process). By decade:", ""]
    L += table_lines(("positions", "wins", "losses"),
                     [(f"{a:,} – {b - 1:,}", f"{w:,}", f"{lo:,}") for a, b, w, lo in
                      zip(dt["nodes_from"], dt["nodes_below"], dt["wins"], dt["losses"])])
    zero = int(s.get("zero_positions", 0))
    if zero:
        were = "was" if zero == 1 else "were"
        L += ["", f"The first row's {count(zero, 'deal')} with 0 positions {were} settled with "
              "no search (the start alone decides them); the chart's log scale draws them in its "
              "first column with the rest below 10."]
    L += ["", img("difficulty.png", "positions searched per deal"), "",
          f"The {count(len(hd), 'hardest deal')} of the run, solved again (same verdict each time: "
          f"{'yes' if hd['same_again'].all() else 'NO'}):", ""]
    L += table_lines(("deal", "code", "verdict", "positions", "time in the run", "settled by"),
                     [(r.deal, r.code, r.verdict, f"{r.nodes:,}", duration(r.seconds),
                       r.settled_by) for r in hd.itertuples()])
    L += ["", _hardest_words(hd)]
    return L


CLUSTER = 0.005  # positions within 0.5 % of each other: one cluster


def clusters(nodes) -> list[tuple[int, int]]:
    """Counts of positions that gather: runs of the sorted counts each within
    :data:`CLUSTER` of the next, of two or more; (the smallest count, how many) each."""
    values = sorted(int(v) for v in nodes)
    out, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] > values[i - 1] * (1 + CLUSTER):
            if i - start > 1:
                out.append((values[start], i - start))
            start = i
    return out


def _hardest_words(hd: pd.DataFrame) -> str:
    """What the hardest deals' ranking counts, and where its counts gather (from the table):
    the portfolio's spending, not a difficulty of the deal itself."""
    text = ("The ranking is by positions as the solver's portfolio spends them: its searches "
            "take turns on one deal, and every search's positions count (a conflict of the "
            "clause-learning `grouping` search as one), so a count is the cost to this solver, "
            "not a difficulty of the deal in itself; the grouping search joins, and takes its "
            "turns, after fixed numbers of the other searches' positions, and a deal it settles "
            "is counted at the end of one of its turns.")
    by = hd["settled_by"].value_counts()
    if len(hd) and "grouping" in by:
        text += (f" Here {int(by['grouping']):,} of the {count(len(hd), 'deal')} were settled "
                 "by the grouping search.")
    gathered = clusters(hd["nodes"])
    if gathered:
        parts = ", ".join(f"{k:,} near {v:,}" for v, k in gathered)
        n = sum(k for _, k in gathered)
        text += (f" {n:,} of their counts gather within {100 * CLUSTER:g} % of another's "
                 f"({parts} positions): counts that gather so say when a turn ended more than how "
                 "hard a deal was.")
    return text + " The time in the run is beside each, measured on the run's machine."


def _recheck_lines(s: dict) -> list[str]:
    """Section 6: a sample of the census settled again by other means."""
    rc = s["recheck"]
    share = (s.get("options") or {}).get("recheck")
    share = s["recheck_deals"] / s["deals"] if share is None else share
    n = int(s["recheck_deals"])
    deals = sample_words(n, s["deals"])
    what = (f"{deals[0].upper()}{deals[1:]} ({_share_words(share)})" if n < s["deals"]
            else f"{deals[0].upper()}{deals[1:]} (`--recheck {share:g}`)")
    L = ["", "## 6. Checked by other means", "", what + ": " + _recheck_words(rc, s) + ".", ""]
    L += table_lines(list(rc), [list(f"{v:,}" for v in rc.values())])
    return L


def _recheck_words(rc: dict, s: dict) -> str:
    """How the recheck's wins and losses were checked, each said only where it held some."""
    held = s.get("recheck_held") or {  # findings made before it was kept: from the counts
        "wins": int(rc.get("wins replayed", 0)) + int(rc.get("wins not replayed", 0)),
        "losses": (int(rc.get("losses confirmed", 0)) + int(rc.get("disagreements", 0))
                   + int(rc.get("losses not confirmed within the limit", 0)))}
    wins, losses = int(held["wins"]), int(held["losses"])
    model = ("the CP-SAT model of `solver/check/cpsat.py` (shares no code with the search; a "
             f"time limit of {s['recheck_limit']:g} s each)")
    parts = []
    if wins:
        parts.append("the recorded line of " + ("its one win" if wins == 1
                                                   else f"each of its {wins:,} wins")
                     + " replayed move by move through the reference engine")
    else:
        parts.append("it held no win, so no line was replayed")
    if losses:
        parts.append(("its one loss" if losses == 1 else f"each of its {losses:,} losses")
                     + f" put to {model}")
    else:
        parts.append("it held no loss, so none was put to the CP-SAT model")
    return "; ".join(parts)


def _share_words(share: float) -> str:
    """``--recheck``'s share as asked, in % (0.02 -> '2 % asked for')."""
    return f"{100 * share:g} % asked for with `--recheck {share:g}`"


def _data_lines(d: Path, rel: Path, s: dict, formats=()) -> list[str]:
    """Where the page's data lies, each file and what it holds, and the solver versions."""
    from halfmoon.research.findings import DATA_FILES, FAIR_FILES

    L = ["", "## Data", "",
         f"In `{rel.as_posix()}/`, small enough to keep: made by `halfmoon findings`, read by "
         "`notebooks/findings.ipynb`, which draws these charts from them.", ""]
    L += [f"- `{name}`: {what}" for name, what in DATA_FILES.items()]
    L += [f"- `{name}`: {_columns_held(d / name, what)}" for name, what in FAIR_FILES.items()
          if (d / name).exists()]
    from halfmoon.research.provenance import provenance, provenance_words
    from solver import SOLVER_VERSION

    from .exports import tables_words

    L += ["", f"The run's rows: solver version {versions(s)}; the stages ran with version "
          f"{s.get('solver_version_now', versions(s))}; page drawn with solver version "
          f"{SOLVER_VERSION}.", ""]
    made = s.get("provenance")
    L += [("The data were derived by " + provenance_words(made) if made else
           "The data were derived before the package's version and commit were kept")
          + f"; this page was drawn by {provenance_words(provenance())}. The package's version "
          "and commit are in `summary.json` (`provenance`) and in each Parquet file's metadata "
          "(`halfmoon.provenance`).", ""]
    if tables_words(formats):
        L += [f"The page's tables as {tables_words(formats)} are in `{rel.as_posix()}/tables/` "
              "(`table-S-K`: the K-th table of section S), written by `--formats`.", ""]
    return L


def _columns_held(path: Path, what: str) -> str:
    """A data file's description, less the columns it does not hold (kept before they were)."""
    import pyarrow.parquet as pq

    from halfmoon.research.findings_data import STANDING, VS_TOP

    names = pq.read_schema(path).names
    for part, column in ((VS_TOP, "vs_top"), (STANDING, "standing"), (" seconds_median,", "")):
        if part in what and (column or part.strip(" ,")) not in names:
            what = what.replace(part, "")
    return what


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m halfmoon.report.findings",
                                     description="redraw the findings page from its data")
    parser.add_argument("--data", default="docs/findings",
                        help="the findings data (default: docs/findings)")
    parser.add_argument("--page", default="docs/findings.md",
                        help="the page to write (default: docs/findings.md)")
    parser.add_argument("--formats", default="", metavar="LIST",
                        help="also csv,latex (the tables) and svg,pdf (the charts)")
    args = parser.parse_args(argv)
    try:
        from .exports import parse_formats

        path = write_page(args.data, args.page, parse_formats(args.formats))
    except (HalfMoonError, OSError) as exc:
        print(f"halfmoon: error: {exc}", file=sys.stderr)
        return 2
    print(f"findings page written to {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
