"""Load check of the web board: how fast taps are answered while the solver works.

    python benchmarks/bench_board.py [--games 8] [--moves 300] [--depth 12] [--seed 1]
                                     [--against REV] [--rounds 1] [--out DIR]

Starts ``halfmoon play --no-browser`` on a free local port (the server in its own
process, its solver in another, as a player runs it), then plays ``--games`` games at
once on random deals, round robin: each move is a random legal move made by tapping its
cards one by one, each tap timed from request to answer, and after each move the
analysis of the new position is asked for, so that every legal move's position is
queued for the solver: the solver is kept busy while the taps come.  Each new game's
request is timed too (what a player waits for after "New game").  Before each move
the game's opinion is read without waiting, to count the moves made while that game
still had solves pending.  A game that ends, or has had ``--depth`` moves, is replaced
by a new one: positions early in a deal are the solver's hardest, and a lost game asks
for little (after a lost position every position is lost).

The same run is made twice, on a new server each time: first without asking for the
analysis (the solver settles only the light: mostly idle), then with it (the solver kept
busy), so that what the solver's work costs the taps shows.  Prints, for each run, the
taps' and the new games' p50 / p99 / max in milliseconds and the share of moves made
while solves were pending, with the machine's load average (other work on the machine
slows every figure), and writes ``board.json`` into ``--out`` (default
``benchmarks/results/new/``, not kept in git), with the machine (its processor, the
commit and whether the tree has changes).  Traffic goes to the loopback address only, and
the run stops by itself after ``--moves`` moves.

With ``--against REV`` the revision's board (exported as ``halfmoon bench --against``
makes it, with its kept cache of kernels: its first run compiles them) runs the same
moves as this tree's, in turn, ``--rounds`` times each (the revision first in odd
rounds): compare the lines of one round, the machine's load is the same for both.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class Client:
    """JSON over one kept-alive connection to the board."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)

    def call(self, method: str, path: str, body=None) -> dict:
        headers = {"content-type": "application/json"} if body is not None else {}
        self.conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = self.conn.getresponse()
        data = json.loads(response.read())
        if response.status >= 400:
            raise RuntimeError(f"{method} {path}: {response.status} {data}")
        return data


def start_server(root: Path = ROOT, env: Optional[dict] = None
                 ) -> tuple[subprocess.Popen, str]:
    """``halfmoon play`` of the tree at ``root`` (its own packages first on the path)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
    store = Path(tempfile.mkdtemp(prefix="halfmoon-bench-board-")) / "games.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "halfmoon", "play", "--no-browser",
                             "--store", str(store)],  # not the user's games
                            cwd=root, env=env, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("Half Moon board at "):
        proc.kill()
        raise SystemExit(f"the board did not start: {line!r}")
    return proc, line.split()[4]


def new_game(client: Client, rng: random.Random, times: Optional[list] = None
             ) -> tuple[str, Game]:
    """A new game on a random deal (its request timed into ``times``)."""
    number = rng.randrange(1_000_000)
    start = time.perf_counter()
    state = client.call("POST", "/api/games", {"deal": str(number)})
    if times is not None:
        times.append(time.perf_counter() - start)
    return state["id"], Game(Deal.from_number(number))  # a local mirror, to choose moves


def wait_until_settled(client: Client, game_id: str, limit: float = 300) -> None:
    """The solver process is up once the first game's opinion has nothing pending."""
    since, deadline = "", time.monotonic() + limit
    while time.monotonic() < deadline:
        out = client.call("GET", f"/api/games/{game_id}/opinion?since={since}&wait=5")
        if not out["busy"]:
            return
        since = out["tag"]
    raise SystemExit("the solver did not answer within the limit")


def run(games: int, moves: int, depth: int, seed: int, analyse: bool, root: Path = ROOT,
        env: Optional[dict] = None) -> dict:
    rng = random.Random(seed)
    proc, url = start_server(root, env)
    try:
        client, sampler = Client(url), Client(url)
        first, _ = new_game(client, rng)
        wait_until_settled(client, first)
        taps, news, busy_moves, ended = [], [], 0, 0
        table = [new_game(client, rng, news) for _ in range(games)]
        t0 = time.perf_counter()
        for k in range(moves):
            slot = k % games
            game_id, game = table[slot]
            if sampler.call("GET", f"/api/games/{game_id}/opinion")["busy"]:
                busy_moves += 1
            move = rng.choice(list(game.legal_moves))
            for source in move.sources:
                start = time.perf_counter()
                state = client.call("POST", f"/api/games/{game_id}/tap", {"source": source})
                taps.append(time.perf_counter() - start)
            game.play(move)
            if state["status"]["moves"] != game.move_count:
                raise RuntimeError(f"the board and its mirror disagree after {move}")
            if game.is_over or game.move_count >= depth:
                ended += 1
                table[slot] = new_game(client, rng, news)
            elif analyse:
                client.call("POST", f"/api/games/{game_id}/analyse", {})
        seconds = time.perf_counter() - t0
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    return {
        "analysis_asked": analyse, "taps": len(taps), "tap_ms": _spread(taps),
        "new_games": len(news), "new_game_ms": _spread(news),
        "moves_with_solves_pending": busy_moves / moves,
        "games_replaced": ended,
        "seconds": seconds,
        "load_average": os.getloadavg()[0],
    }


def _spread(seconds: list[float]) -> dict:
    ms = sorted(t * 1000 for t in seconds)
    return {"p50": ms[len(ms) // 2], "p99": ms[min(len(ms) - 1, int(len(ms) * 0.99))],
            "max": ms[-1], "mean": statistics.fmean(ms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--depth", type=int, default=12, help="moves before a game is replaced")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", metavar="REV",
                        help="a revision whose board runs the same moves, in turn")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of each side")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "new",
                        help="the folder board.json is written to")
    args = parser.parse_args()
    if min(args.games, args.moves, args.depth, args.rounds) < 1:
        parser.error("--games, --moves, --depth and --rounds must be at least 1")
    from halfmoon.bench.machine import describe

    out = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": describe(ROOT),
        "games": args.games, "moves": args.moves, "depth": args.depth, "seed": args.seed,
        "rounds": args.rounds, "runs": [],
    }
    from halfmoon.bench.against import trees

    with trees(args.against) as (sides, commit):
        if commit is not None:
            out["against"] = {"revision": args.against, "commit": commit}
        for k in range(args.rounds):
            for side, root, env in (sides if k % 2 == 0 else sides[::-1]):
                for name, analyse in (("solver mostly idle", False), ("solver kept busy", True)):
                    result = run(args.games, args.moves, args.depth, args.seed, analyse, root,
                                 env)
                    out["runs"].append({"side": side, "round": k + 1, "name": name, **result})
                    print(f"{side}, round {k + 1}, {name}: {_line(args, result)}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "board.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"written to {path}")


def _line(args, result: dict) -> str:
    t, n = result["tap_ms"], result["new_game_ms"]
    return (f"{result['taps']} taps over {args.games} games ({args.moves} moves, "
            f"{result['seconds']:.1f} s): p50 {t['p50']:.2f} ms, p99 {t['p99']:.2f} ms, "
            f"max {t['max']:.2f} ms; {result['new_games']} new games: p50 {n['p50']:.1f} ms, "
            f"max {n['max']:.1f} ms; solves pending before "
            f"{result['moves_with_solves_pending']:.0%} of the moves; "
            f"load average {result['load_average']:.1f}")


if __name__ == "__main__":
    main()
