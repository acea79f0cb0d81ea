"""Turning what a user types (a code, a deal number, a layout file) into a Deal."""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Union

from .codes import is_code, number_to_code
from .deal import Deal
from .errors import HalfMoonError
from .layouts import read_layout


def load_deal(arg: str) -> Deal:
    """A deal from a code (``HM1-N-AAAAAAB``), a deal number (``1``) or a layout file."""
    text = arg.strip()
    if is_code(text):
        return Deal(text)
    if _is_number(text):
        return Deal(number_to_code(int(text)))
    path = Path(arg)
    if text and path.is_dir():
        raise HalfMoonError(f"{arg!r} is a directory, not a layout file")
    if path.is_file():
        return read_layout(path)
    if text.upper().startswith("HM"):
        Deal(text)  # raises the code's own, precise error
    if text.startswith("-") and _is_number(text[1:]):
        number_to_code(int(text))  # raises: a deal number below 0, named as such
    if "/" in text or path.suffix[1:].isalpha():  # written as a file's name: it is missing
        raise HalfMoonError(f"no such file: {arg!r}")
    raise HalfMoonError(f"{arg!r} is neither a deal code, a deal number nor a layout file")


def as_deal(deal: Union[Deal, int, str]) -> Deal:
    """A deal given as a Deal, a deal number (numpy's integers too) or what
    :func:`load_deal` reads."""
    if isinstance(deal, Deal):
        return deal
    if isinstance(deal, numbers.Integral):
        return Deal.from_number(int(deal))
    return load_deal(deal)


def deal_label(arg: str, deal: Deal) -> str:
    """How results name an input: the canonical code, or the file name of a layout."""
    text = arg.strip()
    if is_code(text) or _is_number(text):
        return deal.code or text
    return arg


def _is_number(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also accepts "²", which ``int`` rejects."""
    return text.isascii() and text.isdigit()
