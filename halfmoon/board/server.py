"""The board's HTTP app (Starlette) and ``halfmoon play`` (uvicorn on a local port).

The API, all JSON; every request is checked and a bad one gets a 4xx with its reason:

- ``POST /api/games`` ``{"deal": "HM1-N-AAAAAAB" | "123"}`` or ``{"pick": "random" |
  "winnable" | "hard"}`` or ``{}`` (the command line's deal, else a random one: the page
  asks for it only when the board was started on a deal, ``GET /api/start``), with
  ``"settings"`` optionally: a new game's state (201);
- ``GET /api/start``: ``{"deal": true}`` when the board was started on a deal (the page
  opens it), else ``{"deal": false}``: the page makes no game before the player chooses one
  (a deal of the toolkit, or one from the app);
- ``GET /api/games/{id}``: the state the page draws (:mod:`halfmoon.board.view`); a game
  not kept is a 404 saying why (pruned from the file of games, and when; or never made);
- ``POST /api/games/{id}/tap`` ``{"source": "P5", "version": 3}``, ``…/undo``
  ``{"version": 3}``: the new state, or 409 with the current state when the version
  is not the game's (another tab played);
- ``POST /api/games/{id}/settings`` ``{"move_errors": true, "placement_assistance": false}``;
- ``POST /api/games/{id}/analyse``: every legal move of the position to be settled;
- ``POST /api/games/{id}/fair``: the fair hint of the position (what a player who sees only
  the page's cards can say: the fair player's move, each move's share of sampled layouts
  that stay winnable), answered in stages as the samples come in: ``"provisional"`` (the
  leading move and the one it is not yet clear of, nothing to outline) until the answer is
  settled (its last stage, or every other move clearly below the leader); on a game from the
  app, "Try again": the position's solves that a limit stopped are asked for again;
- ``POST /api/along`` ``{"cards": "5S 6D …"}`` (the 20 cards the app shows: the pile tops
  P1-P12, then the reserve R1-R8), with ``"settings"`` optionally: a new game played along
  with the app (201); ``POST /api/along/check`` ``{"cards": "5S 6D"}``: the cards typed so
  far checked, with the cards still possible and the place of the next one (a card that
  is not one, a third copy or a 21st card is a 400 naming it, with ``"entry"``: the same
  check of the cards before it, what the entry screen keeps);
- ``POST /api/games/{id}/reveal`` ``{"pile": "P5", "card": "9H", "version": 3}``: the card
  that appeared on a waiting pile of a game from the app (a 400 naming the pile or the card
  when it cannot be: a pile not waiting, a third copy of a card);
- ``POST /api/games/{id}/correct`` ``{"place": "P7", "card": "9D", "version": 3}``: a card
  entered or told of a game from the app corrected in its place while it is on the table
  (``P7`` a pile's top, ``P7.5`` a pile's card by depth, 0 the bottom and 7 the top the app
  first showed, ``R3`` a reserve card); the moves made stay, the shares are made again.
  A 400 names the place or the card when it cannot be: a place not seen yet or not known,
  a card removed by a move (undo the moves that removed it first), a third copy of a card,
  a game whose deal is known;
- ``GET /api/games/{id}/opinion?since=TAG&wait=S&hint=1&line=1``: the solver's opinion
  (:mod:`halfmoon.board.opinion`), at once if it differs from ``since``, else when it
  changes or after ``wait`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import signal
import socket
import threading
import webbrowser
from pathlib import Path
from typing import Callable, Optional

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Settings
from halfmoon.game.errors import HalfMoonError

from . import validation as check
from .along import EntryError, entry_check
from .errors import BadRequest, BoardError, Busy
from .pool import DEFAULT_SECONDS, SolverPool
from .service import BOARD_WORKERS, DEFAULT_BUDGET, Board

GRACEFUL_SECONDS = 1.0  # a request still running this long after a stop is cancelled
STATIC = Path(__file__).resolve().parent / "static"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# The page loads nothing from elsewhere: no CDN, no network.
HEADERS = {
    "content-security-policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


class ServeError(HalfMoonError):
    """The board cannot start (a port in use, a host that cannot be listened on)."""


def create_app(board: Optional[Board] = None, *, start_deal: Optional[Deal] = None,
               start_moves: tuple = (), budget: int = DEFAULT_BUDGET,
               seconds: float = DEFAULT_SECONDS,
               allowed_hosts: Optional[set[str]] = None, saved=None) -> Starlette:
    """The board's app.  Without ``board``, the app makes one with its own solver pool
    and stops it at shutdown, its games kept in ``saved`` (a
    :class:`~halfmoon.board.store.SavedGames`, or None: in memory only); a given board's
    pool is the caller's to stop.  ``allowed_hosts``: the Host headers answered (None:
    any)."""
    owns_pool = board is None
    if board is None:
        board = Board(SolverPool(BOARD_WORKERS, seconds=seconds), start_deal=start_deal,
                      start_moves=start_moves, budget=budget, saved=saved)
    stopping = asyncio.Event()  # set when the server stops: requests that wait answer now

    @contextlib.asynccontextmanager
    async def lifespan(app):
        stopping.clear()
        board.pool.start()
        board.attach(asyncio.get_running_loop())
        try:
            yield
        finally:
            board.detach()
            board.keep_clocks()  # the time the board is down does not count
            if owns_pool:
                await asyncio.get_running_loop().run_in_executor(None, board.pool.close)

    async def index(request: Request):
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def create(request: Request):
        body = check.check_fields(await check.json_body(request),
                                  {"deal": str, "pick": str, "settings": dict})
        settings = Settings(**check.settings_fields(body["settings"]))
        if body["deal"] is not None and body["pick"] is not None:
            raise BadRequest("give either 'deal' or 'pick', not both")
        if body["deal"] is not None:
            live = board.new_game(check.deal(body["deal"]), settings)
        elif body["pick"] is not None:
            live = await board.pick(body["pick"], settings)
        else:
            live = board.new_game(None, settings)
        return _json(board.state(live.id), 201)

    async def start(request: Request):
        return _json({"deal": board.start_deal is not None})

    async def along(request: Request):
        body = check.check_fields(await check.json_body(request),
                                  {"cards": str, "settings": dict})
        settings = Settings(**check.settings_fields(body["settings"]))
        live = board.new_along(check.required(body, "cards", "the 20 cards the app shows"),
                               settings)
        return _json(board.state(live.id), 201)

    async def along_check(request: Request):
        body = check.check_fields(await check.json_body(request), {"cards": str})
        try:
            return _json(entry_check(check.required(body, "cards", "the cards typed so far")))
        except EntryError as exc:  # the reason, with the cards read before it
            raise BadRequest(str(exc), extra={"entry": exc.entry}) from None

    async def reveal(request: Request):
        body = check.check_fields(await check.json_body(request),
                                  {"pile": str, "card": str, "version": int})
        return _json(board.reveal(_game_id(request), check.required(body, "pile", "a pile P1-P12"),
                                  check.required(body, "card", "the card that appeared"),
                                  body["version"]))

    async def correct(request: Request):
        body = check.check_fields(await check.json_body(request),
                                  {"place": str, "card": str, "version": int})
        return _json(board.correct(_game_id(request),
                                   check.required(body, "place", "a place such as P7 or R3"),
                                   check.required(body, "card", "the card it really is"),
                                   body["version"]))

    async def state(request: Request):
        check.known_query(request.query_params, ())
        return _json(board.state(_game_id(request)))

    async def tap(request: Request):
        body = check.check_fields(await check.json_body(request), {"source": str, "version": int})
        return _json(board.tap(_game_id(request), check.source(body["source"]), body["version"]))

    async def undo(request: Request):
        body = check.check_fields(await check.json_body(request), {"version": int})
        return _json(board.undo(_game_id(request), body["version"]))

    async def settings(request: Request):
        body = check.check_fields(await check.json_body(request),
                                  {"move_errors": bool, "placement_assistance": bool})
        return _json(board.set_settings(_game_id(request), body["move_errors"],
                                        body["placement_assistance"]))

    async def analyse(request: Request):
        check.check_fields(await check.json_body(request), {})
        return _json(board.ask_analysis(_game_id(request)))

    async def fair(request: Request):
        check.check_fields(await check.json_body(request), {})
        return _json(board.ask_fair(_game_id(request)))

    async def opinion(request: Request):
        query = request.query_params
        check.known_query(query, ("since", "wait", "hint", "line"))
        game_id = _game_id(request)
        hint, line = check.flag(query, "hint"), check.flag(query, "line")
        since = query.get("since", "")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + check.wait_seconds(query)
        while True:
            changed = board.changed(game_id)  # taken before reading: no change is missed
            out = board.opinion(game_id, hint=hint, line=line)
            tag = hashlib.sha1(json.dumps(out, sort_keys=True).encode()).hexdigest()[:16]
            left = deadline - loop.time()
            if tag != since or left <= 0 or stopping.is_set():
                break
            await _first_of((changed.wait(), stopping.wait()), left)
        out["tag"] = tag
        return _json(out)

    routes = [
        Route("/", index, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/api/start", start, methods=["GET"]),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/along", along, methods=["POST"]),
        Route("/api/along/check", along_check, methods=["POST"]),
        Route("/api/games/{game_id}", state, methods=["GET"]),
        Route("/api/games/{game_id}/reveal", reveal, methods=["POST"]),
        Route("/api/games/{game_id}/correct", correct, methods=["POST"]),
        Route("/api/games/{game_id}/tap", tap, methods=["POST"]),
        Route("/api/games/{game_id}/undo", undo, methods=["POST"]),
        Route("/api/games/{game_id}/settings", settings, methods=["POST"]),
        Route("/api/games/{game_id}/analyse", analyse, methods=["POST"]),
        Route("/api/games/{game_id}/fair", fair, methods=["POST"]),
        Route("/api/games/{game_id}/opinion", opinion, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        HTTPException: _http_error, BoardError: _board_error, HalfMoonError: _input_error,
        Exception: _server_error,
    })
    app.state.board = board
    app.state.stop = stopping.set
    return _Guard(app, allowed_hosts)


async def _first_of(waits, timeout: float) -> None:
    """Wait until the first of ``waits`` (coroutines) is done, or ``timeout`` seconds."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()


async def _unless_stopping(work, stopping: asyncio.Event):
    """The result of ``work`` (a coroutine), or a 503 when the server stops first."""
    task = asyncio.ensure_future(work)
    await _first_of((asyncio.shield(task), stopping.wait()), None)
    if not task.done():
        task.cancel()
        raise Busy("the board is stopping")
    return task.result()


def _game_id(request: Request) -> str:
    return check.game_id(request.path_params["game_id"])


def _json(data: dict, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status, headers={"cache-control": "no-store"})


async def _http_error(request: Request, exc: HTTPException):
    reasons = {404: f"nothing at {request.url.path[:80]}",
               405: f"{request.method} is not allowed on {request.url.path[:80]}"}
    return _json({"error": reasons.get(exc.status_code, exc.detail)}, exc.status_code)


async def _board_error(request: Request, exc: BoardError):
    return _json({"error": str(exc), **exc.extra}, exc.status)


async def _input_error(request: Request, exc: HalfMoonError):
    return _json({"error": str(exc)}, 400)


async def _server_error(request: Request, exc: Exception):  # pragma: no cover - a bug
    return _json({"error": "internal error of the board"}, 500)


class _Guard:
    """Answers only the expected Host names (a page of another site that renames
    itself to this address is refused) and adds the security headers."""

    def __init__(self, app: Starlette, allowed_hosts: Optional[set[str]]) -> None:
        self.app = app
        self.state = app.state
        self.allowed = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = _host_name(dict(scope["headers"]).get(b"host", b"").decode("latin-1"))
        if self.allowed is not None and host not in self.allowed:
            response = _json({"error": f"unexpected Host {host[:60]!r}"}, 400)
            return await response(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _host_name(header: str) -> str:
    """The host of a Host header, without its port (``[::1]:8000`` → ``[::1]``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.split(":", 1)[0]


# --- halfmoon play -------------------------------------------------------------------
def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0: a free one)."""
    if not 0 <= port <= 65535:
        raise ServeError(f"bad port {port}: expected 0 to 65535")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as exc:
        raise ServeError(f"cannot listen on {host!r}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def address_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1" if sock.family == socket.AF_INET else "::1"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def is_loopback(sock: socket.socket) -> bool:
    host = sock.getsockname()[0]
    return host.startswith("127.") or host == "::1"


def serve(deal: Optional[Deal] = None, *, host: str = "127.0.0.1", port: int = 0,
          open_browser: bool = True, budget: int = DEFAULT_BUDGET, moves: tuple = (),
          store: Optional[Path] = None, say: Callable[[str], None] = print) -> bool:
    """Run the board until Ctrl-C or SIGTERM: open the file of games ``store`` (None: in
    memory only; a file that is not the board's is refused), listen, print the address,
    open the browser; a new game without a deal of its own starts on ``deal`` with
    ``moves`` played. Stopping
    answers the requests that wait for news at once, stops the solver processes and returns
    (no traceback, no signal passed on): True when Ctrl-C stopped it (the command's status
    130), False for SIGTERM."""
    import uvicorn

    from .store import SavedGames

    sock = listen(host, port)
    url = address_of(sock)
    try:  # held for this board alone: another on the same file is refused, naming this one
        saved = SavedGames(store, board=url) if store is not None else None
    except BaseException:
        sock.close()
        raise
    hosts = None
    if is_loopback(sock):  # names a local page can use; a rebound name is refused
        hosts = set(LOOPBACK_NAMES) | {_host_name(url.split("//", 1)[1].rstrip("/"))}
    app = create_app(start_deal=deal, start_moves=tuple(moves), budget=budget,
                     allowed_hosts=hosts, saved=saved)
    # every request ends within a moment of the stop (the long polls are woken): the
    # graceful period is only a backstop
    config = uvicorn.Config(app, log_level="warning", lifespan="on", limit_concurrency=200,
                            timeout_graceful_shutdown=GRACEFUL_SECONDS)

    stop = _Stop()

    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets)
            if stop.asked:  # a signal before uvicorn listened for them: stop at once
                self.should_exit = True

        async def shutdown(self, sockets=None):
            app.state.stop()
            await super().shutdown(sockets)

    server = Server(config)
    with stop.handling(server):  # from the first line on: the user may press Ctrl-C now
        say(f"Half Moon board at {url}  (Ctrl-C to stop)")
        if saved is not None:
            kept = len(saved)
            say(f"games kept in {saved.path}: " + (
                "a new file" if saved.new == "missing" else
                "an empty file, taken as a new one" if saved.new == "empty" else
                f"{kept:,} game{'s' if kept != 1 else ''}"))
        if not is_loopback(sock):
            say(f"warning: listening on {sock.getsockname()[0]}, reachable from other machines")
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        try:
            server.run(sockets=[sock])
        finally:
            sock.close()
            if saved is not None:
                saved.close()
    say("stopped")
    return stop.interrupted


class _Stop:
    """Ctrl-C and SIGTERM while the board runs, whenever they come.  uvicorn listens for
    them while it serves, stops, then raises the signal again; before and after, this
    handler takes them: no KeyboardInterrupt in the middle of starting (which could leave
    the server's coroutine or its solver processes half started), a stop asked before
    uvicorn listened is kept for its start, and whether it was Ctrl-C is known (status
    130; SIGTERM ends with 0)."""

    def __init__(self) -> None:
        self.asked = False
        self.interrupted = False
        self.server = None

    def __call__(self, signum, frame) -> None:
        self.asked = True
        self.interrupted = self.interrupted or signum == signal.SIGINT
        if self.server is not None:
            self.server.should_exit = True

    @contextlib.contextmanager
    def handling(self, server):
        self.server = server
        if threading.current_thread() is not threading.main_thread():
            yield  # signals reach the main thread only: whoever runs this there stops it
            return
        before = {sig: signal.signal(sig, self) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)
