"""What is known of a partial deal: the cards not seen yet, and the checks that keep what is
entered consistent with two decks.

A partial deal (a deal from the app, entered as the app shows it) holds :data:`UNKNOWN` in
the places whose card has not been seen: the cards under the pile tops.  Every card of the
two decks is somewhere: on the table (known or not) or removed.  So the cards the unknown
places hold are exactly the double deck less the cards seen (known on the table, or
removed): :func:`unseen_cards`.  What is entered must keep that possible
(:func:`partial_problem`):

- no card is seen more than twice (a double deck has two of each);
- as many cards are unseen as there are unknown places (a partial position, with cards
  removed, lists them: the layout's ``removed:`` line);
- the cards left (known and unseen) can still all be removed: as many Aces as 10s, 2s as 9s,
  … and as many Jacks as Queens as Kings; a card left over is named (it can no longer pair
  up, its partners' copies being removed).

These functions take the places as plain sequences (twelve piles of cards, eight reserve
slots, the removed cards), so the deal, the layouts and the engine share them.
"""

from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

from .cards import CLASS_NAMES, DOUBLE_DECK, FACE_RANKS, RANK_NAMES, Card, is_unknown

_DECK_COUNTS = Counter(DOUBLE_DECK)


def seen_cards(piles: Sequence[Sequence[Card]], reserve: Sequence[Optional[Card]],
               removed: Sequence[Card] = ()) -> Counter:
    """The cards seen: the known cards of the piles and the reserve, and the removed ones."""
    seen = Counter(c for pile in piles for c in pile if not is_unknown(c))
    seen.update(c for c in reserve if c is not None and not is_unknown(c))
    seen.update(removed)
    return seen


def unseen_cards(piles: Sequence[Sequence[Card]], reserve: Sequence[Optional[Card]],
                 removed: Sequence[Card] = ()) -> Counter:
    """The cards not seen yet (the double deck less :func:`seen_cards`): the multiset the
    unknown places hold when the deal is consistent (:func:`partial_problem`)."""
    return _DECK_COUNTS - seen_cards(piles, reserve, removed)


def where_seen(card: Card, piles: Sequence[Sequence[Card]],
               reserve: Sequence[Optional[Card]], removed: Sequence[Card] = ()) -> list[str]:
    """Where the known copies of ``card`` are: ``P3``, ``R2``, ``removed``."""
    out = [f"P{i + 1}" for i, pile in enumerate(piles) for c in pile if c == card]
    out += [f"R{r + 1}" for r, c in enumerate(reserve) if c == card]
    out += ["removed"] * sum(c == card for c in removed)
    return out


def third_copy_message(card: Card, places: list[str]) -> str:
    """The message for a card entered once too often: names it and where its copies are."""
    return (f"a third {card}: both copies are already on the table or removed "
            f"({', '.join(places)}), a double deck has only two")


def partial_problem(piles: Sequence[Sequence[Card]], reserve: Sequence[Optional[Card]],
                    removed: Sequence[Card] = ()) -> Optional[str]:
    """Why these places cannot be a position of two decks with the unknown places holding
    the unseen cards (a one-line message naming a card), or None if they can."""
    seen = seen_cards(piles, reserve, removed)
    for card, n in sorted(seen.items()):
        if n > 2:
            return third_copy_message(card, where_seen(card, piles, reserve, removed))
    unseen = _DECK_COUNTS - seen
    places = sum(is_unknown(c) for pile in piles for c in pile)
    hidden = sum(unseen.values())
    if places != hidden:
        return (f"{places} unknown cards (??) but {hidden} cards neither on the table nor "
                "removed: a partial layout accounts for all 104 cards (a position lists the "
                "cards removed on a 'removed:' line)")
    left = Counter(c.rank for c in seen_cards(piles, reserve).elements()) + Counter(
        c.rank for c in unseen.elements())
    table = [c for pile in piles for c in pile if not is_unknown(c)]
    table += [c for c in reserve if c is not None]
    return _left_over(left, table)


def _left_over(left: Counter, table: Sequence[Card]) -> Optional[str]:
    """A card that can no longer be removed, given the ranks left: named, with why."""
    def named(rank: int) -> str:
        on_table = sorted(c for c in table if c.rank == rank)
        return str(on_table[0]) if on_table else f"a {RANK_NAMES[rank - 1]}"

    for low in range(1, 6):
        high = 11 - low
        if left[low] != left[high]:
            more, fewer = (low, high) if left[low] > left[high] else (high, low)
            return (f"{named(more)} can no longer pair up: {left[more]} × "
                    f"{RANK_NAMES[more - 1]} left but {left[fewer]} × {RANK_NAMES[fewer - 1]} "
                    f"(class {CLASS_NAMES[low - 1]}; the removed cards must form pairs)")
    counts = [left[r] for r in FACE_RANKS]
    if len(set(counts)) > 1:
        more = FACE_RANKS[counts.index(max(counts))]
        return (f"{named(more)} can no longer form a triplet: {counts[0]} J, {counts[1]} Q, "
                f"{counts[2]} K left (the removed cards must form triplets)")
    return None
