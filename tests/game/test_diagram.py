"""The text diagram: piles in an arc around the reserve, labels, reveal."""

from __future__ import annotations

import re

import pytest
from conftest import make_layout

from halfmoon import Deal, Game, parse_layout
from halfmoon.game.diagram import render

LABEL = re.compile(r"(?<!\S)(R?\d+):(\d+)(?!\S)")


def labels(text: str) -> dict[str, tuple[int, float, int]]:
    """Each label's place: source -> (line number, centre column, count)."""
    out = {}
    for row, line in enumerate(text.splitlines()):
        for m in LABEL.finditer(line):
            name = m.group(1)
            source = name if name.startswith("R") else f"P{name}"
            assert source not in out, f"{source} labelled twice"
            out[source] = (row, (m.start() + m.end() - 1) / 2, int(m.group(2)))
    return out


def cell_above(text: str, source: str, k: int) -> str:
    """The text k lines above a label, in the label's cell."""
    lines = text.splitlines()
    row, centre, _ = labels(text)[source]
    line = lines[row - k]
    lo, hi = int(centre) - 3, int(centre) + 4
    return line[max(lo, 0):hi].strip()


@pytest.fixture(scope="module")
def deal0() -> Deal:
    return Deal("HM1-N-AAAAAAA")


@pytest.fixture(scope="module")
def places(deal0):
    return labels(render(deal0))


def test_every_source_labelled_with_its_count(places):
    assert set(places) == {f"P{i}" for i in range(1, 13)} | {f"R{i}" for i in range(1, 9)}
    for source, (_, _, count) in places.items():
        assert count == (8 if source.startswith("P") else 1)


def test_label_text(deal0):
    text = render(deal0)
    for p in range(1, 13):
        assert re.search(rf"(?<!\S){p}:8(?!\S)", text)
    for r in range(1, 9):
        assert re.search(rf"(?<!\S)R{r}:1(?!\S)", text)


def test_top_row_is_piles_4_to_10_left_to_right(places):
    top = [places[f"P{p}"] for p in range(4, 11)]
    rows = {row for row, _, _ in top}
    assert len(rows) == 1
    top_row = rows.pop()
    assert all(row > top_row for s, (row, _, _) in places.items()
               if s not in {f"P{p}" for p in range(4, 11)})
    columns = [col for _, col, _ in top]
    assert columns == sorted(columns) and len(set(columns)) == 7


def test_piles_3_2_1_down_the_left(places):
    (r3, c3, _), (r2, c2, _), (r1, c1, _) = places["P3"], places["P2"], places["P1"]
    assert r3 < r2 < r1
    assert c3 == c2 == c1
    assert c1 == places["P4"][1]  # under the first pile of the top row
    assert all(c1 < places[f"R{r}"][1] for r in range(1, 9))


def test_piles_11_12_down_the_right(places):
    (r11, c11, _), (r12, c12, _) = places["P11"], places["P12"]
    assert places["P10"][0] < r11 < r12
    assert c11 == c12 == places["P10"][1]  # under the last pile of the top row
    assert all(c11 > places[f"R{r}"][1] for r in range(1, 9))
    # Pile 12 is the lowest on the right, pile 1 the lowest on the left.
    assert r12 < places["P1"][0]


def test_reserve_two_rows_of_four(places):
    upper = [places[f"R{r}"] for r in range(1, 5)]
    lower = [places[f"R{r}"] for r in range(5, 9)]
    assert len({row for row, _, _ in upper}) == 1
    assert len({row for row, _, _ in lower}) == 1
    assert upper[0][0] < lower[0][0]
    assert [c for _, c, _ in upper] == sorted(c for _, c, _ in upper)
    assert [c for _, c, _ in upper] == [c for _, c, _ in lower]  # R5 under R1, …
    # The reserve sits between the side piles, below the top row.
    assert places["P4"][0] < upper[0][0]
    assert lower[0][0] < places["P1"][0]


def test_top_cards_shown_above_labels(deal0):
    text = render(deal0)
    for p in range(1, 13):
        assert cell_above(text, f"P{p}", 1) == deal0.piles[p - 1][-1].symbol()
    for r in range(1, 9):
        assert cell_above(text, f"R{r}", 1) == deal0.reserve[r - 1].symbol()
    assert cell_above(text, "P1", 1) == "7♦"
    assert cell_above(text, "R8", 1) == "10♥"


def test_only_top_cards_without_reveal(deal0):
    text = render(deal0)
    # 20 cards on show: 12 pile tops and 8 reserve cards.
    assert len(re.findall(r"(?:10|[2-9AJQK])[♣♦♥♠]", text)) == 20


def test_letters_instead_of_symbols(deal0):
    text = render(deal0, symbols=False)
    assert cell_above(text, "P1", 1) == "7d"
    assert "♦" not in text


def test_header_names_the_code_or_position(deal0):
    assert render(deal0).splitlines()[0] == "HM1-N-AAAAAAA"
    position = parse_layout(make_layout({1: "5s", 2: "6d"}))
    assert render(position).splitlines()[0] == "position"


@pytest.mark.parametrize("code", ["HM1-N-AAAAAAA", "HM1-N-ZZZZZZZ"])
def test_reveal_shows_all_8_cards_of_each_pile(code):
    deal = Deal(code)
    text = render(deal, reveal=True)
    assert len(re.findall(r"(?:10|[2-9AJQK])[♣♦♥♠]", text)) == 104
    for p in range(1, 13):
        pile = deal.piles[p - 1]
        shown = [cell_above(text, f"P{p}", k) for k in range(8, 0, -1)]
        assert shown == [c.symbol() for c in pile], f"pile {p}"
    for r in range(1, 9):
        assert cell_above(text, f"R{r}", 1) == deal.reserve[r - 1].symbol()
    # The layout of the labels is the same as without reveal, row for row.
    plain, revealed = labels(render(deal)), labels(text)
    for group in (range(4, 11), (3, 2, 1), (11, 12)):
        assert [revealed[f"P{p}"][1] for p in group] == [plain[f"P{p}"][1] for p in group]


def test_empty_piles_and_slots():
    position = parse_layout(make_layout({1: "10c Ah", 3: "Kh Qs Jd"}, "-- 9d 2c"))
    text = render(position)
    places = labels(text)
    assert places["P2"][2] == 0 and places["P1"][2] == 2 and places["P3"][2] == 3
    assert places["R1"][2] == 0 and places["R2"][2] == 1 and places["R8"][2] == 0
    assert cell_above(text, "P2", 1) == "·"
    assert cell_above(text, "R1", 1) == "·"
    assert cell_above(text, "P1", 1) == "A♥"
    revealed = render(position, reveal=True)
    assert [cell_above(revealed, "P3", k) for k in (3, 2, 1)] == ["K♥", "Q♠", "J♦"]


def test_str_of_deal_and_game_are_the_diagram(deal0):
    assert str(deal0) == render(deal0)
    game = Game(deal0)
    game.play("P1+P8")  # 7♦ + 4♠
    text = str(game)
    places = labels(text)
    assert places["P1"][2] == 7 and places["P8"][2] == 7
    assert cell_above(text, "P1", 1) == "10♣"


def test_a_partial_deal_marks_its_unknown_cards(deal0):
    from conftest import app_view

    game = Game(app_view(deal0))
    game.play("P1+P8")
    game.reveal("P1", "10c")
    text = str(game)
    assert text.splitlines()[0] == (
        "position (partial: 83 cards not known yet, ?? on a pile waiting for one)")
    assert cell_above(text, "P8", 1) == "??" and cell_above(text, "P1", 1) == "10♣"
    shown = render(game.remaining_deal(), reveal=True)
    assert cell_above(shown, "P2", 1) == "K♦" and cell_above(shown, "P2", 2) == "??"
    assert render(deal0).splitlines()[0] == "HM1-N-AAAAAAA"
