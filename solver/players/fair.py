"""Fair play over the packed mirror: what a player who sees only the app's cards knows, the
layouts consistent with it, and players that decide from it alone.

**The view.**  A player sees the top card of each pile, the reserve, how many cards each
pile holds, and every card removed so far; counting the two decks against those gives the
multiset of the hidden cards (the cards under the tops), not their places.  For a
uniformly shuffled deal, the hidden cards' places given all that are uniform over the
arrangements of that multiset into the hidden places (the hidden places are exchangeable),
so a layout consistent with the view is drawn by shuffling the multiset into them
(:func:`sample_layout`).  The players below never receive the deal: each decision is made
on :func:`view_layout`, a layout whose hidden places hold the hidden multiset in a fixed
order (rank by rank, pile by pile), which is the same for every deal that shows the same
view.  So no decision can depend on where the hidden cards really lie; the tests check it
by shuffling them.

**The game a fair player plays** is then a Markov decision process on views: a move is a
choice among the legal moves (they depend on the visible cards only), and each pile card
it takes uncovers the next card of its pile, a chance event whose law is the hidden
multiset's (exchangeability again).  Its states are the views: the position (the piles'
counts and the reserve), the ranks on the tops and the hidden multiset
(:func:`view_key` hashes them).

**The players** (each a function choosing a move index on the view):

- ``rollout_choice``: the base player's (greedy's or lookahead's) move, unless paired
  evidence says otherwise.  The same sampled layouts are used for every move of a decision
  (paired samples); on each, the base player plays each move's child to the end.  Samples
  come in rounds; after each round a move whose paired difference against the base move is
  clearly negative (its upper ``z`` bound below 0) is dropped, so later samples go to the
  moves still close to the base move; at the end the move with the largest mean difference
  is played if its lower ``z`` bound is above 0, else the base move.
- ``mcts_choice``: UCT on the fair game's states (chance nodes included, so no strategy
  fusion: a decision after a card is uncovered is taken knowing that card).  Each iteration
  draws a layout consistent with the root's view, which fixes the chance outcomes along its
  path as their law says; it descends the tree by UCB1 over the moves' win rates (a move
  never tried first, the base player's move before the others), plays the base player from
  the first new state to the end and counts the game's outcome along the path.  The tree's
  statistics live in a hash table keyed by the views (:func:`view_key`) and by a view and a
  move, so transpositions share them and a game's later decisions reuse its earlier
  searches.  The move tried most at the root is played if its win rate beats the base
  move's by ``z`` standard errors, else the base move.

Random numbers come from SplitMix64 (:mod:`solver.mirror.generator`): a player is
reproducible from its seed.  Like the other kernels, this module imports nothing outside
:mod:`solver`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.generator import below
from ..mirror.position import (
    DEPTH,
    MAX_MOVES,
    MAX_PLY,
    NPILES,
    NRESERVE,
    RESERVE_SHIFT,
    all_moves,
    cards_left,
    pile_count,
)
from .features import NMOVE_FEATURES, TUNED_WEIGHTS, weighted_choice
from .simple import LOOKAHEAD, TUNED, greedy_choice, lookahead_choice, play_game

NRANKS = 13
ROLLOUT = 3  # player codes after the simple players' RANDOM, GREEDY, LOOKAHEAD
MCTS = 4
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_EDGE = np.uint64(0x9E3779B97F4A7C15)


# --- the view ---------------------------------------------------------------------------
@njit(cache=True)
def hidden_counts(piles, pos, hidden):
    """The hidden multiset of position ``pos``: ``hidden[r]`` cards of rank r (1..13) lie
    under the pile tops.  Returns how many."""
    for r in range(NRANKS + 1):
        hidden[r] = 0
    n = 0
    for i in range(NPILES):
        for k in range(pile_count(pos, i) - 1):
            hidden[piles[i, k]] += 1
            n += 1
    return n


@njit(cache=True)
def view_layout(piles, pos, out):
    """The layout a fair player decides on: ``piles``' tops at position ``pos``, the hidden
    multiset in the hidden places rank by rank (P1's bottom first), removed places 0."""
    hidden = np.zeros(NRANKS + 1, np.int64)
    hidden_counts(piles, pos, hidden)
    r = 1
    for i in range(NPILES):
        c = pile_count(pos, i)
        for k in range(DEPTH):
            if k >= c:
                out[i, k] = 0
            elif k == c - 1:
                out[i, k] = piles[i, k]
            else:
                while hidden[r] == 0:
                    r += 1
                out[i, k] = r
                hidden[r] -= 1


@njit(cache=True)
def shuffle_into(out, slots, ranks, n, state):
    """Shuffle ``ranks[:n]`` (Fisher–Yates with ``state``'s SplitMix64) and put them into
    ``out`` at ``slots[:n]`` (``pile * DEPTH + depth``).  Returns ``n``."""
    for j in range(n - 1, 0, -1):
        t = below(state, j + 1)
        x = ranks[j]
        ranks[j] = ranks[t]
        ranks[t] = x
    for j in range(n):
        out[slots[j] // DEPTH, slots[j] % DEPTH] = ranks[j]
    return n


@njit(cache=True)
def sample_layout(view, pos, state, out):
    """A layout drawn uniformly among those consistent with the view ``view`` (a layout
    whose hidden places hold the hidden multiset) at ``pos``: the hidden places' cards
    shuffled (Fisher–Yates with ``state``'s SplitMix64), the rest as in ``view``."""
    slots = np.empty(NPILES * DEPTH, np.int64)
    ranks = np.empty(NPILES * DEPTH, np.int8)
    n = 0
    for i in range(NPILES):
        c = pile_count(pos, i)
        for k in range(DEPTH):
            out[i, k] = view[i, k]
            if k < c - 1:
                slots[n] = i * DEPTH + k
                ranks[n] = view[i, k]
                n += 1
    return shuffle_into(out, slots, ranks, n, state)


@njit(cache=True)
def view_key(piles, pos, hidden):
    """A 64-bit hash of the view at ``pos`` of layout ``piles`` (the tops' ranks) with the
    hidden multiset ``hidden``: the state of the fair game (the reserve's ranks are the
    deal's, fixed, and which are left is in ``pos``)."""
    tops = np.uint64(0)
    for i in range(NPILES):
        c = pile_count(pos, i)
        if c > 0:
            tops |= np.uint64(piles[i, c - 1]) << np.uint64(4 * i)
    counts = np.uint64(0)
    for r in range(1, NRANKS + 1):
        counts |= np.uint64(hidden[r]) << np.uint64(4 * (r - 1))
    return _mix(_mix(_mix(pos) ^ tops) ^ counts)


@njit(cache=True, inline='always')
def _mix(x):
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


# --- the base players -------------------------------------------------------------------
@njit(cache=True)
def base_choice(piles, reserve, pos, moves, m, base):
    """The move index of the greedy (``GREEDY``), lookahead (``LOOKAHEAD``) or tuned
    (``TUNED``) player."""
    if base == LOOKAHEAD:
        return lookahead_choice(piles, reserve, pos, moves, m, 2)
    if base == TUNED:
        return weighted_choice(piles, reserve, pos, moves, m, TUNED_WEIGHTS,
                               np.empty((MAX_MOVES, NMOVE_FEATURES), np.float64))
    return greedy_choice(pos, moves, m)


@njit(cache=True)
def rollout(piles, reserve, pos, base, line):
    """1 if the base player wins from ``pos`` on the layout ``piles``, else 0."""
    state = np.zeros(1, np.uint64)
    _, final = play_game(piles, reserve, pos, base, state, line, 2)
    return 1 if final == np.uint64(0) else 0


@njit(cache=True)
def rollout_score(piles, reserve, pos, base, line, partial):
    """1.0 if the base player wins from ``pos`` on the layout ``piles``, else ``partial``
    times the share of the position's cards it removed."""
    state = np.zeros(1, np.uint64)
    _, final = play_game(piles, reserve, pos, base, state, line, 2)
    if final == np.uint64(0):
        return 1.0
    if partial == 0.0:
        return 0.0
    return partial * (1.0 - cards_left(final) / max(cards_left(pos), 1))


# --- moves that are the same to a fair player ----------------------------------------
@njit(cache=True)
def move_signature(view, reserve, pos, delta):
    """A hash of what a fair player knows after move ``delta`` before it sees the cards it
    uncovers: the multiset of the piles' (size, top rank, or 'to be seen' for a pile the move
    uncovers) and of the reserve's ranks left.  The hidden places are exchangeable, so two
    moves with the same signature lead to the same law of the game from there on: one of
    them is enough to weigh (e.g. a card taken from either of two piles of the same size
    and top, or either of two reserve cards of one rank)."""
    new = pos - delta
    codes = np.zeros(9 * 16, np.int64)
    for i in range(NPILES):
        c = pile_count(new, i)
        took = (delta >> np.uint64(4 * i)) & np.uint64(15)
        top = 0 if c == 0 or took else view[i, c - 1]
        codes[c * 16 + top] += 1
    ranks = np.zeros(NRANKS + 1, np.int64)
    for r in range(NRESERVE):
        if (new >> np.uint64(RESERVE_SHIFT + r)) & np.uint64(1):
            ranks[reserve[r]] += 1
    h = np.uint64(0x2545F4914F6CDD1D)
    for k in range(codes.size):
        if codes[k]:
            h = _mix(h ^ (np.uint64(k) << np.uint64(8)) ^ np.uint64(codes[k]))
    for r in range(1, NRANKS + 1):
        h = _mix(h ^ (np.uint64(r + 200) << np.uint64(8)) ^ np.uint64(ranks[r]))
    return h


# --- rollouts over paired samples -------------------------------------------------------
@njit(cache=True)
def rollout_choice(view, reserve, pos, moves, m, base, samples, rounds, z, partial, state, stats,
                   default=-1, dedupe=False):
    """The rollout player's move index among ``moves[:m]`` (see the module): ``samples``
    layouts in all, drawn in ``rounds`` rounds; the move played without evidence is
    ``default``'s (the base player's if -1); with ``dedupe`` only one move of each
    :func:`move_signature` is weighed.  ``stats[0]`` counts the roll-outs played."""
    b = base_choice(view, reserve, pos, moves, m, base if default < 0 else default)
    if m == 1 or samples <= 0:
        return b
    alive = np.ones(m, np.bool_)
    if dedupe:  # one move of each kind the fair player cannot tell apart, the base move's own first
        sig = np.empty(m, np.uint64)
        for j in range(m):
            sig[j] = move_signature(view, reserve, pos, moves[j])
        for j in range(m):
            if j != b and sig[j] == sig[b]:
                alive[j] = False
            for i in range(j):
                if alive[j] and alive[i] and i != b and sig[i] == sig[j]:
                    alive[j] = False
    alive[b] = False  # the base move is the reference, always played
    sd = np.zeros(m, np.float64)
    sd2 = np.zeros(m, np.float64)
    sample = np.zeros((NPILES, DEPTH), np.int8)
    line = np.zeros(MAX_PLY, np.uint64)
    per = max(1, samples // max(1, rounds))
    n = 0
    left = 0
    for j in range(m):
        left += alive[j]
    while n < samples and left > 0:
        for _ in range(min(per, samples - n)):
            sample_layout(view, pos, state, sample)
            wb = rollout_score(sample, reserve, pos - moves[b], base, line, partial)
            stats[0] += 1
            for j in range(m):
                if alive[j]:
                    d = rollout_score(sample, reserve, pos - moves[j], base, line, partial) - wb
                    stats[0] += 1
                    sd[j] += d
                    sd2[j] += d * d
            n += 1
        for j in range(m):
            if alive[j]:
                mean = sd[j] / n
                var = max(sd2[j] / n - mean * mean, 0.0)
                if mean + z * np.sqrt(var / n) < 0 or (var == 0.0 and mean < 0):
                    alive[j] = False
                    left -= 1
    k = b
    best = 0.0
    for j in range(m):
        if alive[j]:
            mean = sd[j] / n
            var = max(sd2[j] / n - mean * mean, 0.0)
            low = mean - z * np.sqrt(var / n)
            if low > 0 and mean > best:
                k = j
                best = mean
    return k


# --- UCT on the fair game ---------------------------------------------------------------
@njit(cache=True)
def new_tree(bits):
    """The hash table of a UCT search: keys, visits, wins (2**bits slots)."""
    size = np.int64(1) << bits
    return np.zeros(size, np.uint64), np.zeros(size, np.int64), np.zeros(size, np.int64)


@njit(cache=True, inline='always')
def _slot(keys, key, add):
    """The slot of ``key`` (0 is no key: the hash never is, or it is moved off 0); -1 if the
    table is full where it would go.  With ``add``, a missing key takes a free slot."""
    if key == np.uint64(0):
        key = np.uint64(1)
    mask = keys.size - 1
    s = np.int64(key & np.uint64(mask))
    for _ in range(64):
        if keys[s] == key:
            return s
        if keys[s] == np.uint64(0):
            if add:
                keys[s] = key
                return s
            return -1
        s = (s + 1) & mask
    return -1


@njit(cache=True)
def mcts_choice(view, reserve, pos, moves, m, base, iterations, c, z, state, keys, visits, wins,
                stats):
    """The UCT player's move index among ``moves[:m]`` after ``iterations`` iterations (see
    the module); ``c`` is UCB1's exploration constant, ``z`` the bound by which the move
    tried most must beat the base move's win rate to be played.  ``stats[0]`` counts
    roll-outs."""
    b = base_choice(view, reserve, pos, moves, m, base)
    if m == 1 or iterations <= 0:
        return b
    root_hidden = np.zeros(NRANKS + 1, np.int64)
    hidden_counts(view, pos, root_hidden)
    hidden = np.zeros(NRANKS + 1, np.int64)
    sample = np.zeros((NPILES, DEPTH), np.int8)
    line = np.zeros(MAX_PLY, np.uint64)
    mv = np.empty(MAX_MOVES, np.uint64)
    path = np.empty(MAX_PLY + 1, np.int64)
    for _ in range(iterations):
        sample_layout(view, pos, state, sample)
        for r in range(NRANKS + 1):
            hidden[r] = root_hidden[r]
        p = pos
        npath = 0
        result = 0
        while True:
            if p == np.uint64(0):
                result = 1
                break
            if p == pos:
                k = m
                for j in range(m):
                    mv[j] = moves[j]
            else:
                k = all_moves(sample, reserve, p, mv)
            if k == 0:
                break
            key = view_key(sample, p, hidden)
            node = _slot(keys, key, True)
            if node < 0:  # the table is full: play on without the tree
                result = rollout(sample, reserve, p, base, line)
                stats[0] += 1
                break
            pick = -1
            fresh = False
            if visits[node] == 0 or p == pos:
                first = b if p == pos else base_choice(sample, reserve, p, mv, k, base)
                e = _slot(keys, _mix(key ^ (mv[first] * _EDGE)), True)
                if e >= 0 and visits[e] == 0:
                    pick, fresh = first, True
            if pick < 0:
                logn = np.log(max(visits[node], 1))
                best = -1.0
                for j in range(k):
                    e = _slot(keys, _mix(key ^ (mv[j] * _EDGE)), True)
                    if e < 0:
                        continue
                    if visits[e] == 0:
                        pick, fresh = j, True
                        break
                    u = wins[e] / visits[e] + c * np.sqrt(logn / visits[e])
                    if u > best:
                        best = u
                        pick = j
                if pick < 0:
                    result = rollout(sample, reserve, p, base, line)
                    stats[0] += 1
                    break
            path[npath] = node
            npath += 1
            path[npath] = _slot(keys, _mix(key ^ (mv[pick] * _EDGE)), True)
            npath += 1
            d = mv[pick]
            for i in range(NPILES):
                if (d >> np.uint64(4 * i)) & np.uint64(15):
                    cnt = pile_count(p, i)
                    if cnt >= 2:
                        hidden[sample[i, cnt - 2]] -= 1  # the card it uncovers is seen
            p = p - d
            if fresh:
                if p == np.uint64(0):
                    result = 1
                else:
                    result = rollout(sample, reserve, p, base, line)
                    stats[0] += 1
                break
        for q in range(npath):
            visits[path[q]] += 1
            wins[path[q]] += result
    # the move tried most, if its win rate beats the base move's clearly (z standard errors)
    rootkey = view_key(view, pos, root_hidden)
    eb = _slot(keys, _mix(rootkey ^ (moves[b] * _EDGE)), False)
    nb = visits[eb] if eb >= 0 else 0
    k = b
    most = nb
    for j in range(m):
        e = _slot(keys, _mix(rootkey ^ (moves[j] * _EDGE)), False)
        if e >= 0 and visits[e] > most:
            most = visits[e]
            k = j
    if k != b:
        e = _slot(keys, _mix(rootkey ^ (moves[k] * _EDGE)), False)
        pk = wins[e] / visits[e]
        pb = wins[eb] / nb if nb > 0 else 0.0
        se = np.sqrt(pk * (1 - pk) / visits[e] + (pb * (1 - pb) / nb if nb > 0 else 0.25))
        if pk - pb <= z * se:
            k = b
    return k


# --- a whole game -----------------------------------------------------------------------
# the settings of a fair player, in a float64 array: their indices
P_BUDGET, P_ROUNDS, P_Z, P_C, P_PARTIAL, P_DEFAULT, P_DEDUPE = range(7)
NPARAMS = 7


@njit(cache=True)
def decide(piles, reserve, position, moves, m, player, base, params, state, keys, visits, wins,
           stats, view):
    """The fair player's move index among the legal moves ``moves[:m]`` at ``position`` of the
    deal ``piles``/``reserve``, decided on :func:`view_layout` (written into ``view``) alone.

    ``player``: GREEDY, LOOKAHEAD, TUNED, ROLLOUT or MCTS; ``base`` the base player of the
    last two; ``params`` (float64[NPARAMS]): their samples (ROLLOUT) or iterations (MCTS), the
    rollout player's rounds, the bound ``z`` of a deviation from the base move, UCT's
    constant ``c``, the credit a lost roll-out gets for the share of cards it removed, the
    rollout player's default player plus one (0: its base player) and whether it weighs one
    move of each :func:`move_signature` only (1) or all (0).  ``state`` is the SplitMix64
    state of the random numbers; ``keys``/``visits``/``wins`` UCT's table (:func:`new_tree`).
    ``stats[0]`` counts the roll-outs played."""
    pos = np.uint64(position)  # a position from Python arrives as an int
    view_layout(piles, pos, view)
    budget = np.int64(params[P_BUDGET])
    if player == ROLLOUT:
        return rollout_choice(view, reserve, pos, moves, m, base, budget,
                              np.int64(params[P_ROUNDS]), params[P_Z], params[P_PARTIAL], state,
                              stats,
                              np.int64(params[P_DEFAULT]) - 1, params[P_DEDUPE] > 0)
    if player == MCTS:
        return mcts_choice(view, reserve, pos, moves, m, base, budget, params[P_C], params[P_Z],
                           state, keys, visits, wins, stats)
    return base_choice(view, reserve, pos, moves, m, player)


@njit(cache=True)
def fair_game(piles, reserve, root, player, base, params, seed, bits, line, stats):
    """Play one game of a fair player (:func:`decide`) from ``root``; return (moves made, final
    position).  ``seed`` seeds its random numbers, ``bits`` sizes its tables (a game's
    decisions share them)."""
    state = np.zeros(1, np.uint64)
    state[0] = np.uint64(seed)
    moves = np.empty(MAX_MOVES, np.uint64)
    view = np.zeros((NPILES, DEPTH), np.int8)
    keys, visits, wins = new_tree(bits if player == MCTS else 1)
    pos = np.uint64(root)
    n = 0
    while pos != np.uint64(0):
        m = all_moves(piles, reserve, pos, moves)
        if m == 0:
            break
        k = decide(piles, reserve, pos, moves, m, player, base, params, state, keys, visits, wins,
                   stats, view)
        line[n] = moves[k]
        n += 1
        pos = pos - moves[k]
    return n, pos
