"""The board joined up: taps never wait for the solver, the solver is asked for the
position on the board first, an answer for an older position never lights a newer one,
the store's cap, two tabs, and picking a deal."""

from __future__ import annotations

import asyncio
import random

import pytest
from board_helpers import EXAMPLE, TRAP, shared_pool

from halfmoon.board.errors import BadRequest, Busy, GameNotFound, StaleVersion
from halfmoon.board.jobs import run_job
from halfmoon.board.service import START, Board
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game, Settings
from halfmoon.game.errors import IllegalMoveError
from halfmoon.game.layouts import format_layout
from halfmoon.research.strategies import play
from solver import solve


class FakePool:
    """A pool that answers only when the test says so (or never)."""

    seconds = 1.0
    preparing = False  # True: as if a solver process were compiling the kernels

    def __init__(self) -> None:
        self.wants: dict = {}

    def want(self, owner, jobs, done) -> None:
        self.wants[owner] = (list(jobs), done)

    def forget(self, owner) -> None:
        self.wants.pop(owner, None)

    def waiting(self) -> int:
        return sum(len(jobs) for jobs, _ in self.wants.values())

    def jobs(self, board) -> list:
        return list(self.wants.get(board, ([], None))[0])

    def answer(self, board, job) -> None:
        """Take the job, run it here as a solver process would, hand back the answer."""
        jobs, done = self.wants[board]
        jobs.remove(job)
        done(job, run_job(job.message()))


def test_a_tap_never_waits_for_the_solver():
    pool = FakePool()  # never answers by itself
    board = Board(pool, start_deal=EXAMPLE)
    live = board.new_game()
    state = board.tap(live.id, "P1")
    state = board.tap(live.id, "P8")
    assert state["status"]["score"] == 10
    opinion = board.opinion(live.id)
    assert opinion["light"] == "pending" and opinion["busy"]
    [job] = pool.jobs(board)
    assert job.key == (live.deal_key, live.game.position)  # the position on the board


def test_an_answer_for_an_older_position_does_not_light_the_newer_one():
    pool = FakePool()
    board = Board(pool, start_deal=EXAMPLE)
    live = board.new_game()
    [first] = pool.jobs(board)  # the deal itself
    late = run_job(first.message())  # solved, but not handed back yet
    other = next(m for m in Game(EXAMPLE).legal_moves if str(m) != late["moves"][0])
    for source in other.sources:
        board.tap(live.id, source)
    [second] = pool.jobs(board)  # only the new position is wanted now
    assert second.key == (live.deal_key, live.game.position) != first.key
    _, done = pool.wants[board]
    done(first, late)  # the old answer comes back
    opinion = board.opinion(live.id)
    assert opinion["light"] == "pending" and opinion["moves"][0]["after"] == "pending"
    board.undo(live.id)
    assert board.opinion(live.id)["light"] == "win"  # it was about this position


def test_after_an_answer_the_light_and_the_hint_show():
    pool = FakePool()
    board = Board(pool, start_deal=TRAP)
    live = board.new_game()
    [job] = pool.jobs(board)
    pool.answer(board, job)
    opinion = board.opinion(live.id, hint=True)
    assert opinion["light"] == "win" and opinion["hint"]["kind"] == "move"
    assert not pool.jobs(board)  # nothing more to ask
    board.tap(live.id, "R1")
    board.tap(live.id, "R2")  # the trap
    [job] = pool.jobs(board)
    pool.answer(board, job)
    opinion = board.opinion(live.id, hint=True)
    assert opinion["light"] == "loss" and opinion["moves"][0]["mark"] == "??"
    assert opinion["hint"]["text"] == ("Lost. Undo 1 move to be winnable again: move 1 "
                                       "(A♦ R1 + 10♦ R2) lost it.")


def test_the_analysis_asks_for_every_move_s_position():
    pool = FakePool()
    board = Board(pool, start_deal=TRAP)
    live = board.new_game()
    [root] = pool.jobs(board)
    board.ask_analysis(live.id)
    assert len(pool.jobs(board)) == 1 + 6  # the position, then each of its 6 moves
    solves = 0
    while pool.jobs(board):
        pool.answer(board, pool.jobs(board)[0])
        solves += 1
    assert solves <= 6  # the position's line settles one of the moves on the way
    analysis = board.opinion(live.id)["analysis"]
    assert {a["move"]: a["verdict"] for a in analysis}["R1+R2"] == "loss"
    assert sum(a["verdict"] == "win" for a in analysis) == 5


def test_a_tap_from_a_stale_page_is_refused_with_the_current_state():
    board = Board(FakePool(), start_deal=EXAMPLE)
    live = board.new_game()
    board.tap(live.id, "P1", version=0)  # tab A
    with pytest.raises(StaleVersion) as raised:
        board.tap(live.id, "R1", version=0)  # tab B had not seen it
    assert raised.value.extra["state"]["selection"] == ["P1"]
    assert live.game.selection == ("P1",) and live.version == 1


def test_bad_taps_and_unknown_games():
    board = Board(FakePool(), start_deal=EXAMPLE)
    live = board.new_game()
    with pytest.raises(BadRequest, match="unknown source 'R9'"):
        board.tap(live.id, "R9")
    with pytest.raises(GameNotFound, match="no game 'nope'"):
        board.state("nope")


def test_the_oldest_game_is_dropped_beyond_the_cap():
    pool = FakePool()
    board = Board(pool, capacity=2, rng=random.Random(1))
    first = board.new_game()
    board.new_game()
    board.new_game()
    with pytest.raises(GameNotFound, match="the 2 games used most recently"):
        board.state(first.id)
    assert len(board.store) == 2
    # one solve per live game, then the levels of their deals (a label, after the advice)
    assert [job.key[0] == "level" for job in pool.jobs(board)] == [False, False, True, True]


def test_the_level_comes_from_a_solver_process_and_wakes_the_page(monkeypatch):
    import halfmoon.batch.difficulty as difficulty

    def not_here(*args, **kwargs):
        raise AssertionError("the difficulty model ran in the board's own thread")

    pool = FakePool()
    board = Board(pool)
    live = board.new_game(Deal.from_number(100))
    with monkeypatch.context() as m:
        m.setattr(difficulty, "estimate_numbers", not_here)
        assert board.state(live.id)["level"] is None  # asked, not answered yet
        assert board.opinion(live.id)["level"] is None
        board.tap(live.id, "P1")

    [job] = [j for j in pool.jobs(board) if j.key == ("level", 100)]
    assert job.message()[3] is None  # the deal not solved yet: the process will
    pool.answer(board, next(j for j in pool.jobs(board) if j.key[0] != "level"))
    assert live.game.position == START  # that was the deal's own solve: its verdict is taken

    async def answered():
        board.attach(asyncio.get_running_loop())
        changed = board.changed(live.id)
        [job] = [j for j in pool.jobs(board) if j.key == ("level", 100)]
        assert job.message()[3] == solve(100).verdict
        pool.answer(board, job)  # as a solver process would, on its own
        await asyncio.wait_for(changed.wait(), 10)  # the page waiting for news is woken
    asyncio.run(answered())
    want = difficulty.estimate_numbers([100], [solve(100).verdict])[0].words()
    assert board.state(live.id)["level"] == want
    assert board.opinion(live.id)["level"] == want  # a page polling its opinion draws it
    assert not [j for j in pool.jobs(board) if j.key[0] == "level"]  # not asked again


def test_a_new_game_is_the_start_deal_else_random():
    board = Board(FakePool(), start_deal=TRAP)
    assert board.new_game().game.deal == TRAP
    assert board.new_game(Deal.from_number(7)).game.deal.code == "HM1-N-AAAAAAH"
    board = Board(FakePool(), rng=random.Random(3))
    a, b = board.new_game(), board.new_game(settings=Settings(move_errors=True))
    assert a.game.deal.code and a.game.deal != b.game.deal
    assert b.game.settings.move_errors


def test_a_start_deal_with_moves_opens_with_them_played():
    from halfmoon.game.moves import Move

    moves = (Move.parse("R1+R2"),)
    board = Board(FakePool(), start_deal=TRAP, start_moves=moves)
    live = board.new_game()
    assert live.game.deal == TRAP and tuple(live.game.stack) == moves
    assert live.game.can_undo()  # the moves are the game's own: they can be taken back
    assert board.new_game(Deal.from_number(7)).game.stack == []  # another deal starts afresh
    with pytest.raises(IllegalMoveError, match="R1"):
        Board(FakePool(), start_deal=TRAP, start_moves=moves * 2)
    with pytest.raises(ValueError, match="need the deal"):
        Board(FakePool(), start_moves=moves)


def test_picks_use_a_solver_process():
    board = Board(shared_pool(), rng=random.Random(4), budget=200_000)

    async def pick(kind):
        board.attach(asyncio.get_running_loop())
        try:
            return await board.pick(kind, Settings(placement_assistance=True))
        finally:
            board.detach()

    hard = asyncio.run(pick("hard"))
    assert hard.game.settings.placement_assistance
    assert not play(hard.game.deal, "greedy").won
    assert board.opinion(hard.id)["light"] == "win"  # the pick's own solve, kept
    winnable = asyncio.run(pick("winnable"))
    assert board.opinion(winnable.id)["light"] == "win"
    assert asyncio.run(pick("random")).game.deal.code
    with pytest.raises(BadRequest, match="unknown pick 'easy'"):
        asyncio.run(pick("easy"))


def test_a_pick_the_solver_does_not_answer_in_time_is_busy():
    board = Board(FakePool())

    async def pick():
        board.attach(asyncio.get_running_loop())
        return await board.pick("hard", timeout=0.01)

    with pytest.raises(Busy, match="no hard deal within 0.01 s"):
        asyncio.run(pick())


def test_a_won_game_wants_nothing():
    pool = FakePool()
    board = Board(pool, start_deal=EXAMPLE)
    live = board.new_game()
    for source in ("P1", "P8", "P8", "P5", "P3", "R1", "R2"):
        board.tap(live.id, source)
    assert live.game.is_won and pool.jobs(board) == []
    assert board.opinion(live.id)["light"] == "won"


def test_a_budget_must_be_positive():
    with pytest.raises(ValueError, match="at least 1 position"):
        Board(FakePool(), budget=0)


def test_while_the_solver_compiles_the_light_says_so():
    pool = FakePool()
    board = Board(pool, start_deal=TRAP)
    live = board.new_game()
    assert board.opinion(live.id)["solver"] == "ready"
    pool.preparing = True
    opinion = board.opinion(live.id)
    assert opinion["solver"] == "preparing" and opinion["light"] == "pending"
    assert opinion["says"].startswith("Preparing the solver")
    [job] = pool.jobs(board)
    pool.answer(board, job)  # a lit light says its verdict, whatever the pool does
    assert board.opinion(live.id)["says"] == "Winnable"


def test_the_fair_hint_comes_in_stages_and_is_bounded():
    from halfmoon.board.service import FAIR_STAGES

    pool = FakePool()
    board = Board(pool, start_deal=EXAMPLE)
    live = board.new_game()
    assert "fair" not in board.opinion(live.id)
    board.ask_fair(live.id)
    first = pool.jobs(board)[0]
    assert first.key[2:] == ("fair", FAIR_STAGES[0])  # asked for now: first
    assert board.opinion(live.id)["fair"]["kind"] == "pending"
    samples = []
    while any(j.key[2:3] == ("fair",) for j in pool.jobs(board)):
        job = next(j for j in pool.jobs(board) if j.key[2:3] == ("fair",))
        kind, layout, n, seed, budget = job.message()
        assert kind == "fair" and budget > 0
        pool.answer(board, job)
        fair = board.opinion(live.id)["fair"]
        samples.append(fair["samples"])
        assert fair["more"] == (fair["samples"] < FAIR_STAGES[-1])
        # settled at the last stage at the latest; until then provisional, nothing outlined
        assert fair["kind"] == ("move" if fair["settled"] else "provisional")
        assert fair["settled"] or fair["more"]
        assert "never looks under the tops" in fair["note"]
        legal = {str(m) for m in Game(EXAMPLE).legal_moves}
        assert {m["move"] for m in fair["moves"]} == legal
        assert (fair["move"] if fair["settled"] else fair["leaning"]) in legal
        assert [m["share"] for m in fair["moves"]] == sorted((m["share"] for m in fair["moves"]),
                                                             reverse=True)
    assert samples == list(FAIR_STAGES)
    # a tap moves on: the hint is for the position it was asked for
    board.tap(live.id, "P1")
    board.tap(live.id, "P8")  # a pair removed
    assert "fair" not in board.opinion(live.id)


def test_asking_for_the_fair_hint_leaves_the_research_modules_to_the_pool(monkeypatch):
    """The fair player's view of the cards is made as the job is sent, on a pool thread:
    the first one imports the research modules (half a second), not under the lock."""
    import halfmoon.research.fairplay as fairplay

    made = []
    view_deal = fairplay.view_deal
    monkeypatch.setattr(fairplay, "view_deal", lambda deal: made.append(deal) or view_deal(deal))
    pool = FakePool()
    board = Board(pool, start_deal=EXAMPLE)
    live = board.new_game()
    board.ask_fair(live.id)
    assert made == [] and board.opinion(live.id)["fair"]["kind"] == "pending"
    job = next(j for j in pool.jobs(board) if j.key[2:3] == ("fair",))
    kind, layout, *_ = job.message()  # as a pool thread sends it
    assert made == [EXAMPLE] and layout == format_layout(view_deal(EXAMPLE))


def test_a_fair_hint_that_fails_says_so_and_is_not_asked_again():
    pool = FakePool()
    board = Board(pool, start_deal=EXAMPLE)
    live = board.new_game()
    board.ask_fair(live.id)
    job = next(j for j in pool.jobs(board) if j.key[2:3] == ("fair",))
    jobs, done = pool.wants[board]
    jobs.remove(job)
    done(job, {"verdict": "unresolved", "reason": "time limit of 1 s"})
    fair = board.opinion(live.id)["fair"]
    assert fair["kind"] == "unknown" and "time limit" in fair["text"] and not fair["more"]
    assert not any(j.key[2:3] == ("fair",) for j in pool.jobs(board))


def _without_time(state: dict) -> dict:
    return {**state, "status": {k: v for k, v in state["status"].items() if k != "time"}}


def test_a_board_started_again_on_its_file_answers_the_same_games(tmp_path):
    from halfmoon.board.store import SavedGames

    deal = Deal.from_number(27)  # every move uncovers pile cards
    cards = " ".join(str(c) for c in [p[-1] for p in deal.piles] + list(deal.reserve))
    path = tmp_path / "games.sqlite3"
    board = Board(FakePool(), saved=SavedGames(path))
    along, known = board.new_along(cards), board.new_game(deal)
    for source in ("P3", "R7", "R8"):
        board.tap(along.id, source)
        board.tap(known.id, source)
    board.reveal(along.id, "P3", str(deal.piles[2][-2]))
    board.correct(along.id, "R1", "KS")
    board.tap(known.id, "P4")  # selected
    before = {g: board.state(g) for g in (along.id, known.id)}
    board.saved.close()
    pool = FakePool()
    again = Board(pool, saved=SavedGames(path))
    for game_id, state in before.items():
        assert _without_time(again.state(game_id)) == _without_time(state)
    assert pool.jobs(again)  # the games loaded are planned as any other
    assert again.tap(known.id, "P7", before[known.id]["version"])["status"]["moves"] == 2


def test_a_game_gone_from_the_file_says_why(tmp_path):
    from halfmoon.board.store import SavedGames

    board = Board(FakePool(), capacity=1, saved=SavedGames(tmp_path / "games.sqlite3", kept=2))
    first, second = board.new_game(), board.new_game()
    assert board.state(first.id)["id"] == first.id  # out of memory, still in the file
    board.new_game()
    with pytest.raises(GameNotFound, match=f"no game '{first.id}': it was pruned as the oldest "
                       "game of the 2 the board keeps"):
        board.state(first.id)
    assert board.state(second.id)["id"] == second.id
    with pytest.raises(GameNotFound, match="there never was one by this id"):
        board.state("nope")


def test_a_game_opened_with_moves_keeps_them(tmp_path):
    from halfmoon.board.store import SavedGames
    from halfmoon.game.moves import Move

    path = tmp_path / "games.sqlite3"
    board = Board(FakePool(), start_deal=TRAP, start_moves=(Move.parse("R1+R2"),),
                  saved=SavedGames(path))
    live = board.new_game()
    again = Board(FakePool(), saved=SavedGames(path))
    assert again.game(live.id).game.stack == live.game.stack == [Move.parse("R1+R2")]


def test_a_game_keeps_a_bounded_log(tmp_path):
    from halfmoon.board.store import MAX_LOG, SavedGames

    board = Board(FakePool(), start_deal=EXAMPLE, saved=SavedGames(tmp_path / "games.sqlite3"))
    live = board.new_game()
    live.log.extend([["u"]] * MAX_LOG)  # as after a thousand changes
    with pytest.raises(BadRequest, match=f"this game has {MAX_LOG + 0} changes kept, the most a "
                       "game keeps: start a new game"):
        board.tap(live.id, "P1")


def _read_only(saved) -> None:
    """The file of games made unwritable under a running board, as when its permissions
    change: its connection swapped for one SQLite opened read-only."""
    import sqlite3

    saved._db.close()
    saved._db = sqlite3.connect(f"{saved.path.resolve().as_uri()}?mode=ro", uri=True,
                                isolation_level=None, check_same_thread=False)


def test_a_change_the_file_cannot_keep_is_not_made_and_says_why(tmp_path):
    from halfmoon.board.errors import NotKept
    from halfmoon.board.store import SavedGames

    path = tmp_path / "games.sqlite3"
    board = Board(FakePool(), saved=SavedGames(path))
    live = board.new_game(Deal.from_number(27))
    board.tap(live.id, "P3")
    before = board.tap(live.id, "R7")
    _read_only(board.saved)
    for _ in range(2):  # and again: the same answer, never "played in another tab"
        with pytest.raises(NotKept, match="nothing was done: the board's file of games could "
                           "not keep the change .*readonly database.*; the game is as it was"
                           ) as refused:
            board.tap(live.id, "R8", before["version"])
        assert _without_time(refused.value.extra["state"]) == _without_time(before)
        assert _without_time(board.state(live.id)) == _without_time(before)
    with pytest.raises(NotKept, match="could not keep the change") as refused:
        board.new_game()
    assert refused.value.extra == {} and len(board.store) == 1  # no game half made
    board.saved.close()
    again = Board(FakePool(), saved=SavedGames(path))
    assert _without_time(again.state(live.id)) == _without_time(before)
    after = again.tap(live.id, "R8", before["version"])  # writable again: the move is made
    assert after["status"]["moves"] == 1 and after["version"] == before["version"] + 1


def test_a_stage_stopped_by_the_time_limit_is_asked_again_on_try_again():
    """A game from the app whose stage a solver job's time limit stopped: the board tries it
    again, then leaves it (drawn as stopped), and the page's "Try again" (POST …/fair)
    asks for it once more."""
    from test_along import DEAD_END_DEAL, shown

    from halfmoon.board.along_view import TRIES

    pool = FakePool()
    board = Board(pool)
    live = board.new_along(" ".join(str(c) for c in shown(Deal.from_number(DEAD_END_DEAL))))
    limit = {"verdict": "unresolved", "moves": None, "nodes": 0, "seconds": 1.1,
             "reason": "time limit of 1 s"}
    for _ in range(TRIES):
        job = pool.jobs(board)[0]  # the first of its kept layouts' jobs (its fair move)
        jobs, done = pool.wants[board]
        jobs.remove(job)
        job.message()
        done(job, limit)
    assert pool.jobs(board) == []
    opinion = board.opinion(live.id)
    assert opinion["light"] == "unresolved" and not opinion["busy"]
    assert opinion["says"].startswith("Not known: Stopped at 0 of 384 layouts: the machine is "
                                      "busy")
    board.ask_fair(live.id)
    job = pool.jobs(board)[0]
    assert job.message()[0] in ("walk", "moves") and board.opinion(live.id)["busy"]
