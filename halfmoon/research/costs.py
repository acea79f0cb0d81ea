"""What each stage of the findings costs, estimated from the run's size before it starts, and
the samples a run gets when its options are not given.

A stage's cost is its units still to do (the rows no kept piece holds, :func:`.pieces.rows_to_do`)
times the seconds one core spends on a unit (:data:`UNIT_SECONDS`, measured on a two-core
machine, see docs/tuning-log.md), shared by the workers; the hardest deals' second solve costs
what they cost in the run.  An estimate, said as one: a run's deals may be harder or easier
than those it was measured on.

The samples not given are scaled to the run (:func:`default_samples`): the census's
(100,000 players' deals, 10,000 winnable deals walked, 2,000 fair-play deals) for a run of
1,000,000 deals, in proportion for a smaller one, never below a floor that keeps a stage worth
reading, so that a small run's findings take minutes, not hours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

# seconds of one core a unit: a loss's deadlock, a deal's four simple players, a deal's
# fair-play ladder (its ten players), a winnable deal's two walks, a win's line replayed, a
# loss put to the CP-SAT model (at most --limit), a deal's difficulty level (its cheap signals:
# halfmoon bench --suite difficulty)
UNIT_SECONDS = {"deadlocks": 0.15, "players": 0.005, "fair": 16.0, "forgiveness": 0.4,
                "recheck_win": 0.003, "recheck_loss": 3.0, "levels": 0.004}
UNITS = {"deadlocks": ("loss", "losses"), "players": ("deal", "deals"),
         "fair": ("deal", "deals"), "forgiveness": ("winnable deal", "winnable deals"),
         "recheck": ("deal", "deals"), "hardest": ("deal", "deals"), "levels": ("deal", "deals")}

# the fair-play ladder's players the unit was measured with; those of them that sample
FAIR_PLAYERS = ("random", "greedy", "lookahead", "tuned", "rollout", "rollout-lookahead", "uct",
                "fair", "fair@16", "fair@64")
SIMPLE = ("random", "greedy", "lookahead", "lookahead3", "tuned")


def _sampling(players: Sequence[str]) -> int:
    return sum(p not in SIMPLE for p in players)


CENSUS_DEALS = 1_000_000
# option: (the census's sample, the floor of a smaller run's)
SAMPLES = {"players_deals": (100_000, 100_000), "forgiveness_deals": (10_000, 200),
           "fair_deals": (2_000, 20)}


def default_samples(planned: int) -> dict[str, int]:
    """The samples of a run of ``planned`` deals whose options are not given: the census's
    for 1,000,000 deals or more, else in proportion, at least the floor (and never more than
    the census's)."""
    out = {}
    for option, (census, floor) in SAMPLES.items():
        scaled = census * max(int(planned), 0) // CENSUS_DEALS
        out[option] = min(census, max(floor, scaled))
    return out


def help_text() -> str:
    """What each stage costs, for ``halfmoon findings --help``."""
    u = UNIT_SECONDS
    return ("What each stage costs (seconds of one core, measured on a two-core machine; "
            "shared by --workers): "
            f"deadlocks about {u['deadlocks']:g} s a loss of the run; players about "
            f"{1000 * u['players']:g} ms a deal; fair play about {u['fair']:g} s a deal (its ten "
            f"players); forgiveness about {u['forgiveness']:g} s a winnable deal; recheck about "
            f"{1000 * u['recheck_win']:g} ms a win and up to --limit a loss (about "
            f"{u['recheck_loss']:g} s); levels about {1000 * u['levels']:g} ms a players' "
            "deal; the 20 hardest deals what they took in the run.  Before "
            "the first stage starts, the command prints each stage's estimate for the run (a "
            "stage kept from an earlier run of the command costs nothing).  Samples not given "
            "are scaled to the run: the census's 100,000 players' deals, 10,000 winnable deals "
            "and 2,000 fair-play deals for 1,000,000 deals, in proportion below that, at least "
            "200 winnable deals and 20 fair-play deals.")


@dataclass
class StageCost:
    """A stage's estimate: units to do (of how many), in what, and the seconds they take."""

    stage: str
    todo: int
    of: int
    seconds: float
    note: str = ""

    def line(self) -> str:
        one, many = UNITS.get(self.stage, ("item", "items"))
        what = f"{self.of:,} {one if self.of == 1 else many}"
        if self.of == 0:
            return f"  {self.stage:<12} {what}: nothing to do"
        if self.todo == 0:
            return f"  {self.stage:<12} {what}: kept from before, nothing to do"
        if self.todo < self.of:
            what += f" ({self.todo:,} to do, the rest kept)"
        note = f"; {self.note}" if self.note else ""
        return f"  {self.stage:<12} {what}: {_about(self.seconds)}{note}"


def seconds_words(seconds: float) -> str:
    """A duration in round words: ``40 s``, ``2.7 min``, ``3.2 hours``."""
    if seconds < 0.5:
        return "under a second"
    if seconds < 60:
        return f"{max(1, round(seconds)):d} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} hours"


def estimate(stage: str, todo: int, of: int, workers: int, *, losses: int = 0,
             limit: Optional[float] = None, fair_players: Sequence[str] = FAIR_PLAYERS,
             seconds: Optional[float] = None, piece: Optional[int] = None) -> StageCost:
    """The cost of ``todo`` units of ``stage`` (of ``of`` in all) on ``workers`` processes,
    each taking a piece of ``piece`` units at a time (fewer pieces than workers: as many
    workers as pieces); the recheck's losses (``losses`` of its ``todo``) at most ``limit`` s
    each; the hardest deals at ``seconds`` (their time in the run)."""
    w = max(1, int(workers))
    if piece:
        w = max(1, min(w, -(-int(todo) // int(piece))))
    note = ""
    if stage == "recheck":
        loss_s = min(UNIT_SECONDS["recheck_loss"], limit or UNIT_SECONDS["recheck_loss"])
        cpu = (todo - losses) * UNIT_SECONDS["recheck_win"] + losses * loss_s
        if losses:
            note = f"{losses:,} to CP-SAT, up to {limit:g} s each" if limit else ""
    elif stage == "hardest":
        cpu, w = float(seconds or 0.0), 1  # solved again one at a time
    elif stage == "fair":  # the players that sample cost it all; the simple ones next to nothing
        cpu = todo * (UNIT_SECONDS["fair"] * _sampling(fair_players) / _sampling(FAIR_PLAYERS)
                      + UNIT_SECONDS["players"] * len(fair_players))
    else:
        cpu = todo * UNIT_SECONDS[stage]
    return StageCost(stage, int(todo), int(of), cpu / w, note)


def plan_lines(costs: list[StageCost], workers: int, load: Optional[float] = None,
               cores: Optional[int] = None) -> list[str]:
    """The estimates, a line a stage, and their sum: what ``halfmoon findings`` prints before
    the first stage starts; and, on a busy machine, how much longer it may take (``load``:
    the processes already running, ``cores``: the cores there are; this machine's if not
    given)."""
    total = sum(c.seconds for c in costs)
    head = (f"halfmoon findings: each stage estimated from the run's size, on {workers:,} "
            f"worker{'s' if workers != 1 else ''} (see --help):")
    lines = [head, *(c.line() for c in costs), f"  {'in all':<12} {_about(total)}"]
    busy = busy_line(workers, load, cores)
    return lines + ([busy] if busy else [])


def busy_line(workers: int, load: Optional[float] = None,
              cores: Optional[int] = None) -> str:
    """"" where each worker may have a core to itself; else how much longer the stages may
    take: the estimates are of a core a worker, and with ``load`` processes already running
    on ``cores`` cores, each worker may get only cores / (load + workers) of one."""
    import os

    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # pragma: no cover - no load average
            return ""
    if cores is None:
        from halfmoon.batch.backends import default_workers

        cores = default_workers()  # the cores this process may use
    w = max(1, int(workers))
    factor = (float(load) + w) / max(1, int(cores))
    if factor < 1.25:
        return ""
    return (f"  the machine is busy (load {load:.1f} on {cores:,} core"
            f"{'s' if cores != 1 else ''}, and {w:,} worker{'s' if w != 1 else ''}): it may "
            f"take up to {factor:.1f} times as long")


def _about(seconds: float) -> str:
    words = seconds_words(seconds)
    return words if words.startswith("under") else f"about {words}"
