"""The board in a real browser: headless Chromium (the system's) driven by Playwright.

Playwright's ``expect`` waits for what the page shows, so no test sleeps.  Without a
Chromium the tests are skipped, saying why; with HALFMOON_REQUIRE_BROWSER=1 (as CI sets
it) they fail instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading

import pytest
from board_helpers import EXAMPLE, WAIT, shared_pool

from halfmoon.board.opinion import move_cards
from halfmoon.board.server import address_of, create_app, listen
from halfmoon.board.service import Board
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from solver import solve

REQUIRED = os.environ.get("HALFMOON_REQUIRE_BROWSER") == "1"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    reason = "no Chromium found (apt-get install chromium chromium-driver)"
    if REQUIRED:
        pytest.fail(f"{reason}, and HALFMOON_REQUIRE_BROWSER=1")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def board_url():
    """The board on the rules' example, served by uvicorn on a free local port."""
    import uvicorn

    sock = listen("127.0.0.1", 0)
    app = create_app(Board(shared_pool(), start_deal=EXAMPLE))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()  # the socket already listens: the first request waits for the app
    yield address_of(sock)
    server.should_exit = True
    thread.join(timeout=30)
    sock.close()


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


@pytest.fixture
def page(browser, board_url):
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT * 1000)
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(board_url)
    expect(page.locator("#card-P1")).to_have_attribute("data-card", "5♠")
    yield page
    context.close()
    assert errors == [], errors


DIMMED = re.compile(r"\bdimmed\b")


def card(page, source):
    return page.locator(f"#card-{source}")


def test_browser_plays_the_rules_example(page):
    from playwright.sync_api import expect

    card(page, "P1").click()
    expect(card(page, "P1")).to_have_class("card selected")
    card(page, "P8").click()  # 5♠ + 6♦
    expect(page.locator("#score")).to_have_text("10")
    expect(card(page, "P8")).to_have_attribute("data-card", "J♣")
    expect(page.locator("#label-P8")).to_have_text("8:1")
    page.keyboard.type("P8")  # J♣, Q♥, K♥ by keys this time
    expect(card(page, "P8")).to_have_class("card selected")
    page.keyboard.type("P5")
    page.keyboard.type("P3")
    expect(page.locator("#score")).to_have_text("25")
    expect(page.locator("#moves")).to_have_text("2")
    expect(page.locator("#label-P8")).to_have_text("8:0")
    expect(card(page, "P3")).to_have_class("card empty")
    expect(page.locator("#movelist li")).to_have_count(2)
    card(page, "R1").click()
    card(page, "R2").click()
    expect(page.locator("#banner")).to_be_visible()
    expect(page.locator("#announcement")).to_have_text("Victory: every card is removed.")
    expect(page.locator("#light")).to_have_attribute("data-light", "won")


def test_browser_dims_with_placement_assistance(page):
    from playwright.sync_api import expect

    card(page, "P1").click()
    expect(card(page, "P1")).to_have_class("card selected")
    expect(page.locator(".card.dimmed")).to_have_count(0)  # off by default
    page.locator("#placement").check()
    for source in ("P3", "P5", "R1", "R2"):
        expect(card(page, source)).to_have_class(DIMMED)
    expect(card(page, "P8")).not_to_have_class(DIMMED)  # 6♦ combines with 5♠: lit
    expect(card(page, "P1")).not_to_have_class(DIMMED)
    page.locator("#placement").uncheck()
    expect(page.locator(".card.dimmed")).to_have_count(0)


def test_browser_shows_move_errors(page):
    from playwright.sync_api import expect

    card(page, "P1").click()
    card(page, "R1").click()  # 5♠ + A♥: no message by default
    expect(page.locator(".card.selected")).to_have_count(0)
    expect(page.locator("#message")).to_be_hidden()
    page.locator("#move-errors").check()
    expect(page.locator("#move-errors")).to_be_checked()
    card(page, "P1").click()
    card(page, "R1").click()
    expect(page.locator("#message")).to_have_text("The sum must equal 11")
    card(page, "P3").click()  # K♥, then 5♠
    card(page, "P1").click()
    expect(page.locator("#message")).to_have_text("Requires a Jack, a Queen and a King")


def test_browser_undo(page):
    from playwright.sync_api import expect

    card(page, "P1").click()
    card(page, "P8").click()
    expect(page.locator("#moves")).to_have_text("1")
    page.locator("#undo").click()
    expect(page.locator("#moves")).to_have_text("0")
    expect(page.locator("#score")).to_have_text("0")
    expect(card(page, "P1")).to_have_attribute("data-card", "5♠")
    expect(card(page, "P8")).to_have_attribute("data-card", "6♦")
    expect(page.locator("#undo")).to_be_disabled()
    card(page, "R1").click()
    card(page, "R2").click()
    expect(page.locator("#moves")).to_have_text("1")
    page.keyboard.press("u")
    expect(page.locator("#moves")).to_have_text("0")


def test_browser_winnable_light_and_hint(page):
    from playwright.sync_api import expect

    expect(page.locator("#light")).to_have_attribute("data-light", "win")
    expect(page.locator("#says")).to_have_text("Winnable")
    page.locator("#hint-button").click()
    first = solve(EXAMPLE, budget=10_000).moves[0]
    expect(page.locator("#hint")).to_have_text(f"Play {move_cards(Game(EXAMPLE), first)}")
    for source in first.sources:
        expect(card(page, source)).to_have_class(re.compile(r"\bhinted\b"))
    expect(page.locator(".card.hinted")).to_have_count(len(first.sources))


def test_browser_drops_an_answer_for_another_position(browser, board_url):
    """An opinion about another position than the one drawn is never shown."""
    from playwright.sync_api import expect

    fake = {"position": "not-this-one", "light": "loss", "says": "Lost", "moves": [],
            "busy": False, "hint": None, "line": None, "analysis": None, "version": 0,
            "tag": "stale"}
    answered = []

    def stale(route):
        if answered:
            return route.abort()  # later asks fail: the page retries, still showing nothing
        answered.append(route.request.url)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(fake))

    context = browser.new_context()
    page = context.new_page()
    page.route("**/opinion*", stale)
    # the page asks again only once it has dealt with the stale answer: wait for that
    with page.expect_event("requestfailed", predicate=lambda r: "/opinion" in r.url):
        page.goto(board_url)
    assert len(answered) == 1
    expect(card(page, "P1")).to_have_attribute("data-card", "5♠")
    expect(page.locator("#light")).to_have_attribute("data-light", "pending")
    expect(page.locator("#says")).to_have_text("Thinking…")
    context.close()


def test_browser_fair_hint(page):
    from playwright.sync_api import expect

    # the peeking hint first: its outlines are on the cards
    page.locator("#hint-button").click()
    expect(page.locator(".card.hinted")).not_to_have_count(0)
    page.locator("#fair-button").click()
    expect(page.locator("#fair-panel")).to_be_visible()
    expect(page.locator("#fair-says")).to_have_attribute("data-kind", "move")
    expect(page.locator("#fair-note")).to_contain_text("never looks under the tops")
    legal = list(Game(EXAMPLE).legal_moves)
    expect(page.locator("#fair li")).to_have_count(len(legal))
    expect(page.locator("#fair li.chosen")).to_have_count(1)
    expect(page.locator("#fair li").first).to_contain_text("stays winnable in")
    # each share with its interval, and one recommendation on the table: the peeking hint's
    # outlines are gone while the fair hint is shown
    expect(page.locator("#fair li").first).to_contain_text(re.compile(r"\(\d+–\d+ %; \d+ of"))
    expect(page.locator(".card.hinted")).to_have_count(0)
    # the last stage
    expect(page.locator("#fair-note")).to_contain_text("Shares of 256 sampled layouts.")


def test_browser_plays_along_with_the_app(page):
    """A whole game from the app: the 20 cards entered (typed, and one picked), moves, the
    cards that appear told beside their piles (picked, and one typed), an undo, the dead end
    and its review.  With HALFMOON_SHOTS=DIR, the screenshots of docs/board.md are taken."""
    from playwright.sync_api import expect
    from test_along import DEAD_END_DEAL, DEAD_END_MOVES, shown

    shots = os.environ.get("HALFMOON_SHOTS")
    deal = Deal.from_number(DEAD_END_DEAL)
    cards = [str(c) for c in shown(deal)]
    page.locator("#along-button").click()
    expect(page.locator("#along-entry")).to_be_visible()
    expect(page.locator("#table")).to_be_hidden()
    entry = page.locator("#along-cards")
    entry.fill("5S 5s")  # both fives of spades: the picker no longer offers one
    expect(page.locator('#along-picker button[data-card="5s"]')).to_be_disabled()
    expect(page.locator('#along-picker button[data-card="6d"]')).to_be_enabled()
    entry.fill("5S 5s 5s")
    expect(page.locator("#along-error")).to_contain_text("a third 5♠ at P3")
    entry.fill(" ".join(cards[:19]))
    expect(page.locator("#along-slots li.next")).to_have_attribute("data-place", "R8")
    expect(page.locator("#along-start")).to_be_disabled()
    if shots:
        page.screenshot(path=os.path.join(shots, "board-along-entry.png"))
    page.locator(f'#along-picker button[data-card="{cards[19]}"]').click()
    expect(page.locator("#along-start")).to_be_enabled()
    page.locator("#along-start").click()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#code")).to_have_text("from the app")
    expect(card(page, "P1")).to_have_attribute("data-card", shown(deal)[0].symbol())
    expect(page.locator("#light")).to_have_attribute("data-light", "share")
    expect(page.locator("#says")).to_contain_text("Winnable in")
    expect(page.locator("#fair li")).to_have_count(len(list(Game(deal).legal_moves)))
    expect(page.locator("#fair-note")).to_contain_text("Uses only the cards entered")
    if shots:
        expect(page.locator("#fair-note")).to_contain_text("384 sampled layouts.")
        page.screenshot(path=os.path.join(shots, "board-along-shares.png"))

    def play(move, typed=False):
        for source in move.split("+"):
            card(page, source).click()
        waiting = [s for s in move.split("+") if s.startswith("P")]
        for _ in waiting:
            expect(page.locator("#reveal")).to_be_visible()
            pile = page.locator("#reveal-says").inner_text().split(" on ")[1].split("?")[0]
            expect(card(page, pile)).to_have_class(re.compile(r"\bunknown\b"))
            i = int(pile[1:]) - 1
            count = int(page.locator(f"#label-{pile}").inner_text().split(":")[1])
            told = deal.piles[i][count - 1]
            if typed:
                page.locator("#reveal-card").fill(str(told).upper())
                page.locator("#reveal-card").press("Enter")
            else:
                page.locator(f'#reveal-picker button[data-card="{told}"]').click()
            expect(card(page, pile)).to_have_attribute("data-card", told.symbol())
        expect(page.locator("#reveal")).to_be_hidden()

    play(DEAD_END_MOVES[0])
    play(DEAD_END_MOVES[1], typed=True)
    expect(page.locator("#moves")).to_have_text("2")
    page.locator("#undo").click()  # the move and its reveals taken back
    expect(page.locator("#moves")).to_have_text("1")
    expect(card(page, "P4")).to_have_attribute("data-card", shown(deal)[3].symbol())
    play(DEAD_END_MOVES[1])
    for move in DEAD_END_MOVES[2:]:
        play(move)
    expect(page.locator("#banner")).to_be_visible()
    expect(page.locator("#announcement")).to_contain_text("Dead end")
    expect(page.locator("#review-panel")).to_be_visible()
    expect(page.locator("#review li")).to_have_count(len(DEAD_END_MOVES))
    expect(page.locator("#review-says")).to_contain_text("Dead end.")
    expect(page.locator("#review-says")).not_to_contain_text("More layouts coming")
    expect(page.locator("#review li").last).to_contain_text("→ 0 %")
    if shots:
        page.screenshot(path=os.path.join(shots, "board-along-review.png"))
