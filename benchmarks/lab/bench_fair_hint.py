"""How soon the board's fair hint answers, stage by stage, on positions of real games.

    python benchmarks/lab/bench_fair_hint.py [--deals 10] [--seed 1] [--plies 0,10,20]
                                         [--screenshot FILE]

Starts ``halfmoon play --no-browser``, waits until the solver is ready, then for each of
``--deals`` random deals and each ply of ``--plies`` (positions along the greedy player's
game) opens a game there, asks for the fair hint (``POST /api/games/{id}/fair``) and reads
the opinion until each stage's answer is in: prints the seconds from the request to the
first answer and to the last, with the samples of each.  ``--screenshot FILE`` also draws
the page of the first such game, fair hint shown, with the system's Chromium (Playwright).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_board import Client, start_server  # noqa: E402


def _open(client: Client, number: int, ply: int) -> str:
    from halfmoon.research.strategies import play

    game = client.call("POST", "/api/games", {"deal": str(number)})
    gid = game["id"]
    for move in play(number, "greedy").moves[:ply]:
        for source in move.sources:
            game = client.call("POST", f"/api/games/{gid}/tap",
                               {"source": source, "version": game["version"]})
    return gid


def _stages(client: Client, gid: str) -> list[tuple[float, int]]:
    t0 = time.monotonic()
    client.call("POST", f"/api/games/{gid}/fair", {})
    seen, since = [], ""
    while time.monotonic() - t0 < 120:
        out = client.call("GET", f"/api/games/{gid}/opinion?since={since}&wait=1")
        since = out["tag"]
        fair = out.get("fair") or {}
        if fair.get("samples") and (not seen or seen[-1][1] != fair["samples"]):
            seen.append((time.monotonic() - t0, fair["samples"]))
        if fair and not fair.get("more"):
            break
    return seen


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--plies", default="0,10,20")
    p.add_argument("--screenshot", type=Path)
    a = p.parse_args(argv)
    from halfmoon.game.codes import random_numbers

    proc, url = start_server()
    try:
        client = Client(url)
        warm = client.call("POST", "/api/games", {"deal": "0"})["id"]
        while client.call("GET", f"/api/games/{warm}/opinion?wait=1")["light"] == "pending":
            pass
        _stages(client, warm)  # the fair kernels loaded (or compiled, on a cold cache)
        firsts, lasts = [], []
        shot = None
        for number in random_numbers(a.deals, seed=a.seed):
            for ply in (int(x) for x in a.plies.split(",")):
                gid = _open(client, number, ply)
                seen = _stages(client, gid)
                if not seen:
                    continue
                shot = shot or gid
                firsts.append(seen[0][0])
                lasts.append(seen[-1][0])
                print(f"deal {number} ply {ply}: "
                      + ", ".join(f"{n} samples at {t:.2f} s" for t, n in seen))
        if not firsts:
            raise SystemExit("no position gave a fair hint")
        print(f"first answer: median {statistics.median(firsts):.2f} s, max {max(firsts):.2f} s; "
              f"last: median {statistics.median(lasts):.2f} s, max {max(lasts):.2f} s "
              f"({len(firsts)} positions)")
        if a.screenshot and shot:
            from playwright.sync_api import expect, sync_playwright

            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=shutil.which("chromium"),
                                             args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1200, "height": 860})
                page.goto(f"{url.rstrip('/')}/#g={shot}")
                expect(page.locator("#card-P1")).to_be_visible(timeout=30_000)
                page.locator("#fair-button").click()
                expect(page.locator("#fair-note")).to_contain_text("sampled layouts.",
                                                                   timeout=60_000)
                page.screenshot(path=str(a.screenshot), full_page=True)
                browser.close()
            print(f"screenshot: {a.screenshot}")
    finally:
        proc.kill()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
