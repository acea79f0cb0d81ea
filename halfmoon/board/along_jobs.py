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
  (counted as lost beyond it);
- ``("walk", layouts, moves, budget)``: a position in several full layouts (each
  ``[piles, reserve]``, cards as their index 0..51 in one ordered deck, pile cards
  bottom first, an empty reserve slot -1); ``moves``: the legal moves (text, the engine's
  order) when every layout has the same tops, else None (each layout's own); answer
  ``{"verdicts", "seconds", "cpu"}``: for each layout a dict from each legal move to a
  letter, ``w`` (the solver wins the position after it within ``budget`` positions a
  solve), ``l`` (it proves it lost) or ``u`` (unsettled), and ``"*"`` the position's own,
  ``{}`` for a position proved lost; with a fifth item ``only`` (moves), the children of
  those moves only (:func:`some_children`);
- ``("moves", layout, seed, budget, known)``: the fair player's move and the tuned
  player's on the position as ``"along"`` takes it; answer ``{"fair", "tuned"}``.
  The layouts are walked (:func:`solver.walk_games`): the position solved once, its
  children settled by the proofs of the walk where they can be (a child emptied of cards,
  a child won by the position's winning line with one of its moves played first, the
  table of lost positions shared), the others solved; in a position proved lost every
  child is lost; a position left unsettled is solved again within :data:`AGAIN` times
  the budget (lost: every child is; won: the children its line does not prove solved one
  by one; unsettled again: every child is unsettled).
"""

from __future__ import annotations

import random
import time
from typing import Any, Optional, Sequence

from halfmoon.game.cards import Card
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.layouts import parse_layout
from halfmoon.game.moves import Move

FAIR_GROUPS = ("players", "fair")  # the kernels of the fair hint (names of solver.KERNEL_GROUPS)
WALK_GROUPS = ("search", "grouping")  # the kernels of a walk (solver.SOLVING)
AGAIN = 2  # a position a walk leaves unsettled is solved again within this times the budget


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


CARDS = tuple(Card(rank, suit) for suit in range(4) for rank in range(1, 14))  # by index


def layout_deal(layout: Sequence) -> Deal:
    """A full position of a walk job (``[piles, reserve]`` of card indices) as a Deal."""
    piles, reserve = layout
    return Deal(piles=[[CARDS[c] for c in pile] for pile in piles],
                reserve=[CARDS[c] if c >= 0 else None for c in reserve])


def layout_cards(deal: Deal) -> list:
    """The other way: a full position as a walk job takes it."""
    return [[[c.index for c in pile] for pile in deal.piles],
            [-1 if c is None else c.index for c in deal.reserve]]


def children_verdicts(deal: Deal, moves: Optional[Sequence[Move]], budget: int) -> dict:
    """The verdict letter (w, l, u) on the child of each legal move of ``deal`` (``moves``:
    they, in the engine's order, or None to find them); ``{}`` when the position is proved
    lost (every child is).  A position the walk leaves unsettled is solved again within
    :data:`AGAIN` times the budget: lost, every child is; won, each child its line does not
    prove won is solved within the budget; unsettled again, every child is unsettled."""
    from solver import solve, walk_games

    if moves is None:
        moves = list(Game(deal).legal_moves)
    if not moves:
        return {}
    walk = walk_games(deal, [moves[:1]], budget)[0]
    if walk.start == "loss":
        return {}
    if walk.children:
        said = walk.children[0]
        return {"*": "w", **{str(m): said[m][0] for m in moves}}
    result = solve(deal, budget=budget * AGAIN)
    if result.verdict == "loss":
        return {}
    if result.verdict == "unresolved":
        return {"*": "u", **{str(m): "u" for m in moves}}
    return {"*": "w", **_children(deal, list(result.moves), moves, budget)}


def some_children(deal: Deal, moves: Sequence[Move], budget: int) -> dict:
    """The verdict letters of the children of ``moves`` only, and the position's own
    (``"*"``): the position solved first (lost: ``{}``, every child is); where it is won,
    a move its winning line can play first is won (the line wins without it), the others
    solved one by one."""
    from solver import solve

    result = solve(deal, budget=budget)
    if result.verdict == "loss":
        return {}
    out = {"*": result.verdict[0]}
    return {**out, **_children(deal, list(result.moves or ()), moves, budget)}


def _children(deal: Deal, line: list, moves: Sequence[Move], budget: int) -> dict:
    """The verdict letters of the children of ``moves`` in a position won by ``line`` (or
    not known to be won: ``line`` empty): a move the line can play first is won, the others
    solved one by one."""
    from solver import solve

    out = {}
    for move in moves:
        if _first_of(line, move):
            out[str(move)] = "w"
            continue
        child = _without(deal, move)
        out[str(move)] = ("w" if not any(child.piles) and not any(child.reserve) else
                          solve(child, budget=budget).verdict[0])
    return out


def _first_of(line: list, move: Move) -> bool:
    """Whether ``move`` is in ``line`` and no earlier move of it takes a card of its
    sources (so the line, without it, wins after it)."""
    touched: set = set()
    mine = set(move.sources)
    for m in line:
        if set(m.sources) == mine:
            return not touched & mine
        touched |= set(m.sources)
    return False


def _without(deal: Deal, move: Move) -> Deal:
    """The position after ``move``: its sources' cards taken away."""
    piles = [list(p) for p in deal.piles]
    reserve = list(deal.reserve)
    for source in move.sources:
        if source[0] == "P":
            piles[int(source[1:]) - 1].pop()
        else:
            reserve[int(source[1:]) - 1] = None
    return Deal(piles=piles, reserve=reserve)


_walking: list = []  # this process's kernels made ready for walks (once)
_deciding: list = []  # and for the players' moves (once: a check costs some 6 ms)


def walk_job(layouts: Sequence, moves: Optional[Sequence[str]], budget: int,
             only: Optional[Sequence[str]] = None) -> dict[str, Any]:
    from solver import warm_up

    if not _walking:
        warm_up(WALK_GROUPS, out=None)
        _walking.append(True)
    t, c = time.perf_counter(), time.process_time()
    if only is not None:
        wanted = [Move.parse(m) for m in only]
        verdicts = [some_children(layout_deal(layout), wanted, budget) for layout in layouts]
    else:
        legal = None if moves is None else [Move.parse(m) for m in moves]
        verdicts = [children_verdicts(layout_deal(layout), legal, budget)
                    for layout in layouts]
    return {"verdicts": verdicts, "seconds": time.perf_counter() - t,
            "cpu": time.process_time() - c}


def moves_job(layout: str, seed: int, budget: int, known: Sequence = ()) -> dict[str, Any]:
    """The fair player's move and the tuned player's (the ties of the recommendation) on a
    position given as :func:`along_job` takes it."""
    from halfmoon.research.fairplay import fair_hint
    from solver import warm_up

    position = parse_layout(layout, name="position")
    if not _deciding:
        warm_up(FAIR_GROUPS, out=None)
        _deciding.append(True)
    t, c = time.perf_counter(), time.process_time()
    places = [tuple(p) for p in known]
    fair = fair_hint(position, 1, seed, budget, known=places)["move"]
    tuned = fair_hint(position, 1, seed, budget, player="tuned", known=places)["move"]
    return {"fair": fair, "tuned": tuned, "seconds": time.perf_counter() - t,
            "cpu": time.process_time() - c}


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
