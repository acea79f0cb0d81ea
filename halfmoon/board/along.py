"""A game from the app, played along: the 20 cards the app shows (the 12 pile tops, then the
8 reserve cards) are entered, and each card under a top is told when a move uncovers it.

:class:`AlongGame` keeps what has been seen (each place of the deal holds a known card or
is unknown) and plays on the reference engine with a *stand-in* deal: the known cards in
their places, the cards not seen yet (the double deck less the cards seen) laid sorted in
the unknown places.  The stand-in's unknown places are never shown and never played: a
move that uncovers one leaves its pile *waiting*, and the game takes no tap until the
card that appeared is told (:meth:`AlongGame.reveal`) or the move is undone.  A card told
stays known after an undo, as it does to a player of the app who undid the move that
uncovered it: it is the card of that place of the deal, so a move that uncovers the place
again shows it and asks for nothing, and the sampled layouts keep it there
(:meth:`AlongGame.known_under`).  Since the stand-in's unknown places hold the unseen cards
sorted, what is sent to the solver from it depends only on what was entered.

A card entered or told wrongly is corrected in its place (:meth:`AlongGame.correct`)
while it is on the table: a pile's top, a card under a top (told, then covered again by
an undo) or a reserve card.  The moves made stay (none of them removed it), the stand-in
is made again from the corrected knowledge.  A card already removed by a move is not
corrected: the moves that removed it are to be undone first.

Checked: no card is entered more than twice in all (a double deck has two of each), a
reveal only on a waiting pile, a correction only of a card seen and still on the table;
every error names the card or the place and why.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Optional

from halfmoon.game.cards import Card, parse_card
from halfmoon.game.deal import PILE_DEPTH, PILE_SOURCES, PILES, RESERVE_SLOTS, RESERVE_SOURCES, Deal
from halfmoon.game.engine import Game, Settings
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import Move

from .games import LiveGame

SHOWN = PILES + RESERVE_SLOTS  # the cards the app shows at the start: 20
DECK = Counter({Card(rank, suit): 2 for rank in range(1, 14) for suit in range(4)})
ORDER = "P1-P12 (the pile tops), then R1-R8 (the reserve)"
# the picker's order: by suit as the app's cards are read, then by rank
ALL_CARDS = tuple(Card(rank, suit) for suit in range(4) for rank in range(1, 14))
# a place of the table: a pile's top (P7), a pile's card by depth (P7.5: 0 the bottom, 7
# the top the app first showed), a reserve slot (R3)
PLACE = re.compile(r"^(?:P(\d{1,2})(?:\.(\d))?|R(\d))$")
PLACES = ("P1-P12 for a pile's top, P1.0-P12.7 for a pile's card by depth (0 the bottom, 7 "
          "the top the app first showed) or R1-R8")


class AlongError(HalfMoonError):
    """What was entered cannot be (a third copy of a card, a reveal on a pile that is not
    waiting, a tap while a pile waits): the message names the card or the pile."""


def read_cards(text: str) -> list[Card]:
    """Cards typed for speed: ``5S 6D 10h …`` (spaces or commas between), at most 20."""
    cards, typing = read_entry(text)
    if typing is not None:
        k = len(cards)
        raise AlongError(f"card {k + 1} ({_place_name(k)}): {typing!r} is not finished: a "
                         "rank and a suit, such as 10H")
    return cards


def read_entry(text: str) -> tuple[list[Card], Optional[str]]:
    """The cards typed so far, and the card being typed at the end of ``text`` (no
    separator after it yet: ``1`` of ``10``, a rank before its suit) or None: a card begun
    is not an error while it is being typed."""
    cards, typing, problem, _ = scan_entry(text, copies=False)
    if problem:
        raise AlongError(problem)
    return cards, typing


def scan_entry(text: str, copies: bool = True
               ) -> tuple[list[Card], Optional[str], Optional[str], int]:
    """``text`` read card by card up to its first problem: the cards read before it (at
    most 20), the card being typed at the end (None, or when there is a problem), the
    problem in words (a word that is not a card, more than 20 cards, with ``copies`` a
    third copy of a card) or None, and the number of words typed."""
    if not isinstance(text, str):
        raise AlongError("the cards must be text such as '5S 6D 10H'")
    words = [w for w in re.split(r"[\s,;]+", text.strip()) if w]
    typed = len(words)
    typing = None
    if words and not re.search(r"[\s,;]$", text) and _begins_a_card(words[-1]):
        typing = words.pop()
    cards: list[Card] = []
    problem = None
    for k, word in enumerate(words):
        if k == SHOWN:
            break
        if _begins_a_card(word):
            problem = (f"card {k + 1} ({_place_name(k)}): {word!r} has no suit "
                       "(a rank and a suit, such as 10H)")
            break
        try:
            card = parse_card(word)
        except HalfMoonError as exc:
            problem = f"card {k + 1} ({_place_name(k)}): {exc}"
            break
        problem = entry_problem(cards + [card]) if copies else None
        if problem:
            break
        cards.append(card)
    if problem is None and typed > SHOWN:
        problem = f"{typed} cards typed: the app shows {SHOWN}, {ORDER}"
    return cards, None if problem else typing, problem, typed


def _begins_a_card(word: str) -> bool:
    """Whether ``word`` is the start of a card but not yet one: a rank (``10``, ``Q``)
    or the ``1`` of ``10``."""
    def reads(text: str) -> bool:
        try:
            parse_card(text)
        except HalfMoonError:
            return False
        return True

    return not reads(word) and any(reads(word + tail) for tail in ("s", "0s"))


def _place_name(k: int) -> str:
    return PILE_SOURCES[k] if k < PILES else f"R{k - PILES + 1}"


def entry_problem(cards: list[Card]) -> Optional[str]:
    """Why these cards, entered in the order of :data:`ORDER`, cannot be the app's (a third
    copy of a card), or None."""
    seen: Counter = Counter()
    for k, card in enumerate(cards):
        seen[card] += 1
        if seen[card] > 2:
            first = [_place_name(j) for j, c in enumerate(cards[:k]) if c == card]
            return (f"a third {card.symbol()} at {_place_name(k)}: both copies are already "
                    f"entered ({', '.join(first)}), a double deck has only two")
    return None


def possible_cards(seen: Counter) -> list[str]:
    """The cards that may still appear (fewer than two seen), in the picker's order."""
    return [str(c) for c in ALL_CARDS if seen[c] < 2]


def empty_places(count: int) -> str:
    """The places still empty when ``count`` cards are entered, in words: ``R8``,
    ``R4 to R8``."""
    first, last = _place_name(count), _place_name(SHOWN - 1)
    return first if count == SHOWN - 1 else f"{first} to {last}"


def entry_check(text: str) -> dict:
    """The cards typed so far, checked: the count, the place of the next one (None when all
    20 are in), the card being typed there (``typing``, or None), the places still empty in
    words (``empty``), the cards still possible and the words typed (``typed``).  A card
    that is not one, a third copy or more than 20 cards: :class:`EntryError` naming it,
    with the same answer for the cards read before it (what the screen keeps)."""
    cards, typing, problem, typed = scan_entry(text)
    entry = {"count": len(cards), "cards": [str(c) for c in cards],
             "next": _place_name(len(cards)) if len(cards) < SHOWN else None,
             "typing": typing,
             "empty": empty_places(len(cards)) if len(cards) < SHOWN else None,
             "possible": possible_cards(Counter(cards)), "typed": typed}
    if problem:
        raise EntryError(problem, entry)
    return entry


class EntryError(AlongError):
    """The cards typed cannot be read past a card: ``entry`` is the check of those before
    it (:func:`entry_check`), what the entry screen shows."""

    def __init__(self, message: str, entry: dict) -> None:
        super().__init__(message)
        self.entry = entry


class AlongGame:
    """A game from the app on the reference engine (see the module's docstring)."""

    def __init__(self, cards: list[Card], settings: Settings = Settings()) -> None:
        problem = entry_problem(cards)
        if problem:
            raise AlongError(problem)
        if len(cards) < SHOWN:
            empty = empty_places(len(cards))
            raise AlongError(f"{len(cards)} cards entered: {empty} "
                             f"{'is' if ' ' not in empty else 'are'} empty (the app shows "
                             f"{SHOWN}, {ORDER})")
        if len(cards) > SHOWN:
            raise AlongError(f"{len(cards)} cards entered: the app shows {SHOWN}, {ORDER}")
        # known[i][d]: the card at depth d (0 = bottom) of pile i, None while not seen
        self.known: list[list[Optional[Card]]] = [
            [None] * (PILE_DEPTH - 1) + [cards[i]] for i in range(PILES)]
        self.reserve: tuple[Card, ...] = tuple(cards[PILES:])
        self.entered: tuple[Card, ...] = tuple(cards)  # as first entered, before corrections
        self.reveals: list[tuple[int, int, int]] = []  # (ply, pile, depth) in order told
        # (ply, place, card before, card after) in order corrected
        self.corrections: list[tuple[int, str, Card, Card]] = []
        self.game = Game(self._stand_in(), settings=settings)

    # --- what is known --------------------------------------------------------------
    def seen(self) -> Counter:
        """Every card seen: the known places of the piles and the reserve (on the table or
        removed since)."""
        out = Counter(c for pile in self.known for c in pile if c is not None)
        out.update(self.reserve)
        return out

    def unseen(self) -> Counter:
        return DECK - self.seen()

    def where(self, card: Card) -> list[str]:
        """Where the seen copies of ``card`` are: ``P3``, ``R2``, ``removed`` or ``under P3's
        top`` (told, then covered again by an undo)."""
        out = []
        for i, pile in enumerate(self.known):
            for d, c in enumerate(pile):
                if c == card:
                    n = self.game.counts[i]
                    out.append("removed" if d >= n else PILE_SOURCES[i] if d == n - 1
                               else f"under {PILE_SOURCES[i]}'s top")
        for r, c in enumerate(self.reserve):
            if c == card:
                out.append(f"R{r + 1}" if self.game.reserve_full[r] else "removed")
        return out

    @property
    def waiting(self) -> list[str]:
        """The piles whose top is not known yet: each waits for the card that appeared."""
        return [PILE_SOURCES[i] for i, n in enumerate(self.game.counts)
                if n and self.known[i][n - 1] is None]

    def possible(self) -> list[str]:
        """The cards that may appear under a top (fewer than two seen)."""
        return possible_cards(self.seen())

    def start_deal(self) -> Deal:
        """The deal as known by now: what was seen in its places, the unseen cards sorted in
        the unknown places (:meth:`unknown_places` says which)."""
        return self._stand_in()

    def unknown_places(self) -> list[tuple[int, int]]:
        """(pile, depth) of every place whose card has not been seen."""
        return [(i, d) for i, pile in enumerate(self.known) for d, c in enumerate(pile)
                if c is None]

    def known_under(self) -> list[tuple[int, int]]:
        """(pile, depth) of the places under the tops now whose card is known: told when a
        move uncovered it, then covered again by an undo."""
        return [(i, d) for i, n in enumerate(self.game.counts) for d in range(max(n - 1, 0))
                if self.known[i][d] is not None]

    def _restand(self) -> None:
        """The engine's game on the stand-in deal as now known (same moves, same cards
        where they were played)."""
        deal = self._stand_in()
        self.game.deal = deal
        if hasattr(self.game, "known"):  # the engine's piles as known, when it keeps them
            self.game.known = [list(p) for p in deal.piles]

    def _stand_in(self) -> Deal:
        fill = iter(sorted(self.unseen().elements()))
        piles = [[c if c is not None else next(fill) for c in pile] for pile in self.known]
        return Deal(piles=piles, reserve=self.reserve)

    # --- playing ----------------------------------------------------------------------
    def check_playable(self) -> None:
        waiting = self.waiting
        if waiting:
            raise AlongError(f"{' and '.join(waiting)} {'waits' if len(waiting) == 1 else 'wait'} "
                             "for the card that appeared: enter it first (or undo)")

    def tap(self, source: str):
        self.check_playable()
        return self.game.tap(source)

    def reveal(self, pile: str, card: str) -> Card:
        """Tell the card that appeared on a waiting pile; :class:`AlongError` naming the pile
        or the card when it cannot be."""
        name = pile.strip().upper() if isinstance(pile, str) else ""
        if name not in PILE_SOURCES:
            raise AlongError(f"unknown pile {str(pile)[:20]!r} (expected P1-P12)")
        i = PILE_SOURCES.index(name)
        n = self.game.counts[i]
        if name not in self.waiting:
            why = "it is empty" if n == 0 else f"its top, {self.known[i][n - 1].symbol()}, is known"
            raise AlongError(f"{name} is not waiting for a card: {why}")
        try:
            told = parse_card(card)
        except HalfMoonError as exc:
            raise AlongError(f"{name}: {exc}") from None
        if self.seen()[told] >= 2:
            raise AlongError(f"a third {told.symbol()}: both copies are already on the table or "
                             f"removed ({', '.join(self.where(told))}), a double deck has only two")
        self.known[i][n - 1] = told
        self.reveals.append((len(self.game.stack), i, n - 1))
        self._restand()
        return told

    # --- correcting a card entered or told ------------------------------------------
    def correctable(self) -> list[dict]:
        """The cards that can be corrected: every card seen that is still on the table (the
        piles' tops, the cards known under them, the reserve), each with its place (as
        :meth:`correct` takes it), its card, the place in words and whether it was told (or
        entered: one of the 20 the app showed first)."""
        out = []
        for i, n in enumerate(self.game.counts):
            for d in range(n - 1, -1, -1):
                card = self.known[i][d]
                if card is not None:
                    out.append({"place": f"{PILE_SOURCES[i]}.{d}", "card": str(card),
                                "symbol": card.symbol(), "words": self._words(i, d),
                                "told": d < PILE_DEPTH - 1})
        for r, card in enumerate(self.reserve):
            if self.game.reserve_full[r]:
                out.append({"place": f"R{r + 1}", "card": str(card), "symbol": card.symbol(),
                            "words": f"R{r + 1}", "told": False})
        return out

    def refused(self) -> dict[str, str]:
        """Why the places of the table that hold no card to correct cannot be corrected (an
        empty pile or slot: which move removed its card; a pile waiting for its card), by
        source: what the page says when one is tapped to be corrected."""
        out = {}
        for source in PILE_SOURCES + RESERVE_SOURCES:
            try:
                self._place(source)
            except AlongError as exc:
                out[source] = str(exc)
        return out

    def correct(self, place: str, card: str) -> tuple[Card, Card]:
        """Correct the card seen at ``place`` (a pile's top ``P7``, a pile's card by depth
        ``P7.5``, a reserve slot ``R3``) to ``card``: the moves made stay, the stand-in is
        made again.  Returns (the card before, the card now); :class:`AlongError` naming the
        place or the card when it cannot be (a place not seen yet, a card removed by a
        move, a third copy)."""
        i, d, name = self._place(place)
        before = self.known[i][d] if i is not None else self.reserve[d]
        try:
            told = parse_card(card)
        except HalfMoonError as exc:
            raise AlongError(f"{name}: {exc}") from None
        if told == before:
            raise AlongError(f"{name} is already {told.symbol()}: nothing to correct")
        if self.seen()[told] >= 2:
            raise AlongError(f"a third {told.symbol()}: both copies are already on the table or "
                             f"removed ({', '.join(self.where(told))}), a double deck has only two")
        for source in reversed(self.game.selection):  # a card changes: nothing stays selected
            self.game.tap(source)
        if i is not None:
            self.known[i][d] = told
        else:
            reserve = list(self.reserve)
            reserve[d] = told
            self.reserve = tuple(reserve)
        self.corrections.append((len(self.game.stack), name, before, told))
        self._restand()
        return before, told

    def _place(self, place: str) -> tuple[Optional[int], int, str]:
        """(pile index, depth, name) of a pile's card, or (None, slot, name) of a reserve
        card, seen and on the table; :class:`AlongError` saying why not."""
        text = place.strip().upper() if isinstance(place, str) else ""
        m = PLACE.match(text)
        if not m or (m[1] and not 1 <= int(m[1]) <= PILES) or (m[3] and not 1 <= int(m[3]) <= 8) \
                or (m[2] and int(m[2]) >= PILE_DEPTH):
            raise AlongError(f"unknown place {str(place)[:20]!r}: expected {PLACES}")
        if m[3]:
            r = int(m[3]) - 1
            if not self.game.reserve_full[r]:
                raise AlongError(self._removed(f"R{r + 1}", self.reserve[r], f"R{r + 1}", 1))
            return None, r, text
        i = int(m[1]) - 1
        pile, n = PILE_SOURCES[i], self.game.counts[i]
        if m[2] is None:
            if n == 0:
                raise AlongError(self._removed(pile, self.known[i][0], pile, PILE_DEPTH,
                                               "is empty: its last card"))
            d = n - 1
        else:
            d = int(m[2])
        name = pile if d == n - 1 else f"{pile}.{d}"
        if d >= n:
            raise AlongError(self._removed(name, self.known[i][d], pile, PILE_DEPTH - d))
        if self.known[i][d] is None:
            if d == n - 1:
                raise AlongError(f"{pile} waits for the card that appeared: tell it (there is "
                                 "nothing to correct yet)")
            raise AlongError(f"{name} ({self._words(i, d)}) has not been seen: only a card "
                             "entered or told can be corrected")
        return i, d, name

    def _removed(self, name: str, card: Card, source: str, k: int, says: str = "") -> str:
        """Why the card at ``name`` cannot be corrected: the ``k``-th move from ``source``
        removed it; undo back to before that move first."""
        plies = [n for n, move in enumerate(self.game.stack, start=1) if source in move.sources]
        ply = plies[k - 1]
        undo = len(self.game.stack) - ply + 1
        what = f"{name} {says}, {card.symbol()}," if says else f"{card.symbol()} at {name}"
        return (f"{what} was removed by move {ply}: undo {undo} move{'s' if undo != 1 else ''} "
                f"(back to before move {ply}) first, then correct it")

    def _words(self, i: int, d: int) -> str:
        """A pile's place in words: ``P7`` (its top), ``P7, 2nd card from the top``."""
        k = self.game.counts[i] - d
        if k <= 1:
            return PILE_SOURCES[i]
        nth = f"{k}{ {2: 'nd', 3: 'rd'}.get(k, 'th') }"
        return f"{PILE_SOURCES[i]}, {nth} card from the top"

    def undo(self) -> Optional[Move]:
        """Undo the last move; the cards told since stay known (the app's player saw them)."""
        return self.game.undo()

    @property
    def is_over(self) -> bool:
        """A victory or a dead end (never while a pile waits: its card may play)."""
        return not self.waiting and (self.game.is_won or self.game.is_dead_end)

    def known_text(self) -> str:
        """The deal as known, one line a pile (bottom to top, ``??`` unknown), then the
        reserve: what the review is about."""
        lines = [f"{PILE_SOURCES[i]}: " + " ".join("??" if c is None else str(c) for c in pile)
                 for i, pile in enumerate(self.known)]
        lines.append("R: " + " ".join(str(c) for c in self.reserve))
        return "\n".join(lines)


class AlongLive(LiveGame):
    """A live game of the board that plays along with the app."""

    kind = "along"

    def __init__(self, game_id: str, along: AlongGame) -> None:
        super().__init__(game_id, along.game)
        self.along = along
        self.again: dict[tuple, int] = {}  # position → times asked again after a stop
        self.shown: dict[tuple, tuple] = {}  # position → (its share shown, cards told then)

    def here(self) -> tuple:
        """The position now on the board, as the moves and the corrections made."""
        return tuple(str(m) for m in self.game.stack), len(self.along.corrections)

    def ask_fair(self) -> None:
        """The page's "Try again": the stages of this position that a limit stopped are
        asked for again."""
        self.again[self.here()] = self.again.get(self.here(), 0) + 1
        self.version += 1

    def tap(self, source: str):
        self.along.check_playable()
        return super().tap(source)

    def undo(self) -> Optional[Move]:
        move = self.along.undo()
        self._undone(move)
        self._changed()
        return move

    def reveal(self, pile: str, card: str) -> Card:
        told = self.along.reveal(pile, card)
        self.log.append(["r", pile.strip().upper(), str(told)])
        self._changed()
        return told

    def correct(self, place: str, card: str) -> tuple[Card, Card]:
        before, told = self.along.correct(place, card)
        self.log.append(["c", place.strip().upper(), str(told)])
        self._changed()
        return before, told
