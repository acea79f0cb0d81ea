#!/bin/bash
# the 2,000 deals of --random 2000 --seed 20261254 in pieces of 50 (the same games: each
# game's seed is the run's seed and the deal); a piece done is skipped, so this resumes.
# Optional arguments FIRST LAST run pieces FIRST..LAST only; copies run side by side each
# take a piece no other copy holds (a lock that ends with its holder).
cd "$(dirname "$0")/../../../.."  # the repository
D=benchmarks/results/lab/ladder-recommend-seed20261254
for k in $(seq ${1:-0} ${2:-39}); do
  f=$D/piece$(printf %02d $k)
  [ -e $f.parquet ] && continue
  exec 9>$f.lock
  if ! flock -n 9; then exec 9>&-; continue; fi
  sed -n "$((k*50+1)),$((k*50+50))p" $D/deals.txt > $f.codes
  .venv/bin/halfmoon players --codes $f.codes --seed 20261254 --players tuned,fair,recommend \
    --against tuned,fair --workers 1 --quiet --per-deal $f.parquet.part > $f.txt 2>&1 \
    && mv $f.parquet.part $f.parquet
  rm -f $f.parquet.part $f.lock
  exec 9>&-
done
