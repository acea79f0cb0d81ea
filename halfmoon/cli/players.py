"""The fair players' command: players against greedy and lookahead, paired by deal."""

from __future__ import annotations

import argparse
import json
import sys

from .checks import UsageError as _UsageError
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
    chosen = fairplay.players(names, args.samples)  # unknown names fail before any game
    # the references of the differences
    played = list(dict.fromkeys([*names, "greedy", "lookahead"]))
    total = len(deals) * len(played)
    bar = None
    if not args.json and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total, unit=" games", file=sys.stderr, dynamic_ncols=True)
    try:
        games = fairplay.play_players(deals.numbers, played, seed=args.seed, samples=args.samples,
                                      workers=args.workers, progress=bar.update if bar else None)
    finally:
        if bar is not None:
            bar.close()
    table = fairplay.ladder(games).set_index("player")
    settings = {p.name: p.settings() for p in chosen}
    if args.json:
        out = []
        for name in names:
            r = table.loc[name]
            row = {"player": name, "deals": int(r["deals"]), "won": int(r["won"]),
                   "win_rate": float(r["win_rate"]),
                   "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"])}
            for other in ("greedy", "lookahead"):
                row[f"vs_{other}"] = {k: float(r[f"vs_{other}{s}"]) for k, s in
                                      (("mean", ""), ("low", "_low"), ("high", "_high"))}
            row.update(seconds_per_game=float(r["seconds_per_game"]),
                       evaluations_per_game=float(r["evaluations_per_game"]),
                       settings=settings[name])
            out.append(row)
        print(json.dumps({"deals": len(deals), "seed": args.seed, "players": out}))
        return 0
    from halfmoon.batch.sources import describe_source

    print(f"{len(deals)} deals ({describe_source(deals.source)}), seed {args.seed}; "
          "win rates with 95 % Wilson intervals, differences paired by deal with 95 % intervals")
    width = max(len(n) for n in names)
    for name in names:
        r = table.loc[name]
        diffs = "  ".join(f"vs {o} {100 * r[f'vs_{o}']:+.2f} [{100 * r[f'vs_{o}_low']:+.2f}, "
                          f"{100 * r[f'vs_{o}_high']:+.2f}]" for o in ("greedy", "lookahead"))
        extra = f" ({settings[name]})" if settings[name] else ""
        print(f"{name:<{width}}  {int(r['deals'])} deals  won {int(r['won'])}  "
              f"{100 * r['win_rate']:.2f} % [{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}]  "
              f"{diffs}  {r['seconds_per_game']:.4f} s a game{extra}")
    return 0


def add_players(p: argparse.ArgumentParser):
    add_deals(p, "N distinct random deals of the whole code space")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of --random and of the players' random numbers (default: 0)")
    p.add_argument("--players", default="random,greedy,lookahead,fair", metavar="LIST",
                   help="comma-separated: random, greedy, lookahead, tuned, pimc, rollout,"
                   " rollout-lookahead, rollout-tuned, uct, bandit, fair "
                   "(the best fair player; default: random,greedy,lookahead,fair); NAME@K a"
                   " sampling player at K samples, bandit@cap=C,lead=N,... the bandit's settings")
    p.add_argument("--samples", type=int, metavar="K",
                   help="sampled layouts (or UCT's iterations) a decision, for the players that"
                   " sample (default: each one's own)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: every core)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    return cmd_players
