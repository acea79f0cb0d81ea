"""A simulated player of a game from the app, on the board's own code: the measure of
``halfmoon bench --suite advice`` (:mod:`halfmoon.bench.advice`).

The player enters the 20 cards the app shows of a deal it knows, plays along through the
board's service (:class:`~halfmoon.board.service.Board`, with its solver processes as
``halfmoon play`` starts them: no HTTP), tells each card a move uncovers at once, and
follows the advice with the app's undo: at a position with two legal moves or more it
waits for the settled recommendation, then for the final one (the last stage, or a stage
stopped), thinks ``think`` seconds and plays the final recommendation if it has not tried
it there yet (else the untried move of largest share); where the page says no layout is
won and offers an undo, it undoes so; at a dead end it undoes as the review advises.  It
stops when the deal is won or ``max_moves`` moves are made (the undone ones too).

For each position with a choice it records the wall seconds from the first tap of the move
that made it (the taps, and the card told with what the board redraws for it, counted in)
to the first settled recommendation (after an undo, from the undo's answer), the CPU
seconds of the board's processes meanwhile (the solver processes' and this one's), the
stage (layouts) it settled at, whether that stage was stopped, and the first and final
recommendations.

Run as a script (``python advice_player.py '{"deals": [...], ...}'``), it imports the
``halfmoon`` first on its path: so a revision exported elsewhere runs its own board, and
the script uses only what every revision's board has (``Board``, ``SolverPool``,
``new_along``, ``tap``, ``reveal``, ``undo``, ``opinion``).  It writes one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

POLL = 0.25  # seconds between two looks at the opinion, at most
PATIENCE = 120.0  # seconds an answer is waited for at most


def _cpu(pool) -> float:
    """CPU seconds of the pool's solver processes (Linux's /proc; 0 elsewhere)."""
    total = 0.0
    for proc in getattr(pool, "_procs", []):
        if proc is None:
            continue
        try:
            with open(f"/proc/{proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass
    return total


def _wait(board, game_id: str, ready) -> dict:
    """The opinion once ``ready(opinion)`` holds (or after :data:`PATIENCE` seconds), looked
    at again when the board says something changed (as it wakes a page), else every
    :data:`POLL` seconds."""
    changed = getattr(board, "_advice_changed", None)
    start = time.perf_counter()
    while True:
        if changed is not None:
            changed.clear()  # before looking: a change meanwhile is not missed
        op = board.opinion(game_id)
        if ready(op) or time.perf_counter() - start > PATIENCE:
            return op
        if changed is not None:
            changed.wait(POLL)
        else:
            time.sleep(POLL)


def _watch(board) -> None:
    """The board's wake-ups (what wakes a waiting page) also set an event the player
    waits on, so that it looks at the opinion when it changes, not by polling."""
    changed = threading.Event()
    wake = board._wake

    def woken(game_ids) -> None:
        changed.set()
        wake(game_ids)
    board._wake = woken
    board._advice_changed = changed


def _settled(op: dict) -> bool:
    """Whether the page's answer is as good as it will get: a move to play, none at 0 %,
    or stages stopped by a limit (its leaning move not settled): anything but the pending
    and the provisional answers."""
    fair = op.get("fair") or {}
    return bool(fair) and fair.get("kind") not in ("pending", "provisional")


def _final(op: dict) -> bool:
    return _settled(op) and not (op.get("fair") or {}).get("more")


def play_deal(board, number: int, max_moves: int, think: float) -> dict:
    """One deal played along (see the module's docstring); returns its record."""
    from halfmoon.game.deal import Deal

    deal = Deal.from_number(number)
    cards = " ".join(str(p[-1]) for p in deal.piles) + " " + " ".join(map(str, deal.reserve))
    live = board.new_along(cards)
    gid, along = live.id, live.along
    positions, tried = [], {}
    made = undos = dead_ends = 0
    moved = None  # the clocks when the last move's first card was tapped
    while not along.game.is_won and made < max_moves:
        if along.is_over:  # a dead end: undo as the review says
            dead_ends += 1
            op = _wait(board, gid, lambda o: (o.get("review") or {}).get("kind") in ("lost", "won")
                       and not o["review"].get("more"))
            for _ in range(min((op.get("review") or {}).get("undo") or 1, len(along.game.stack))):
                board.undo(gid)
                undos += 1
            moved = None
            continue
        legal = [str(m) for m in along.game.legal_moves]
        here = (tuple(str(m) for m in along.game.stack))
        left = [m for m in legal if m not in tried.setdefault(here, set())]
        if not left:
            if not along.game.stack:
                break
            board.undo(gid)
            undos += 1
            moved = None
            continue
        choice = left[0]
        if len(legal) > 1:
            # from the move's first tap: the taps and the card told (the board redraws the
            # layouts it rules out then) are part of the wait; after an undo, from now
            t0, c0, m0 = moved or (time.perf_counter(), _cpu(board.pool), time.process_time())
            op = _wait(board, gid, _settled)
            seconds = time.perf_counter() - t0
            cpu = _cpu(board.pool) - c0 + time.process_time() - m0
            fair = op.get("fair") or {}
            first = fair.get("move")
            row = {"deal": number, "ply": len(here), "legal": len(legal), "seconds": seconds,
                   "cpu": cpu, "stage": fair.get("samples", 0), "first": first,
                   "stopped": fair.get("kind") in ("stopped", "unknown")
                   or bool(fair.get("stop"))}
            op = _wait(board, gid, _final)
            fair = op.get("fair") or {}
            row["final"] = fair.get("move")
            positions.append(row)
            leaning = fair.get("move") or fair.get("leaning")  # stopped: the leading move
            back = (fair.get("undo") or {}).get("undo") if fair.get("kind") == "none" else None
            if back:  # no layout won: the undo the page offers
                for _ in range(min(back, len(along.game.stack))):
                    board.undo(gid)
                    undos += 1
                moved = None
                continue
            shares = {m["move"]: m["keeps"] for m in fair.get("moves", [])}
            choice = (leaning if leaning in left
                      else max(left, key=lambda m: (shares.get(m, -1), -left.index(m))))
        tried[here].add(choice)
        time.sleep(think)
        moved = (time.perf_counter(), _cpu(board.pool), time.process_time())
        for source in choice.split("+"):
            board.tap(gid, source)
        for pile in along.waiting:  # the card that appeared, told at once
            i = int(pile[1:]) - 1
            board.reveal(gid, pile, str(deal.piles[i][along.game.counts[i] - 1]))
        made += 1
    return {"deal": number, "won": along.game.is_won, "moves_made": made, "undos": undos,
            "dead_ends": dead_ends, "positions": positions}


def run(deals: list[int], max_moves: int = 60, think: float = 1.0) -> dict:
    """Each deal played on a board of its own (its solver processes started and ready
    first, as ``halfmoon play`` starts them)."""
    from halfmoon.board import service
    from halfmoon.board.pool import SolverPool

    workers = getattr(service, "BOARD_WORKERS", 1)
    out = []
    for number in deals:
        with SolverPool(workers) as pool:
            board = service.Board(pool)
            _watch(board)
            _wait_ready(pool)
            record = play_deal(board, number, max_moves, think)
        print(f"deal {number}: {'won' if record['won'] else 'not won'} in "
              f"{record['moves_made']} moves ({record['undos']} undone), "
              f"{len(record['positions'])} positions with a choice", file=sys.stderr, flush=True)
        out.append(record)
    return {"workers": workers, "deals": out}


def _wait_ready(pool, limit: float = 600.0) -> None:
    """Until every solver process has started and has the kernels of the advice loaded (a
    walk and the players' moves answered by each, twice as many as there are processes:
    on a cold cache the players' kernels are compiled after the process says it is ready,
    and a timed position must not wait for that)."""
    from halfmoon.board.along_jobs import layout_cards
    from halfmoon.board.pool import Job
    from halfmoon.game.deal import Deal
    from halfmoon.game.layouts import format_layout

    deal = Deal.from_number(1)
    layout = format_layout(deal)
    done: list = []
    start = time.perf_counter()
    for k in range(2 * pool.workers):
        work = [("moves", layout, 1, 1000, []), ("walk", [layout_cards(deal)], None, 1000)]
        pool.want(("ready", k), [Job(("ready", k, j), w) for j, w in enumerate(work)],
                  lambda job, answer: done.append(answer))
    while len(done) < 4 * pool.workers and time.perf_counter() - start < limit:
        time.sleep(0.05)
    failed = [a["error"] for a in done if "error" in a]
    if failed:
        raise RuntimeError(f"a solver process failed its first job: {failed[0]}")


def main(argv=None) -> int:
    args = json.loads((argv if argv is not None else sys.argv[1:])[0])
    result = run([int(n) for n in args["deals"]], int(args.get("max_moves", 60)),
                 float(args.get("think", 1.0)))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # its own folder is not a package root: the board's module names
    sys.exit(main())
