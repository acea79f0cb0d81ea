"""Helpers of the board tests: one solver pool shared by every test of the run, layouts
of the rules' example and of small traps, and a client that waits for the solver's
answers by long polling (no sleeps)."""

from __future__ import annotations

import atexit
import time
from contextlib import contextmanager
from typing import Callable, Optional

from conftest import EXAMPLE_PILES, EXAMPLE_RESERVE, make_layout
from starlette.testclient import TestClient

from halfmoon.board.pool import SolverPool
from halfmoon.board.server import create_app
from halfmoon.board.service import Board
from halfmoon.game.layouts import parse_layout

EXAMPLE = parse_layout(make_layout(EXAMPLE_PILES, EXAMPLE_RESERVE))
# 10c + Ad (P1+R1) leaves Ac and 10d: a win; Ad + 10d (R1+R2) leaves 10c over the last
# Ace: a dead end.  Four more pairs on their own piles can be played after either.
TRAP_PILES = {1: "Ac 10c", 3: "2c", 4: "9c", 5: "3c", 6: "8c", 7: "4c", 8: "7c", 9: "5c", 10: "6c"}
TRAP = parse_layout(make_layout(TRAP_PILES, "Ad 10d"))
# Two of each face: K P3 and P4, Q P5 and P6, J P7 and P8.
FACES = parse_layout(make_layout({3: "Kh", 4: "Ks", 5: "Qh", 6: "Qs", 7: "Jc", 8: "Jd"}))
WAIT = 120.0  # seconds an answer of the solver may take in a test (a busy machine)

_pool: Optional[SolverPool] = None


def shared_pool() -> SolverPool:
    """One solver process for every board test (it takes a second or two to start)."""
    global _pool
    if _pool is None:
        _pool = SolverPool(workers=1, seconds=60).start()
        atexit.register(_pool.close)
    return _pool


@contextmanager
def board_client(start_deal=None, **kwargs):
    """A TestClient on a board over the shared pool; yields (client, board)."""
    board = Board(shared_pool(), start_deal=start_deal, **kwargs)
    with TestClient(create_app(board)) as client:
        yield client, board


def new_game(client, **body) -> dict:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def tap(client, state: dict, *sources: str) -> dict:
    for source in sources:
        response = client.post(f"/api/games/{state['id']}/tap", json={"source": source})
        assert response.status_code == 200, response.text
        state = response.json()
    return state


def opinion_when(client, game_id: str, ready: Callable[[dict], bool], **flags) -> dict:
    """The game's opinion once ``ready`` says so, waiting on the server for each change."""
    query = "&".join(f"{k}=1" for k, v in flags.items() if v)
    since, deadline = "", time.monotonic() + WAIT
    while True:
        response = client.get(f"/api/games/{game_id}/opinion?since={since}&wait=5&{query}")
        assert response.status_code == 200, response.text
        out = response.json()
        if ready(out):
            return out
        assert time.monotonic() < deadline, f"no such opinion within {WAIT} s: {out}"
        since = out["tag"]


def settled(out: dict) -> bool:
    """The opinion has nothing more coming."""
    return not out["busy"]


def cold_worker(conn) -> None:
    """A solver process that says it compiles the kernels first, as on a cold cache."""
    import time

    from halfmoon.board.jobs import COLD, worker_main

    conn.send(COLD)
    time.sleep(0.5)
    worker_main(conn)
