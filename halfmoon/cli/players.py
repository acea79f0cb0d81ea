"""The fair players' command: players against greedy and lookahead (or the players of
``--against``), paired by deal."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Callable, TextIO

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
    against = fairplay.player_list(args.against)
    if not against:
        raise _UsageError("--against names no player")
    fairplay.players(against, args.samples)
    played = list(dict.fromkeys([*names, *against]))
    total = len(deals) * len(played)
    if args.workers is not None and args.workers < 1:
        raise _UsageError(f"--workers must be at least 1, got {args.workers}")
    if sys.stderr.isatty():  # a bar on a terminal; in a log, a line now and then
        from tqdm import tqdm

        bar = tqdm(total=total, unit=" games", file=sys.stderr, dynamic_ncols=True)
    else:
        bar = LogProgress(total)
    try:
        games = fairplay.play_players(deals.numbers, played, seed=args.seed, samples=args.samples,
                                      workers=args.workers, progress=bar.update)
    finally:
        bar.close()
    table = fairplay.ladder(games, against).set_index("player")
    settings = {p.name: p.settings() for p in chosen}
    if args.json:
        out = []
        for name in names:
            r = table.loc[name]
            row = {"player": name, "deals": int(r["deals"]), "won": int(r["won"]),
                   "win_rate": float(r["win_rate"]),
                   "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"])}
            for other in against:
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
          "win rates with 95 % Wilson intervals, differences paired by deal with Newcombe's 95 %"
          " intervals")
    width = max(len(n) for n in names)
    for name in names:
        r = table.loc[name]
        diffs = "  ".join(f"vs {o} {100 * r[f'vs_{o}']:+.2f} [{100 * r[f'vs_{o}_low']:+.2f}, "
                          f"{100 * r[f'vs_{o}_high']:+.2f}]" for o in against)
        extra = f" ({settings[name]})" if settings[name] else ""
        print(f"{name:<{width}}  {int(r['deals'])} deals  won {int(r['won'])}  "
              f"{100 * r['win_rate']:.2f} % [{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}]  "
              f"{diffs}  {r['seconds_per_game']:.4f} s a game{extra}")
    return 0


class LogProgress:
    """Progress for a log (stderr not a terminal): a line at each tenth of the games when
    ``quiet`` seconds have passed since the last, at least one every ``every`` seconds, and
    one at the end."""

    def __init__(self, total: int, *, stream: TextIO = None, every: float = 60.0,
                 quiet: float = 5.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.done = total, 0
        self.stream = sys.stderr if stream is None else stream
        self.every, self.quiet, self.clock = every, quiet, clock
        self.start = self.last = clock()
        self.step = 0  # tenths of the games reported

    def update(self, k: int) -> None:
        self.done += k
        now = self.clock()
        step = 10 * self.done // max(1, self.total)
        if (step > self.step and now - self.last >= self.quiet) or now - self.last >= self.every:
            self._line(now)
            self.step = step

    def close(self) -> None:
        if self.done >= self.total and self.step < 10:
            self._line(self.clock())
            self.step = 10

    def _line(self, now: float) -> None:
        from halfmoon.batch.plan import duration

        spent = now - self.start
        left = ""
        if 0 < self.done < self.total:
            left = f", about {duration(spent * (self.total - self.done) / self.done)} left"
        print(f"halfmoon players: {self.done:,} of {self.total:,} games"
              f" ({100 * self.done / max(1, self.total):.0f} %), {duration(spent)}{left}",
              file=self.stream, flush=True)
        self.last = now


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
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of --random and of the players' random numbers (default: 0)")
    p.add_argument("--players", default="random,greedy,lookahead,fair", metavar="LIST",
                   help=f"comma-separated, of {PLAYER_NAMES} ('fair': the best fair player),"
                   " each of the sampling ones also as NAME@K (K samples a decision), the bandit"
                   " also as bandit@cap=C,lead=N,... (its settings)"
                   " (default: random,greedy,lookahead,fair)")
    p.add_argument("--against", default="greedy,lookahead", metavar="LIST",
                   help="the players every other is compared with, paired by deal (played too;"
                   " default: greedy,lookahead)")
    p.add_argument("--samples", type=int, metavar="K",
                   help="sampled layouts (or UCT's iterations) a decision, for the players that"
                   " sample (default: each one's own)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: every core)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    return cmd_players
