"""Fault test of the commands: Ctrl-C, a plain kill and SIGKILL at random moments.

    python benchmarks/faults.py [--trials 320] [--seed S] [--commands solve,batch,...]
                                [--signals INT,TERM,KILL] [--window 0.05:30] [--busy 1]
                                [--halfmoon CMD] [--out FILE.jsonl] [--resume] [--short]

Each trial runs one command (``solve`` of a hard deal, ``analyse``, ``batch``, ``bench``,
``findings``, ``players``, ``play``) in a session of its own, with SIGINT at its default as on
a terminal, and ``--busy`` processes spinning beside it; after a delay drawn log-uniformly
from ``--window`` (its top cut to about the command's own length here, ``CAPS``, so that most
signals land while it runs) it sends SIGINT, SIGTERM or SIGKILL to the whole process group,
as a terminal's Ctrl-C does, and judges what follows.  A SIGINT goes no earlier than the
moment the command holds Ctrl-C (its SIGINT blocked, as ``halfmoon`` does first thing while
it loads; ``held_after`` in the record): before it the interpreter itself is starting, and
Python answers a Ctrl-C there with its own traceback whatever the program does.  Trial ``i``
takes the commands in turn, then the signals (command ``i mod C``, signal ``(i div C) mod S``),
and its delay from the seed and ``i``: a seed names the whole sequence, and ``--resume`` goes
on with a file.

Each failure kind is counted per command and signal:

- ``status``: SIGINT must end in 130, SIGTERM in death by it (-15, or 143) or, for the board,
  0; SIGKILL in -9.  A command whose last line of a finished run came before the signal is
  ``finished-first`` (status 0 wanted), not judged on the signal.  No exit within 10 s is
  a failure too (then the group is killed).
- ``traceback``: Python's own error lines anywhere in stdout or stderr ("Traceback",
  "XxxError:", "KeyboardInterrupt", "Exception ignored", "XxxWarning:"), those printed by
  processes left after the command exited included.
- ``lines``: after a SIGINT, the command's one line ("halfmoon: interrupted", the batch's
  "halfmoon: interrupted: N of M deals done in DIR; ...", the board's "stopped") missing;
  ``noise``: any other line after the SIGINT (but for the board's start lines, the bench's
  first line and progress lines: ordinary output, printed before a Ctrl-C held amid an
  import took effect).
- ``left``: a process carrying the trial's mark (``HALFMOON_FAULT_TRIAL`` in its
  environment, found in /proc even if it left the group) alive 2 s after the command
  exited, or the output pipes still open (then killed).
- ``lost``: batch: a Parquet file that does not read, rows on disk other than the "N of M"
  said, or the same command run again not completing the run (rows = deals, no deal twice);
  board: the trial plays moves over the board's HTTP API while the signal comes, then starts
  the board again on the same ``--store`` file: each game's version must be at least the
  last one answered 2xx (its moves the same at that version).

Prints the seed first, a line per trial, and a table per command and signal; each trial is
appended as one JSON line to ``--out`` (default ``benchmarks/results/new/faults-SEED.jsonl``,
not kept in git).  Exits 1 when any trial failed.  Everything a command writes goes to a
temporary folder removed at the end.  Linux only (/proc).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = ROOT / "benchmarks" / "results" / "new"

COMMANDS = ("solve", "analyse", "batch", "bench", "findings", "players", "play")
SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "KILL": signal.SIGKILL}
KINDS = ("status", "traceback", "lines", "noise", "left", "lost")
# seconds from start: about each command's own length on two cores with one busy loop
CAPS = {"solve": 1.8, "analyse": 5, "batch": 8, "bench": 6, "findings": 6, "players": 10,
        "play": 15}
HARD = "4469536381"  # a hard loss: seconds of search
EXIT_WAIT = 10.0  # seconds the command has to exit after the signal
LEFT_WAIT = 2.0  # seconds its processes have to be gone after it exited
HOLD_WAIT = 3.0  # seconds a command has to hold Ctrl-C (SIGINT blocked) after its start
MARK = "HALFMOON_FAULT_TRIAL"
# a busy loop: quiet on Ctrl-C, and gone with the script even if it is killed alone
BUSY = ("import os, signal, sys\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\n"
        "while os.getppid() == int(sys.argv[1]):\n    for _ in range(10**6): pass\n")
# the last line of a finished run, per command (the board never finishes)
DONE = {"solve": r"^lost: ", "analyse": r"^position: ", "batch": r" deals \([\d,]+ solved now",
        "bench": r"^written: ", "findings": r"^findings written to ", "players": r"^ceiling "}
ONE_LINE = r"^halfmoon: interrupted\b"
SAID = re.compile(r"interrupted: ([\d,]+) of ([\d,]+) deals done in ")
# a command's own output, printed before its Ctrl-C took effect (one held amid an import
# comes once the import is done): the board's start lines, the bench's first line, progress
ORDINARY = re.compile(r"^(Half Moon board at |games kept in |halfmoon: compiling |"
                      r"halfmoon bench: suite |halfmoon [\w ]+: [\d,]+ of [\d,]+ )")
TRACE = re.compile(r"Traceback \(most recent call last\)|^\s*Exception ignored|"
                   r"^\s*([\w.]+\.)?\w*(Error|Exception|Warning)(:|$)|^\s*KeyboardInterrupt\s*$")


def marked(mark: str) -> list[int]:
    """Running (not zombie) processes whose environment carries ``MARK=mark``."""
    needle = f"{MARK}={mark}\0".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                if needle not in f.read():
                    continue
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except OSError:
            continue
        found.append(int(entry.name))
    return found


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class Output:
    """A process's stdout and stderr read in threads, each line with when it came."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: list[tuple[float, str, str]] = []
        self.threads = [threading.Thread(target=self._read, args=(s, n), daemon=True)
                        for s, n in ((proc.stdout, "out"), (proc.stderr, "err"))]
        for t in self.threads:
            t.start()

    def _read(self, stream, name: str) -> None:
        for raw in iter(stream.readline, b""):
            self.lines.append((time.monotonic(), name, raw.decode("utf-8", "replace").rstrip()))

    def join(self, seconds: float) -> bool:
        """Whether both pipes reached their end within ``seconds``."""
        deadline = time.monotonic() + seconds
        for t in self.threads:
            t.join(max(deadline - time.monotonic(), 0))
        return not any(t.is_alive() for t in self.threads)

    def wait_for(self, pattern: str, seconds: float, stop=None) -> Optional[str]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (stop and stop.is_set()):
            for _, _, text in list(self.lines):
                if re.search(pattern, text):
                    return text
            if not any(t.is_alive() for t in self.threads):
                return None
            time.sleep(0.02)
        return None

    def texts(self, after: float = -math.inf, before: float = math.inf) -> list[str]:
        return [text for t, _, text in list(self.lines) if after < t <= before and text.strip()]


def launch(base: list[str], argv: list[str], mark: str, cwd: Path):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8", **{MARK: mark})
    proc = subprocess.Popen(base + argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # a group of its own, as a shell's job
    return proc, Output(proc)


def sigint_in(pid: int, field: str) -> bool | None:
    """Whether SIGINT is in the process's signal set ``field`` of /proc/PID/status
    (``SigIgn``: ignored, ``SigBlk``: blocked); None once the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except OSError:
        return None
    return False


def sigint_ignored(pid: int) -> bool:
    """Whether the process started with SIGINT ignored (a trial would be misjudged)."""
    return bool(sigint_in(pid, "SigIgn"))


def took_ctrl_c(proc: subprocess.Popen, seconds: float = HOLD_WAIT) -> float | None:
    """Wait until the command holds Ctrl-C: its SIGINT blocked, as ``halfmoon`` does first
    thing while it loads (read from /proc every millisecond).  Until then the interpreter is
    starting (its site, before any line of the program): Python answers a Ctrl-C there with
    its own traceback, no program's choice.  The seconds it took; None if the command exited
    first or was not seen holding it within ``seconds`` (then the SIGINT goes as drawn)."""
    t0 = time.monotonic()
    while time.monotonic() < t0 + seconds and proc.poll() is None:
        held = sigint_in(proc.pid, "SigBlk")
        if held is None:
            return None
        if held:
            return time.monotonic() - t0
        time.sleep(0.001)
    return None


def stop_group(proc: subprocess.Popen, mark: str, sig=signal.SIGINT, seconds=10.0) -> None:
    """End a helper run (a resumed batch, a board started again) and every process of it."""
    try:
        os.killpg(proc.pid, sig)
        proc.wait(seconds)
    except (OSError, subprocess.TimeoutExpired):
        pass
    if proc.poll() is None:
        kill_all([proc.pid])
        proc.wait()
    time.sleep(0.2)
    kill_all(marked(mark))


def command_line(command: str, i: int, work: Path, census: Path, short: bool) -> list[str]:
    if command == "solve":
        return ["solve", HARD]
    if command == "analyse":
        return ["analyse", HARD]
    if command == "batch":
        return ["batch", "--random", "3000" if short else "12000", "--seed", str(i),
                "--out", str(work / "run"), "--workers", "2"]
    if command == "bench":
        return ["bench", "--suite", "quick", "--out", str(work / "bench"),
                "--budget", "2000" if short else "20000"]
    if command == "findings":
        return ["findings", str(census), "--work", str(work / "work"), "--out",
                str(work / "findings"), "--workers", "2", "--players-deals", "200",
                "--forgiveness-deals", "10" if short else "30", "--fair-deals", "0",
                "--recheck", "0.005", "--limit", "5"]
    if command == "players":
        return ["players", "--random", "4" if short else "16", "--workers", "2",
                "--players", "random,greedy,fair@16" if short else "random,greedy,fair@32"]
    return ["play", "--no-browser", "--store", str(work / "games.sqlite3"), "--port", "0"]


# --- the board: moves played over its API while the signal comes ---------------------------

def legal_moves(state: dict) -> list[list[str]]:
    """The moves of a state as the sources to tap: two cards adding up to 11, or J, Q and K."""
    value = {"A": 1, "J": 11, "Q": 12, "K": 13}
    cards = [(slot["source"], value.get(slot["card"]["rank"]) or int(slot["card"]["rank"]))
             for slot in state["piles"] + state["reserve"] if slot.get("card")]
    moves = [[a, b] for k, (a, x) in enumerate(cards) for b, y in cards[k + 1:]
             if x <= 10 and y <= 10 and x + y == 11]
    faces = {v: [s for s, w in cards if w == v] for v in (11, 12, 13)}
    if all(faces.values()):
        moves.append([faces[11][0], faces[12][0], faces[13][0]])
    return moves


class Board:
    """A client of the board's API (loopback only; ``timeout``: seconds an answer may
    take)."""

    def __init__(self, url: str, timeout: float = 5.0) -> None:
        host, port = re.match(r"http://([^/:]+):(\d+)/", url).groups()
        self.conn = http.client.HTTPConnection(host, int(port), timeout=timeout)

    def call(self, method: str, path: str, body=None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, data, {"content-type": "application/json"})
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


class Player(threading.Thread):
    """Plays random legal moves (undoing at a dead end) from the moment the board answers;
    every state answered 2xx is recorded: (game id, version, moves)."""

    def __init__(self, out: Output, rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.out, self.rng, self.stop = out, rng, threading.Event()
        self.answered: list[tuple[str, int, int]] = []
        self.errors: list[str] = []

    def _call(self, board: Board, method: str, path: str, body=None) -> dict:
        status, data = board.call(method, path, body)
        if 200 <= status < 300:
            self.answered.append((data["id"], data["version"], data["status"]["moves"]))
            return data
        if status == 409 and isinstance(data, dict) and "state" in data:
            return data["state"]
        raise RuntimeError(f"{method} {path}: {status} {str(data)[:200]}")

    def run(self) -> None:
        first = self.out.wait_for(r"^Half Moon board at ", 60, self.stop)
        if first is None:
            return
        try:
            board = Board(first.split()[4])
            state = self._call(board, "POST", "/api/games",
                               {"deal": str(self.rng.randrange(10**6))})
            while not self.stop.is_set():
                game = f"/api/games/{state['id']}"
                moves = legal_moves(state)
                if state["selection"]:  # a tap that failed left a card selected
                    state = self._call(board, "POST", f"{game}/tap",
                                       {"source": state["selection"][0],
                                        "version": state["version"]})
                elif moves:
                    for source in self.rng.choice(moves):
                        state = self._call(board, "POST", f"{game}/tap",
                                           {"source": source, "version": state["version"]})
                elif state["can_undo"]:  # a dead end: back a few moves, to play others
                    for _ in range(self.rng.randint(1, 6)):
                        if state["can_undo"]:
                            state = self._call(board, "POST", f"{game}/undo",
                                               {"version": state["version"]})
                else:
                    state = self._call(board, "POST", "/api/games",
                                       {"deal": str(self.rng.randrange(10**6))})
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")  # the board went: expected
        except RuntimeError as exc:
            self.errors.append(str(exc))


def board_kept(player: Player, base: list[str], argv: list[str], mark: str, cwd: Path) -> dict:
    """Start the board again on the same file of games: each game as last answered 2xx?"""
    last: dict[str, tuple[int, int]] = {}
    for game, version, moves in player.answered:
        last[game] = (version, moves)
    if not last:
        return {"games": 0}
    proc, out = launch(base, argv, mark, cwd)
    try:
        first = out.wait_for(r"^Half Moon board at ", 60)
        if first is None:
            return {"lost": "the board did not start again", "output": out.texts()[-5:]}
        # as long as the start itself may take: a slow answer on a busy machine is not a
        # game lost (none answered at all is)
        board, wrong = Board(first.split()[4], timeout=60), []
        for game, (version, moves) in last.items():
            status, data = board.call("GET", f"/api/games/{game}")
            if status != 200:
                wrong.append(f"{game}: {status} {str(data)[:120]}")
            elif data["version"] < version or (data["version"] == version
                                               and data["status"]["moves"] != moves):
                wrong.append(f"{game}: version {data['version']} moves {data['status']['moves']},"
                             f" answered {version} moves {moves}")
        return {"games": len(last), "answered": len(player.answered),
                **({"lost": "; ".join(wrong)} if wrong else {})}
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return {"lost": f"the board started again did not answer: {exc}"}
    finally:
        stop_group(proc, mark)


# --- the batch: rows said, rows on disk, the run resumed ------------------------------------

def batch_rows(run: Path) -> tuple[list[int], list[str]]:
    import pyarrow.parquet as pq

    deals, bad = [], []
    for path in sorted(run.glob("part-*.parquet")):
        try:
            deals += pq.read_table(path, columns=["deal"]).column("deal").to_pylist()
        except Exception as exc:  # noqa: BLE001 - any reading error is a file lost
            bad.append(f"{path.name}: {type(exc).__name__}: {exc}")
    return deals, bad


def batch_kept(texts: list[str], total: int, base: list[str], argv: list[str], mark: str,
               run: Path, cwd: Path, finished: bool) -> dict:
    deals, bad = batch_rows(run)
    out: dict = {"rows": len(deals), "unreadable": bad}
    problems = [f"unreadable {b}" for b in bad]
    said = [SAID.search(t) for t in texts]
    said = [m for m in said if m]
    if said:
        done, of = (int(g.replace(",", "")) for g in said[-1].groups())
        out["said"] = done
        if done != len(deals) or of != total:
            problems.append(f"said {done} of {of}, {len(deals)} rows on disk of {total}")
    if finished:
        if len(deals) != total or len(set(deals)) != total:
            problems.append(f"finished with {len(deals)} rows ({len(set(deals))} deals)")
    else:
        proc, output = launch(base, argv, mark, cwd)
        try:
            status = proc.wait(180)
        except subprocess.TimeoutExpired:
            status = "hung"
        stop_group(proc, mark)
        output.join(5)
        deals, bad = batch_rows(run)
        out["resumed"] = {"status": status, "rows": len(deals), "last": output.texts()[-2:]}
        if status != 0 or bad or len(deals) != total or len(set(deals)) != total:
            problems.append(f"run again: status {status}, {len(deals)} rows "
                            f"({len(set(deals))} deals) of {total}, unreadable {bad}")
    if problems:
        out["lost"] = "; ".join(problems)
    return out


# --- a trial ------------------------------------------------------------------------------

def draw(i: int, seed: int, commands, signals, window) -> tuple[str, str, float]:
    command = commands[i % len(commands)]
    name = signals[(i // len(commands)) % len(signals)]
    lo, hi = window
    hi = max(min(hi, CAPS[command]), lo)
    u = random.Random(f"{seed}:{i}").random()
    return command, name, math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))


def judge(command: str, name: str, status, texts_after: list[str], finished: bool) -> dict:
    """The status, lines and noise failures of a trial (module docstring)."""
    fails = {}
    if finished:
        if status != 0:
            fails["status"] = f"finished first with status {status}"
        return fails
    wanted = {"INT": {130}, "TERM": {-15, 143} | ({0} if command == "play" else set()),
              "KILL": {-9}}[name]
    if status not in wanted:
        fails["status"] = f"status {status}, wanted {sorted(wanted)}"
    if name == "INT":
        one = ONE_LINE + "|^stopped$" if command == "play" else ONE_LINE
        mine = [t for t in texts_after if re.search(one, t)]
        if not mine:
            fails["lines"] = "no interrupted line"
        others = [t for t in texts_after if t not in mine[:1] and not ORDINARY.search(t)]
        if others:
            fails["noise"] = f"{len(others)} more lines"
    return fails


def trial(i: int, cfg: argparse.Namespace, census: Path) -> dict:
    """One trial, its record; cut short (the script stopped), none of its processes left."""
    mark = f"{cfg.seed}-{i}-{os.getpid()}"
    try:
        return _trial(i, cfg, census, mark)
    except BaseException:
        for _ in range(3):  # a process may start another meanwhile
            kill_all(marked(mark) + marked(mark + "-again"))
            time.sleep(0.1)
        raise


def _trial(i: int, cfg: argparse.Namespace, census: Path, mark: str) -> dict:
    command, name, delay = draw(i, cfg.seed, cfg.commands, cfg.signals, cfg.window)
    work = Path(tempfile.mkdtemp(prefix=f"trial-{i}-", dir=cfg.tmp))
    argv = command_line(command, i, work, census, cfg.short)
    record = {"seed": cfg.seed, "trial": i, "command": command, "signal": name,
              "delay": round(delay, 4), "halfmoon": cfg.halfmoon, "argv": argv}
    proc, out = launch(cfg.halfmoon, argv, mark, work)
    t0 = time.monotonic()
    record["sigint_ignored"] = sigint_ignored(proc.pid)
    if name == "INT":
        took = took_ctrl_c(proc)
        record["held_after"] = None if took is None else round(took, 4)
    player = None
    if command == "play":
        player = Player(out, random.Random(f"{cfg.seed}:{i}:moves"))
        player.start()
    try:
        proc.wait(max(t0 + delay - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        pass
    sent_at = time.monotonic()
    done = DONE.get(command)
    finished = proc.poll() is not None
    if not finished:
        try:
            os.killpg(proc.pid, SIGNALS[name])
        except ProcessLookupError:
            finished = True
    try:
        status = proc.wait(EXIT_WAIT)
    except subprocess.TimeoutExpired:
        status = "hung"
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    exited = time.monotonic()
    if not finished and status == 0 and done and any(
            re.search(done, t) for t in out.texts(before=sent_at)):
        finished = True  # its finished run's last line came before the signal: a close race
    if player is not None:
        player.stop.set()
        player.join(10)
    left = marked(mark)
    while left and time.monotonic() < exited + LEFT_WAIT:
        time.sleep(0.05)
        left = marked(mark)
    left = {pid: _cmdline(pid) for pid in left}
    kill_all(left)
    closed = out.join(5)
    texts, after = out.texts(), out.texts(sent_at)
    record.update(sent=not finished, finished_first=finished, status=status,
                  exit_s=round(exited - sent_at, 3), lines_after=after[-20:],
                  left=[f"{pid} {line}" for pid, line in left.items()])
    fails = judge(command, name, status, after, finished)
    traces = [t for t in texts if TRACE.search(t)]
    if traces:
        fails["traceback"] = traces[:5]
    if left or not closed:
        fails["left"] = f"{len(left)} processes" + ("" if closed else ", the pipes still open")
    if command == "batch":
        total = int(argv[argv.index("--random") + 1])
        kept = batch_kept(texts, total, cfg.halfmoon, argv, mark + "-again", work / "run", work,
                          finished)
        record["batch"] = kept
    elif command == "play":
        kept = board_kept(player, cfg.halfmoon, argv, mark + "-again", work)
        record["board"] = {**kept, "errors": player.errors[-3:]}
    else:
        kept = {}
    if "lost" in kept:
        fails["lost"] = kept["lost"]
    record["failures"] = fails
    record["output_tail"] = texts[-12:]
    shutil.rmtree(work, ignore_errors=True)
    return record


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return "?"


# --- the run ------------------------------------------------------------------------------

def summary(records: list[dict]) -> list[str]:
    """A table per command and signal: trials, signals sent, finished first, each failure."""
    head = ["command", "signal", "trials", "sent", "finished-first", *KINDS]
    rows, totals = [], Counter()
    for command in COMMANDS:
        for name in SIGNALS:
            mine = [r for r in records if (r["command"], r["signal"]) == (command, name)]
            if not mine:
                continue
            c = Counter(trials=len(mine), sent=sum(r["sent"] for r in mine),
                        finished=sum(r["finished_first"] for r in mine))
            c.update(k for r in mine for k in r["failures"])
            totals.update(c)
            rows.append([command, name, c["trials"], c["sent"], c["finished"],
                         *(c[k] for k in KINDS)])
    rows.append(["all", "", totals["trials"], totals["sent"], totals["finished"],
                 *(totals[k] for k in KINDS)])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(str(x).rjust(w) if k > 1 else str(x).ljust(w)
                       for k, (x, w) in enumerate(zip(row, widths))) for row in [head, *rows]]
    statuses = Counter((r["command"], r["signal"], r["status"]) for r in records if r["sent"])
    lines.append("exit statuses after a signal: " + ", ".join(
        f"{c} {n} {s}: {k}" for (c, n, s), k in sorted(statuses.items(), key=str)))
    failed = [r for r in records if r["failures"]]
    for r in failed[:40]:
        lines.append(f"  failed: trial {r['trial']} {r['command']} {r['signal']} at "
                     f"{r['delay']:.2f} s: {json.dumps(r['failures'], ensure_ascii=False)[:300]}")
    return lines


def _window(text: str) -> tuple[float, float]:
    lo, hi = (float(x) for x in text.split(":"))
    if not 0 < lo <= hi:
        raise argparse.ArgumentTypeError(f"bad window {text}: wanted 0 < LO <= HI")
    return lo, hi


def _names(allowed):
    def parse(text: str) -> list[str]:
        names = [n.strip() for n in text.split(",") if n.strip()]
        bad = [n for n in names if n not in allowed]
        if bad or not names:
            raise argparse.ArgumentTypeError(f"{text}: choose among {','.join(allowed)}")
        return names
    return parse


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=320, help="trials in all (default 320)")
    p.add_argument("--seed", type=int, help="seed of the delays (default: a fresh one, printed)")
    p.add_argument("--commands", type=_names(COMMANDS), default=list(COMMANDS),
                   help=f"comma-separated, of {','.join(COMMANDS)} (default: all)")
    p.add_argument("--signals", type=_names(tuple(SIGNALS)), default=list(SIGNALS),
                   help="comma-separated, of INT,TERM,KILL (default: all)")
    p.add_argument("--window", type=_window, default=(0.05, 30.0), metavar="LO:HI",
                   help="seconds from start the signal is drawn in, log-uniformly, HI cut to "
                        "about the command's length (default 0.05:30)")
    p.add_argument("--busy", type=int, default=1, metavar="K",
                   help="busy-loop processes beside the trials (default 1)")
    p.add_argument("--halfmoon", metavar="CMD",
                   help="the command to run, e.g. another checkout's .venv/bin/halfmoon "
                        "(default: the halfmoon beside this Python)")
    p.add_argument("--out", type=Path, metavar="FILE.jsonl",
                   help="one JSON line per trial, appended (default: "
                        "benchmarks/results/new/faults-SEED.jsonl)")
    p.add_argument("--resume", action="store_true",
                   help="go on with --out's trials (its seed), up to --trials in all")
    p.add_argument("--short", action="store_true",
                   help="smaller batch, bench, findings and players runs (the test suite's)")
    args = p.parse_args(argv)
    if args.halfmoon:
        args.halfmoon = shlex.split(args.halfmoon)
        if "/" in args.halfmoon[0]:  # the commands run in folders of their own
            args.halfmoon[0] = str(Path(args.halfmoon[0]).resolve())
    else:
        beside = Path(sys.executable).parent / "halfmoon"
        args.halfmoon = [str(beside)] if beside.exists() else [sys.executable, "-m", "halfmoon"]
    return args


def previous(args) -> list[dict]:
    """The trials already in --out (with --resume), the seed taken from them."""
    if not (args.resume and args.out and args.out.exists()):
        return []
    records = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
    seeds = {r["seed"] for r in records}
    if args.seed is None and len(seeds) == 1:
        args.seed = seeds.pop()
    elif args.seed is None and seeds:
        raise SystemExit(f"{args.out} holds several seeds {sorted(seeds)}: give --seed")
    return [r for r in records if r["seed"] == args.seed]


def make_census(args, tmp: Path) -> Path:
    """The small finished run the findings trials derive from, made once."""
    census = tmp / "census"
    subprocess.run(args.halfmoon + ["batch", "--random", "1000", "--seed", "7", "--out",
                                    str(census), "--workers", "2", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL, cwd=tmp)
    return census


def main(argv=None) -> int:
    args = parse_args(argv)
    done = previous(args)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(10**6)
    print(f"faults: seed {args.seed}", flush=True)
    args.out = args.out or RESULTS / f"faults-{args.seed}.jsonl"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # A handler of ours, not "ignored": a shell's background job has SIGINT ignored, and each
    # command started would keep it so; a handler is reset to the default in the child.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"faults: {' '.join(args.halfmoon)}; commands {','.join(args.commands)}; signals "
          f"{','.join(args.signals)}; window {args.window[0]}:{args.window[1]} s; "
          f"{args.busy} busy loops; trials {len(done)} to {args.trials - 1}; into {args.out}"
          if len(done) < args.trials else f"faults: {len(done)} trials in {args.out}",
          flush=True)
    args.tmp = Path(tempfile.mkdtemp(prefix="halfmoon-faults-"))
    busy = [subprocess.Popen([sys.executable, "-c", BUSY, str(os.getpid())])
            for _ in range(args.busy)]
    records = list(done)
    try:
        todo = range(max((r["trial"] for r in done), default=-1) + 1, args.trials)
        census = make_census(args, args.tmp) if "findings" in args.commands and todo \
            else args.tmp
        for i in todo:
            record = trial(i, args, census)
            records.append(record)
            with args.out.open("a") as f:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
            said = ", ".join(f"{k}" for k in record["failures"]) or "ok"
            how = "finished first" if record["finished_first"] else f"exit {record['status']}"
            print(f"{i:5d} {record['command']:8s} {record['signal']:4s} at "
                  f"{record['delay']:6.2f} s: {how} after {record['exit_s']:+.2f} s; {said}"
                  + ("; SIGINT WAS IGNORED" if record["sigint_ignored"] else ""), flush=True)
    except (KeyboardInterrupt, SystemExit):
        print(f"faults: stopped; {len(records)} trials kept (--resume goes on)")
        print("\n".join(summary(records)))
        return 130
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
        shutil.rmtree(args.tmp, ignore_errors=True)
    print("\n".join(summary(records)))
    return 1 if any(r["failures"] for r in records) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader left (piped into head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
