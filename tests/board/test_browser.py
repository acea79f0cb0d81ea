"""The board in a real browser: headless Chromium (the system's) driven by Playwright.

Playwright's ``expect`` waits for what the page shows, so no test sleeps.  Without a
Chromium the tests are skipped, saying why; with HALFMOON_REQUIRE_BROWSER=1 (as CI sets
it) they fail instead.
"""

from __future__ import annotations

import contextlib
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
    with _served(create_app(Board(shared_pool(), start_deal=EXAMPLE))) as url:
        yield url


def _serve(app, sock):
    """uvicorn serving ``app`` on ``sock`` in a thread; returns the server and the thread
    (the socket already listens: the first request waits for the app)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    return server, thread


@contextlib.contextmanager
def _served(app):
    """``app`` served on a free local port for the block (its address), stopped after it."""
    sock = listen("127.0.0.1", 0)
    server, thread = _serve(app, sock)
    try:
        yield address_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@contextlib.contextmanager
def launched_chromium():
    """Chromium driven by Playwright, closed after (a test module's browser fixture)."""
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


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def page(browser, board_url):
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT * 1000)
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    errors = []
    page = open_board(context, board_url, errors)
    yield page
    context.close()
    assert errors == [], errors


DIMMED = re.compile(r"\bdimmed\b")
ADVICE = re.compile(r"^(move|provisional)$")  # the fair hint's answer, settled or not


def open_board(context, url, errors):
    """A new tab of ``context`` on the board at ``url``, once the example deal is drawn; its
    page errors gathered in ``errors``."""
    from playwright.sync_api import expect

    page = _opened(context, url, errors)
    expect(card(page, "P1")).to_have_attribute("data-card", "5♠")
    return page


def _opened(context, url, errors):
    """A new tab of ``context`` on ``url``, its page errors gathered in ``errors``."""
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page


@contextlib.contextmanager
def _tab(browser, url, **options):
    """A tab of a new context of ``browser`` (``options``: its viewport and the like) on
    ``url``; the context closed after, and no page error in it."""
    context = browser.new_context(**options)
    errors: list = []
    try:
        yield _opened(context, url, errors)
    finally:
        context.close()
    assert errors == [], errors


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
    expect(page.locator("#fair tr")).to_have_count(len(legal))
    expect(page.locator("#fair tr.chosen")).to_have_count(1)
    expect(page.locator("#fair tr").first).to_contain_text(re.compile(r"\d+\u00a0% \(\d+\)"))
    # the position's share from the same layouts, and one recommendation on the table: the
    # peeking hint's outlines give way to the recommended move's
    expect(page.locator("#fair-position")).to_contain_text("This position:")
    advice_is_coherent(page, light=False)
    # the last stage
    expect(page.locator("#fair-stage")).to_contain_text("Shares of 256 sampled layouts.")
    advice_is_coherent(page, light=False)
    _shot(page, "board-fair-hint", phone=False)


def advice_is_coherent(page, light=True):
    """On the position on the board, once its fair hint is shown: the position's share and
    every move's come from the same layouts, so no move's share is above the position's;
    the highlighted move (the row marked and the cards outlined on the table) is one, and
    its share is not clearly below the best's (the paired interval of the difference
    reaches 0); with ``light``, the light gives the position's share too.  Returns the
    number of layouts."""
    from playwright.sync_api import expect

    expect(page.locator("#fair-panel")).to_be_visible()  # drawn for this position
    expect(page.locator("#fair-says")).to_have_attribute("data-kind", ADVICE)
    # one snapshot: the panel and the light are drawn from one answer
    seen = page.evaluate("""() => {
      const panel = document.getElementById("fair-panel");
      return {hidden: panel.hidden, wins: panel.dataset.positionWins,
              samples: panel.dataset.samples,
              kind: document.getElementById("fair-says").dataset.kind,
              says: document.getElementById("says").textContent,
              rows: [...document.querySelectorAll("#fair tr")].map((tr) => ({
                keeps: Number(tr.dataset.keeps), high: Number(tr.dataset.diffHigh),
                chosen: tr.classList.contains("chosen"),
                leaning: tr.classList.contains("leaning"), sources: tr.dataset.sources})),
              hinted: [...document.querySelectorAll(".card.hinted")].map((c) => c.dataset.source)};
    }""")
    assert not seen["hidden"], seen  # drawn for this position, not left from the last
    wins, n = int(seen["wins"]), int(seen["samples"])
    rows = seen["rows"]
    assert rows and all(r["keeps"] <= wins <= n for r in rows), seen
    assert max(r["keeps"] for r in rows) <= wins
    chosen = [r for r in rows if r["chosen"]]
    if seen["kind"] == "provisional":  # not settled: a leader, nothing outlined
        leaning = [r for r in rows if r["leaning"]]
        assert not chosen and len(leaning) == 1 and seen["hinted"] == [], seen
        assert leaning[0]["keeps"] == max(r["keeps"] for r in rows), seen
        return n
    assert len(chosen) == 1, seen
    assert chosen[0]["high"] >= 0, seen  # not clearly below the best
    assert sorted(seen["hinted"]) == sorted(chosen[0]["sources"].split("+")), seen
    if light:
        assert seen["says"].replace("\u00a0", " ").startswith(
            f"Winnable in {round(100 * wins / n)} % ") and \
            f"{n} layouts" in seen["says"], seen
    return n


# --- a game from the app, played along -----------------------------------------------------
def _along_deal():
    """Deal 27 (winnable) and four moves of it that meet a dead end."""
    from test_along import DEAD_END_DEAL, DEAD_END_MOVES

    return Deal.from_number(DEAD_END_DEAL), list(DEAD_END_MOVES)


def _winning_line(deal, moves):
    """The solver's winning line from the position after ``moves`` (winnable)."""
    from halfmoon.game.moves import Move

    game = Game(deal)
    for move in moves:
        game.play(Move.parse(move))
    line = solve(game.remaining_deal(), budget=200_000)
    assert line.verdict == "win"
    return [str(m) for m in line.moves]


def _shown(deal):
    return [str(c) for c in [p[-1] for p in deal.piles] + list(deal.reserve)]


def _play_along(page, deal, move, typed=False, check=None, told=None):
    """Tap ``move``'s cards, then tell each card that appears as the app shows it (picked,
    or typed); ``check(page)`` on the position reached, once nothing waits.  ``told``: the
    places (pile, depth) told so far in this game, kept up to date: a card told once is
    known after an undo, so a move that uncovers its place again asks for nothing."""
    from playwright.sync_api import expect

    told = set() if told is None else told
    sources = move.split("+")
    # a card appears on each pile played that had more than one, unless told before
    uncovered = [(s, _count(page, s) - 2) for s in sources
                 if s.startswith("P") and _count(page, s) > 1]
    appear = sum((s, d) not in told for s, d in uncovered)
    played = int(page.locator("#moves").inner_text())
    for source in sources:
        card(page, source).click()
    _tell(page, deal, appear, typed, told)
    # the move has landed (with no card to tell, the taps' answer may still be on its way)
    expect(page.locator("#moves")).to_have_text(str(played + 1))
    for s, d in uncovered:
        expect(card(page, s)).to_have_attribute("data-card",
                                                deal.piles[int(s[1:]) - 1][d].symbol())
    if check is not None:
        check(page)


def _tell(page, deal, piles, typed=False, told=None):
    """Tell the cards that appeared on ``piles`` piles, one after another, as the dialog
    beside each asks (each place told added to ``told``)."""
    from playwright.sync_api import expect

    for _ in range(piles):
        expect(page.locator("#reveal")).to_be_visible()
        pile = page.locator("#reveal-says").inner_text().split(" on ")[1].split("?")[0]
        expect(card(page, pile)).to_have_class(re.compile(r"\bunknown\b"))
        depth = _count(page, pile) - 1
        card_told = deal.piles[int(pile[1:]) - 1][depth]
        if typed:
            page.locator("#reveal-card").fill(str(card_told).upper())
            page.locator("#reveal-card").press("Enter")
        else:
            page.locator(f'#reveal-picker button[data-card="{card_told}"]').click()
        expect(card(page, pile)).to_have_attribute("data-card", card_told.symbol())
        if told is not None:
            told.add((pile, depth))
    expect(page.locator("#reveal")).to_be_hidden()


def _count(page, pile):
    """The number of cards of a pile, as its label shows."""
    return int(page.locator(f"#label-{pile}").inner_text().split(":")[1])


def _shot(page, name, phone=True):
    """With HALFMOON_SHOTS=DIR, the page at the desktop's size as DIR/NAME.png and at a
    phone's width (390 px) as DIR/NAME-phone.png."""
    shots = os.environ.get("HALFMOON_SHOTS")
    if not shots:
        return
    page.screenshot(path=os.path.join(shots, f"{name}.png"))
    if phone:
        size = page.viewport_size
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=os.path.join(shots, f"{name}-phone.png"))
        page.set_viewport_size(size)


def _box(page, selector):
    return page.locator(selector).bounding_box()


def test_browser_entry_draws_the_arc(page):
    """The entry screen: the app's arc with each place named and filled as typed, the next
    one marked; a card being typed is no error; fewer than 20 cards names the empty place
    (and the server's reason when started); Cancel keeps what was typed."""
    from playwright.sync_api import expect

    deal, _ = _along_deal()
    cards = _shown(deal)
    page.locator("#along-button").click()
    expect(page.locator("#along-entry")).to_be_visible()
    expect(page.locator("#table")).to_be_hidden()
    slot = lambda place: page.locator(f'#along-arc .slot[data-place="{place}"]')  # noqa: E731
    expect(page.locator("#along-arc .slot")).to_have_count(20)
    # where the app draws them: 3 piles up the left, 7 across the top, 2 down the right
    # below the corner, the reserve in two rows of four in the centre
    at = {place: slot(place).bounding_box() for place in
          [f"P{i}" for i in range(1, 13)] + [f"R{i}" for i in range(1, 9)]}
    x = {k: round(b["x"] + b["width"] / 2) for k, b in at.items()}
    y = {k: round(b["y"] + b["height"] / 2) for k, b in at.items()}
    assert x["P1"] == x["P2"] == x["P3"] == x["P4"] and y["P1"] > y["P2"] > y["P3"] > y["P4"]
    assert len({y[f"P{i}"] for i in range(4, 11)}) == 1
    assert all(x[f"P{i}"] < x[f"P{i + 1}"] for i in range(4, 10))
    assert x["P10"] == x["P11"] == x["P12"] and y["P10"] < y["P11"] < y["P12"]
    assert y["R1"] == y["R4"] < y["R5"] == y["R8"] and x["R1"] == x["R5"]
    assert all(x[f"R{i}"] < x[f"R{i + 1}"] for i in (1, 2, 3, 5, 6, 7))
    assert x["P3"] < x["R1"] and x["R4"] < x["P11"] and y["P4"] < y["R1"] and y["R5"] < y["P1"]
    expect(slot("P1")).to_have_class(re.compile(r"\bnext\b"))
    expect(slot("P1").locator(".slot-name")).to_have_text("P1")
    entry = page.locator("#along-cards")
    # filled as typed, the card begun shown in its place, never an error
    entry.press_sequentially("5S 6D 1")
    expect(slot("P3")).to_have_class(re.compile(r"\bnext\b.*\btyping\b"))
    expect(slot("P3").locator(".slot-card")).to_have_text("1…")
    expect(slot("P1").locator(".slot-card")).to_have_text("5♠")
    expect(slot("P2").locator(".slot-card")).to_have_text("6♦")
    expect(page.locator("#along-count")).to_contain_text("Typing P3: 1…")
    entry.press_sequentially("0")
    expect(slot("P3").locator(".slot-card")).to_have_text("10…")
    entry.press_sequentially("h q")
    expect(slot("P3").locator(".slot-card")).to_have_text("10♥")
    expect(slot("P4").locator(".slot-card")).to_have_text("q…")
    expect(page.locator("#along-error")).to_be_hidden()
    entry.press_sequentially(" ")  # a rank and nothing more: named, with its place
    expect(page.locator("#along-error")).to_have_text(
        "card 4 (P4): 'q' has no suit (a rank and a suit, such as 10H)")
    # 19 cards: the empty place named, and the server's reason when started
    entry.fill(" ".join(cards[:19]))
    expect(page.locator("#along-error")).to_be_hidden()
    expect(slot("R8")).to_have_class(re.compile(r"\bnext\b"))
    expect(slot("R7").locator(".slot-card")).to_have_text(symbol_of(cards[18]))
    expect(page.locator("#along-count")).to_contain_text("19 of 20 entered: R8 is empty.")
    page.locator("#along-start").click()
    expect(page.locator("#along-error")).to_contain_text(
        "19 cards entered: R8 is empty (the app shows 20")
    expect(page.locator("#along-entry")).to_be_visible()
    # Cancel keeps what was typed
    page.locator("#along-cancel").click()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#along-entry")).to_be_hidden()
    page.locator("#along-button").click()
    expect(entry).to_have_value(" ".join(cards[:19]))
    expect(slot("R7").locator(".slot-card")).to_have_text(symbol_of(cards[18]))
    expect(page.locator("#along-count")).to_contain_text("19 of 20 entered: R8 is empty.")
    # the picker replaces a card begun
    entry.press_sequentially(" " + cards[19][:-1])
    expect(slot("R8")).to_have_class(re.compile(r"\btyping\b"))
    page.locator(f'#along-picker button[data-card="{cards[19]}"]').click()
    expect(slot("R8").locator(".slot-card")).to_have_text(symbol_of(cards[19]))
    expect(page.locator("#along-count")).to_contain_text("All 20 places filled")
    expect(page.locator("#along-picker")).to_be_hidden()  # nothing more to pick
    page.locator("#along-start").click()
    expect(page.locator("#code")).to_have_text("from the app")
    expect(card(page, "R8")).to_have_attribute("data-card", symbol_of(cards[19]))
    # the next game from the app is another deal: the screen opens empty
    page.locator("#along-button").click()
    expect(entry).to_have_value("")
    expect(slot("P1")).to_have_class(re.compile(r"\bnext\b"))


def symbol_of(card_text):
    from halfmoon.game.cards import parse_card

    return parse_card(card_text).symbol()


def test_browser_plays_a_whole_game_along(page):
    """A whole game from the app, as a player with the app's undo plays it: the 20 cards
    entered, the cards that appear told beside their piles (picked, and typed), a tap while
    a card waits refused on the table, the solver's keys absent, an undo; a dead end, its
    review, the banner's new entry; undo as the review advises, then on to a win, and the won
    game's review.  With HALFMOON_SHOTS=DIR, the screenshots of docs/board.md are taken."""
    from playwright.sync_api import expect

    deal, dead_end = _along_deal()
    cards = _shown(deal)
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    page.locator("#along-button").click()
    page.locator("#along-cards").fill(" ".join(cards))
    page.locator("#along-start").click()
    expect(page.locator("#code")).to_have_text("from the app")
    expect(page.locator("#light")).to_have_attribute("data-light", "share")
    expect(page.locator("#says")).to_contain_text("Winnable in")
    expect(page.locator("#fair tr")).to_have_count(len(list(Game(deal).legal_moves)))
    expect(page.locator("#fair-note")).to_contain_text("Uses only the cards entered")
    checked = [advice_is_coherent(page)]
    if os.environ.get("HALFMOON_SHOTS"):  # the last stage (or the last the solver could do)
        expect(page.locator("#fair-stage")).not_to_contain_text("more coming")
        checked.append(advice_is_coherent(page))
        _shot(page, "board-along-shares")
    check = lambda page: checked.append(advice_is_coherent(page))  # noqa: E731
    # the deal is not known: no solver's tools, no keys for them, none on the keys line
    expect(page.locator(".tools")).to_be_hidden()
    keys = page.locator("#keys")
    expect(keys).to_contain_text("the card that appeared: type it (9H) and Enter",
                                 use_inner_text=True)
    for gone in ("hint", "analyse", "solution", "fair hint"):
        expect(keys).not_to_contain_text(gone, use_inner_text=True)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for key in "hasf":
        page.keyboard.press(key)
    expect(page.locator("#moves")).to_have_text("0")
    for panel in ("#line-panel", "#analysis-panel", "#hint"):
        expect(page.locator(panel)).to_be_hidden()
    assert not [u for u in asked if u.endswith(("/analyse", "/fair"))], asked

    # a tap while a card waits: refused, and the reason on the table's dialog
    for source in dead_end[0].split("+"):
        card(page, source).click()
    expect(page.locator("#reveal")).to_be_visible()
    card(page, "P9").click()
    expect(page.locator("#reveal-error")).to_have_text(
        "P3 waits for the card that appeared: enter it first (or undo)")
    expect(page.locator("#reveal")).to_have_class(re.compile(r"\bflash\b"))
    expect(card(page, "P9")).not_to_have_class(re.compile(r"\bselected\b"))
    told = set()  # the places whose card was told: known for the rest of the game
    _tell(page, deal, 1, told=told)  # P3's card
    check(page)
    _play_along(page, deal, dead_end[1], typed=True, told=told)
    expect(page.locator("#moves")).to_have_text("2")
    assert len(told) > 1  # the move uncovered cards, told
    page.locator("#undo").click()  # the move taken back; the cards told stay known
    expect(page.locator("#moves")).to_have_text("1")
    expect(card(page, "P4")).to_have_attribute("data-card", deal.piles[3][-1].symbol())
    again = len(told)
    _play_along(page, deal, dead_end[1], check=check, told=told)  # nothing asked again
    assert len(told) == again
    for move in dead_end[2:-1]:
        _play_along(page, deal, move, check=check, told=told)
    _play_along(page, deal, dead_end[-1], told=told)

    # the dead end: the review, and the banner's new game is a new entry from the app
    banner = page.locator("#banner")
    expect(banner).to_be_visible()
    expect(page.locator("#announcement")).to_contain_text("Dead end")
    expect(page.locator("#review-panel")).to_be_visible()
    expect(page.locator("#review-title")).to_have_text("Review: where the game was lost")
    expect(page.locator("#review li")).to_have_count(len(dead_end))
    expect(page.locator("#review-says")).to_contain_text("Dead end.")
    expect(page.locator("#review-says")).not_to_contain_text("More layouts coming")
    expect(page.locator("#review li").last).to_contain_text("→ 0 %")
    # the move that lost it is marked
    expect(page.locator("#review li").last).to_have_class("lost")
    expect(page.locator("#movelist li").last).to_contain_text("probably lost here")
    _shot(page, "board-along-review", phone=False)
    banner.get_by_role("button", name="New game from the app…").click()
    expect(page.locator("#along-entry")).to_be_visible()
    expect(page.locator("#along-cards")).to_have_value("")
    page.locator("#along-cancel").click()
    expect(banner).to_be_visible()  # the game is as it was

    # the review's advice on the banner: back to the marked move of largest fall, then on
    # to a win from there (the deal is winnable until the last move)
    advice = banner.locator("#banner-advice")
    expect(advice).to_be_visible()
    back_to = int(advice.get_attribute("data-undo-to"))
    assert 1 <= back_to <= len(dead_end)
    expect(advice).to_have_text(f"Undo {len(dead_end) - back_to + 1} move"
                                f"{'s' if back_to < len(dead_end) else ''}: back to before "
                                f"move {back_to}")
    expect(page.locator("#review li").nth(back_to - 1)).to_have_class("lost")
    advice.click()
    expect(banner).to_be_hidden()
    expect(page.locator("#moves")).to_have_text(str(back_to - 1))
    expect(page.locator("#review-panel")).to_be_hidden()
    line = _winning_line(deal, dead_end[:back_to - 1])
    check(page)
    for move in line[:-1]:
        _play_along(page, deal, move, check=check, told=told)
    _play_along(page, deal, line[-1], told=told)
    # every position of the game had coherent advice (the one before the dead end twice)
    assert len(checked) >= len(dead_end) + len(line), len(checked)
    expect(page.locator("#moves")).to_have_text("48")
    expect(page.locator("#score")).to_have_text("520")
    expect(banner).to_be_visible()
    expect(page.locator("#announcement")).to_have_text("Victory: every card is removed.")
    expect(banner.get_by_role("button", name="New game from the app…")).to_be_visible()
    expect(page.locator("#light")).to_have_attribute("data-light", "won")
    expect(page.locator("#review-title")).to_have_text("Review: the game was won")
    expect(page.locator("#review-says")).to_contain_text("Won")
    expect(page.locator("#review li")).to_have_count(48)
    expect(page.locator("#review li.lost")).to_have_count(0)
    _shot(page, "board-along-won")


@pytest.mark.parametrize("width, height", [(360, 740), (390, 844)])
def test_browser_along_on_a_phone(browser, board_url, width, height):
    """At a phone's width: the entry's arc and picker fit; the position's share and the
    advice are in view with the table; the dialog for the card that appeared and its picker
    fit, every target 40 px or more."""
    from playwright.sync_api import expect

    deal, dead_end = _along_deal()
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True,
                                  has_touch=True)
    errors = []
    page = open_board(context, board_url, errors)

    def fits(selector, targets=True):
        """Every visible element of ``selector`` inside the screen's width, and 40 px or
        more each way when it is a target."""
        boxes = [b for b in (el.bounding_box() for el in page.locator(selector).all()) if b]
        assert boxes, selector
        for b in boxes:
            assert b["x"] >= 0 and b["x"] + b["width"] <= width + 0.5, (selector, b)
            if targets:
                assert b["width"] >= 40 and b["height"] >= 40, (selector, b)

    page.locator("#along-button").click()
    expect(page.locator("#along-entry")).to_be_visible()
    fits("#along-arc .slot", targets=False)
    fits("#along-picker button")
    fits("#along-entry button")
    page.locator("#along-cards").fill(" ".join(_shown(deal)))
    page.locator("#along-start").click()
    expect(page.locator("#code")).to_have_text("from the app")
    advice_is_coherent(page)
    page.evaluate("window.scrollTo(0, 0)")
    # the table, the position's share and the advice on one screen
    for selector in ("#table", "#light", "#fair-says"):
        b = _box(page, selector)
        assert b["y"] >= 0 and b["y"] + b["height"] <= height, (selector, b)
    # every target of the page, and nothing wider than the screen
    fits("button:visible, summary:visible, .controls label, input[type=text]:visible, "
         "input:not([type]):visible")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for source in dead_end[0].split("+"):
        card(page, source).click()
    reveal = page.locator("#reveal")
    expect(reveal).to_be_visible()
    b = reveal.bounding_box()
    assert b["x"] >= 0 and b["x"] + b["width"] <= width and b["y"] >= 0 and \
        b["y"] + b["height"] <= height, b
    fits("#reveal-picker button")
    fits("#reveal button, #reveal input")
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")  # a touch screen:
    expect(page.locator("#reveal-card")).not_to_be_focused()  # no keyboard over the picker
    expect(page.locator('#reveal-picker button[data-card="5s"]')).to_be_enabled()
    card(page, "P4").click()  # above the dialog: refused, the reason in the dialog
    expect(page.locator("#reveal-error")).to_contain_text("P3 waits for the card that appeared")
    fits("#reveal-error", targets=False)
    if width == 390:
        _shot(page, "board-along-reveal", phone=False)
    page.locator(f'#reveal-picker button[data-card="{deal.piles[2][-2]}"]').click()
    expect(reveal).to_be_hidden()
    context.close()
    assert errors == [], errors


def test_browser_corrects_a_card_told_wrongly(page):
    """A card told wrongly, corrected from "Correct a card…" (offered too when a third copy
    is refused): a removed card tapped says which moves to undo; the card tapped on the
    table, the card it is picked; the moves stay, the new card is on the table and the
    advice is made again for it."""
    from playwright.sync_api import expect

    from halfmoon.game.moves import Move

    deal, dead_end = _along_deal()
    wrong, right = deal.piles[0][0], deal.piles[2][6]  # never seen; P3's true card
    page.locator("#along-button").click()
    page.locator("#along-cards").fill(" ".join(_shown(deal)))
    page.locator("#along-start").click()
    expect(page.locator("#code")).to_have_text("from the app")
    for source in dead_end[0].split("+"):
        card(page, source).click()
    # a third copy refused: the dialog offers to correct a card told or entered before
    dialog, third = page.locator("#correct"), page.locator("#reveal-correct")
    expect(third).to_be_hidden()
    page.locator("#reveal-card").fill("3S")  # entered at P10 and P11
    page.locator("#reveal-card").press("Enter")
    expect(page.locator("#reveal-error")).to_contain_text("a third 3♠")
    third.click()
    expect(dialog).to_be_visible()
    expect(page.locator("#reveal")).to_be_hidden()
    page.locator("#correct-cancel").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#reveal")).to_be_visible()
    page.locator(f'#reveal-picker button[data-card="{wrong}"]').click()
    expect(card(page, "P3")).to_have_attribute("data-card", wrong.symbol())
    advice_is_coherent(page)
    game = Game(deal)
    game.play(Move.parse(dead_end[0]))
    legal = sorted("+".join(m.sources) for m in game.legal_moves)
    button = page.get_by_role("button", name="Correct a card…")
    expect(button).to_be_visible()
    button.click()
    expect(dialog).to_be_visible()
    expect(page.locator("#correct-says")).to_contain_text("tap it on the table, or pick it here")
    # the list: the cards seen still on the table (12 piles, 6 reserve cards)
    expect(page.locator("#correct-place option")).to_have_count(1 + 12 + 6)
    expect(page.locator('#correct-place option[value="P3.6"]')).to_have_text(
        f"P3: {wrong.symbol()}")
    card(page, "R8").click()  # removed by the move: refused, saying what to undo
    expect(page.locator("#correct-error")).to_have_text(
        f"{deal.reserve[7].symbol()} at R8 was removed by move 1: undo 1 move (back to before "
        "move 1) first, then correct it")
    expect(page.locator("#moves")).to_have_text("1")
    card(page, "P3").click()
    expect(page.locator("#correct-says")).to_have_text(
        f"P3 is {wrong.symbol()} as told: which card is it?")
    expect(page.locator("#correct-place")).to_have_value("P3.6")
    expect(card(page, "P3")).to_have_class(re.compile(r"\bcorrecting\b"))
    expect(page.locator(f'#correct-picker button[data-card="{wrong}"]')).to_be_disabled()
    _shot(page, "board-along-correct", phone=False)
    page.locator(f'#correct-picker button[data-card="{right}"]').click()
    expect(dialog).to_be_hidden()
    expect(card(page, "P3")).to_have_attribute("data-card", right.symbol())
    expect(card(page, "P3")).not_to_have_class(re.compile(r"\bcorrecting\b"))
    expect(page.locator("#moves")).to_have_text("1")
    expect(page.locator("#movelist li")).to_have_count(1)
    # the advice made again on the corrected cards: the true position's moves, coherent
    expect(page.locator("#fair tr")).to_have_count(len(legal))
    advice_is_coherent(page)
    rows = page.locator("#fair tr").evaluate_all("(trs) => trs.map((tr) => tr.dataset.sources)")
    assert sorted(rows) == legal, rows
    # C opens it again, Escape closes it
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("c")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


def test_browser_reconnects_to_a_board_started_again(browser, tmp_path):
    """A move played, the board stopped: the page says it cannot reach it; the board started
    again on the same file of games and port: the page says it is back, shows the game as
    it was and plays on.  A page opened on a game the file never had says so."""
    from playwright.sync_api import expect

    from halfmoon.board.store import SavedGames

    expect.set_options(timeout=WAIT * 1000)
    path = tmp_path / "games.sqlite3"
    boards = []

    def start(sock):
        boards.append(Board(shared_pool(), start_deal=EXAMPLE, saved=SavedGames(path)))
        return _serve(create_app(boards[-1]), sock)

    sock = listen("127.0.0.1", 0)
    url, port = address_of(sock), sock.getsockname()[1]
    server, thread = start(sock)
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    errors = []
    try:
        page = open_board(context, url, errors)
        card(page, "P1").click()
        card(page, "P8").click()
        expect(page.locator("#score")).to_have_text("10")
        expect(page.locator("#notice")).to_be_hidden()
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        expect(page.locator("#notice")).to_have_text("The board cannot be reached: trying again…")
        sock = listen("127.0.0.1", port)
        server, thread = start(sock)
        expect(page.locator("#notice")).to_have_text("Reconnected to the board.")
        expect(page.locator("#score")).to_have_text("10")
        expect(card(page, "P8")).to_have_attribute("data-card", "J♣")
        for source in ("P8", "P5", "P3"):  # J♣, Q♥, K♥ on the board started again
            card(page, source).click()
        expect(page.locator("#score")).to_have_text("25")
        other = context.new_page()
        other.goto(url + "#g=nevermade000")
        expect(other.locator("#notice")).to_have_text(
            "no game 'nevermade000': there never was one by this id in the board's file. "
            "A new game is open.")
        expect(card(other, "P1")).to_have_attribute("data-card", "5♠")
    finally:
        context.close()
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        for board in boards:
            board.saved.close()
    assert errors == [], errors


class _FirstStages:
    """A pool that runs the jobs of a game from the app but those of its last stage (or,
    its layouts kept, the solves of its layouts past the first 64): its advice stays as the
    earlier stages leave it."""

    def __init__(self, pool) -> None:
        self.pool = pool

    def __getattr__(self, name):
        return getattr(self.pool, name)

    def want(self, owner, jobs, done) -> None:
        from halfmoon.board.along_view import ALONG_STAGES

        def last(j) -> bool:  # a job of the last stage: its own, or its layouts past 64
            if isinstance(j.key, tuple) and j.key and j.key[0] == "sample":
                return isinstance(j.key[4], tuple) and max(j.key[4]) >= ALONG_STAGES[-2]
            return isinstance(j.work, tuple) and j.work[0] == "along" \
                and j.work[2] >= ALONG_STAGES[-1]

        self.pool.want(owner, [j for j in jobs if not last(j)], done)


def test_browser_a_provisional_answer(browser):
    """An answer not settled (its leader not clear of the next move, more layouts to come):
    drawn as provisional, "Leaning to …" and still counting, no "Play", no row chosen and no
    card outlined.  With HALFMOON_SHOTS=DIR, it at 1400 px and at 390 px."""
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT * 1000)
    deal, _ = _along_deal()
    app = create_app(Board(_FirstStages(shared_pool()), start_deal=EXAMPLE))
    with _served(app) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        errors = []
        try:
            page = open_board(context, url, errors)
            page.locator("#along-button").click()
            page.locator("#along-cards").fill(" ".join(_shown(deal)))
            page.locator("#along-start").click()
            expect(page.locator("#fair-stage")).to_contain_text("Shares of 64 sampled layouts, "
                                                                 "more coming")
            says = page.locator("#fair-says")
            expect(says).to_have_attribute("data-kind", "provisional")
            expect(says.locator(".leaning")).to_have_text(re.compile(r"^Leaning to \S+ P\d+"))
            expect(says.locator(".why")).to_contain_text("Still counting (64 of 384 layouts): not "
                                                         "yet clear of")
            expect(says).not_to_contain_text("Play")
            expect(page.locator("#fair tr.chosen")).to_have_count(0)
            expect(page.locator("#fair tr.leaning")).to_have_count(1)
            expect(page.locator("#fair tr.leaning")).to_contain_text("leading so far")
            expect(page.locator(".card.hinted")).to_have_count(0)
            advice_is_coherent(page)
            _shot(page, "board-along-provisional")
        finally:
            context.close()
    assert errors == [], errors


# --- the entry screen, the dead end, the lists, two tabs -------------------------------------
def test_browser_entry_is_about_the_entry_only_and_agrees_with_its_error(page):
    """While the app's cards are entered, nothing of the game behind the screen is shown (its
    light, clock, hint, analysis, moves) and its keys do nothing; a card that cannot be read
    keeps the cards before it, in the arc and in the count alike, and so does a 21st card;
    a game chosen meanwhile closes the screen."""
    from playwright.sync_api import expect

    deal, _ = _along_deal()
    cards = _shown(deal)
    page.locator("#hint-button").click()
    expect(page.locator("#hint")).to_be_visible()
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    page.locator("#along-button").click()
    expect(page.locator("#along-entry")).to_be_visible()
    for other in ("#status", "#light", ".tools", "#hint", "#moves-panel", "#keys", ".controls"):
        expect(page.locator(other)).to_be_hidden()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for key in "hasfu":
        page.keyboard.press(key)
    expect(page.locator("#analysis-panel")).to_be_hidden()
    expect(page.locator("#fair-panel")).to_be_hidden()
    assert not [u for u in asked if u.endswith(("/analyse", "/fair", "/undo"))], asked
    slot = lambda place: page.locator(f'#along-arc .slot[data-place="{place}"]')  # noqa: E731
    entry, count = page.locator("#along-cards"), page.locator("#along-count")
    # pasted with a slip at P4: the arc and the count keep P1-P3, as the error does
    entry.fill(" ".join(cards[:3] + ["3x"] + cards[4:]))
    expect(page.locator("#along-error")).to_contain_text("card 4 (P4): not a card")
    expect(count).to_have_text("3 of 20 entered; card 4 (P4) is not taken: pick the card it "
                               "is, or correct it in the text (below, why).")
    expect(page.locator("#along-arc .slot.filled")).to_have_count(3)
    expect(slot("P3").locator(".slot-card")).to_have_text(symbol_of(cards[2]))
    expect(slot("P4")).to_have_class(re.compile(r"\bbad\b"))
    expect(slot("P5").locator(".slot-card")).to_have_text("")
    expect(page.locator("#along-picker")).to_be_visible()  # kept: a card picked takes P4
    _shot(page, "board-along-entry-error", phone=False)
    # one card too many: the 20 in their places, and the count says so
    entry.fill(" ".join(cards + ["AS"]))
    expect(page.locator("#along-error")).to_contain_text("21 cards typed")
    expect(count).to_have_text("21 cards typed: the app shows 20. The first 20 are in their "
                               "places; remove 1.")
    expect(page.locator("#along-arc .slot.filled")).to_have_count(20)
    expect(page.locator("#along-arc .slot.bad")).to_have_count(0)
    entry.fill(" ".join(cards))
    expect(count).to_have_text("All 20 places filled: check them against the app, then Play "
                               "along.")
    expect(page.locator("#along-error")).to_be_hidden()
    # a new game of the toolkit chosen meanwhile: the screen closes on it
    page.locator("#deal-input").fill("7")
    page.locator("#deal-input").press("Enter")
    expect(page.locator("#along-entry")).to_be_hidden()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#light")).to_be_visible()
    expect(page.locator("#status")).to_be_visible()


def _covered(page, selector="#table .card"):
    """The cards of ``selector`` whose centre is under something else (a dialog, a banner)."""
    return page.evaluate("""(selector) => [...document.querySelectorAll(selector)].filter((c) => {
      const r = c.getBoundingClientRect();
      if (!r.width) return false;
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !(at && c.contains(at));
    }).map((c) => c.dataset.source)""", selector)


@pytest.mark.parametrize("width, height", [(1400, 900), (390, 844)])
def test_browser_a_dead_end_leaves_the_table_free(browser, board_url, width, height):
    """The card that appeared is asked clear of every pile top (on a wide screen, in the
    table's free bottom row); at a dead end the banner is below the table, over no card, and
    a card tapped on the table is corrected there, on a phone too.  With HALFMOON_SHOTS=DIR,
    the entry screen and the dead end at each width."""
    from playwright.sync_api import expect

    deal, dead_end = _along_deal()
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": height},
                                  is_mobile=phone, has_touch=phone)
    errors = []
    page = open_board(context, board_url, errors)
    page.locator("#along-button").click()
    page.locator("#along-cards").fill(" ".join(_shown(deal)[:19]))
    expect(page.locator("#along-count")).to_contain_text("19 of 20 entered: R8 is empty.")
    _shot_at(page, "board-along-entry", phone)
    page.locator("#along-cards").fill(" ".join(_shown(deal)))
    page.locator("#along-start").click()
    expect(page.locator("#code")).to_have_text("from the app")
    for source in dead_end[0].split("+"):
        card(page, source).click()
    expect(page.locator("#reveal")).to_be_visible()
    if not phone:  # the dialog covers no card (on a phone: a sheet along the bottom)
        assert _covered(page) == [], _covered(page)
    _tell(page, deal, 1)
    for move in dead_end[1:]:
        _play_along(page, deal, move)
    banner = page.locator("#banner")
    expect(banner).to_be_visible()
    expect(page.locator("#review-says")).not_to_contain_text("More layouts coming")
    # each "%" kept with its number: "100 % → 100 %" never wraps before a "%"
    texts = page.evaluate("""() => ['#says', '#review-says', '#review li', '#fair-says']
      .flatMap((s) => [...document.querySelectorAll(s)].map((e) => e.textContent))""")
    assert any("\u00a0%" in t for t in texts) and not [t for t in texts if " %" in t], texts
    page.evaluate("window.scrollTo(0, 0)")
    table, b = _box(page, "#table"), banner.bounding_box()
    assert b["y"] >= table["y"] + table["height"], (b, table)  # below the table, not on it
    assert _covered(page) == []
    _shot_at(page, "board-along-deadend", phone)
    # a card corrected at the dead end: tapped on the table, then picked
    page.get_by_role("button", name="Correct a card…").click()
    expect(page.locator("#correct")).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")
    target = "P3" if not phone else "P10"
    was = card(page, target).get_attribute("data-card")
    card(page, target).click()
    expect(page.locator("#correct-says")).to_contain_text(f"{target} is {was} as")
    picked = page.locator("#correct-picker button:enabled").first
    now = picked.get_attribute("data-card")
    picked.click()
    expect(page.locator("#correct")).to_be_hidden()
    expect(card(page, target)).to_have_attribute("data-card", symbol_of(now))
    expect(page.locator("#moves")).to_have_text(str(len(dead_end)))
    context.close()
    assert errors == [], errors


def _shot_at(page, name, phone):
    """With HALFMOON_SHOTS=DIR, the page as DIR/NAME.png (a phone's: NAME-phone.png)."""
    shots = os.environ.get("HALFMOON_SHOTS")
    if shots:
        page.screenshot(path=os.path.join(shots, f"{name}{'-phone' if phone else ''}.png"))


def test_browser_long_lists_say_what_is_out_of_view_and_number_whole(browser):
    """At 360 px, 40 moves in (a score of three digits): the status is one line, the moves are
    numbered whole, and the moves list, the analysis and the fair hint's table of moves say
    how many lines are out of view, above or below, as they scroll."""
    from playwright.sync_api import expect

    from halfmoon.game.moves import Move

    expect.set_options(timeout=WAIT * 1000)
    deal = Deal.from_number(20)  # 34 legal moves at the start, 13 after these 40
    line = solve(deal, budget=500_000)
    assert line.verdict == "win"
    moves = tuple(Move.parse(str(m)) for m in line.moves[:40])
    app = create_app(Board(shared_pool(), start_deal=deal, start_moves=moves))
    with _served(app) as url, _tab(browser, url, viewport={"width": 360, "height": 740},
                                   is_mobile=True, has_touch=True) as page:
        expect(page.locator("#moves")).to_have_text("40")
        score = page.locator("#score").inner_text()
        assert len(score) == 3, score
        tops = page.evaluate("[...document.querySelectorAll('#status > span')]"
                             ".map((s) => Math.round(s.getBoundingClientRect().top))")
        assert len(set(tops)) == 1, tops  # one line
        expect(page.locator("#movelist li")).to_have_count(40)
        numbers = page.evaluate("""() => {
          const list = document.getElementById("movelist").getBoundingClientRect();
          return [...document.querySelectorAll("#movelist li .n")].map((n) => {
            const r = n.getBoundingClientRect();
            return {text: n.textContent,
                    inside: r.left >= list.left && n.scrollWidth <= n.clientWidth};
          });
        }""")
        assert numbers[36] == {"text": "37.", "inside": True}, numbers[36]
        assert all(n["inside"] for n in numbers), numbers
        cue = page.locator("#movelist + .more")
        expect(cue).to_have_text(re.compile(r"^↑ \d+ more above: scroll the list$"))
        page.locator("#analyse-button").click()
        expect(page.locator("#analysis li")).to_have_count(13)
        _cue_follows_the_scroll(page, "#analysis")
        # the fair hint's table of moves scrolls in its box: it says so too
        page.locator("#fair-button").click()
        expect(page.locator("#fair tr")).to_have_count(13)
        box = page.locator("#fair-moves")
        assert box.evaluate("(b) => b.scrollHeight > b.clientHeight"), "the table fits its box"
        _cue_follows_the_scroll(page, "#fair-moves")


def _cue_follows_the_scroll(page, box: str) -> None:
    """The list or box ``box``, at its top, says how many lines are below; scrolled to its
    end, how many are above."""
    from playwright.sync_api import expect

    cue = page.locator(f"{box} + .more")
    expect(cue).to_have_text(re.compile(r"^↓ \d+ more below: scroll the list$"))
    page.locator(box).evaluate("(b) => { b.scrollTop = b.scrollHeight; }")
    expect(cue).to_have_text(re.compile(r"^↑ \d+ more above: scroll the list$"))


def test_browser_shows_a_known_deals_level_once_answered_without_a_tap(browser):
    """A known deal's level comes from a solver process after the cards are drawn: the page
    shows it when it comes, the player having done nothing."""
    from playwright.sync_api import expect

    from halfmoon.batch.difficulty import estimate_numbers

    expect.set_options(timeout=WAIT * 1000)
    words = estimate_numbers([100], [solve(100).verdict])[0].words()
    app = create_app(Board(shared_pool(), start_deal=Deal.from_number(100)))
    with _served(app) as url, _tab(browser, url, viewport={"width": 1200, "height": 800}) as page:
        expect(page.locator("#moves")).to_have_text("0")
        expect(page.locator("#level")).to_have_text(f"Level: {words}")
        expect(page.locator("#moves")).to_have_text("0")  # no tap made it


def test_browser_a_tap_from_a_stale_tab_says_the_game_changed(browser, board_url):
    """Two tabs on one game: a tap from the one that has not seen the other's move is not
    made, and that tab says the game changed elsewhere and shows it as it now is."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1200, "height": 800})
    errors = []
    try:
        first = open_board(context, board_url, errors)
        second = context.new_page()
        second.on("pageerror", lambda e: errors.append(str(e)))
        # the second tab hears no news (as when two taps cross): its polls wait forever
        second.route("**/opinion*", lambda route: None)
        second.goto(first.url)
        expect(card(second, "P1")).to_have_attribute("data-card", "5♠")
        card(first, "P1").click()
        expect(card(first, "P1")).to_have_class(re.compile(r"\bselected\b"))
        card(second, "P5").click()
        expect(second.locator("#notice")).to_have_text(
            "The game changed elsewhere (in another tab): nothing was done; this is where it "
            "stands now.")
        expect(card(second, "P1")).to_have_class(re.compile(r"\bselected\b"))
        expect(card(second, "P5")).not_to_have_class(re.compile(r"\bselected\b"))
    finally:
        context.close()
    assert errors == [], errors


def test_browser_a_change_the_file_cannot_keep_is_said_and_not_made(browser, tmp_path):
    """The board's file of games made unwritable while it serves (its permissions changed,
    the disk full): a tap is not made, the page says why in its notice (not "another tab"),
    and once the file can be written again the same tap is made."""
    import sqlite3

    from playwright.sync_api import expect

    from halfmoon.board.store import SavedGames

    saved = SavedGames(tmp_path / "games.sqlite3")
    board = Board(shared_pool(), start_deal=EXAMPLE, saved=saved)
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    errors = []
    try:
        with _served(create_app(board)) as url:
            page = open_board(context, url, errors)
            writable = saved._db
            saved._db = sqlite3.connect(f"{saved.path.resolve().as_uri()}?mode=ro", uri=True,
                                        isolation_level=None, check_same_thread=False)
            for _ in range(2):  # and again: the same answer
                card(page, "P1").click()
                expect(page.locator("#notice")).to_contain_text(
                    "nothing was done: the board's file of games could not keep the change")
                expect(page.locator("#notice")).not_to_contain_text("another tab")
                expect(card(page, "P1")).not_to_have_class(re.compile(r"\bselected\b"))
            saved._db.close()
            saved._db = writable
            card(page, "P1").click()
            expect(card(page, "P1")).to_have_class(re.compile(r"\bselected\b"))
    finally:
        context.close()
        saved.close()
    assert errors == [], errors
