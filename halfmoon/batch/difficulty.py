"""A deal's difficulty for a person, predicted from cheap signals beside the solve.

The measured difficulty (:mod:`halfmoon.research.difficulty`: players of several strengths
who see only the app's cards, a Rasch model fitted to their games) costs about half a second
of a core a deal.  This module predicts it from signals that cost a few milliseconds
(:data:`SIGNALS`): whether each simple player wins the deal without undo and how many cards
it leaves, how many moves greedy with the app's undo needs (at most 250), and the deal's
start and layout features.  The model (``difficulty_model.json``, written by
:mod:`halfmoon.research.difficulty_fit`) is a ridge regression of the measured difficulty on
the signals; it records the deals, seed, players and solver version it was made from, and
is refused under another solver version (:class:`DifficultyModelError`).

The readable scale is the chance that the reference player (the fair player with 16
layouts a decision, without undo) wins the deal, with its 95 % interval; the level follows
from that chance (:data:`LEVELS`).  The solver's verdict comes first: a lost deal "cannot
be won" whatever its signals, an unresolved one has no level.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

from halfmoon.game.errors import HalfMoonError
from solver import (
    DEAL_FEATURES,
    LAYOUT_FEATURES,
    SOLVER_VERSION,
    census_features,
    deal_batch,
    simple_games,
    undo_game,
    warm_up,
)

MODEL_FILE = Path(__file__).with_name("difficulty_model.json")
SIMPLE = ("greedy", "lookahead", "lookahead3", "tuned")
UNDO_MOVES = 250  # greedy with undo: its moves made, counted up to this many
SIGNALS: tuple[str, ...] = (
    *(f"{p}_won" for p in SIMPLE),
    *(f"{p}_cards_left" for p in SIMPLE),
    "undo_greedy_log_moves",
    *DEAL_FEATURES,
    *LAYOUT_FEATURES,
)
# a level and the least chance of the reference player's win it takes, hardest last
LEVELS: tuple[tuple[str, float], ...] = (("easy", 0.5), ("medium", 0.2), ("hard", 0.05),
                                         ("very hard", 0.0))
LEVEL_NAMES: tuple[str, ...] = tuple(name for name, _ in LEVELS)
LOST = "cannot be won"
UNKNOWN = "unknown"


class DifficultyModelError(HalfMoonError):
    """The difficulty model cannot be used (missing, unreadable, or made for another solver
    version)."""


def level_of(chance: float) -> str:
    """The level of a deal the solver wins whose reference chance is ``chance``."""
    for name, least in LEVELS:
        if chance >= least:
            return name
    return LEVELS[-1][0]


def check_level(text: str) -> str:
    """A level's name as a user typed it (``very-hard`` too), or an error naming it."""
    name = text.strip().lower().replace("-", " ").replace("_", " ")
    if name not in LEVEL_NAMES:
        raise HalfMoonError(f"unknown level {text!r} (expected one of "
                            f"{', '.join(n.replace(' ', '-') for n in LEVEL_NAMES)})")
    return name


_prepared = False


def _prepare() -> None:
    """The players' and the features' kernels made ready once a process, saying so on
    stderr where they are compiled (a first run: tens of seconds, not silence)."""
    global _prepared
    if not _prepared:
        warm_up(("players", "features"), out=sys.stderr)
        _prepared = True


def signals(numbers: Sequence[int]) -> np.ndarray:
    """The cheap signals (:data:`SIGNALS`) of each deal number: a float array, a row a deal.
    They do not need the deal's verdict (a lost deal has signals too)."""
    nums = [int(n) for n in numbers]
    out = np.zeros((len(nums), len(SIGNALS)), np.float64)
    if not nums:
        return out
    _prepare()
    batch = deal_batch(nums)
    k = len(SIMPLE)
    for j, name in enumerate(SIMPLE):
        g = simple_games(batch, name)
        out[:, j] = g.won
        out[:, k + j] = g.cards_left
    for i, n in enumerate(nums):
        u = undo_game(n, "greedy", max_moves=UNDO_MOVES)
        out[i, 2 * k] = math.log(u.moves_made if u.won else 2 * UNDO_MOVES)
    out[:, 2 * k + 1:] = census_features(nums)
    return out


@dataclass(frozen=True)
class Model:
    """The fitted predictor: ``(x - mean) / scale`` weighed by ``coef`` plus ``intercept``
    gives the difficulty on the Rasch scale; ``theta_ref`` the reference player's ability,
    ``rmse`` the spread of the measured difficulty about the prediction (held in the
    interval), ``made_from`` what it was fitted on."""

    signals: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    theta_ref: float
    rmse: float
    solver_version: str
    made_from: dict

    def difficulty(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, np.float64) - self.mean) / self.scale @ self.coef + self.intercept


def read_model(path: Union[str, Path]) -> Model:
    """The model of ``path``, checked against the signals and the solver version."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text())
        model = Model(tuple(raw["signals"]), np.asarray(raw["mean"], np.float64),
                      np.asarray(raw["scale"], np.float64), np.asarray(raw["coef"], np.float64),
                      float(raw["intercept"]), float(raw["theta_ref"]), float(raw["rmse"]),
                      str(raw["solver_version"]), dict(raw["made_from"]))
    except FileNotFoundError:
        raise DifficultyModelError(f"no difficulty model at {str(p)!r}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DifficultyModelError(f"unreadable difficulty model {str(p)!r}: {exc}") from None
    if model.signals != SIGNALS or not (model.mean.size == model.scale.size == model.coef.size
                                        == len(SIGNALS)):
        raise DifficultyModelError(f"difficulty model {str(p)!r} has other signals than "
                                   "this version computes: fit it again")
    if model.solver_version != str(SOLVER_VERSION):
        raise DifficultyModelError(
            f"difficulty model {str(p)!r} was fitted under solver version "
            f"{model.solver_version}, this is {SOLVER_VERSION}: fit it again "
            "(python -m halfmoon.research.difficulty_fit)")
    return model


@lru_cache(maxsize=1)
def model() -> Model:
    """The package's model (``difficulty_model.json``)."""
    return read_model(MODEL_FILE)


def model_check(path: Union[str, Path] = MODEL_FILE) -> Optional[dict]:
    """The model's own check on held-out deals as its fit wrote it (``calibration``: a row
    per predicted level; ``spearman_rating``, ``spearman_reference_wins``, the deals and the
    command), or None if it holds none."""
    try:
        raw = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    check = raw.get("check") if isinstance(raw, dict) else None
    return check if isinstance(check, dict) else None


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, np.float64)))


@dataclass(frozen=True)
class Estimate:
    """A deal's predicted difficulty: ``level``; ``chance`` (that the reference player wins
    it) with its 95 % interval ``low``–``high``; ``rating`` (the Rasch difficulty, logits);
    None where the verdict is not a win."""

    level: str
    chance: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    rating: Optional[float] = None

    def words(self) -> str:
        if self.chance is None:
            return self.level
        return (f"{self.level} (the fair player wins it {100 * self.chance:.0f} %, "
                f"95 % interval {100 * self.low:.0f}-{100 * self.high:.0f} %)")

    def as_dict(self) -> dict:
        return {"level": self.level, "chance": self.chance, "low": self.low,
                "high": self.high, "rating": self.rating}


def estimates(verdicts: Sequence[str], x: np.ndarray, m: Optional[Model] = None) -> list[Estimate]:
    """The estimate of each deal from its verdict ("win", "loss", "unresolved") and its row
    of :func:`signals`."""
    m = model() if m is None else m
    x = np.asarray(x, np.float64).reshape(len(verdicts), len(SIGNALS))
    b = m.difficulty(x) if len(verdicts) else np.zeros(0)
    out = []
    for v, bi in zip(verdicts, b):
        if v == "loss":
            out.append(Estimate(LOST))
        elif v != "win":
            out.append(Estimate(UNKNOWN))
        else:
            chance = float(_sigmoid(m.theta_ref - bi))
            low = float(_sigmoid(m.theta_ref - bi - 1.96 * m.rmse))
            high = float(_sigmoid(m.theta_ref - bi + 1.96 * m.rmse))
            out.append(Estimate(level_of(chance), chance, low, high, float(bi)))
    return out


def estimate_numbers(numbers: Sequence[int], verdicts: Sequence[str]) -> list[Estimate]:
    """:func:`estimates` of deal numbers with their verdicts (signals computed here)."""
    m = model()
    return estimates(verdicts, signals(numbers), m)


# --- a run's difficulty: halfmoon batch --difficulty, a file beside the chunk files --------

RUN_FILE = "difficulty.parquet"  # in a results directory, beside its chunk files
_PIECE = 500  # deals whose signals are computed at once


def _run_deals(path: Path) -> tuple[np.ndarray, list[str]]:
    from .results import chunk_files, read_chunk

    numbers: list = []
    verdicts: list = []
    for f in chunk_files(path).values():
        t = read_chunk(f, columns=["deal", "verdict"])
        numbers.extend(t.column("deal").to_pylist())
        verdicts.extend(str(v) for v in t.column("verdict").to_pylist())
    order = np.argsort(np.asarray(numbers, np.int64), kind="stable")
    return np.asarray(numbers, np.int64)[order], [verdicts[i] for i in order]


def write_run_difficulty(path: Union[str, Path], log=None) -> dict:
    """The level, estimate and signals of every deal of the results directory ``path`` (a
    local one) written to :data:`RUN_FILE` there, a row a deal; the deals already in that
    file (of the same model) are kept, not computed again.  Returns the count of each level
    and the deals computed now."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.is_dir():
        raise HalfMoonError(f"--difficulty needs a local results directory, not {str(path)!r}")
    m = model()
    numbers, verdicts = _run_deals(p)
    made = json.dumps({"solver_version": m.solver_version, "made_from": m.made_from},
                      sort_keys=True)
    old = None
    file = p / RUN_FILE
    if file.exists():
        t = pq.read_table(file)
        if (t.schema.metadata or {}).get(b"difficulty_model", b"").decode() == made:
            old = t
    done = set() if old is None else set(old.column("deal").to_pylist())
    todo = [(int(n), v) for n, v in zip(numbers, verdicts) if int(n) not in done]
    tables = [] if old is None else [old.replace_schema_metadata(None)]
    for i in range(0, len(todo), _PIECE):
        part = todo[i:i + _PIECE]
        x = signals([n for n, _ in part])
        est = estimates([v for _, v in part], x, m)
        cols = {"deal": pa.array([n for n, _ in part], pa.int64()),
                "level": pa.array([e.level for e in est], pa.string()),
                **{k: pa.array([getattr(e, k) for e in est], pa.float64())
                   for k in ("chance", "low", "high", "rating")},
                **{s: pa.array(x[:, j], pa.float64()) for j, s in enumerate(SIGNALS)}}
        tables.append(pa.table(cols))
        if log is not None:
            log(f"difficulty: {min(i + _PIECE, len(todo)):,} of {len(todo):,} deals")
    if todo or old is None:
        table = pa.concat_tables(tables) if tables else None
        if table is None:
            return {"levels": {}, "computed": 0}
        table = table.sort_by("deal").replace_schema_metadata({"difficulty_model": made})
        tmp = p / f".{RUN_FILE}.tmp"
        pq.write_table(table, tmp)
        tmp.replace(file)
    return {"levels": run_levels(p) or {}, "computed": len(todo)}


def run_levels(path: Union[str, Path]) -> Optional[dict]:
    """The count of each level in the results directory's :data:`RUN_FILE` (hardest last,
    "cannot be won" and "unknown" after them), or None if it has none."""
    import pyarrow.parquet as pq

    file = Path(path) / RUN_FILE
    if not file.is_file():
        return None
    levels = pq.read_table(file, columns=["level"]).column("level").to_pylist()
    order = (*LEVEL_NAMES, LOST, UNKNOWN)
    return {name: levels.count(name) for name in order if levels.count(name)}
