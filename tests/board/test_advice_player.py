"""The simulated player of ``halfmoon bench --suite advice``: what it waits for, what it
plays and what it records, on a board whose opinions the test writes."""

from __future__ import annotations

from test_along import DEAD_END_DEAL

from halfmoon.board import advice_player
from halfmoon.board.along import AlongGame, AlongLive, read_cards


class ScriptedBoard:
    """A game from the app on the engine; its opinion is provisional at the first look,
    settled on the last legal move at the second, final on the first at the third."""

    pool = None

    def __init__(self) -> None:
        self.looks = 0

    def new_along(self, cards: str) -> AlongLive:
        self.live = AlongLive("g", AlongGame(read_cards(cards)))
        return self.live

    def tap(self, game_id, source) -> None:
        self.looks = 0
        self.live.tap(source)

    def reveal(self, game_id, pile, card) -> None:
        self.live.reveal(pile, card)

    def undo(self, game_id) -> None:
        self.live.undo()

    def opinion(self, game_id) -> dict:
        self.looks += 1
        legal = [str(m) for m in self.live.game.legal_moves]
        moves = [{"move": m, "keeps": 1} for m in legal]
        if self.looks == 1:
            fair = {"kind": "provisional", "settled": False, "more": True, "move": None}
        elif self.looks == 2:
            fair = {"kind": "move", "settled": True, "more": True, "move": legal[-1],
                    "samples": 64}
        else:
            fair = {"kind": "move", "settled": True, "more": False, "move": legal[0],
                    "samples": 384}
        return {"fair": {**fair, "moves": moves}}


def test_the_player_waits_for_the_settled_then_the_final_advice_and_plays_it(monkeypatch):
    from halfmoon.game.deal import Deal
    from halfmoon.game.engine import Game

    monkeypatch.setattr(advice_player, "POLL", 0.0)
    board = ScriptedBoard()
    record = advice_player.play_deal(board, DEAD_END_DEAL, max_moves=2, think=0.0)
    assert record["moves_made"] == 2 and not record["won"]
    first = record["positions"][0]
    start = [str(m) for m in Game(Deal.from_number(DEAD_END_DEAL)).legal_moves]
    assert first["ply"] == 0 and first["legal"] == len(start)
    assert first["first"] == start[-1] and first["final"] == start[0]
    assert first["stage"] == 64 and not first["stopped"] and first["seconds"] >= 0
    # the final advice played, and the card it uncovered told as the deal has it
    assert [str(m) for m in board.live.game.stack][:1] == [start[0]]
    assert not board.live.along.waiting


def test_a_settled_answer_is_one_the_page_draws_settled():
    assert not advice_player._settled({"fair": {"kind": "provisional", "settled": False}})
    assert advice_player._settled({"fair": {"kind": "move", "settled": True, "more": True}})
    assert not advice_player._final({"fair": {"kind": "move", "settled": True, "more": True}})
    assert advice_player._final({"fair": {"kind": "move", "settled": True, "more": False}})


class NoneBoard(ScriptedBoard):
    """After its first move every answer is "none won", offering one move back; then, back
    at the start, stages stopped by a limit leaning to the last legal move."""

    def __init__(self) -> None:
        super().__init__()
        self.played: list[str] = []  # the moves made, in order (the undone ones too)

    def tap(self, game_id, source) -> None:
        before = len(self.live.game.stack)
        super().tap(game_id, source)
        if len(self.live.game.stack) > before:
            self.played.append(str(self.live.game.stack[-1]))

    def opinion(self, game_id) -> dict:
        legal = [str(m) for m in self.live.game.legal_moves]
        if self.live.game.stack:
            return {"fair": {"kind": "none", "settled": True, "more": False, "move": None,
                             "samples": 384, "undo": {"undo": 1}, "moves": []}}
        return {"fair": {"kind": "stopped", "settled": False, "more": False, "move": None,
                         "leaning": legal[-1], "samples": 64,
                         "moves": [{"move": m, "keeps": 1} for m in legal]}}


def test_at_0_percent_the_player_undoes_and_a_stopped_answer_plays_its_leaning_move(
        monkeypatch):
    monkeypatch.setattr(advice_player, "POLL", 0.0)
    board = NoneBoard()
    record = advice_player.play_deal(board, DEAD_END_DEAL, max_moves=3, think=0.0)
    rows = record["positions"]
    assert rows[0]["stopped"] and rows[0]["first"] is None and rows[0]["stage"] == 64
    assert rows[1]["first"] is None and not rows[1]["stopped"]
    assert record["undos"] >= 1  # the undo offered at 0 %
    from halfmoon.game.deal import Deal
    from halfmoon.game.engine import Game

    start = [str(m) for m in Game(Deal.from_number(DEAD_END_DEAL)).legal_moves]
    assert board.played[0] == start[-1]  # the leaning move of the stopped answer


def test_the_player_is_woken_by_what_wakes_a_page():
    class Woken:
        def __init__(self) -> None:
            self.woken: list = []

        def _wake(self, game_ids) -> None:
            self.woken.append(tuple(game_ids))

    board = Woken()
    advice_player._watch(board)
    assert not board._advice_changed.is_set()
    board._wake(["g"])
    assert board._advice_changed.is_set() and board.woken == [("g",)]


def test_the_timing_starts_once_each_process_has_answered_a_walk_and_the_players_moves():
    """Before the first timed position every solver process answers the advice's two kinds
    of job (a walk and the players' moves): their kernels are loaded, or compiled on a
    cold cache, before any position is timed, not in the first one's wait."""
    from halfmoon.board.jobs import run_job

    class Pool:
        workers = 2

        def __init__(self) -> None:
            self.asked = []

        def want(self, key, jobs, done) -> None:
            for job in jobs:
                self.asked.append(job.message()[0])
                done(job, run_job(job.message()))

    pool = Pool()
    advice_player._wait_ready(pool, limit=60.0)
    assert sorted(pool.asked) == ["moves"] * 4 + ["walk"] * 4
