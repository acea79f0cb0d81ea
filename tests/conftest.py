"""Shared helpers: tiny valid layouts, packed positions, exhaustive search with the
reference engine, positions near the end of a game, and the simple players written plainly."""

from __future__ import annotations

from collections import Counter
from typing import Optional

import pytest

from halfmoon import Deal, Game, Settings, parse_layout
from halfmoon.game.generator import SplitMix64


def make_layout(piles: dict[int, str], reserve: str = "", *, code: Optional[str] = None) -> str:
    """Layout text with all twelve pile lines (missing piles empty) and an R: line.

    ``piles`` maps a pile number to its cards, bottom first (``{8: "Jc 6d"}``);
    ``reserve`` lists up to eight cards or ``--``, padded with ``--`` to eight slots.
    """
    lines = [f"# {code}"] if code else []
    for p in range(1, 13):
        cards = piles.get(p, "").split()
        lines.append(f"P{p}:" + "".join(" " + c for c in cards))
    slots = reserve.split()
    if len(slots) > 8:
        raise ValueError("at most eight reserve slots")
    slots += ["--"] * (8 - len(slots))
    lines.append("R: " + " ".join(slots))
    return "\n".join(lines) + "\n"


def app_view(deal: Deal) -> Deal:
    """The partial deal a player of the app enters for ``deal`` (or a position of one): the
    pile tops and the reserve, every card under a top unknown, the cards removed listed."""
    from halfmoon.game.cards import DOUBLE_DECK, UNKNOWN

    piles = [[UNKNOWN] * (len(p) - 1) + [p[-1]] if p else [] for p in deal.piles]
    removed = Counter(DOUBLE_DECK) - Counter(deal.cards())
    return Deal(piles=piles, reserve=deal.reserve, removed=list(removed.elements()))


def make_game(piles: dict[int, str], reserve: str = "", **kwargs) -> Game:
    """A Game on a tiny position built with :func:`make_layout`."""
    return Game(parse_layout(make_layout(piles, reserve)), **kwargs)


# The rules' worked example: 5♠ on pile 1, 6♦ over J♣ on pile 8, Q♥ on pile 5,
# K♥ on pile 3, and A♥ + 10♣ in the reserve so that every class pairs up.
EXAMPLE_PILES = {1: "5s", 3: "Kh", 5: "Qh", 8: "Jc 6d"}
EXAMPLE_RESERVE = "Ah 10c"


@pytest.fixture
def example_game() -> Game:
    return make_game(EXAMPLE_PILES, EXAMPLE_RESERVE)


@pytest.fixture
def example_game_with_errors() -> Game:
    return make_game(EXAMPLE_PILES, EXAMPLE_RESERVE, settings=Settings(move_errors=True))


def pack(game: Game) -> int:
    """The packed position (solver/mirror/position.py layout) of a game, built by hand:
    4 bits per pile count at bits 4i, full reserve slots at bits 48..55."""
    pos = 0
    for i, n in enumerate(game.counts):
        pos |= n << (4 * i)
    for r, full in enumerate(game.reserve_full):
        if full:
            pos |= 1 << (48 + r)
    return pos


def brute_force(game: Game) -> dict[int, bool]:
    """Every position reachable from the game's position (packed) -> whether it can
    be won, by exhaustive search with the reference engine.  Small positions only."""
    memo: dict[int, bool] = {}

    def win() -> bool:
        pos = pack(game)
        if pos not in memo:
            result = pos == 0
            for move in list(game.legal_moves):
                game.push(move)
                result = win() or result
                game.pop()
            memo[pos] = result
        return memo[pos]

    win()
    return memo


# the classes of the deadlock search (halfmoon.game.cards.CLASS_NAMES), J+Q+K the last
ENGINE_CLASSES = ("A+10", "2+9", "3+8", "4+7", "5+6", "J+Q+K")


def engine_class(card) -> int:
    """The class index of a card (0..4 the pairs, 5 the faces) from the reference engine's
    own card: its face, or the pair its rank and 11 less it make."""
    name = {1: "A+10", 2: "2+9", 3: "3+8", 4: "4+7", 5: "5+6"}
    return 5 if card.is_face else ENGINE_CLASSES.index(name[min(card.rank, 11 - card.rank)])


def engine_projection(deal: Deal, classes) -> Game:
    """The deal with only the cards of ``classes`` (class indices), built by the engine's
    classes: the deadlock search's projections are checked against it."""
    piles = [[c for c in p if engine_class(c) in classes] for p in deal.piles]
    reserve = [c if c is not None and engine_class(c) in classes else None for c in deal.reserve]
    return Game(Deal(piles=piles, reserve=reserve))


def games_near_the_end(seed, off_line_moves, off_line_random):
    """Small positions for exhaustive checks: deals 0-9 followed along a winning line
    until 26 cards are left, and deals 10-15 followed for ``off_line_moves`` moves and
    then ``off_line_random`` random moves (some of those are lost)."""
    import random

    from solver.portfolio.search import solve

    rng = random.Random(seed)
    for number in range(10):
        result = solve(number, budget=200_000)
        game = Game(number)
        for move in result.moves:
            if game.cards_left() <= 26:
                break
            game.play(move)
        yield game
    for number in range(10, 16):
        result = solve(number, budget=200_000)
        game = Game(number)
        for move in result.moves[:off_line_moves]:
            game.play(move)
        for _ in range(off_line_random):
            if game.legal_moves:
                game.push(rng.choice(list(game.legal_moves)))
        yield game


def near_end(number: int, cards: int) -> Game:
    """The game on deal ``number`` after its winning line, stopped with at most
    ``cards`` cards left."""
    from solver.portfolio.search import solve

    result = solve(number, budget=200_000)
    assert result.verdict == "win", number
    game = Game(number)
    for move in result.moves:
        if game.cards_left() <= cards:
            break
        game.play(move)
    return game


# The simple players (solver/players/simple.py), their rules written plainly over the engine.
def naive_random(deal: Deal, seed_state: int) -> list:
    game, rng = Game(deal), SplitMix64(seed_state)
    while game.legal_moves:
        moves = list(game.legal_moves)
        game.play(moves[rng.below(len(moves))])
    return list(game.stack)


def naive_greedy(deal: Deal) -> list:
    game = Game(deal)

    def key(move):
        piles = [int(s[1:]) - 1 for s in move.sources if s.startswith("P")]
        uncovered = sum(1 for i in piles if game.counts[i] >= 2)
        sizes = sum(game.counts[i] for i in piles)
        return (uncovered, not move.is_triplet, sizes)

    while game.legal_moves:
        moves = list(game.legal_moves)  # engine order: ties go to the first
        game.play(max(moves, key=key))
    return list(game.stack)


class Grouping:
    """grouping_search on one deal's arrays."""

    def __init__(self, deal: Deal) -> None:
        from solver.mirror.convert import deal_arrays
        from solver.mirror.position import initial_position

        self.deal = deal
        self.piles, self.reserve = deal_arrays(deal)
        self.root = int(initial_position(self.piles, self.reserve))

    def __call__(self, pos=None, budget=100_000, view=None):
        """(status, conflicts, line) of the grouping search from ``pos`` (the deal's start
        by default), in ``view`` (solver.grouping.model's VIEW_*; by counts through the
        propagator by default)."""
        import numpy as np

        from solver.grouping.model import VIEW_COUNTS, grouping_search
        from solver.mirror.position import MAX_PLY

        view = VIEW_COUNTS if view is None else view

        pos = self.root if pos is None else pos
        line = np.zeros(MAX_PLY, np.uint64)
        info = np.zeros(2, np.int64)
        status = grouping_search(self.piles, self.reserve, np.uint64(pos), budget, line, info, view)
        return status, int(info[0]), [int(line[k]) for k in range(int(info[1]))]

    def replays(self, pos, line) -> bool:
        """The line, played through the engine from ``pos``, wins the game."""
        from solver.mirror.convert import delta_to_move

        game = Game(self.deal)
        for k in range(12):
            game.counts[k] = (pos >> (4 * k)) & 15
        for r in range(8):
            game.reserve_full[r] = bool(pos >> (48 + r) & 1)
        for delta in line:
            game.play(delta_to_move(delta))
        return game.is_won


# Clause sets for the clause-learning search's pieces (solver/grouping/unit_propagation.py,
# solver/grouping/count_clauses.py).
def pos(v):
    """The literal 'variable v is 1'."""
    return 2 * v


def neg(v):
    """The literal 'variable v is 0'."""
    return 2 * v + 1


class Clauses:
    """Clauses over ``nvars`` variables in the layout the grouping model builds: binary
    clauses as implication lists, longer ones watched by their first two literals."""

    def __init__(self, nvars, clauses, deleted=()):
        import numpy as np

        nlits = 2 * nvars
        self.cl_lits = np.array([lit for cl in clauses for lit in cl], np.int64)
        self.cl_start = np.array(np.cumsum([0] + [len(cl) for cl in clauses])[:-1], np.int64)
        self.cl_len = np.array([-len(cl) if i in deleted else len(cl)
                                for i, cl in enumerate(clauses)], np.int64)
        self.whead = np.full(nlits, -1, np.int64)
        self.wnext = np.full(2 * len(clauses), -1, np.int64)
        implied = [[] for _ in range(nlits)]  # per literal made false: (literal made true, clause)
        for i, cl in enumerate(clauses):
            if len(cl) == 2:
                implied[cl[0]].append((cl[1], i))
                implied[cl[1]].append((cl[0], i))
            else:
                for w in range(2):
                    self.wnext[2 * i + w] = self.whead[cl[w]]
                    self.whead[cl[w]] = 2 * i + w
        self.bstart = np.array(np.cumsum([0] + [len(x) for x in implied]), np.int64)
        self.bimp = np.array([q for x in implied for q, _ in x], np.int64)
        self.bcl = np.array([i for x in implied for _, i in x], np.int64)
        self.assign = np.full(nvars, -1, np.int8)
        self.level = np.zeros(nvars, np.int64)
        self.reason = np.full(nvars, -1, np.int64)
        self.trail = np.empty(nvars, np.int64)
        self.tlen = 0

    def decide(self, lit):
        """Put ``lit`` on the trail, true, without a reason."""
        self.assign[lit >> 1] = 1 - (lit & 1)
        self.trail[self.tlen] = lit
        self.tlen += 1

    def propagate(self, qhead=0):
        from solver.grouping.unit_propagation import _propagate

        return _propagate(self.trail, self.tlen, qhead, self.assign, self.level, self.reason,
                          self.whead, self.wnext, self.cl_lits, self.cl_start, self.cl_len, 0,
                          self.bstart, self.bimp, self.bcl)

    def probe(self, first, last):
        from solver.grouping.unit_propagation import _probe

        return _probe(first, last, self.trail, self.tlen, 0, self.assign, self.level,
                      self.reason, self.whead, self.wnext, self.cl_lits, self.cl_start,
                      self.cl_len, self.bstart, self.bimp, self.bcl)


@pytest.fixture(autouse=True)
def _ctrl_c_as_it_was():
    """Each test leaves this process's Ctrl-C as it found it (its handler and whether it is
    blocked): a worker's own setting made in-process would otherwise reach the tests after
    it, and every process they start (a child inherits an ignored or blocked SIGINT), and
    the same test would pass or fail by which tests ran before it."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, []) if hasattr(signal, "pthread_sigmask") \
        else None
    yield
    if signal.getsignal(signal.SIGINT) is not handler:
        signal.signal(signal.SIGINT, handler)
    if mask is not None and signal.pthread_sigmask(signal.SIG_BLOCK, []) != mask:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def pytest_sessionstart(session):
    """Compile the solver's kernels, on a cold cache, in two helper processes at once
    before any test runs (each test would otherwise compile them in this one process)."""
    from solver.build.warmup import SOLVER, compile_in_parallel

    compile_in_parallel(SOLVER + ("players",), processes=2)


# Two small runs of the batch for the tests of what is said of a run's state (stats, report,
# findings and where they write): each test module that asks gets its own.
@pytest.fixture(scope="module")
def unfinished(tmp_path_factory):
    """Deals 0 to 599 in chunks of 200, only the first solved: an interrupted run."""
    from halfmoon.batch import deals_from_range, run_batch

    out = tmp_path_factory.mktemp("state") / "run"
    run_batch(deals_from_range(0, 600), out, chunk_size=200, chunks=range(0, 1), workers=1,
              progress=False)
    return out


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """Deals 600 to 799, solved: a finished run."""
    from halfmoon.batch import deals_from_range, run_batch

    out = tmp_path_factory.mktemp("state") / "done"
    run_batch(deals_from_range(600, 800), out, workers=1, progress=False)
    return out
