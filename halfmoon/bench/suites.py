"""The suites of ``halfmoon bench`` and the deal sets they solve.

- ``quick`` (about a minute once compiled): the quick set, 10,000 uniformly random deals of
  the whole code space, on one worker pinned to one core, three rounds.
- ``standard`` (under half an hour on two cores): 100,000 random deals (seed
  :data:`STANDARD_SEED`, or one's own: ``--seed``) on every core, the hard set, the
  baselines on a part of the random deals (the plain memoized search on
  :data:`PLAIN_DEALS`, CP-SAT on :data:`CPSAT_DEALS`, with the solver's times on the same
  deals), and the first :data:`SCALING_DEALS` of the random deals on 1, 2, 4… workers up to
  every core.
- ``tail``: the hard set on every core, three rounds.
- ``difficulty``: what a deal's predicted difficulty costs beside its solve
  (:mod:`halfmoon.bench.difficulty`), on the first :data:`DIFFICULTY_DEALS` deals of the
  quick set, a deal at a time in one process.

Each worker first solves :data:`WARMUP` deals that are not counted (the first solves of a
process pay for its kernels' first calls), then the solver's parts are solved
:attr:`Suite.rounds` times over (``--rounds``): the figure is the median round's, beside the
rounds' spread (:func:`halfmoon.bench.figures.rounds_figures`).  The standard suite runs one
round by default (its 100,000 deals take most of its time); its figures then carry no drift
between rounds.

The sets are published with their verdicts (``halfmoon/bench/sets/*.csv``, made by
``benchmarks/make_sets.py``) so that another solver can be run on them; deal codes mean the
same deal forever, and ``halfmoon bench --export SET --out DIR`` writes a set's layout files.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from halfmoon.game.codes import random_numbers

from .errors import BenchError

SETS = Path(__file__).with_name("sets")
STANDARD_SEED = 57100
STANDARD_DEALS = 100_000
PLAIN_DEALS = 2_000
PLAIN_BUDGET = 2_000_000
CPSAT_DEALS = 100
CPSAT_LIMIT = 20.0
SCALING_DEALS = 20_000
DIFFICULTY_DEALS = 2_000
WARMUP = 100  # deals each worker solves, not counted, before the first part
WARMUP_SEED = 57200  # those deals: random ones, none of a set's


def warmup_numbers() -> list[int]:
    return random_numbers(WARMUP, WARMUP_SEED)


@dataclass(frozen=True)
class SetRow:
    number: int
    code: str
    verdict: str
    positions: int
    cpsat: str


@lru_cache(maxsize=None)
def deal_set(name: str) -> tuple[SetRow, ...]:
    """A published set (``quick`` or ``hard``), its deals with their verdicts."""
    path = SETS / f"{name}.csv"
    if not path.is_file():
        raise BenchError(f"no deal set {name!r} (expected one of {', '.join(set_names())})")
    with path.open(newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return tuple(SetRow(int(r["number"]), r["code"], r["verdict"], int(r["positions"]),
                        r["cpsat"]) for r in csv.DictReader(lines))


def set_names() -> list[str]:
    return sorted(p.stem for p in SETS.glob("*.csv"))


def set_version(name: str) -> Optional[str]:
    """The solver version a set's verdicts and positions are of (from its first line)."""
    first = (SETS / f"{name}.csv").read_text().splitlines()[0]
    return first.rsplit("solver version", 1)[-1].strip() if "solver version" in first else None


@dataclass(frozen=True)
class Part:
    """One part of a suite: deals, the engine that solves them and how."""

    name: str
    about: str
    engine: str = "solver"
    workers: Optional[int] = None  # None: every usable core
    pinned_one: bool = False  # one worker, pinned to one core


@dataclass(frozen=True)
class Suite:
    name: str
    about: str
    parts: tuple[Part, ...]
    minutes: str  # what it takes on two cores, with its default rounds
    rounds: int = 1  # the solver's parts solved this many times over by default


SUITES = {
    "quick": Suite("quick", "the quick set (10,000 random deals) on one core",
                   (Part("random", "the quick set: 10,000 random deals", pinned_one=True),),
                   "about 1 minute once compiled", rounds=3),
    "standard": Suite(
        "standard", f"{STANDARD_DEALS:,} random deals, the hard set, baselines and 1..N workers",
        (Part("random", f"{STANDARD_DEALS:,} random deals (seed {{seed}})"),
         Part("hard", "the hard set: 500 deals"),
         Part("plain", f"the plain memoized search on the first {PLAIN_DEALS:,} random deals "
                       f"(at most {PLAIN_BUDGET:,} positions a deal)", engine="plain"),
         Part("cpsat", f"CP-SAT on the first {CPSAT_DEALS} random deals (at most "
                       f"{CPSAT_LIMIT:.0f} s a deal)", engine="cpsat"),
         Part("workers", f"the first {SCALING_DEALS:,} random deals on 1, 2, 4… workers")),
        "10-25 minutes"),
    "tail": Suite("tail", "the hard set (500 deals) on every core",
                  (Part("hard", "the hard set: 500 deals"),), "a few minutes", rounds=3),
    "difficulty": Suite(
        "difficulty", "a deal's predicted difficulty beside its solve, on one core",
        (Part("difficulty", f"the difficulty's signals and model after each solve, a deal at a "
                            f"time: the first {DIFFICULTY_DEALS:,} deals of the quick set",
              engine="difficulty", pinned_one=True),), "about a minute"),
}


def suite_seed(suite: str, seed: Optional[int]) -> Optional[int]:
    """The seed of a suite's random deals: the standard suite's ``seed``, by default
    :data:`STANDARD_SEED` (another draws as many other deals of the whole code space, the way
    to check a claim on deals it was not tuned on); None for a suite of published sets."""
    if suite != "standard":
        if seed is not None:
            raise BenchError(f"--seed draws the standard suite's random deals: the {suite} "
                             "suite solves a published set")
        return None
    if seed is None:
        return STANDARD_SEED
    if seed < 0:
        raise BenchError(f"--seed must be 0 or more, got {seed}")
    return seed


def part_about(part: Part, seed: Optional[int]) -> str:
    """What a part solves, in words, with its suite's seed."""
    return part.about.replace("{seed}", str(STANDARD_SEED if seed is None else seed))


def part_numbers(part: str, suite: str, seed: Optional[int] = None) -> list[int]:
    """The deal numbers a part of a suite solves, in order (the standard suite's drawn from
    ``seed``, by default :data:`STANDARD_SEED`)."""
    if part == "random" and suite == "quick":
        return [r.number for r in deal_set("quick")]
    if part == "hard":
        return [r.number for r in deal_set("hard")]
    if part == "difficulty":
        return [r.number for r in deal_set("quick")][:DIFFICULTY_DEALS]
    standard = random_numbers(STANDARD_DEALS, STANDARD_SEED if seed is None else seed)
    return {"random": standard, "plain": standard[:PLAIN_DEALS],
            "cpsat": standard[:CPSAT_DEALS], "workers": standard[:SCALING_DEALS]}[part]


def scaling_steps(cores: int) -> list[int]:
    """1, 2, 4… workers up to ``cores``, and ``cores`` itself."""
    steps, w = [], 1
    while w < cores:
        steps.append(w)
        w *= 2
    return steps + [cores]
