"""The deal generator of the spec: SplitMix64 vectors, uniform draws, the shuffle."""

from __future__ import annotations

import random

import pytest

from halfmoon.game.generator import DECK_SIZE, MASK64, SplitMix64, shuffled_deck


@pytest.mark.parametrize(
    "seed, draws",
    [
        (0, [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]),
        (1234567, [0x599ED017FB08FC85, 0x2C73F08458540FA5, 0x883EBCE5A3F27C77]),
    ],
)
def test_splitmix64_vectors(seed, draws):
    rng = SplitMix64(seed)
    assert [rng.next() for _ in range(3)] == draws


def _reference_draw(state: int) -> tuple[int, int]:
    """The spec's pseudo-code, written out independently."""
    state = (state + 0x9E3779B97F4A7C15) % 2**64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return state, z ^ (z >> 31)


def test_draws_match_spec_pseudo_code_for_large_seeds():
    for seed in (2**64 - 1, 8031810175, 0x9E3779B97F4A7C15):
        rng = SplitMix64(seed)
        state = seed
        for _ in range(20):
            state, expected = _reference_draw(state)
            got = rng.next()
            assert got == expected
            assert 0 <= got <= MASK64


def test_below_uses_rejection_threshold():
    # With n = 3, 2^64 mod 3 = 1: a raw draw below 1 (only 0) would be rejected.
    # Check below() returns r mod n of the first draw >= threshold, for many n.
    for n in (1, 2, 3, 7, 52, 104, 2**63 + 1):
        threshold = 2**64 % n
        a, b = SplitMix64(99), SplitMix64(99)
        for _ in range(30):
            r = a.next()
            while r < threshold:
                r = a.next()
            assert b.below(n) == r % n


def test_below_stays_in_range():
    rng = SplitMix64(5)
    for n in range(1, 200):
        assert 0 <= rng.below(n) < n


def test_below_rejects_when_draw_is_under_threshold():
    # For n = 2^63 + 1 the threshold is 2^63 - 1: about half of the draws are
    # rejected, so below() must have consumed more draws than calls.
    n = 2**63 + 1
    rng = SplitMix64(0)
    shadow = SplitMix64(0)
    draws = 0
    for _ in range(50):
        rng.below(n)
    while shadow.state != rng.state:
        shadow.next()
        draws += 1
    assert draws > 50


@pytest.mark.parametrize("number", [0, 1, 26, 123456789, 8031810175])
def test_shuffle_is_a_permutation(number):
    deck = shuffled_deck(number)
    assert len(deck) == DECK_SIZE
    assert sorted(deck) == list(range(DECK_SIZE))


def test_shuffle_matches_spec_fisher_yates():
    for number in (0, 1, 777):
        rng = SplitMix64(number)
        deck = list(range(104))
        for i in range(103, 0, -1):
            j = rng.below(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        assert shuffled_deck(number) == deck


def test_shuffle_is_reproducible_and_depends_on_number():
    assert shuffled_deck(42) == shuffled_deck(42)
    assert shuffled_deck(42) != shuffled_deck(43)
    assert shuffled_deck(0) != list(range(DECK_SIZE))


def test_random_numbers_shuffle_permutations():
    rng = random.Random(2024)
    for _ in range(200):
        deck = shuffled_deck(rng.randrange(26**7))
        assert sorted(deck) == list(range(DECK_SIZE))
