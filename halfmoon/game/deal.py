"""A deal or a position: the cards in the twelve piles and the eight reserve slots."""

from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

from .cards import Card, is_unknown, rank_class
from .codes import canonical_code, number_to_code, parse_code
from .diagram import render
from .errors import InvalidCodeError
from .generator import DECK_SIZE, shuffled_deck
from .partial import unseen_cards

PILES = 12
PILE_DEPTH = 8
RESERVE_SLOTS = 8

PILE_SOURCES = tuple(f"P{i}" for i in range(1, PILES + 1))
RESERVE_SOURCES = tuple(f"R{i}" for i in range(1, RESERVE_SLOTS + 1))
SOURCES = PILE_SOURCES + RESERVE_SOURCES


class Deal:
    """Cards of a deal (or of a position reached from one).

    ``piles`` holds twelve tuples of cards listed bottom to top; ``reserve`` holds
    eight slots, each a card or ``None``.  ``code`` is the canonical deal code when
    known.  Build one with ``Deal('HM1-N-AAAAAAB')``, :meth:`from_number`, or
    :func:`halfmoon.game.layouts.parse_layout`.

    A **partial** deal (:attr:`is_partial`) holds :data:`~halfmoon.game.cards.UNKNOWN` in
    pile places whose card is not known yet (a deal from the app: the app shows the pile
    tops and the reserve only); ``removed`` lists the cards known to be removed already (a
    partial position), so that :meth:`unknown` — the cards the unknown places hold, not
    their places — is the double deck less every card seen.  A partial deal is checked by
    its layout (:mod:`halfmoon.game.partial`); the solver takes full information only.
    """

    __slots__ = ("piles", "reserve", "code", "removed")

    def __init__(
        self,
        code: Optional[str] = None,
        *,
        piles: Optional[Sequence[Sequence[Card]]] = None,
        reserve: Optional[Sequence[Optional[Card]]] = None,
        removed: Sequence[Card] = (),
    ) -> None:
        if code is not None and piles is None:
            family, number = parse_code(code)
            piles, reserve = _deal_cards(number)
            code = number_to_code(number, family)
        elif code is not None:
            code = canonical_code(code)
        if piles is None or reserve is None:
            raise InvalidCodeError("a Deal needs a code, or piles and a reserve")
        self.piles: tuple[tuple[Card, ...], ...] = tuple(tuple(p) for p in piles)
        self.reserve: tuple[Optional[Card], ...] = tuple(reserve)
        self.code = code
        self.removed: tuple[Card, ...] = tuple(sorted(removed))
        if len(self.piles) != PILES or len(self.reserve) != RESERVE_SLOTS:
            raise ValueError("a deal has 12 piles and 8 reserve slots")

    @classmethod
    def from_number(cls, number: int) -> "Deal":
        return cls(number_to_code(number))

    @property
    def number(self) -> Optional[int]:
        """The deal number, when the deal has a code."""
        return None if self.code is None else parse_code(self.code)[1]

    @property
    def is_full(self) -> bool:
        """A full deal: eight cards in every pile and every reserve slot filled."""
        return all(len(p) == PILE_DEPTH for p in self.piles) and all(
            c is not None for c in self.reserve
        )

    @property
    def is_partial(self) -> bool:
        """Whether some pile place holds a card not known yet (``??``)."""
        return any(is_unknown(c) for p in self.piles for c in p)

    def unknown(self) -> Counter:
        """The cards the unknown places hold, as a multiset (their places are not known):
        the double deck less the cards seen (known on the table, or removed).  Empty for a
        deal that is not partial."""
        if not self.is_partial:
            return Counter()
        return unseen_cards(self.piles, self.reserve, self.removed)

    def unknown_places(self) -> list[tuple[int, int]]:
        """The unknown places as (pile index 0..11, depth from the bottom 0..7)."""
        return [(i, k) for i, p in enumerate(self.piles) for k, c in enumerate(p)
                if is_unknown(c)]

    def sample(self, rng) -> "Deal":
        """A layout consistent with what this partial deal knows: its unknown places filled
        with the cards not seen (:meth:`unknown`) in an arrangement drawn uniformly by
        ``rng`` (a :class:`random.Random`); known cards and ``removed`` as they are.  For a
        deal from the app shuffled uniformly, the unseen cards' places given what was seen
        are uniform over these arrangements (the places are exchangeable).  It depends on
        what is known and ``rng`` alone; a deal that is not partial comes back as itself."""
        places = self.unknown_places()
        if not places:
            return self
        cards = sorted(self.unknown().elements())
        rng.shuffle(cards)
        piles = [list(p) for p in self.piles]
        for (i, k), card in zip(places, cards):
            piles[i][k] = card
        return Deal(piles=piles, reserve=self.reserve, removed=self.removed)

    def cards(self) -> list[Card]:
        """Every known card still in the deal (piles bottom to top, then the reserve); a
        partial deal's unknown places are left out (:meth:`card_count` counts them)."""
        out = [c for p in self.piles for c in p if not is_unknown(c)]
        out.extend(c for c in self.reserve if c is not None)
        return out

    def card_count(self) -> int:
        return sum(len(p) for p in self.piles) + sum(c is not None for c in self.reserve)

    def class_counts(self) -> Counter:
        return Counter(rank_class(c.rank) for c in self.cards())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Deal):
            return NotImplemented
        return (self.piles == other.piles and self.reserve == other.reserve
                and self.removed == other.removed)

    def __hash__(self) -> int:
        return hash((self.piles, self.reserve, self.removed))

    def __repr__(self) -> str:
        if self.code is not None and self == Deal(self.code):
            return f"Deal({self.code!r})"
        return f"parse_layout({format_layout(self)!r})"

    def __str__(self) -> str:
        return render(self)


def format_layout(deal: Deal, *, code: Optional[str] = None) -> str:
    """The layout text of a deal (the format of :mod:`halfmoon.game.layouts`, which reads it
    back); the code (if any) as a ``#`` comment on line one; ``??`` for a card not known, and
    a ``removed:`` line when the deal lists removed cards."""
    code = code if code is not None else deal.code
    lines = [f"# {code}"] if code else []
    for p, pile in enumerate(deal.piles, start=1):
        lines.append(f"P{p}:" + "".join(" " + str(c) for c in pile))
    lines.append("R: " + " ".join("--" if c is None else str(c) for c in deal.reserve))
    if deal.removed:
        lines.append("removed:" + "".join(" " + str(c) for c in deal.removed))
    return "\n".join(lines) + "\n"


_DECK = tuple(Card.from_index(i) for i in range(DECK_SIZE))  # a Card is immutable: made once


def _deal_cards(number: int) -> tuple[list[list[Card]], list[Card]]:
    deck = [_DECK[i] for i in shuffled_deck(number)]
    piles = [deck[PILE_DEPTH * p : PILE_DEPTH * p + PILE_DEPTH] for p in range(PILES)]
    return piles, deck[PILES * PILE_DEPTH :]


def source_index(source: str) -> int:
    """Index 0..19 of a source name (P1..P12 then R1..R8); KeyError otherwise."""
    return _SOURCE_INDEX[source.strip().upper()]


_SOURCE_INDEX = {s: i for i, s in enumerate(SOURCES)}
