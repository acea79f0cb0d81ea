"""The simple players' kernel (solver/players.py) against its naive twins: the same rule
written plainly over the reference engine, move for move."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from conftest import naive_greedy, naive_random

from halfmoon import Deal, Game
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.position import MAX_PLY, cards_left, initial_position
from solver.players.simple import GREEDY, LOOKAHEAD, RANDOM, play_batch

DEALS = range(40)


def kernel_game(deal: Deal, strategy: int, seed: int = 0, depth=None) -> tuple[list, int]:
    """The kernel's game on one deal: its moves and the cards left at its end (``depth``
    left out: the kernel's default, as the existing callers do)."""
    piles, reserve = deal_arrays(deal)
    roots = np.array([initial_position(piles, reserve)], dtype=np.uint64)
    lines = np.zeros((1, MAX_PLY), np.uint64)
    nmoves = np.zeros(1, np.int64)
    finals = np.zeros(1, np.uint64)
    args = (piles[None], reserve[None], roots, np.int64(strategy),
            np.array([seed], dtype=np.uint64), lines, nmoves, finals)
    play_batch(*args) if depth is None else play_batch(*args, np.int64(depth))
    return [delta_to_move(int(x)) for x in lines[0, : nmoves[0]]], int(cards_left(finals[0]))


def naive_lookahead_choice(game: Game, moves: list, depth: int) -> int:
    """The lookahead rule of solver/players.py written plainly: the index of its move.

    It reads only what the app shows: the cards in view, the pile sizes, and the ranks of
    the hidden cards as a multiset (what counting the cards seen tells), never a hidden
    card's place."""
    view = game.playable()  # source -> card
    hidden = Counter(c.rank for pile, n in zip(game.deal.piles, game.counts)
                     for c in pile[: max(n - 1, 0)])
    total = game.cards_left()

    def size(src):
        return game.counts[int(src[1:]) - 1] if src[0] == "P" else 0

    def playable_with(left, rank):
        if rank <= 10:
            return left[11 - rank] > 0
        return all(left[f] > 0 for f in (11, 12, 13) if f != rank)

    def score(line):
        srcs = [s for move in line for s in move.sources]
        if len(srcs) == total:
            return (1,)
        left = Counter(view[s].rank for s in view if s not in srcs)
        u = sum(1 for s in srcs if size(s) >= 2)
        receptive = sum(n for rank, n in hidden.items() if playable_with(left, rank))
        alive = u > 0 or any(playable_with(left, view[s].rank) for s in view if s not in srcs)
        return (0, alive, u * receptive, sum(1 for m in line if len(m) == 2),
                sum(size(s) for s in srcs))

    def disjoint(line, move):
        return not any(set(move.sources) & set(m.sources) for m in line)

    best = [None] * len(moves)
    for k in range(1, depth + 1):
        for idx in combinations(range(len(moves)), k):
            line = [moves[i] for i in idx]
            if not all(disjoint(line[:a], line[a]) for a in range(1, k)):
                continue
            if k < depth and any(disjoint(line, m) for m in moves):
                continue  # a line is played out to `depth` moves while it can be
            s = score(line)
            for i in idx:
                best[i] = s if best[i] is None or s > best[i] else best[i]

    def greedy_key(move):
        piles = [s for s in move.sources if s[0] == "P"]
        return (sum(1 for s in piles if size(s) >= 2), not move.is_triplet,
                sum(size(s) for s in piles))

    return max(range(len(moves)), key=lambda j: (best[j], greedy_key(moves[j]), -j))


def naive_lookahead(deal: Deal, depth: int) -> list:
    game = Game(deal)
    while game.legal_moves:
        moves = list(game.legal_moves)  # engine order
        game.play(moves[naive_lookahead_choice(game, moves, depth)])
    return list(game.stack)


@pytest.mark.parametrize("number", DEALS)
def test_greedy_kernel_plays_the_documented_rule(number):
    deal = Deal.from_number(number)
    moves, left = kernel_game(deal, GREEDY)
    assert moves == naive_greedy(deal)
    assert left == (104 - 2 * sum(1 for m in moves if not m.is_triplet)
                    - 3 * sum(1 for m in moves if m.is_triplet))


@pytest.mark.parametrize("number", DEALS)
def test_random_kernel_draws_uniformly_like_the_reference(number):
    deal = Deal.from_number(number)
    seed = 0x9E3779B97F4A7C15 ^ number
    moves, _ = kernel_game(deal, RANDOM, seed)
    assert moves == naive_random(deal, seed)


@pytest.mark.parametrize("number", range(6))
def test_random_and_greedy_ignore_the_depth(number):
    deal = Deal.from_number(number)
    for strategy, seed in ((RANDOM, 12345 + number), (GREEDY, 0)):
        default = kernel_game(deal, strategy, seed)
        assert all(kernel_game(deal, strategy, seed, depth) == default for depth in (1, 2, 3))


@pytest.mark.parametrize("number", DEALS)
def test_lookahead_kernel_plays_the_documented_rule(number):
    deal = Deal.from_number(number)
    moves, left = kernel_game(deal, LOOKAHEAD, depth=2)
    assert moves == naive_lookahead(deal, 2)
    assert kernel_game(deal, LOOKAHEAD) == (moves, left)  # depth 2 is the default
    assert left == 104 - sum(len(m) for m in moves)


@pytest.mark.parametrize("number", range(4))
@pytest.mark.parametrize("depth", [1, 3])
def test_lookahead_kernel_at_other_depths(number, depth):
    deal = Deal.from_number(number)
    moves, _ = kernel_game(deal, LOOKAHEAD, depth=depth)
    assert moves == naive_lookahead(deal, depth)


def _shuffle_hidden(deal: Deal, counts, rng) -> Deal:
    """The deal with the cards under the tops of a position (``counts``) shuffled among
    their places: the same view, pile sizes and hidden ranks; other cards below."""
    piles = [list(p) for p in deal.piles]
    places = [(i, k) for i, n in enumerate(counts) for k in range(n - 1)]
    cards = [piles[i][k] for i, k in places]
    rng.shuffle(cards)
    for (i, k), c in zip(places, cards):
        piles[i][k] = c
    return Deal(piles=piles, reserve=list(deal.reserve))


@pytest.mark.parametrize("number", range(10))
def test_lookahead_does_not_look_under_the_tops(number):
    """Its choice is the same whatever lies under the tops, as long as what the app shows
    (and counting the cards) is the same: along its own game, at every turn."""
    rng = random.Random(number)
    deal = Deal.from_number(number)
    moves, _ = kernel_game(deal, LOOKAHEAD)
    game = Game(deal)
    changed = 0
    for move in moves:
        other = _shuffle_hidden(deal, game.counts, rng)
        replay = Game(other)
        for m in game.stack:
            replay.play(m)
        first, _ = kernel_game(replay.remaining_deal(), LOOKAHEAD)
        assert first[0] == move
        changed += replay.remaining_deal().piles != game.remaining_deal().piles
        game.play(move)
    assert changed > 0  # the shuffles did move hidden cards
