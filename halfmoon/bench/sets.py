"""The published deal sets written out for another solver: a layout file a deal (the card
notation of the deal-code contract, bottom card first, with the deal's code and verdict in
its comment lines) and the set's CSV of codes, verdicts and positions beside them."""

from __future__ import annotations

import shutil
from pathlib import Path

from halfmoon.game.deal import Deal, format_layout

from .suites import SETS, deal_set, set_version


def export_set(name: str, out: Path) -> int:
    """Write set ``name``'s layout files (``<code>.txt``) and its CSV into ``out``: the
    number of layout files written."""
    rows = deal_set(name)
    version = set_version(name)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SETS / f"{name}.csv", out / f"{name}.csv")
    for r in rows:
        layout = format_layout(Deal.from_number(r.number))
        # the code alone on the first line: a layout's reader keeps it, so the file is the
        # deal (its number, its code), not a position of unknown origin
        head = (f"# {r.code}\n# deal {r.number}, of the {name} set of halfmoon bench\n"
                f"# verdict: {r.verdict} (solver version {version}, {r.positions:,} positions;"
                f" CP-SAT: {r.cpsat})\n")
        body = "\n".join(line for line in layout.splitlines() if not line.startswith("#"))
        (out / f"{r.code}.txt").write_text(head + body.strip("\n") + "\n")
    return len(rows)
