"""The play-along board's advice in a real browser when it cannot settle: a stage stopped by
a limit (a solver job past its time limit) is drawn as stopped, never as settled; at 0 % the
page says so and offers the undo back to the last position shown winnable.  The browser,
the served board and the helpers are those of ``test_browser.py``; with HALFMOON_SHOTS=DIR
the screenshots of the docs are taken here too."""

from __future__ import annotations

import re
from collections import OrderedDict

import pytest
from board_helpers import EXAMPLE, WAIT, shared_pool
from test_browser import REQUIRED, _chromium, _play_along, _served, _shot, _shown, open_board

from halfmoon.board.along_view import ALONG_STAGES, TRIES
from halfmoon.board.server import create_app
from halfmoon.board.service import Board
from halfmoon.game.deal import Deal


@pytest.fixture(scope="module")
def browser():
    path = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if REQUIRED:
            pytest.fail("Playwright is not installed (pip install -e '.[dev]')")
        pytest.skip("Playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield chromium
        chromium.close()


class _LastStageStops(OrderedDict):
    """The board's answers on games from the app, where the last stage (384 layouts) of a
    position always stops at a solver job's time limit, as on a busy machine: its answer
    is kept as the pool's own answer for a job past its limit leaves it (the earlier stage
    kept, stopped by the limit, :data:`TRIES` times)."""

    def __setitem__(self, key, answer) -> None:
        kept = self.get(key)
        if answer.get("samples", 0) >= ALONG_STAGES[-1] and kept is not None \
                and key[0] == "along":
            stops = max(kept.get("stops", 0) + 1, TRIES)
            answer = {**kept, "stop": "time limit of 10 s", "limit": True, "stops": stops}
        super().__setitem__(key, answer)


def _along_page(browser, url, cards, width=1400, height=900):
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT * 1000)
    context = browser.new_context(viewport={"width": width, "height": height})
    errors: list = []
    page = open_board(context, url, errors)
    page.locator("#along-button").click()
    page.locator("#along-cards").fill(" ".join(cards))
    page.locator("#along-start").click()
    expect(page.locator("#code")).to_have_text("from the app")
    return context, page, errors


def test_browser_a_stage_stopped_by_a_limit_is_said_never_settled(browser):
    """The last stage (384 layouts) stopped by the time limit, twice: the page says which
    stage it stopped at and why, draws the leading move as not settled (no "Play", no row
    chosen, no card outlined), says what the player can do, and "Try again" asks again.
    With HALFMOON_SHOTS=DIR, it at 1400 px and at 390 px."""
    from playwright.sync_api import expect
    from test_along import DEAD_END_DEAL

    deal = Deal.from_number(DEAD_END_DEAL)
    board = Board(shared_pool(), start_deal=EXAMPLE)
    board.along = _LastStageStops(board.along)
    with _served(create_app(board)) as url:
        context, page, errors = _along_page(browser, url, _shown(deal))
        try:
            says = page.locator("#fair-says")
            expect(says).to_have_attribute("data-kind", "stopped")
            expect(says.locator(".leaning")).to_have_text(
                re.compile(r"^Leaning to \S+ P\d+.*, not settled$"))
            expect(says.locator(".why")).to_contain_text(
                "Stopped at 64 of 384 layouts: the machine is busy (a solve ran past its time "
                "limit of 10 s). Not yet clear of ")
            expect(says).not_to_contain_text("Play")
            expect(page.locator("#fair-stopped")).to_have_text(
                "Stopped at 64 of 384 layouts: the machine is busy (a solve ran past its time "
                "limit of 10 s).")
            expect(page.locator("#fair-stage")).to_contain_text(
                "Shares of 64 sampled layouts, stopped at 64 of 384.")
            expect(page.locator("#fair-do")).to_contain_text(
                "Wait, then Try again (the board asks for the layouts again), or take the "
                "leading move knowing it is not settled.")
            expect(page.locator("#fair-again")).to_be_visible()
            expect(page.locator("#fair-undo")).to_be_hidden()
            expect(page.locator("#fair tr.chosen")).to_have_count(0)
            expect(page.locator("#fair tr.leaning")).to_contain_text("leading so far")
            expect(page.locator(".card.hinted")).to_have_count(0)
            expect(page.locator("#says")).to_contain_text("64 layouts")
            _shot(page, "board-along-stopped")
            # Try again: the stopped stage is asked for again (here it stops again), and
            # the leading move is never drawn as settled meanwhile
            page.locator("#fair-again").click()
            expect(page.locator("#fair-stopped")).to_contain_text("Stopped at 64 of 384 layouts")
            expect(says).to_have_attribute("data-kind", re.compile(r"^(stopped|provisional)$"))
        finally:
            context.close()
    assert errors == [], errors


# Deal 88 played along: after these 3 moves no layout of the 384 sampled can be won (after
# 2: 27 of 64), and a legal move is left
ZERO_DEAL, ZERO_MOVES = 88, ("P3+P4+P7", "P8+P12", "P10+R4")


def test_browser_at_0_percent_says_so_and_offers_the_undo(browser):
    """No layout won: the page says so ("None of the 384 layouts …"), plays nothing (no
    "Play", no card outlined) and offers the undo back to the last position shown
    winnable; the undo goes there.  With HALFMOON_SHOTS=DIR, it at 1400 px and 390 px."""
    from playwright.sync_api import expect

    deal = Deal.from_number(ZERO_DEAL)
    with _served(create_app(Board(shared_pool(), start_deal=EXAMPLE))) as url:
        context, page, errors = _along_page(browser, url, _shown(deal))
        try:
            told: set = set()
            for move in ZERO_MOVES[:2]:  # each position's share shown before the next move
                _play_along(page, deal, move, told=told)
                expect(page.locator("#says")).to_contain_text(re.compile(r"Winnable in [1-9]"))
            _play_along(page, deal, ZERO_MOVES[2], told=told)
            says = page.locator("#fair-says")
            expect(says).to_have_attribute("data-kind", "none")
            expect(says).to_have_text("None of the 384 layouts sampled can be won from here: "
                                      "the game is very probably lost.")
            expect(says).not_to_contain_text("Play")
            undo = page.locator("#fair-undo")
            expect(undo).to_have_text("Undo 1 move: back to before move 3")
            expect(page.locator("#fair-do")).to_contain_text(
                re.compile(r"the last position shown winnable \(\d+\s% of its layouts\)"))
            expect(page.locator("#fair-again")).to_be_hidden()
            expect(page.locator(".card.hinted")).to_have_count(0)
            expect(page.locator("#fair tr.chosen")).to_have_count(0)
            expect(page.locator("#says")).to_contain_text("Winnable in 0 %")
            _shot(page, "board-along-zero")
            undo.click()  # back there; the card told since stays known
            expect(page.locator("#moves")).to_have_text("2")
            expect(page.locator("#reveal")).to_be_hidden()
            expect(page.locator("#says")).to_contain_text(re.compile(r"Winnable in \d+ %"))
        finally:
            context.close()
    assert errors == [], errors
