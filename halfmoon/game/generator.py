"""The deal generator of the spec: SplitMix64, rejection sampling, Fisher–Yates.

This module must never change: a deal number means the same deal forever.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
DECK_SIZE = 104


class SplitMix64:
    """SplitMix64 generator, seeded with the deal number."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection."""
        threshold = (1 << 64) % n
        while True:
            r = self.next()
            if r >= threshold:
                return r % n


def shuffled_deck(number: int) -> list[int]:
    """Card indices 0..103 of deal ``number`` in dealt order."""
    deck = list(range(DECK_SIZE))
    rng = SplitMix64(number)
    for i in range(DECK_SIZE - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
