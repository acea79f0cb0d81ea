"""The fair hint: what a fair player can say about a position it sees only as the app
shows it — the move it would make, and for each legal move how often the solver wins its
child in layouts drawn from the view (as the PIMC player weighs them, :mod:`.pimc`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.moves import Move

from ..mirror.convert import deal_arrays, delta_to_move
from ..mirror.position import MAX_MOVES, all_moves, initial_position
from .bandit import bandit_decide, new_solver
from .fair import base_choice, decide, new_tree, view_layout
from .pimc import child_solves
from .roster import TABLE_BITS, Player


@dataclass(frozen=True)
class FairHint:
    """The fair hint on a position: ``move``, the player's move (None when no move is
    left); ``samples``, the layouts drawn (0 when no move is left); and for each legal move
    ``moves[j]`` (the engine's order), ``keeps[j]`` layouts in which the solver wins the
    position after it and ``unresolved[j]`` in which it could not settle it."""

    move: Optional[Move]
    samples: int
    moves: tuple[Move, ...]
    keeps: tuple[int, ...]
    unresolved: tuple[int, ...]


def fair_hint(position: Deal, player: Player, samples: int, seed: int, budget: int) -> FairHint:
    """The fair hint on ``position`` (see :class:`FairHint`): ``player``'s move decided on
    the view, and the children solved in ``samples`` layouts drawn from it (``budget``
    positions a solve), the random numbers seeded with ``seed`` (modulo 2**64)."""
    piles, reserve = deal_arrays(position)
    pos = np.uint64(initial_position(piles, reserve))
    moves = np.empty(MAX_MOVES, np.uint64)
    m = int(all_moves(piles, reserve, pos, moves))
    if m == 0:
        return FairHint(None, 0, (), (), ())
    state = np.array([seed % (1 << 64)], np.uint64)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    if player.kind == "kernel":
        k = int(decide(piles, reserve, pos, moves, m, player.code, player.base, player.params(),
                       state, *new_tree(TABLE_BITS), np.zeros(1, np.int64), np.zeros_like(piles)))
    elif player.kind == "bandit":
        k = int(bandit_decide(piles, reserve, pos, moves, m, player.base, player.params(), state,
                              new_solver(view, reserve, player.budget), np.zeros(1, np.int64),
                              np.zeros_like(piles)))
    else:
        k = int(base_choice(view, reserve, pos, moves, m, player.code))
    keeps, unknown, _ = child_solves(view, reserve, pos, moves, m, samples, state, budget)
    legal = tuple(delta_to_move(int(moves[j])) for j in range(m))
    return FairHint(legal[k], int(samples), legal, tuple(int(x) for x in keeps[:m]),
                    tuple(int(x) for x in unknown[:m]))
