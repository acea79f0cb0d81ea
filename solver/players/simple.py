"""Simple players over the packed mirror: a random, a greedy, a lookahead and a tuned player.

Each turn a player looks at the legal moves of the position (the unpruned
:func:`solver.mirror.position.all_moves`, in the reference engine's order) and picks one,
until the game is won or stuck.  None of them uses what the app does not show: the
app shows the top card of each pile and the reserve, and the card under a top only
when the top is removed (see the rules), so the cards under the tops are hidden.

- **Random** (``RANDOM``): a uniformly random legal move each turn.  The random
  numbers come from SplitMix64 (the generator of the deal codes) seeded per game,
  and a uniform index in ``[0, m)`` is drawn by rejection, so a game is exactly
  reproducible from its seed on every machine.
- **Greedy** (``GREEDY``): the legal move with the largest key, compared in order:

  1. cards uncovered: the move's pile cards that cover another card (their pile
     holds at least two cards), since each one brings a new card into play;
  2. pairs before triplets;
  3. the sum of the sizes of the piles the move takes from (dig into the fullest
     piles first; reserve cards count 0, so pile cards are preferred to them);

  and ties go to the first move in the engine's order (sources P1..P12, R1..R8).

  The rule won the most deals of the few simple ones tried (docs/tuning-log.md, 2026-12-04).
- **Lookahead** (``LOOKAHEAD``, ``depth`` D = 2 by default, or 1 or 3): thinks D moves
  ahead over the cards in view (the pile tops and the reserve).  A card that a move
  would uncover is unknown, so a line never uses it, nor a second card of a pile it
  has taken from: a *line* is a set of up to D legal moves of the position with no
  card in common, played out to D moves unless no such move is left.  The end of a
  line is scored by, in order (larger is better):

  1. the line removes every card left (a win);
  2. it is not a sure dead end: it uncovers a card, or a move is left in view;
  3. u × h: u, the cards the line uncovers (its pile cards that cover another card),
     times h, the hidden cards that would be playable at once with the cards left in
     view (a number card whose partner rank is in view; a face card whose two other
     face ranks are both in view).  h counts the hidden cards by rank, which a player
     knows by counting the two decks against the cards removed and in view, never by
     place: u × h / (hidden cards) is the number of uncovered cards expected to be
     playable with the cards left in view;
  4. the pairs in the line;
  5. the sum of the sizes of the piles the line takes from, each counted as in the
     greedy key (the pile's size now).

  The player makes the move whose best line scores highest; ties go to the larger
  greedy key, then to the first move in the engine's order.  Deterministic.

  Depth 2 is the default: depth 3 is slower and wins no more, since the next cards are
  hidden (the figures, and the scores tried: docs/tuning-log.md, 2026-12-04).

- **Tuned** (``TUNED``): the move with the largest weighted sum of 18 features a fair
  player can compute (:mod:`solver.players.features`), with weights fitted on random
  deals by the cross-entropy method (:mod:`halfmoon.research.tuning`).  Deterministic.

Each game writes its moves, as deltas, into ``line`` (uint64[48]).  Like the other
kernels, this module imports nothing from the project outside :mod:`solver`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.generator import below
from ..mirror.position import (
    MAX_MOVES,
    NPILES,
    NRESERVE,
    NSOURCES,
    all_moves,
    cards_left,
    delta_sources,
    pile_count,
)
from .features import NMOVE_FEATURES, TUNED_WEIGHTS, count_view, playable_with, weighted_choice

RANDOM = 0
GREEDY = 1
LOOKAHEAD = 2
TUNED = 5  # after the fair players' ROLLOUT (3) and MCTS (4)
MAX_DEPTH = 3


@njit(cache=True)
def _greedy_key(pos, delta):
    """The greedy player's key of a move (larger is better), packed in one integer."""
    uncovered = 0
    sizes = 0
    nsrc = 0
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            nsrc += 1
            c = pile_count(pos, i)
            sizes += c
            if c >= 2:
                uncovered += 1
    for r in range(NRESERVE):
        if (delta >> np.uint64(48 + r)) & np.uint64(1):
            nsrc += 1
    pair = 1 if nsrc == 2 else 0
    # uncovered <= 3, pair <= 1, sizes <= 24 < 32
    return (uncovered * 2 + pair) * 32 + sizes


@njit(cache=True)
def _line_score(view, hidden, line_ranks, nlr, removed, total, uncovered, pairs, sizes):
    """The lookahead player's score of a line (larger is better), packed in one integer.

    ``view`` counts the ranks in view before the line (index 1..13), ``line_ranks[:nlr]``
    are the ranks the line removes, ``hidden`` counts the ranks of the cards not in view.
    """
    if removed == total:
        return np.int64(1) << 40  # the line wins
    for k in range(nlr):
        view[line_ranks[k]] -= 1
    # cards not in view that would be playable at once with the cards left in view
    receptive = playable_with(view, hidden)
    alive = 1
    if uncovered == 0:  # nothing new comes into view: a dead end unless a move is left
        alive = 1 if view[11] > 0 and view[12] > 0 and view[13] > 0 else 0
        for r in range(1, 6):
            if view[r] > 0 and view[11 - r] > 0:
                alive = 1
    for k in range(nlr):
        view[line_ranks[k]] += 1
    # uncovered <= 9 and receptive <= 96: the product < 1024; pairs <= 3; sizes <= 72 < 128
    return ((alive * 1024 + uncovered * receptive) * 4 + pairs) * 128 + sizes


@njit(cache=True)
def _score_group(view, hidden, total, line_ranks, mranks, ncards, unc, sizes, group, ng, best):
    """Score the line of the moves ``group[:ng]`` (disjoint sources, so any order) and
    raise each one's best score to it."""
    nlr = 0
    uncovered = 0
    pairs = 0
    size = 0
    for i in range(ng):
        j = group[i]
        for q in range(ncards[j]):
            line_ranks[nlr] = mranks[j, q]
            nlr += 1
        uncovered += unc[j]
        pairs += 1 if ncards[j] == 2 else 0
        size += sizes[j]
    sc = _line_score(view, hidden, line_ranks, nlr, nlr, total, uncovered, pairs, size)
    for i in range(ng):
        if sc > best[group[i]]:
            best[group[i]] = sc


@njit(cache=True)
def lookahead_choice(piles, reserve, pos, moves, m, depth):
    """The index of the lookahead player's move among ``moves[:m]`` (see the module)."""
    view = np.zeros(14, np.int64)
    hidden = np.zeros(14, np.int64)
    rank = np.zeros(NSOURCES, np.int64)
    count_view(piles, reserve, pos, view, hidden, rank)  # ranks, not places
    total = cards_left(pos)
    # each move: the sources it uses (bits 0..19), its ranks and its share of the score
    used = np.zeros(m, np.int64)
    mranks = np.zeros((m, 3), np.int64)
    ncards = np.zeros(m, np.int64)
    unc = np.zeros(m, np.int64)
    sizes = np.zeros(m, np.int64)
    srcs = np.empty(3, np.int64)
    for j in range(m):
        n = delta_sources(moves[j], srcs)
        ncards[j] = n
        for q in range(n):
            s = srcs[q]
            used[j] |= np.int64(1) << s
            mranks[j, q] = rank[s]
            if s < NPILES:
                c = pile_count(pos, s)
                sizes[j] += c
                if c >= 2:
                    unc[j] += 1
    line_ranks = np.zeros(3 * MAX_DEPTH, np.int64)
    group = np.zeros(MAX_DEPTH, np.int64)
    best = np.full(m, -1, np.int64)
    for a in range(m):
        extended = False
        if depth >= 2:
            for b in range(a + 1, m):
                if used[a] & used[b]:
                    continue
                extended = True
                ab = used[a] | used[b]
                extended2 = False
                if depth >= 3:
                    for c in range(m):
                        if c == a or c == b or (used[c] & ab):
                            continue
                        extended2 = True
                        if c < b:  # each set of three once
                            continue
                        group[0], group[1], group[2] = a, b, c
                        _score_group(view, hidden, total, line_ranks, mranks, ncards, unc, sizes,
                                     group, 3, best)
                if not extended2:
                    group[0], group[1] = a, b
                    _score_group(view, hidden, total, line_ranks, mranks, ncards, unc, sizes,
                                 group, 2, best)
            if not extended:
                for b in range(a):
                    if not used[a] & used[b]:
                        extended = True
                        break
        if not extended:
            group[0] = a
            _score_group(view, hidden, total, line_ranks, mranks, ncards, unc, sizes, group, 1,
                         best)
    k = 0
    kkey = _greedy_key(pos, moves[0])
    for j in range(1, m):
        if best[j] < best[k]:
            continue
        key = _greedy_key(pos, moves[j])
        if best[j] > best[k] or key > kkey:
            k = j
            kkey = key
    return k


@njit(cache=True)
def greedy_choice(pos, moves, m):
    """The index of the greedy player's move among ``moves[:m]``: the largest key, ties to the
    first."""
    k = 0
    best = _greedy_key(pos, moves[0])
    for j in range(1, m):
        key = _greedy_key(pos, moves[j])
        if key > best:
            best = key
            k = j
    return k


@njit(cache=True)
def play_game(piles, reserve, pos, strategy, state, line, depth=2):
    """Play one game from ``pos``; return (moves made, final position).

    The game is won when the final position is 0.  ``state`` is the random
    player's one-element SplitMix64 state (ignored by the other players);
    ``depth`` is the lookahead player's number of moves (1 to 3; ignored by the others).
    """
    moves = np.empty(MAX_MOVES, np.uint64)
    scratch = np.empty((MAX_MOVES if strategy == TUNED else 1, NMOVE_FEATURES), np.float64)
    n = 0
    while pos != np.uint64(0):
        m = all_moves(piles, reserve, pos, moves)
        if m == 0:
            break
        if strategy == RANDOM:
            k = below(state, m)
        elif strategy == LOOKAHEAD:
            k = lookahead_choice(piles, reserve, pos, moves, m, depth)
        elif strategy == TUNED:
            k = weighted_choice(piles, reserve, pos, moves, m, TUNED_WEIGHTS, scratch)
        else:
            k = greedy_choice(pos, moves, m)
        line[n] = moves[k]
        n += 1
        pos = pos - moves[k]
    return n, pos


@njit(cache=True)
def play_batch(piles, reserve, roots, strategy, seeds, lines, nmoves, finals, depth=2):
    """Play one game on each deal ``d`` (``piles[d]``, ``reserve[d]``, ``roots[d]``).

    Fills ``lines[d]`` with the moves, ``nmoves[d]`` with their number and
    ``finals[d]`` with the final position; ``seeds[d]`` seeds the random player and
    ``depth`` is the lookahead player's.
    """
    state = np.empty(1, np.uint64)
    for d in range(roots.shape[0]):
        state[0] = seeds[d]
        n, pos = play_game(piles[d], reserve[d], roots[d], strategy, state, lines[d], depth)
        nmoves[d] = n
        finals[d] = pos
