"""Tests for solver/cpsat.py: the CP-SAT checker of the grouping view, by pairs and
(``counting=True``) by the counts of each step."""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from solver.check.cpsat import CpsatResult, _replay_ok, solve_cpsat  # noqa: E402

J, Q, K = 11, 12, 13
EMPTY_RESERVE = [None] * 8


def position(piles=None, reserve=None):
    """12 piles and 8 reserve slots from a partial description {pile number: cards}."""
    ps = [[] for _ in range(12)]
    for num, cards in (piles or {}).items():
        ps[num - 1] = list(cards)
    rs = list(reserve or []) + [None] * (8 - len(reserve or []))
    return ps, rs


# ---------------------------------------------------------------------------
# brute force: exhaustive memoized search over (pile heights, reserve mask)

def brute_force(piles, reserve):
    piles = [tuple(p) for p in piles]
    reserve = list(reserve)
    memo = {}

    def win(heights, mask):
        if not any(heights) and not mask:
            return True
        key = (heights, mask)
        if key in memo:
            return memo[key]
        play = []  # (rank, is_pile, index)
        for i, h in enumerate(heights):
            if h:
                play.append((piles[i][h - 1], True, i))
        for s, r in enumerate(reserve):
            if mask >> s & 1:
                play.append((r, False, s))

        def after(cards):
            hs, m = list(heights), mask
            for _, is_pile, i in cards:
                if is_pile:
                    hs[i] -= 1
                else:
                    m &= ~(1 << i)
            return tuple(hs), m

        result = False
        for a in range(len(play)):
            for b in range(a + 1, len(play)):
                ra, rb = play[a][0], play[b][0]
                if ra <= 10 and rb <= 10 and ra + rb == 11:
                    if win(*after((play[a], play[b]))):
                        result = True
                        break
                if ra > 10 and rb > 10 and ra != rb:
                    for c in range(b + 1, len(play)):
                        if sorted((ra, rb, play[c][0])) == [J, Q, K]:
                            if win(*after((play[a], play[b], play[c]))):
                                result = True
                                break
                if result:
                    break
            if result:
                break
        memo[key] = result
        return result

    mask0 = sum(1 << s for s, r in enumerate(reserve) if r is not None)
    return win(tuple(len(p) for p in piles), mask0)


def random_small_position(rng):
    """Balanced classes (2-4 of the 6), up to ~24 cards, spread over few piles + reserve."""
    classes = rng.sample(["f", 1, 2, 3, 4, 5], rng.randint(2, 4))
    cards = []
    for cls in classes:
        if cls == "f":
            cards += [J, Q, K] * rng.randint(1, 2)
        else:
            cards += [cls, 11 - cls] * rng.randint(1, 3)
    rng.shuffle(cards)
    n_res = rng.randint(0, min(8, len(cards) // 4))
    reserve = cards[:n_res] + [None] * (8 - n_res)
    rng.shuffle(reserve)
    rest = cards[n_res:]
    n_piles = max(rng.randint(2, 9), -(-len(rest) // 8))
    used = rng.sample(range(12), n_piles)
    piles = [[] for _ in range(12)]
    for c in rest:
        choices = [p for p in used if len(piles[p]) < 8]
        piles[rng.choice(choices)].append(c)
    return piles, reserve


def random_face_heavy_position(rng):
    """2-3 triplets plus 1-2 pair classes, deeper piles, few reserve cards."""
    cards = [J, Q, K] * rng.randint(2, 3)
    for cls in rng.sample([1, 2, 3, 4, 5], rng.randint(1, 2)):
        cards += [cls, 11 - cls] * rng.randint(2, 4)
    rng.shuffle(cards)
    n_res = rng.randint(0, 3)
    reserve = cards[:n_res] + [None] * (8 - n_res)
    rest = cards[n_res:]
    n_piles = max(rng.randint(3, 6), -(-len(rest) // 8))
    used = rng.sample(range(12), n_piles)
    piles = [[] for _ in range(12)]
    for c in rest:
        piles[rng.choice([p for p in used if len(piles[p]) < 8])].append(c)
    return piles, reserve


def full_deal(seed):
    rng = random.Random(seed)
    deck = [k % 13 + 1 for k in range(104)]
    rng.shuffle(deck)
    return [deck[8 * i:8 * i + 8] for i in range(12)], deck[96:]


def check_result(res, piles, reserve):
    assert isinstance(res, CpsatResult)
    assert res.verdict in ("win", "loss", "unresolved")
    assert res.seconds >= 0 and res.branches >= 0 and res.conflicts >= 0
    if res.verdict == "win":
        assert _replay_ok(piles, reserve, res.moves)
        n = [r for p in piles for r in p] + [r for r in reserve if r is not None]
        numbers = sum(1 for r in n if r <= 10)
        assert len(res.moves) == numbers // 2 + (len(n) - numbers) // 3
        for move in res.moves:
            key = [(s[0] != "P", int(s[1:])) for s in move]
            assert key == sorted(key) and len(set(key)) == len(key)
    else:
        assert res.moves is None


# ---------------------------------------------------------------------------
# hand-made positions

HAND = [
    # (piles {number: bottom->top}, reserve, expected)
    ({}, [], "win"),
    ({1: [1, 10]}, [], "loss"),                       # the 10 needs the ace under it
    ({1: [1, 1], 2: [10, 10]}, [], "win"),
    ({1: [10]}, [1], "win"),
    ({}, [5, 6, J, Q, K], "win"),
    ({1: [1, 2], 2: [9, 10]}, [], "loss"),             # tops 2 and 10: dead at once
    ({1: [1, 2], 2: [9, 10]}, [5, 6], "loss"),         # a legal move, then dead
    ({1: [1, 10], 2: [10, 1]}, [], "win"),
    ({1: [1, 10]}, [1, 10], "win"),                    # pairing R1+R2 first would lose
                                                       # tops pair, then bottoms
    ({1: [1, 2], 2: [10, 9]}, [], "win"),
    ({1: [J, Q]}, [K], "loss"),                        # J under Q of the only triplet
    ({1: [Q, J], 2: [K, J], 3: [Q, K]}, [], "loss"),   # tops J, J, K: no queen in view
    ({1: [Q, J], 2: [J, Q], 3: [K, K]}, [], "win"),
    ({1: [J, Q], 2: [Q, J]}, [K, K], "win"),
    ({1: [Q, J], 2: [K, Q], 3: [J, K]}, [], "win"),
    ({1: [K, J], 2: [K, J], 3: [Q], 4: [Q]}, [], "loss"),  # both kings under jacks
    ({1: [K, J, 5], 2: [Q, K, 6], 3: [J, Q]}, [], "win"),
]


@pytest.mark.parametrize("counting", [False, True], ids=["pairs", "counts"])
@pytest.mark.parametrize("piles_desc,reserve_desc,expected", HAND)
def test_hand_made(piles_desc, reserve_desc, expected, counting):
    piles, reserve = position(piles_desc, reserve_desc)
    assert brute_force(piles, reserve) == (expected == "win")
    res = solve_cpsat(piles, reserve, counting=counting)
    assert res.verdict == expected
    check_result(res, piles, reserve)


def test_empty_is_win_with_no_moves():
    res = solve_cpsat([[] for _ in range(12)], EMPTY_RESERVE)
    assert res.verdict == "win" and res.moves == ()


@pytest.mark.parametrize("counting", [False, True], ids=["pairs", "counts"])
def test_unbalanced_counts_lose_immediately(counting):
    piles, reserve = position({1: [1, 1], 2: [1, 10], 3: [10]})
    res = solve_cpsat(piles, reserve, counting=counting)
    assert res.verdict == "loss" and res.branches == 0 and res.moves is None
    piles, reserve = position({1: [J, Q]}, [K, K])
    assert solve_cpsat(piles, reserve, counting=counting).verdict == "loss"


def test_move_format():
    piles, reserve = position({3: [6], 8: [5]}, [None, K, None, None, None, J, None, Q])
    res = solve_cpsat(piles, reserve)
    assert res.verdict == "win"
    assert sorted(res.moves) == [("P3", "P8"), ("R2", "R6", "R8")]


def test_replay_rejects_bad_sequences():
    piles, reserve = position({1: [1, 1], 2: [10, 10]})
    assert _replay_ok(piles, reserve, [("P1", "P2"), ("P1", "P2")])
    assert not _replay_ok(piles, reserve, [("P1", "P2")])                # cards left
    assert not _replay_ok(piles, reserve, [("P1", "P1"), ("P2", "P2")])  # same source twice
    assert not _replay_ok(piles, reserve, [("P1", "R1"), ("P2", "P1")])  # empty slot
    piles, reserve = position({1: [2], 2: [10]})
    assert not _replay_ok(piles, reserve, [("P1", "P2")])                # 12, not 11
    piles, reserve = position({1: [J], 2: [J]}, [Q, Q, K, K])
    assert not _replay_ok(piles, reserve, [("P1", "P2", "R3"), ("R1", "R2", "R4")])


@pytest.mark.parametrize("make, seed, count, at_least", [
    (random_small_position, 20240601, 400, 100),
    (random_face_heavy_position, 7, 150, 30),
], ids=["small", "face-heavy"])
@pytest.mark.parametrize("counting", [False, True], ids=["pairs", "counts"])
def test_random_positions_agree_with_brute_force(make, seed, count, at_least, counting):
    rng = random.Random(seed)
    verdicts = {"win": 0, "loss": 0}
    for _ in range(count):
        piles, reserve = make(rng)
        res = solve_cpsat(piles, reserve, counting=counting)
        check_result(res, piles, reserve)
        assert res.verdict == ("win" if brute_force(piles, reserve) else "loss"), (piles, reserve)
        verdicts[res.verdict] += 1
    # the generator must exercise both answers
    assert verdicts["win"] >= at_least and verdicts["loss"] >= at_least, verdicts


@pytest.mark.parametrize("counting", [False, True], ids=["pairs", "counts"])
def test_full_deals_replay(counting):
    for seed in (1, 4):
        piles, reserve = full_deal(seed)
        res = solve_cpsat(piles, reserve, time_limit=60, counting=counting)
        assert res.verdict == "win"
        assert len(res.moves) == 48
        check_result(res, piles, reserve)


def test_two_workers():
    piles, reserve = full_deal(6)
    res = solve_cpsat(piles, reserve, time_limit=60, workers=2)
    assert res.verdict == "win"
    check_result(res, piles, reserve)


def test_time_limit_gives_unresolved():
    piles, reserve = full_deal(0)
    res = solve_cpsat(piles, reserve, time_limit=0.0)
    assert res.verdict == "unresolved" and res.moves is None


def test_rejects_bad_ranks():
    with pytest.raises(ValueError):
        solve_cpsat([[0]] + [[] for _ in range(11)], EMPTY_RESERVE)
    with pytest.raises(ValueError):
        solve_cpsat([[] for _ in range(12)], [14] + [None] * 7)
