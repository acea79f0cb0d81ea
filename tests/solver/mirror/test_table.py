"""The transposition table (solver/mirror/table.py): bounded probing, generations, lookups."""

from __future__ import annotations

import numpy as np
import pytest

from solver.mirror.table import (
    FILTER_SHIFT,
    MAX_PROBE,
    Table,
    _home,
    filter_bit,
    prefetch_row,
    tt_contains,
    tt_prefetch,
    tt_store,
)
from solver.portfolio.search import solve

POSITION_BITS = 56


def random_positions(count: int, seed: int) -> np.ndarray:
    """Distinct random 56-bit packed positions."""
    rng = np.random.default_rng(seed)
    out = np.unique(rng.integers(1, 1 << POSITION_BITS, size=count + count // 10 + 10,
                                 dtype=np.uint64))
    rng.shuffle(out)
    assert out.size >= count
    return out[:count]


def store(t: Table, pos) -> int:
    return int(tt_store(t.slots, np.uint32(t.generation), t.bits, np.uint64(pos)))


def contains(t: Table, pos) -> bool:
    return bool(tt_contains(t.slots, np.uint32(t.generation), t.bits, np.uint64(pos)))


def test_size():
    t = Table(0.001)
    assert t.bits == 10 and t.keys.size == 1024 and t.gens.size == 1024
    t = Table(1)
    assert t.keys.size == 1 << t.bits
    assert t.nbytes <= 2**20 < 2 * t.nbytes  # the largest power of two that fits
    with pytest.raises(ValueError, match="positive"):
        Table(0)
    with pytest.raises(ValueError, match="positive"):
        Table(-1)


def stamp(t: Table, pos) -> int:
    """The filter bit of a position's home slot."""
    row, col, shift = filter_bit(t.bits, _home(np.uint64(pos), t.bits))
    return int(t.slots[row, col] >> shift) & 1


def test_filter_is_set_by_stores_and_consulted_by_lookups():
    t = Table(1)
    rows = 1 << t.bits
    assert t.slots.shape[0] == rows + rows // 2 ** (FILTER_SHIFT + 7)  # 1/1024 of the table
    t.next_generation()
    stored = random_positions(500, seed=7)
    for p in stored:
        store(t, p)
    assert all(stamp(t, p) == 1 for p in stored)
    # a position written into its home slot behind the filter's back is not seen ...
    hidden = next(int(p) for p in random_positions(2000, seed=8) if stamp(t, p) == 0)
    h = int(_home(np.uint64(hidden), t.bits))
    assert t.slots[h, 1] != t.generation  # (its home slot is free)
    t.slots[h] = (hidden, t.generation)
    assert not contains(t, hidden)
    # ... until the filter bit of its home is set
    row, col, shift = filter_bit(t.bits, np.int64(h))
    t.slots[row, col] |= np.uint64(1) << shift
    assert contains(t, hidden)


def test_filter_bits_cover_every_home_slot_once():
    """Each group of 2**FILTER_SHIFT home slots has its own bit, inside the filter rows."""
    t = Table(0.001)
    rows = 1 << t.bits
    seen = set()
    for h in range(rows):
        row, col, shift = (int(x) for x in filter_bit(t.bits, np.int64(h)))
        assert rows <= row < t.slots.shape[0] and col in (0, 1) and 0 <= shift < 64
        seen.add((row, col, shift))
    assert len(seen) == rows >> FILTER_SHIFT


def test_positions_typed_as_signed_integers_have_the_same_home():
    """A position passed from Python as an int reaches a kernel typed as a signed
    integer; its home slot (and filter bit) must be the one of the same position as
    uint64, or a stored root would not be found."""
    t = Table(1)
    t.next_generation()
    for p in random_positions(300, seed=10):
        assert int(_home(int(p), t.bits)) == int(_home(np.uint64(p), t.bits))
        assert 0 <= int(_home(int(p), t.bits)) < 1 << t.bits
        store(t, p)
        assert bool(tt_contains(t.slots, np.uint32(t.generation), t.bits, int(p)))


def test_a_new_generation_clears_the_filter():
    t = Table(1)
    t.next_generation()
    stored = random_positions(300, seed=9)
    for p in stored:
        store(t, p)
    t.next_generation()
    assert t.filter.size > 0 and not t.filter.any()
    assert not any(contains(t, p) for p in stored)
    assert store(t, stored[0]) == 1 and contains(t, stored[0]) and stamp(t, stored[0]) == 1


def test_stored_positions_are_found():
    t = Table(1)
    t.next_generation()
    stored = random_positions(2000, seed=1)
    others = random_positions(4000, seed=2)[2000:]
    others = np.setdiff1d(others, stored)
    for p in stored:
        assert store(t, p) == 1  # a free slot
    for p in stored:
        assert contains(t, p)
        assert store(t, p) == 0  # already there: nothing taken
    assert not any(contains(t, p) for p in others)
    assert int(np.count_nonzero(t.gens == t.generation)) == 2000


def test_full_table_never_loops():
    """1,024 entries, 100,000 distinct positions: every store returns, and the
    positions stored last are still found."""
    t = Table(0.001)
    t.next_generation()
    positions = random_positions(100_000, seed=3)
    taken = sum(store(t, p) for p in positions)
    assert taken == 1024  # every slot was filled once, later stores replaced entries
    assert bool(np.all(t.gens == t.generation))
    assert contains(t, positions[-1])  # the last store always lands where lookups start
    recent = sum(contains(t, p) for p in positions[-100:])
    assert recent >= 80, recent
    # lookups of absent positions end after MAX_PROBE slots, even in a full table
    absent = np.setdiff1d(random_positions(1000, seed=4), positions)
    assert absent.size > 900
    assert not any(contains(t, p) for p in absent)


def test_lookups_stop_at_max_probe():
    t = Table(0.001)
    t.next_generation()
    assert MAX_PROBE >= 1
    positions = random_positions(5000, seed=5)
    for p in positions:
        store(t, p)
    found = sum(contains(t, p) for p in positions)
    assert 0 < found <= 1024


def test_generations_make_old_entries_empty():
    t = Table(0.01)
    g1 = t.next_generation()
    old = random_positions(300, seed=6)
    for p in old:
        store(t, p)
    assert all(contains(t, p) for p in old)
    g2 = t.next_generation()
    assert g2 == g1 + 1
    assert not any(contains(t, p) for p in old)
    # old slots count as free: storing anew takes them
    assert all(store(t, p) == 1 for p in old[:100])
    assert all(contains(t, p) for p in old[:100])
    assert not any(contains(t, p) for p in old[100:])


def test_generation_wrap_clears_the_table():
    t = Table(0.001)
    t.next_generation()  # generation 1
    old = random_positions(50, seed=7)
    for p in old:
        store(t, p)
    t.generation = 2**32 - 2
    assert t.next_generation() == 1  # wraps, and the gen-1 entries must not come back
    assert not any(contains(t, p) for p in old)


def test_solve_with_a_tiny_table():
    """Searches far larger than the table finish with the same verdicts."""
    for number, verdict in ((262, "loss"), (13, "win"), (0, "win")):
        r = solve(number, budget=2_000_000, table=Table(0.001))
        assert r.verdict == verdict, number
        assert r.nodes > 0


def test_a_table_reused_across_deals():
    t = Table(1)
    first = [solve(n, budget=200_000, table=t).verdict for n in (55, 0, 58, 1, 92)]
    again = [solve(n, budget=200_000, table=t).verdict for n in (55, 0, 58, 1, 92)]
    assert first == again == ["loss", "win", "loss", "win", "loss"]


def test_prefetching_changes_nothing():
    """The prefetch hint, compiled and as plain Python, has no effect on the table: after
    prefetching the home slots of every stored position and of as many others, and the
    first and last rows, the table holds exactly what it held."""
    t = Table(1)
    t.next_generation()
    stored = random_positions(3_000, seed=11)
    for p in stored:
        store(t, p)
    before = t.slots.copy()
    for p in np.concatenate([stored, random_positions(3_000, seed=12)]):
        tt_prefetch(t.slots, t.bits, np.uint64(p))
    for row in (0, t.slots.shape[0] - 1):
        prefetch_row(t.slots, row)  # the plain-Python fallback: does nothing
    assert np.array_equal(t.slots, before)
    assert all(contains(t, p) for p in stored)
