"""Layout files: a deal or position as text, one line per pile and one for the reserve.

::

    # HM1-N-AAAAAAA
    P1: 3d 8s Jc 6c 4d 2h 10c 7d
    ...
    P12: Qd 9s 4h 6s 4c Ad 7s 10h
    R: As 8h 10s 9s Kc 5s Qd 10h

Piles are listed bottom card first; ``--`` marks an empty reserve slot; an empty
pile is ``P5:``.  Every rejection names the line and the reason.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Optional, Union

from .cards import CLASS_NAMES, RANK_NAMES, Card, parse_card
from .codes import canonical_code

# The writer lives with the deal, whose repr is its layout; it is read back here.
from .deal import PILE_DEPTH, PILES, RESERVE_SLOTS, Deal, format_layout
from .errors import InvalidCardError, InvalidCodeError, InvalidLayoutError

_LINE = re.compile(r"^\s*(P(\d+)|R)\s*:(.*)$", re.IGNORECASE)
_CODE_COMMENT = re.compile(r"^#\s*(HM\S*)\s*$", re.IGNORECASE)


def parse_layout(text: str, *, name: str = "layout") -> Deal:
    """Read a layout; raise :class:`InvalidLayoutError` naming the line and reason."""
    piles: dict[int, list[Card]] = {}
    pile_lines: dict[int, int] = {}
    reserve: Optional[list[Optional[Card]]] = None
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
                f"{where}: expected 'P1:' … 'P12:' or 'R:' followed by cards, got {line!r}"
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
            piles[p] = [_card(t, where) for t in tokens]
            pile_lines[p] = lineno
            for c in piles[p]:
                card_lines.setdefault(c, []).append(lineno)
        else:
            if reserve is not None:
                raise InvalidLayoutError(f"{where}: the reserve line R: is listed twice")
            if len(tokens) != RESERVE_SLOTS:
                raise InvalidLayoutError(
                    f"{where}: the reserve has {len(tokens)} slots, it must list all "
                    f"{RESERVE_SLOTS} (-- for an empty slot)"
                )
            reserve = [None if t == "--" else _card(t, where) for t in tokens]
            for c in reserve:
                if c is not None:
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
    deal = Deal(piles=[piles[p] for p in range(1, PILES + 1)], reserve=reserve)
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
    counts = Counter(deal.cards())
    for card, n in sorted(counts.items()):
        if n > 2:
            raise InvalidLayoutError(
                f"{name}: card {card} appears {n} times, a double deck has only two"
            )
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

