"""Pool the ladder's finished pieces into one table (python pool.py > pooled-N.txt)."""

from pathlib import Path

import pandas as pd

from halfmoon.research.fairplay import ladder

here = Path(__file__).parent
pieces = sorted(here.glob("piece[0-9][0-9].parquet"))
games = pd.concat([pd.read_parquet(p) for p in pieces], ignore_index=True)
print(f"{len(pieces)} pieces, {games['deal'].nunique()} deals")
with pd.option_context("display.width", 250, "display.max_columns", 30):
    print(ladder(games, against=("tuned", "fair")))
