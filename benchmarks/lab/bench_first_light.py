"""How soon the board's first winnable light is lit, from ``halfmoon play`` being started.

    python benchmarks/lab/bench_first_light.py [--wait 3] [--deal 129] [--cold]

Starts ``halfmoon play --no-browser`` (as a player does), waits ``--wait`` seconds (a page
opening a moment after the server), then opens a game as the page does (``POST
/api/games``) and reads its opinion until the light is lit.  Prints the seconds from the
start of the command and from the page's opening, and each different thing the light
said meanwhile (on a cold cache: that the solver is being prepared).  ``--cold`` runs it
on an empty ``NUMBA_CACHE_DIR``, as a first run after installing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_board import Client  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wait", type=float, default=3.0, help="seconds before the page opens")
    p.add_argument("--deal", default="129", help="the deal of the first game")
    p.add_argument("--cold", action="store_true", help="on an empty numba cache")
    a = p.parse_args(argv)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    tmp = None
    if a.cold:
        tmp = tempfile.TemporaryDirectory(prefix="halfmoon-cold-")
        env["NUMBA_CACHE_DIR"] = tmp.name
    t0 = time.monotonic()
    store = Path(tempfile.mkdtemp(prefix="halfmoon-first-light-")) / "games.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "halfmoon", "play", "--no-browser",
                             "--store", str(store)],  # not the user's games
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line.startswith("Half Moon board at "):
            raise SystemExit(f"the board did not start: {line!r}")
        listening = time.monotonic() - t0
        time.sleep(max(0.0, a.wait - listening))
        client = Client(line.split()[4])
        opened = time.monotonic()
        game = client.call("POST", "/api/games", {"deal": a.deal})["id"]
        said: list[str] = []
        since = ""
        while time.monotonic() - t0 < 600:
            out = client.call("GET", f"/api/games/{game}/opinion?since={since}&wait=1")
            if not said or said[-1] != out["says"]:
                said.append(out["says"])
                print(f"{time.monotonic() - t0:6.1f} s  the light says: {out['says']}")
            if out["light"] != "pending":
                break
            since = out["tag"]
        lit = time.monotonic()
        print(f"listening {listening:.1f} s after the start; page opened at {opened - t0:.1f} s;"
              f" light lit ({out['light']}) {lit - t0:.1f} s after the start,"
              f" {lit - opened:.1f} s after the page opened{' (cold cache)' if a.cold else ''}")
    finally:
        proc.kill()
        proc.wait()
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
