"""Reading and checking what a request asks: every field typed, bounded and named in
the error.

A deal asked for by the page is a code or a number, never a file: the board reads no
file but its own static ones and the layout named on the command line.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from halfmoon.game.codes import MAX_NUMBER, is_code
from halfmoon.game.deal import SOURCES, Deal
from halfmoon.game.errors import InvalidCodeError

from .errors import BadRequest, BoardError

MAX_BODY = 4096  # bytes: the largest request the page sends is a few dozen
MAX_WAIT = 25.0  # seconds a request for news may wait
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class PayloadTooLarge(BoardError):
    status = 413


class UnsupportedMediaType(BoardError):
    status = 415


async def json_body(request) -> dict:
    """The request's body as a JSON object, sent as ``application/json`` (an empty body
    reads as ``{}``)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise PayloadTooLarge(f"the body is too large (at most {MAX_BODY} bytes)")
    # Only JSON: a page of another site cannot send it without the browser asking first.
    if kind != "application/json":
        raise UnsupportedMediaType(
            f"the body must be sent as application/json, not {kind or 'without a type'!r}")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise PayloadTooLarge(f"the body is too large (at most {MAX_BODY} bytes)")
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise BadRequest(f"the body must be a JSON object, not {type(data).__name__}")
    return data


def check_fields(body: dict, allowed: dict[str, type]) -> dict:
    """``body`` with only ``allowed`` fields, each of its type (None: absent)."""
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise BadRequest(f"unknown field {unknown[0]!r} (expected {', '.join(sorted(allowed))})")
    out = {}
    for name, kind in allowed.items():
        value = body.get(name)
        # JSON's true is not a number here, nor a number a flag
        if value is not None and (not isinstance(value, kind) or
                                  (kind is int and isinstance(value, bool))):
            raise BadRequest(f"field {name!r} must be {_KIND_NAMES[kind]}, "
                             f"got {json.dumps(value)[:40]}")
        out[name] = value
    return out


_KIND_NAMES = {str: "text", int: "a whole number", bool: "true or false", dict: "an object"}


def required(body: dict, name: str, what: str):
    """A field that must be given (``what`` says what it holds)."""
    if body.get(name) is None:
        raise BadRequest(f"field {name!r} is missing ({what})")
    return body[name]


def source(value: Optional[str]) -> str:
    """A pile (``P1``–``P12``) or reserve slot (``R1``–``R8``), any letter case."""
    if value is None:
        raise BadRequest("field 'source' is missing (a pile P1-P12 or a slot R1-R8)")
    text = value.strip().upper()
    if text not in SOURCES:
        raise BadRequest(f"unknown source {value[:20]!r} (expected P1-P12 or R1-R8)")
    return text


def deal(value: str) -> Deal:
    """A deal named by its code (``HM1-N-AAAAAAB``, any letter case) or its number."""
    text = value.strip()
    if not text:
        raise BadRequest("no deal given: type a deal code such as HM1-N-AAAAAAB or a number")
    if len(text) > 40:
        raise BadRequest("a deal code or number has at most 40 characters")
    if is_code(text):
        return Deal(text)
    if text.isascii() and text.isdigit():
        number = int(text)
        if number > MAX_NUMBER:
            raise BadRequest(f"deal number {number} is outside 0..{MAX_NUMBER:,}")
        return Deal.from_number(number)
    if text.upper().startswith("HM"):
        try:
            Deal(text)
        except InvalidCodeError as exc:
            raise BadRequest(str(exc)) from None
    raise BadRequest(f"{text!r} is neither a deal code (HM1-N-AAAAAAB) nor a deal number")


def game_id(value: str) -> str:
    if not GAME_ID.match(value):
        raise BadRequest(f"bad game id {value[:40]!r}")
    return value


def flag(query, name: str) -> bool:
    """A query flag: ``1``/``true``/``yes`` or ``0``/``false``/``no`` (absent: false)."""
    value = query.get(name)
    if value is None:
        return False
    text = value.strip().lower()
    if text in ("1", "true", "yes"):
        return True
    if text in ("0", "false", "no", ""):
        return False
    raise BadRequest(f"query {name!r} must be 1 or 0, got {value[:20]!r}")


def wait_seconds(query) -> float:
    """How long a request for news may wait: 0 to 25 seconds."""
    value = query.get("wait")
    if value is None:
        return 0.0
    try:
        seconds = float(value)
    except ValueError:
        raise BadRequest(f"query 'wait' must be a number of seconds, got {value[:20]!r}") from None
    if not 0 <= seconds <= MAX_WAIT:
        raise BadRequest(f"query 'wait' must be between 0 and {MAX_WAIT:g} seconds, "
                         f"got {value[:20]!r}")
    return seconds


def known_query(query, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(query) - set(allowed))
    if unknown:
        raise BadRequest(f"unknown query {unknown[0][:20]!r} (expected {', '.join(allowed)})")


def settings_fields(value: Any) -> dict:
    """``{"move_errors": bool, "placement_assistance": bool}``, either left out."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest("field 'settings' must be an object")
    return check_fields(value, {"move_errors": bool, "placement_assistance": bool})
