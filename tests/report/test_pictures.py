"""Pictures: the drawing of deal HM1-N-AAAAAAA matches its layout; PNGs decode."""

from __future__ import annotations

import io
import subprocess
import sys

import matplotlib.image
import pytest
from matplotlib.colors import to_hex

from halfmoon.cli.main import main
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import IllegalMoveError
from halfmoon.game.notation import format_moves
from halfmoon.report.pictures import (
    RED,
    deal_figure,
    deal_png,
    line_figure,
    line_steps,
    save_deal_png,
    save_line_png,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Top cards of deal 0, from the vectors of the spec (the last card of each pile line).
TOPS_DEAL0 = {
    "P1": "7♦", "P2": "K♦", "P3": "J♠", "P4": "9♣", "P5": "2♦", "P6": "8♥", "P7": "6♦",
    "P8": "4♠", "P9": "Q♠", "P10": "3♠", "P11": "K♥", "P12": "10♥",
    "R1": "A♠", "R2": "8♥", "R3": "10♠", "R4": "9♠",
    "R5": "K♣", "R6": "5♠", "R7": "Q♦", "R8": "10♥",
}


def texts(fig):
    """Text artists of the first Axes by gid: {'card-P4': artist, 'label-P4': artist, …}."""
    return {t.get_gid(): t for t in fig.axes[0].texts if t.get_gid()}


@pytest.fixture(scope="module")
def deal0_texts():
    return texts(deal_figure(Deal("HM1-N-AAAAAAA")))


def test_every_top_card_and_label_is_drawn(deal0_texts):
    for source, symbol in TOPS_DEAL0.items():
        assert deal0_texts[f"card-{source}"].get_text() == symbol
        count = 8 if source.startswith("P") else 1
        assert deal0_texts[f"label-{source}"].get_text() == f"{source}: {count}"
    assert len(deal0_texts) == 40


def test_red_for_diamonds_and_hearts(deal0_texts):
    for source, symbol in TOPS_DEAL0.items():
        colour = to_hex(deal0_texts[f"card-{source}"].get_color())
        assert (colour == to_hex(RED)) == (symbol[-1] in "♦♥"), source


def test_places_follow_the_arc_layout(deal0_texts):
    def xy(source):
        return deal0_texts[f"card-{source}"].get_position()

    top = [xy(f"P{p}") for p in range(4, 11)]
    assert [x for x, _ in top] == sorted(x for x, _ in top) and len({x for x, _ in top}) == 7
    assert len({y for _, y in top}) == 1  # P4..P10 in one row, left to right
    top_y = top[0][1]
    left = [xy(f"P{p}") for p in (1, 2, 3)]  # up the left side, P1 lowest
    assert len({x for x, _ in left}) == 1 and left[0][1] < left[1][1] < left[2][1] < top_y
    right = [xy("P11"), xy("P12")]  # down the right side, below the corner, P12 lowest
    assert right[0][0] == right[1][0] == top[-1][0] and top_y > right[0][1] > right[1][1]
    assert left[0][0] == top[0][0]
    upper = [xy(f"R{r}") for r in range(1, 5)]
    lower = [xy(f"R{r}") for r in range(5, 9)]
    for row in (upper, lower):
        assert len({y for _, y in row}) == 1 and [x for x, _ in row] == sorted(x for x, _ in row)
        assert all(left[0][0] < x < right[0][0] for x, _ in row)  # between the sides
        assert all(left[0][1] < y < top_y for _, y in row)  # inside the arc
    assert upper[0][1] > lower[0][1]  # R1–R4 above R5–R8
    assert [x for x, _ in upper] == [x for x, _ in lower]
    # each label sits under its card
    for source in TOPS_DEAL0:
        (cx, cy), (lx, ly) = xy(source), deal0_texts[f"label-{source}"].get_position()
        assert lx == cx and ly < cy


def test_png_decodes_to_a_sensible_image():
    data = deal_png(Deal("HM1-N-AAAAAAA"))
    assert data.startswith(PNG_MAGIC)
    image = matplotlib.image.imread(io.BytesIO(data), format="png")
    height, width = image.shape[:2]
    assert 400 <= width <= 2000 and 400 <= height <= 2000
    assert image[..., :3].std() > 0.1  # not a blank canvas


def test_position_with_empty_piles_and_slots():
    game = Game(0)
    for move in ("P1+P8", "P12+R1"):
        game.play(move)
    t = texts(deal_figure(game))
    assert t["label-P1"].get_text() == "P1: 7" and t["card-P1"].get_text() == "10♣"
    assert t["label-R1"].get_text() == "R1: 0" and "card-R1" not in t
    empty = Game(Deal(piles=[()] * 12, reserve=[None] * 8))
    t = texts(deal_figure(empty))
    assert not any(k.startswith("card-") for k in t) and t["label-P5"].get_text() == "P5: 0"


def test_deal_png_of_a_deal_and_of_a_game():
    assert deal_png(Deal("HM1-N-AAAAAAB")).startswith(PNG_MAGIC)
    assert deal_png(Game(1)) == deal_png(Deal.from_number(1))  # a fresh game shows its deal


def test_save_deal_png_and_show_command(tmp_path, capsys):
    path = save_deal_png(Deal.from_number(5), tmp_path / "d.png")
    assert path.read_bytes().startswith(PNG_MAGIC)
    assert main(["show", "HM1-N-AAAAAAA", "--png", str(tmp_path / "show.png")]) == 0
    assert (tmp_path / "show.png").read_bytes().startswith(PNG_MAGIC)
    assert main(["show", "0", "--png", str(tmp_path / "no-such-dir" / "x.png")]) == 2
    assert capsys.readouterr().err.startswith("halfmoon: error:")


def test_no_pyplot_state():
    code = (
        "import sys; from halfmoon.report.pictures import deal_png, line_png; "
        "from halfmoon.game.deal import Deal\n"
        "deal_png(Deal.from_number(0)); line_png(Deal.from_number(0), ['P1+P8'])\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- lines -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def winning_line():
    from solver import solve

    result = solve(0, budget=100_000)
    assert result.verdict == "win"
    return result.moves


def test_line_steps():
    assert line_steps(48) == [0, 6, 12, 18, 24, 30, 36, 42, 48]
    assert line_steps(10, 4) == [0, 4, 8, 10]
    assert line_steps(0) == [0]
    with pytest.raises(ValueError):
        line_steps(10, 0)


def test_line_figure_panels(winning_line):
    moves = winning_line
    fig = line_figure(Deal.from_number(0), moves, every=6)
    assert len(fig.axes) == 9
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    written = format_moves(moves, Deal.from_number(0))  # the move notation, with the cards
    assert titles[0] == f"start · next {written[0]}"
    assert titles[1] == f"after 6 moves · next {written[6]}"
    # the line written in the notation draws the same figure
    again = line_figure(Deal.from_number(0), " ".join(written), every=6)
    assert [ax.get_title(loc="left") for ax in again.axes] == titles
    assert titles[-1] == "after 48 moves · won"
    cards = [[t for t in ax.texts if (t.get_gid() or "").startswith("card-")] for ax in fig.axes]
    assert len(cards[0]) == 20 and cards[-1] == []  # all on show at the start, none at the end
    outlined = {t.get_gid()[5:] for t in cards[0]} & set(moves[0].sources)
    assert outlined == set(moves[0].sources)  # the next move's cards are on show


def test_save_line_png(tmp_path, winning_line):
    path = save_line_png(Deal.from_number(0), winning_line, tmp_path / "line.png")
    image = matplotlib.image.imread(path)
    assert image.shape[1] > image.shape[0] > 500


def test_line_with_an_illegal_move():
    with pytest.raises(IllegalMoveError):
        line_figure(Deal.from_number(0), ["P1+P2"])
