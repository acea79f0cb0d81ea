"""Layout files: round trips, the code comment, and rejections naming line and reason."""

from __future__ import annotations

import re

import pytest
from conftest import make_layout

from halfmoon import Deal, format_layout, parse_layout, read_layout, write_layout
from halfmoon.game.errors import InvalidLayoutError

CODES = ["HM1-N-AAAAAAA", "HM1-N-AAAAAAB", "HM1-N-AKKEEKB", "HM1-N-ZZZZZZZ", "HM1-N-QWERTYU"]


def _error(text: str, **kwargs) -> str:
    with pytest.raises(InvalidLayoutError) as info:
        parse_layout(text, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- round trips -------------------------------------------------------------------


@pytest.mark.parametrize("code", CODES)
def test_full_deal_round_trip(code):
    deal = Deal(code)
    text = format_layout(deal)
    again = parse_layout(text)
    assert again == deal
    assert again.code == code
    assert format_layout(again) == text


def test_format_layout_puts_code_on_first_line():
    text = format_layout(Deal("HM1-N-AAAAAAB"))
    lines = text.splitlines()
    assert lines[0] == "# HM1-N-AAAAAAB"
    assert lines[1].startswith("P1: ")
    assert lines[12].startswith("P12: ")
    assert lines[13].startswith("R: ")
    assert len(lines) == 14


def test_format_layout_without_code_has_no_comment():
    deal = Deal(piles=Deal("HM1-N-AAAAAAA").piles, reserve=Deal("HM1-N-AAAAAAA").reserve)
    text = format_layout(deal)
    assert text.splitlines()[0].startswith("P1: ")
    assert format_layout(deal, code="HM1-N-AAAAAAA").splitlines()[0] == "# HM1-N-AAAAAAA"


def test_position_round_trip_short_and_empty_piles_and_reserve_slots():
    text = make_layout(
        {1: "5s", 2: "Ah 10c 9d", 3: "Kh", 5: "Qh", 8: "Jc 6d", 12: "2h 3c 8s 4d 7c"},
        "-- -- 10h As -- 9s 2c --",
    )
    deal = parse_layout(text)
    assert [len(p) for p in deal.piles] == [1, 3, 1, 0, 1, 0, 0, 2, 0, 0, 0, 5]
    assert deal.piles[3] == ()
    assert deal.reserve[0] is None and deal.reserve[7] is None
    assert str(deal.reserve[2]) == "10h"
    assert deal.card_count() == 17
    assert not deal.is_full
    assert deal.code is None
    again = format_layout(deal)
    assert "P4:\n" in again  # an empty pile is written "P4:" with nothing after it
    assert "R: -- -- 10h As -- 9s 2c --\n" in again
    assert parse_layout(again) == deal
    assert format_layout(parse_layout(again)) == again


def test_empty_table_is_a_valid_position():
    deal = parse_layout(make_layout({}, ""))
    assert deal.card_count() == 0
    assert format_layout(deal).splitlines()[-1] == "R: -- -- -- -- -- -- -- --"


def test_position_of_a_deal_keeps_its_code():
    deal = Deal("HM1-N-AAAAAAA")
    piles = [list(p) for p in deal.piles]
    piles[0].pop()  # 7d
    piles[7].pop()  # 4s
    reserve = list(deal.reserve)
    reserve[0] = reserve[2] = None  # As, 10s
    position = Deal(piles=piles, reserve=reserve)
    text = format_layout(position, code=deal.code)
    again = parse_layout(text)
    assert again == position
    assert again.code == "HM1-N-AAAAAAA"
    assert format_layout(again) == text


def test_code_comment_of_another_deal_is_not_kept():
    # The cards are deal 0's, the comment names deal 1: the code must not stick.
    text = "# HM1-N-AAAAAAB\n" + format_layout(Deal("HM1-N-AAAAAAA")).split("\n", 1)[1]
    deal = parse_layout(text)
    assert deal == Deal("HM1-N-AAAAAAA")
    assert deal.code is None


def test_read_forms_accepted_and_written_canonically():
    text = make_layout({1: "th", 2: "V♣ D♥ R♠", 3: "a♦"}, "")
    deal = parse_layout(text)
    out = format_layout(deal)
    assert "P1: 10h\n" in out
    assert "P2: Jc Qh Ks\n" in out
    assert "P3: Ad\n" in out


def test_comments_and_blank_lines_ignored_and_lower_case_prefixes():
    body = format_layout(Deal("HM1-N-AAAAAAB")).splitlines()[1:]
    text = "\n".join(["# a comment", "", *[line.lower() for line in body[:6]], "   ", "# more",
                      *body[6:]])
    assert parse_layout(text) == Deal("HM1-N-AAAAAAB")


def test_write_and_read_layout_file(tmp_path):
    deal = Deal("HM1-N-AKKEEKB")
    path = tmp_path / "deal.txt"
    write_layout(deal, path)
    assert path.read_text(encoding="utf-8").startswith("# HM1-N-AKKEEKB\n")
    again = read_layout(path)
    assert again == deal and again.code == deal.code
    assert read_layout(str(path)) == deal


# --- rejections: the line and the reason --------------------------------------------


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_pile_missing():
    lines = _lines(make_layout({1: "5s", 2: "6d"}))
    del lines[4]  # P5
    message = _error("\n".join(lines) + "\n")
    assert "P5" in message
    assert "missing" in message
    assert re.search(r"line \d+", message)


def test_reserve_line_missing():
    lines = _lines(make_layout({1: "5s", 2: "6d"}))[:-1]
    message = _error("\n".join(lines))
    assert "reserve" in message and "missing" in message
    assert "line 12" in message


def test_nine_cards_in_a_pile():
    text = make_layout({1: "5s", 2: "6d", 3: "Ac 10c 2c 9c 3c 8c 4c 7c 5c"}, "6c")
    message = _error(text)
    assert "line 3" in message
    assert "P3" in message
    assert "9 cards" in message
    assert "at most 8" in message


def test_third_copy_of_a_card():
    # Three Ah (lines 1, 2 and 4) with three 10c to keep the classes balanced.
    text = make_layout({1: "Ah", 2: "Ah 10c", 4: "Ah", 5: "10c"}, "10c")
    message = _error(text)
    assert "Ah" in message
    assert "3 times" in message
    assert "line 4" in message


def test_third_copy_in_the_reserve_names_the_reserve_line():
    text = make_layout({1: "Qs Jd", 2: "Qs"}, "Qs Ks Ks Jc Jh Kd")
    message = _error(text)
    assert "Qs" in message and "3 times" in message
    assert "line 13" in message


def test_classes_cannot_pair_up_extra_ace():
    text = make_layout({1: "Ah 10c", 2: "Ad"}, "")
    message = _error(text)
    assert "A+10" in message
    assert "cannot pair up" in message
    assert "2 × A" in message and "1 × 10" in message


def test_classes_cannot_form_triplets():
    text = make_layout({1: "Jc Qd", 2: "Kh Jh"}, "")
    message = _error(text)
    assert "J+Q+K" in message
    assert "2 J, 1 Q, 1 K" in message


def test_unreadable_card():
    text = make_layout({1: "5s", 2: "6d", 7: "Jc Xq Kh"}, "")
    message = _error(text, name="mine.txt")
    assert "mine.txt, line 7" in message
    assert "unreadable card 'Xq'" in message


def test_unreadable_card_in_reserve():
    text = make_layout({1: "5s"}, "6d 11h")
    message = _error(text)
    assert "line 13" in message and "'11h'" in message


def test_line_numbers_count_comments_and_blank_lines():
    text = "# header\n\n" + make_layout({1: "5s", 2: "6d 1x"}, "")
    message = _error(text)
    assert "line 4" in message and "'1x'" in message


def test_unknown_line():
    text = make_layout({1: "5s", 2: "6d"}).replace("P6:", "Pile 6:")
    message = _error(text)
    assert "line 6" in message
    assert "'Pile 6:'" in message


def test_pile_number_out_of_range():
    text = make_layout({1: "5s", 2: "6d"}) + "P13: Ah\n"
    message = _error(text)
    assert "line 14" in message and "P13" in message


def test_pile_listed_twice():
    text = make_layout({1: "5s", 2: "6d"}) + "P2: Ah 10h\n"
    message = _error(text)
    assert "line 14" in message and "listed twice" in message and "line 2" in message


def test_reserve_with_wrong_slot_count():
    text = make_layout({1: "5s", 2: "6d"}).replace("R: -- -- -- -- -- -- -- --", "R: -- --")
    message = _error(text)
    assert "line 13" in message and "2 slots" in message


def test_read_layout_missing_file(tmp_path):
    path = tmp_path / "nowhere.txt"
    with pytest.raises(InvalidLayoutError) as info:
        read_layout(path)
    assert str(path) in str(info.value)
    assert "cannot read" in str(info.value)


def test_read_layout_undecodable_file(tmp_path):
    path = tmp_path / "binary.txt"
    path.write_bytes(b"\xff\xfe\x00P1: \x81\x82")
    with pytest.raises(InvalidLayoutError) as info:
        read_layout(path)
    assert str(path) in str(info.value)
    assert "cannot read" in str(info.value)


def test_read_layout_directory(tmp_path):
    with pytest.raises(InvalidLayoutError, match="cannot read"):
        read_layout(tmp_path)


def test_read_layout_error_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(make_layout({1: "5s", 2: "6d 6d 6d"}), encoding="utf-8")
    with pytest.raises(InvalidLayoutError) as info:
        read_layout(path)
    message = str(info.value)
    assert f"{path}, line 2" in message
    assert "6d" in message and "3 times" in message


def test_layout_error_is_value_error():
    with pytest.raises(ValueError):
        parse_layout("nonsense")


# --- partial layouts (a deal from the app) ----------------------------------------------


@pytest.mark.parametrize("name", ["start", "after P1+P8"])
def test_partial_layout_vectors(name):
    from collections import Counter

    from spec_vectors import PARTIAL_VECTORS

    text, want = PARTIAL_VECTORS[name]
    deal = parse_layout(text)
    assert deal.is_partial and deal.card_count() == sum(len(p) for p in deal.piles) + 8
    assert sum(deal.unknown().values()) == want["unknown"] == len(deal.unknown_places())
    assert len(deal.removed) == want["removed"]
    ranks = Counter(c.rank for c in deal.unknown().elements())
    assert tuple(ranks[r] for r in range(1, 14)) == want["unknown_ranks"]
    assert format_layout(deal) == text  # written back as read
    from halfmoon import Game

    assert Game(deal).waiting == want["waiting"]


def test_partial_layout_of_the_app_view_holds_the_hidden_cards():
    from collections import Counter

    from spec_vectors import PARTIAL_VECTORS

    deal = parse_layout(PARTIAL_VECTORS["start"][0])
    full = Deal("HM1-N-AAAAAAA")
    assert [p[-1] for p in deal.piles] == [p[-1] for p in full.piles]
    assert deal.unknown() == Counter(c for p in full.piles for c in p[:-1])
    assert deal.code is None and not parse_layout(format_layout(full)).is_partial


def test_partial_layout_rejections_name_the_card():
    from spec_vectors import PARTIAL_VECTORS

    text = PARTIAL_VECTORS["start"][0]
    assert _error(text.replace("P1: ?? ?? ?? ?? ?? ?? ?? 7d", "P1: ?? ?? ?? ?? ?? ?? ?? 8h")) == (
        "layout, line 13: card 8h appears 3 times (lines 1, 6, 13), a double deck has only two")
    assert _error(text.replace("R: As", "R: ??")) == (
        "layout, line 13: R1 is ??, but the reserve is always on show: enter its card (or -- "
        "for an empty slot)")
    assert _error(text.replace("P2: ?? ", "P2: ")) == (
        "layout: 83 unknown cards (??) but 84 cards neither on the table nor removed: a partial "
        "layout accounts for all 104 cards (a position lists the cards removed on a 'removed:' "
        "line)")
    after = PARTIAL_VECTORS["after P1+P8"][0]
    assert _error(after.replace("removed: 4s 7d", "removed: 4s 7d\nremoved: 5s")) == (
        "layout, line 15: the line removed: is listed twice")
    unpaired = after.replace("removed: 4s 7d", "removed: 4s 6s")
    assert _error(unpaired) == (
        "layout: a 7 can no longer pair up: 8 × 7 left but 7 × 4 (class 4+7; the removed cards "
        "must form pairs)")
    assert _error(after.replace("removed: 4s 7d", "removed: 4s 7d 8h")) == (
        "layout, line 14: card 8h appears 3 times (lines 6, 13, 14), a double deck has only two")
