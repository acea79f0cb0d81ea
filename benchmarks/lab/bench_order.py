"""A move order fitted on the positions of hard wins: which features of a move tell the one a
winning line plays.

    python benchmarks/lab/bench_order.py collect --random N --seed S [--hard] --out FILE
    python benchmarks/lab/bench_order.py fit FILE [FILE ...] [--split-seed 1]

(``fit`` also reads the collected files gzipped, FILE.gz.)

- ``collect``: solves the deals (random deals from the whole code space, and with ``--hard``
  the wins of the hard set of ``halfmoon bench``), keeps the wins that took over ``--min``
  positions (2,000), and along each winning line writes every position's moves, as the
  depth-first searches generate them with the free-card and class rules, with their features
  and a label: whether the line plays it.  One line of JSON a position (positions with one
  move are left out, and those whose played move is not among the generated ones are counted);
  each line also holds the position and its moves (deltas), to compute other features later.
- ``fit``: a linear score fitted on the pairs (the played move against each other move of its
  position; a logistic regression on the differences of their features, numpy's least squares
  for the start, Newton's steps after), on the deals of one half (split by ``--split-seed``),
  judged on the other: the share of pairs ordered right and where the played move stands
  among its position's moves (0: first, 1: last), for the fitted score (all features, and
  the first twelve: those move generation can weigh a source at a time), the engine's order
  and the order by fullest piles; then refitted on all positions, the twelve weights in
  integers.  By default only the lines the grouping
  search found are used: a depth-first search's line follows that search's own order (the
  fit would learn to copy it), the clause-learning search's does not.

The features of a move (``FEATURES``) are summed over its cards: the move's class, cards from
the reserve, the counts of the piles it takes from, piles it empties, uncovered cards of its
own class, cards that cover one of their class, uncovered cards with a partner among the
cards in view (the card itself left out), the cards of its class left in the game.  It reaches
into the solver's insides: solver.portfolio (its searches, to find the wins and their lines),
solver.depth_first (the move generation) and solver.mirror (the bit-packed deal).  Figures:
docs/tuning-log.md (2026-12-06, "a move order fitted on positions of hard wins").
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from halfmoon.game.cards import FACE_RANKS, JACK, pair_partner, rank_class  # noqa: E402
from halfmoon.game.codes import random_numbers  # noqa: E402
from halfmoon.game.deal import Deal  # noqa: E402

FEATURES = ("pair A+10", "pair 2+9", "pair 3+8", "pair 4+7", "pair 5+6", "triplet",
            "from reserve", "pile counts", "piles emptied", "uncovers its class",
            "covers its class", "uncovered with a partner", "its class left")
KERNEL_FEATURES = 12  # the first twelve: what move generation can weigh a source at a time
NCLASS = 6


def _partners(rank: int) -> tuple[int, ...]:
    return FACE_RANKS if rank >= JACK else (pair_partner(rank),)


def move_features(piles: np.ndarray, reserve: np.ndarray, pos: int, delta: int) -> list[int]:
    """The features of the move ``delta`` at ``pos`` (see FEATURES)."""
    counts = [(pos >> (4 * i)) & 15 for i in range(12)]
    full = [(pos >> (48 + r)) & 1 for r in range(8)]
    src_piles = [i for i in range(12) if (delta >> (4 * i)) & 15]
    src_res = [r for r in range(8) if (delta >> (48 + r)) & 1]
    ranks = [int(piles[i, counts[i] - 1]) for i in src_piles] + [int(reserve[r]) for r in src_res]
    c = rank_class(ranks[0])
    f = [0] * len(FEATURES)
    f[c] = 1
    f[6] = len(src_res)
    # the cards in view (the cards the move uncovers are not counted)
    view = {i: int(piles[i, counts[i] - 1]) for i in range(12) if counts[i] > 0}
    view.update({12 + r: int(reserve[r]) for r in range(8) if full[r]})
    for i in src_piles:
        n = counts[i]
        f[7] += n
        if n == 1:
            f[8] += 1
            continue
        u = int(piles[i, n - 2])
        f[9] += rank_class(u) == c
        f[10] += any(rank_class(int(piles[i, k])) == c for k in range(n - 1))
        others = [rank for src, rank in view.items() if src != i]  # all but the card itself
        f[11] += all(p in others for p in _partners(u) if p != u)
    left = sum(rank_class(int(piles[i, k])) == c for i in range(12) for k in range(counts[i]))
    f[12] = left + sum(rank_class(int(reserve[r])) == c for r in range(8) if full[r])
    return f


def _hard_wins(limit: int) -> list[int]:
    from halfmoon.bench.suites import deal_set

    return [r.number for r in deal_set("hard") if r.verdict == "win" and r.positions <= limit]


def collect(args) -> None:
    from solver.depth_first.pruning import (
        CLASS_IN_VIEW,
        FREE_CARDS,
        new_workspace,
        search_moves,
        top_table,
    )
    from solver.mirror.convert import deal_arrays
    from solver.mirror.position import MAX_MOVES, initial_position
    from solver.portfolio.deal_numbers import solve_numbers
    from solver.portfolio.search import DEFAULT_BUDGET

    sets = []
    if args.random:
        sets.append((f"random {args.seed}", random_numbers(args.random, args.seed)))
    if args.hard:
        sets.append(("hard", _hard_wins(args.hard_limit)))
    out = np.empty(MAX_MOVES, np.uint64)
    keys = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    flags = FREE_CARDS | CLASS_IN_VIEW
    wins = positions = missing = 0
    with open(args.out, "w") as fh:
        for name, numbers in sets:
            for at in range(0, len(numbers), 250):
                piece = solve_numbers(numbers[at:at + 250], DEFAULT_BUDGET)
                for k in range(len(piece.numbers)):
                    if piece.verdicts[k] != 1 or piece.nodes[k] <= args.min:  # 1: WIN
                        continue
                    wins += 1
                    number = int(piece.numbers[k])
                    piles, reserve = deal_arrays(Deal.from_number(number))
                    tops = top_table(piles, reserve)
                    pos = int(initial_position(piles, reserve))
                    for ply in range(int(piece.nline[k])):
                        played = int(piece.lines[k, ply])
                        m = search_moves(tops, np.uint64(pos), flags, out, keys, ws)
                        moves = [int(out[j]) for j in range(m)]
                        if played not in moves:
                            missing += 1
                        elif m > 1:
                            positions += 1
                            fh.write(json.dumps({
                                "set": name, "deal": number, "nodes": int(piece.nodes[k]),
                                "by": piece.settled_by[k], "ply": ply, "position": pos,
                                "moves": moves, "played": moves.index(played),
                                "features": [move_features(piles, reserve, pos, mv)
                                             for mv in moves]}) + "\n")
                        pos -= played
                print(f"{name}: {at + len(piece.numbers)} deals, {wins} hard wins, "
                      f"{positions} positions, {missing} played moves not generated",
                      file=sys.stderr)


def _load(paths: list[str]) -> list[dict]:
    rows = []
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as fh:
            rows += [json.loads(line) for line in fh]
    return rows


def _pairs(rows: list[dict]) -> np.ndarray:
    diffs = []
    for r in rows:
        f = np.asarray(r["features"], float)
        p = r["played"]
        diffs.append(np.delete(f, p, axis=0) * -1 + f[p])
    return np.concatenate(diffs) if diffs else np.zeros((0, len(FEATURES)))


def fit_weights(rows: list[dict], l2: float = 1e-3) -> np.ndarray:
    """Logistic regression without intercept on the played-minus-other differences."""
    x = _pairs(rows)
    # the class one-hots sum to one on both sides: their differences are not independent,
    # so the L2 term picks one solution
    w = np.linalg.lstsq(x, np.ones(len(x)), rcond=None)[0] * 0.1
    for _ in range(30):
        z = x @ w
        p = 1 / (1 + np.exp(-z))
        g = x.T @ (p - 1) / len(x) + l2 * w
        h = (x * (p * (1 - p))[:, None]).T @ x / len(x) + l2 * np.eye(len(w))
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def _judge(rows: list[dict], score) -> tuple[float, float, float]:
    """(share of pairs ordered right, ties counted half; mean place of the played move,
    0 first to 1 last; share of positions where it comes first)."""
    right = total = 0.0
    places = []
    firsts = 0
    for r in rows:
        s = score(r)
        p = r["played"]
        better = sum(1 for j in range(len(s)) if j != p and s[j] > s[p])
        ties = sum(1 for j in range(len(s)) if j != p and s[j] == s[p])
        n = len(s) - 1
        right += n - better - ties / 2
        total += n
        # a stable sort keeps generation order among equals
        place = better + sum(1 for j in range(p) if s[j] == s[p])
        places.append(place / n)
        firsts += place == 0
    return right / max(total, 1), float(np.mean(places)), firsts / max(len(rows), 1)


def _keep(rows: list[dict], n: int) -> list[dict]:
    """The rows with their moves' first ``n`` features only."""
    return [dict(r, features=[f[:n] for f in r["features"]]) for r in rows]


def fit(args) -> None:
    rows = _load(args.files)
    print(f"{len(rows)} positions of {len({r['deal'] for r in rows})} hard wins, "
          f"{sum(len(r['features']) for r in rows)} moves; by the search that settled them: "
          + ", ".join(f"{b} {sum(r['by'] == b for r in rows)}"
                      for b in sorted({str(r['by']) for r in rows})))
    if args.settled_by != "all":
        rows = [r for r in rows if r["by"] == args.settled_by]
    deals = sorted({r["deal"] for r in rows})
    print(f"fitted on the lines of {args.settled_by}: {len(rows)} positions of {len(deals)} wins")
    rng = np.random.default_rng(args.split_seed)
    half = set(rng.permutation(deals)[: len(deals) // 2].tolist())
    parts = ([r for r in rows if r["deal"] in half], [r for r in rows if r["deal"] not in half])
    fixed = {
        "engine order": lambda r: [0] * len(r["features"]),
        "fullest piles": lambda r: [f[7] for f in r["features"]],
    }
    for k, (train, test) in enumerate((parts, parts[::-1])):
        orders = dict(fixed)
        for n in (len(FEATURES), KERNEL_FEATURES):
            w = fit_weights(_keep(train, n))
            print(f"half {k + 1}, {n} features: "
                  + ", ".join(f"{name} {v:+.3f}" for name, v in zip(FEATURES, w)))
            orders[f"fitted, {n} features"] = (lambda w, n: lambda r: list(
                np.asarray(r["features"], float)[:, :n] @ w))(w, n)
        for name, score in orders.items():
            a, place, first = _judge(test, score)
            print(f"  judged on half {2 - k}: {name:20s} pairs right {a:.3f}, "
                  f"played move's place {place:.3f}, first {first:.3f}")
    w = fit_weights(_keep(rows, KERNEL_FEATURES))
    ints = np.round(w / np.abs(w).max() * args.scale).astype(int)
    print("twelve, on all: " + ", ".join(f"{n} {v:+.3f}" for n, v in zip(FEATURES, w)))
    print("as integers: " + ", ".join(f"{n} {v:+d}" for n, v in zip(FEATURES, ints)))
    a, place, first = _judge(rows, lambda r: list(np.asarray(r["features"])[:, :len(ints)] @ ints))
    print(f"  the integers on all: pairs right {a:.3f}, played move's place {place:.3f}, "
          f"first {first:.3f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--random", type=int, default=0)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--hard", action="store_true")
    c.add_argument("--hard-limit", type=int, default=200_000,
                   help="hard set's wins of at most this many positions (200,000)")
    c.add_argument("--min", type=int, default=2_000)
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    f.add_argument("--split-seed", type=int, default=1)
    f.add_argument("--scale", type=int, default=128,
                   help="the largest weight in integers (128)")
    f.add_argument("--settled-by", default="grouping",
                   help="fit on the lines of wins this search settled (grouping), or all")
    args = p.parse_args(argv)
    collect(args) if args.cmd == "collect" else fit(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
