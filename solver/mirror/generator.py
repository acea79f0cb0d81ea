"""The deal generator's mirror (halfmoon/game/generator.py) in numba: SplitMix64 seeded
with the deal number, a rejection-sampled Fisher–Yates shuffle of the ordered double
deck, 8 cards to each pile and the last 8 to the reserve — as ranks, the solver's view.

The reference generator is the meaning and must never change; this twin is the speed
(tests/solver/mirror/test_generator.py holds the two together on many deals).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .position import DEPTH, NPILES, NRESERVE

DECK_SIZE = 104
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def splitmix_next(state):
    """Advance the one-element uint64 array ``state``; return the next draw."""
    s = state[0] + _GAMMA
    state[0] = s
    z = s
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def below(state, n):
    """A uniform integer in [0, n) by rejection, as in the deal generator."""
    un = np.uint64(n)
    threshold = (np.uint64(0) - un) % un  # 2**64 mod n
    while True:
        r = splitmix_next(state)
        if r >= threshold:
            return np.int64(r % un)


@njit(cache=True)
def shuffled_deck(number, deck, state):
    """Fill ``deck`` (int64[104]) with the card indices of deal ``number`` in dealt order;
    ``state`` is a one-element uint64 scratch array."""
    for i in range(DECK_SIZE):
        deck[i] = i
    state[0] = np.uint64(number)
    for i in range(DECK_SIZE - 1, 0, -1):
        j = below(state, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@njit(cache=True)
def deal_ranks(number, piles, reserve, deck, state):
    """The ranks of deal ``number`` into ``piles`` (int8, 12 × 8, bottom first) and
    ``reserve`` (int8[8]); ``deck`` and ``state`` are scratch arrays of
    :func:`shuffled_deck`.  A card's rank is its index mod 13, plus one."""
    shuffled_deck(number, deck, state)
    for p in range(NPILES):
        for k in range(DEPTH):
            piles[p, k] = deck[DEPTH * p + k] % 13 + 1
    for r in range(NRESERVE):
        reserve[r] = deck[NPILES * DEPTH + r] % 13 + 1


LAYOUT_FEATURES = ("same_pile_copies", "max_pile_faces")


@njit(cache=True)
def layout_features(numbers, out):
    """Features of how the cards of each deal ``numbers[k]`` lie, into ``out[k]``:

    0. ``same_pile_copies``: cards (of the 52) whose two copies lie in the same pile;
    1. ``max_pile_faces``: the most face cards (J, Q, K) in one pile.

    Card index ``i`` and ``i + 52`` are the two copies of a card (the ordered double deck)."""
    deck = np.empty(DECK_SIZE, np.int64)
    state = np.zeros(1, np.uint64)
    where = np.empty(DECK_SIZE, np.int64)
    for k in range(numbers.size):
        shuffled_deck(numbers[k], deck, state)
        deck_layout_features(deck, where, out[k])


@njit(cache=True)
def deck_layout_features(deck, where, out):
    """:data:`LAYOUT_FEATURES` of a shuffled deck (``where``: scratch, DECK_SIZE) into
    ``out[0:2]``."""
    for j in range(DECK_SIZE):
        where[deck[j]] = j // DEPTH  # pile 0..11, 12 for the reserve
    same = 0
    for c in range(52):
        if where[c] == where[c + 52] and where[c] < NPILES:
            same += 1
    most = 0
    for p in range(NPILES):
        faces = 0
        for j in range(DEPTH):
            if deck[DEPTH * p + j] % 13 >= 10:
                faces += 1
        most = max(most, faces)
    out[0] = same
    out[1] = most
