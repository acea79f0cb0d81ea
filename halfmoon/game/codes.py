"""Deal codes (``HM1-N-AAAAAAB``) and the numbers they stand for.

The code is the game and version (``HM1``), the deal family (``N``: a uniformly
shuffled deal) and the deal number in seven base-26 letters, most significant first.
"""

from __future__ import annotations

import random
import re
import string

from .errors import InvalidCodeError

PREFIX = "HM1"
FAMILIES = ("N",)
DIGITS = 7
MAX_NUMBER = 26**DIGITS - 1  # 8,031,810,175
DEAL_COUNT = 26**DIGITS

_A = ord("A")
_ASCII_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)


def number_to_code(number: int, family: str = "N") -> str:
    """The canonical code of a deal number (0 ≤ number < 26⁷)."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise InvalidCodeError(f"deal number must be an integer, got {number!r}")
    if not 0 <= number <= MAX_NUMBER:
        raise InvalidCodeError(f"deal number {number} is outside 0..{MAX_NUMBER}")
    if family not in FAMILIES:
        raise InvalidCodeError(f"unknown deal family {family!r}")
    letters = []
    for _ in range(DIGITS):
        number, digit = divmod(number, 26)
        letters.append(chr(_A + digit))
    return f"{PREFIX}-{family}-{''.join(reversed(letters))}"


def code_to_number(code: str) -> int:
    """The deal number of a code (parsed strictly, see :func:`parse_code`)."""
    return parse_code(code)[1]


def parse_code(code: str) -> tuple[str, int]:
    """Return ``(family, number)`` of a code, or raise :class:`InvalidCodeError`.

    Surrounding white space and letter case are ignored; anything else that differs
    from ``HM1-N-XXXXXXX`` (seven letters A–Z) is rejected with the reason.
    """
    if not isinstance(code, str):
        raise InvalidCodeError(f"a deal code must be text, got {code!r}")
    # Upper-case ASCII only: str.upper() would turn "ß" into "SS" and "ı" into "I".
    s = code.strip().translate(_ASCII_UPPER)
    parts = s.split("-")
    if len(parts) != 3:
        raise InvalidCodeError(
            f"bad deal code {code.strip()!r}: expected three parts like HM1-N-AAAAAAB"
        )
    prefix, family, digits = parts
    if prefix != PREFIX:
        raise InvalidCodeError(f"bad deal code {code.strip()!r}: wrong prefix {prefix!r}, "
                               f"expected {PREFIX!r}")
    if family not in FAMILIES:
        raise InvalidCodeError(
            f"bad deal code {code.strip()!r}: unknown deal family {family!r} "
            f"(known: {', '.join(FAMILIES)})"
        )
    bad = re.search(r"[^A-Z]", digits)
    if bad:
        raise InvalidCodeError(
            f"bad deal code {code.strip()!r}: {bad.group()!r} is not a letter A-Z"
        )
    if len(digits) != DIGITS:
        raise InvalidCodeError(
            f"bad deal code {code.strip()!r}: wrong length, the deal number has "
            f"{len(digits)} letters instead of {DIGITS}"
        )
    number = 0
    for ch in digits:
        number = number * 26 + (ord(ch) - _A)
    return family, number


def canonical_code(code: str) -> str:
    """The canonical (upper-case, trimmed) form of a code."""
    family, number = parse_code(code)
    return number_to_code(number, family)


def is_code(text: str) -> bool:
    """Whether ``text`` parses as a deal code."""
    try:
        parse_code(text)
    except InvalidCodeError:
        return False
    return True


def random_numbers(count: int, seed: int) -> list[int]:
    """``count`` distinct deal numbers drawn uniformly, reproducibly from ``seed``."""
    if count < 0 or count > DEAL_COUNT:
        raise InvalidCodeError(f"cannot draw {count} distinct deals")
    rng = random.Random(seed)
    return rng.sample(range(DEAL_COUNT), count)


def random_codes(count: int, seed: int) -> list[str]:
    """``count`` distinct random deal codes, reproducibly from ``seed``."""
    return [number_to_code(n) for n in random_numbers(count, seed)]
