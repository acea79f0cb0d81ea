"""The reference engine: the rules' worked example, legality, undo, status, the end
of the game, and property tests over random play."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from conftest import EXAMPLE_PILES, EXAMPLE_RESERVE, make_game, make_layout
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from halfmoon import (
    Card,
    Deal,
    Game,
    HalfMoonError,
    IllegalMoveError,
    Move,
    Position,
    format_layout,
    parse_layout,
)
from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import SOURCES

# --- helpers independent of the engine ------------------------------------------


def playable_by_hand(game: Game) -> dict[str, object]:
    """Playable cards recomputed from the deal and the position alone."""
    out = {}
    for i, n in enumerate(game.position.counts):
        if n:
            out[f"P{i + 1}"] = game.deal.piles[i][n - 1]
    for r, full in enumerate(game.position.reserve):
        if full:
            out[f"R{r + 1}"] = game.deal.reserve[r]
    return out


def brute_force_moves(game: Game) -> set[frozenset[str]]:
    """Every 2- or 3-subset of the twenty sources that the rules allow."""
    cards = playable_by_hand(game)
    found = set()
    for size in (2, 3):
        for sources in combinations(SOURCES, size):
            if not all(s in cards for s in sources):
                continue
            ranks = sorted(cards[s].rank for s in sources)
            if size == 2 and ranks[1] <= 10 and sum(ranks) == 11:
                found.add(frozenset(sources))
            if size == 3 and ranks == [11, 12, 13]:
                found.add(frozenset(sources))
    return found


def legal_sets(game: Game) -> set[frozenset[str]]:
    return {frozenset(m.sources) for m in game.legal_moves}


def snapshot(game: Game):
    return (
        game.position,
        game.score,
        game.move_count,
        game.pairs,
        game.triplets,
        list(game.legal_moves),
        tuple(game.stack),
        game.can_undo(),
    )


def find_winning_line(game: Game, node_cap: int) -> list[Move] | None:
    """Plain DFS over positions (counts, reserve) with a visited set; None if the cap
    is reached or the deal is lost.  The game is left where it started."""
    seen: set[Position] = set()
    line: list[Move] = []
    nodes = 0

    def dfs() -> bool:
        nonlocal nodes
        if game.cards_left() == 0:
            return True
        position = game.position
        if position in seen:
            return False
        seen.add(position)
        nodes += 1
        if nodes > node_cap:
            raise TimeoutError
        for move in list(game.legal_moves):
            game.push(move)
            line.append(move)
            if dfs():
                return True
            game.pop()
            line.pop()
        return False

    try:
        won = dfs()
    except TimeoutError:
        won = False
    while game.stack:
        game.pop()
    return list(line) if won else None


# --- the rules' worked example ------------------------------------------------------


def test_example_layout_shows_the_cards_of_the_rules(example_game):
    shown = {s: str(c) for s, c in example_game.playable().items()}
    assert shown == {"P1": "5s", "P3": "Kh", "P5": "Qh", "P8": "6d", "R1": "Ah", "R2": "10c"}


def test_worked_example(example_game):
    game = example_game
    assert Move.parse("P1+P8") in game.legal_moves
    assert Move.parse("P3+P5+P8") not in game.legal_moves  # J♣ is still under 6♦
    game.play("P1+P8")
    assert game.score == 10 and game.move_count == 1
    assert str(game.card_at("P8")) == "Jc"
    assert game.card_at("P1") is None
    game.play(Move.parse("P8+P5+P3"))
    assert game.score == 25
    assert game.move_count == 2
    assert (game.pairs, game.triplets) == (1, 1)
    assert [str(m) for m in game.stack] == ["P1+P8", "P3+P5+P8"]
    assert game.cards_left() == 2
    assert legal_sets(game) == {frozenset({"R1", "R2"})}


def test_game_accepts_deal_code_number_and_deal():
    assert Game(0).deal == Game("HM1-N-AAAAAAA").deal == Game(Deal("HM1-N-AAAAAAA")).deal
    assert Game(1).deal.code == "HM1-N-AAAAAAB"


def test_full_deal_starts_with_104_cards():
    game = Game("HM1-N-AAAAAAA")
    assert game.cards_left() == 104
    assert game.position == Position((8,) * 12, (True,) * 8)
    assert game.position.cards_left == 104
    assert (game.score, game.move_count) == (0, 0)
    assert str(game.card_at("P1")) == "7d" and str(game.card_at("r8")) == "10h"


def test_legal_moves_object(example_game):
    legal = example_game.legal_moves
    assert len(legal) == 2 == legal.count()
    assert bool(legal)
    assert [str(m) for m in legal] == ["P1+P8", "R1+R2"]
    assert Move.parse("R2+R1") in legal
    assert Move.parse("P1+R1") not in legal
    assert "P1+P8" in repr(legal)


# --- legal moves against a brute-force enumeration ----------------------------------


@pytest.mark.parametrize(
    "code",
    ["HM1-N-AAAAAAA", "HM1-N-AAAAAAB", "HM1-N-AKKEEKB", "HM1-N-ZZZZZZZ"],
)
def test_legal_moves_equal_brute_force_along_a_game(code):
    game = Game(code)
    while True:
        expected = brute_force_moves(game)
        assert legal_sets(game) == expected
        assert len(game.legal_moves) == len(expected)  # no duplicates
        for move in game.legal_moves:
            assert game.is_legal(move)
        if not expected:
            break
        game.push(sorted(game.legal_moves, key=str)[-1])


def test_legal_moves_include_pile_reserve_and_reserve_reserve_combinations():
    game = make_game({1: "4c", 2: "Jd"}, "7h 2s 9d Qc Kc")
    assert legal_sets(game) == {
        frozenset({"P1", "R1"}),
        frozenset({"R2", "R3"}),
        frozenset({"P2", "R4", "R5"}),
    }


def test_face_cards_never_pair_and_triplet_needs_three_ranks():
    game = make_game({1: "Jc", 2: "Jd", 3: "Qh", 4: "Kh", 5: "Ks", 6: "Qc"}, "")
    moves = legal_sets(game)
    assert all(len(m) == 3 for m in moves)
    # 2 Jacks x 2 Queens x 2 Kings
    assert len(moves) == 8


# --- play() rejects illegal moves ---------------------------------------------------


@pytest.mark.parametrize(
    "move, reason",
    [
        ("P1+R1", "5♠ P1 + A♥ R1 is not a pair adding up to 11"),
        ("P3+P5", "K♥ P3 + Q♥ P5 is not a pair adding up to 11"),
        ("P1+P3", "5♠ P1 + K♥ P3 is not a pair adding up to 11"),
        ("P3+P5+R1", "is not a Jack, a Queen and a King"),
        ("P2+P8", "P2 is empty"),
        ("P2+P4+P6", "P2, P4, P6 are empty"),
    ],
)
def test_play_rejects_illegal_moves_naming_the_move(example_game, move, reason):
    before = snapshot(example_game)
    with pytest.raises(IllegalMoveError) as info:
        example_game.play(move)
    message = str(info.value)
    assert str(Move.parse(move)) in message
    assert reason in message
    assert snapshot(example_game) == before


def test_play_rejects_triplet_before_jack_shows(example_game):
    with pytest.raises(IllegalMoveError, match="illegal move P3\\+P5\\+P8"):
        example_game.play("P8+P5+P3")


def test_play_rejects_unreadable_moves(example_game):
    with pytest.raises(IllegalMoveError, match="unknown source"):
        example_game.play("P1+P99")
    with pytest.raises(IllegalMoveError, match="unknown source"):
        example_game.card_at("Z1")


# --- undo ---------------------------------------------------------------------------


def test_undo_takes_points_back(example_game):
    game = example_game
    start = snapshot(game)
    game.play("P1+P8")
    after_pair = snapshot(game)
    game.play("P3+P5+P8")
    assert game.undo() == Move.parse("P3+P5+P8")
    assert game.score == 10 and game.move_count == 1
    assert snapshot(game) == after_pair
    assert game.undo() == Move.parse("P1+P8")
    assert game.score == 0 and game.move_count == 0
    assert snapshot(game) == start
    assert game.undo() is None
    assert not game.can_undo()


def test_undo_limit():
    game = make_game(EXAMPLE_PILES, EXAMPLE_RESERVE, undo_limit=2)
    game.play("P1+P8")
    game.play("R1+R2")
    game.play("P3+P5+P8")
    assert game.move_count == 3 and game.score == 35
    assert game.undo() == Move.parse("P3+P5+P8")
    assert game.undo() == Move.parse("R1+R2")
    assert game.undo() is None
    # The game goes on: the oldest move stays, and new moves can be undone again.
    assert game.move_count == 1 and game.score == 10
    assert [str(m) for m in game.stack] == ["P1+P8"]
    game.play("R1+R2")
    assert game.move_count == 2 and game.score == 20
    assert game.undo() == Move.parse("R1+R2")
    assert game.undo() is None
    assert game.move_count == 1


def test_pop_ignores_undo_limit_and_fails_on_empty_stack():
    game = make_game(EXAMPLE_PILES, EXAMPLE_RESERVE, undo_limit=0)
    game.play("P1+P8")
    assert game.undo() is None
    assert game.pop() == Move.parse("P1+P8")
    assert game.move_count == 0
    with pytest.raises(IndexError):
        game.pop()


# --- status line ----------------------------------------------------------------------


def test_status_line_with_injected_clock():
    times = iter([0.0, 83.0, 83.0, 3725.9])
    game = Game("HM1-N-AAAAAAB", clock=lambda: next(times))
    line = game.status_line()
    assert "1:23" in line
    assert "Score 0" in line and "Moves 0" in line
    assert "HM1-N-AAAAAAB" in line
    game.play(next(m for m in game.legal_moves if not m.is_triplet))
    line = game.status_line()
    assert "1:23" in line and "Score 10" in line and "Moves 1" in line
    assert "62:05" in game.status_line()


def test_status_line_of_a_position_without_code():
    game = make_game(EXAMPLE_PILES, EXAMPLE_RESERVE, clock=lambda: 5.0)
    assert "0:00" in game.status_line()
    assert "no code" in game.status_line()


# --- the end of the game --------------------------------------------------------------


def test_dead_end_on_a_small_position():
    game = make_game({1: "10c Ah"}, "")
    assert game.cards_left() == 2
    assert not game.legal_moves
    assert game.is_dead_end and game.is_over and not game.is_won


def test_dead_end_after_a_move():
    game = make_game({1: "10c Ah", 2: "5s", 3: "6d"}, "")
    assert not game.is_dead_end
    game.play("P2+P3")
    assert game.is_dead_end and not game.is_won
    game.undo()
    assert not game.is_dead_end


def test_face_cards_of_two_ranks_only_are_a_dead_end():
    game = make_game({1: "Kh Jc", 2: "Qs"}, "")
    assert game.is_dead_end


def test_king_buried_under_jack_is_a_dead_end():
    game = make_game({1: "Kh Jc", 2: "Qs", 3: "6d", 4: "5s"}, "Ah 10c")
    game.play("P3+P4")
    game.play("R2+R1")
    # J♣ and Q♠ are left on show, the K♥ is under the J♣: no trio.
    assert game.is_dead_end and not game.is_won
    assert game.cards_left() == 3


def test_victory_on_a_small_position():
    game = make_game({1: "Jc", 2: "Qs", 3: "6d", 4: "5s", 5: "Kh"}, "Ah 10c")
    for move in ("P3+P4", "R2+R1"):
        game.play(move)
        assert not game.is_won and not game.is_over
    game.play("P1+P2+P5")
    assert game.is_won and game.is_over and not game.is_dead_end
    assert game.cards_left() == 0 and not game.legal_moves
    assert game.score == 35 and game.move_count == 3


def test_empty_table_is_won():
    game = Game(parse_layout(make_layout({}, "")))
    assert game.is_won and not game.is_dead_end


# --- a full winning line: 48 moves, 520 points -----------------------------------------


def test_winning_line_of_a_full_deal_scores_520_in_48_moves():
    wins = []
    for number in range(21):
        line = find_winning_line(Game(number), node_cap=4000)
        if line is not None:
            wins.append((number, line))
        if len(wins) == 2:
            break
    assert len(wins) == 2, "no winnable deal found among deals 0..20"
    for number, line in wins:
        game = Game(number)
        for move in line:
            assert not game.is_won
            game.play(move)
        assert game.is_won and not game.is_dead_end and game.is_over
        assert game.move_count == 48 == len(line)
        assert game.score == 520
        assert (game.pairs, game.triplets) == (40, 8)
        assert game.cards_left() == 0
        # Everything can be undone move by move back to the deal (48 < 100).
        while game.undo() is not None:
            pass
        assert game.cards_left() == 104 and game.score == 0 and game.move_count == 0


# --- properties over random play --------------------------------------------------------

RANDOM_PLAY = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@RANDOM_PLAY
@given(number=st.integers(0, MAX_NUMBER), data=st.data())
def test_random_play_properties(number, data):
    game = Game(number)
    initial = Counter(game.deal.cards())
    removed: Counter = Counter()
    while True:
        moves = list(game.legal_moves)
        cards_left = game.cards_left()
        # is_dead_end <=> no legal move and cards left; is_won <=> no card left
        assert game.is_dead_end == (not moves and cards_left > 0)
        assert game.is_won == (cards_left == 0)
        # moves as sets of sources equal the brute-force enumeration
        assert {frozenset(m.sources) for m in moves} == brute_force_moves(game)
        # no card created or lost
        table = Counter(game.remaining_deal().cards())
        assert table + removed == initial
        assert sum(table.values()) == cards_left
        # score from the pairs and triplets, and from the stack
        assert game.score == 10 * game.pairs + 15 * game.triplets
        assert game.score == sum(m.points for m in game.stack)
        assert game.move_count == len(game.stack) == game.pairs + game.triplets
        if not moves:
            break
        move = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
        # undo (pop) restores the exact previous state
        before = snapshot(game)
        game.push(move)
        assert game.pop() == move
        assert snapshot(game) == before
        cards = [game.card_at(s) for s in move.sources]
        game.play(move)
        removed.update(cards)
        if data.draw(st.integers(0, 9), label="undo?") == 0:
            after = snapshot(game)
            assert game.undo() == move
            assert snapshot(game) == before
            game.play(move)
            assert snapshot(game) == after
    if game.is_won:
        assert game.move_count == 48 and game.score == 520


@RANDOM_PLAY
@given(number=st.integers(0, MAX_NUMBER), data=st.data())
def test_random_play_then_undo_everything(number, data):
    game = Game(number)
    history = [snapshot(game)]
    steps = data.draw(st.integers(1, 48), label="steps")
    for _ in range(steps):
        moves = list(game.legal_moves)
        if not moves:
            break
        game.play(moves[data.draw(st.integers(0, len(moves) - 1), label="move")])
        history.append(snapshot(game))
    while len(history) > 1:
        history.pop()
        assert game.undo() is not None
        assert snapshot(game) == history[-1]
    assert game.undo() is None
    assert game.score == 0 and game.cards_left() == 104


# --- playing along with the app: a partial deal -------------------------------------

def _play_along(number: int, steps: int, seed: int):
    """A random game on deal ``number`` played twice: on the full deal, and on its app view
    with each uncovered card revealed from the full deal.  Yields both after each move."""
    import random

    from conftest import app_view

    full = Game(Deal.from_number(number))
    along = Game(app_view(full.deal))
    rng = random.Random(seed)
    for _ in range(steps):
        moves = list(full.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        full.play(move)
        along.play(move)
        for pile in along.waiting:
            along.reveal(pile, full.card_at(pile))
        yield full, along


@given(st.integers(0, MAX_NUMBER), st.integers(0, 2**32))
@settings(max_examples=25, deadline=None)
def test_a_game_played_along_with_reveals_is_the_full_game(number, seed):
    for full, along in _play_along(number, 48, seed):
        assert along.waiting == ()
        assert along.playable() == full.playable()
        assert list(along.legal_moves) == list(full.legal_moves)
        assert along.is_over == full.is_over and along.is_won == full.is_won
        assert along.cards_left() == full.cards_left()
        left = Counter(c for p, n in zip(full.deal.piles, full.counts) for c in p[:n])
        shown = Counter(c for s, c in full.playable().items() if s.startswith("P"))
        assert along.unknown() == left - shown  # the unseen cards are the hidden ones


def test_a_move_that_uncovers_an_unknown_card_leaves_its_pile_waiting():
    from conftest import app_view

    deal = Deal("HM1-N-AAAAAAA")
    game = Game(app_view(deal))
    assert game.waiting == () and game.deal.is_partial
    game.play("P1+P8")  # 7d + 4s
    assert game.waiting == ("P1", "P8")
    assert game.card_at("P1").rank == 0 and "P1" not in game.playable()
    assert not game.legal_moves and not game.is_dead_end and not game.is_over
    with pytest.raises(IllegalMoveError, match="P1, P8 wait for the cards they uncovered"):
        game.play("P4+P5")
    assert game.tap("P4").selection == ()  # taps wait too
    game.reveal("P1", "10c")
    with pytest.raises(IllegalMoveError, match="P8 waits for the card it uncovered"):
        game.play("P4+P5")
    game.reveal("p8", deal.piles[7][6])
    assert game.waiting == () and "P1+R1" in {str(m) for m in game.legal_moves}
    assert game.card_at("P1") == deal.piles[0][6]


def test_undo_takes_a_reveal_back_with_its_move():
    from conftest import app_view

    deal = Deal("HM1-N-AAAAAAA")
    start = app_view(deal)
    game = Game(start)
    unseen = game.unknown()
    game.play("P1+P8")
    game.reveal("P1", "10c")
    game.reveal("P8", "10s")
    game.play("P1+R1")  # 10c + As uncovers P1 again
    game.reveal("P1", deal.piles[0][5])
    assert sum(game.unknown().values()) == 81
    game.undo()
    assert game.waiting == () and game.card_at("P1").symbol() == "10♣"
    assert sum(game.unknown().values()) == 82
    game.undo()
    assert game.known_deal() == start and game.unknown() == unseen
    assert game.card_at("P1") == deal.piles[0][7]
    game.play("P1+P8")
    assert game.waiting == ("P1", "P8")  # the places are unknown again: asked anew


def test_bad_reveals_name_the_card_and_keep_the_game():
    from conftest import app_view

    game = Game(app_view(Deal("HM1-N-AAAAAAA")))
    game.play("P1+P8")
    before = (game.known_deal(), game.position, game.waiting, game.unknown())
    with pytest.raises(IllegalMoveError, match=r"P3 is not waiting for a card \(its top is Js\)"):
        game.reveal("P3", "5c")
    with pytest.raises(IllegalMoveError, match="only a pile"):
        game.reveal("R1", "5c")
    with pytest.raises(HalfMoonError, match=r"a third 8h: both copies are already on the table "
                                            r"or removed \(P6, R2\)"):
        game.reveal("P1", "8h")
    with pytest.raises(HalfMoonError, match="not a card"):
        game.reveal("P1", "1x")
    assert (game.known_deal(), game.position, game.waiting, game.unknown()) == before
    game.reveal("P1", "10c")
    game.reveal("P8", "10s")
    game.play("P12+R1")  # 10h + As: the other 10h is in R8
    with pytest.raises(HalfMoonError, match=r"P12: a third 10h: .* \(R8, removed\)"):
        game.reveal("P12", "10h")


def test_a_pile_unknown_from_the_start_waits_and_its_reveal_stays():
    from halfmoon.game.cards import DOUBLE_DECK, UNKNOWN

    table = parse_layout(make_layout({1: "10c 4d 5s", 2: "7h 9d"}, "6d Ah 2c"))
    removed = Counter(DOUBLE_DECK) - Counter(table.cards())
    deal = Deal(piles=[[UNKNOWN, UNKNOWN, Card.parse("5s")], [UNKNOWN, UNKNOWN]] + [[]] * 10,
                reserve=table.reserve, removed=list(removed.elements()))
    assert parse_layout(format_layout(deal)) == deal
    game = Game(deal)
    assert game.waiting == ("P2",) and not game.legal_moves
    assert sum(game.unknown().values()) == 4
    with pytest.raises(HalfMoonError, match="a third 6d"):
        game.reveal("P2", "6d")  # only 10c 4d 7h 9d are unseen
    game.reveal("P2", "9d")
    game.play("P1+R1")  # 5s + 6d
    assert game.waiting == ("P1",)
    game.undo()
    assert game.waiting == () and game.card_at("P2") == Card.parse("9d")
    assert game.undo() is None  # a reveal at the start is no move's


def test_the_remaining_deal_of_a_game_played_along_reads_back_from_its_layout():
    from conftest import app_view

    game = Game(app_view(Deal("HM1-N-AAAAAAA")))
    game.play("P1+P8")
    game.reveal("P1", "10c")
    position = game.remaining_deal()
    assert position.is_partial and position.removed == (Card.parse("4s"), Card.parse("7d"))
    assert "removed: 4s 7d" in format_layout(position)
    assert parse_layout(format_layout(position)) == position
    assert Game(position).waiting == ("P8",)


def test_the_legal_moves_of_the_same_playable_cards_are_made_once():
    """The moves depend on the playable cards only: made once for them (a board asks for
    them many times a move), and made anew when a card changes."""
    from halfmoon.game.engine import _moves_of

    first, second = Game("HM1-N-AAAAAAB"), Game("HM1-N-AAAAAAB")
    hits = _moves_of.cache_info().hits
    assert list(first.legal_moves) == list(second.legal_moves)
    assert _moves_of.cache_info().hits > hits
    first.push(next(iter(first.legal_moves)))
    assert legal_sets(first) == brute_force_moves(first) != legal_sets(second)
