"""The findings page: ``docs/findings.md`` and its charts, from the data in ``docs/findings/``.

    python -m halfmoon.report.findings --data docs/findings --page docs/findings.md
    halfmoon findings census --out docs       # derives the data from a census first

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
from halfmoon.research.deadlocks import KINDS, class_table, kind_table

from .fairplay import fair_section
from .findings_charts import common_deals, draw_charts
from .style import interval, pct, table_lines


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
def _kind_words(kind: str) -> str:
    if kind == "faces":
        return "the faces alone"
    if kind.startswith("faces+"):
        k = int(kind.split("+")[1])
        return f"the faces and {k} pair class{'es' if k > 1 else ''}"
    if kind.startswith("pairs:"):
        k = int(kind.split(":")[1])
        return f"{k} pair class{'es' if k > 1 else ''}, no face"
    return kind


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


def write_page(data_dir: Union[str, Path], page: Union[str, Path]) -> Path:
    """Draw the charts into ``data_dir`` and write the page ``page`` (links relative to it)."""
    d = Path(data_dir)
    data = load_data(d)
    draw_charts(data, d)
    here = Path(page).resolve().parent
    rel = Path(*d.resolve().relative_to(here).parts) if d.resolve().is_relative_to(here) \
        else d.resolve()

    def img(name: str, alt: str) -> str:
        return f"![{alt}]({rel.as_posix()}/{name})"

    s = data["summary"]
    L = _head_lines(s)
    L += _win_rate_lines(s, img)
    L += _deadlock_lines(data["losses"], img)
    L += _feature_lines(data["features"], s["deals"], img)
    L += _forgiveness_lines(data, s, img)
    L += _players_lines(data["players"], s, img)
    L += fair_section(data, img)
    L += _difficulty_lines(data["difficulty"], data["hardest"], s, img)
    L += _recheck_lines(s)
    L += _data_lines(d, rel, s)
    path = Path(page)
    path.write_text("\n".join(L), encoding="utf-8")
    return path


def _versions(s: dict) -> str:
    return ", ".join(s["solver_versions"])


def _head_lines(s: dict) -> list[str]:
    """The title, what the census is and how to make it again."""
    census = s["command"].split("--out ")[1].split()[0]
    return ["# Half Moon, measured", "",
            f"Figures on Half Moon from a census of **{s['deals']:,} deals** (made "
            f"{s.get('created', '?')[:10]}) drawn uniformly from all 8,031,810,176 deal codes, "
            f"each settled exactly by the solver (version {_versions(s)}, budget "
            f"{s['budget']:,} positions a deal): **{s['unresolved']:,} unresolved**. "
            "Every interval is a 95 % interval; every figure says how it was measured.", "",
            f"**Solver versions.** Every figure on this page is of solver version "
            f"{_versions(s)}: the census and every stage derived from it were made with it"
            f"{_now_line(s)}", "",
            "Reproduce (the census is resumable; the second command derives everything below "
            "from it with the options it was made with, and `make findings` runs both):", "",
            "```", s["command"], _findings_command(census, s), "```", ""]


def _now_line(s: dict) -> str:
    """What the solver is now, against the figures' version."""
    from solver import SOLVER_VERSION

    if [str(SOLVER_VERSION)] == [str(v) for v in s["solver_versions"]]:
        return ", the solver's version now."
    return (f". The solver is now version {SOLVER_VERSION}; this page was redrawn with it from"
            " the same data, and no figure was measured again (the commands below, run now,"
            f" would give version {SOLVER_VERSION}'s).")


def _findings_command(census: str, s: dict) -> str:
    """``halfmoon findings`` with every option the data were made with."""
    words = [f"halfmoon findings {census} --out docs --seed {s['seed']}"]
    for option, key in (("--players-deals", "players_deals"),
                        ("--forgiveness-deals", "forgiveness_deals"),
                        ("--fair-deals", "fair_deals")):
        if key in s:
            words.append(f"{option} {int(s[key])}")
    if "recheck_deals" in s and s.get("deals"):
        words.append(f"--recheck {s['recheck_deals'] / s['deals']:g}")
    if "recheck_limit" in s:
        words.append(f"--limit {s['recheck_limit']:g}")
    return " ".join(words)


def _win_rate_lines(s: dict, img) -> list[str]:
    """Section 1: how often a deal can be won, and how many are dead on arrival."""
    return ["## 1. How often Half Moon can be won", "",
            f"**{pct(s['win_rate'], 3)}** of deals can be won (95 % Wilson interval "
            f"{interval(s['win_low'], s['win_high'], 3)}; {s['wins']:,} wins and "
            f"{s['losses']:,} losses of {s['deals']:,} deals, {s['unresolved']} unresolved).", "",
            f"**Dead on arrival** (no legal move at the start): {s['dead_on_arrival']:,} deals, "
            f"{pct(s['doa_rate'], 4)} (interval {interval(s['doa_low'], s['doa_high'], 4)}).", "",
            img("win-rate.png", "win rate as the sample grows"), "",
            "The win rate of the census's first n deals (in a seeded random order), with its "
            "interval, which narrows as one over the square root of n.", ""]


def _deadlock_lines(losses: pd.DataFrame, img) -> list[str]:
    """Section 2, first part: the kinds of deadlock, the classes in them, an example of each."""
    from halfmoon.research.deadlocks import CLASSES

    rows = [(_kind_words(kind), f"{int(r['losses']):,}", pct(r["share"], 1),
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
         "lost projection proves the loss). Over the census's "
         f"{len(losses):,} losses:", ""]
    L += table_lines(("deadlock", "losses", "share", "95 % interval", "example deal"), rows)
    L += ["", img("deadlocks.png", "kinds of deadlock"), "",
          "How often each class takes part in the deadlock: " + ", ".join(
              f"{c} {pct(ct.loc[c, 'share'], 1)}" for c in ("J+Q+K",) + CLASSES[:5]) + ". "
          f"{_plural(several, 'loss has', 'losses have')} more than one smallest set; "
          f"{_plural(unsettled, 'has', 'have')} a projection the budget did not settle.", "",
          "An example of each kind (the census's lowest-numbered deal with it), with only the "
          "cards of its deadlock classes, in their places (layout notation, bottom card "
          "first):", "",
          "<details><summary>the examples</summary>", ""]
    for kind, (title, layout) in example_layouts(losses).items():
        L += [f"{_kind_words(kind).capitalize()}: {title}", "", "```", layout.rstrip("\n"), "```",
              ""]
    L += ["</details>", ""]
    return L


def _feature_lines(ft: pd.DataFrame, deals: int, img) -> list[str]:
    """Section 2, second part: the loss rate by simple features of the deal."""
    common = common_deals(deals)
    L = [f"**Loss rate by simple features of the deal** (values seen in at least {common:,} "
         "deals): legal moves at the start, face cards on the pile tops and in the reserve, "
         "classes with a legal move, cards whose two copies lie in the same pile, the most face "
         "cards in one pile.", "", img("loss-by-feature.png", "loss rate by feature"), ""]
    rows = []
    for f in dict.fromkeys(ft["feature"]):
        t = ft[(ft["feature"] == f) & (ft["deals"] >= common)]
        if t.empty:
            continue
        for _, r in t.iloc[sorted({0, len(t) // 2, len(t) - 1})].iterrows():
            rows.append((f.replace("_", " "), int(r["value"]), f"{int(r['deals']):,}",
                         pct(r["loss_rate"]), interval(r["ci_low"], r["ci_high"])))
    L += ["Lowest, middle and highest common value of each:", ""]
    L += table_lines(("feature", "value", "deals", "lost", "95 % interval"), rows)
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
    L = ["## 3. How forgiving the game is", "",
         f"Along the games of the random and the greedy player on {s['forgiveness_deals']:,} "
         "winnable deals of the census (a seeded sample), every legal move of every position "
         f"still winnable was settled ({s['forgiveness_positions']:,} positions; "
         "`halfmoon.research.forgiveness`). Intervals of means over positions are clustered by "
         "deal.", "",
         f"- A uniformly random legal move from a winnable position **loses it with chance "
         f"{pct(allp['loses'])}** ({interval(allp['ci_low'], allp['ci_high'])}; mean over "
         f"{int(allp['n']):,} positions of both players' games)."]
    L += [f"- The {p} player's own moves from winnable positions lose the game {pct(r['loses'])} "
          f"of the time ({interval(r['ci_low'], r['ci_high'])}, {int(r['n']):,} moves); its game "
          f"is never lost on {pct(never.loc[p, 'share'], 1)} of the deals "
          f"({interval(never.loc[p, 'ci_low'], never.loc[p, 'ci_high'], 1)})."
          for p, r in own.iterrows() if p in never.index]
    kb = data["forgiveness-buckets"]
    kb = kb[kb["player"] == "all"] if (kb["player"] == "all").any() else kb
    L += ["", "Share of the legal moves that keep a winnable position winnable, by cards left "
          "(both players' positions):", ""]
    L += table_lines(("cards left", "positions", "keep it winnable", "95 % interval"),
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
         f"The same {s['players_deals']:,} deals (a seeded sample of the census) played once by "
         "each simple player of `halfmoon.research.strategies`: random (a uniformly random legal "
         "move), greedy (the move uncovering most pile cards, pairs before triplets, fullest "
         "piles first), lookahead and lookahead3 (the best line of 2 or 3 moves over the cards "
         "on show; rules in `solver/players/simple.py`), against the solver's verdicts.", ""]
    L += table_lines(("player", "deals", "won", "win rate", "95 % interval", "of the winnable",
                      "cards left (mean)"), rows)
    if "vs_greedy" in pl:
        L += ["", "Each player against the greedy one on the same deals (difference of the win "
              "rates in points, paired by deal, with its 95 % interval): " + "; ".join(
                  f"{p.player} {100 * p.vs_greedy:+.2f} ({100 * p.vs_greedy_low:+.2f} to "
                  f"{100 * p.vs_greedy_high:+.2f})"
                  for p in pl.itertuples() if p.player not in ("greedy",)) + "."]
    L += ["", img("players.png", "players"), ""]
    return L


def _difficulty_lines(dt: pd.DataFrame, hd: pd.DataFrame, s: dict, img) -> list[str]:
    """Section 5: positions searched per deal, by decade, and the hardest deals solved again."""
    L = ["## 5. Difficulty", "",
         "Positions the solver searched per deal (a conflict of its clause-learning search counts "
         "as one): " + ", ".join(f"{k} {v:,.0f}" for k, v in s.get("nodes", {}).items()) + ". "
         f"The census took {s['seconds']:,.0f} s of solving in all "
         f"({s['deals'] / s['seconds']:,.0f} deals a second of one process, several runs sharing "
         "the machine's two cores). By decade:", ""]
    L += table_lines(("positions", "wins", "losses"),
                     [(f"{a:,} – {b - 1:,}", f"{w:,}", f"{lo:,}") for a, b, w, lo in
                      zip(dt["nodes_from"], dt["nodes_below"], dt["wins"], dt["losses"])])
    L += ["", img("difficulty.png", "positions searched per deal"), "",
          f"The {len(hd)} hardest deals of the census, solved again (same verdict each time: "
          f"{'yes' if hd['same_again'].all() else 'NO'}):", ""]
    L += table_lines(("deal", "code", "verdict", "positions", "seconds (census)", "settled by"),
                     [(r.deal, r.code, r.verdict, f"{r.nodes:,}", f"{r.seconds:.2f}",
                       r.settled_by) for r in hd.itertuples()])
    return L


def _recheck_lines(s: dict) -> list[str]:
    """Section 6: a sample of the census settled again by other means."""
    rc = s["recheck"]
    L = ["", "## 6. Checked by other means", "",
         f"A seeded random {s['recheck_deals']:,} deals of the census (1 %): every win's recorded "
         "line replayed move by move through the reference engine, every loss put to the CP-SAT "
         "model of `solver/check/cpsat.py` (shares no code with the search; "
         f"{s['recheck_limit']:.0f} s each).", ""]
    L += table_lines(list(rc), [list(f"{v:,}" for v in rc.values())])
    return L


def _data_lines(d: Path, rel: Path, s: dict) -> list[str]:
    """Where the page's data lies, each file and what it holds, and the solver versions."""
    from halfmoon.research.findings import DATA_FILES, FAIR_FILES

    L = ["", "## Data", "",
         f"In `{rel.as_posix()}/`, small enough to keep: made by `halfmoon findings`, read by "
         "`notebooks/findings.ipynb`, which draws these charts from them.", ""]
    L += [f"- `{name}`: {what}" for name, what in DATA_FILES.items()]
    L += [f"- `{name}`: {what}" for name, what in FAIR_FILES.items() if (d / name).exists()]
    from solver import SOLVER_VERSION

    L += ["", f"Census and every figure: solver version {_versions(s)} (the stages ran with "
          f"version {s.get('solver_version_now', _versions(s))}); page drawn with solver "
          f"version {SOLVER_VERSION}.", ""]
    return L


def write_findings(census: Union[str, Path], out: Union[str, Path] = "docs", **options) -> Path:
    """Derive the findings from a census, keep their data in ``out/findings/`` and write
    ``out/findings.md``."""
    from halfmoon.research.findings import derive, save_data

    data_dir = save_data(derive(census, **options), Path(out) / "findings")
    return write_page(data_dir, Path(out) / "findings.md")


def write_fair(census: Union[str, Path], out: Union[str, Path] = "docs", **options) -> Path:
    """Add the fair-play stage to the findings in ``out/findings/`` (derived from ``census``)
    and redraw ``out/findings.md``."""
    from halfmoon.research.findings import derive_fair, save_fair

    data_dir = Path(out) / "findings"
    save_fair(derive_fair(census, data_dir, **options), data_dir)
    return write_page(data_dir, Path(out) / "findings.md")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m halfmoon.report.findings",
                                     description="redraw the findings page from its data")
    parser.add_argument("--data", default="docs/findings",
                        help="the findings data (default: docs/findings)")
    parser.add_argument("--page", default="docs/findings.md",
                        help="the page to write (default: docs/findings.md)")
    args = parser.parse_args(argv)
    try:
        path = write_page(args.data, args.page)
    except (HalfMoonError, OSError) as exc:
        print(f"halfmoon: error: {exc}", file=sys.stderr)
        return 2
    print(f"findings page written to {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
