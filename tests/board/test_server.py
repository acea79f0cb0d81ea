"""The board through HTTP: every tap rule and both settings, the solver's opinion,
the bad requests (each a 4xx with its reason, never a 500), and the pages served."""

from __future__ import annotations

import pytest
from board_helpers import (
    EXAMPLE,
    FACES,
    TRAP,
    board_client,
    new_game,
    opinion_when,
    settled,
    shared_pool,
    tap,
)
from starlette.testclient import TestClient

from halfmoon.board.server import STATIC, _host_name, create_app
from halfmoon.board.service import Board
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.research.analysis import analyse


@pytest.fixture
def example():
    with board_client(EXAMPLE) as (client, board):
        yield client


def selection(state):
    return state["selection"]


# --- the taps, as the rules describe them ------------------------------------------
def test_select_and_deselect(example):
    s = new_game(example)
    s = tap(example, s, "P1")
    assert selection(s) == ["P1"]
    s = tap(example, s, "P1")
    assert selection(s) == [] and s["status"]["moves"] == 0


def test_the_rules_example_pair_then_triplet(example):
    s = tap(example, new_game(example), "P1")
    s = tap(example, s, "P8")  # 5♠ + 6♦: removed on the second tap
    assert s["removed"] == ["P1", "P8"] and s["status"]["score"] == 10
    assert s["piles"][7]["card"]["text"] == "J♣" and s["piles"][0]["card"] is None
    s = tap(example, s, "P8", "P5")
    assert selection(s) == ["P8", "P5"] and s["status"]["moves"] == 1  # not yet
    s = tap(example, s, "P3")  # removed on the third tap
    assert s["status"]["score"] == 25 and s["status"]["moves"] == 2 and selection(s) == []


def test_a_card_that_does_not_fit_clears_the_selection_silently_by_default(example):
    s = tap(example, new_game(example), "P1", "R1")  # 5 + A
    assert selection(s) == [] and s["message"] is None and s["status"]["moves"] == 0
    s = tap(example, s, "P1", "P3")  # a number, then a face
    assert selection(s) == [] and s["message"] is None


def test_move_errors_say_why_with_the_rules_words(example):
    s = new_game(example, settings={"move_errors": True})
    s = tap(example, s, "P1", "R1")
    assert s["message"] == "The sum must equal 11" and selection(s) == []
    s = tap(example, s, "P1", "P3")
    assert s["message"] == "The sum must equal 11"
    s = tap(example, s, "P3", "P1")  # a face, then a number
    assert s["message"] == "Requires a Jack, a Queen and a King"
    s = tap(example, s, "P1")
    assert s["message"] is None and selection(s) == ["P1"]


def test_a_second_face_of_the_same_rank_becomes_the_selected_card():
    with board_client(FACES) as (client, _):
        s = new_game(client, settings={"move_errors": True})
        s = tap(client, s, "P3", "P4")  # K, then the other K
        assert selection(s) == ["P4"] and s["message"] is None
        s = tap(client, s, "P5", "P3")  # with K+Q, another K takes the K's place
        assert selection(s) == ["P5", "P3"]
        s = tap(client, s, "P5")  # of two faces, only the one tapped is deselected
        assert selection(s) == ["P3"]
        s = tap(client, s, "P6", "P8")
        assert s["removed"] == ["P3", "P6", "P8"] and s["status"]["score"] == 15


def test_tapping_an_empty_pile_does_nothing(example):
    s = tap(example, new_game(example), "P1", "P2")
    assert selection(s) == ["P1"]


def test_placement_assistance_dims_what_cannot_combine(example):
    s = tap(example, new_game(example), "P1")
    assert s["dimmed"] == [] and s["settings"]["placement_assistance"] is False
    r = example.post(f"/api/games/{s['id']}/settings", json={"placement_assistance": True})
    s = r.json()
    assert s["dimmed"] == ["P3", "P5", "R1", "R2"] and s["settings"]["move_errors"] is False
    s = tap(example, s, "P8")
    assert s["dimmed"] == []  # nothing selected
    s = tap(example, s, "P8")  # J♣: the Q and K stay lit
    assert s["dimmed"] == ["R1", "R2"]
    s = example.post(f"/api/games/{s['id']}/settings", json={"placement_assistance": False}).json()
    assert s["dimmed"] == [] and selection(s) == ["P8"]


def test_both_settings_are_off_by_default_and_switch(example):
    s = new_game(example)
    assert s["settings"] == {"move_errors": False, "placement_assistance": False}
    s = example.post(f"/api/games/{s['id']}/settings",
                     json={"move_errors": True, "placement_assistance": True}).json()
    assert s["settings"] == {"move_errors": True, "placement_assistance": True}


def test_undo_and_the_status_bar(example):
    s = tap(example, new_game(example), "P1", "P8", "P8", "P5", "P3")
    assert s["status"]["line"].endswith("Score 25  Moves 2  no code")
    s = example.post(f"/api/games/{s['id']}/undo", json={}).json()
    assert s["status"]["score"] == 10 and s["status"]["moves"] == 1
    assert s["piles"][2]["card"]["text"] == "K♥"
    s = example.post(f"/api/games/{s['id']}/undo", json={"version": s["version"]}).json()
    assert s["status"]["moves"] == 0 and not s["can_undo"]
    again = example.post(f"/api/games/{s['id']}/undo", json={}).json()
    assert again["status"]["moves"] == 0  # nothing more to undo: the game goes on


def test_victory_and_dead_end_are_announced():
    with board_client(TRAP) as (client, _):
        s = tap(client, new_game(client), "R1", "R2", "P3", "P4", "P5", "P6", "P7", "P8", "P9",
                "P10")
        assert s["over"] == "dead end" and s["announcement"].startswith("Dead end")
    with board_client(EXAMPLE) as (client, _):
        s = tap(client, new_game(client), "P1", "P8", "P8", "P5", "P3", "R1", "R2")
        assert s["over"] == "won" and s["cards_left"] == 0


def test_a_new_game_by_code_or_number_with_its_status(example):
    s = new_game(example, deal="hm1-n-aaaaaab")
    assert s["status"]["code"] == "HM1-N-AAAAAAB" and s["status"]["time"] == "0:00"
    assert new_game(example, deal="1")["piles"] == s["piles"]
    assert new_game(example, pick="random")["status"]["code"].startswith("HM1-N-")
    assert example.get(f"/api/games/{s['id']}").json()["id"] == s["id"]


def test_a_whole_deal_laid_out_without_a_code_is_played_with_no_level():
    # a layout file of all 104 cards and no code line: a whole deal with no number (it was
    # a 500 on every state, the level asked for the number)
    from halfmoon.game.layouts import format_layout, parse_layout

    by_hand = parse_layout(format_layout(Deal.from_number(123), code=""))
    assert by_hand.is_full and by_hand.number is None
    with board_client(by_hand) as (client, board):
        s = new_game(client)
        assert s["level"] is None
        s = tap(client, s, *next(iter(Game(by_hand).legal_moves)).sources)
        assert s["status"]["moves"] == 1
        op = opinion_when(client, s["id"], settled)
        assert op["light"] in ("win", "loss") and op["level"] is None
        assert len(board.levels) == 0  # never asked


# --- the solver's opinion -----------------------------------------------------------
def test_the_winnable_light_hint_and_line(example):
    s = new_game(example)
    out = opinion_when(example, s["id"], settled, hint=True, line=True)
    assert out["light"] == "win" and out["says"] == "Winnable" and out["position"] == s["position"]
    game = Game(EXAMPLE)
    assert out["hint"]["move"] == out["line"][0]["move"]
    for step in out["line"]:
        game.play(step["move"])
    assert game.is_won


def test_a_lost_game_marks_the_move_and_says_how_far_to_undo():
    with board_client(TRAP) as (client, _):
        s = tap(client, new_game(client), "P3", "P4", "R1", "R2", "P5", "P6")
        out = opinion_when(client, s["id"], settled, hint=True)
        assert out["light"] == "loss"
        assert [m["mark"] for m in out["moves"]] == [None, "??", None]
        assert out["hint"]["text"] == ("Lost. Undo 2 moves to be winnable again: move 2 "
                                       "(A♦ R1 + 10♦ R2) lost it.")
        assert out["line"] is None


def test_the_analysis_is_the_analyse_answer():
    with board_client(TRAP) as (client, _):
        s = tap(client, new_game(client), "P3", "P4")
        s = client.post(f"/api/games/{s['id']}/analyse", json={}).json()
        assert s["analysis_asked"]
        out = opinion_when(client, s["id"], settled)
        game = Game(TRAP)
        game.play("P3+P4")
        expected = {str(m.move): m.verdict for m in analyse(game, budget=100_000).moves}
        assert {a["move"]: a["verdict"] for a in out["analysis"]} == expected
        s = tap(client, s, "P5", "P6")
        assert not s["analysis_asked"]
        assert opinion_when(client, s["id"], settled)["analysis"] is None


def test_the_opinion_waits_for_news_and_follows_another_tab(example):
    s = new_game(example)
    first = opinion_when(example, s["id"], settled)
    tap(example, s, "P1")  # a selection only: same position, new version
    out = example.get(f"/api/games/{s['id']}/opinion?since={first['tag']}&wait=5").json()
    assert out["version"] == 1 and out["tag"] != first["tag"]
    quiet = example.get(f"/api/games/{s['id']}/opinion?since={out['tag']}&wait=0.2").json()
    assert quiet["tag"] == out["tag"]  # nothing new within the wait


def test_two_tabs_on_one_game_stay_consistent(example):
    s = new_game(example)
    a = example.post(f"/api/games/{s['id']}/tap", json={"source": "P1", "version": 0})
    b = example.post(f"/api/games/{s['id']}/tap", json={"source": "P8", "version": 0})
    assert a.status_code == 200 and b.status_code == 409
    assert "another tab" in b.json()["error"] and b.json()["state"]["selection"] == ["P1"]
    now = example.get(f"/api/games/{s['id']}").json()
    assert now["selection"] == ["P1"] and now["version"] == 1 and now["status"]["moves"] == 0


# --- bad requests: a 4xx with the reason, never a 500 --------------------------------
BAD = [
    ("post", "/api/games", {"deal": "HM1-N-AAAAAA"}, 400, "wrong length"),
    ("post", "/api/games", {"deal": "/etc/passwd"}, 400, "neither a deal code"),
    ("post", "/api/games", {"deal": "1", "pick": "hard"}, 400, "not both"),
    ("post", "/api/games", {"pick": "easy"}, 400, "unknown pick 'easy'"),
    ("post", "/api/games", {"deal": 7}, 400, "'deal' must be text"),
    ("post", "/api/games", {"settings": {"move_errors": "yes"}}, 400, "true or false"),
    ("post", "/api/games", {"seed": 1}, 400, "unknown field 'seed'"),
    ("post", "/api/games/{id}/tap", {}, 400, "'source' is missing"),
    ("post", "/api/games/{id}/tap", {"source": "P13"}, 400, "unknown source 'P13'"),
    ("post", "/api/games/{id}/tap", {"source": ["P1"]}, 400, "'source' must be text"),
    ("post", "/api/games/{id}/tap", {"source": "P1", "version": "0"}, 400, "whole number"),
    ("post", "/api/games/{id}/tap", {"source": "P1", "version": 99}, 409, "another tab"),
    ("post", "/api/games/{id}/settings", {"move_errors": 1}, 400, "true or false"),
    ("post", "/api/games/{id}/analyse", {"deep": True}, 400, "unknown field 'deep'"),
    ("post", "/api/games/nosuchgame/tap", {"source": "P1"}, 404, "no game 'nosuchgame'"),
    ("post", "/api/games/bad%20id/undo", {}, 400, "bad game id"),
    ("get", "/api/games/{id}/opinion?wait=60", None, 400, "between 0 and 25"),
    ("get", "/api/games/{id}/opinion?hint=maybe", None, 400, "must be 1 or 0"),
    ("get", "/api/games/{id}/opinion?evil=1", None, 400, "unknown query 'evil'"),
    ("get", "/api/games/{id}?x=1", None, 400, "unknown query 'x'"),
    ("get", "/api/games", None, 405, "GET is not allowed"),
    ("delete", "/api/games/{id}", None, 405, "DELETE is not allowed"),
    ("get", "/api/nothing", None, 404, "nothing at /api/nothing"),
    ("get", "/static/../pyproject.toml", None, 404, "nothing at"),
    ("get", "/static/missing.js", None, 404, "nothing at"),
]


@pytest.mark.parametrize("method, path, body, status, reason", BAD,
                         ids=[f"{m} {p} {b}" for m, p, b, _, _ in BAD])
def test_bad_requests(example, method, path, body, status, reason):
    s = new_game(example)
    kwargs = {} if body is None else {"json": body}
    response = getattr(example, method)(path.replace("{id}", s["id"]), **kwargs)
    assert response.status_code == status, response.text
    assert reason in response.json()["error"]


def test_bodies_that_are_not_json_objects(example):
    s = new_game(example)
    url = f"/api/games/{s['id']}/tap"
    cases = [
        ({"content": b"source=P1",
          "headers": {"content-type": "application/x-www-form-urlencoded"}}, 415),
        ({"content": b"{", "headers": {"content-type": "application/json"}}, 400),
        ({"content": b'["P1"]', "headers": {"content-type": "application/json"}}, 400),
        ({"content": b"{" + b" " * 5000 + b"}",
          "headers": {"content-type": "application/json"}}, 413),
    ]
    for kwargs, status in cases:
        response = example.post(url, **kwargs)
        assert response.status_code == status and response.json()["error"], response.text


def test_only_the_expected_host_names_are_answered():
    app = create_app(Board(shared_pool()), allowed_hosts={"127.0.0.1", "localhost"})
    with TestClient(app, base_url="http://localhost") as client:
        assert client.get("/").status_code == 200
        evil = client.get("/", headers={"host": "evil.example:80"})
        assert evil.status_code == 400 and evil.json()["error"] == "unexpected Host 'evil.example'"
    assert _host_name("[::1]:8000") == "[::1]" and _host_name("LOCALHOST:1") == "localhost"


def test_the_page_and_its_files_are_served_from_the_package(example):
    page = example.get("/")
    assert page.status_code == 200 and '<script src="/static/board.js">' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for name in ("board.js", "board.css"):
        served = example.get(f"/static/{name}")
        assert served.status_code == 200 and served.text == (STATIC / name).read_text()
    # no file from elsewhere: everything the page loads is its own
    assert "http" not in (STATIC / "index.html").read_text().replace("http-equiv", "")


def test_every_file_of_the_page_ships_inside_the_package():
    """pyproject.toml's package data names every file of static/, so that a plain
    ``pip install`` (not an editable one) has the page."""
    import fnmatch
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["halfmoon.board"]
    files = [p.relative_to(STATIC.parent).as_posix() for p in STATIC.rglob("*") if p.is_file()]
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in files), files


# --- a game from the app, played along -------------------------------------------------
def _along_text(number: int) -> str:
    deal = Deal.from_number(number)
    return " ".join(str(c) for c in [p[-1] for p in deal.piles] + list(deal.reserve))


def test_a_game_played_along_through_http(example):
    from test_along import DEAD_END_DEAL, DEAD_END_MOVES

    deal = Deal.from_number(DEAD_END_DEAL)
    r = example.post("/api/along", json={"cards": _along_text(DEAD_END_DEAL)})
    assert r.status_code == 201, r.text
    s = r.json()
    assert s["status"]["code"] == "from the app" and s["along"]["unseen"] == 84
    first = opinion_when(example, s["id"], lambda o: o["along"]["share"] is not None)
    assert first["light"] == "share" and first["fair"]["moves"]
    for k, move in enumerate(DEAD_END_MOVES):
        s = tap(example, s, *move.split("+"))
        assert s["along"]["waiting"]
        if k == 1:  # a tap while a pile waits, a reveal on a pile that is not waiting
            r = example.post(f"/api/games/{s['id']}/tap", json={"source": "R1"})
            assert r.status_code == 400 and "wait" in r.json()["error"]
            r = example.post(f"/api/games/{s['id']}/reveal", json={"pile": "P1", "card": "AS"})
            assert r.status_code == 400 and "P1 is not waiting" in r.json()["error"]
        for pile in s["along"]["waiting"]:
            i = int(pile[1:]) - 1
            card = deal.piles[i][s["piles"][i]["count"] - 1]
            r = example.post(f"/api/games/{s['id']}/reveal",
                             json={"pile": pile, "card": str(card), "version": s["version"]})
            assert r.status_code == 200, r.text
            s = r.json()
    assert s["over"] == "dead end"
    o = opinion_when(example, s["id"], lambda o: o["review"] and o["review"]["samples"] and
                     not o["busy"])
    assert len(o["review"]["moves"]) == len(DEAD_END_MOVES)
    assert o["review"]["moves"][-1]["after"] == 0.0


@pytest.mark.parametrize("path, body, reason", [
    ("/api/along", {}, "field 'cards' is missing"),
    ("/api/along", {"cards": 5}, "field 'cards' must be text"),
    ("/api/along", {"cards": "5S 6D"}, "2 cards entered: P3 to R8 are empty (the app shows 20"),
    ("/api/along", {"cards": "5S 10"}, "card 2 (P2): '10' is not finished"),
    ("/api/along/check", {"cards": "5S 10 6D"}, "card 2 (P2): '10' has no suit"),
    ("/api/along", {"cards": "5S 5S 5S"}, "a third 5♠ at P3"),
    ("/api/along", {"cards": "5S 6D", "deal": "1"}, "unknown field 'deal'"),
    ("/api/along/check", {"cards": "5S QQ"}, "card 2 (P2): not a card"),
    ("/api/along/check", {"cards": "5S 5S 5S"}, "a third 5♠ at P3"),
])
def test_bad_entries_get_a_400_naming_the_card(example, path, body, reason):
    r = example.post(path, json=body)
    assert r.status_code == 400 and reason in r.json()["error"], r.text


def test_a_bad_check_says_what_the_entry_keeps(example):
    """The entry screen draws the cards read before the bad one: the 400 carries them."""
    r = example.post("/api/along/check", json={"cards": "5S 6D 3x 7C"})
    assert r.status_code == 400 and r.json()["error"].startswith("card 3 (P3): not a card")
    kept = r.json()["entry"]
    assert (kept["count"], kept["cards"], kept["next"], kept["typed"]) == (2, ["5s", "6d"], "P3", 4)


def test_bad_reveals_get_a_400_and_the_game_is_kept(example):
    s = example.post("/api/along", json={"cards": _along_text(27)}).json()
    url = f"/api/games/{s['id']}/reveal"
    for body, reason in [({"card": "AS"}, "field 'pile' is missing"),
                         ({"pile": "P3"}, "field 'card' is missing"),
                         ({"pile": "P3", "card": "AS", "extra": 1}, "unknown field 'extra'"),
                         ({"pile": "P3", "card": "AS"}, "P3 is not waiting for a card")]:
        r = example.post(url, json=body)
        assert r.status_code == 400 and reason in r.json()["error"], r.text
    normal = new_game(example)
    r = example.post(f"/api/games/{normal['id']}/reveal", json={"pile": "P3", "card": "AS"})
    assert r.status_code == 400 and "only a game from the app" in r.json()["error"]
    assert example.get(f"/api/games/{s['id']}").json()["along"]["seen"] == 20


def test_an_undo_keeps_the_cards_told_and_a_replay_asks_for_none(example):
    from test_along import DEAD_END_DEAL

    deal = Deal.from_number(DEAD_END_DEAL)
    s = example.post("/api/along", json={"cards": _along_text(DEAD_END_DEAL)}).json()
    s = tap(example, s, "P3", "R7", "R8")
    r = example.post(f"/api/games/{s['id']}/reveal",
                     json={"pile": "P3", "card": str(deal.piles[2][6])})
    assert r.json()["along"]["seen"] == 21
    s = example.post(f"/api/games/{s['id']}/undo", json={}).json()
    assert s["along"]["seen"] == 21 and s["status"]["moves"] == 0
    s = tap(example, s, "P3", "R7", "R8")
    assert s["along"]["waiting"] == [] and s["along"]["seen"] == 21
    p3 = next(p for p in s["piles"] if p["source"] == "P3")
    from halfmoon.board.view import card_view

    assert not p3.get("unknown") and p3["card"] == card_view(deal.piles[2][6])


def test_a_card_told_wrongly_is_corrected_through_http(example):
    """A reveal mistyped, corrected in its place: the moves stay, the card is the new one on
    the table, and the shares are asked afresh (the page's token names the correction)."""
    from test_along import DEAD_END_DEAL

    deal = Deal.from_number(DEAD_END_DEAL)
    wrong, right = deal.piles[0][0], deal.piles[2][6]  # never seen, and P3's true card
    s = example.post("/api/along", json={"cards": _along_text(DEAD_END_DEAL)}).json()
    s = tap(example, s, "P3", "R7", "R8")
    s = example.post(f"/api/games/{s['id']}/reveal", json={"pile": "P3", "card": str(wrong)}).json()
    first = opinion_when(example, s["id"], lambda o: o["along"]["share"] is not None)
    assert first["position"] == s["position"]
    r = example.post(f"/api/games/{s['id']}/correct",
                     json={"place": "P3", "card": str(right).upper(), "version": s["version"]})
    assert r.status_code == 200, r.text
    c = r.json()
    from halfmoon.board.view import card_view

    assert c["piles"][2]["card"] == card_view(right) and c["status"]["moves"] == 1
    assert c["version"] == s["version"] + 1 and c["along"]["corrections"] == 1
    assert c["position"] == s["position"] + ".1" and c["along"]["seen"] == 21
    o = opinion_when(example, s["id"], lambda o: o["position"] == c["position"] and
                     o["along"]["share"] is not None)
    assert o["light"] == "share" and o["fair"]["moves"]
    # a correction from a page that has not seen the latest change: 409, nothing changed
    r = example.post(f"/api/games/{s['id']}/correct",
                     json={"place": "P3", "card": str(wrong), "version": s["version"]})
    assert r.status_code == 409 and r.json()["state"]["piles"][2]["card"] == card_view(right)


def test_bad_corrections_get_a_400_naming_the_place_or_the_card(example):
    from test_along import DEAD_END_DEAL

    deal = Deal.from_number(DEAD_END_DEAL)
    s = example.post("/api/along", json={"cards": _along_text(DEAD_END_DEAL)}).json()
    s = tap(example, s, "P3", "R7", "R8")  # P3 waits for its card
    url = f"/api/games/{s['id']}/correct"
    p1 = deal.piles[0][-1]
    for body, reason in [
        ({"card": "AS"}, "field 'place' is missing (a place such as P7 or R3)"),
        ({"place": "P1"}, "field 'card' is missing (the card it really is)"),
        ({"place": "P1", "card": "AS", "pile": "P1"}, "unknown field 'pile'"),
        ({"place": 1, "card": "AS"}, "field 'place' must be text"),
        ({"place": "Q1", "card": "AS"}, "unknown place 'Q1': expected P1-P12"),
        ({"place": "P1", "card": "1X"}, "P1: not a card"),
        ({"place": "P1", "card": str(p1)}, f"P1 is already {p1.symbol()}: nothing to correct"),
        ({"place": "P1", "card": "3S"},  # entered at P10 and P11
         "a third 3♠: both copies are already on the table or removed (P10, P11)"),
        ({"place": "P3", "card": "AS"}, "P3 waits for the card that appeared"),
        ({"place": "P3.7", "card": "AS"},
         f"{deal.piles[2][7].symbol()} at P3.7 was removed by move 1: undo 1 move"),
        ({"place": "R8", "card": "AS"}, "at R8 was removed by move 1"),
        ({"place": "P5.2", "card": "AS"}, "P5.2 (P5, 6th card from the top) has not been seen"),
    ]:
        r = example.post(url, json=body)
        assert r.status_code == 400 and reason in r.json()["error"], (body, r.text)
    kept = example.get(f"/api/games/{s['id']}").json()
    assert kept["version"] == s["version"] and kept["along"]["corrections"] == 0
    normal = new_game(example)
    r = example.post(f"/api/games/{normal['id']}/correct", json={"place": "P1", "card": "AS"})
    assert r.status_code == 400 and "only a game from the app has cards to correct" in \
        r.json()["error"]
    r = example.post("/api/games/nosuchgame00/correct", json={"place": "P1", "card": "AS"})
    assert r.status_code == 404


def test_the_page_is_told_whether_the_board_was_started_on_a_deal():
    """``GET /api/start``: with a deal the page opens it; without, no game is made before the
    player chooses one (asking makes none)."""
    with board_client(EXAMPLE) as (client, _):
        assert client.get("/api/start").json() == {"deal": True}
    with board_client() as (client, board):
        assert client.get("/api/start").json() == {"deal": False}
        assert len(board.store) == 0
