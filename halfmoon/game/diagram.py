"""The text diagram: the arc of piles around the reserve, as on the app's screen.

::

      7♦     Kd  ...                          (piles 4–10 across the top)
     4:8    5:8  ...
    P3 ... R1 R2 R3 R4 ... P11
    P2 ... R5 R6 R7 R8 ... P12
    P1

Piles 1–3 go up the left side (1 lowest), piles 4–10 across the top from left to
right, piles 11–12 down the right side below the corner (12 lowest); the reserve
sits in the middle, R1–R4 above R5–R8.  Under each card: its pile number or slot
and the number of cards left there.  ``reveal=True`` shows every card of a pile,
bottom card first, the top card nearest the label.  A partial deal's unknown cards are
``??`` (with ``reveal``, and on the top of a pile waiting for its card).
"""

from __future__ import annotations

from typing import Optional

CELL = 7
# (row, column) of each pile on a 7-column grid; columns are cells of CELL characters.
PILE_PLACES = {
    1: (3, 0), 2: (2, 0), 3: (1, 0),
    4: (0, 0), 5: (0, 1), 6: (0, 2), 7: (0, 3), 8: (0, 4), 9: (0, 5), 10: (0, 6),
    11: (1, 6), 12: (2, 6),
}
COLUMNS = 7
RESERVE_OFFSET = CELL + CELL // 2  # the two rows of four, centred between the sides


def _cell_lines(cards: list[str], label: str, height: int) -> list[str]:
    lines = [""] * (height - len(cards) - 1) + cards + [label]
    return [line.center(CELL) for line in lines]


def render(deal, *, reveal: bool = False, symbols: bool = True) -> str:
    """The arc diagram of a deal or position, top cards only unless ``reveal``.

    ``deal`` is a :class:`~halfmoon.game.deal.Deal`, or anything with its ``piles``,
    ``reserve`` and ``code``: the diagram only reads them, so this module imports nothing of
    :mod:`halfmoon.game.deal`, whose ``str`` it draws."""

    def name(card) -> str:
        return card.symbol() if symbols else str(card)

    def pile_cards(p: int) -> list[str]:
        pile = deal.piles[p - 1]
        if not pile:
            return ["·"]
        return [name(c) for c in pile] if reveal else [name(pile[-1])]

    def reserve_cell(r: int) -> tuple[str, str]:
        card: Optional[object] = deal.reserve[r - 1]
        return ("·" if card is None else name(card)), f"R{r}:{0 if card is None else 1}"

    height = 1 + (max((len(p) for p in deal.piles), default=1) if reveal else 1)
    height = max(height, 2)
    rows: list[list[str]] = [[" " * (CELL * COLUMNS)] * height for _ in range(4)]
    for p, (row, col) in PILE_PLACES.items():
        cell = _cell_lines(pile_cards(p), f"{p}:{len(deal.piles[p - 1])}", height)
        rows[row] = [
            line[: col * CELL] + cell[i] + line[(col + 1) * CELL :]
            for i, line in enumerate(rows[row])
        ]
    for r in range(1, 9):
        row = 1 if r <= 4 else 2
        start = RESERVE_OFFSET + ((r - 1) % 4) * CELL
        card, label = reserve_cell(r)
        cell = [""] * (height - 2) + [card, label]
        rows[row] = [
            line[:start] + cell[i].center(CELL) + line[start + CELL :]
            for i, line in enumerate(rows[row])
        ]
    out = []
    for i, row in enumerate(rows):
        out.extend(line.rstrip() for line in row if line.strip() or i == 0)
        if i < 3:
            out.append("")
    header = f"{deal.code}" if deal.code else "position"
    unknown = sum(c is not None and c.rank == 0 for p in deal.piles for c in p)
    if unknown:  # a partial deal (played along with the app): ?? marks a card not known yet
        header += f" (partial: {unknown} cards not known yet, ?? on a pile waiting for one)"
    return header + "\n\n" + "\n".join(out).rstrip() + "\n"
