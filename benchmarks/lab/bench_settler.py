"""Which side will settle a deal the grouping search joined, asked of what is known at the join.

    python benchmarks/lab/bench_settler.py collect --hard --out FILE
    python benchmarks/lab/bench_settler.py collect --random N --seed S --out FILE
    python benchmarks/lab/bench_settler.py analyse FILE [FILE ...] [--split-seed 1]

(``analyse`` also reads the collected files gzipped, FILE.gz.)

After the grouping search joins a deal (:func:`solver.portfolio.search.search_arrays`), it and
the depth-first searches take turns until one side settles it.  If only the side that settles
a deal took turns after the join, the hard set would cost much less; this measures whether any
signal known at the join, or after the grouping search's first turns, tells that side.

- ``collect``: every deal through a copy of the portfolio's loop (the same turns, the same
  positions and verdict: the positions are checked against the hard set's file) with a timer
  around each kernel call, one process, one line of JSON a deal appended to ``--out`` (a run
  that is stopped goes on where it stopped).  A joined deal's line holds the seconds before
  the join, each side's seconds after it, the seconds of both sides after each grouping
  turn, and the signals: the depth-first searches' paused stacks at the join (depth, the
  root's moves done, the share of a uniform tree done), their stored lost positions and dead
  ends per position, each search's positions a second; the grouping search's model (cards,
  moves, variables, clauses), and after its turns 1, 2, 4 and 8 its learnt clauses' lengths
  and glue (LBD), the variables fixed at the root, restarts, seconds a conflict; the deal's
  start and layout features (:func:`halfmoon.research.census.deal_features`).
- ``analyse``: for each decision point (the join, after grouping turn 1, 2 or 4) and each
  signal, how well it separates the deals the grouping search settles from the others (the
  area under the ROC curve, with medians); then rules fit on one half of the deals (split
  by ``--split-seed``) and judged on the other, both ways round: a threshold on one signal
  that stops one side for a window, chosen for the seconds it saves on its half, not for
  its accuracy.  What a rule would cost is simulated: where it stops the side that goes on
  to settle, the deal costs what that side alone costs after the decision; where it stops
  the other one, the settling side waits for the window (at most ``window`` times the
  seconds spent so far), then the turns go on as before (an upper bound: the stopped side
  may settle during the window).  A wrong stop never changes a verdict, it only costs time.

The simulation takes the two sides' seconds as independent (they share no table, so each
side's turns are the same whatever the other does) and leaves out what interleaving costs in
caches; seconds are of one process on a shared machine, so only the shares count.  It
reaches into the solver's insides to time them: solver.portfolio (the loop it copies),
solver.depth_first and solver.grouping (their kernels and states), solver.mirror (the
bit-packed deal) and solver.verdicts.  Figures:
docs/tuning-log.md (2026-12-06, "which side settles a hard deal, asked at the join").
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from halfmoon.game.codes import DEAL_COUNT, random_numbers  # noqa: E402

CHECKPOINTS = (1, 2, 4, 8)  # grouping turns after which its signals are read
SNAPSHOTS = (10_000, 20_000)  # positions at which the depth-first searches' progress is read


def _stack_signals(stacks: list) -> dict:
    """The depth-first searches' paused stacks: depth, root's moves done, uniform-tree share."""
    depths, roots, shares = [], [], []
    for st in stacks:
        if st is None:
            continue
        nmoves, index, ctl = st[1], st[2], st[6]
        d = int(ctl[0])
        depths.append(d)
        roots.append(max(int(index[0]) - 1, 0) / max(int(nmoves[0]), 1))
        share, weight = 0.0, 1.0
        for k in range(d + 1):
            m = max(int(nmoves[k]), 1)
            share += weight * max(int(index[k]) - 1, 0) / m
            weight /= m
        shares.append(share)
    if not depths:
        return {}
    return {"df_depth_max": max(depths), "df_depth_min": min(depths),
            "df_depth_mean": float(np.mean(depths)), "df_root_done": float(np.mean(roots)),
            "df_root_done_max": max(roots), "df_tree_share": max(shares)}


def _grouping_signals(model, conflicts: int, seconds: float) -> dict:
    """The grouping search's state after a turn: its learnt clauses, root, restarts, speed."""
    from solver.grouping.state import Ctl

    ctl = model.ctl
    first = int(ctl[Ctl.MODEL_CLAUSES])
    ncl = int(ctl[Ctl.CLAUSES])
    length = model.clauses.length[first:ncl]
    lbd = model.clauses.lbd[first:ncl]
    live = length > 0
    length, lbd = length[live], lbd[live]
    nvars = max(int(ctl[Ctl.VARS]), 1)
    assign, level = model.trail.assign[:nvars + 1], model.trail.level[:nvars + 1]
    fixed = int(np.sum((assign >= 0) & (level == 0)))
    out = {"g_learnt": int(length.size), "g_restarts": int(ctl[Ctl.RESTARTS]),
           "g_fixed": fixed / nvars, "g_sec_conflict": seconds / max(conflicts, 1),
           "g_deleted": int(ctl[Ctl.DELETED])}
    if length.size:
        out.update(g_len_mean=float(length.mean()), g_len_med=float(np.median(length)),
                   g_lbd_mean=float(lbd.mean()), g_lbd_med=float(np.median(lbd)),
                   g_glue=float(np.mean(lbd <= 2)), g_len_rel=float(length.mean()) / nvars)
    return out


def run_deal(number: int) -> dict:
    """One deal through a timed copy of the portfolio's loop (search_arrays, no first turn
    given, every rule, the default budget)."""
    from halfmoon.game.deal import Deal
    from solver.depth_first.dfs import new_stack, search_kernel
    from solver.depth_first.pruning import ALL_RULES, COUNTING, GROUPING
    from solver.grouping.model import VIEW_COUNTS, VIEW_PAIRS, grouping_model
    from solver.grouping.state import Ctl, luby
    from solver.mirror.convert import deal_arrays
    from solver.mirror.position import MAX_PLY
    from solver.portfolio import search as S
    from solver.verdicts import LOSS, UNRESOLVED, WIN

    rules, quick_phase, budget = ALL_RULES, S.QUICK_PHASE, S.DEFAULT_BUDGET
    t_all = time.perf_counter()
    piles, reserve = deal_arrays(Deal.from_number(number))
    root, tops, part, npart, proj = S.kernel_arrays(piles, reserve)
    tab, ptab = S.default_tables()
    pgen = ptab.next_generation()
    ptab_args = (ptab.slots, np.uint32(pgen), ptab.bits)
    line = np.zeros(MAX_PLY, np.uint64)
    stats = np.zeros(4, np.int64)
    members = S._portfolio(rules, quick_phase)
    stacks = [None] * len(members)
    nodes, turn = 0, 0
    probe = S._probe(rules, quick_phase)
    gen = tab.next_generation()
    rec = {"n": number}
    stacks[0] = new_stack(np.uint64(0))
    status = search_kernel(probe.flags)(piles, reserve, tops, part, npart, root,
                                        min(S.PROBE, budget), probe.flags, tab.slots,
                                        np.uint32(gen), tab.bits, line, stats, stacks[0], 0,
                                        proj, ptab_args, probe.depth)
    nodes = int(stats[0])
    if status != UNRESOLVED:
        rec.update(v=int(status), nodes=nodes, by="probe", s=time.perf_counter() - t_all)
        return rec
    stacks[0] = None
    seeds = [m.seed for m in members]
    runs = [1] * len(members)
    left = [S.RESTART_UNIT * luby(1)] * len(members)
    status = UNRESOLVED
    grouping_at = S.GROUPING_AFTER
    model = None
    info = np.zeros(2, np.int64)
    settled_by = None
    joined_at = None  # seconds before the join
    tg = td = 0.0  # each side's seconds after the join
    dfn = np.zeros(len(members), np.int64)  # positions of each search
    dfs_sec = np.zeros(len(members))
    stores = dead = 0
    gturns, conflicts, series, sig, snaps = 0, 0, [], {}, {}
    while status == UNRESOLVED and nodes < budget:
        if nodes >= grouping_at and rules & GROUPING:
            t = time.perf_counter()
            if model is None:
                joined_at = t - t_all
                sig.update(_stack_signals(stacks))
                sig.update(snaps)
                sig.update(df_stores=stores / nodes, df_dead=dead / nodes, join_nodes=nodes,
                           df_rate_min=float(np.min(dfn / np.maximum(dfs_sec, 1e-9))),
                           df_rate_max=float(np.max(dfn / np.maximum(dfs_sec, 1e-9))))
                model = grouping_model(piles, reserve, part, npart, root,
                                       VIEW_COUNTS if rules & COUNTING else VIEW_PAIRS)[1]
                ctl = model.ctl
                sig.update(g_cards=int(ctl[Ctl.CARDS]), g_moves=int(ctl[Ctl.MOVES]),
                           g_vars=int(ctl[Ctl.VARS]), g_clauses=int(ctl[Ctl.MODEL_CLAUSES]),
                           g_pairs=int(ctl[Ctl.PAIRS]), g_model_sec=time.perf_counter() - t)
            g, model = S.grouping_run(model, min(S.GROUPING_SLICE, budget - nodes), line, info)
            tg += time.perf_counter() - t
            nodes += int(info[0])
            conflicts += int(info[0])
            gturns += 1
            series.append((round(tg, 6), round(td, 6)))
            if gturns in CHECKPOINTS and g == UNRESOLVED:
                s = _grouping_signals(model, conflicts, tg - sig["g_model_sec"])
                s["df_stores_after"] = stores / nodes
                s.update(_stack_signals(stacks))
                s["g_level"] = int(model.ctl[Ctl.LEVEL])
                s["g_assigned"] = int(model.ctl[Ctl.TRAIL]) / max(int(model.ctl[Ctl.VARS]), 1)
                sig.update({f"{k}@{gturns}": v for k, v in s.items()})
            if g == LOSS:
                status, settled_by = LOSS, "grouping"
                break
            if g == WIN:
                if not S.line_wins(piles, reserve, root, line, int(info[1])):
                    raise RuntimeError(f"deal {number}: the grouping line does not replay")
                status, settled_by = WIN, "grouping"
                break
            grouping_at = nodes + S.grouping_share(nodes) * max(int(info[0]), 1)
            continue
        for at in SNAPSHOTS:  # the depth-first searches' progress before the join
            if nodes >= at and f"df_tree_share@{at}" not in snaps:
                snaps[f"df_tree_share@{at}"] = _stack_signals(stacks).get("df_tree_share", 0.0)
        k = turn % len(members)
        member = members[k]
        allowance = quick_phase if turn == 0 and len(members) > 1 and quick_phase else S.SLICE
        if member.restarts:
            allowance = min(allowance, left[k])
        if stacks[k] is None:
            stacks[k] = new_stack(np.uint64(seeds[k]))
        t = time.perf_counter()
        status = search_kernel(member.flags)(piles, reserve, tops, part, npart, root,
                                             min(allowance, budget - nodes), member.flags,
                                             tab.slots, np.uint32(gen), tab.bits, line, stats,
                                             stacks[k], member.noise, proj, ptab_args,
                                             member.depth)
        dt = time.perf_counter() - t
        if model is not None:
            td += dt
        used = int(stats[0])
        dfn[k] += used
        dfs_sec[k] += dt
        stores += int(stats[2])
        dead += int(stats[3])
        nodes += used
        turn += 1
        if status != UNRESOLVED:
            settled_by = S.member_name(member)
        if member.restarts and status == UNRESOLVED:
            left[k] -= used
            if left[k] <= 0:
                runs[k] += 1
                left[k] = S.RESTART_UNIT * luby(runs[k])
                seeds[k] = S._next_seed(seeds[k])
                stacks[k] = new_stack(np.uint64(seeds[k]))
    rec.update(v=int(status), nodes=nodes, by=settled_by, s=time.perf_counter() - t_all)
    if joined_at is not None:
        rec.update(pre=joined_at, tg=tg, td=td, conflicts=conflicts, series=series, sig=sig)
    return rec


def hard_numbers() -> dict[int, int]:
    """The hard set's deal numbers, with the positions its file gives each."""
    from halfmoon.bench.suites import deal_set

    return {r.number: r.positions for r in deal_set("hard")}


def collect(numbers: list[int], out: Path, expected: dict[int, int]) -> None:
    from halfmoon.research.census import deal_features
    from solver import DEAL_FEATURES, LAYOUT_FEATURES, warm_up

    warm_up(out=None)
    done = set()
    if out.exists():
        with out.open() as f:
            done = {json.loads(line)["n"] for line in f if line.strip()}
    todo = [n for n in numbers if n not in done]
    print(f"{len(done):,} deals already in {out.name}, {len(todo):,} to go", file=sys.stderr)
    names = list(DEAL_FEATURES) + list(LAYOUT_FEATURES)
    feats = deal_features(np.array(todo, np.int64)) if todo else []
    with out.open("a") as f:
        for i, n in enumerate(todo):
            rec = run_deal(n)
            if n in expected and rec["nodes"] != expected[n]:
                raise RuntimeError(f"deal {n}: {rec['nodes']} positions, the set says "
                                   f"{expected[n]} (the copy of the loop is stale)")
            if "sig" in rec:
                rec["sig"].update({k: int(v) for k, v in zip(names, feats[i])})
            f.write(json.dumps(rec) + "\n")
            f.flush()


# ---------------------------------------------------------------------------
# the analysis

DECISIONS = (0, 1, 2, 4)  # grouping turns done at the decision (0: at the join)
WINDOWS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)  # a stop lasts at most this times the seconds so far


def _load(paths: list[Path]) -> list[dict]:
    recs = []
    for p in paths:
        with (gzip.open(p, "rt") if p.suffix == ".gz" else p.open()) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    r["file"] = p.name.split(".")[0]
                    recs.append(r)
    return recs


def _at(rec: dict, k: int) -> tuple[float, float]:
    """Each side's seconds after the join when grouping turn k ends (k = 0: at the join)."""
    return (0.0, 0.0) if k == 0 else tuple(rec["series"][k - 1])


def open_at(rec: dict, k: int) -> bool:
    """Whether a deal is joined and still open after the grouping search's turn k."""
    return "series" in rec and (len(rec["series"]) > k or (len(rec["series"]) == k
                                                              and rec["by"] != "grouping"))


def signals_at(rec: dict, k: int) -> dict:
    """The signals known at decision k: the join's, and the grouping search's after turn k."""
    cache = rec.setdefault("_signals", {})
    if k not in cache:
        cache[k] = _signals_at(rec, k)
    return cache[k]


def _signals_at(rec: dict, k: int) -> dict:
    sig = rec["sig"]
    out = {name: v for name, v in sig.items() if "@" not in name}
    for at in SNAPSHOTS:  # how far the depth-first searches got since then, at the join
        if f"df_tree_share@{at}" in sig:
            out[f"df_tree_gain_since_{at}"] = sig["df_tree_share"] - sig[f"df_tree_share@{at}"]
    if k:
        out.update({name.split("@")[0]: v for name, v in sig.items()
                    if name.endswith(f"@{k}")})
        out["df_tree_share_join"] = sig.get("df_tree_share")
        if f"df_tree_share@{k}" in sig:
            out["df_tree_gain_since_join"] = sig[f"df_tree_share@{k}"] - sig["df_tree_share"]
        if k > 1:  # how the grouping search's root and the depth-first searches moved on
            for name in ("g_fixed", "df_tree_share", "g_lbd_mean"):
                if f"{name}@1" in sig and f"{name}@{k}" in sig:
                    out[f"{name}_growth"] = sig[f"{name}@{k}"] - sig[f"{name}@1"]
        out["g_conflicts_per_df_sec"] = rec["conflicts"] and (256 * k) / max(
            rec["series"][k - 1][1], 1e-6)
    return out


def seconds_with(rec: dict, k: int, stop: str, window: float) -> float:
    """The deal's seconds if at decision k the side ``stop`` ("g" grouping, "d" the depth-first
    searches, "" none) is stopped for at most ``window`` times the seconds spent so far."""
    if not stop or not open_at(rec, k):
        return rec["s"]
    g0, d0 = _at(rec, k)
    before = rec["pre"] + g0 + d0
    ag, ad = rec["tg"] - g0, rec["td"] - d0  # each side's seconds after the decision
    after = rec["s"] - before  # the actual seconds after it (both sides and the loop)
    w = window * before
    settler = "g" if rec["by"] == "grouping" else "d"
    own = ag if settler == "g" else ad
    if stop != settler:  # the settling side goes on alone
        if own <= w:
            return before + own
        return before + w + (own - w) * after / max(own, 1e-9)
    return rec["s"] + w  # the settling side waits for the window


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(a positive's value > a negative's), ties half."""
    if not len(pos) or not len(neg):
        return float("nan")
    allv = np.concatenate([pos, neg])
    order = allv.argsort(kind="mergesort")
    ranks = np.empty(len(allv))
    sv = allv[order]
    i = 0
    while i < len(sv):
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def _half(number: int, seed: int) -> int:
    return int(np.random.default_rng([number, seed]).integers(2))


class Rule:
    """At decision k: if signal (above if ``up`` else below) threshold, stop side ``stop``."""

    def __init__(self, k, name, thr, up, stop, window):
        self.k, self.name, self.thr, self.up = k, name, thr, up
        self.stop, self.window = stop, window

    def side(self, rec: dict) -> str:
        if not open_at(rec, self.k):
            return ""
        if self.name is None:
            return self.stop
        v = signals_at(rec, self.k).get(self.name)
        if v is None:
            return ""
        return self.stop if (v > self.thr) == self.up else ""

    def seconds(self, rec: dict) -> float:
        return seconds_with(rec, self.k, self.side(rec), self.window)

    def __str__(self):
        if self.name is None:
            return f"turn {self.k}: stop {self.stop} always, window {self.window}"
        return (f"turn {self.k}: stop {'grouping' if self.stop == 'g' else 'depth-first'} if "
                f"{self.name} {'>' if self.up else '<='} {self.thr:.4g}, window {self.window}")


def _costs(opened: list[dict], k: int) -> tuple[np.ndarray, dict]:
    """Each deal's seconds now, and if side s were stopped for window w: {(s, w): array}."""
    now = np.array([r["s"] for r in opened])
    return now, {(s, w): np.array([seconds_with(r, k, s, w) for r in opened])
                 for s in ("g", "d") for w in WINDOWS}


def fit_rule(train: list[dict], k: int) -> Rule:
    """The rule of decision k that saves the most seconds on ``train`` (stumps, both sides)."""
    opened = [r for r in train if open_at(r, k)]
    now, stopped = _costs(opened, k)
    best, best_cost = None, now.sum()
    names = sorted({n for r in opened for n in signals_at(r, k)})
    for (stop, window), cost_if in stopped.items():
        gain = now - cost_if
        if gain.sum() > now.sum() - best_cost:
            best, best_cost = Rule(k, None, 0, True, stop, window), now.sum() - gain.sum()
        for name in names:
            vals = np.array([signals_at(r, k).get(name, np.nan) for r in opened], float)
            ok = ~np.isnan(vals)
            if ok.sum() < 10:
                continue
            for thr in np.unique(np.quantile(vals[ok], np.linspace(0.05, 0.95, 19))):
                for up in (True, False):
                    sel = ok & ((vals > thr) == up)
                    cost = now.sum() - gain[sel].sum()
                    if cost < best_cost:
                        best, best_cost = Rule(k, name, float(thr), up, stop, window), cost
    return best


class Logistic:
    """A logistic regression of "the grouping search settles it" on every signal of decision
    k (standardised, missing ones at the training median, a small L2 penalty): ``stop``
    the depth-first searches where its probability is above ``hi``, the grouping search
    where below ``lo``, for a window; the thresholds and window chosen for the seconds they
    save on the training half."""

    def __init__(self, train: list[dict], k: int):
        self.k = k
        opened = [r for r in train if open_at(r, k)]
        self.names = sorted({n for r in opened for n in signals_at(r, k)})
        x = self._raw(opened)
        self.med = np.nanmedian(x, axis=0)
        x = np.where(np.isnan(x), self.med, x)
        self.mu, self.sd = x.mean(axis=0), x.std(axis=0) + 1e-12
        x = (x - self.mu) / self.sd
        y = np.array([r["by"] == "grouping" for r in opened], float)
        w, b = np.zeros(x.shape[1]), 0.0
        for _ in range(2000):
            p = 1 / (1 + np.exp(-(x @ w + b)))
            w -= 0.1 * (x.T @ (p - y) / len(y) + 0.01 * w)
            b -= 0.1 * float(np.mean(p - y))
        self.w, self.b = w, b
        probs = self.prob(opened)
        now, stopped = _costs(opened, k)
        best = (now.sum(), 1.1, -0.1, 1.0)
        for window in WINDOWS:
            gain_d, gain_g = now - stopped["d", window], now - stopped["g", window]
            for hi in np.linspace(0.3, 1.0, 15):
                for lo in np.linspace(0.0, min(hi, 0.7), 15):
                    cost = (now.sum() - gain_d[probs > hi].sum()
                            - gain_g[(probs < lo) & (probs <= hi)].sum())
                    if cost < best[0]:
                        best = (cost, hi, lo, window)
        _, self.hi, self.lo, self.window = best

    def _raw(self, recs: list[dict]) -> np.ndarray:
        return np.array([[signals_at(r, self.k).get(n, np.nan) for n in self.names]
                         for r in recs], float).reshape(len(recs), len(self.names))

    def prob(self, recs: list[dict]) -> np.ndarray:
        x = self._raw(recs)
        x = (np.where(np.isnan(x), self.med, x) - self.mu) / self.sd
        return 1 / (1 + np.exp(-(x @ self.w + self.b)))

    def _side(self, p: float) -> str:
        return "d" if p > self.hi else "g" if p < self.lo else ""

    def side(self, rec: dict) -> str:
        return self._side(float(self.prob([rec])[0])) if open_at(rec, self.k) else ""

    def seconds(self, rec: dict) -> float:
        return seconds_with(rec, self.k, self.side(rec), self.window)

    def __str__(self):
        top = sorted(zip(np.abs(self.w), self.w, self.names), reverse=True)[:4]
        return (f"turn {self.k}: logistic on {len(self.names)} signals (largest weights "
                + ", ".join(f"{n} {w:+.2f}" for _, w, n in top)
                + f"); stop depth-first if p > {self.hi:.2f}, grouping if p < {self.lo:.2f}, "
                f"window {self.window}")


def _judge(model, test: list[dict], k: int) -> str:
    """Held-out accuracy and AUC of a fitted model's probability (deals open at k)."""
    opened = [r for r in test if open_at(r, k)]
    if not opened:
        return "no deal open"
    y = np.array([r["by"] == "grouping" for r in opened])
    p = model.prob(opened)
    base = max(y.mean(), 1 - y.mean())
    return (f"{len(opened)} open: accuracy {np.mean((p > 0.5) == y):.3f} "
            f"(always the commoner side: {base:.3f}), AUC {_auc(p[y], p[~y]):.3f}")


def _held_out(fit, halves: list[list[dict]], k: int, label: str) -> None:
    """A rule fit on each half, judged on the other; the seconds, summed over both."""
    saved = {}
    for h in (0, 1):
        rule = fit([r for r in halves[h] if "series" in r], k)
        test = halves[1 - h]
        print(f"  fit on half {h}: {rule}")
        if hasattr(rule, "prob"):
            print(f"    held out: {_judge(rule, test, k)}")
        for group in sorted({r["file"] for r in test}):
            rs = [r for r in test if r["file"] == group]
            now = sum(r["s"] for r in rs)
            new = sum(rule.seconds(r) for r in rs) if rule else now
            right = wrong = 0
            if rule:
                for r in rs:
                    side = rule.side(r)
                    if side:
                        settler = "g" if r["by"] == "grouping" else "d"
                        right += side != settler
                        wrong += side == settler
            a, b = saved.get(group, (0.0, 0.0))
            saved[group] = (a + now, b + new)
            print(f"    held out, {group}: {len(rs):,} deals, {now:.1f} s -> {new:.1f} s "
                  f"({now / new:.3f}x); stops {right + wrong} ({right} right, {wrong} wrong)")
    for group, (now, new) in saved.items():
        print(f"  {label}, decision {k}, {group}, both halves held out: {now:.1f} s -> "
              f"{new:.1f} s ({now / new:.3f}x)")


def _baselines(recs: list[dict], k: int) -> None:
    """The ceiling at decision k (only the settling side after it) and the rules that stop
    one side on every deal, with no signal."""
    for group in sorted({r["file"] for r in recs}):
        rs = [r for r in recs if r["file"] == group]
        now = sum(r["s"] for r in rs)

        def settler(r):
            return "g" if r["by"] == "grouping" else "d"

        oracle = sum(seconds_with(r, k, "d" if settler(r) == "g" else "g", float("inf"))
                     for r in rs)
        line = [f"only the settling side after it {now / oracle:.3f}x"]
        for stop in ("d", "g"):
            for window in WINDOWS:
                new = sum(seconds_with(r, k, stop, window) for r in rs)
                line.append(f"stop {'depth-first' if stop == 'd' else 'grouping'} always, "
                            f"window {window}: {now / new:.3f}x")
        print(f"  {group}, decision {k}: " + "; ".join(line))


def _needed(recs: list[dict], k: int, draws: int = 20) -> None:
    """What a predictor of a given accuracy would give at decision k: on every deal open
    there, the side that does not settle it is stopped with that probability, the other one
    otherwise (a seeded draw, the mean of ``draws``), at the best window."""
    rng = np.random.default_rng(k)
    for group in sorted({r["file"] for r in recs}):
        rs = [r for r in recs if r["file"] == group]
        now = sum(r["s"] for r in rs)
        opened = [r for r in rs if open_at(r, k)]
        closed = now - sum(r["s"] for r in opened)
        wrong_side = ["g" if r["by"] != "grouping" else "d" for r in opened]
        right = {w: np.array([seconds_with(r, k, s, w) for r, s in zip(opened, wrong_side)])
                 for w in WINDOWS}
        wrong = {w: np.array([seconds_with(r, k, "d" if s == "g" else "g", w)
                              for r, s in zip(opened, wrong_side)]) for w in WINDOWS}
        line = []
        for acc in (0.6, 0.7, 0.8, 0.9, 1.0):
            best = 0.0
            for w in WINDOWS:
                hits = rng.random((draws, len(opened))) < acc
                new = closed + np.where(hits, right[w], wrong[w]).sum(axis=1).mean()
                best = max(best, now / new)
            line.append(f"accuracy {acc:.1f}: {best:.3f}x")
        print(f"  {group}, decision {k}, a predictor of: " + "; ".join(line))


def analyse(paths: list[Path], split_seed: int) -> None:
    recs = _load(paths)
    for group in sorted({r["file"] for r in recs}):
        rs = [r for r in recs if r["file"] == group]
        joined = [r for r in rs if "series" in r]
        g = [r for r in joined if r["by"] == "grouping"]
        total = sum(r["s"] for r in rs)
        oracle = sum(min(seconds_with(r, 0, "g" if r["by"] != "grouping" else "d",
                                      float("inf")), r["s"]) for r in rs)
        print(f"{group}: {len(rs):,} deals, {total:.1f} s; joined {len(joined):,} "
              f"({sum(r['s'] for r in joined):.1f} s), the grouping search settles {len(g):,}; "
              f"only the settling side after the join: {oracle:.1f} s ({total / oracle:.3f}x)")
    joined = [r for r in recs if "series" in r]
    print("\nseparation: the deals still open at the decision, the grouping search's against "
          "the others (AUC: 0.5 is none; medians)")
    for k in DECISIONS:
        opened = [r for r in joined if open_at(r, k)]
        gs = [r for r in opened if r["by"] == "grouping"]
        ds = [r for r in opened if r["by"] != "grouping"]
        print(f"\n  decision after grouping turn {k}: {len(opened):,} open, grouping {len(gs):,}, "
              f"depth-first {len(ds):,}")
        names = sorted({n for r in opened for n in signals_at(r, k)})
        rows = []
        for name in names:
            a = np.array([signals_at(r, k).get(name, np.nan) for r in gs], float)
            b = np.array([signals_at(r, k).get(name, np.nan) for r in ds], float)
            a, b = a[~np.isnan(a)], b[~np.isnan(b)]
            if len(a) < 5 or len(b) < 5:
                continue
            rows.append((abs(_auc(a, b) - 0.5), name, _auc(a, b), np.median(a), np.median(b)))
        for _, name, auc, ma, mb in sorted(rows, reverse=True)[:12]:
            print(f"    {name:24s} AUC {auc:.3f}   median grouping {ma:10.4g}   others {mb:10.4g}")
    print(f"\nrules fit on one half (split seed {split_seed}), judged on the other, both ways:")
    halves = [[r for r in recs if _half(r["n"], split_seed) == h] for h in (0, 1)]
    for k in DECISIONS:
        print(f"\ndecision after grouping turn {k}:")
        _baselines(recs, k)
        _needed(recs, k)
        _held_out(fit_rule, halves, k, "one-signal threshold")
        _held_out(Logistic, halves, k, "logistic")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="the timed runs with their signals")
    c.add_argument("--hard", action="store_true", help="the hard set of halfmoon bench")
    c.add_argument("--random", type=int, metavar="N")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", type=Path, required=True)
    a = sub.add_parser("analyse", help="the signals' separation and the rules' simulated gain")
    a.add_argument("files", type=Path, nargs="+")
    a.add_argument("--split-seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.cmd == "collect":
        if args.hard == (args.random is not None):
            p.error("give --hard or --random N")
        if args.hard:
            expected = hard_numbers()
            collect(list(expected), args.out, expected)
        else:
            if not 1 <= args.random <= DEAL_COUNT:
                p.error(f"--random {args.random}: expected 1 to {DEAL_COUNT} deals")
            collect(random_numbers(args.random, args.seed), args.out, {})
    else:
        for f in args.files:
            if not f.is_file():
                p.error(f"{f}: no such file (make it with the collect command)")
        analyse(args.files, args.split_seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
