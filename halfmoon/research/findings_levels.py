"""The findings' difficulty levels: each deal of the players' sample given its predicted level.

The ``levels`` stage of :func:`.findings.derive` takes the census's players' sample (its
verdicts from the census) and gives each deal the estimate of
:mod:`halfmoon.batch.difficulty` (the chance that the fair player wins it, its level; a lost
deal "cannot be won"), with the signals the prediction was made from.  Its pieces record the
model they were made with (:func:`model_id`), so a new model redoes the stage.  The page's
chapter (:mod:`halfmoon.report.findings_levels`) reads ``levels.parquet`` and the model's
own check on held-out deals (:func:`halfmoon.batch.difficulty.model_check`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Union

import numpy as np
import pandas as pd

from halfmoon.batch.difficulty import (
    LEVEL_NAMES,
    LOST,
    UNKNOWN,
    DifficultyModelError,
    estimates,
    model,
    signals,
)

from .stats import current_z, wilson_interval

LEVELS_FILE = "levels.parquet"
# the signals kept beside each deal's level (what the page compares across levels)
KEPT = ("greedy_won", "tuned_won", "greedy_cards_left", "undo_greedy_log_moves",
        "start_moves", "free_classes", "top_faces", "reserve_faces", "same_pile_copies",
        "max_pile_faces")
ORDER = (*LEVEL_NAMES, LOST, UNKNOWN)


def model_id() -> str:
    """What the package's model was made from, as the stage's pieces record it ("" when it
    cannot be used: the stage is then left out)."""
    try:
        m = model()
    except DifficultyModelError:
        return ""
    return json.dumps({"solver_version": m.solver_version, "made_from": m.made_from},
                      sort_keys=True)


def levels_piece(rows: pd.DataFrame, model: str = "") -> dict[str, pd.DataFrame]:
    """Each deal of ``rows`` (``deal``, ``verdict``) with its level, its estimate and the
    :data:`KEPT` signals."""
    from halfmoon.batch.difficulty import SIGNALS

    numbers = [int(n) for n in rows["deal"]]
    x = signals(numbers)
    est = estimates(list(rows["verdict"]), x) if numbers else []
    out = pd.DataFrame({"deal": np.asarray(numbers, np.int64),
                        "verdict": list(rows["verdict"]),
                        "level": [e.level for e in est],
                        **{k: [getattr(e, k) for e in est] for k in ("chance", "low", "high")}})
    for name in KEPT:
        out[name] = x[:, SIGNALS.index(name)] if numbers else []
    return {"levels": out}


def level_shares(levels: pd.DataFrame) -> pd.DataFrame:
    """A row per level present (hardest last, then "cannot be won" and "unknown"): deals,
    share of the sample with its Wilson interval, and the mean predicted chance."""
    n = len(levels)
    rows = []
    for name in ORDER:
        t = levels[levels["level"] == name]
        if not len(t):
            continue
        lo, hi = wilson_interval(len(t), n)
        rows.append({"level": name, "deals": len(t), "share": len(t) / n, "ci_low": lo,
                     "ci_high": hi, "chance": float(t["chance"].mean())
                     if t["chance"].notna().any() else float("nan")})
    return pd.DataFrame(rows)


def level_traits(levels: pd.DataFrame) -> pd.DataFrame:
    """For each level of a won deal, the mean of each kept signal with its normal interval at
    the current confidence (1.96 standard errors at 95 %): what a level's deals have in
    common."""
    rows = []
    for name in LEVEL_NAMES:
        t = levels[levels["level"] == name]
        if not len(t):
            continue
        for sig in KEPT:
            v = t[sig].astype(float).to_numpy()
            if sig == "undo_greedy_log_moves":
                v = np.exp(v)
            half = current_z() * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
            rows.append({"level": name, "signal": sig, "deals": len(v), "mean": float(v.mean()),
                         "ci_low": float(v.mean() - half), "ci_high": float(v.mean() + half)})
    return pd.DataFrame(rows)


def examples(levels: pd.DataFrame, each: int = 2) -> pd.DataFrame:
    """The ``each`` smallest-numbered deals of each level (lost deals too): deals to play."""
    from halfmoon.game.codes import number_to_code

    parts = [levels[levels["level"] == name].nsmallest(each, "deal") for name in ORDER]
    out = pd.concat(parts, ignore_index=True)[["deal", "level", "chance", "low", "high"]]
    out.insert(1, "code", [number_to_code(int(n)) for n in out["deal"]])
    return out


def save_levels(levels: pd.DataFrame, data_dir: Union[str, Path]) -> None:
    """Write the stage's rows to :data:`LEVELS_FILE` in ``data_dir``."""
    from .provenance import write_parquet

    write_parquet(levels.sort_values("deal").reset_index(drop=True),
                  Path(data_dir) / LEVELS_FILE)
