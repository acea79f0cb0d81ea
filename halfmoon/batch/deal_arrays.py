"""Many deals at once as numpy arrays: the deal generator (:mod:`halfmoon.game.generator`)
run on a whole array of deal numbers, and the features of each deal's start and layout
counted from it.

Plain numpy, nothing compiled: reading a results dataset rebuilds what its files leave out
(the start's features, from the deal number alone) with these, so that reading never waits
for the solver's kernels (the core game stays plain Python: this twin lives here, beside
the results it serves).  :mod:`halfmoon.game.generator` is the meaning and must never
change; this twin follows it step for step (the tests hold the two together on many
deals), the rejection of a draw included.
"""

from __future__ import annotations

import numpy as np

from halfmoon.game.deal import PILE_DEPTH, PILES, RESERVE_SLOTS
from halfmoon.game.generator import DECK_SIZE, MASK64

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_PLAYED = PILES * PILE_DEPTH  # cards dealt to the piles; the rest is the reserve
_TOPS = np.arange(PILES) * PILE_DEPTH + PILE_DEPTH - 1  # where each pile's top card lies

# the features of a deal's start (names as halfmoon.batch.results and the solver give them)
START_FEATURES = ("start_moves", "reserve_faces", "top_faces", "free_classes")
LAYOUT_FEATURES = ("same_pile_copies", "max_pile_faces")


def _threshold(size: int) -> np.uint64:
    """Draws below this are rejected when drawing below ``size`` (2**64 mod ``size``)."""
    return np.uint64((MASK64 + 1) % size)


def _mix(state: np.ndarray) -> np.ndarray:
    z = state.copy()
    z ^= z >> np.uint64(30)
    z *= _MIX1
    z ^= z >> np.uint64(27)
    z *= _MIX2
    z ^= z >> np.uint64(31)
    return z


def shuffled_decks(numbers) -> np.ndarray:
    """Card indices 0..103 of each deal ``numbers[k]`` in dealt order (row ``k``), as
    :func:`halfmoon.game.generator.shuffled_deck` gives them: an int16 array, a row a deal."""
    nums = np.array(numbers, dtype=np.int64).reshape(-1)
    out = np.empty((nums.size, DECK_SIZE), np.int16)
    for a in range(0, nums.size, _BLOCK):  # a block's decks stay in the processor's cache
        out[a:a + _BLOCK] = _shuffle(nums[a:a + _BLOCK].view(np.uint64).copy()).T
    return out


_BLOCK = 2048


def _shuffle(state: np.ndarray) -> np.ndarray:
    """The decks of the deals seeded by ``state`` (advanced in place): a column a deal."""
    n = state.size
    decks = np.empty((DECK_SIZE, n), np.int16)  # a row a place: each step reads two rows
    decks[:] = np.arange(DECK_SIZE, dtype=np.int16)[:, None]
    flat = decks.reshape(-1)
    cols = np.arange(n, dtype=np.intp)
    with np.errstate(over="ignore"):
        for i in range(DECK_SIZE - 1, 0, -1):
            size = i + 1
            threshold = _threshold(size)
            state += _GAMMA
            draw = _mix(state)
            low = np.flatnonzero(draw < threshold)
            while low.size:  # rejected draws are drawn again (about once in 10^17)
                state[low] += _GAMMA
                draw[low] = _mix(state[low])
                low = low[draw[low] < threshold]
            at = (draw % np.uint64(size)).astype(np.intp) * n + cols
            top = decks[i].copy()
            decks[i] = flat[at]
            flat[at] = top
    return decks


def start_features(numbers, decks=None) -> np.ndarray:
    """:data:`START_FEATURES` of each deal's start: an int64 array, a row a deal.

    ``start_moves``: legal moves (pairs of playable cards adding up to 11, J+Q+K triplets);
    ``reserve_faces``: face cards in the reserve; ``top_faces``: face cards on the pile tops;
    ``free_classes``: classes (A+10 … 5+6, J+Q+K) with at least one legal move.  ``decks``:
    the deals' :func:`shuffled_decks`, if already made."""
    decks = shuffled_decks(numbers) if decks is None else decks
    ranks = decks % 13 + 1
    tops = ranks[:, _TOPS]
    reserve = ranks[:, _PLAYED:_PLAYED + RESERVE_SLOTS]
    playable = np.concatenate([tops, reserve], axis=1)
    n = len(decks)
    slots = (np.arange(n)[:, None] * 14 + playable).reshape(-1)
    counts = np.bincount(slots, minlength=n * 14).reshape(n, 14)  # playable cards by rank
    pairs = counts[:, 1:6] * counts[:, 10:5:-1]  # A+10, 2+9, 3+8, 4+7, 5+6
    triplets = counts[:, 11] * counts[:, 12] * counts[:, 13]
    out = np.empty((n, len(START_FEATURES)), np.int64)
    out[:, 0] = pairs.sum(axis=1) + triplets
    out[:, 1] = (reserve >= 11).sum(axis=1)
    out[:, 2] = (tops >= 11).sum(axis=1)
    out[:, 3] = (pairs > 0).sum(axis=1) + (triplets > 0)
    return out


def layout_features(numbers, decks=None) -> np.ndarray:
    """:data:`LAYOUT_FEATURES` of each deal: an int64 array, a row a deal.

    ``same_pile_copies``: cards (of the 52) whose two copies lie in the same pile;
    ``max_pile_faces``: the most face cards (J, Q, K) in one pile.  Card indices ``i`` and
    ``i + 52`` are the two copies of a card (the ordered double deck)."""
    decks = shuffled_decks(numbers) if decks is None else decks
    n = len(decks)
    where = np.empty((n, DECK_SIZE), np.int16)  # the pile (12: the reserve) of each card
    where[np.arange(n)[:, None], decks] = np.arange(DECK_SIZE, dtype=np.int16) // PILE_DEPTH
    half = DECK_SIZE // 2
    out = np.empty((n, len(LAYOUT_FEATURES)), np.int64)
    out[:, 0] = ((where[:, :half] == where[:, half:]) & (where[:, :half] < PILES)).sum(axis=1)
    faces = (decks[:, :_PLAYED] % 13 >= 10).reshape(n, PILES, PILE_DEPTH).sum(axis=2)
    out[:, 1] = faces.max(axis=1) if n else 0
    return out
