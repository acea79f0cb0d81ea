"""What the page draws of a game played along with the app, the solves it wants, and the
review's marks."""

from __future__ import annotations

from test_along import DEAD_END_DEAL, DEAD_END_MOVES, play_along, shown

from halfmoon.board.along import AlongGame, AlongLive
from halfmoon.board.along_view import (
    ALONG_STAGES,
    LOST_HERE,
    REVIEW_STAGES,
    TRIES,
    along_jobs,
    along_opinion,
    along_state,
    keep_answer,
    position_key,
    review_key,
    review_view,
)
from halfmoon.game.deal import Deal

DEAL = Deal.from_number(DEAD_END_DEAL)


def live_of(along: AlongGame) -> AlongLive:
    return AlongLive("g", along)


def test_a_waiting_pile_shows_no_card_and_no_dead_end():
    along = play_along(DEAL, DEAD_END_MOVES[:-1])
    for source in DEAD_END_MOVES[-1].split("+"):
        along.tap(source)
    state = along_state(live_of(along))
    waiting = [p for p in state["piles"] if p.get("unknown")]
    assert [p["source"] for p in waiting] == along.waiting == ["P11"]
    assert waiting[0]["card"] is None
    assert state["over"] is None and state["announcement"] is None
    assert state["along"]["waiting"] == ["P11"]
    assert len(state["along"]["possible"]) == 52 - sum(
        1 for n in along.seen().values() if n >= 2)
    assert state["status"]["code"] == "from the app"


def test_the_stages_of_the_share_then_nothing_while_waiting():
    live = live_of(AlongGame(shown(DEAL)))
    answers = {}
    jobs = along_jobs(live, answers)
    assert len(jobs) == 1 and jobs[0].work[0] == "along" and jobs[0].work[2] == ALONG_STAGES[0]
    key = position_key(live)
    keep_answer(answers, key, {"samples": 16, "wins": 9, "unresolved": 0, "moves": [],
                               "move": None})
    assert along_jobs(live, answers)[0].work[2] == ALONG_STAGES[1]
    keep_answer(answers, key, {"error": "boom"})
    assert answers[key]["stop"] == "boom" and along_jobs(live, answers) == []
    for source in ("P3", "R7", "R8"):
        live.tap(source)
    assert position_key(live) is None and along_jobs(live, answers) == []


def test_the_same_cards_seen_give_the_same_jobs():
    """What a job is told depends only on what was entered (not on the cards unseen)."""
    from test_along import _shuffle_hidden

    other = Deal(piles=_shuffle_hidden(play_along(DEAL, DEAD_END_MOVES), DEAL,
                                       __import__("random").Random(5)), reserve=DEAL.reserve)
    for moves in (DEAD_END_MOVES[:2], DEAD_END_MOVES):
        a, b = live_of(play_along(DEAL, moves)), live_of(play_along(other, moves))
        assert along_jobs(a, {})[0].message() == along_jobs(b, {})[0].message()


def test_the_review_is_asked_at_the_end_and_marks_the_largest_fall():
    live = live_of(play_along(DEAL, DEAD_END_MOVES))
    jobs = along_jobs(live, {})
    assert jobs[0].work[0] == "review" and jobs[0].work[4] == REVIEW_STAGES[0]
    assert review_key(live)[2] == DEAD_END_MOVES
    out = review_view(live, {"samples": 10, "wins": [10, 9, 4, 4, 0], "unresolved": 0})
    marks = {m["n"]: m["lost_here"] for m in out["moves"]}
    assert marks == {1: False, 2: True, 3: False, 4: True}  # falls of 5 and 4 tenths
    assert out["moves"][1]["before"] == 0.9 and out["moves"][1]["after"] == 0.4
    assert out["kind"] == "lost" and out["more"]
    # the dead end's advice: undo to the marked move of largest fall (move 2), 3 moves back
    assert out["undo_to"] == 2 and out["undo"] == 3
    assert out["advice"].startswith("Undo 3 moves (back to before move 2, ")
    assert out["text"].endswith("and try another move there.")
    flat = review_view(live, {"samples": 10, "wins": [10, 10, 10, 10, 10], "unresolved": 0})
    assert flat["undo_to"] == 4 and flat["undo"] == 1  # no fall: one move back
    opinion = along_opinion(live, {review_key(live): {"samples": 10, "wins": [10, 9, 4, 4, 0]}})
    assert [m["mark"] for m in opinion["moves"]] == [None, LOST_HERE, None, LOST_HERE]
    assert opinion["light"] == "loss" and opinion["says"] == "Dead end"


def test_the_opinion_says_the_share_with_its_interval():
    live = live_of(AlongGame(shown(DEAL)))
    key = position_key(live)
    assert along_opinion(live, {})["light"] == "pending"
    answers = {key: {"samples": 64, "wins": 32, "unresolved": 2, "move": None, "moves": []}}
    out = along_opinion(live, answers)
    assert out["light"] == "share" and out["busy"]
    share = out["along"]["share"]
    assert share["share"] == 0.5 and share["low"] < 0.5 < share["high"]
    assert out["says"].startswith("Winnable in 50 % of the layouts of the cards not seen yet")
    assert "64 layouts" in out["says"]


def test_cards_told_then_covered_by_an_undo_are_sent_as_known():
    """The solves of a position after an undo keep the cards told since in their places
    (the job's ``known``), so the fair sampling draws only the cards never seen."""
    from halfmoon.game.layouts import parse_layout

    along = play_along(DEAL, DEAD_END_MOVES[:2])
    along.undo()
    live = live_of(along)
    known = along.known_under()
    assert len(known) == 2
    key = position_key(live)
    assert key[2] == tuple(known)
    work = along_jobs(live, {})[0].work
    assert work[0] == "along" and work[5] == [list(p) for p in known]
    sent = parse_layout(work[1], name="position")
    assert all(sent.piles[i][d] == DEAL.piles[i][d] for i, d in known)
    # the same position with those cards unknown (as if never told) is another job
    fresh = live_of(play_along(DEAL, DEAD_END_MOVES[:1]))
    assert position_key(fresh)[2] == () and along_jobs(fresh, {})[0].work[5] == []
    assert position_key(fresh) != key


def test_the_position_key_kept_between_asks_follows_every_change_of_the_game():
    """The key is kept between asks (made of the position and the cards known): after each
    tap, card told, undo and correction it is the key a live game made afresh gives."""
    from test_along import tell_all

    along = play_along(DEAL, [])
    live = live_of(along)
    seen = []
    for move in DEAD_END_MOVES[:3]:
        for source in move.split("+"):
            along.tap(source)
            assert position_key(live) == position_key(live_of(along))
        seen.append(position_key(live))
        tell_all(along, DEAL)
        assert position_key(live) == position_key(live_of(along)) is not None
        seen.append(position_key(live))
    along.undo()
    assert position_key(live) == position_key(live_of(along)) not in seen
    live.correct("P4", str(DEAL.piles[0][0]))
    assert position_key(live) == position_key(live_of(along)) not in seen
    assert seen[0] is None and len(set(seen[1::2])) == 3  # waiting, then each position's own


def test_a_correction_asks_afresh_and_no_answer_of_before_is_drawn():
    """A card corrected: the position's key, its job and the token the page ties answers to
    all change, so an answer on the cards as told before is neither kept nor drawn; the
    state lists the cards that can be corrected and the cards they may become."""
    along = play_along(DEAL, DEAD_END_MOVES[:2])
    live = live_of(along)
    state, key = along_state(live), position_key(live)
    places = {c["place"]: c for c in state["along"]["correct"]["places"]}
    assert places["P4.6"]["card"] == str(DEAL.piles[3][6]) and "R1" in places
    assert "P4.7" not in places and "R7" not in places  # removed: not offered
    assert len(places) == 12 + 6 and state["along"]["corrections"] == 0  # R7, R8 gone
    possible = state["along"]["correct"]["possible"]
    assert len(possible) == 52 - sum(1 for n in along.seen().values() if n >= 2)
    answers = {key: {"samples": 384, "wins": 300, "unresolved": 0, "move": None, "moves": []}}
    assert along_opinion(live, answers)["light"] == "share"
    job = along_jobs(live, {})[0]
    live.correct("P4", str(DEAL.piles[0][0]))
    after = along_state(live)
    assert after["position"] == state["position"] + ".1" and after["along"]["corrections"] == 1
    assert position_key(live) != key and along_jobs(live, answers)[0].message() != job.message()
    out = along_opinion(live, answers)
    assert out["position"] == after["position"] and out["light"] == "pending"
    assert along_jobs(live, answers)[0].work[2] == ALONG_STAGES[0]  # from the first stage
    # at the end, the review's key holds the deal as known: a correction changes it too
    # (or none: a card corrected may open a move at a dead end, and the game goes on)
    before = review_key(live_of(play_along(DEAL, DEAD_END_MOVES)))
    ends = {}
    for card in ("Kc", "Qd", "2s", "7h"):
        end = live_of(play_along(DEAL, DEAD_END_MOVES))
        end.correct("R1", card)
        ends[end.along.is_over] = end
    assert set(ends) == {True, False}, ends
    assert review_key(ends[False]) is None and along_jobs(ends[False], {})[0].work[0] == "along"
    end = ends[True]
    assert review_key(end) != before and review_key(end)[3] == tuple(end.along.unknown_places())


def test_the_advice_is_provisional_until_settled():
    from test_opinion import paired_answer

    live = live_of(AlongGame(shown(DEAL)))
    moves = [str(m) for m in live.game.legal_moves]
    rows = {m: range(0, 8) for m in moves}
    rows[moves[0]], rows[moves[1]] = range(0, 16), range(0, 15)  # one layout apart
    key, answers = position_key(live), {}

    def stage(samples: int) -> dict:
        answer = paired_answer(rows, samples, moves[1], tie=moves[0])
        keep_answer(answers, key, {**answer, "wins": answer["position_wins"], "unresolved": 0})
        return along_opinion(live, answers)

    out = stage(ALONG_STAGES[0])
    fair = out["fair"]
    assert fair["kind"] == "provisional" and fair["more"] and out["busy"]
    assert fair["move"] is None and fair["sources"] == [] and fair["leaning"] == moves[0]
    assert fair["text"].startswith("Leaning to ") and "still counting (16 of 384" in fair["text"]
    assert out["light"] == "share" and out["says"].startswith("Winnable in 100 %")
    out = stage(ALONG_STAGES[-1])  # the last stage: settled, whatever the gap
    fair = out["fair"]
    assert fair["kind"] == "move" and not fair["more"] and not out["busy"]
    assert fair["move"] == moves[0] and fair["sources"] == moves[0].split("+")
    assert fair["text"].startswith("Play ")


def _answers_at(live, rows, samples, chosen, tie=""):
    """``answers`` with a paired answer on ``samples`` layouts for the position on the board."""
    from test_opinion import paired_answer

    answer = paired_answer(rows, samples, chosen, tie=tie)
    answers = {}
    keep_answer(answers, position_key(live),
                {**answer, "wins": answer["position_wins"], "unresolved": 0})
    return answers


TIME_LIMIT = {"verdict": "unresolved", "moves": None, "nodes": 0, "seconds": 10.2,
              "reason": "time limit of 10 s"}  # what the pool answers for a job past its limit


def test_a_stage_stopped_by_a_limit_is_tried_again_then_never_drawn_as_settled():
    """The last stage stopped by the time limit: tried again :data:`TRIES` times in all
    (still counting, the stop said), then drawn as stopped: no "Play", nothing outlined, the
    stage and the reason in words, what the player can do; "Try again" asks once more."""
    live = live_of(AlongGame(shown(DEAL)))
    moves = [str(m) for m in live.game.legal_moves]
    rows = {m: range(0, 8) for m in moves}
    rows[moves[0]], rows[moves[1]] = range(0, 40), range(0, 36)  # not told apart at 64
    answers = _answers_at(live, rows, 64, moves[0])
    key = position_key(live)
    assert along_jobs(live, answers)[0].work[2] == ALONG_STAGES[-1]
    for k in range(1, TRIES + 1):
        keep_answer(answers, key, TIME_LIMIT)
        out = along_opinion(live, answers)
        fair = out["fair"]
        assert fair["stopped"]["at"] == 64 and fair["stopped"]["of"] == ALONG_STAGES[-1]
        assert fair["stopped"]["text"].startswith("Stopped at 64 of 384 layouts: the machine "
                                                  "is busy (a solve ran past its time limit")
        if k < TRIES:  # tried again: still counting
            assert fair["stopped"]["again"] and "trying again" in fair["stopped"]["text"]
            assert fair["kind"] == "provisional" and fair["more"] and out["busy"]
            assert along_jobs(live, answers)[0].work[2] == ALONG_STAGES[-1]
    assert along_jobs(live, answers) == []  # left: no try more
    assert fair["kind"] == "stopped" and not fair["more"] and not out["busy"]
    assert not fair["settled"] and fair["move"] is None and fair["sources"] == []
    assert fair["leaning"] == moves[0] and fair["rival"] == moves[1]
    assert fair["text"].startswith("Leaning to ") and "not settled: Stopped at 64 of 384" \
        in fair["text"] and "Play" not in fair["text"]
    assert "Try again" in fair["do"] and "not settled" in fair["do"]
    assert out["light"] == "share" and "64 layouts" in out["says"]
    for _ in range(5):  # solves of that round still running stop too (several at once)
        keep_answer(answers, key, TIME_LIMIT)
    live.ask_fair()  # the page's "Try again": as many tries again, counted from now
    for _ in range(TRIES):
        assert along_jobs(live, answers)[0].work[2] == ALONG_STAGES[-1]
        keep_answer(answers, key, TIME_LIMIT)
    assert along_jobs(live, answers) == []
    live.ask_fair()
    assert along_jobs(live, answers)[0].work[2] == ALONG_STAGES[-1]
    assert along_opinion(live, answers)["fair"]["kind"] == "provisional"
    # the answer that comes then replaces the stop
    keep_answer(answers, key, {**answers[key], "samples": ALONG_STAGES[-1], "stop": None})
    assert along_opinion(live, answers)["fair"]["stopped"] is None


def test_a_stop_before_any_answer_and_an_error_are_said():
    live = live_of(AlongGame(shown(DEAL)))
    key, answers = position_key(live), {}
    for _ in range(TRIES):
        keep_answer(answers, key, TIME_LIMIT)
    out = along_opinion(live, answers)
    assert out["light"] == "unresolved" and out["says"].startswith(
        "Not known: Stopped at 0 of 384 layouts: the machine is busy")
    assert out["fair"]["kind"] == "unknown" and out["fair"]["text"].startswith("No fair hint: ")
    answers = {}
    keep_answer(answers, key, {"error": "the solver process stopped"})  # not tried again
    assert along_jobs(live, answers) == []
    live.ask_fair()  # unless the player asks: then as a limit is
    for _ in range(TRIES):
        assert along_jobs(live, answers)[0].work[2] == ALONG_STAGES[0]
        keep_answer(answers, key, {"error": "the solver process stopped"})
    assert along_jobs(live, answers) == []
    assert along_opinion(live, answers)["says"] == ("Not known: Stopped at 0 of 384 layouts: "
                                                    "the solver process stopped")


def test_a_clear_leader_stays_settled_when_a_later_stage_stops():
    live = live_of(AlongGame(shown(DEAL)))
    moves = [str(m) for m in live.game.legal_moves]
    rows = {m: range(0, 2) for m in moves}
    rows[moves[0]] = range(0, 60)  # every other move clearly below at 64
    answers = _answers_at(live, rows, 64, moves[0])
    for _ in range(TRIES):
        keep_answer(answers, position_key(live), TIME_LIMIT)
    fair = along_opinion(live, answers)["fair"]
    assert fair["kind"] == "move" and fair["settled"] and fair["move"] == moves[0]
    assert fair["stopped"]["at"] == 64 and fair["do"] is None


def test_at_0_percent_no_move_is_played_and_the_undo_goes_back_to_the_last_winnable():
    """No layout won: "None of the … layouts … can be won", no "Play", nothing outlined;
    once settled, the undo back to the last position shown winnable."""
    along = play_along(DEAL, DEAD_END_MOVES[:3])
    live = live_of(along)
    moves = [str(m) for m in live.game.legal_moves]
    # the position after 1 move was shown winnable (with the cards told by then), not the
    # one after 2 (0 %)
    live.shown[(tuple(DEAD_END_MOVES[:1]), 0)] = (0.4, len(along.reveals))
    none = {m: () for m in moves}
    out = along_opinion(live, _answers_at(live, none, ALONG_STAGES[0], moves[0]))
    fair = out["fair"]
    assert fair["kind"] == "none" and not fair["settled"] and fair["more"]
    assert fair["text"] == "None of the 16 layouts sampled so far can be won from here; " \
        "still counting."
    assert fair["move"] is None and fair["sources"] == [] and fair["undo"] is None
    out = along_opinion(live, _answers_at(live, none, ALONG_STAGES[-1], moves[0]))
    fair = out["fair"]
    assert fair["kind"] == "none" and fair["settled"] and not fair["more"]
    assert "Play" not in fair["text"] and fair["sources"] == []
    assert fair["text"].startswith("None of the 384 layouts sampled can be won from here: "
                                   "the game is very probably lost.")
    assert fair["undo"]["undo"] == 2 and fair["undo"]["undo_to"] == 2
    assert fair["undo"]["text"] == "Undo 2 moves: back to before move 2"
    assert fair["undo"]["why"] == "the last position shown winnable (40 % of its layouts)"
    live.shown[(tuple(DEAD_END_MOVES[:1]), 0)] = (0.4, 0)  # shown before the cards told since
    fair = along_opinion(live, _answers_at(live, none, ALONG_STAGES[-1], moves[0]))["fair"]
    assert fair["undo"]["why"].endswith("(40 % of its layouts, before the cards told since)")
    assert out["says"].startswith("Winnable in 0 %")
    # none shown winnable (a board started again): one move back
    fresh = live_of(play_along(DEAL, DEAD_END_MOVES[:3]))
    fair = along_opinion(fresh, _answers_at(fresh, none, ALONG_STAGES[-1], moves[0]))["fair"]
    assert fair["undo"]["undo"] == 1 and "no earlier position" in fair["undo"]["why"]
    # a position with a layout won is kept as shown winnable
    won = {m: () for m in moves}
    won[moves[0]] = range(0, 3)
    along_opinion(fresh, _answers_at(fresh, won, ALONG_STAGES[0], moves[0]))
    assert fresh.shown[fresh.here()] == (3 / 16, len(fresh.along.reveals))


def test_the_review_points_to_the_earliest_marked_move():
    """Two moves marked, the later with the larger fall: the advice goes back to before the
    earlier (undoing to the later leaves the game as the earlier left it)."""
    live = live_of(play_along(DEAL, DEAD_END_MOVES))
    out = review_view(live, {"samples": 10, "wins": [10, 6, 6, 6, 0], "unresolved": 0})
    assert [m["n"] for m in out["moves"] if m["lost_here"]] == [1, 4]
    assert out["undo_to"] == 1 and out["undo"] == 4
    assert "the earliest marked" in out["advice"]


def test_a_review_stopped_by_a_limit_says_so_and_is_not_drawn_as_coming():
    live = live_of(play_along(DEAL, DEAD_END_MOVES))
    key, answers = review_key(live), {}
    keep_answer(answers, key, {"samples": 16, "wins": [16, 14, 6, 6, 0], "unresolved": 0})
    assert review_view(live, answers[key])["more"]
    keep_answer(answers, key, TIME_LIMIT)
    assert review_view(live, answers[key])["more"]  # tried again
    assert along_jobs(live, answers)[0].work[4] == REVIEW_STAGES[-1]
    keep_answer(answers, key, TIME_LIMIT)
    out = review_view(live, answers[key])
    assert not out["more"] and out["samples"] == 16 and out["undo_to"] == 2
    assert out["text"].endswith("(Stopped at 16 of 64 layouts: the machine is busy (a solve "
                                "ran past its time limit of 10 s).)")
    assert not along_opinion(live, answers)["busy"]
    fresh = {}
    for _ in range(TRIES):
        keep_answer(fresh, key, TIME_LIMIT)
    out = review_view(live, fresh[key])
    assert out["kind"] == "unknown" and not out["more"]
    assert out["text"].startswith("No review: stopped at 0 of 64 layouts: the machine is busy")
