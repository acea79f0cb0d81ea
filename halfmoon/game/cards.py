"""Cards: ranks, suits, the written form and the read form.

A card is a :class:`Card` (a named tuple of ``rank`` 1..13 and ``suit`` 0..3, in the
order clubs, diamonds, hearts, spades).  Its index in one deck is
``suit * 13 + rank - 1``, matching the ordered deck of the deal generator.

:data:`UNKNOWN` stands in a partial deal for a card not known yet (``??`` in a layout): a
pile card under the top that the app has not shown.  It has rank 0, is no face, pairs with
nothing, and is written ``??``; :func:`is_unknown` tells it apart.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import InvalidCardError

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_LETTERS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
FACE_RANKS = (JACK, QUEEN, KING)

_READ_RANKS = {name: i + 1 for i, name in enumerate(RANK_NAMES)}
_READ_RANKS.update({"T": 10, "1": 1, "V": JACK, "D": QUEEN, "R": KING})
# "1" is not in the spec; it is only reached through "10", never on its own.
del _READ_RANKS["1"]
_READ_SUITS = {c: i for i, c in enumerate(SUIT_LETTERS)}
_READ_SUITS.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
# Some fonts send the variation selector after the symbol, and the white forms exist too.
_READ_SUITS.update({"♧": 0, "♢": 1, "♡": 2, "♤": 3})


class Card(NamedTuple):
    """A playing card; two copies of each exist in a Half Moon deal."""

    rank: int
    suit: int

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Read a card in any accepted form: ``10h``, ``Th``, ``qS``, ``V♣``, ``R♥``."""
        return parse_card(text)

    @classmethod
    def from_index(cls, index: int) -> "Card":
        """The card at ``index`` (0..103) of the ordered double deck."""
        return cls(index % 13 + 1, (index % 52) // 13)

    @property
    def index(self) -> int:
        """Index 0..51 within one ordered deck."""
        return self.suit * 13 + self.rank - 1

    @property
    def is_face(self) -> bool:
        return self.rank >= JACK

    @property
    def rank_name(self) -> str:
        return RANK_NAMES[self.rank - 1]

    def symbol(self) -> str:
        """Display form with a suit symbol, e.g. ``10♥``."""
        return RANK_NAMES[self.rank - 1] + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return RANK_NAMES[self.rank - 1] + SUIT_LETTERS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


class _UnknownCard(Card):
    """The type of :data:`UNKNOWN` (a card whose rank and suit are not known yet)."""

    __slots__ = ()

    @property
    def index(self) -> int:
        raise ValueError("an unknown card has no index in the deck")

    @property
    def is_face(self) -> bool:
        return False

    @property
    def rank_name(self) -> str:
        return "??"

    def symbol(self) -> str:
        return "??"

    def __str__(self) -> str:
        return "??"

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Card = _UnknownCard(0, 0)
"""A card not known yet, in a partial deal (written ``??``)."""
UNKNOWN_TEXT = "??"


def is_unknown(card) -> bool:
    """Whether ``card`` is :data:`UNKNOWN` (None, an empty place, is not)."""
    return card is not None and card.rank == 0


def parse_card(text: str) -> Card:
    """Read one card; raise :class:`InvalidCardError` naming the text otherwise."""
    if not isinstance(text, str):
        raise InvalidCardError(f"not a card: {text!r}")
    s = text.strip().replace("\ufe0f", "")
    if len(s) < 2:
        raise InvalidCardError(f"not a card: {text!r}")
    rank_part, suit_part = s[:-1].upper(), s[-1]
    rank = _READ_RANKS.get(rank_part)
    suit = _READ_SUITS.get(suit_part.lower(), _READ_SUITS.get(suit_part))
    if rank is None:
        head = s[:-1]
        if len(head) >= 2 and _READ_RANKS.get(head[:-1].upper()) is not None and (
                _READ_SUITS.get(head[-1].lower(), _READ_SUITS.get(head[-1])) is not None):
            # a card and a character more ('4hh'): the rank is not what is wrong
            raise InvalidCardError(f"not a card: {text!r} ({head!r} is a card, then "
                                   f"{s[-1]!r} more: one card a token)")
        raise InvalidCardError(f"not a card: {text!r} (unknown rank {head!r})")
    if suit is None:
        raise InvalidCardError(f"not a card: {text!r} (unknown suit {suit_part!r})")
    return Card(rank, suit)


def pair_partner(rank: int) -> int:
    """The rank that adds up to 11 with a number rank (1..10)."""
    return 11 - rank


def rank_class(rank: int) -> int:
    """The class of a rank: 0..4 for the pairs A+10 … 5+6, 5 for J+Q+K."""
    if rank >= JACK:
        return 5
    return min(rank, 11 - rank) - 1


CLASS_NAMES = ("A+10", "2+9", "3+8", "4+7", "5+6", "J+Q+K")


DOUBLE_DECK = tuple(Card.from_index(i) for i in range(104))
"""The 104 cards of the two decks, in the generator's order (each card twice)."""
