"""A dry run's time a deal, with an interval that holds: the solver's heavy tail priced from a
model instead of from the few slow deals a sample happens to catch.

The solver's time on random deals is heavy-tailed: on 100,000 random deals (solver versions
14 and 15) the slowest 1 % take over half the time and some take seconds, so the
mean of a sample of a few hundred or thousand deals swings by tens of percent with the slow
deals it happens to hold.  The shape of that tail is known (``tail_model.json``: every deal's
time and positions of that measurement in total, and the 200 slowest and the 200 longest one
by one, from ``benchmarks/bench_tail.py`` by :func:`write_tail_model`); what a sample must
tell is only how fast this machine runs.

So the sample's times are *capped*: the mean of ``min(t, τ)`` (τ: the model's 200th slowest
time, scaled to this machine) is steady, and its ratio ``r`` to the model's same capped mean
is this machine's speed against the model's.  Which deals a sample holds still moves that
ratio (a few thousand deals are easier or harder than the run's); their positions tell by
how much, for positions are the same on every machine.  So ``r`` is the sample's capped time
a capped position (positions capped at the model's 200th most, ν) over the model's.  The
time a deal is ``r`` times the model's mean (its tail included), plus what the sample spent
beside the solver (rows).  The interval joins a bootstrap over the sample (for ``r``) and
the model's own sampling error (from every deal's time and positions when it was made).

The model holds for the deals it measured: uniformly random deals (a range or a random
sample of the code space: every deal number is a uniform shuffle), the solver version and
the budget it ran.  For anything else (a codes file, another budget or version) the estimate
is the sample's mean with a bootstrap interval, said to be that: a tail the sample missed
lies outside it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

MODEL_FILE = Path(__file__).with_name("tail_model.json")
BOOTSTRAP = 2000  # resamples of the sample
Z95 = 1.959964
TOP = 200  # the model's slowest deals listed one by one (its cap τ: the slowest of them)


@dataclass(frozen=True)
class TailModel:
    """The solver's times on many random deals: their total and the slowest ones."""

    solver_version: str
    budget: int
    deals: int
    solve_seconds: float  # every deal's time, summed
    slowest: tuple[float, ...]  # the slowest deals' times, slowest first
    made_from: str
    positions: int = 0  # every deal's positions, summed (0: not in the model)
    most: tuple[int, ...] = ()  # the most positions of a deal, most first
    error: float = math.nan  # relative standard error of mean × capped positions / capped_mean
    commit: Optional[str] = None  # the commit of the run it was made from (None: not recorded)
    solver_digest: Optional[str] = None  # its solver source's (solver_digest)
    machine: Optional[str] = None  # the processor and cores it was measured on

    @property
    def mean(self) -> float:
        return self.solve_seconds / self.deals

    @property
    def cap(self) -> float:
        """τ: the fastest of the listed slow deals; every deal slower than it is listed."""
        return self.slowest[-1]

    @property
    def capped_mean(self) -> float:
        """The mean of ``min(t, τ)`` over the model's deals."""
        above = sum(t - self.cap for t in self.slowest)
        return (self.solve_seconds - above) / self.deals

    @property
    def capped_positions(self) -> float:
        """The mean of ``min(positions, ν)`` over the model's deals (ν: ``most[-1]``)."""
        if not self.most:
            return math.nan
        return (self.positions - sum(k - self.most[-1] for k in self.most)) / self.deals

    @property
    def tail_error(self) -> float:
        """Standard error of the model's mean from its tail above τ (the body's is far smaller)."""
        excess = np.asarray(self.slowest) - self.cap
        n = self.deals
        variance = float(np.sum(excess ** 2)) / n - (float(np.sum(excess)) / n) ** 2
        return math.sqrt(max(variance, 0.0) / n)


@lru_cache(maxsize=1)
def tail_model() -> TailModel:
    return read_tail_model(MODEL_FILE)


def read_tail_model(path: Path) -> TailModel:
    data = json.loads(Path(path).read_text())
    return TailModel(solver_version=str(data["solver_version"]), budget=int(data["budget"]),
                     deals=int(data["deals"]), solve_seconds=float(data["solve_seconds"]),
                     slowest=tuple(sorted(map(float, data["slowest_solve_seconds"]),
                                          reverse=True)),
                     made_from=str(data["made_from"]), positions=int(data.get("positions", 0)),
                     most=tuple(sorted(map(int, data.get("most_positions", ())), reverse=True)),
                     error=float(data.get("relative_error", math.nan)),
                     commit=data.get("commit"), solver_digest=data.get("solver_digest"),
                     machine=data.get("machine"))


def write_tail_model(solve_seconds: Sequence[float], made_from: str, command: str,
                     path: Path = MODEL_FILE, *, positions: Sequence[int],
                     budget: Optional[int] = None, solver_version: Optional[str] = None,
                     top: int = TOP, commit: Optional[str] = None,
                     solver_digest: Optional[str] = None,
                     machine: Optional[str] = None) -> TailModel:
    """Make the tail model from a run's solver time and positions of every deal (of uniformly
    random deals, at least ``top`` of them) and write it to ``path`` (by default the model the
    dry run reads): the release step's refit for a new solver version.

    ``made_from`` names the run's result (a file), ``command`` its command line; the budget
    and the solver version are the solver's defaults unless given; ``commit``,
    ``solver_digest`` and ``machine`` say what the run was of and on (the dry run names
    them)."""
    from solver import DEFAULT_BUDGET, SOLVER_VERSION

    t = np.asarray(solve_seconds, dtype=np.float64)
    k = np.asarray(positions, dtype=np.int64)
    if len(t) < top or len(k) != len(t) or not np.all(np.isfinite(t)) or np.any(t < 0) \
            or np.any(k < 0):
        raise ValueError(f"a tail model needs at least {top} deals' times and positions, each"
                         f" finite and not negative; got {len(t)} times, {len(k)} positions")
    slowest, most = np.sort(t)[::-1][:top], np.sort(k)[::-1][:top]
    # what the model gives an estimate is its mean times its capped positions over its capped
    # mean (see estimate); its relative standard error by the delta method, every deal's share
    tc, kc = np.minimum(t, slowest[-1]), np.minimum(k, most[-1]).astype(np.float64)
    share = t / t.mean() + kc / kc.mean() - tc / tc.mean()
    data = {"made_from": made_from, "command": command,
            "solver_version": str(SOLVER_VERSION if solver_version is None else solver_version),
            "budget": int(DEFAULT_BUDGET if budget is None else budget),
            "deals": len(t), "solve_seconds": float(t.sum()),
            "slowest_solve_seconds": [round(float(x), 7) for x in slowest],
            "positions": int(k.sum()), "most_positions": most.tolist(),
            "relative_error": float(share.std() / math.sqrt(len(t))),
            "commit": commit, "solver_digest": solver_digest, "machine": machine}
    Path(path).write_text(json.dumps(data, indent=1) + "\n")
    if Path(path).resolve() == MODEL_FILE.resolve():
        tail_model.cache_clear()
    return read_tail_model(path)


@dataclass(frozen=True)
class Estimate:
    """Seconds a deal (``per_deal``) with a 95 % interval, and how they were found."""

    per_deal: float
    low: float
    high: float
    sample_mean: float  # the sample's own mean (its solving and rows), for comparison
    method: str  # "tail model" or "sample mean"
    speed: float = math.nan  # with the model: this machine's time over the model's
    reason: str = ""  # without the model: why not

    @property
    def at_model_speed(self) -> float:
        """Seconds a deal at the speed of the machine the model was measured on: the price
        of the model alone, the same on every machine (this one's overhead beside the
        solver, its rows, added)."""
        return self.per_deal - self.per_deal_solving + self.per_deal_solving / self.speed

    @property
    def per_deal_solving(self) -> float:
        return self.speed * tail_model().mean

    def describe(self) -> str:
        interval = f"[{self.low * 1000:.3g}, {self.high * 1000:.3g}] ms (95 %)"
        if self.method == "tail model":
            m = tail_model()
            made = (f"solver version {m.solver_version}"
                    + (f", commit {m.commit[:12]}" if m.commit else ", commit not recorded")
                    + (f", on {m.machine}" if m.machine else ""))
            return (f"{self.per_deal * 1000:.3g} ms a deal {interval} at this machine's speed;"
                    f" {self.at_model_speed * 1000:.3g} ms at the speed of the machine the"
                    f" model was measured on (the solver's tail model: {m.deals:,} random deals"
                    f" of {made}; {m.made_from}). This machine takes {self.speed:.2f} times"
                    f" the model's time a position, judged from the sample: its deals' times"
                    f" (capped at the model's {TOP}th slowest, {m.cap:.2f} s at the model's"
                    f" speed) over their positions (capped at {m.most[-1]:,} when the model"
                    f" has them), against the model's the same way; the slow deals are"
                    f" priced from the model. The sample's own mean"
                    f" {self.sample_mean * 1000:.3g} ms"
                    + (f". The model is of another solver source than this one's"
                       f" ({m.solver_digest} against {solver_digest()})"
                       if m.solver_digest and m.solver_digest != solver_digest()
                       else ""))
        return (f"{self.per_deal * 1000:.3g} ms a deal {interval}: the sample's mean, the interval"
                f" a bootstrap over the sample ({self.reason}: no model of the slow deals, which"
                f" a sample can miss)")


def solver_digest(folder: Optional[Path] = None) -> str:
    """A digest (SHA-256, its first 16 hex digits) of the solver's source: every ``.py``
    file under ``folder`` (default: the ``solver`` package this process imports), by its
    path there and its bytes.  Any change of the search changes it, whatever its version."""
    import hashlib

    if folder is None:  # where the package this process imports lies (not loaded for it)
        import importlib.util

        folder = Path(importlib.util.find_spec("solver").submodule_search_locations[0])
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*.py"), key=lambda q: q.relative_to(folder).as_posix()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        h.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:16]


def model_fits(source: dict, budget: int, solver_version: str) -> str:
    """Why the tail model does not price these deals ("" when it does)."""
    m = tail_model()
    if source.get("kind") not in ("range", "random"):
        return "deals from a list, not uniformly random ones"
    if budget != m.budget:
        return f"budget {budget:,}, the model's {m.budget:,}"
    if str(solver_version) != m.solver_version:
        return f"solver version {solver_version}, the model's {m.solver_version}"
    return ""


def estimate(times: Sequence[float], wall: float, *, use_model: bool, reason: str = "",
             seed: int = 0, positions: Optional[Sequence[int]] = None) -> Estimate:
    """The time a deal of a run, from a sample's solver ``times`` (seconds a deal), their
    ``positions`` (the time a capped position is then the speed, when the model has them)
    and the sample's ``wall`` time (its rows made too)."""
    t = np.asarray(times, dtype=np.float64)
    n = len(t)
    if n == 0:
        raise ValueError("an estimate needs at least one timed deal")
    if positions is not None and len(positions) != n:
        raise ValueError(f"{n} times but {len(positions)} positions")
    overhead = max(0.0, wall - float(t.sum())) / n
    rng = np.random.default_rng(seed)
    picks = [rng.integers(0, n, n) for _ in range(BOOTSTRAP)] if n > 1 else []
    if not use_model:
        means = np.array([t[p].mean() for p in picks]) if picks else np.array([t.mean()])
        low, high = np.percentile(means, [2.5, 97.5])
        return Estimate(t.mean() + overhead, low + overhead, high + overhead, t.mean() + overhead,
                        "sample mean", reason=reason)
    m = tail_model()
    by_positions = positions is not None and bool(m.most) and m.capped_positions > 0
    # capped positions of each deal, over the model's mean of them (ones without them)
    k = (np.minimum(np.asarray(positions, dtype=np.float64), m.most[-1]) / m.capped_positions
         if by_positions else np.ones(n))
    k = np.maximum(k, 1e-12)  # no deal settles without a position; a 0 would divide by it
    speed = _speed(t, k, m)
    cap = m.cap * speed
    speeds = (np.array([np.minimum(t[p], cap).sum() / k[p].sum() for p in picks])
              / m.capped_mean if picks else np.array([speed]))
    lo_r, hi_r = np.percentile(speeds, [2.5, 97.5])
    # the sample's error (on the speed) and the model's (on its mean), joined in quadrature
    model_rel = Z95 * (m.error if by_positions and m.error == m.error else m.tail_error / m.mean)
    down = math.hypot(1 - lo_r / speed, model_rel)
    up = math.hypot(hi_r / speed - 1, model_rel)
    mean = speed * m.mean
    return Estimate(mean + overhead, mean * (1 - down) + overhead, mean * (1 + up) + overhead,
                    t.mean() + overhead, "tail model", speed=speed)


def _speed(t: np.ndarray, k: np.ndarray, m: TailModel, rounds: int = 20) -> float:
    """``r`` with Σ min(t, r·τ) / Σ k = r · the model's capped mean (``k``: each deal's capped
    positions over the model's mean of them, or 1; a fixed point, found by iterating from the
    plain ratio of the means)."""
    r = max(float(t.mean()) / m.mean, 1e-9)
    for _ in range(rounds):
        nxt = float(np.minimum(t, m.cap * r).sum() / k.sum()) / m.capped_mean
        if abs(nxt - r) <= 1e-9 * r:
            return nxt
        r = nxt
    return r


def sample_numbers(numbers: Sequence[int], count: int, seed: Optional[int]) -> list[int]:
    """``count`` deals of ``numbers``: spread evenly over them (``seed`` None), else drawn at
    random without repeats with ``seed``."""
    n = len(numbers)
    if count >= n:
        return [int(x) for x in numbers]
    if seed is None:
        return [int(numbers[(2 * i + 1) * n // (2 * count)]) for i in range(count)]
    rng = np.random.default_rng(seed)
    picked: set[int] = set()
    while len(picked) < count:  # n may be the whole code space: no permutation of it
        picked.update(int(k) for k in rng.integers(0, n, count - len(picked)))
    return [int(numbers[k]) for k in sorted(picked)]
