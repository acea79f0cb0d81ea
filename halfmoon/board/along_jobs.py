"""What a solver process does for a game played along with the app (plain data in and out,
as :mod:`halfmoon.board.jobs`):

- ``("along", layout, samples, seed, budget, known)``: the position given as layout text,
  the cards under the tops being the cards not seen yet (in any order: they are drawn
  again) except at the places ``known`` lists (``[pile, depth]``, cards told and then
  covered again by an undo), which keep their cards;
  answer ``{"samples", "wins", "unresolved", "move", "moves", ...}``: the fair hint
  (:func:`halfmoon.research.fairplay.fair_hint`: the fair player's move, each legal move's
  ``keeps`` and its paired difference with the best, the recommendation) on ``samples``
  layouts of those cards drawn uniformly, and from the same layouts in how many the
  position is won (``wins``: some move keeps the win; ``unresolved``: none does and some
  child was not settled within ``budget`` positions);
- ``("review", layout, unknown, moves, samples, seed, budget)``: a finished game; ``layout``
  is its deal as known by the end, ``unknown`` the places ``[pile, depth]`` whose card was
  never seen (their cards are drawn again), ``moves`` the game's moves; answer
  ``{"samples", "wins", "unresolved"}``: ``wins[k]`` layouts in which the position after
  ``k`` moves can be won (along one game a position before a winnable one is winnable,
  so each layout needs only a bisection), ``unresolved`` layouts with a solve unsettled
  (counted as lost beyond it).
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.layouts import parse_layout
from halfmoon.game.moves import Move

FAIR_GROUPS = ("players", "fair")  # the kernels of the fair hint (names of solver.KERNEL_GROUPS)


def hidden_places(position: Deal) -> list[tuple[int, int]]:
    """(pile, depth) of the cards under the tops of ``position``."""
    return [(i, d) for i, pile in enumerate(position.piles) for d in range(len(pile) - 1)]


def shuffled(deal: Deal, places: Sequence[tuple[int, int]], rng: random.Random) -> Deal:
    """``deal`` with the cards of ``places`` dealt again among them, uniformly."""
    cards = [deal.piles[i][d] for i, d in places]
    rng.shuffle(cards)
    piles = [list(p) for p in deal.piles]
    for (i, d), card in zip(places, cards):
        piles[i][d] = card
    return Deal(piles=piles, reserve=deal.reserve)


def along_job(layout: str, samples: int, seed: int, budget: int,
              known: Sequence = ()) -> dict[str, Any]:
    from halfmoon.research.fairplay import fair_hint
    from solver import warm_up

    position = parse_layout(layout, name="position")
    warm_up(FAIR_GROUPS, out=None)
    hint = fair_hint(position, samples, seed, budget, known=[tuple(p) for p in known])
    # the position's share from the moves' layouts: won where some move keeps the win
    return {"samples": samples, "wins": hint["position_wins"],
            "unresolved": hint["position_open"], **hint}


def last_winnable(deal: Deal, moves: Sequence[Move], budget: int, known_end: bool) -> tuple:
    """The last ply along ``moves`` at which the game on ``deal`` can be won (-1: none), by
    bisection; ``known_end``: the position after every move is known lost (a dead end).
    Returns (ply, whether a solve was unsettled)."""
    from solver import solve

    def win(ply: int) -> tuple[bool, bool]:
        game = Game(deal)
        for move in moves[:ply]:
            game.push(move)
        if game.is_won:
            return True, False
        verdict = solve(game.remaining_deal(), budget=budget).verdict
        return verdict == "win", verdict == "unresolved"

    low, high = -1, len(moves) + 1  # win at low (or none), not at high
    if known_end:
        high = len(moves)
    unsettled = False
    while high - low > 1:
        mid = (low + high) // 2
        ok, unknown = win(mid)
        unsettled = unsettled or unknown
        low, high = (mid, high) if ok else (low, mid)
    return low, unsettled


def review_job(layout: str, unknown: list, moves: list, samples: int, seed: int,
               budget: int) -> dict[str, Any]:
    deal = parse_layout(layout, name="deal")
    line = [Move.parse(m) for m in moves]
    places = [(int(i), int(d)) for i, d in unknown]
    end = Game(deal)
    for move in line:
        end.push(move)
    known_end = not end.is_won and end.is_dead_end
    rng = random.Random(seed)
    wins = [0] * (len(line) + 1)
    unresolved = 0
    runs = 1 if not places else samples  # nothing unknown: one layout is all of them
    for _ in range(runs):
        ply, unsettled = last_winnable(shuffled(deal, places, rng), line, budget, known_end)
        unresolved += unsettled
        for k in range(ply + 1):
            wins[k] += 1
    if runs != samples:
        wins = [w * samples for w in wins]
    return {"samples": samples, "wins": wins, "unresolved": unresolved * samples // runs}
