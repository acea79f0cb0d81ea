"""The bandit player: capped solves of sampled layouts, spent by UCB1 over the moves.

The method of the Klondike engine lonelybot's player without undo (its ``docs/method.md``,
section 8), on the views of :mod:`.fair`:

- **Candidates**: one legal move of each :func:`.fair.move_signature` (moves a fair player
  cannot tell apart lead to the same law of the game), the base player's move first.
- **A sample** of a candidate: a layout drawn uniformly among those consistent with the view
  (:func:`.fair.sample_layout`), the candidate's child solved on it by the solver's
  depth-first search (:func:`solver.depth_first.dfs.plain_dfs` for the plain search, the
  rule set of the portfolio's engine-order turns by default) **with a cap** on the positions
  it may expand: the sample scores 1 only if a win is *found within the cap*; a loss and a
  spent cap both score 0.  Almost every Half Moon layout is winnable with every card shown,
  so "winnable" does not tell moves apart; "won within a small search" does: it separates
  the moves after which the game stays easy from those after which it is merely winnable.
- **The bandit**: UCB1 (mean + C·sqrt(ln n / n_i), C = 2) picks a candidate, which gets a
  batch of samples (10 layouts); every candidate gets one batch first.  The search stops
  when the leading candidate (the best mean, ties to the one sampled most, then to the base
  player's move) has been sampled ``lead`` times, or after ``total`` samples in all; the
  leader is played.  Should no sample of any candidate win after ``hopeless`` samples, the
  base player's move is played (the game is lost or far beyond the cap's reach; the
  samples would not tell the moves apart).
- With a bound ``z`` above 0 (not lonelybot's: 0 by default), a leader other than the base
  player's move is played only if its mean beats the base move's by ``z`` standard errors
  (evidence must earn a change, as for the rollout player of :mod:`.fair`).
- A view whose hidden cards are all of one rank (or none) has one layout: each candidate is
  solved once.

Each decision is taken on :func:`.fair.view_layout` (no peeking; the tests shuffle the
hidden cards and check the moves do not change).  Random numbers are SplitMix64's
(:mod:`solver.mirror.generator`), so a game is reproducible from its seed.  The searches
share one small transposition table, a new generation per solve (a position's lost mark
holds for its layout only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..depth_first.bounds import partner_table
from ..depth_first.dfs import dfs, new_stack, plain_dfs
from ..depth_first.projections import PROJECTION_MASKS, projection_arrays
from ..depth_first.pruning import (
    BOUNDS,
    CLASS_IN_VIEW,
    COMMUTING,
    FREE_CARDS,
    ORDERING,
    top_table,
)
from ..mirror.position import DEPTH, MAX_MOVES, MAX_PLY, NPILES, all_moves
from ..verdicts import WIN
from .fair import NRANKS, base_choice, hidden_counts, move_signature, sample_layout, view_layout

# the settings, in a float64 array: their indices
B_CAP, B_LEAD, B_BATCH, B_C, B_TOTAL, B_HOPELESS, B_FLAGS, B_Z = range(8)
NBANDIT = 8
# the depth-first rules a capped solve may use (the projections and the grouping search
# need tables of their own and are left out)
SEARCH_RULES = FREE_CARDS | CLASS_IN_VIEW | ORDERING | BOUNDS | COMMUTING
PLAIN = FREE_CARDS  # the plain search (its own compiled copy)
ENGINE_ORDER = FREE_CARDS | CLASS_IN_VIEW | COMMUTING  # the portfolio's engine-order turns
# the rule sets by name: the plain search, the engine-order turns' rules, those with the
# fullest piles first (the default: at a cap of 100 positions it finds a win in twice as
# many sampled layouts as the plain search, for a third more time a solve) and with the
# bounds test near the root too
SEARCHES = {"plain": PLAIN, "engine": ENGINE_ORDER, "order": ENGINE_ORDER | ORDERING,
            "bounds": SEARCH_RULES}
DEFAULT_SEARCH = "order"
BOUNDS_DEPTH = 8  # plies from the root that get the bounds test, with BOUNDS
_CTL = 6  # the control words' place in new_stack's tuple (depth, started)


# --- a capped solve ---------------------------------------------------------------------
@njit(cache=True)
def new_solver(view, reserve, cap):
    """What the capped solves of a game share: a transposition table sized for ``cap``
    positions (its slots, bits and generation counter), a search stack, the partner and
    projection arrays the search takes (read only with rules left out here, so ``view``'s
    do), a line and the search's statistics."""
    bits = 10
    while (np.int64(1) << bits) < 4 * cap and bits < 20:
        bits += 1
    rows = np.int64(1) << bits
    slots = np.zeros((rows + (rows >> 10), 2), np.uint64)
    part, npart = partner_table(view, reserve)
    proj = projection_arrays(view, reserve, PROJECTION_MASKS)
    return (slots, bits, np.zeros(1, np.int64), new_stack(np.uint64(0)), part, npart, proj,
            np.zeros(MAX_PLY, np.uint64), np.zeros(4, np.int64))


@njit(cache=True)
def capped_win(layout, reserve, pos, cap, flags, solver):
    """1 if the search (rules ``flags``) finds a win from ``pos`` on ``layout`` within ``cap``
    expanded positions, else 0 (a loss or a spent cap)."""
    if pos == np.uint64(0):
        return 1
    slots, bits, gen, stack, part, npart, proj, line, st = solver
    gen[0] += 1
    g = np.uint32(gen[0])
    rows = np.int64(1) << bits
    slots[rows:, :] = 0  # the filter holds this generation's stores only
    stack[_CTL][:] = 0  # a fresh search from the root
    tops = top_table(layout, reserve)
    ptab = (slots, g, bits)
    if flags == PLAIN:
        r = plain_dfs(layout, reserve, tops, part, npart, pos, cap, flags, slots, g, bits, line,
                      st, stack, 0, proj, ptab, 0)
    elif flags & BOUNDS:
        p2, n2 = partner_table(layout, reserve)
        r = dfs(layout, reserve, tops, p2, n2, pos, cap, flags, slots, g, bits, line, st, stack,
                0, proj, ptab, BOUNDS_DEPTH)
    else:
        r = dfs(layout, reserve, tops, part, npart, pos, cap, flags, slots, g, bits, line, st,
                stack, 0, proj, ptab, 0)
    return 1 if r == WIN else 0


# --- a decision -------------------------------------------------------------------------
@njit(cache=True)
def candidates(view, reserve, pos, moves, m, b, out):
    """One move index of each :func:`.fair.move_signature` among ``moves[:m]`` into ``out``,
    ``b``'s first; returns how many."""
    sig = np.empty(m, np.uint64)
    for j in range(m):
        sig[j] = move_signature(view, reserve, pos, moves[j])
    out[0] = b
    n = 1
    for j in range(m):
        new = True
        for i in range(n):
            if sig[out[i]] == sig[j]:
                new = False
                break
        if new:
            out[n] = j
            n += 1
    return n


@njit(cache=True)
def _leader(plays, wins, n):
    """The candidate with the best mean, ties to the one sampled most, then the first."""
    k = 0
    best = -1.0
    for i in range(n):
        if plays[i] == 0:
            continue
        mean = wins[i] / plays[i]
        if mean > best or (mean == best and plays[i] > plays[k]):
            best = mean
            k = i
    return k


@njit(cache=True)
def bandit_choice(view, reserve, pos, moves, m, base, params, state, solver, stats):
    """The bandit player's move index among ``moves[:m]`` on the view ``view`` (see the
    module); ``params``: float64[NBANDIT] (:data:`B_CAP` ...).  ``stats[0]`` counts the
    solves."""
    b = base_choice(view, reserve, pos, moves, m, base)
    if m == 1:
        return b
    cand = np.empty(MAX_MOVES, np.int64)
    n = candidates(view, reserve, pos, moves, m, b, cand)
    if n == 1:
        return b
    cap = np.int64(params[B_CAP])
    lead = max(np.int64(params[B_LEAD]), 1)
    batch = max(np.int64(params[B_BATCH]), 1)
    c = params[B_C]
    total = np.int64(params[B_TOTAL])
    hopeless = np.int64(params[B_HOPELESS])
    flags = np.int64(params[B_FLAGS]) & SEARCH_RULES
    plays = np.zeros(n, np.int64)
    wins = np.zeros(n, np.int64)
    hidden = np.zeros(NRANKS + 1, np.int64)
    hidden_counts(view, pos, hidden)
    kinds = 0
    for r in range(NRANKS + 1):
        kinds += hidden[r] > 0
    if kinds <= 1:  # one layout only: a solve each
        for i in range(n):
            wins[i] = capped_win(view, reserve, pos - moves[cand[i]], cap, flags, solver)
            plays[i] = 1
            stats[0] += 1
        return cand[_leader(plays, wins, n)]
    sample = np.zeros((NPILES, DEPTH), np.int8)
    done = 0
    won = 0
    while True:
        pick = -1
        for i in range(n):  # a first batch each
            if plays[i] == 0:
                pick = i
                break
        if pick < 0:
            logn = np.log(done)
            best = -1.0
            for i in range(n):
                u = wins[i] / plays[i] + c * np.sqrt(logn / plays[i])
                if u > best:
                    best = u
                    pick = i
        child = pos - moves[cand[pick]]
        for _ in range(batch):
            sample_layout(view, pos, state, sample)
            w = capped_win(sample, reserve, child, cap, flags, solver)
            wins[pick] += w
            won += w
            plays[pick] += 1
            done += 1
        stats[0] += batch
        if won == 0 and hopeless > 0 and done >= hopeless:
            return b
        k = _leader(plays, wins, n)
        if plays[k] >= lead or (total > 0 and done >= total):
            if params[B_Z] > 0 and k != 0 and not _clearly_better(plays, wins, k, params[B_Z]):
                return b
            return cand[k]


@njit(cache=True)
def _clearly_better(plays, wins, k, z):
    """Whether candidate ``k``'s mean beats the base move's (candidate 0) by ``z`` standard
    errors."""
    if plays[0] == 0:
        return True
    pk = wins[k] / plays[k]
    p0 = wins[0] / plays[0]
    se = np.sqrt(pk * (1 - pk) / plays[k] + p0 * (1 - p0) / plays[0])
    return pk - p0 > z * max(se, 1e-9)


# --- a whole game -----------------------------------------------------------------------
@njit(cache=True)
def bandit_decide(piles, reserve, position, moves, m, base, params, state, solver, stats, view):
    """The bandit player's move index at ``position`` of the deal ``piles``/``reserve``,
    decided on :func:`.fair.view_layout` (written into ``view``) alone."""
    pos = np.uint64(position)
    view_layout(piles, pos, view)
    return bandit_choice(view, reserve, pos, moves, m, base, params, state, solver, stats)


@njit(cache=True)
def bandit_game(piles, reserve, root, base, params, seed, line, stats):
    """A game of the bandit player from ``root`` (its moves into ``line``); (moves made,
    final position).  ``seed`` seeds its random numbers; ``stats[0]`` counts the solves."""
    state = np.zeros(1, np.uint64)
    state[0] = np.uint64(seed)
    moves = np.empty(MAX_MOVES, np.uint64)
    view = np.zeros((NPILES, DEPTH), np.int8)
    pos = np.uint64(root)
    view_layout(piles, pos, view)
    solver = new_solver(view, reserve, np.int64(params[B_CAP]))
    n = 0
    while pos != np.uint64(0):
        m = all_moves(piles, reserve, pos, moves)
        if m == 0:
            break
        k = bandit_decide(piles, reserve, pos, moves, m, base, params, state, solver, stats, view)
        line[n] = moves[k]
        n += 1
        pos = pos - moves[k]
    return n, pos
