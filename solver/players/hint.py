"""The fair hint: what a fair player can say about a position it sees only as the app
shows it — the move it would make, and for each legal move how often the solver wins its
child in layouts drawn from the view, the same layouts for every move and for the position
(:mod:`.paired`): the position's share, each move against the best with its paired
interval, and the recommendation (the move of largest share, ties to the tuned player's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.moves import Move

from ..mirror.convert import deal_arrays, delta_to_move
from ..mirror.position import DEPTH, MAX_MOVES, NPILES, all_moves, initial_position
from ..verdicts import UNRESOLVED
from .bandit import bandit_decide, new_solver
from .fair import base_choice, decide, new_tree, view_layout
from .paired import Z95, child_table, compare, position_counts
from .roster import FAIR, PLAYERS, TABLE_BITS, Player
from .simple import TUNED


@dataclass(frozen=True)
class FairHint:
    """The fair hint on a position: ``move``, the player's move (None when no move is
    left); ``samples``, the layouts drawn (0 when no move is left); and for each legal move
    ``moves[j]`` (the engine's order), ``keeps[j]`` layouts in which the solver wins the
    position after it and ``unresolved[j]`` in which it could not settle it.  From the same
    layouts (:mod:`.paired`): ``wins``, those in which some move's child is won (the
    position's share), ``open`` those with none won and some not settled; ``best`` the move
    of most ``keeps`` (ties to the tuned player's move, then to the first in the engine's
    order); for each move ``only[j]`` layouts won after it and not after the best,
    ``only_best[j]`` the other way, ``low[j]``/``high[j]`` the 95 % interval of its share
    minus the best's (Newcombe's, paired); ``recommended``: the board's recommendation,
    ``best`` (never below any move's share, so never clearly below the best's)."""

    move: Optional[Move]
    samples: int
    moves: tuple[Move, ...]
    keeps: tuple[int, ...]
    unresolved: tuple[int, ...]
    wins: int = 0
    open: int = 0
    best: Optional[Move] = None
    recommended: Optional[Move] = None
    only: tuple[int, ...] = ()
    only_best: tuple[int, ...] = ()
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()


def fair_hint(position: Deal, player: Player, samples: int, seed: int, budget: int,
              known: Optional[np.ndarray] = None) -> FairHint:
    """The fair hint on ``position`` (see :class:`FairHint`): ``player``'s move decided on
    the view, and the children solved in ``samples`` layouts drawn from it (``budget``
    positions a solve), the random numbers seeded with ``seed`` (modulo 2**64); ``known``
    (a boolean mask of pile and depth, or None) the places under the tops whose cards every
    layout keeps where ``position`` has them."""
    piles, reserve = deal_arrays(position)
    pos = np.uint64(initial_position(piles, reserve))
    moves = np.empty(MAX_MOVES, np.uint64)
    m = int(all_moves(piles, reserve, pos, moves))
    if m == 0:
        return FairHint(None, 0, (), (), ())
    state = np.array([seed % (1 << 64)], np.uint64)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    if player.kind == "recommend":  # its move is the recommendation made below
        player = PLAYERS[FAIR]
    if player.kind == "kernel":
        k = int(decide(piles, reserve, pos, moves, m, player.code, player.base, player.params(),
                       state, *new_tree(TABLE_BITS), np.zeros(1, np.int64), np.zeros_like(piles)))
    elif player.kind == "bandit":
        k = int(bandit_decide(piles, reserve, pos, moves, m, player.base, player.params(), state,
                              new_solver(view, reserve, player.budget), np.zeros(1, np.int64),
                              np.zeros_like(piles)))
    else:
        k = int(base_choice(view, reserve, pos, moves, m, player.code))
    if known is None:
        table = child_table(view, reserve, pos, moves, m, samples, state, budget)
    else:  # the known cards in their places: the position itself, the rest drawn again
        fixed = np.zeros((NPILES, DEPTH), np.bool_)
        fixed[:known.shape[0], :known.shape[1]] = known
        table = child_table(piles, reserve, pos, moves, m, samples, state, budget, fixed)
    cmp = np.zeros((m, 5), np.float64)
    tie = int(base_choice(view, reserve, pos, moves, m, TUNED))
    best = rec = compare(table, tie, Z95, cmp)
    wins, open_ = position_counts(table)
    legal = tuple(delta_to_move(int(moves[j])) for j in range(m))
    return FairHint(legal[k], int(samples), legal, tuple(int(x) for x in cmp[:, 0]),
                    tuple(int(x) for x in (table == UNRESOLVED).sum(axis=0)), wins, open_,
                    legal[int(best)], legal[int(rec)], tuple(int(x) for x in cmp[:, 1]),
                    tuple(int(x) for x in cmp[:, 2]), tuple(float(x) for x in cmp[:, 3]),
                    tuple(float(x) for x in cmp[:, 4]))
