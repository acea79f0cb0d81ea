"""The file of games: a game kept and rebuilt the same (a known deal, a game from the app
with its cards told and corrected), the log as short as the game, pruning with the reason
kept, sizes checked, and a file that is not the board's refused and left untouched."""

from __future__ import annotations

import itertools
import json
import sqlite3

import pytest

from halfmoon.board.along import AlongGame, AlongLive
from halfmoon.board.errors import GameNotFound
from halfmoon.board.games import LiveGame
from halfmoon.board.store import MAX_LOG, SavedGames, StoreError, default_path
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game, Settings

DEAL = Deal.from_number(27)  # every move uncovers pile cards
DEAD_END = ("P3+R7+R8", "P4+P7", "P4+P11", "P11+R2")  # its dead end in four moves


def shown(deal: Deal) -> list:
    return [p[-1] for p in deal.piles] + list(deal.reserve)


def tell(live: AlongLive, deal: Deal) -> None:
    for pile in live.along.waiting:
        i = int(pile[1:]) - 1
        live.reveal(pile, str(deal.piles[i][live.game.counts[i] - 1]))


def play(live: LiveGame, move: str) -> None:
    for source in move.split("+"):
        live.tap(source)


def clock():
    ticks = itertools.count(1_800_000_000)
    return lambda: float(next(ticks))


def test_a_known_deal_is_kept_and_rebuilt_the_same(tmp_path):
    path = tmp_path / "games.sqlite3"
    live = LiveGame("g1", Game(DEAL, settings=Settings(move_errors=True)))
    play(live, "P3+R7+R8")
    play(live, "P4+P7")
    live.undo()
    live.ask_analysis()
    live.tap("P11")  # selected, not played
    saved = SavedGames(path)
    saved.save(live)
    saved.close()
    back = SavedGames(path).load("g1")
    assert [str(m) for m in back.game.stack] == ["P3+R7+R8"]
    assert back.game.position == live.game.position and back.game.deal == DEAL
    assert back.game.selection == ("P11",) and back.version == live.version
    assert back.game.settings == Settings(move_errors=True) and back.analysis_asked
    assert back.log == live.log == [["m", "P3+R7+R8"]]  # a move undone at once: gone


def test_a_game_from_the_app_keeps_its_told_and_corrected_cards(tmp_path):
    entered = shown(DEAL)
    entered[0] = entered[1]  # P1 entered wrongly: corrected below
    live = AlongLive("a1", AlongGame(entered))
    live.correct("P1", str(DEAL.piles[0][-1]))
    play(live, "P3+R7+R8")
    tell(live, DEAL)
    play(live, "P4+P7")
    tell(live, DEAL)
    live.undo()  # the cards told stay known
    play(live, "P4+P7")  # uncovers known cards: nothing to tell
    play(live, "P4+P11")  # P4 and P11 wait
    saved = SavedGames(tmp_path / "games.sqlite3")
    saved.save(live)
    back = saved.load("a1")
    assert isinstance(back, AlongLive)
    assert back.along.known == live.along.known and back.along.reserve == live.along.reserve
    assert back.along.reveals == live.along.reveals
    assert back.along.corrections == live.along.corrections
    assert back.game.stack == live.game.stack and back.along.waiting == ["P4", "P11"]
    assert back.game.deal == live.game.deal and back.version == live.version
    tell(back, DEAL)  # the rebuilt game goes on
    assert back.along.waiting == []


def test_each_save_rewrites_the_game_and_a_new_board_reads_it(tmp_path):
    path = tmp_path / "games.sqlite3"
    saved = SavedGames(path)
    live = LiveGame("g", Game(DEAL))
    saved.save(live)
    for move in ("P3+R7+R8", "P4+P7"):
        play(live, move)
        saved.save(live)
    other = SavedGames(path)  # a second reader of the same file, as a restarted board
    assert [str(m) for m in other.load("g").game.stack] == ["P3+R7+R8", "P4+P7"]
    assert len(other) == 1
    assert other._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_beyond_its_room_the_file_prunes_the_oldest_and_says_so(tmp_path):
    saved = SavedGames(tmp_path / "games.sqlite3", kept=2, clock=clock())
    for game_id in ("old", "mid"):
        saved.save(LiveGame(game_id, Game(DEAL)))
    assert saved.save(LiveGame("new", Game(DEAL))) == ["old"]
    assert saved.load("old") is None and len(saved) == 2
    assert saved.why_gone("old").startswith(
        "no game 'old': it was pruned as the oldest game of the 2 the board keeps (last "
        "played ")
    assert saved.why_gone("nope") == ("no game 'nope': there never was one by this id in the "
                                      "board's file")


def test_a_finished_game_is_pruned_before_an_older_unfinished_one(tmp_path):
    saved = SavedGames(tmp_path / "games.sqlite3", kept=2, clock=clock())
    saved.save(LiveGame("old", Game(DEAL)))
    done = LiveGame("done", Game(DEAL))
    for move in DEAD_END:
        play(done, move)
    assert done.game.is_dead_end
    saved.save(done)
    assert saved.save(LiveGame("new", Game(DEAL))) == ["done"]
    assert "the oldest finished game of the 2" in saved.why_gone("done")


def test_a_row_that_cannot_be_rebuilt_says_so(tmp_path):
    saved = SavedGames(tmp_path / "games.sqlite3")
    saved.save(LiveGame("g", Game(DEAL)))
    saved._db.execute("""UPDATE games SET log = '[["m", "P1+P2"]]'""")
    with pytest.raises(GameNotFound, match="'g' is in the board's file but cannot be rebuilt: "
                       "illegal move P1\\+P2"):
        saved.load("g")
    saved._db.execute("UPDATE games SET log = ?", (json.dumps([["u"]] * (MAX_LOG + 1)),))
    with pytest.raises(GameNotFound, match="cannot be rebuilt"):
        saved.load("g")


@pytest.mark.parametrize("content, says", [
    (b"not a database at all, just some text\n" * 40, "is not a file of the board's games or "
     "is damaged"),
    ("foreign", "is not a file of the board's games (another program's database)"),
    ("schema", "holds the board's games in layout 7, this halfmoon reads layout 1"),
    ("damaged", "is not a file of the board's games or is damaged (database disk image is "
     "malformed)"),
])
def test_a_file_not_the_board_s_is_refused_and_left_untouched(tmp_path, content, says):
    path = tmp_path / "games.sqlite3"
    if content == "foreign":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (text TEXT)")
        db.close()
    elif content == "schema":
        SavedGames(path).close()
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA user_version = 7")
        db.close()
    elif content == "damaged":  # the board's own file, bytes overwritten in its pages
        saved = SavedGames(path)
        for k in range(200):
            saved.save(LiveGame(f"g{k}", Game(Deal.from_number(k))))
        saved.close()
        data = bytearray(path.read_bytes())
        data[5000:9000] = b"U" * 4000
        path.write_bytes(bytes(data))
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    with pytest.raises(StoreError) as info:
        SavedGames(path)
    message = str(info.value)
    assert message.startswith(str(path)) and says in message and "\n" not in message
    assert "left as it is" in message
    assert path.read_bytes() == before


def test_a_folder_is_not_a_file_of_games(tmp_path):
    with pytest.raises(StoreError, match="is a folder"):
        SavedGames(tmp_path)


def test_the_file_lives_in_the_user_s_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "halfmoon" / "board.sqlite3"
    monkeypatch.setenv("XDG_DATA_HOME", "relative")  # not absolute: ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_path() == tmp_path / ".local" / "share" / "halfmoon" / "board.sqlite3"
    SavedGames(tmp_path / "new" / "folder" / "games.sqlite3").close()  # folders made


def test_the_game_s_clock_goes_on_across_a_restart_without_the_time_the_board_was_down(
        tmp_path):
    now, ticks = [1_800_000_000.0], [50.0]
    saved = SavedGames(tmp_path / "games.sqlite3", clock=lambda: now[0])
    live = LiveGame("g", Game(DEAL, clock=lambda: ticks[0]))
    saved.save(live)
    ticks[0] += 30  # played for half a minute after its last change
    saved.keep_clocks([live])  # the board stops
    now[0] += 3600  # and is down for an hour
    assert 30 <= saved.load("g").game.elapsed() < 35
    saved.keep_clocks([])  # nothing in memory: nothing changes
    assert 30 <= saved.load("g").game.elapsed() < 35


def test_a_file_from_before_clocks_were_kept_counts_from_the_game_s_start(tmp_path):
    now = [1_800_000_000.0]
    saved = SavedGames(tmp_path / "games.sqlite3", clock=lambda: now[0])
    saved.save(LiveGame("g", Game(DEAL)))
    with saved._write() as db:  # as an earlier halfmoon wrote it: no clock in the state
        state = json.loads(db.execute("SELECT state FROM games").fetchone()[0])
        del state["elapsed"]
        db.execute("UPDATE games SET state = ?", (json.dumps(state),))
    now[0] += 125
    assert 124 < saved.load("g").game.elapsed() < 135


def test_a_file_held_by_a_board_refuses_another_naming_the_first(tmp_path):
    import os

    path = tmp_path / "games.sqlite3"
    first = SavedGames(path, board="http://127.0.0.1:8123/")
    assert first.new == "missing"
    with pytest.raises(StoreError, match=rf"^{path} is in use by the board at "
                       rf"http://127.0.0.1:8123/ \(pid {os.getpid()}\): one board at a time"):
        SavedGames(path, board="http://127.0.0.1:8124/")
    first.save(LiveGame("g1", Game(DEAL)))  # the refusal took nothing from the first
    assert first.load("g1") is not None
    first.close()
    second = SavedGames(path, board="http://127.0.0.1:8124/")  # free once the first stops
    assert second.new is None and len(second) == 1
    second.close()


def test_an_empty_file_is_taken_as_a_new_one_and_said(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"")
    saved = SavedGames(path, board="http://127.0.0.1:8123/")
    assert saved.new == "empty" and len(saved) == 0
    saved.close()


def test_a_game_from_the_app_keeps_the_shares_shown_and_the_stages_asked_again(tmp_path):
    """Where a dead end offers to undo to (the last position shown winnable) and how often a
    stopped stage was asked again outlive the board, for the positions along the moves
    made; a position of moves undone is not kept."""
    live = AlongLive("a2", AlongGame(shown(DEAL)))
    live.shown[((), 0)] = (0.97, 0)
    play(live, "P3+R7+R8")
    tell(live, DEAL)
    first = live.here()
    live.shown[first] = (0.5, 1)
    live.again[first] = 2
    play(live, "P4+P7")
    tell(live, DEAL)
    undone = live.here()
    live.shown[undone] = (0.25, 2)
    live.undo()
    saved = SavedGames(tmp_path / "games.sqlite3")
    saved.save(live)
    back = saved.load("a2")
    assert back.here() == live.here() == first
    assert back.shown == {((), 0): (0.97, 0), first: (0.5, 1)} and undone in live.shown
    assert back.again == {first: 2}
