"""How soon a board just started answers: a new game on it, and a game asked for again after
the board was stopped and started again on its file of games (what a player waits for
after ``halfmoon play`` or a restart).

    python benchmarks/lab/bench_board_start.py [--rounds 5] [--busy 0] [--deal 1000]
    python benchmarks/lab/bench_board_start.py --against REV [--rounds 5] [--busy 0] ...

Each round starts ``halfmoon play --no-browser`` on a new file of games in a temporary
folder, times its first request (a new game on deal ``--deal`` plus the round), stops it
with SIGTERM, starts it again on the same file and times the ``GET`` of that game.  The
time is from the request sent to the answer read, the board's address line already
printed (the board listens from that line on).  ``--busy`` processes spin beside it
(a busy machine).  Prints each round and the median and range of each measure.  With
``--against REV`` the revision's export (as ``halfmoon bench --against`` makes it, with its
kept cache of kernels) and this tree run in turn within each round, after one round of
each not counted (a revision's first run compiles its kernels).  Nothing is kept.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--busy", type=int, default=0, metavar="K")
    ap.add_argument("--deal", type=int, default=1000)
    ap.add_argument("--against", metavar="REV")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.busy < 0:
        ap.error("--rounds must be at least 1 and --busy at least 0")
    from halfmoon.bench.against import trees

    with ExitStack() as stack:
        sides, _ = stack.enter_context(trees(args.against))
        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(args.busy)]
        stack.callback(lambda: [b.kill() for b in busy])
        work = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        times: dict = {name: ([], []) for name, _, _ in sides}
        for k in range(-1 if args.against else 0, args.rounds):
            for name, root, env in sides:
                store = work / f"{len(os.listdir(work))}.sqlite3"
                new, again = one_round(root, env, store, args.deal + max(k, 0))
                counted = "" if k >= 0 else " (warm-up, not counted)"
                print(f"{name}, round {k + 1}: a new game {new:.3f} s, asked for again after "
                      f"a restart {again:.3f} s{counted}", flush=True)
                if k >= 0:
                    times[name][0].append(new)
                    times[name][1].append(again)
    for name, (new, again) in times.items():
        print(f"{name}: a new game {_spread(new)}; after a restart {_spread(again)} "
              f"({args.rounds} rounds, {args.busy} busy loops, load average "
              f"{os.getloadavg()[0]:.2f})")
    return 0


def _spread(seconds: list[float]) -> str:
    return (f"median {statistics.median(seconds):.3f} s "
            f"({min(seconds):.3f}-{max(seconds):.3f})")


def one_round(root: Path, env: dict, store: Path, deal: int) -> tuple[float, float]:
    with Started(root, env, store) as board:
        new, game = board.timed("POST", "/api/games", {"deal": str(deal)})
    with Started(root, env, store) as board:
        again, _ = board.timed("GET", f"/api/games/{game['id']}")
    return new, again


class Started:
    """``halfmoon play`` of the tree at ``root`` on ``store``, stopped with SIGTERM."""

    def __init__(self, root: Path, env: dict, store: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "halfmoon", "play", "--no-browser", "--port", "0",
             "--store", str(store)], cwd=root, env={**os.environ, **env},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        found = re.search(r"http://([^/:]+):(\d+)/", line)
        if found is None:
            self.proc.kill()
            raise SystemExit(f"the board did not start: {line!r}")
        self.conn = http.client.HTTPConnection(found[1], int(found[2]), timeout=120)

    def timed(self, method: str, path: str, body=None) -> tuple[float, dict]:
        start = time.perf_counter()
        self.conn.request(method, path, None if body is None else json.dumps(body),
                          {"content-type": "application/json"})
        response = self.conn.getresponse()
        data = json.loads(response.read())
        seconds = time.perf_counter() - start
        if not 200 <= response.status < 300:
            raise SystemExit(f"{method} {path}: {response.status} {data}")
        return seconds, data

    def __enter__(self) -> "Started":
        return self

    def __exit__(self, *exc) -> None:
        self.conn.close()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()


if __name__ == "__main__":
    sys.exit(main())
