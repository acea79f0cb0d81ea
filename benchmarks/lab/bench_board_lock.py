"""How long the board holds its lock, and where: every request and every solver answer waits
for it, so a long hold is a page held up (what ``halfmoon.board.service`` promises is
bookkeeping only, never solving, importing or loading).

    python benchmarks/lab/bench_board_lock.py [--deal 1781311907] [--moves 25] [--think 0.3]
                                              [--known 1000,4469536381,77] [--top 15]
                                              [--no-gc]

The board's service with its two solver processes (as ``halfmoon play`` starts them, no
HTTP), its lock wrapped to time each outermost hold and name the method that took it.
First a game from the app on ``--deal``, played by the advice suite's simulated player
(:mod:`halfmoon.board.advice_player`) for ``--moves`` moves; then a game on each of the
``--known`` deals, 12 random moves each, the analysis, the fair hint and the opinion with
its hint and line asked after every move.  Prints the ``--top`` longest holds (with the
phase: the game from the app, or the known deals) and, by method, the longest, the count
and the sum.  The first holds of a fresh process are in it: an import made under the
lock shows there.  Nothing is written.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


class TimedRLock:
    """An RLock that records each outermost hold: (seconds, who took it, the phase)."""

    def __init__(self, holds: list, phase: list) -> None:
        self._lock = threading.RLock()
        self._depth: dict = collections.defaultdict(int)
        self._taken: dict = {}
        self.holds, self.phase = holds, phase

    def acquire(self, *args, **kwargs) -> bool:
        ok = self._lock.acquire(*args, **kwargs)
        if ok:
            me = threading.get_ident()
            self._depth[me] += 1
            if self._depth[me] == 1:
                frame = sys._getframe(1)
                while frame is not None and frame.f_code.co_name in ("__enter__", "acquire"):
                    frame = frame.f_back
                who = f"{frame.f_code.co_name}:{frame.f_lineno}" if frame else "?"
                self._taken[me] = (time.perf_counter(), who)
        return ok

    def release(self) -> None:
        me = threading.get_ident()
        self._depth[me] -= 1
        if self._depth[me] == 0:
            start, who = self._taken.pop(me)
            self.holds.append((time.perf_counter() - start, who, self.phase[0]))
        self._lock.release()

    __enter__ = acquire

    def __exit__(self, *exc) -> None:
        self.release()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deal", type=int, default=1781311907)
    ap.add_argument("--moves", type=int, default=25)
    ap.add_argument("--think", type=float, default=0.3)
    ap.add_argument("--known", default="1000,4469536381,77")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--no-gc", action="store_true")
    args = ap.parse_args(argv)
    if args.no_gc:
        import gc

        gc.disable()

    from halfmoon.board import advice_player, service
    from halfmoon.board.pool import SolverPool
    from halfmoon.game.deal import Deal
    from halfmoon.game.engine import Game

    holds: list = []
    phase = ["start"]
    with SolverPool(service.BOARD_WORKERS) as pool:
        board = service.Board(pool)
        board._lock = TimedRLock(holds, phase)
        advice_player._watch(board)
        advice_player._wait_ready(pool)
        phase[0] = "from the app"
        advice_player.play_deal(board, args.deal, args.moves, args.think)
        phase[0] = "known deals"
        rng = random.Random(3)
        for number in (int(n) for n in args.known.split(",") if n):
            live, game = board.new_game(Deal.from_number(number)), Game(Deal.from_number(number))
            for _ in range(12):
                moves = list(game.legal_moves)
                if not moves:
                    break
                move = rng.choice(moves)
                for source in move.sources:
                    board.tap(live.id, source)
                game.play(move)
                board.ask_analysis(live.id)
                board.ask_fair(live.id)
                board.opinion(live.id, hint=True, line=True)
                time.sleep(0.2)
        time.sleep(2)
    holds.sort(key=lambda h: -h[0])
    print(f"{len(holds)} holds; median {holds[len(holds) // 2][0] * 1e3:.2f} ms")
    for seconds, who, where in holds[:args.top]:
        print(f"{seconds * 1e3:8.1f} ms  {who:28s} {where}")
    by: dict = collections.defaultdict(list)
    for seconds, who, _ in holds:
        by[who].append(seconds)
    print("by method: longest, count, sum")
    for who, times in sorted(by.items(), key=lambda kv: -max(kv[1])):
        print(f"  {who:28s} {max(times) * 1e3:8.1f} ms  {len(times):6d}  "
              f"{sum(times) * 1e3:9.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
