"""What the solver's answers say of a game: the winnable light, the hint, the move list
with the move that lost the win marked ``??``, every legal move's verdict (the answer of
``halfmoon analyse``), and the winning line from the position on the board.

The answers are kept in :class:`Verdicts`, a bounded store of settled positions keyed by
the deal and the position, so that two games of one deal share them.  A winning line
settles every position along it (each is winnable, the rest of the line wins it).

Along the moves of a game the verdicts are monotone: a position before a winnable one
is winnable, a position after a lost one is lost.  So a lost game needs only a binary
search over its earlier positions to find the last winnable one: :func:`read_game` says
which positions to solve next, the one on the board first.  Nothing is guessed: a
position the solver could not settle within its budget stays "unresolved".
"""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game, Position
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import Move
from halfmoon.game.notation import format_move

from .view import position_token

DEFAULT_CAPACITY = 20_000
log = logging.getLogger(__name__)

Key = tuple[str, Position]  # (deal key, position)
# A deal has at most 1,330 distinct moves and a Move is immutable: each is read once.
_move = functools.lru_cache(maxsize=4096)(Move.parse)


@dataclass(frozen=True)
class Settled:
    """The solver's answer on one position: ``line`` is the rest of a winning line."""

    verdict: str  # "win" | "loss" | "unresolved"
    line: Optional[tuple[Move, ...]] = None
    nodes: int = 0
    reason: Optional[str] = None
    why: Optional[str] = None  # why a loss is lost, in words, when it was asked


class Verdicts:
    """Settled positions, at most ``capacity``; the least recently used is dropped."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._data: OrderedDict[Key, Settled] = OrderedDict()

    def get(self, key: Key) -> Optional[Settled]:
        found = self._data.get(key)
        if found is not None:
            self._data.move_to_end(key)
        return found

    def put(self, key: Key, settled: Settled) -> None:
        self._data[key] = settled
        self._data.move_to_end(key)
        while len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)

    def record(self, deal_key: str, position: Deal, answer: dict) -> None:
        """Keep the answer of a solve (see :mod:`halfmoon.board.jobs`) on ``position``,
        a deal or the remaining cards of a game; a winning line settles every
        position along it."""
        game = Game(position)
        verdict = answer.get("verdict")
        if verdict not in ("win", "loss", "unresolved"):
            self.put((deal_key, game.position),
                     Settled("unresolved", reason=answer.get("error", "no verdict")))
            return
        nodes = int(answer.get("nodes", 0))
        if verdict != "win":
            self.put((deal_key, game.position),
                     Settled(verdict, None, nodes, answer.get("reason"), answer.get("why")))
            return
        try:
            line = tuple(_move(m) for m in answer.get("moves") or ())
            settled = []
            for k, move in enumerate(line):
                settled.append((game.position, line[k:]))
                game.play(move)
            if not game.is_won:
                raise HalfMoonError("the line does not clear the table")
        except HalfMoonError as exc:  # a solver bug: say unresolved rather than guess
            log.error("a winning line that does not replay: %s", exc)
            self.put((deal_key, Game(position).position),
                     Settled("unresolved", reason="the solver's line did not replay"))
            return
        for pos, rest in settled:
            self.put((deal_key, pos), Settled("win", rest, nodes))


@dataclass
class Reading:
    """What is known of each position along a game's moves (ply 0 = the deal)."""

    game: Game
    deal_key: str
    positions: list[Position]  # ply 0..n
    settled: list[Optional[Settled]]  # the answer on each, if any
    verdicts: list[Optional[str]]  # with what follows from the others; None: not known yet
    cards: list[str]  # each move with its cards, "5♠ P1 + 6♦ P8"

    @property
    def ply(self) -> int:
        return len(self.positions) - 1

    @property
    def now(self) -> Optional[str]:
        return self.verdicts[-1]

    @property
    def last_win(self) -> Optional[int]:
        wins = [i for i, v in enumerate(self.verdicts) if v == "win"]
        return wins[-1] if wins else None

    @property
    def first_loss(self) -> Optional[int]:
        losses = [i for i, v in enumerate(self.verdicts) if v == "loss"]
        return losses[0] if losses else None

    def search_gap(self) -> list[int]:
        """In a lost game: the unsettled plies between the last winnable position and
        the first lost one (where the move that lost it is still to be found)."""
        if self.now != "loss":
            return []
        low = -1 if self.last_win is None else self.last_win
        return [i for i in range(low + 1, self.first_loss) if self.settled[i] is None]

    def wanted(self) -> list[int]:
        """Plies to solve next, the most useful first: the position on the board (unless
        it is known lost), then the middle of the search for the move that lost it."""
        out = []
        if self.settled[-1] is None and self.now != "loss":
            out.append(self.ply)
        gap = self.search_gap()
        if gap:
            out.append(gap[len(gap) // 2])
        return out

    def children(self, verdicts: Verdicts) -> list[tuple[Move, str, Optional[str], Position]]:
        """Every legal move of the position on the board: (move, its cards, the verdict
        after it or None, the position after it)."""
        game = Game(self.game.remaining_deal())
        out = []
        for move in list(game.legal_moves):
            cards = move_cards(game, move)
            game.push(move)
            found = verdicts.get((self.deal_key, game.position))
            if game.is_won:
                verdict = "win"
            elif found is not None:
                verdict = found.verdict
            elif self.now == "loss":
                verdict = "loss"  # after a lost position, every position is lost
            else:
                verdict = None
            out.append((move, cards, verdict, game.position))
            game.pop()
        return out


def move_cards(game: Game, move: Move) -> str:
    """A move with its cards, as the page lists it: ``5♠ P1 + 6♦ P8`` (the notation of
    :mod:`halfmoon.game.notation`)."""
    return format_move(move, game)


def read_game(game: Game, deal_key: str, verdicts: Verdicts) -> Reading:
    replay = Game(game.deal)
    positions, cards = [replay.position], []
    for move in game.stack:
        cards.append(move_cards(replay, move))
        replay.push(move)
        positions.append(replay.position)
    settled = [verdicts.get((deal_key, p)) for p in positions]
    if game.is_won:
        settled[-1] = Settled("win", ())
    elif game.is_dead_end:
        settled[-1] = Settled("loss")
    wins = [i for i, s in enumerate(settled) if s is not None and s.verdict == "win"]
    losses = [i for i, s in enumerate(settled) if s is not None and s.verdict == "loss"]
    last_win = wins[-1] if wins else -1
    first_loss = losses[0] if losses else len(settled)
    if last_win >= first_loss:  # only a solver bug could do this: show the answers as given
        log.error("verdicts out of order along a game: win at %d, loss at %d", last_win, first_loss)
        inferred = [None if s is None else s.verdict for s in settled]
    else:
        inferred = ["win" if i <= last_win else "loss" if i >= first_loss
                    else None if s is None else s.verdict for i, s in enumerate(settled)]
    return Reading(game, deal_key, positions, settled, inferred, cards)


def deal_at(game: Game, ply: int) -> Deal:
    """The cards left after the first ``ply`` moves of a game."""
    replay = Game(game.deal)
    for move in game.stack[:ply]:
        replay.push(move)
    return replay.remaining_deal()


# --- the opinion as the page draws it ---------------------------------------------
SAYS = {"win": "Winnable", "loss": "Lost", "unresolved": "Not known", None: "Thinking…"}


def opinion_view(reading: Reading, verdicts: Verdicts, *, hint: bool = False,
                 line: bool = False, analysis: bool = False, budget: int = 0) -> dict:
    """The winnable light, the move list and, when asked, the hint, the line and the
    verdict of every legal move, for the position on the board."""
    game = reading.game
    now = reading.settled[-1]
    light = "won" if game.is_won else reading.now or "pending"
    says = "Won" if game.is_won else SAYS[reading.now]
    if reading.now == "unresolved":
        says += f" within {budget:,} positions" if budget and not (now and now.reason) else ""
        if now is not None and now.reason:
            says += f" ({now.reason})"
    moves = []
    for k, cards in enumerate(reading.cards, start=1):
        before, after = reading.verdicts[k - 1], reading.verdicts[k]
        moves.append({"n": k, "move": str(game.stack[k - 1]), "cards": cards,
                      "after": after or "pending",
                      "mark": "??" if before == "win" and after == "loss" else None})
    out = {
        "position": position_token(game.position),
        "light": light,
        "says": says,
        "moves": moves,
        "busy": bool(reading.wanted()),
        "hint": hint_view(reading) if hint else None,
        "line": line_view(reading) if line else None,
        "analysis": None,
    }
    if analysis:
        children = reading.children(verdicts)
        out["analysis"] = [{"move": str(m), "sources": list(m.sources), "cards": cards,
                            "verdict": v or "pending"} for m, cards, v, _ in children]
        out["busy"] = out["busy"] or any(v is None for _, _, v, _ in children)
    return out


def hint_view(reading: Reading) -> dict:
    """The next move of a winning line; in a lost game, how far to undo and the move
    that lost it."""
    game, now = reading.game, reading.settled[-1]
    if game.is_won:
        return {"kind": "won", "text": "The game is won.", "sources": []}
    if reading.now == "win" and now is not None and now.line:
        move = now.line[0]
        return {"kind": "move", "move": str(move), "sources": list(move.sources),
                "text": f"Play {move_cards(game, move)}"}
    if reading.now in (None, "win"):
        return {"kind": "pending", "text": "Thinking…", "sources": []}
    if reading.now == "unresolved":
        return {"kind": "unknown", "sources": [],
                "text": "Not known: the solver could not settle this position within its budget."}
    return _lost_hint(reading)


def _lost_hint(reading: Reading) -> dict:
    last_win, first_loss, n = reading.last_win, reading.first_loss, reading.ply
    if reading.search_gap():
        return {"kind": "searching", "sources": [],
                "text": "Lost. Looking for the move that lost the win…"}
    if last_win is None and first_loss == 0:
        start = reading.settled[0]
        why = f" Why: {start.why}." if start is not None and start.why else ""
        return {"kind": "lost", "sources": [], "undo": None,
                "why": start.why if start is not None else None,
                "text": f"Lost from the start: no line of play wins this deal.{why}"}
    if last_win is None:
        return {"kind": "lost", "sources": [], "undo": None,
                "text": f"Lost; no earlier position is known to be winnable (the solver could "
                        f"not settle moves 1–{first_loss})."}
    undo = n - last_win
    moves = "move" if undo == 1 else "moves"
    if first_loss == last_win + 1:
        return {"kind": "lost", "sources": [], "undo": undo, "lost_by": first_loss,
                "text": f"Lost. Undo {undo} {moves} to be winnable again: move {first_loss} "
                        f"({reading.cards[first_loss - 1]}) lost it."}
    return {"kind": "lost", "sources": [], "undo": undo, "lost_by": None,
            "text": f"Lost. Undo {undo} {moves} to be winnable again; the win was lost by one "
                    f"of moves {last_win + 1}–{first_loss} (the solver could not settle "
                    f"the positions between)."}


def line_view(reading: Reading) -> Optional[list[dict]]:
    """The solver's winning line from the position on the board, step by step (None
    while it is not known, [] when the game is won)."""
    now = reading.settled[-1]
    if reading.game.is_won:
        return []
    if now is None or now.verdict != "win" or now.line is None:
        return None
    game = Game(reading.game.remaining_deal())
    steps = []
    for k, move in enumerate(now.line, start=1):
        steps.append({"n": k, "move": str(move), "sources": list(move.sources),
                      "cards": move_cards(game, move)})
        game.push(move)
    return steps


FAIR_NOTE = ("Uses only the cards the page shows (the pile tops and the reserve) and how many "
             "of each card are still hidden; it never looks under the tops. A share counts the "
             "layouts of the hidden cards, drawn at random, in which the game can still be won "
             "after the move, with its 95 % interval (Wilson). The position and every move are "
             "measured on the same layouts: the position is won in a layout when some move keeps "
             "the win, so no move's share is above the position's, and a move is compared with "
             "the best on the layouts where only one of the two wins (95 % paired interval, "
             "Newcombe's). The recommended move is the move of largest share (ties: the tuned "
             "player's move, else the first): with the app's undo, the advice that needed "
             "the fewest moves to win. The fair player's own move (chosen by its roll-outs) "
             "is shown beside it: without undo it wins more games. The recommendation is "
             "shown, and its move outlined, once settled: at the last stage, or earlier when "
             "every other move is clearly below it; until then the leading move is shown as "
             "provisional.")
RULE = ("the move of largest share; among moves of equal share the tuned player's move, else "
        "the first in the engine's order")


def stop_words(reason: str) -> str:
    """Why a stage of sampled layouts stopped, in the player's words."""
    busy = reason.startswith("time limit")
    return f"the machine is busy (a solve ran past its {reason})" if busy else reason


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}".replace("-", "\u2212")


def fair_view(game: Game, answer: Optional[dict], most: int) -> dict:
    """The fair hint of the position on the board from the fair player's answer (None while
    there is none).  For each legal move the share of sampled layouts in which the game
    stays winnable after it, with its 95 % Wilson interval (``low``, ``high``); when the
    answer is paired (the position and every move on the same layouts, :func:`solver.fair_hint`)
    also ``diff`` (its share minus the best's), ``diff_low``/``diff_high`` (Newcombe's
    paired 95 % interval of it), ``only``/``only_best`` (the discordant layouts),
    ``clearly_below`` (``diff_high`` below 0) and ``tied`` (not clearly below); else
    ``tied`` says whether its Wilson interval reaches the best's.  ``move``/``sources``: the
    recommended move (:data:`RULE`), the one the page highlights; ``fair_move`` the fair
    player's own, ``best`` the move of largest share, ``why`` the rule's reason in words,
    ``position`` the position's share from the same layouts (None when not paired),
    ``gap`` why it is above the best move's when it is well above (:func:`share_gap`);
    ``more`` while better answers are to come.

    A paired answer is ``settled`` at ``most`` layouts or when every other move is clearly
    below the leader; until then it is ``provisional`` (``stopped`` when a limit cut its
    stages: never settled): no ``move`` and no ``sources`` (nothing to outline), the leader
    as ``leaning`` and the move it is not yet clear of as ``rival``."""
    empty = {"sources": [], "moves": [], "samples": 0, "note": FAIR_NOTE, "position": None,
             "fair_move": None, "best": None, "why": None, "rule": RULE, "gap": None,
             "settled": True, "leaning": None, "rival": None}
    if game.is_won:
        return {**empty, "kind": "won", "text": "The game is won.", "more": False}
    if not game.legal_moves:
        return {**empty, "kind": "stuck", "text": "No legal move.", "more": False}
    if answer is None or (not answer.get("moves") and not answer.get("stop")):
        return {**empty, "kind": "pending", "text": "Sampling layouts of the hidden cards…",
                "more": True, "settled": False}
    if not answer.get("moves"):
        return {**empty, "kind": "unknown", "text": f"No fair hint ({answer['stop']}).",
                "more": False}
    from halfmoon.research.intervals import wilson_interval

    n = int(answer["samples"])
    paired = "best" in answer and all("diff_high" in m for m in answer["moves"])
    moves = []
    for m in answer["moves"]:
        move = Move.parse(m["move"])
        keeps = int(m["keeps"])
        k = int(m.get("samples", n))  # a move left out beyond the first layouts: fewer
        low, high = wilson_interval(keeps, k)
        row = {"move": m["move"], "sources": list(move.sources),
               "cards": move_cards(game, move), "keeps": keeps,
               "share": keeps / k if k else 0.0, "low": low, "high": high,
               "unresolved": int(m.get("unresolved", 0)), "samples": k}
        if paired:
            row.update(only=int(m["only"]), only_best=int(m["only_best"]),
                       diff=(int(m["only"]) - int(m["only_best"])) / k if k else 0.0,
                       diff_low=float(m["diff_low"]), diff_high=float(m["diff_high"]),
                       clearly_below=float(m["diff_high"]) < 0)
            row["tied"] = not row["clearly_below"]
        moves.append(row)
    moves.sort(key=lambda m: (-m["share"], m["move"] != answer.get("best")))
    if not paired:
        top_low = moves[0]["low"]
        for m in moves:
            m["tied"] = m["high"] >= top_low
    fair_move = Move.parse(answer["move"])
    shown = Move.parse(answer["recommended"]) if paired and answer.get("recommended") else fair_move
    chosen = next((m for m in moves if m["move"] == str(shown)), None)
    rank = moves.index(chosen) + 1 if chosen is not None else None
    tied = sum(m["tied"] for m in moves)
    more = n < most and not answer.get("stop")
    out = {**empty, "kind": "move", "move": str(shown), "sources": list(shown.sources),
           "moves": moves, "samples": n, "more": more, "fair_move": str(fair_move),
           "best": moves[0]["move"]}
    if not paired:
        text = f"A fair player plays {move_cards(game, fair_move)}"
        if rank is not None and rank > 1:
            close = f", within the {tied} not told apart from the best" if chosen["tied"] else ""
            text += (f" (its own choice by roll-outs; its share is {_ordinal(rank)} of "
                     f"{len(moves)} here{close})")
        return {**out, "text": text}
    wins, open_ = int(answer.get("position_wins", 0)), int(answer.get("position_open", 0))
    plow, phigh = wilson_interval(wins, n)[0], wilson_interval(min(n, wins + open_), n)[1]
    out["position"] = {"share": wins / n if n else 0.0, "low": plow, "high": phigh,
                       "wins": wins, "unresolved": open_, "samples": n}
    out["gap"] = share_gap(out["position"], moves[0], n)
    rival = _rival(moves, str(shown), twins(game, shown))
    if answer.get("stop") and n < most and rival is not None:  # a stage cut: never settled
        said = f"Stopped at {n} of {most} layouts: {stop_words(answer['stop'])}"
        return {**out, "kind": "stopped", "settled": False, "move": None, "sources": [],
                "leaning": str(shown), "rival": rival["move"], "stopped": {"text": said},
                "text": f"Leaning to {move_cards(game, shown)}, not settled: {said}. Not yet "
                        f"clear of {rival['cards']} ({_pts(rival['diff'])} points): take the "
                        "leading move knowing it is not settled."}
    if more and rival is not None:  # not settled: no move outlined, no "Play"
        return {**out, "kind": "provisional", "settled": False, "move": None,
                "leaning": str(shown), "sources": [], "rival": rival["move"],
                "text": f"Leaning to {move_cards(game, shown)}, still counting ({n} of {most} "
                        f"layouts): not yet clear of {rival['cards']} ({_pts(rival['diff'])} "
                        f"points, 95 % paired interval {_pts(rival['diff_low'])} to "
                        f"{_pts(rival['diff_high'])})"}
    fair_row = next(m for m in moves if m["move"] == str(fair_move))
    pct = f"{round(100 * chosen['share'])} % of {n} layouts"
    why = f"the largest share ({pct})"
    equal = sum(m["keeps"] == chosen["keeps"] and m["samples"] == chosen["samples"]
                for m in moves) - 1
    if equal:
        why += (f", tied with {equal} other move{'s' if equal > 1 else ''} (a tie goes to the "
                "tuned player's move, else to the first)")
    if str(shown) == str(fair_move):
        why += "; the fair player's move too"
    else:
        how = "clearly below it" if fair_row.get("clearly_below") else "not told apart from it"
        why += (f"; the fair player's move, {fair_row['cards']}, is {how} "
                f"({_pts(fair_row['diff'])} points, 95 % paired interval "
                f"{_pts(fair_row['diff_low'])} to {_pts(fair_row['diff_high'])})")
    return {**out, "why": why, "text": f"Play {move_cards(game, shown)}: {why}"}


def _rival(moves: list[dict], leader: str, same: frozenset = frozenset()) -> Optional[dict]:
    """The move the leader is not yet clear of: among the others whose paired interval
    against the best reaches 0, the one whose interval reaches highest (None: the leader
    is clear of every other move).  The leader's twins (``same``, :func:`twins`) are not
    rivals: their child is the leader's, so no count can tell them apart."""
    open_ = [m for m in moves if m["move"] != leader and m["move"] not in same
             and not m["clearly_below"]]
    return max(open_, key=lambda m: m["diff_high"], default=None)


def twins(game: Game, move: Move) -> frozenset:
    """The legal moves whose child is ``move``'s up to the reserve: the same piles, and
    reserve cards of the same ranks from other slots (every full slot is playable, so which
    one is empty changes nothing in any layout)."""
    def kind(m: Move) -> tuple:
        piles = tuple(sorted(s for s in m.sources if s[0] == "P"))
        ranks = tuple(sorted(game.deal.reserve[int(s[1:]) - 1].rank
                             for s in m.sources if s[0] == "R"))
        return piles, ranks
    mine = kind(move)
    return frozenset(str(m) for m in game.legal_moves if m != move and kind(m) == mine)


GAP_POINTS = 0.05  # the position's share this far above the best move's is explained


def share_gap(position: dict, best: dict, n: int) -> Optional[dict]:
    """Why the position's share is above the best move's, when it is by
    :data:`GAP_POINTS` or more: the position counts a layout won when any move wins it, so
    the layouts won only by other moves than the best add to it (``layouts`` of them)."""
    only_others = int(position["wins"]) - int(best["keeps"])
    if not n or only_others / n < GAP_POINTS:
        return None
    return {"layouts": only_others, "points": only_others / n,
            "text": f"Why {round(100 * position['share'])} % for the position and "
                    f"{round(100 * best['share'])} % for the best move: in {only_others} of "
                    f"the {n} layouts only other moves win (the position counts a layout "
                    "when any move wins it, and which move wins changes from layout to "
                    "layout)."}


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"
