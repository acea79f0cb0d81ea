"""The fair players' command: players against greedy and lookahead (or the players of
``--against``), paired by deal."""

from __future__ import annotations

import argparse

from .checks import UsageError as _UsageError
from .checks import add_quiet, check_output_file, seed
from .output import json_line
from .runs import add_deals


def cmd_players(args: argparse.Namespace) -> int:
    from halfmoon import batch
    from halfmoon.research import fairplay

    if args.codes is not None:
        deals = batch.deals_from_codes(args.codes)
    elif args.range is not None:
        deals = batch.parse_range(args.range)
    else:
        if args.random < 1:
            raise _UsageError(f"--random must be at least 1, got {args.random}")
        deals = batch.deals_from_random(args.random, args.seed)
    names = fairplay.player_list(args.players)
    if not names:
        raise _UsageError("--players names no player")
    against = [] if args.against.strip() == "none" else fairplay.player_list(args.against)
    played = list(dict.fromkeys([*names, *against]))  # each compared with those it is against
    chosen = fairplay.players(played, args.samples)  # unknown names fail before any game
    if args.workers is not None and args.workers < 1:
        raise _UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.per_deal is not None:
        check_output_file(args.per_deal, "--per-deal")
    total = len(deals) * len(played)
    from halfmoon.batch.progress import counter

    bar = counter("players", total, "games", quiet=args.quiet)
    try:
        games = fairplay.play_players(deals.numbers, played, seed=args.seed, samples=args.samples,
                                      workers=args.workers, progress=bar.update)
    finally:
        bar.close()
    if args.per_deal is not None:
        games.to_parquet(args.per_deal, index=False)
    table = fairplay.ladder(games, against).set_index("player")
    ceiling = fairplay.ceiling(deals.numbers)  # the solver's verdicts: the most any could win
    settings = {p.name: p.settings() for p in chosen}
    if args.json:
        out = []
        for name in played:
            r = table.loc[name]
            row = {"player": name, "reference": name not in names, "deals": int(r["deals"]),
                   "won": int(r["won"]), "win_rate": float(r["win_rate"]),
                   "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"]),
                   "vs": {other: {k: float(r[f"vs_{other}{s}"]) for k, s in
                                  (("mean", ""), ("low", "_low"), ("high", "_high"))}
                          for other in against if other != name}}
            row.update(seconds_per_game=float(r["seconds_per_game"]),
                       evaluations_per_game=float(r["evaluations_per_game"]),
                       settings=settings[name])
            out.append(row)
        print(json_line({"deals": len(deals), "seed": args.seed, "against": against,
                         "per_deal": args.per_deal, "players": out, "ceiling": ceiling}))
        return 0
    from halfmoon.batch.sources import describe_source

    compared = ("; differences in points (percentage points), paired by deal, with Newcombe's"
                " 95 % intervals" if against else "")
    # a codes file as the user named it (the run's record keeps its absolute path)
    source = f"--codes {args.codes}" if args.codes is not None else describe_source(deals.source)
    print(f"{len(deals)} deals ({source}), seed {args.seed}; "
          f"win rates with 95 % Wilson intervals{compared}")
    width = max(len(n) for n in [*played, "ceiling"])
    for name in played:
        r = table.loc[name]
        diffs = "".join(f"  vs {o} {100 * r[f'vs_{o}']:+.2f} points [{100 * r[f'vs_{o}_low']:+.2f}"
                        f", {100 * r[f'vs_{o}_high']:+.2f}]" for o in against if o != name)
        extra = f" ({settings[name]})" if settings[name] else ""
        extra += "" if name in names else " [reference]"
        print(f"{name:<{width}}  {int(r['deals'])} deals  won {int(r['won'])}  "
              f"{100 * r['win_rate']:.2f} % [{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}]"
              f"{diffs}  {milliseconds(r['seconds_per_game'])} ms a game{extra}")
    print(ceiling_line(ceiling, width))
    if args.per_deal is not None:
        print(f"each game written to {args.per_deal}")
    return 0


def milliseconds(seconds: float) -> str:
    """A time in ms, to about three figures: ``0.12``, ``7.3``, ``1,234``."""
    ms = 1000 * seconds
    if ms >= 100:
        return f"{ms:,.0f}"
    return f"{ms:.1f}" if ms >= 1 else f"{ms:.2g}"


def ceiling_line(c: dict, width: int) -> str:
    """The ceiling's line, in the players' columns and named as not a player: the solver's
    verdicts on the same deals."""
    unresolved = (f", {c['unresolved']:,} unresolved at {c['budget']:,} positions counted as"
                  " not won" if c["unresolved"] else "")
    return (f"{'ceiling':<{width}}  {c['deals']} deals  won {c['won']}  "
            f"{100 * c['win_rate']:.2f} % [{100 * c['ci_low']:.2f}, {100 * c['ci_high']:.2f}]"
            f"  (not a player: the solver's verdicts, the most any player could win{unresolved})")


class _PlayerNames(argparse.HelpFormatter):
    """Help that names every player the solver takes, read from it only when help is asked
    (building the parser never loads the solver)."""

    def _get_help_string(self, action):
        text = super()._get_help_string(action)
        if PLAYER_NAMES in text:
            from solver import FAIR_PLAYERS

            text = text.replace(PLAYER_NAMES, ", ".join(FAIR_PLAYERS))
        return text


PLAYER_NAMES = "{player names}"


def add_players(p: argparse.ArgumentParser):
    p.formatter_class = _PlayerNames
    add_deals(p, "N distinct random deals of the whole code space")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help="seed of --random and of the players' random numbers (default: 0)")
    p.add_argument("--players", default="random,greedy,lookahead,fair", metavar="LIST",
                   help=f"comma-separated, of {PLAYER_NAMES} ('fair': the best fair player),"
                   " each of the sampling ones also as NAME@K (K samples a decision), the bandit"
                   " also as bandit@cap=C,lead=N,... (its settings)"
                   " (default: random,greedy,lookahead,fair)")
    p.add_argument("--against", default="greedy,lookahead", metavar="LIST",
                   help="the players each is compared with, paired by deal, played too"
                   " (default: greedy,lookahead; none: no comparison)")
    p.add_argument("--per-deal", metavar="FILE",
                   help="write each game (deal, player, won, moves made, cards left, seconds)"
                   " to this Parquet file, to pair players on one's own")
    add_quiet(p)
    p.add_argument("--samples", type=int, metavar="K",
                   help="sampled layouts (or UCT's iterations) a decision, for the players that"
                   " sample (default: each one's own)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: every core)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    return cmd_players
