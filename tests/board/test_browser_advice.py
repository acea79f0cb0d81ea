"""The play-along board in a real browser: its advice when it cannot settle: a stage stopped by
a limit (a solver job past its time limit) is drawn as stopped, never as settled; at 0 % the
page says so and offers the undo back to the last position shown winnable; and the smaller
fixes of the page (no game before one is chosen, the entry fixed in place, the sheets clear
of the cards at 360 px, the table in view from its top after Play along).  The browser,
the served board and the helpers are those of ``test_browser.py``; with HALFMOON_SHOTS=DIR
the screenshots of the docs are taken here too."""

from __future__ import annotations

import re
import threading

import pytest
from board_helpers import EXAMPLE, WAIT, shared_pool
from test_browser import (
    _play_along,
    _served,
    _shot,
    _shown,
    card,
    launched_chromium,
    open_board,
)

from halfmoon.board.server import create_app
from halfmoon.board.service import Board
from halfmoon.game.deal import Deal


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as chromium:
        yield chromium


# what the pool answers for a job past its time limit (halfmoon.board.pool)
TIME_LIMIT = {"verdict": "unresolved", "moves": None, "nodes": 0, "seconds": 10.0,
              "reason": "time limit of 10 s"}
STOP_AT = 64  # the layouts solved before the solves of a position stop


class _StopsAfter64:
    """A pool on which the solves of a game from the app's layouts past the first
    :data:`STOP_AT` always run past their time limit, as on a busy machine: such a job is
    answered with the pool's own answer for a job past its limit, once the jobs of the
    first layouts of that position are answered (so the stage of 64 layouts is kept); the
    others run."""

    def __init__(self, pool) -> None:
        self.pool = pool
        self.stopped = threading.Event()  # set at each job so answered
        self._lock = threading.Lock()
        self._flight: set = set()

    def __getattr__(self, name):
        return getattr(self.pool, name)

    @staticmethod
    def _late(job):
        """The position of a job on the layouts past the first 64, else None."""
        key = job.key
        if isinstance(key, tuple) and key and key[0] == "sample" and isinstance(key[4], tuple):
            return key[3] if max(key[4]) >= STOP_AT else None
        if isinstance(job.work, tuple) and job.work[0] == "along":  # one job a stage
            return key[0] if job.work[2] > STOP_AT else None
        return None

    @staticmethod
    def _at(job):
        key = job.key
        if isinstance(key, tuple) and key and key[0] == "sample":
            return key[3]
        return key[0] if isinstance(job.work, tuple) and job.work[0] == "along" else None

    def want(self, owner, jobs, done) -> None:
        late = [j for j in jobs if self._late(j) is not None]
        early = {self._at(j) for j in jobs if j not in late}
        for job in late:
            if self._late(job) in early:
                continue  # the first layouts first: asked again at the next plan
            with self._lock:
                if job.key in self._flight:
                    continue
                self._flight.add(job.key)
            threading.Thread(target=self._stop, args=(job, done), daemon=True).start()
        self.pool.want(owner, [j for j in jobs if j not in late], done)

    def _stop(self, job, done) -> None:
        with self._lock:
            self._flight.discard(job.key)
        done(job, dict(TIME_LIMIT))
        self.stopped.set()


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
    pool = _StopsAfter64(shared_pool())
    with _served(create_app(Board(pool, start_deal=EXAMPLE))) as url:
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
            expect(page.locator("#fair-stopped")).to_be_hidden()  # said once, in the advice
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
            # Try again: the stopped solves are asked for again (here they stop again), and
            # the leading move is never drawn as settled meanwhile
            pool.stopped.clear()
            page.locator("#fair-again").click()
            assert pool.stopped.wait(WAIT), "Try again asked for nothing"
            expect(says).to_have_attribute("data-kind", "stopped")
            expect(says.locator(".why")).to_contain_text("Stopped at 64 of 384 layouts")
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
            expect(page.locator("#fair-do")).to_have_text(
                re.compile(r"^Back to the last position shown winnable \(\d+\s% of its "
                           r"layouts, before the cards told since\), and try another move "
                           r"there\.$"))
            expect(page.locator("#fair-again")).to_be_hidden()
            expect(page.locator(".card.hinted")).to_have_count(0)
            expect(page.locator("#fair tr.chosen")).to_have_count(0)
            expect(page.locator("#says")).to_contain_text("Winnable in 0\u00a0%")
            _shot(page, "board-along-zero")
            undo.click()  # back there; the card told since stays known
            expect(page.locator("#moves")).to_have_text("2")
            expect(page.locator("#reveal")).to_be_hidden()
            expect(page.locator("#says")).to_contain_text(re.compile(r"Winnable in \d+\s%"))
        finally:
            context.close()
    assert errors == [], errors


def _clear_of_cards(page, sheet):
    """Every card of the table above ``sheet`` (a dialog along the bottom of the screen),
    and none under anything: each card's centre and corners are its own."""
    top = page.locator(sheet).bounding_box()["y"]
    cards = page.evaluate("""() => [...document.querySelectorAll('#table .card')].map((c) => {
      const r = c.getBoundingClientRect();
      const xs = [r.left + 3, r.left + r.width / 2, r.right - 3];
      const ys = [r.top + 3, r.top + r.height / 2, r.bottom - 3];
      const own = xs.every((x) => ys.every((y) => {
        const at = document.elementFromPoint(x, y);
        return !!at && c.contains(at);
      }));
      return {source: c.dataset.source, bottom: r.bottom, width: r.width, own};
    })""")
    shown = [c for c in cards if c["width"]]
    assert shown, cards
    assert all(c["bottom"] <= top + 0.5 for c in shown), (top, shown)
    assert all(c["own"] for c in shown), [c for c in shown if not c["own"]]


def test_browser_the_entry_is_fixed_in_place_and_the_sheets_leave_the_cards_free(browser):
    """A board started on no deal makes none before the player chooses one; at 360 px, a
    card not taken ('4hh', named whole) keeps the picker, and a card picked takes its place;
    a place of the arc tapped is fixed in place; after Play along the table is in view from
    its top row; the sheet asking for the card that appeared, and the one correcting a card,
    cover no card."""
    from playwright.sync_api import expect
    from test_along import DEAD_END_DEAL, DEAD_END_MOVES

    expect.set_options(timeout=WAIT * 1000)
    deal = Deal.from_number(DEAD_END_DEAL)
    cards = _shown(deal)
    board = Board(shared_pool())
    with _served(create_app(board)) as url:
        context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True,
                                      has_touch=True)
        errors: list = []
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(url)
            expect(page.locator("#choose")).to_be_visible()
            expect(page.locator("#table")).to_be_hidden()
            expect(page.locator("#light")).to_be_hidden()
            assert len(board.store) == 0  # no deal made before one is chosen
            page.locator("#choose-along").click()
            expect(page.locator("#along-entry")).to_be_visible()
            expect(page.locator("#choose")).to_be_hidden()
            typed = [str(c) for c in cards]
            page.locator("#along-cards").fill(" ".join(["4hh" if k == 1 else c
                                                         for k, c in enumerate(typed)]))
            expect(page.locator("#along-error")).to_contain_text("'4hh'")
            expect(page.locator("#along-error")).to_contain_text("card 2 (P2)")
            picker = page.locator("#along-picker")
            expect(picker).to_be_visible()  # kept while there is an error
            picker.locator(f'button[data-card="{typed[1]}"]').click()
            expect(page.locator("#along-error")).to_be_hidden()
            expect(page.locator("#along-count")).to_contain_text("All 20 places filled")
            assert page.locator("#along-cards").input_value().split() == typed
            # a place tapped on the arc: its card fixed in place, the others kept
            page.locator('#along-arc .slot[data-place="P5"]').click()
            expect(page.locator('#along-arc .slot[data-place="P5"]')).to_have_class(
                re.compile(r"\bfixing\b"))
            expect(page.locator("#along-count")).to_contain_text(f"Fixing P5 ({typed[4]})")
            other = next(c for c in picker.locator("button:enabled").all()
                         if c.get_attribute("data-card") not in typed)
            now = other.get_attribute("data-card")
            other.click()
            expect(page.locator('#along-arc .slot[data-place="P5"]')).not_to_have_class(
                re.compile(r"\bfixing\b"))
            assert page.locator("#along-cards").input_value().split() == \
                typed[:4] + [now] + typed[5:]
            page.locator('#along-arc .slot[data-place="P5"]').click()
            picker.locator(f'button[data-card="{typed[4]}"]').click()
            expect(page.locator("#along-count")).to_contain_text("All 20 places filled")
            assert page.locator("#along-cards").input_value().split() == typed
            page.locator("#along-start").click()
            expect(page.locator("#code")).to_have_text("from the app")
            assert page.evaluate("scrollY") == 0  # the table from its top row
            assert len(board.store) == 1
            # the card that appeared, asked on a sheet that covers no card
            for source in DEAD_END_MOVES[0].split("+"):
                card(page, source).click()
            expect(page.locator("#reveal")).to_be_visible()
            _clear_of_cards(page, "#reveal")
            told = deal.piles[2][-2]
            page.locator(f'#reveal-picker button[data-card="{told}"]').click()
            expect(page.locator("#reveal")).to_be_hidden()
            # correcting a card: the sheet, then its picker, cover no card
            page.get_by_role("button", name="Correct a card…").click()
            expect(page.locator("#correct")).to_be_visible()
            _clear_of_cards(page, "#correct")
            card(page, "P10").click()
            expect(page.locator("#correct-picker")).to_be_visible()
            _clear_of_cards(page, "#correct")
        finally:
            context.close()
    assert errors == [], errors
