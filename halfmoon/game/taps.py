"""Selection by taps, exactly as the app's rules describe it.

:func:`resolve_tap` is a pure function: given the current selection, the tapped
source and the card it holds, it returns the new selection, the move to remove (if
the tap completes one) and the "Move errors" message (if the tap failed).

Cases the rules state:

- no selection: the tapped card becomes selected;
- tapping a selected card again deselects it;
- a number card then a number card adding up to 11: the pair is removed;
- a number card then a card that does not fit (a number not adding to 11, or a face):
  nothing removed, selection cleared, message "The sum must equal 11";
- J, Q and K tapped one after another: removed on the third tap;
- a second face card of the same rank as a single selected face: it becomes the
  selected card (no message: nothing was attempted).

Cases the rules leave open, decided here (documented in docs/library.md, "Taps: where the
rules are silent"):

- a face card then a number card: selection cleared, message
  "Requires a Jack, a Queen and a King" (the selection was heading for a triplet);
- two faces selected (say J+Q) and a face of a rank already selected tapped (another
  J): it replaces the selected card of its rank, as with one face selected;
- a face card tapped on a selection that has two faces, one of them tapped again:
  only that card is deselected, the other stays selected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .cards import Card

SUM_MESSAGE = "The sum must equal 11"
TRIPLET_MESSAGE = "Requires a Jack, a Queen and a King"


@dataclass(frozen=True)
class TapOutcome:
    selection: tuple[str, ...]
    removed: Optional[tuple[str, ...]] = None
    message: Optional[str] = None


def resolve_tap(
    selection: tuple[tuple[str, Card], ...], source: str, card: Card
) -> TapOutcome:
    """The outcome of tapping ``source`` (holding ``card``) with ``selection`` selected.

    ``selection`` lists ``(source, card)`` in tap order.
    """
    sources = tuple(s for s, _ in selection)
    if source in sources:
        return TapOutcome(tuple(s for s in sources if s != source))
    if not selection:
        return TapOutcome((source,))
    first = selection[0][1]
    if not first.is_face:
        if not card.is_face and first.rank + card.rank == 11:
            return TapOutcome((), removed=sources + (source,))
        return TapOutcome((), message=SUM_MESSAGE)
    # A face selection (one or two faces of different ranks).
    if not card.is_face:
        return TapOutcome((), message=TRIPLET_MESSAGE)
    same = [s for s, c in selection if c.rank == card.rank]
    if same:
        kept = tuple(s for s in sources if s not in same)
        return TapOutcome(kept + (source,))
    if len(selection) == 2:
        return TapOutcome((), removed=sources + (source,))
    return TapOutcome(sources + (source,))
