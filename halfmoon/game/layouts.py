"""Layout files: a deal or position as text, one line per pile and one for the reserve.

::

    # HM1-N-AAAAAAA
    P1: 3d 8s Jc 6c 4d 2h 10c 7d
    ...
    P12: Qd 9s 4h 6s 4c Ad 7s 10h
    R: As 8h 10s 9s Kc 5s Qd 10h

Piles are listed bottom card first; ``--`` marks an empty reserve slot; an empty
pile is ``P5:``.  Every rejection names the line and the reason.

A **partial** layout (a deal from the app, entered as the app shows it) writes ``??`` for a
pile card not known yet::

    P1: ?? ?? ?? ?? ?? ?? ?? 7d
    ...
    R: As 8h 10s 9s Kc 5s Qd 10h

The reserve is always on show, so its slots hold cards or ``--``.  The unknown places hold
the cards not seen (the double deck less the known cards and the removed ones), so a partial
position with cards removed lists them on a ``removed:`` line (``removed: 5s 6d``); the
checks of :mod:`halfmoon.game.partial` apply, each rejection naming the card and why.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Optional, Union

from .cards import CLASS_NAMES, RANK_NAMES, UNKNOWN, UNKNOWN_TEXT, Card, is_unknown, parse_card
from .codes import canonical_code

# The writer lives with the deal, whose repr is its layout; it is read back here.
from .deal import PILE_DEPTH, PILES, RESERVE_SLOTS, Deal, format_layout
from .errors import InvalidCardError, InvalidCodeError, InvalidLayoutError
from .partial import partial_problem, third_copy_message, where_seen

_LINE = re.compile(r"^\s*(P(\d+)|R|removed)\s*:(.*)$", re.IGNORECASE)
_CODE_COMMENT = re.compile(r"^#\s*(HM\S*)\s*$", re.IGNORECASE)


def parse_layout(text: str, *, name: str = "layout") -> Deal:
    """Read a layout; raise :class:`InvalidLayoutError` naming the line and reason."""
    piles: dict[int, list[Card]] = {}
    pile_lines: dict[int, int] = {}
    reserve: Optional[list[Optional[Card]]] = None
    removed: Optional[list[Card]] = None
    code: Optional[str] = None
    card_lines: dict[Card, list[int]] = {}
    last_line = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        last_line = lineno
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _CODE_COMMENT.match(line)
            if m and code is None and not piles and reserve is None:
                try:
                    code = canonical_code(m.group(1))
                except InvalidCodeError:
                    code = None
            continue
        m = _LINE.match(line)
        where = f"{name}, line {lineno}"
        if not m:
            raise InvalidLayoutError(
                f"{where}: expected 'P1:' … 'P12:', 'R:' or 'removed:' followed by cards, "
                f"got {line!r}"
            )
        tokens = m.group(3).split()
        if m.group(2) is not None:
            p = int(m.group(2))
            if not 1 <= p <= PILES:
                raise InvalidLayoutError(f"{where}: there is no pile P{p} (piles are P1 to P12)")
            if p in piles:
                raise InvalidLayoutError(
                    f"{where}: pile P{p} is listed twice (first on line {pile_lines[p]})"
                )
            if len(tokens) > PILE_DEPTH:
                raise InvalidLayoutError(
                    f"{where}: pile P{p} has {len(tokens)} cards, at most {PILE_DEPTH} are allowed"
                )
            piles[p] = [UNKNOWN if t == UNKNOWN_TEXT else _card(t, where) for t in tokens]
            pile_lines[p] = lineno
            cards: list[Card] = piles[p]
        elif m.group(1).upper() == "R":
            if reserve is not None:
                raise InvalidLayoutError(f"{where}: the reserve line R: is listed twice")
            if len(tokens) != RESERVE_SLOTS:
                raise InvalidLayoutError(
                    f"{where}: the reserve has {len(tokens)} slots, it must list all "
                    f"{RESERVE_SLOTS} (-- for an empty slot)"
                )
            if UNKNOWN_TEXT in tokens:
                raise InvalidLayoutError(
                    f"{where}: R{tokens.index(UNKNOWN_TEXT) + 1} is ??, but the reserve is "
                    "always on show: enter its card (or -- for an empty slot)")
            reserve = [None if t == "--" else _card(t, where) for t in tokens]
            cards = [c for c in reserve if c is not None]
        else:
            if removed is not None:
                raise InvalidLayoutError(f"{where}: the line removed: is listed twice")
            removed = [_card(t, where) for t in tokens]
            cards = removed
        for c in cards:
            if not is_unknown(c):
                card_lines.setdefault(c, []).append(lineno)
    end = f"{name}, line {last_line}"
    missing = [f"P{p}" for p in range(1, PILES + 1) if p not in piles]
    if missing:
        raise InvalidLayoutError(f"{end}: pile {', '.join(missing)} missing "
                                 "(all twelve piles must be listed)")
    if reserve is None:
        raise InvalidLayoutError(f"{end}: the reserve line 'R:' is missing")
    extra = sorted((lines[2], card) for card, lines in card_lines.items() if len(lines) > 2)
    if extra:
        lineno, card = extra[0]
        lines = card_lines[card]
        raise InvalidLayoutError(
            f"{name}, line {lineno}: card {card} appears {len(lines)} times "
            f"(lines {', '.join(map(str, lines))}), a double deck has only two"
        )
    deal = Deal(piles=[piles[p] for p in range(1, PILES + 1)], reserve=reserve,
                removed=removed or ())
    _validate_cards(deal, name)
    if code is not None and _reached_from(deal, Deal(code)):
        # Keep the code only when the layout is that deal or a position reached from it.
        deal.code = code
    return deal


def _reached_from(position: Deal, deal: Deal) -> bool:
    """Whether every pile is a bottom part of the deal's pile and every card left in
    the reserve is in its slot in the deal."""
    return all(
        pile == full[: len(pile)] for pile, full in zip(position.piles, deal.piles)
    ) and all(c is None or c == d for c, d in zip(position.reserve, deal.reserve))


def _card(token: str, where: str) -> Card:
    try:
        return parse_card(token)
    except InvalidCardError as exc:
        raise InvalidLayoutError(f"{where}: unreadable card {token!r}") from exc


def _validate_cards(deal: Deal, name: str) -> None:
    if deal.is_partial:
        problem = partial_problem(deal.piles, deal.reserve, deal.removed)
        if problem is not None:
            raise InvalidLayoutError(f"{name}: {problem}")
        return
    counts = Counter(deal.cards()) + Counter(deal.removed)
    for card, n in sorted(counts.items()):
        if n > 2:
            places = where_seen(card, deal.piles, deal.reserve, deal.removed)
            raise InvalidLayoutError(f"{name}: {third_copy_message(card, places)}")
    ranks = Counter(c.rank for c in deal.cards())
    for low in range(1, 6):
        high = 11 - low
        if ranks[low] != ranks[high]:
            raise InvalidLayoutError(
                f"{name}: class {CLASS_NAMES[low - 1]} cannot pair up: "
                f"{ranks[low]} × {RANK_NAMES[low - 1]} but {ranks[high]} × {RANK_NAMES[high - 1]}"
            )
    if not ranks[11] == ranks[12] == ranks[13]:
        raise InvalidLayoutError(
            f"{name}: class J+Q+K cannot form triplets: "
            f"{ranks[11]} J, {ranks[12]} Q, {ranks[13]} K"
        )


def read_layout(path: Union[str, Path]) -> Deal:
    """Read a layout file; errors name the file and the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidLayoutError(
            f"{path}: cannot read layout file ({exc.__class__.__name__}: "
            f"{exc.strerror if isinstance(exc, OSError) else exc.reason})") from exc
    return parse_layout(text, name=str(path))


def write_layout(deal: Deal, path: Union[str, Path]) -> None:
    Path(path).write_text(format_layout(deal), encoding="utf-8")

