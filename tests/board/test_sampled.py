"""The layouts of a game from the app kept across moves: what a card told keeps and draws
again, the statistics read from them, and the board's jobs and answers on them."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
from test_along import DEAD_END_DEAL, DEAD_END_MOVES, shown_text
from test_service import FakePool

from halfmoon.board.along import DECK, AlongLive
from halfmoon.board.along_view import position_key
from halfmoon.board.sampled import LOST, SIZE, Sample, answer_of, block, paired_bounds
from halfmoon.board.service import Board
from halfmoon.game.cards import Card
from halfmoon.game.deal import Deal
from halfmoon.research.stats import paired_difference


def _live(moves=()) -> tuple[AlongLive, Deal]:
    from test_along import play_along

    deal = Deal.from_number(DEAD_END_DEAL)
    return AlongLive("g", play_along(deal, moves)), deal


def _consistent(sample: Sample, live: AlongLive) -> None:
    """Every slot holds the double deck, the cards seen where they were seen."""
    along = live.along
    for piles in sample.layouts:
        cards = Counter(Card.from_index(c) for p in piles for c in p) + Counter(along.reserve)
        assert cards == DECK
        for i, pile in enumerate(along.known):
            for d, card in enumerate(pile):
                if card is not None:
                    assert piles[i][d] == card.index


def test_a_card_told_keeps_the_layouts_of_its_rank_and_draws_the_others():
    live, deal = _live()
    sample = Sample(live, size=200)
    _consistent(sample, live)
    here = live.game.position
    table = sample.table(here)
    for s in range(sample.size):
        table[s] = {"x": "w"}
    before = [[list(p) for p in piles] for piles in sample.layouts]
    for source in DEAD_END_MOVES[0].split("+"):  # P3+R7+R8: P3's next card appears
        live.tap(source)
    sample.reconcile(live)  # nothing told yet: every layout kept
    assert sample.layouts == before
    i = 2
    d = live.game.counts[i] - 1
    told = deal.piles[i][d]
    live.reveal("P3", str(told))
    sample.reconcile(live)
    _consistent(sample, live)
    same_rank = [s for s in range(sample.size) if before[s][i][d] % 13 == told.index % 13]
    assert sample.kept == len(same_rank) and sample.drawn == sample.size - len(same_rank)
    assert 0 < len(same_rank) < sample.size
    for s in range(sample.size):
        if s in same_rank:  # kept with what was solved, every rank where it was
            assert table[s] == {"x": "w"}
            ranks = [[c % 13 for c in p] for p in sample.layouts[s]]
            assert ranks == [[c % 13 for c in p] for p in before[s]]
        else:
            assert table[s] is None
    # an undo keeps everything: the card told stays known
    live.undo()
    kept = [[list(p) for p in piles] for piles in sample.layouts]
    sample.reconcile(live)
    assert sample.layouts == kept


def test_the_kept_layouts_stay_uniform():
    """The card under a top told, the kept and redrawn layouts together: the card beside it
    (the next one down) is each unseen card about as often as a fresh draw makes it."""
    live, deal = _live()
    sample = Sample(live, size=4000)
    sample.rng = random.Random(5)
    for source in DEAD_END_MOVES[0].split("+"):
        live.tap(source)
    i = 2
    d = live.game.counts[i] - 1
    live.reveal("P3", str(deal.piles[i][d]))
    sample.reconcile(live)
    below = Counter(piles[i][d - 1] % 13 for piles in sample.layouts)
    unseen = Counter(c.index % 13 for c in live.along.unseen().elements())
    total = sum(unseen.values())
    for rank, count in unseen.items():
        expected = sample.size * count / total
        assert abs(below[rank] - expected) < 5 * expected ** 0.5


def test_a_correction_draws_every_layout_again():
    live, _ = _live()
    sample = Sample(live, size=32)
    sample.table(live.game.position)[0] = {"x": "l"}
    top = live.along.known[0][-1]
    other = next(c for c in live.along.possible() if Card.parse(c).rank != top.rank)
    live.correct("P1", other)
    sample.reconcile(live)
    _consistent(sample, live)
    assert not sample.tables


def test_answer_of_reads_the_paired_statistics_of_the_table():
    rng = random.Random(3)
    moves = ["P1+P8", "P2+P8", "P3+R1"]
    rows = [LOST if rng.random() < 0.2 else
            {m: rng.choice("wwlu") for m in moves} for _ in range(64)]
    out = answer_of(rows, moves, "P2+P8", "P3+R1")
    won = np.array([[r is not LOST and r[m] == "w" for m in moves] for r in rows], float)
    keeps = won.sum(axis=0)
    assert [m["keeps"] for m in out["moves"]] == list(keeps)
    best = out["best"]
    assert keeps[moves.index(best)] == keeps.max() and out["recommended"] == best
    assert out["move"] == "P2+P8" and out["samples"] == 64
    assert out["position_wins"] == int(won.any(axis=1).sum())
    for j, m in enumerate(out["moves"]):
        _, low, high = paired_difference(won[:, j], won[:, moves.index(best)])
        assert abs(m["diff_low"] - low) < 1e-5 and abs(m["diff_high"] - high) < 1e-5
    # a tie at the top goes to the tuned player's move, else to the first
    tie = [{m: "w" for m in moves}] * 8
    assert answer_of(tie, moves, None, "P2+P8")["best"] == "P2+P8"
    assert answer_of(tie, moves, None, "P9+P10")["best"] == "P1+P8"
    assert paired_bounds(0, 0, 0, 0) == (-1.0, 1.0)


def test_beyond_the_first_64_layouts_only_the_contenders_count():
    from halfmoon.board.sampled import FULL, contenders

    moves = ["P1+P8", "P2+P8", "P3+R1"]
    # P3+R1 wins 10 of the first 64, the others 60 and 58: P3+R1 is clearly below
    rows = [{"*": "w", "P1+P8": "w" if s < 60 else "l", "P2+P8": "w" if s < 58 else "l",
             "P3+R1": "w" if s < 10 else "l"} for s in range(FULL)]
    kept = contenders(rows, moves, None, "P1+P8")
    assert kept == ("P1+P8", "P2+P8")
    # beyond: rows of the contenders only, and the position's own verdict
    rows += [{"*": "w", "P1+P8": "l", "P2+P8": "w"} for _ in range(FULL, 384)]
    out = answer_of(rows, moves, None, "P1+P8", kept)
    by = {m["move"]: m for m in out["moves"]}
    assert out["best"] == "P2+P8" and by["P2+P8"]["keeps"] == 58 + 320
    assert by["P3+R1"]["samples"] == FULL and by["P3+R1"]["keeps"] == 10
    assert "samples" not in by["P1+P8"] and by["P1+P8"]["keeps"] == 60
    assert by["P3+R1"]["diff_high"] < 0 and out["position_wins"] == 384
    # a layout won by a move left out is still won: the position's own verdict says it
    rows[-1] = {"*": "w", "P1+P8": "l", "P2+P8": "l"}
    assert answer_of(rows, moves, None, "P1+P8", kept)["position_wins"] == 384


def test_the_slots_go_in_blocks_of_the_stages():
    slots = (0, 15, 16, 31, 32, 63, 64, 79, 80, 111, 112, SIZE - 9, SIZE - 8, SIZE - 1)
    assert [block(s) for s in slots] == [0, 0, 1, 1, 2, 3, 4, 4, 5, 5, 6, 14, 15, 15]
    # every slot in a block, the blocks in the slots' order, none larger than 32
    blocks = [block(s) for s in range(SIZE)]
    assert blocks == sorted(blocks) and set(blocks) == set(range(16))
    assert max(blocks.count(b) for b in set(blocks)) == 32


def _play_along(board, live, deal: Deal, moves) -> None:
    """``moves`` made on the board by tapping their cards, each card uncovered told at once."""
    for move in moves:
        for source in move.split("+"):
            board.tap(live.id, source)
        for pile in live.along.waiting:
            i = int(pile[1:]) - 1
            board.reveal(live.id, pile, str(deal.piles[i][live.game.counts[i] - 1]))


def test_the_board_answers_from_the_kept_layouts_and_thinks_on_the_players_time():

    pool = FakePool()
    board = Board(pool)
    deal = Deal.from_number(DEAD_END_DEAL)
    live = board.new_along(shown_text(deal))
    _play_along(board, live, deal, DEAD_END_MOVES[:3])
    here = live.game.position
    jobs = pool.jobs(board)
    # the fair player's move first (the longest job), then the first layouts by 16
    assert [j.context[3] == "moves" for j in jobs[:2]] == [True, False]
    assert jobs[1].message()[0] == "walk" and len(jobs[1].context[3]) == 16
    key = position_key(live)
    answered = []
    while True:  # the position's jobs answered one by one, as the solver processes do
        jobs = [j for j in pool.jobs(board) if j.context[2] == here]
        if not jobs:
            break
        # the fair player's move beside the first layouts (two solver processes)
        pool.answer(board, next((j for j in jobs if j.context[3] == "moves"), jobs[0]))
        answered.append(board.along.get(key, {}).get("samples"))
    assert 16 in answered and 64 in answered and answered[-1] == SIZE
    answer = board.along[key]
    assert answer["samples"] == SIZE and answer["recommended"] in {
        str(m) for m in live.game.legal_moves}
    # then, on the player's time, the positions after the likely moves
    ponder = pool.jobs(board)
    assert ponder and all(j.context[2] != here for j in ponder)
    for job in ponder:
        job.message()  # the slots a walk asks for are fixed when it is sent
    sample = board.samples[live.id]
    table = sample.tables[here]
    after = {}
    for move in live.game.legal_moves:
        live.game.push(move)
        after[live.game.position] = str(move)
        live.game.pop()
    pondered = {j.context[2] for j in ponder}
    assert pondered <= set(after) and len(pondered) == min(3, len(after))
    for at in pondered:  # a layout whose child was proved lost: lost there, nothing asked
        lost = {s for s, v in enumerate(table) if v is LOST or v.get(after[at]) == "l"}
        asked = {s for j in ponder if j.context[2] == at and j.context[3] != "moves"
                 for s in j.context[3] or ()}
        assert all(sample.tables[at][s] is LOST for s in lost)
        assert not asked & lost
    # a move and its undo: the position's answer and table are still there, nothing asked
    board.tap(live.id, "P11")
    board.tap(live.id, "R2")
    board.undo(live.id)
    assert board.along[key]["samples"] == SIZE
    assert not [j for j in pool.jobs(board) if j.context[2] == here]


def test_thinking_on_the_players_time_keeps_the_players_selection(monkeypatch):
    """The look ahead plays the likely moves on the game and takes them back: a card the
    player selected meanwhile stays selected (and the next tap completes the move)."""
    import halfmoon.board.sampled as sampled

    monkeypatch.setattr(sampled, "PONDER_MOVES", 20)  # every move: some play from the reserve
    pool = FakePool()
    board = Board(pool)
    deal = Deal.from_number(26)  # moves there play from the reserve only
    live = board.new_along(shown_text(deal))
    here = live.game.position
    first = next(iter(live.game.legal_moves)).sources[0]
    board.tap(live.id, first)
    while True:  # the position's jobs answered, then the look ahead planned
        jobs = [j for j in pool.jobs(board) if j.context[2] == here]
        if not jobs:
            break
        pool.answer(board, next((j for j in jobs if j.context[3] == "moves"), jobs[0]))
    looked = [j for j in pool.jobs(board) if j.context[2] != here and j.context[3] == "moves"]
    assert looked, "no move was looked ahead by playing it"
    assert live.game.selection == (first,)


def test_a_likely_move_that_ends_the_game_is_looked_ahead_without_a_fault():
    """Deal 88 after three moves: no layout is won, and the moves left (from the reserve)
    end the game: the look ahead asks nothing of the position after them, and plans on."""
    pool = FakePool()
    board = Board(pool)
    deal = Deal.from_number(88)
    live = board.new_along(shown_text(deal))
    _play_along(board, live, deal, ("P3+P4+P7", "P8+P12", "P10+R4"))
    here = live.game.position
    while True:
        jobs = [j for j in pool.jobs(board) if j.context[2] == here]
        if not jobs:
            break
        pool.answer(board, next((j for j in jobs if j.context[3] == "moves"), jobs[0]))
    assert board.along[position_key(live)]["samples"] == SIZE
    assert board.along[position_key(live)]["wins"] == 0
    assert all(j.context[2] != here for j in pool.jobs(board))


def test_an_answer_asks_for_a_new_plan_only_where_the_plan_changes():
    """A block of the first layouts answered changes nothing the pool holds; the fair
    player's move, the first 64 layouts whole (their contenders), a failure do."""
    from halfmoon.board.jobs import run_job

    pool = FakePool()
    board = Board(pool)
    live = board.new_along(shown_text(Deal.from_number(DEAD_END_DEAL)))
    sample, here = board.samples[live.id], live.game.position
    jobs = pool.jobs(board)
    walks = [j for j in jobs if j.context[3] != "moves"]
    assert len(walks) == 4  # the first 64 layouts by 16; those beyond wait for the contenders
    said = [sample.answered(live, board.along, here, j.context[3], run_job(j.message()))
            for j in walks[:3]]
    assert said == [False, False, False]
    last = walks[3]
    assert sample.answered(live, board.along, here, last.context[3], run_job(last.message()))
    moves = jobs[0]
    assert sample.answered(live, board.along, here, "moves", run_job(moves.message()))
    assert sample.answered(live, board.along, here, "moves", {"error": "the process failed"})


def test_the_look_ahead_takes_the_recommended_move_first(monkeypatch):
    """On the player's time the position after the recommended move is solved first, even
    where other moves keep the win in as many layouts (ties go to it, not to the first)."""
    import halfmoon.board.sampled as sampled
    from halfmoon.game.moves import Move

    monkeypatch.setattr(sampled, "PONDER_MOVES", 1)
    board = Board(FakePool())
    live = board.new_along(shown_text(Deal.from_number(26)))
    sample = Sample(live)
    moves = [str(m) for m in live.game.legal_moves]
    here = live.game.position
    table = [{"*": "w", **{m: "w" for m in moves}} for _ in range(sample.size)]  # all tied
    for fair in (moves[-1], moves[1]):
        sample.moves[here] = (fair, moves[0])
        jobs = sample._ponder("g", live, table, moves)
        assert {job.context[2] for job in jobs} == {sampled._after(here, Move.parse(fair))}


def test_a_job_planned_before_a_correction_is_not_an_answer_after_it():
    """A card corrected draws every layout again: the jobs planned before it are other jobs
    than those after it, one of them sent after it solves nothing (its answer would be
    dropped) and the answers of all of them are dropped, never a stop of the position."""
    from halfmoon.board.jobs import run_job

    pool = FakePool()
    board = Board(pool)
    live = board.new_along(shown_text(Deal.from_number(26)))
    planned, done = pool.wants[board]
    planned = list(planned)
    walks = [j for j in planned if j.context[3] != "moves"]
    fair = next(j for j in planned if j.context[3] == "moves")
    early = walks[0].message()  # sent before the correction
    top = live.along.known[0][-1]
    other = next(c for c in live.along.possible() if Card.parse(c).rank != top.rank)
    board.correct(live.id, "P1", other)
    assert not {j.key for j in pool.jobs(board)} & {j.key for j in planned}
    late = walks[1].message()  # sent after it, by a pool that still held it
    assert late[:3] == ("walk", [], None) and len(late) == 4
    for job, message in ((walks[0], early), (fair, fair.message()), (walks[1], late)):
        answer = run_job(message)
        assert "error" not in answer, answer
        done(job, answer)
    sample = board.samples[live.id]
    assert not sample.moves and all(v is None for v in sample.table(live.game.position))
    fair_view = board.opinion(live.id)["fair"]
    assert fair_view["stopped"] is None and fair_view["kind"] != "unknown"
