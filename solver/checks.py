"""The front door's checks of its inputs (:mod:`solver.api`): each takes what a caller gave
and returns it in the form the solver takes (a Deal, an int64 array, ...), or raises a
:class:`~halfmoon.game.errors.HalfMoonError` naming what is wrong."""

from __future__ import annotations

from numbers import Integral
from typing import Iterable, Optional

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import Move

from .players import games as _games
from .players import roster as _roster
from .players.games import DealBatch
from .players.roster import Player
from .portfolio.search import _as_deal


def check_budget(budget) -> int:
    if isinstance(budget, bool) or not isinstance(budget, Integral):
        raise HalfMoonError(f"budget must be a whole number of positions, got {budget!r}")
    if budget < 1:
        raise HalfMoonError(f"budget must be at least 1 position, got {budget}")
    return int(budget)


def check_deal(deal) -> Deal:
    if isinstance(deal, bool) or not isinstance(deal, (Deal, str, Integral)):
        raise HalfMoonError("expected a Deal, a deal code, a deal number or a layout file, "
                            f"got {deal!r}")
    d = _as_deal(int(deal) if isinstance(deal, Integral) else deal)
    if d.is_partial:
        raise HalfMoonError(f"a partial deal ({sum(d.unknown().values())} cards not known yet, "
                            "??): the solver needs every card; halfmoon.research.partial "
                            "analyses a partial position on layouts drawn from it")
    return d


def check_total(total) -> Optional[int]:
    if total is None:
        return None
    if isinstance(total, bool) or not isinstance(total, Integral) or total < 1:
        raise HalfMoonError(f"total must be at least 1 position, got {total!r}")
    return int(total)


def check_numbers(numbers) -> np.ndarray:
    from halfmoon.game.codes import MAX_NUMBER

    nums = np.asarray(numbers)
    if nums.ndim != 1 or (nums.size and nums.dtype.kind not in "iu"):
        raise HalfMoonError("deal numbers must be a flat sequence of whole numbers")
    nums = np.ascontiguousarray(nums, dtype=np.int64)
    bad = nums[(nums < 0) | (nums > MAX_NUMBER)]
    if bad.size:
        raise HalfMoonError(f"deal number {int(bad[0])} is outside 0..{MAX_NUMBER}")
    return nums


def check_games(games) -> list[list[Move]]:
    if isinstance(games, (str, bytes, Move)) or not isinstance(games, Iterable):
        raise HalfMoonError(f"games must be a sequence of games (of Moves each), got {games!r}")
    out = []
    for g, moves in enumerate(games):
        if isinstance(moves, (str, bytes, Move)) or not isinstance(moves, Iterable):
            raise HalfMoonError(f"game {g} must be a sequence of Moves, got {moves!r}")
        moves = list(moves)
        for ply, m in enumerate(moves):
            if not isinstance(m, Move):
                raise HalfMoonError(f"game {g}: ply {ply} is not a Move, got {m!r}")
        out.append(moves)
    return out


def check_whole(value, what: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < least:
        raise HalfMoonError(f"{what} must be a whole number of at least {least}, got {value!r}")
    return int(value)


def check_deals(deals) -> DealBatch:
    if isinstance(deals, DealBatch):
        return deals
    if isinstance(deals, np.ndarray):
        return _games.deal_batch(check_numbers(deals))
    if isinstance(deals, (str, Deal)) or not isinstance(deals, Iterable):
        raise HalfMoonError(f"expected a sequence of deals (Deals, codes or numbers), "
                            f"got {deals!r}")
    items = list(deals)
    if all(isinstance(d, Integral) and not isinstance(d, bool) for d in items):
        return _games.deal_batch(check_numbers(items))
    return _games.deal_batch([check_deal(d) for d in items])


def check_seeds(seeds, n: int) -> np.ndarray:
    if seeds is None:
        return np.zeros(n, np.uint64)
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise HalfMoonError(f"seeds must be a sequence of whole numbers, got {seeds!r}")
    values = list(seeds)
    for s in values:
        if isinstance(s, bool) or not isinstance(s, Integral) or not 0 <= s < 1 << 64:
            raise HalfMoonError(f"a seed must be a whole number in 0..2**64-1, got {s!r}")
    if len(values) != n:
        raise HalfMoonError(f"expected a seed for each of the {n} deals, got {len(values)}")
    return np.array([int(s) for s in values], np.uint64)


def check_player(player) -> Player:
    if isinstance(player, Player):
        if player.kind not in _roster.KINDS:
            raise HalfMoonError(f"player {player.name!r} is of no known kind: {player.kind!r}")
        return player
    if not isinstance(player, str):
        raise HalfMoonError(f"expected a player's name or a Player, got {player!r}")
    return _roster.player_named(player)


def check_known(d: Deal, known) -> Optional[np.ndarray]:
    """``known`` places under the tops of ``d`` as the samplers' mask (None: none)."""
    if isinstance(known, (str, bytes)) or not isinstance(known, Iterable):
        raise HalfMoonError(f"known must be places (pile, depth), got {known!r}")
    places = list(known)
    if not places:
        return None
    mask = np.zeros((len(d.piles), max(len(p) for p in d.piles) or 1), np.bool_)
    for place in places:
        ok = (isinstance(place, (tuple, list)) and len(place) == 2
              and all(isinstance(x, Integral) and not isinstance(x, bool) for x in place))
        if not ok or not (0 <= place[0] < len(d.piles)
                          and 0 <= place[1] < len(d.piles[place[0]]) - 1):
            raise HalfMoonError(f"known place {place!r} is not under a pile's top (pile "
                                f"0-{len(d.piles) - 1}, depth below the top)")
        mask[place[0], place[1]] = True
    return mask
