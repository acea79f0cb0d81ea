"""Checking what a request asks: each field typed and bounded, each error naming it."""

from __future__ import annotations

import asyncio

import pytest

from halfmoon.board import validation as check
from halfmoon.board.errors import BadRequest


def test_sources_in_any_case_and_nothing_else():
    assert check.source("p5") == "P5" and check.source(" R8 ") == "R8"
    for bad in ("P0", "P13", "R9", "X1", "", "P1+P8", "../etc"):
        with pytest.raises(BadRequest, match="expected P1-P12 or R1-R8"):
            check.source(bad)
    with pytest.raises(BadRequest, match="'source' is missing"):
        check.source(None)


def test_a_deal_is_a_code_or_a_number_never_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check.deal("hm1-n-aaaaaab").code == "HM1-N-AAAAAAB"
    assert check.deal(" 25 ").code == "HM1-N-AAAAAAZ"
    (tmp_path / "deal.txt").write_text("P1: 5s\n")
    with pytest.raises(BadRequest, match="neither a deal code .* nor a deal number"):
        check.deal("deal.txt")
    with pytest.raises(BadRequest, match="wrong length"):
        check.deal("HM1-N-AAAAAA")
    with pytest.raises(BadRequest, match="outside 0..8,031,810,175"):
        check.deal("8031810176")
    with pytest.raises(BadRequest, match="no deal given"):
        check.deal("  ")
    with pytest.raises(BadRequest, match="at most 40 characters"):
        check.deal("9" * 41)
    with pytest.raises(BadRequest, match="neither"):
        check.deal("²")


def test_fields_are_typed_and_known():
    allowed = {"source": str, "version": int}
    assert check.check_fields({"source": "P1"}, allowed) == {"source": "P1", "version": None}
    with pytest.raises(BadRequest, match="unknown field 'sauce'"):
        check.check_fields({"sauce": "P1"}, allowed)
    with pytest.raises(BadRequest, match="'version' must be a whole number, got true"):
        check.check_fields({"version": True}, allowed)
    with pytest.raises(BadRequest, match="'source' must be text, got 5"):
        check.check_fields({"source": 5}, allowed)
    with pytest.raises(BadRequest, match="'move_errors' must be true or false"):
        check.settings_fields({"move_errors": 1})
    with pytest.raises(BadRequest, match="'settings' must be an object"):
        check.settings_fields([])


def test_query_flags_and_waits():
    assert check.flag({"hint": "1"}, "hint") and not check.flag({}, "hint")
    assert not check.flag({"hint": "0"}, "hint")
    with pytest.raises(BadRequest, match="'hint' must be 1 or 0"):
        check.flag({"hint": "maybe"}, "hint")
    assert check.wait_seconds({"wait": "2.5"}) == 2.5 and check.wait_seconds({}) == 0
    for bad in ("-1", "26", "soon", "nan"):
        with pytest.raises(BadRequest, match="'wait' must be"):
            check.wait_seconds({"wait": bad})
    with pytest.raises(BadRequest, match="unknown query 'x'"):
        check.known_query({"x": "1"}, ("wait",))
    check.game_id("abc_DEF-123")
    with pytest.raises(BadRequest, match="bad game id"):
        check.game_id("a b")


class Body:
    """Just enough of a Starlette request for json_body."""

    def __init__(self, body: bytes, kind: str = "application/json", length=None) -> None:
        self.headers = {"content-type": kind}
        if length is not None:
            self.headers["content-length"] = str(length)
        self._body = body

    async def stream(self):
        for k in range(0, len(self._body), 1000):
            yield self._body[k:k + 1000]


def read(request):
    return asyncio.run(check.json_body(request))


def test_json_bodies():
    assert read(Body(b'{"source": "P1"}')) == {"source": "P1"}
    assert read(Body(b"")) == {}
    assert read(Body(b"{}", "application/json; charset=utf-8")) == {}
    with pytest.raises(check.UnsupportedMediaType, match="application/json, not 'text/plain'"):
        read(Body(b"{}", "text/plain"))
    with pytest.raises(BadRequest, match="not valid JSON"):
        read(Body(b"{source"))
    with pytest.raises(BadRequest, match="a JSON object, not list"):
        read(Body(b"[1]"))
    with pytest.raises(check.PayloadTooLarge, match="at most 4096 bytes"):
        read(Body(b" " * 5000))  # no length given: counted while read
    with pytest.raises(check.PayloadTooLarge):
        read(Body(b"{}", length=10**9))
