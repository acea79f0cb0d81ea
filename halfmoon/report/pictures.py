"""Pictures of deals, positions and winning lines, drawn with matplotlib.

The arc layout of the spec: piles 1–3 up the left side (1 lowest), piles 4–10 across
the top from left to right, piles 11–12 down the right side (12 lowest), the reserve
in the middle in two rows of four (R1–R4 above R5–R8).  Each pile shows its top card
(rank and suit, red for ♦ and ♥) over a stack edge per card beneath it; under each
card, its pile number or reserve slot and the number of cards left there.

Only the object-oriented API of matplotlib is used (``Figure`` and the Agg canvas),
never ``pyplot``: drawing changes no global state and needs no display.

- :func:`deal_figure` / :func:`deal_png` / :func:`save_deal_png`: one deal or position;
- :func:`line_figure` / :func:`line_png` / :func:`save_line_png`: a winning line as a
  grid of positions, one every few moves, with the cards of the next move outlined.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from halfmoon.game.deal import PILES, RESERVE_SLOTS, Deal
from halfmoon.game.diagram import PILE_PLACES
from halfmoon.game.engine import Game
from halfmoon.game.moves import Move
from halfmoon.game.notation import format_moves, parse_move, parse_moves

CARD_W = 0.74
CARD_H = 1.0
ROW_STEP = 1.6  # a card, its label and a gap
STACK_STEP = 0.035  # how far each card below the top one shows
RED = "#c62828"
BLACK = "#1b1b1b"
FELT = "#1f6f43"
CARD_FACE = "#fdfdf8"
LABEL = "#f2f2e6"
HIGHLIGHT = "#ffb300"
TABLE_WIDTH = 7  # pile columns of the diagram
TABLE_ROWS = 4


def card_places() -> dict[str, tuple[float, float]]:
    """The centre of each source's card, in table units (one pile column = 1)."""
    places = {}
    for p, (row, col) in PILE_PLACES.items():
        places[f"P{p}"] = (float(col), -row * ROW_STEP)
    for r in range(1, RESERVE_SLOTS + 1):
        row = 1 if r <= 4 else 2
        places[f"R{r}"] = (1.5 + (r - 1) % 4, -row * ROW_STEP)
    return places


PLACES = card_places()


def _as_deal(deal: Union[Deal, Game]) -> Deal:
    return deal.remaining_deal() if isinstance(deal, Game) else deal


def draw_deal(
    ax,
    deal: Union[Deal, Game],
    *,
    highlight: Iterable[str] = (),
    title: Optional[str] = None,
    scale: float = 1.0,
    title_color: str = "black",
) -> None:
    """Draw a deal or position on a matplotlib Axes.

    ``highlight`` names sources (``'P1'``, ``'R3'``) whose cards are outlined;
    ``scale`` multiplies the font sizes (1 for a picture about 7 inches wide).
    Every text artist gets a gid: ``card-P4`` for a card, ``label-P4`` for its label.
    """
    d = _as_deal(deal)
    marked = {s.upper() for s in highlight}
    ax.set_facecolor(FELT)
    patches: list = []
    for p in range(1, PILES + 1):
        pile = d.piles[p - 1]
        _draw_spot(ax, patches, f"P{p}", pile[-1] if pile else None, len(pile), f"P{p}" in marked,
                   scale)
    for r in range(1, RESERVE_SLOTS + 1):
        card = d.reserve[r - 1]
        _draw_spot(ax, patches, f"R{r}", card, 0 if card is None else 1, f"R{r}" in marked, scale)
    # one collection, drawn in order: much faster than one artist per patch
    ax.add_collection(PatchCollection(patches, match_original=True, zorder=1), autolim=False)
    ax.set_xlim(-0.65, TABLE_WIDTH - 0.35)
    ax.set_ylim(-(TABLE_ROWS - 1) * ROW_STEP - 0.95, 0.75)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title is None:
        title = d.code or "position"
        if not d.is_full:
            title += f" · {d.card_count()} cards left"
        if d.is_partial:  # a deal from the app: ?? for the cards not known yet
            title += f" · {len(d.unknown_places())} not known yet (??)"
    if title:
        ax.set_title(title, fontsize=12 * scale, loc="left", color=title_color)


def _draw_spot(ax, patches: list, source: str, card, count: int, marked: bool,
               scale: float) -> None:
    """Add the patches of one pile or slot to ``patches`` and its texts to ``ax``."""
    x, y = PLACES[source]
    left, bottom = x - CARD_W / 2, y - CARD_H / 2
    if card is None:
        patches.append(
            Rectangle((left, bottom), CARD_W, CARD_H, fill=False, edgecolor=LABEL,
                      linestyle=(0, (3, 3)), linewidth=0.8 * scale, alpha=0.6)
        )
    else:
        for k in range(min(count - 1, 7), 0, -1):  # the edges of the cards beneath
            patches.append(
                FancyBboxPatch((left, bottom + k * STACK_STEP), CARD_W, CARD_H,
                               boxstyle="round,pad=0,rounding_size=0.06",
                               facecolor="#d9d9cf", edgecolor="#777777", linewidth=0.4 * scale)
            )
        patches.append(
            FancyBboxPatch((left, bottom), CARD_W, CARD_H,
                           boxstyle="round,pad=0,rounding_size=0.06",
                           facecolor=CARD_FACE,
                           edgecolor=HIGHLIGHT if marked else "#555555",
                           linewidth=(3.0 if marked else 0.8) * scale)
        )
        colour = RED if card.suit in (1, 2) else BLACK
        ax.text(x, y, card.symbol(), ha="center", va="center", fontsize=15 * scale,
                fontweight="bold", color=colour, gid=f"card-{source}", zorder=2)
    ax.text(x, bottom - 0.08, f"{source}: {count}", ha="center", va="top", fontsize=8.5 * scale,
            color=LABEL, gid=f"label-{source}")


def deal_figure(deal: Union[Deal, Game], *, dpi: int = 100, title: Optional[str] = None) -> Figure:
    """A Figure (not registered with pyplot) showing one deal or position."""
    fig = Figure(figsize=(7.4, 6.6), dpi=dpi, facecolor=FELT)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.9))
    draw_deal(ax, deal, title=title, title_color=LABEL)
    return fig


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", facecolor=fig.get_facecolor())
    return buf.getvalue()


def deal_png(deal: Union[Deal, Game]) -> bytes:
    """The picture of a deal or position as PNG bytes (what IPython shows, see
    :mod:`halfmoon.report.display`)."""
    return _png(deal_figure(deal))


def save_deal_png(deal: Union[Deal, Game], path: Union[str, Path]) -> Path:
    """Draw a deal or position into a PNG file (``halfmoon show … --png FILE``)."""
    p = Path(path)
    p.write_bytes(deal_png(deal))
    return p


def line_steps(n_moves: int, every: int = 6) -> list[int]:
    """How many moves have been played in each panel: 0, every, 2·every, …, n_moves."""
    if every < 1:
        raise ValueError(f"every must be at least 1, got {every}")
    steps = list(range(0, n_moves + 1, every))
    if steps[-1] != n_moves:
        steps.append(n_moves)
    return steps


def line_figure(
    deal: Union[Deal, Game],
    moves: Union[str, Sequence[Union[Move, str]]],
    *,
    every: int = 6,
    columns: int = 3,
    dpi: int = 100,
) -> Figure:
    """A grid of positions along a line of moves: the start, then one every ``every``
    moves, and the end.  In each panel, the cards of the next move are outlined.

    The moves (Moves, or text in the move notation of :mod:`halfmoon.game.notation`) are
    checked by the reference engine (IllegalMoveError if one is not legal).
    """
    game = Game(_as_deal(deal))
    if isinstance(moves, str):  # a whole line in the move notation
        moves = parse_moves(moves, game)
    played = [game.play(parse_move(m, game) if isinstance(m, str) else m) for m in moves]
    for _ in played:
        game.pop()
    steps = line_steps(len(played), every)
    written = format_moves(played, game)
    rows = -(-len(steps) // columns)
    cols = min(columns, len(steps))
    panel_w, panel_h = 3.4, 3.25
    fig = Figure(figsize=(panel_w * cols, panel_h * rows), dpi=dpi, facecolor="white")
    FigureCanvasAgg(fig)
    scale = panel_w / 7.4
    done = 0
    for i, k in enumerate(steps):
        while done < k:
            game.push(played[done])
            done += 1
        ax = fig.add_subplot(rows, cols, i + 1)
        nxt = played[k] if k < len(played) else None
        if k == 0:
            title = "start"
        else:
            title = f"after {k} move{'s' if k != 1 else ''}"
        if nxt is not None:
            title += f" · next {written[k]}"
        elif game.cards_left() == 0:
            title += " · won"
        elif game.is_dead_end:
            title += f" · stuck, {game.cards_left()} left"
        draw_deal(ax, game, highlight=nxt.sources if nxt else (), title=title, scale=scale * 1.6)
    head = _as_deal(deal).code or "position"
    fig.suptitle(f"{head}: a line of {len(played)} moves", fontsize=13)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def line_png(deal: Union[Deal, Game], moves: Sequence[Union[Move, str]], *,
             every: int = 6) -> bytes:
    return _png(line_figure(deal, moves, every=every))


def save_line_png(
    deal: Union[Deal, Game],
    moves: Sequence[Union[Move, str]],
    path: Union[str, Path],
    *,
    every: int = 6,
) -> Path:
    """Draw a (winning) line into a PNG file (``halfmoon solve … --png FILE``)."""
    p = Path(path)
    p.write_bytes(line_png(deal, moves, every=every))
    return p
