"""The bandit player's sweep: win rate against the seconds a game, setting by setting.

    python benchmarks/lab/bench_bandit.py run --out FILE [--deals 500] [--seed 20261204]
        [--chunk 20] [--players NAME,...]
    python benchmarks/lab/bench_bandit.py table FILE

``run`` plays every player of ``--players`` (bandit settings as ``halfmoon players`` names
them, plus lookahead and tuned as references) on random deals of ``--seed`` in chunks of
``--chunk`` deals: each chunk is played by every player before the next starts, so a sweep
cut short has every player on the same deals.  One CSV row a game is appended to ``FILE``
(player, deal, won, moves, seconds, CPU seconds, solves), and a rerun skips the games already
there (resumable).  Each game is seeded as ``halfmoon players`` seeds it, so a game here is
the same game there.  ``table`` prints, for each player, the deals, win rate with its 95 %
Wilson interval, the paired difference from lookahead and tuned on the deals both played
(95 % interval), and the wall and CPU seconds a game.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

GRID = ("bandit@cap=100,lead=100,total=1000", "bandit@cap=1000,lead=100,total=1000",
        "bandit@cap=10000,lead=100,total=1000", "bandit@cap=100,lead=1000,total=10000",
        "bandit@cap=1000,lead=1000,total=10000")
COLUMNS = ("player", "deal", "won", "moves", "seconds", "cpu", "solves")


def run(args: argparse.Namespace) -> None:
    import solver
    from halfmoon.batch.sources import deals_from_random
    from halfmoon.research.fairplay import player_list
    from halfmoon.research.strategies import game_seed

    names = ["lookahead", "tuned", *player_list(args.players)]
    players = [solver.player_named(n) for n in names]
    solver.warm_up(["players", "fair", "bandit"])
    numbers = [int(n) for n in deals_from_random(args.deals, args.seed).numbers]
    out = Path(args.out)
    done = set()
    if out.exists():
        with out.open() as f:
            done = {(r["player"], int(r["deal"])) for r in csv.DictReader(f)}
    else:
        out.write_text(",".join(COLUMNS) + "\n")
    for start in range(0, len(numbers), args.chunk):
        chunk = numbers[start:start + args.chunk]
        for p in players:
            todo = [n for n in chunk if (p.name, n) not in done]
            if not todo:
                continue
            c0, t0 = time.process_time(), time.perf_counter()
            g = solver.player_games(todo, p, [game_seed(args.seed, n) for n in todo])
            cpu = (time.process_time() - c0) / len(todo)  # the chunk's CPU, spread evenly
            with out.open("a") as f:
                w = csv.writer(f)
                for k, n in enumerate(todo):
                    w.writerow([p.name, n, int(g.won[k]), int(g.moves_made[k]),
                                f"{g.seconds[k]:.4f}", f"{cpu:.4f}", int(g.evaluations[k])])
            print(f"{p.name}: deals {start}-{start + len(chunk) - 1}, won {int(g.won.sum())}/"
                  f"{len(todo)}, {time.perf_counter() - t0:.1f} s", flush=True)


def table(args: argparse.Namespace) -> None:
    import pandas as pd

    from halfmoon.research.stats import paired_difference, wilson_interval

    games = pd.read_csv(args.file)
    wide = games.pivot_table(index="deal", columns="player", values="won")
    print("| player | deals | won | win rate (95 % interval) | vs lookahead (points) "
          "| vs tuned (points) | seconds a game | CPU s a game | solves a game |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in dict.fromkeys(games["player"]):
        g = games[games["player"] == name]
        n, k = len(g), int(g["won"].sum())
        lo, hi = wilson_interval(k, n)
        diffs = []
        for ref in ("lookahead", "tuned"):
            both = wide[[name, ref]].dropna()
            if name == ref or len(both) < 2:
                diffs.append("")
                continue
            d, dl, dh = paired_difference(both[name].to_numpy(), both[ref].to_numpy())
            diffs.append(f"{100 * d:+.1f} ({100 * dl:+.1f} to {100 * dh:+.1f})")
        print(f"| {name} | {n} | {k} | {100 * k / n:.1f} % ({100 * lo:.1f}–{100 * hi:.1f}) | "
              f"{diffs[0]} | {diffs[1]} | {g['seconds'].mean():.2f} | {g['cpu'].mean():.2f} | "
              f"{g['solves'].mean():,.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--deals", type=int, default=500)
    r.add_argument("--seed", type=int, default=20261204)
    r.add_argument("--chunk", type=int, default=20)
    r.add_argument("--players", default=",".join(GRID))
    t = sub.add_parser("table")
    t.add_argument("file")
    args = ap.parse_args()
    run(args) if args.command == "run" else table(args)


if __name__ == "__main__":
    main()
