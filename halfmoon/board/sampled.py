"""The sampled layouts of a game from the app, kept from one move to the next.

The share and the fair hint of a game from the app (:mod:`halfmoon.board.along_view`) are
read from :data:`SIZE` layouts of the cards not seen yet, each drawn uniformly among the
full deals consistent with everything seen.  A :class:`Sample` keeps those layouts (as
whole deals from the start, one a *slot*) for the whole game, with what was solved of
them: for each position met, the solver's verdict on every legal move's child in each
layout (:func:`halfmoon.board.along_jobs.walk_job`).  So:

- a move keeps every layout (nothing new was seen), and an undo too (a card told stays
  known), with what was solved: back at a position met before, its table is there;
- a card told keeps the layouts that hold a card **of its rank** at its place, and draws
  the others again from what is now known.  Why the kept sample is still right: before
  the card, each slot holds a layout drawn uniformly among those consistent with what was
  seen (K), independently of the others.  Kept where its rank matches, then (if it held
  the other suit's copy there) swapped with a copy of the told card drawn uniformly among
  the unknown places holding one, a slot holds a layout uniform among those consistent
  with K and the told card (each such layout is reached from the same number of layouts
  of K, ``n_r / k``: the rank's unseen copies over the card's); a slot refused is drawn
  afresh from that same set.  Each slot is uniform and independent again, whichever way it
  went: rejection sampling, with a swap that leaves the ranks (all the solver sees) where
  they were, so the kept verdicts still hold;
- a correction (a card entered wrongly) draws every layout again; the jobs planned before
  it are other jobs than those after it (a job sent after it anyway solves each layout's own
  moves) and their answers are dropped (:attr:`Sample.epoch`).

The statistics are those of :func:`solver.fair_hint`, computed here from the table of
slots (:func:`answer_of`): a move's share, the position's (some move's child won), each
move against the best with Newcombe's paired interval, the recommendation; an answer is
published at each stage of :data:`~halfmoon.board.along_view.ALONG_STAGES` once the slots
before it are all solved (the first 16, 64, then 384: the same layouts grow, nothing is
solved twice), so "settled" means what it meant.  Beyond the first :data:`FULL` layouts,
where the moves clearly below the best there (the test that settles a leader) are at least
half of them, only the others are solved, beside the position itself (:func:`contenders`);
a move left out keeps its share of the first layouts, with its own ``samples``.  The fair
player's move (the longest job) is asked first, and the jobs beyond the first layouts are
smaller at the end (:data:`BEYOND`), so that the two processes end together; an answer
replaces the jobs the pool holds only where the plan changes (:meth:`Sample.answered`).

**On the player's time** (once the position's table is whole, or while a pile waits for
its card): the positions after the recommended move and the next ones by share
(:data:`PONDER_MOVES`) are solved in each layout, where the move's child was not proved
lost (then every child of it is lost: nothing to solve).  The layouts kept after the move
then bring their table with them.

Every draw is seeded by what was entered (the first 20 cards), in the order it was told.
"""

from __future__ import annotations

import random
import threading
import zlib
from collections import OrderedDict
from typing import Optional

import numpy as np

from halfmoon.game.engine import Position
from halfmoon.game.moves import Move

from .along import AlongLive
from .along_view import ALONG_BUDGET, ALONG_STAGES, asked_again, keep_answer, position_key
from .pool import Job

SIZE = ALONG_STAGES[-1]  # layouts kept
CHUNK = 32  # layouts a job (after the first FULL and BEYOND)
FULL = ALONG_STAGES[1]  # layouts in which every move is solved; beyond, the contenders only
# layouts a job after the first FULL: smaller at the start and the end (the two processes
# end together)
BEYOND = (16, 32, 32, 32, 32, 32, 32, 32, 32, 24, 16, 8)
PONDER_MOVES = 3  # moves whose positions are solved on the player's time
AHEAD = 4  # layouts a job of those (a move waits for one such on each process at most)
POSITIONS_KEPT = 64  # positions whose tables a sample keeps (some 15 MB at most)
Z95 = 1.959963984540054
LOST: dict = {}  # a position lost in a layout: every child lost, nothing solved


class Sample:
    """The kept layouts of one game from the app (see the module's docstring)."""

    def __init__(self, live: AlongLive, size: int = SIZE) -> None:
        along = live.along
        self.size = size
        self.lock = threading.RLock()
        text = " ".join(str(c) for c in along.entered)
        self.rng = random.Random(zlib.crc32(text.encode()))
        self.facts: dict[tuple[int, int], object] = {}
        self.reserve = tuple(along.reserve)
        self.layouts: list[list[list[int]]] = [[] for _ in range(size)]
        self.gen = [0] * size  # a slot's draw: an answer about an earlier one is dropped
        self.tables: OrderedDict[Position, list] = OrderedDict()
        self.moves: dict[Position, tuple] = {}  # position -> (fair player's, tuned player's)
        # position -> the moves not clearly below the best on its first FULL layouts, the
        # only ones solved beyond them (None: too many to leave any out, every move)
        self.contenders: dict[Position, Optional[tuple]] = {}
        self.kept = self.drawn = 0  # slots kept and drawn again by the last card told
        # corrections met (each draws every slot again): a job planned before one is not
        # the same job after it, and its answer is dropped
        self.epoch = 0
        self.failed: set[Position] = set()  # positions pondered whose job failed: not again
        self._draw(range(size), self._facts(along))

    # --- the layouts ----------------------------------------------------------------
    @staticmethod
    def _facts(along) -> dict:
        return {(i, d): c for i, pile in enumerate(along.known) for d, c in enumerate(pile)
                if c is not None}

    def _draw(self, slots, facts: dict) -> None:
        """Slots drawn afresh, uniformly among the deals consistent with ``facts``."""
        slots = list(slots)
        unknown = [(i, d) for i in range(12) for d in range(8) if (i, d) not in facts]
        deck = [c.index for c in sorted(_unseen(facts, self.reserve))]
        template = [[-1] * 8 for _ in range(12)]
        for (i, d), c in facts.items():
            template[i][d] = c.index
        shuffle = self.rng.shuffle
        for s in slots:
            cards = list(deck)
            shuffle(cards)
            piles = [list(row) for row in template]
            for (i, d), c in zip(unknown, cards):
                piles[i][d] = c
            self.layouts[s] = piles
            self.gen[s] += 1
        early = any(s < FULL for s in slots)
        for at, table in self.tables.items():
            if early and self.contenders.pop(at, None) is not None:
                for k in range(FULL, self.size):  # solved for those contenders only
                    if table[k] is not None and table[k] is not LOST \
                            and not _whole(table[k], table):
                        table[k] = None
            for s in slots:
                table[s] = None
        self.facts = dict(facts)

    def reconcile(self, live: AlongLive) -> None:
        """The layouts made consistent with what is known now (see the module's docstring)."""
        along = live.along
        facts = self._facts(along)
        if tuple(along.reserve) != self.reserve or any(
                facts.get(p) != c for p, c in self.facts.items()):  # a correction
            self.reserve = tuple(along.reserve)
            self.epoch += 1
            self.tables.clear()
            self.moves.clear()
            self.contenders.clear()
            self._draw(range(self.size), facts)
            return
        new = [(p, c) for p, c in facts.items() if p not in self.facts]
        if not new:
            return
        known = set(self.facts)
        refused = []
        for s in range(self.size):
            piles, seen = self.layouts[s], set(known)
            for (i, d), card in new:
                seen.add((i, d))
                here = piles[i][d]
                if here == card.index:
                    continue
                if here % 13 != card.index % 13:  # another rank: refused
                    refused.append(s)
                    break
                copies = [(a, b) for a in range(12) for b in range(8)
                          if (a, b) not in seen and piles[a][b] == card.index]
                a, b = copies[self.rng.randrange(len(copies))]
                piles[a][b], piles[i][d] = here, card.index
        self.kept, self.drawn = self.size - len(refused), len(refused)
        self._draw(refused, facts)

    def position_cards(self, s: int, at: Position) -> list:
        """Slot ``s``'s layout at position ``at``, as a walk job takes it."""
        counts, full = at.counts, at.reserve
        piles = [self.layouts[s][i][:n] for i, n in enumerate(counts)]
        return [piles, [c.index if f else -1 for c, f in zip(self.reserve, full)]]

    def table(self, at: Position) -> list:
        table = self.tables.get(at)
        if table is None:
            table = self.tables[at] = [None] * self.size
            while len(self.tables) > POSITIONS_KEPT:
                self.tables.popitem(last=False)
        self.tables.move_to_end(at)
        return table

    def record(self, at: Position, slots: list, verdicts: list) -> bool:
        """A walk job's answer on ``slots`` (each ``(slot, draw)``) at ``at``; False when
        some slot was drawn again meanwhile (its answer dropped)."""
        table = self.table(at)
        kept = True
        for (s, g), v in zip(slots, verdicts):
            if self.gen[s] == g:
                table[s] = v if v else LOST
            else:
                kept = False
        return kept

    # --- the jobs -------------------------------------------------------------------
    def jobs(self, live: AlongLive, answers: dict, game_id: str) -> list[Job]:
        """The jobs this game wants now, the answers already at hand published."""
        self.reconcile(live)
        game, along = live.game, live.along
        here = game.position
        if along.waiting:  # the card is being told: its position, in every layout
            return self._walks(game_id, here, range(self.size), None, ahead=True)
        if along.is_over or not game.legal_moves:
            return []
        moves = [str(m) for m in game.legal_moves]
        key = position_key(live)
        have = answers.get(key)
        if have and have.get("stop") and not asked_again(live, have):
            return []  # stopped by a limit, tried again as often as the board tries
        self.publish(live, answers)
        table = self.table(here)
        todo = [s for s in range(self.size) if table[s] is None]
        out = []
        if here not in self.moves:
            out.append(self._moves_job(game_id, live))
        if todo:
            first = self._walks(game_id, here, [s for s in todo if s < FULL], moves)
            if here not in self.contenders and all(v is not None for v in table[:FULL]) \
                    and here in self.moves:  # few contenders: theirs only, else every move's
                kept = contenders(table[:FULL], moves, *self.moves[here])
                self.contenders[here] = kept if 2 * len(kept) <= len(moves) else None
            if here in self.contenders:
                first += self._walks(game_id, here, [s for s in todo if s >= FULL], moves,
                                     self.contenders[here])
            return out + first  # the fair player's move first: the longest job
        return out + self._ponder(game_id, live, table, moves)

    def _moves_job(self, game_id: str, live: AlongLive) -> Job:
        layout, known = position_key(live)[1:]
        here = live.game.position
        seed = zlib.crc32(layout.encode())
        work = ("moves", layout, seed, ALONG_BUDGET, [list(p) for p in known])
        return Job(("sample", game_id, id(self), here, "moves", self.epoch), work,
                   ("sample", game_id, here, "moves", self.epoch))

    def _walks(self, game_id: str, at: Position, slots, moves: Optional[list],
               only: Optional[tuple] = None, ahead: bool = False) -> list[Job]:
        """Jobs solving ``at`` in the ``slots`` not solved yet (every move's child, or those
        of ``only``), by blocks (:func:`block`, or :data:`AHEAD` slots a job for a position
        solved ``ahead`` of the player: a move then waits at most for one such job on
        each process; the same blocks at each plan, so a job running is not asked twice)."""
        if at in self.failed:
            return []
        table = self.table(at)
        blocks: dict[int, list] = {}
        for s in slots:
            if table[s] is None:
                blocks.setdefault(s // AHEAD if ahead else block(s), []).append(s)
        out = []
        for part in map(tuple, blocks.values()):
            holder: list = []
            out.append(Job(("sample", game_id, id(self), at, part, self.epoch),
                           self._work(at, part, moves, holder, only),
                           ("sample", game_id, at, holder, self.epoch)))
        return out

    def _work(self, at: Position, part: tuple, moves: Optional[list], holder: list,
              only: Optional[tuple]):
        epoch = self.epoch

        def work() -> tuple:  # made when sent: the slots' draws as they are then
            with self.lock:
                if self.epoch != epoch:  # cards corrected since the plan: its answer will
                    return ("walk", [], None, ALONG_BUDGET)  # be dropped, so nothing to do
                holder[:] = [(s, self.gen[s]) for s in part]
                layouts = [self.position_cards(s, at) for s in part]
            if only is None:
                return ("walk", layouts, moves, ALONG_BUDGET)
            return ("walk", layouts, moves, ALONG_BUDGET, list(only))
        return work

    def _ponder(self, game_id: str, live: AlongLive, table: list, moves: list) -> list[Job]:
        """The positions after the recommended move and the next by share, in each layout
        where the move's child was not proved lost."""
        game = live.game
        keeps = [sum(1 for v in table if v is not LOST and v.get(m) == "w") for m in moves]
        fair = self.moves.get(game.position, (None,))[0]  # the recommended move first
        order = sorted(range(len(moves)), key=lambda j: (moves[j] != fair, -keeps[j]))
        order = order[:PONDER_MOVES]
        out, firsts = [], []
        for j in order:
            move = Move.parse(moves[j])
            after = _after(game.position, move)
            target = self.table(after)
            for s, v in enumerate(table):
                if target[s] is None and (v is LOST or v.get(moves[j]) == "l"):
                    target[s] = LOST
            if after not in self.moves and _reveals_nothing(live.along, game.position, move):
                # the player's selection and undo count outlive the look ahead (a push and
                # a pop clear the one and may lower the other)
                kept = list(game.selection), game._undoable
                game.push(move)  # the same tops in every layout: its moves job too
                try:
                    if position_key(live) is not None:  # not a move that ends the game
                        firsts.append(self._moves_job(game_id, live))
                finally:
                    game.pop()
                    game._selection, game._undoable = kept
            out += self._walks(game_id, after, range(self.size), None, ahead=True)
        return firsts + out

    # --- the answers ----------------------------------------------------------------
    def publish(self, live: AlongLive, answers: dict) -> None:
        """The largest stage whose slots are all solved, as the answer on the position now
        on the board (kept if it has more layouts than the one kept)."""
        game = live.game
        here = game.position
        if live.along.waiting or here not in self.moves or here not in self.tables:
            return
        key = position_key(live)
        if key is None:
            return
        table = self.tables[here]
        done = table.index(None) if None in table else self.size  # (rows are dicts)
        stages = [n for n in ALONG_STAGES if n <= done]
        have = answers.get(key)
        if not stages or (have and have.get("samples", 0) >= stages[-1]):
            return
        moves = [str(m) for m in game.legal_moves]
        fair, tuned = self.moves[here]
        keep_answer(answers, key, answer_of(table[:stages[-1]], moves, fair, tuned,
                                            self.contenders.get(here)))

    def answered(self, live: AlongLive, answers: dict, at: Position, what, answer: dict,
                 epoch: Optional[int] = None) -> bool:
        """A job's answer on position ``at``: ``what`` is ``"moves"`` or the slots it
        solved.  A job that failed or overran its time stops the stages of the position on
        the board there (:func:`~halfmoon.board.along_view.keep_answer` keeps why), and a
        position pondered is not asked again.  Returns whether the game's jobs may change
        (else the jobs still waiting are the plan): a failure, an answer dropped, or on the
        position on the board its fair player's move, its first :data:`FULL` layouts
        solved (then its contenders) or all of them (then the look ahead)."""
        if epoch is not None and epoch != self.epoch:
            return True  # planned before a correction: about cards no longer told so
        ok = ("fair" in answer) if what == "moves" else ("verdicts" in answer)
        if not ok:
            if at != live.game.position or live.along.waiting:
                self.failed.add(at)
                return True
            key = position_key(live)
            if key is not None:
                keep_answer(answers, key, answer)
            return True
        if what == "moves":
            self.moves[at] = (answer["fair"], answer["tuned"])
        elif not self.record(at, what, answer["verdicts"]):
            return True
        self.publish(live, answers)
        if at != live.game.position or live.along.waiting:
            return False
        table = self.tables.get(at)
        return what == "moves" or table is None or all(v is not None for v in table) or (
            at not in self.contenders and all(v is not None for v in table[:FULL]))


def block(s: int) -> int:
    """The job of slot ``s``: 16 slots a job up to :data:`FULL`, then as :data:`BEYOND`
    says, then :data:`CHUNK`."""
    if s < FULL:
        return s // 16
    k, start = FULL // 16, FULL
    for n in BEYOND:
        if s < start + n:
            return k
        k, start = k + 1, start + n
    return k + (s - start) // CHUNK


def answer_of(rows: list, moves: list[str], fair: Optional[str], tuned: Optional[str],
              kept: Optional[tuple] = None) -> dict:
    """The answer :func:`halfmoon.board.along_view.along_opinion` reads (the fields of
    :func:`halfmoon.research.fairplay.fair_hint` and the position's share) from the verdicts
    of each layout (a row: move -> ``w``/``l``/``u``, ``"*"`` the position's own, or
    :data:`LOST`).  ``kept``: the contenders, the only moves solved beyond the first
    :data:`FULL` rows; every other move is counted on those rows (its ``samples``) and
    compared with the best there."""
    n, m = len(rows), len(moves)
    won = np.array([[r is not LOST and r.get(mv) == "w" for mv in moves] for r in rows], bool)
    open_ = np.array([[r is not LOST and r.get(mv) == "u" for mv in moves] for r in rows], bool)
    won, open_ = won.reshape(n, m), open_.reshape(n, m)
    own = np.array([r is not LOST and r.get("*") == "w" for r in rows], bool)
    own_open = np.array([r is not LOST and r.get("*") == "u" for r in rows], bool)
    size = [n if kept is None or n <= FULL or mv in kept else FULL for mv in moves]
    keeps = [int(won[:size[j], j].sum()) for j in range(m)]
    base = moves.index(tuned) if tuned in moves else 0
    if size[base] < n:
        base = next(j for j in range(m) if size[j] == n)
    best = base
    for j in range(m):  # most keeps, ties to the tuned player's move (as the solver's)
        if size[j] == n and keeps[j] > keeps[best]:
            best = j
    out = []
    for j in range(m):
        k = size[j]
        both = int((won[:k, j] & won[:k, best]).sum())
        only, only_best = keeps[j] - both, int(won[:k, best].sum()) - both
        low, high = paired_bounds(both, only, only_best, k - both - only - only_best)
        row = {"move": moves[j], "keeps": keeps[j], "unresolved": int(open_[:k, j].sum()),
               "only": only, "only_best": only_best, "diff_low": low, "diff_high": high}
        if k < n:
            row["samples"] = k
        out.append(row)
    any_won = won.any(axis=1) | own
    wins = int(any_won.sum())
    unsettled = int((~any_won & (open_.any(axis=1) | own_open)).sum())
    return {"samples": n, "wins": wins, "unresolved": unsettled, "move": fair or moves[best],
            "position_wins": wins, "position_open": unsettled, "best": moves[best],
            "recommended": moves[best], "moves": out}


def contenders(rows: list, moves: list[str], fair: Optional[str], tuned: Optional[str]) -> tuple:
    """The moves not clearly below the best on ``rows`` (the first :data:`FULL` layouts,
    every move solved): the only ones solved in the layouts beyond."""
    answer = answer_of(rows, moves, fair, tuned)
    return tuple(m["move"] for m in answer["moves"] if m["diff_high"] >= 0)


def _whole(row: dict, table: list) -> bool:
    """Whether ``row`` holds every move's verdict that the table's full rows hold."""
    full = next((r for r in table[:FULL] if r is not None and r is not LOST), None)
    return full is None or all(k in row for k in full)


def paired_bounds(both: int, only_a: int, only_b: int, neither: int,
                  z: float = Z95) -> tuple[float, float]:
    """Newcombe's interval (method 10) of a's share minus b's over the same layouts, as
    the solver's fair hint computes it: (low, high)."""
    n = both + only_a + only_b + neither
    if n == 0:
        return -1.0, 1.0
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = _wilson(both + only_a, n, z)
    l2, u2 = _wilson(both + only_b, n, z)
    margins = float(both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    cross = float(both * neither - only_a * only_b)
    cross = cross - n / 2 if cross > n / 2 else (0.0 if cross > 0 else cross)
    phi = cross / margins ** 0.5 if margins > 0 else 0.0
    d = p1 - p2
    low = d - max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2) ** 0.5
    high = d + max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2) ** 0.5
    return max(-1.0, low), min(1.0, high)


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    p = k / n
    d = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / d
    return max(0.0, centre - half), min(1.0, centre + half)


def _unseen(facts: dict, reserve) -> list:
    from .along import DECK

    seen = DECK.copy()
    seen.subtract(list(facts.values()) + list(reserve))
    return list(seen.elements())


def _reveals_nothing(along, at: Position, move: Move) -> bool:
    """Whether ``move`` from ``at`` uncovers only cards known (or empties its piles)."""
    for source in move.sources:
        if source[0] == "P":
            i = int(source[1:]) - 1
            if at.counts[i] > 1 and along.known[i][at.counts[i] - 2] is None:
                return False
    return True


def _after(at: Position, move: Move) -> Position:
    counts, full = list(at.counts), list(at.reserve)
    for source in move.sources:
        if source[0] == "P":
            counts[int(source[1:]) - 1] -= 1
        else:
            full[int(source[1:]) - 1] = False
    return Position(tuple(counts), tuple(full))
