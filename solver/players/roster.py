"""The players by name: the simple players' codes, and the settings of the players a game
of :mod:`.games` takes (:class:`Player`).

Two lists, as the applications use them:

- :data:`SIMPLE`: the simple players that :func:`.games.simple_games` plays many deals
  with in one call of compiled code (``lookahead3``: the lookahead player three moves deep);
- :data:`PLAYERS`: the players of the ladder (:func:`player_named`): the simple ones, the
  PIMC player, the fair players of :mod:`.fair` and the bandit player of :mod:`.bandit`;
  ``fair`` is :data:`FAIR`'s settings under that name, ``NAME@K`` a sampling player with K
  samples (layouts or iterations; the bandit's leader's plays) a decision, and
  ``bandit@KEY=VALUE,...`` the bandit player with other settings (:data:`BANDIT_KEYS`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from halfmoon.game.errors import HalfMoonError

from .bandit import (
    B_BATCH,
    B_C,
    B_CAP,
    B_FLAGS,
    B_HOPELESS,
    B_LEAD,
    B_TOTAL,
    B_Z,
    DEFAULT_SEARCH,
    NBANDIT,
    SEARCHES,
)
from .fair import (
    MCTS,
    NPARAMS,
    P_BUDGET,
    P_C,
    P_DEDUPE,
    P_DEFAULT,
    P_PARTIAL,
    P_ROUNDS,
    P_Z,
    ROLLOUT,
)
from .simple import GREEDY, LOOKAHEAD, RANDOM, TUNED

# name -> (player code, lookahead depth; the depth matters to the lookahead only)
SIMPLE: dict[str, tuple[int, int]] = {
    "random": (RANDOM, 0),
    "greedy": (GREEDY, 0),
    "lookahead": (LOOKAHEAD, 2),
    "lookahead3": (LOOKAHEAD, 3),
    "tuned": (TUNED, 0),
}
KINDS = ("simple", "kernel", "pimc", "bandit", "recommend")


@dataclass(frozen=True)
class Player:
    """A player's settings: ``kind`` is ``simple`` (a simple player, :mod:`.simple`),
    ``kernel`` (a fair player, :func:`.fair.fair_game`), ``pimc`` (:mod:`.pimc`),
    ``bandit`` (:mod:`.bandit`) or ``recommend`` (the board's recommendation,
    :func:`.paired.recommend_game`)."""

    name: str
    kind: str
    code: int = 0  # the player code of .simple or .fair
    base: int = 0  # the base player of the sampling players
    samples: int = 0  # layouts (rollout, pimc) or iterations (uct) a decision
    rounds: int = 1
    z: float = 2.0
    c: float = 0.3
    partial: float = 0.0  # credit of a lost roll-out for the share of cards it removed
    default: int = -1  # the rollout player's move without evidence (-1: the base player's)
    dedupe: bool = False  # weigh one move of each kind a fair player cannot tell apart
    budget: int = 0  # positions a solve (pimc), the cap of a capped solve (bandit)
    batch: int = 10  # layouts a pick of the bandit
    total: int = 0  # the bandit's samples a decision at most (0: no limit)
    hopeless: int = 0  # the bandit's samples without a win before the base move (0: never)
    search: str = DEFAULT_SEARCH  # the rule set of the bandit's capped solves (SEARCHES)
    about: str = ""

    def with_samples(self, samples: Optional[int]) -> "Player":
        """This player at ``samples`` samples a decision (None, or a player that does not
        sample: unchanged)."""
        return self if samples is None or not self.samples else replace(self, samples=int(samples))

    def params(self) -> np.ndarray:
        """The settings as :func:`.fair.decide` (or, for the bandit player,
        :func:`.bandit.bandit_game`) takes them."""
        if self.kind == "bandit":
            out = np.zeros(NBANDIT, np.float64)
            out[[B_CAP, B_LEAD, B_BATCH, B_C, B_TOTAL, B_HOPELESS, B_FLAGS, B_Z]] = (
                self.budget, self.samples, self.batch, self.c, self.total, self.hopeless,
                SEARCHES[self.search], self.z)
            return out
        out = np.zeros(NPARAMS, np.float64)
        out[[P_BUDGET, P_ROUNDS, P_Z, P_C, P_PARTIAL, P_DEFAULT, P_DEDUPE]] = (
            self.samples, self.rounds, self.z, self.c, self.partial, self.default + 1,
            float(self.dedupe))
        return out

    def settings(self) -> str:
        """The settings in words ("" for a simple player)."""
        if self.kind == "simple":
            return ""
        if self.kind == "pimc":
            return f"{self.samples} layouts, {self.budget:,} positions a solve"
        if self.kind == "recommend":
            return (f"{self.samples} layouts a decision, {self.budget:,} positions a solve, "
                    "the move of largest share, ties to the tuned player's")
        if self.kind == "bandit":
            return (f"leader {self.samples:,} plays, cap {self.budget:,} positions ({self.search}"
                    f" search), batches of {self.batch}, C = {self.c:g}"
                    + (f", at most {self.total:,} samples" if self.total else "")
                    + (f", the tuned move unless beaten by {self.z:g} s.e." if self.z else ""))
        what = "iterations" if self.name.startswith("uct") else "layouts"
        return f"{self.samples} {what} a decision"


PLAYERS: dict[str, Player] = {
    "random": Player("random", "simple", RANDOM, about="a uniformly random legal move"),
    "greedy": Player("greedy", "simple", GREEDY,
                     about="the move uncovering most pile cards, pairs first"),
    "lookahead": Player("lookahead", "simple", LOOKAHEAD,
                        about="two moves ahead over the cards in view"),
    "tuned": Player("tuned", "simple", TUNED,
                    about="the largest weighted sum of fair features, weights fitted"),
    "pimc": Player("pimc", "pimc", base=LOOKAHEAD, samples=8, budget=20_000,
                   about="the solver on each move's child in sampled layouts"),
    "rollout": Player("rollout", "kernel", ROLLOUT, GREEDY, samples=256, rounds=8, z=2.0,
                      dedupe=True, about="greedy, unless paired greedy roll-outs say otherwise"),
    "rollout-lookahead": Player("rollout-lookahead", "kernel", ROLLOUT, LOOKAHEAD, samples=32,
                                rounds=4, z=2.0,
                                about="lookahead, unless paired lookahead roll-outs say otherwise"),
    "rollout-tuned": Player("rollout-tuned", "kernel", ROLLOUT, TUNED, samples=256, rounds=8, z=2.0,
                            dedupe=True,
                            about="tuned, unless paired tuned roll-outs say otherwise"),
    "uct": Player("uct", "kernel", MCTS, GREEDY, samples=2000, c=0.3,
                  about="UCT over the fair game's states, greedy roll-outs"),
    "recommend": Player("recommend", "recommend", samples=32, budget=20_000, z=1.959963984540054,
                        about="the board's recommendation: the move whose child is won in "
                              "most sampled layouts, ties to the tuned player's move"),
    "bandit": Player("bandit", "bandit", base=TUNED, samples=100, budget=1000, c=2.0, batch=10,
                     total=1000, hopeless=200, z=0.0,
                     about="UCB1 over the moves, capped solves of sampled layouts"),
}
# the bandit's settings by name, as bandit@KEY=VALUE,... writes them: name -> (field, type)
BANDIT_KEYS: dict[str, tuple[str, type]] = {
    "cap": ("budget", int), "lead": ("samples", int), "batch": ("batch", int), "c": ("c", float),
    "total": ("total", int), "hopeless": ("hopeless", int), "search": ("search", str),
    "z": ("z", float),
}
FAIR = "rollout-tuned"  # the best fair player at its default settings
TABLE_BITS = 20  # UCT's table: 2**20 slots, shared by a game's decisions


def player_named(name: str, samples: Optional[int] = None) -> Player:
    """The player called ``name`` (a name of :data:`PLAYERS`, ``fair``, or ``NAME@K``), at
    ``samples`` samples a decision if given and it samples; :class:`HalfMoonError` naming
    an unknown or badly written one."""
    if samples is not None and samples < 1:
        raise HalfMoonError(f"samples must be at least 1, got {samples}")
    base, _, at = name.partition("@")  # "rollout@64": the player at 64 samples
    if base == "fair":
        p = replace(PLAYERS[FAIR], name="fair")
    elif base in PLAYERS:
        p = PLAYERS[base]
    else:
        raise HalfMoonError(f"unknown player {name!r} (expected some of "
                            f"{', '.join([*PLAYERS, 'fair'])}, or NAME@SAMPLES)")
    p = p.with_samples(samples)
    if at and "=" in at:
        return replace(_with_settings(p, name, at), name=name)
    if at:
        if not at.isdigit() or int(at) < 1 or not p.samples:
            raise HalfMoonError(f"bad player {name!r}: NAME@SAMPLES takes a sampling player and a "
                                "number of samples of at least 1")
        p = replace(p, samples=int(at))
    return replace(p, name=name)


def _with_settings(p: Player, name: str, at: str) -> Player:
    """``p`` with the settings ``KEY=VALUE,...`` of ``at`` (the bandit's :data:`BANDIT_KEYS`)."""
    if p.kind != "bandit":
        raise HalfMoonError(f"bad player {name!r}: NAME@KEY=VALUE takes the bandit player")
    changes: dict = {}
    for item in at.split(","):
        key, _, value = item.partition("=")
        if key not in BANDIT_KEYS:
            raise HalfMoonError(f"bad player {name!r}: unknown setting {key!r} (expected some of "
                                f"{', '.join(BANDIT_KEYS)})")
        field, kind = BANDIT_KEYS[key]
        try:
            v = kind(value)
        except ValueError:
            raise HalfMoonError(f"bad player {name!r}: {key}={value!r} is not a {kind.__name__}")
        if kind is str and v not in SEARCHES:
            raise HalfMoonError(f"bad player {name!r}: search={value!r} (expected one of "
                                f"{', '.join(SEARCHES)})")
        if kind is not str and (v < 0 or (v == 0 and key in ("cap", "lead", "batch"))):
            raise HalfMoonError(f"bad player {name!r}: {key}={value!r} is out of range")
        changes[field] = v
    return replace(p, **changes)
