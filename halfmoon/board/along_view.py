"""A game played along with the app as the page draws it: its state (the unknown cards
hidden, the piles waiting for the card that appeared, the cards still possible), the
solves it wants, and its opinion (the winnable share of the layouts consistent with what
was entered, the fair hint, each legal move's share, and at the end the review).

Every solve is a job of the board's solver pool (:mod:`halfmoon.board.along_jobs`), made
from what was entered only: the unseen cards are sent sorted, and the seeds come from the
same text.
"""

from __future__ import annotations

import zlib
from typing import Optional

from halfmoon.game.engine import Game
from halfmoon.game.layouts import format_layout
from halfmoon.game.moves import Move

from .along import AlongLive, possible_cards
from .opinion import _pts, fair_view, move_cards, stop_words
from .pool import Job
from .view import position_token, state_view

ALONG_STAGES = (16, 64, 384)  # layouts of each answer: the first fast, the last ±5 points
ALONG_BUDGET = 20_000  # positions a solve of a sampled layout
REVIEW_STAGES = (16, 64)
REVIEW_BUDGET = 20_000
LOST_HERE = "probably lost here"
LOST_FALL = 0.15  # a move is marked when its share fell by this much, and by half the most
MARKED = 3  # moves marked at most
TRIES = 2  # tries of a stage that a limit stopped, before the page says it stopped
ALONG_NOTE = ("Uses only the cards entered: the 20 the app showed and each card told as it "
              "appeared (kept in its place after an undo: it was seen). A share counts the "
              "layouts of the cards not seen yet, drawn at random, in which the game can "
              "still be won after the move by a player who would then see every card. The "
              "position and every move are measured on the same layouts (the position is won "
              "in a layout when some move keeps the win), and a move is compared with the "
              "best on the layouts where only one of the two wins (95 % paired interval). "
              "The recommended move is the move of largest share (ties: the tuned player's "
              "move, else the first): with the app's undo, the advice that needed the fewest "
              "moves to win. The fair player's own move is shown beside it: without undo it "
              "wins more games. The recommendation is shown, and its move outlined, once "
              "settled: at the last stage, or earlier when every other move is clearly below "
              "it; until then the leading move is shown as provisional.")


# --- the state ------------------------------------------------------------------------
def along_state(live: AlongLive) -> dict:
    """:func:`halfmoon.board.view.state_view` with what the app does not show hidden: a
    waiting pile's top is unknown, and no dead end is announced while a pile waits."""
    out = state_view(live)
    along = live.along
    waiting = along.waiting
    for place in out["piles"]:
        if place["source"] in waiting:
            place["card"] = None
            place["unknown"] = True
    out["dimmed"] = [s for s in out["dimmed"] if s not in waiting]
    if waiting:
        out["over"] = None
        out["announcement"] = None
    out["status"]["code"] = "from the app"
    out["position"] = along_position(live)
    out["along"] = {
        "waiting": waiting,
        "possible": along.possible() if waiting else [],
        "seen": sum(along.seen().values()),
        "unseen": sum(along.unseen().values()),
        # what a correction may change, and to what (the card itself aside)
        "correct": {"places": along.correctable(), "possible": possible_cards(along.seen()),
                    "refused": along.refused()},
        "corrections": len(along.corrections),
    }
    return out


def along_position(live: AlongLive) -> str:
    """The position's token (:func:`~halfmoon.board.view.position_token`), and after a
    correction the number of corrections: the page ties every answer to it, so an answer
    on the cards as they were told before is not drawn after."""
    token = position_token(live.game.position)
    corrected = len(live.along.corrections)
    return f"{token}.{corrected}" if corrected else token


# --- the solves wanted ------------------------------------------------------------------
def position_key(live: AlongLive) -> Optional[tuple]:
    """The key of the answer on the position now on the board (None: nothing to solve);
    the last one made is kept with what it was made of (asked many times a move)."""
    along, game = live.along, live.game
    made_of = (game.position, tuple(map(tuple, along.known)), along.reserve)
    memo = getattr(live, "_position_key", None)
    if memo is not None and memo[0] == made_of:
        return memo[1]
    key = None
    if not (along.waiting or along.is_over or not game.legal_moves):
        key = ("along", format_layout(game.remaining_deal(), code=""),
               tuple(along.known_under()))
    live._position_key = (made_of, key)
    return key


def review_key(live: AlongLive) -> Optional[tuple]:
    """The key of the review of a finished game: everything its job is made of (the deal as
    known, the places never seen, the moves)."""
    along = live.along
    if not along.is_over:
        return None
    return ("review", format_layout(along.start_deal(), code=""),
            tuple(str(m) for m in live.game.stack), tuple(along.unknown_places()))


def along_jobs(live: AlongLive, answers: dict) -> list[Job]:
    """The next answer this game wants: on the position (more layouts than the answer kept,
    :data:`ALONG_STAGES`), or at the end the review's (:data:`REVIEW_STAGES`)."""
    key = position_key(live)
    stages, budget = ALONG_STAGES, ALONG_BUDGET
    if key is None:
        key, stages, budget = review_key(live), REVIEW_STAGES, REVIEW_BUDGET
    if key is None:
        return []
    have = answers.get(key)
    done = have["samples"] if have else 0
    todo = [k for k in stages if k > done]
    if not todo or (have and have.get("stop") and not asked_again(live, have)):
        return []
    if key[0] == "along":
        # the known places under the tops change the layouts drawn, so the seed too
        text = key[1] + "".join(f"\n{i} {d}" for i, d in key[2])
        samples, seed = todo[0], zlib.crc32(text.encode())
        work = ("along", key[1], samples, seed, budget, [list(p) for p in key[2]])
    else:
        samples, seed = todo[0], zlib.crc32(key[1].encode())
        unknown = [list(p) for p in key[3]]
        work = ("review", key[1], unknown, list(key[2]), samples, seed, budget)
    return [Job((key, samples), work, ("along", key))]


def keep_answer(answers: dict, key: tuple, answer: dict) -> None:
    """Keep a job's answer on ``key`` if it has more layouts than the one kept; an error or
    a time-out stops the stages of that key."""
    if "samples" in answer and "error" not in answer:
        kept = answers.get(key)
        if kept is None or answer["samples"] > kept["samples"]:
            answers[key] = answer
    else:
        kept = answers.setdefault(key, {"samples": 0, "wins": 0, "moves": [], "move": None})
        kept["stop"] = answer.get("reason") or answer.get("error") or "no answer"
        kept["limit"] = "reason" in answer  # a limit (the time), not an error: tried again
        kept["stops"] = kept.get("stops", 0) + 1


def asked_again(live: AlongLive, have: dict) -> bool:
    """Whether the solves of a position that a limit stopped are tried again: until
    :data:`TRIES` of them have stopped, and as many more from each time the player asks
    (the page's "Try again", counted from the stops then: the record notes it)."""
    asked = live.again.get(live.here(), 0)
    if asked > have.get("asked", 0):  # a new "Try again": the tries count from here
        have["asked"], have["base"] = asked, have.get("stops", 1)
    # an error (not a limit) is tried again only when the player asks
    return (bool(have.get("limit")) or asked > 0) \
        and have.get("stops", 1) < have.get("base", 0) + TRIES


def stopped_view(live: AlongLive, answer: Optional[dict]) -> Optional[dict]:
    """The stage at which the answer on the position stopped and why (None: not stopped):
    ``at`` and ``of`` layouts, ``again`` while it is tried again, ``text`` in words."""
    if not answer or not answer.get("stop"):
        return None
    n, most = int(answer.get("samples", 0)), ALONG_STAGES[-1]
    again = asked_again(live, answer)
    why = stop_words(answer["stop"])
    text = f"Stopped at {n} of {most} layouts: {why}"
    if again:
        text += "; trying again…"
    return {"at": n, "of": most, "reason": answer["stop"], "why": why, "again": again,
            "tries": int(answer.get("stops", 1)), "text": text}


# --- the opinion ------------------------------------------------------------------------
def along_opinion(live: AlongLive, answers: dict) -> dict:
    """What the page draws beside the table of a game played along with the app."""
    from halfmoon.research.intervals import wilson_interval

    game, along = live.game, live.along
    key = position_key(live)
    answer = answers.get(key) if key else None
    stopped = stopped_view(live, answer) if key else None
    final = stopped is not None and not stopped["again"]  # stopped, and not tried again
    review = review_view(live, answers.get(review_key(live))) if along.is_over else None
    out = {"position": along_position(live), "moves": move_list(game, review),
           "hint": None, "line": None, "analysis": None, "review": review}
    share = None
    if game.is_won:
        out.update(light="won", says="Won")
    elif along.waiting:
        out.update(light="pending", says=f"Waiting for the card that appeared on "
                                         f"{' and '.join(along.waiting)}")
    elif game.is_dead_end:
        out.update(light="loss", says="Dead end")
    elif answer is None or not answer.get("samples"):
        out.update(light="unresolved" if final else "pending",
                   says=f"Not known: {stopped['text']}" if final
                   else "Sampling the cards not seen yet…")
    else:
        n, k, u = int(answer["samples"]), int(answer["wins"]), int(answer.get("unresolved", 0))
        # the layouts not settled may be won: the interval's top counts them as won
        low, high = wilson_interval(k, n)[0], wilson_interval(k + u, n)[1]
        share = {"share": k / n, "low": low, "high": high, "samples": n, "wins": k,
                 "unresolved": u}
        out.update(light="share", says=f"Winnable in {round(100 * k / n)} % of the layouts of "
                   f"the cards not seen yet (95 %: {round(100 * low)}–{round(100 * high)} %, "
                   f"{n} layouts)")
        if k:
            # a position shown winnable (with the cards told by then): where to undo to
            live.shown[live.here()] = (k / n, len(along.reveals))
    more = key is not None and (answer is None or (
        answer["samples"] < ALONG_STAGES[-1] and not final))
    if along.waiting:
        out["fair"] = None
    else:
        # the stop is this view's to say: the answer is drawn as one still counting
        given = ({k: v for k, v in answer.items() if k != "stop"}
                 if answer and answer.get("moves") else None)
        fair = fair_view(game, given, ALONG_STAGES[-1])
        fair.update(note=ALONG_NOTE, more=bool(more), stopped=stopped, undo=None)
        if final:
            _stopped_fair(game, fair, stopped)
        if fair.get("position") and not fair["position"]["wins"]:
            _none_won(live, fair)
        out["fair"] = fair
    review_more = review is not None and review.get("more", False)
    out["busy"] = bool(more or review_more)
    out["along"] = {"share": share, "waiting": along.waiting}
    return out


def _stopped_fair(game: Game, fair: dict, stopped: dict) -> None:
    """A fair hint whose stages stopped before it was settled: never drawn as settled (no
    "Play", no move outlined); the leading move, the stage it stopped at and why, and what
    the player can do."""
    fair["do"] = ("Wait, then Try again (the board asks for the layouts again), or take the "
                  "leading move knowing it is not settled.")
    if fair["kind"] == "pending":  # not one stage answered
        fair.update(kind="unknown", settled=True, text=f"No fair hint: {stopped['text']}.")
    elif fair["kind"] == "provisional":
        rival = next(m for m in fair["moves"] if m["move"] == fair["rival"])
        leader = move_cards(game, Move.parse(fair["leaning"]))
        fair.update(kind="stopped", text=(
            f"Leaning to {leader}, not settled: {stopped['text']}. Not yet clear of "
            f"{rival['cards']} ({_pts(rival['diff'])} points, 95 % paired interval "
            f"{_pts(rival['diff_low'])} to {_pts(rival['diff_high'])})."))
    else:  # settled before the stop: every other move clearly below the leading one
        fair["do"] = None


def _none_won(live: AlongLive, fair: dict) -> None:
    """No layout sampled is won: no move to play; once settled (the last stage, or
    stopped), the undo back to the last position shown winnable (one move when none
    was)."""
    n, opened = fair["samples"], fair["position"]["unresolved"]
    still = fair["more"]
    text = (f"None of the {n} layouts sampled {'so far ' if still else ''}can be won from "
            "here")
    if opened:
        text += f" ({opened} not settled within the solver's budget may be)"
    fair.update(kind="none", move=None, sources=[], leaning=None, rival=None, do=None,
                settled=not still)
    if still:
        fair["text"] = text + "; still counting."
        return
    fair["text"] = text + ": the game is very probably lost."
    moves, corrected = live.here()
    if not moves:
        return
    back = next((k for k in range(len(moves) - 1, -1, -1)
                 if (moves[:k], corrected) in live.shown), len(moves) - 1)
    share, told = live.shown.get((moves[:back], corrected), (None, 0))
    since = ", before the cards told since" if len(live.along.reveals) > told else ""
    undo = len(moves) - back
    fair["undo"] = {
        "undo": undo, "undo_to": back + 1, "share": share,
        "text": f"Undo {undo} move{'s' if undo != 1 else ''}: back to before move {back + 1}",
        "why": (f"the last position shown winnable ({round(100 * share)} % of its layouts"
                f"{since})" if share else "no earlier position was shown winnable: one move "
                "back")}
    fair["text"] += f" {fair['undo']['text']}, {fair['undo']['why']}, and try another move there."


def move_list(game: Game, review: Optional[dict]) -> list[dict]:
    replay = Game(game.deal)
    marked = {m["n"]: m for m in (review or {}).get("moves", [])}
    out = []
    for k, move in enumerate(game.stack, start=1):
        cards = move_cards(replay, move)
        replay.push(move)
        r = marked.get(k)
        out.append({"n": k, "move": str(move), "cards": cards, "after": "along",
                    "mark": LOST_HERE if r and r["lost_here"] else None,
                    "mark_title": "the share of winnable layouts fell most here"})
    return out


def review_view(live: AlongLive, answer: Optional[dict]) -> dict:
    """For each move, the share of the layouts consistent with everything seen by the end in
    which the position before it and after it can be won; the moves where it fell most
    marked :data:`LOST_HERE`."""
    n_moves = len(live.game.stack)
    # a stage stopped by a limit (and not tried again): said, never drawn as still coming
    stop = answer.get("stop") if answer and not asked_again(live, answer) else None
    if answer is None or not answer.get("samples") or "wins" not in answer \
            or not isinstance(answer["wins"], list):
        return {"kind": "pending" if not stop else "unknown", "samples": 0, "moves": [],
                "more": not stop, "text": "Reviewing the game…" if not stop else
                f"No review: stopped at 0 of {REVIEW_STAGES[-1]} layouts: {stop_words(stop)}."}
    n = int(answer["samples"])
    shares = [w / n for w in answer["wins"]]
    falls = [shares[k - 1] - shares[k] for k in range(1, n_moves + 1)]
    top = max(falls, default=0.0)
    order = sorted(range(n_moves), key=lambda k: -falls[k])
    lost = {k + 1 for k in order[:MARKED] if falls[k] >= LOST_FALL and falls[k] >= top / 2}
    replay = Game(live.game.deal)
    moves = []
    for k, move in enumerate(live.game.stack, start=1):
        cards = move_cards(replay, move)
        replay.push(move)
        moves.append({"n": k, "move": str(move), "cards": cards, "before": shares[k - 1],
                      "after": shares[k], "lost_here": k in lost})
    won = live.game.is_won
    # the dead end's advice: undo to the earliest marked move (a later mark is only where
    # a game already worse went on falling; with no mark, the move of largest fall; with no
    # fall, the last move) and try another move there
    undo_to = None
    if not won and n_moves:
        undo_to = min(lost) if lost else 1 + order[0] if top > 0 else n_moves
    if won:
        text = "Won: every card was seen, and every position of the game could be won."
    elif lost:
        text = (f"Dead end. The moves where the share of winnable layouts fell most are marked "
                f"'{LOST_HERE}' (of {n} layouts of the {len(live.along.unknown_places())} "
                "cards never seen).")
    else:
        text = (f"Dead end. No move lowered the share of winnable layouts by "
                f"{round(100 * LOST_FALL)} points or more ({n} layouts).")
    advice = None
    if undo_to is not None:
        undo = n_moves - undo_to + 1
        advice = (f"Undo {undo} move{'s' if undo != 1 else ''} (back to before move {undo_to}, "
                  f"{moves[undo_to - 1]['cards']}{', the earliest marked' if len(lost) > 1 else ''}"
                  ") and try another move there.")
        text += " " + advice
    if stop and n < REVIEW_STAGES[-1]:
        text += f" (Stopped at {n} of {REVIEW_STAGES[-1]} layouts: {stop_words(stop)}.)"
    return {"kind": "won" if won else "lost", "samples": n, "start": shares[0],
            "moves": moves, "text": text, "unresolved": int(answer.get("unresolved", 0)),
            "more": n < REVIEW_STAGES[-1] and not stop, "undo_to": undo_to,
            "undo": None if undo_to is None else n_moves - undo_to + 1, "advice": advice}
