"""``halfmoon stats`` on a census-sized dataset: wall time, rows a second, peak memory.

    python benchmarks/bench_stats.py [--rows 100000000] [--dir DIR] [--chunk-rows 1000000]
                                     [--lines] [--seed 0] [--json FILE] [--counts]

With ``--counts``, the findings' counting pass (:func:`halfmoon.research.census.count_census`,
at its defaults) is measured in the same way instead of ``halfmoon stats``.

Writes a synthetic results dataset (:mod:`halfmoon.batch.synthetic`: the real format, rows
drawn at random, not solved) into ``DIR`` unless one of that many rows is there already, then
runs ``halfmoon stats DIR`` in a fresh process under GNU ``time -v`` and prints its wall time,
rows a second and peak resident memory.  The dataset is kept for the next run (delete it by
hand: 100 million rows take about 0.8 GB).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _ready(out: Path, rows: int) -> bool:
    from halfmoon.batch.results import load_manifest

    try:
        m = load_manifest(out)
    except Exception:
        return False
    return bool(m and m.get("synthetic") and m.get("deals", {}).get("count") == rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=100_000_000)
    p.add_argument("--dir", type=Path, default=ROOT / "bench-stats-data")
    p.add_argument("--chunk-rows", type=int, default=1_000_000)
    p.add_argument("--lines", action="store_true", help="give each win a (made-up) line")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path)
    p.add_argument("--counts", action="store_true",
                   help="measure the findings' counting pass instead")
    args = p.parse_args(argv)

    from halfmoon.batch.synthetic import write_synthetic

    if not _ready(args.dir, args.rows):
        shutil.rmtree(args.dir, ignore_errors=True)
        t0 = time.perf_counter()
        write_synthetic(args.dir, args.rows, chunk_rows=args.chunk_rows, seed=args.seed,
                        lines=args.lines)
        print(f"wrote {args.rows:,} synthetic rows into {args.dir} "
              f"in {time.perf_counter() - t0:.1f} s")
    size = sum(f.stat().st_size for f in args.dir.glob("part-*.parquet"))
    print(f"dataset: {args.rows:,} rows, {size / 1e9:.2f} GB, {size / args.rows:.2f} bytes a row")

    gnu_time = shutil.which("time") or "/usr/bin/time"
    halfmoon = str(Path(sys.executable).with_name("halfmoon"))
    if args.counts:
        what = "the findings' counts"
        code = ("import sys; from halfmoon.research.census import count_census; "
                "c = count_census(sys.argv[1]); "
                "print(c.summary['deals'], 'deals,', len(c.losses), 'losses,', len(c.players), "
                "'in the players sample')")
        cmd = [gnu_time, "-v", sys.executable, "-c", code, str(args.dir)]
    else:
        what = "halfmoon stats"
        cmd = [gnu_time, "-v", halfmoon, "stats", str(args.dir)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return 1
    sys.stdout.write(proc.stdout)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)",
                     proc.stderr).group(1)
    seconds = sum(float(x) * 60 ** k for k, x in enumerate(reversed(wall.split(":"))))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                        proc.stderr).group(1))
    user = float(re.search(r"User time \(seconds\): (\S+)", proc.stderr).group(1))
    print(f"{what}: wall {seconds:.2f} s, {args.rows / seconds / 1e6:.1f} million rows/s,"
          f" peak memory {rss / 1024:.0f} MiB, user {user:.1f} s")
    if args.json:
        args.json.write_text(json.dumps({"rows": args.rows, "bytes": size, "wall_seconds": seconds,
                                         "rows_per_second": args.rows / seconds,
                                         "peak_rss_kib": rss, "user_seconds": user},
                                        indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
