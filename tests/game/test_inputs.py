"""What a user types for a deal: a code, a deal number or a layout file."""

from __future__ import annotations

import pytest
from conftest import make_layout

from halfmoon import Deal, HalfMoonError, InvalidCodeError, load_deal
from halfmoon.game.inputs import deal_label


def test_a_code_in_any_case_with_spaces_around():
    assert load_deal("  hm1-n-aaaaaab ") == Deal("HM1-N-AAAAAAB")


def test_a_deal_number():
    assert load_deal("123456789") == Deal("HM1-N-AKKEEKB")
    assert load_deal("0").code == "HM1-N-AAAAAAA"


def test_a_layout_file(tmp_path):
    path = tmp_path / "deal.txt"
    path.write_text(make_layout({1: "Ah", 2: "10c"}), encoding="utf-8")
    deal = load_deal(str(path))
    assert deal.code is None and sorted(map(str, deal.cards())) == sorted(["Ah", "10c"])
    assert deal_label(str(path), deal) == str(path)


def test_a_malformed_code_gets_the_code_error():
    with pytest.raises(InvalidCodeError):
        load_deal("HM1-N-AAAAAA")


def test_a_negative_deal_number_is_named_as_out_of_range():
    with pytest.raises(InvalidCodeError, match="deal number -3 is outside 0..8031810175"):
        load_deal("-3")


@pytest.mark.parametrize("text", ["²", "nothing-here", "-3x", ""])
def test_anything_else_is_refused_with_what_was_typed(text):
    with pytest.raises(HalfMoonError, match="neither a deal code, a deal number nor a layout file"):
        load_deal(text)


def test_results_name_an_input_by_its_canonical_code():
    assert deal_label("1", load_deal("1")) == "HM1-N-AAAAAAB"
    assert deal_label("hm1-n-aaaaaab", load_deal("hm1-n-aaaaaab")) == "HM1-N-AAAAAAB"


@pytest.mark.parametrize("name", ["layouts/deal.txt", "deal.txt", "./x"])
def test_a_missing_file_is_named_missing(tmp_path, name):
    with pytest.raises(HalfMoonError, match="no such file"):
        load_deal(str(tmp_path / name) if "/" in name else name)


def test_a_directory_is_not_a_layout_file(tmp_path):
    with pytest.raises(HalfMoonError, match="is a directory"):
        load_deal(str(tmp_path))


def test_a_deal_given_as_a_deal_a_number_or_text():
    import numpy as np

    from halfmoon.game.inputs import as_deal

    deal = Deal.from_number(27)
    assert as_deal(deal) is deal
    assert as_deal(27) == as_deal(np.int64(27)) == as_deal("27") == as_deal(deal.code) == deal
    with pytest.raises(HalfMoonError, match="neither a deal code"):
        as_deal("nonsense")
