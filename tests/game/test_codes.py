"""Deal codes: the base-26 numbering, canonical form, random codes, rejections."""

from __future__ import annotations

import random

import pytest

from halfmoon.game.codes import (
    DEAL_COUNT,
    MAX_NUMBER,
    canonical_code,
    code_to_number,
    is_code,
    number_to_code,
    parse_code,
    random_codes,
    random_numbers,
)
from halfmoon.game.errors import HalfMoonError, InvalidCodeError


@pytest.mark.parametrize(
    "code, number",
    [
        ("HM1-N-AAAAAAA", 0),
        ("HM1-N-AAAAAAB", 1),
        ("HM1-N-AAAAAAZ", 25),
        ("HM1-N-AAAAABA", 26),
        ("HM1-N-AKKEEKB", 123456789),
        ("HM1-N-ZZZZZZZ", 8031810175),
    ],
)
def test_known_codes(code, number):
    assert code_to_number(code) == number
    assert number_to_code(number) == code
    assert parse_code(code) == ("N", number)


def test_max_number_is_26_to_the_7th_minus_one():
    assert MAX_NUMBER == 26**7 - 1 == 8031810175
    assert DEAL_COUNT == 26**7


@pytest.mark.parametrize(
    "text",
    ["hm1-n-aaaaaab", "Hm1-N-aAaAaAb", "  HM1-N-AAAAAAB  ", "\tHM1-N-AAAAAAB\n", " hm1-n-AAAAAAB"],
)
def test_case_and_surrounding_white_space_ignored(text):
    assert code_to_number(text) == 1
    assert canonical_code(text) == "HM1-N-AAAAAAB"
    assert is_code(text)


def test_round_trip_10000_random_numbers():
    rng = random.Random(20240601)
    numbers = [rng.randrange(DEAL_COUNT) for _ in range(10_000)] + [0, MAX_NUMBER]
    for n in numbers:
        code = number_to_code(n)
        assert len(code) == len("HM1-N-AAAAAAA")
        assert code.startswith("HM1-N-")
        assert code_to_number(code) == n
        assert code_to_number(code.lower()) == n


def test_codes_sort_like_numbers():
    rng = random.Random(7)
    numbers = sorted(rng.randrange(DEAL_COUNT) for _ in range(500))
    codes = [number_to_code(n) for n in numbers]
    assert codes == sorted(codes)


def test_random_codes_reproducible_and_distinct():
    a = random_codes(500, seed=11)
    b = random_codes(500, seed=11)
    c = random_codes(500, seed=12)
    assert a == b
    assert a != c
    assert len(set(a)) == 500
    assert all(canonical_code(code) == code for code in a)


def test_random_numbers_in_range_and_distinct():
    numbers = random_numbers(2000, seed=3)
    assert len(set(numbers)) == 2000
    assert all(0 <= n <= MAX_NUMBER for n in numbers)
    assert [code_to_number(c) for c in random_codes(2000, seed=3)] == numbers


def test_random_codes_zero_count():
    assert random_codes(0, seed=1) == []


def test_random_numbers_rejects_negative_count():
    with pytest.raises(InvalidCodeError):
        random_numbers(-1, seed=1)


# --- rejections: each message names the problem -----------------------------------


def test_wrong_prefix():
    with pytest.raises(InvalidCodeError) as info:
        parse_code("HM2-N-AAAAAAB")
    message = str(info.value)
    assert "prefix" in message
    assert "HM2" in message


def test_unknown_family():
    with pytest.raises(InvalidCodeError) as info:
        parse_code("HM1-X-AAAAAAB")
    message = str(info.value)
    assert "family" in message
    assert "'X'" in message


@pytest.mark.parametrize("digits", ["AAAAAB", "AAAAAAAB", "", "A"])
def test_wrong_length(digits):
    with pytest.raises(InvalidCodeError) as info:
        parse_code(f"HM1-N-{digits}")
    message = str(info.value)
    assert "length" in message
    assert f"{len(digits)} letters" in message


@pytest.mark.parametrize(
    "digits, bad",
    [("AAAA1AB", "1"), ("AAAAAA_", "_"), ("AAA AAA", " "), ("AAAÉAAA", "É")],
)
def test_character_outside_a_to_z(digits, bad):
    with pytest.raises(InvalidCodeError) as info:
        parse_code(f"HM1-N-{digits}")
    message = str(info.value)
    assert "not a letter" in message
    assert repr(bad) in message


@pytest.mark.parametrize("text", ["HM1-N-AAAAAß", "hm1-n-aaaaaaı", "HM1-N-ﬀAAAAA"])
def test_non_ascii_letters_are_not_folded_into_a_to_z(text):
    # str.upper() maps "ß" to "SS", "ı" to "I" and "ﬀ" to "FF"; none of them is A-Z.
    with pytest.raises(InvalidCodeError, match="not a letter"):
        parse_code(text)


@pytest.mark.parametrize("text", ["HM1N-AAAAAAB", "HM1-N-AAA-AAAB", "", "   ", "AAAAAAB"])
def test_wrong_shape(text):
    with pytest.raises(InvalidCodeError, match="three parts"):
        parse_code(text)


def test_message_names_the_code():
    with pytest.raises(InvalidCodeError) as info:
        parse_code("  HM1-Q-AAAAAAB ")
    assert "HM1-Q-AAAAAAB" in str(info.value)


def test_not_text():
    with pytest.raises(InvalidCodeError):
        parse_code(12)  # type: ignore[arg-type]


def test_is_code_false_for_bad_codes():
    for text in ("HM2-N-AAAAAAB", "HM1-X-AAAAAAB", "HM1-N-AAAAAB", "HM1-N-AAAA1AB", "hello"):
        assert not is_code(text)


@pytest.mark.parametrize("number", [-1, 26**7, True, 1.0, "1"])
def test_number_to_code_rejects_bad_numbers(number):
    with pytest.raises(InvalidCodeError):
        number_to_code(number)  # type: ignore[arg-type]


def test_number_to_code_rejects_unknown_family():
    with pytest.raises(InvalidCodeError, match="family"):
        number_to_code(1, family="X")


def test_code_errors_are_value_errors():
    assert issubclass(InvalidCodeError, HalfMoonError)
    with pytest.raises(ValueError):
        parse_code("nonsense")
