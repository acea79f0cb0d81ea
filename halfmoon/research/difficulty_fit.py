"""The difficulty of deals fitted from the measure's games, and the cheap predictor fitted on it.

**The Rasch model.**  Player ``p`` (a player of :data:`~halfmoon.research.difficulty.MEASURE`)
wins a game of deal ``d`` with chance ``σ(θ_p − b_d)``: one ability a player, one difficulty a
deal, fitted together by maximum a posteriori (alternating Newton steps) with a normal prior
on the deals' difficulties, ``b_d ~ N(0, s²)``, whose spread ``s`` is fitted too (an EM step
on the Laplace approximation).  The prior keeps a deal that no player won at a finite
difficulty with a wide interval instead of an infinite one.  A deal's interval is the Laplace
approximation's (``b_d ± 1.96 / √(Σ_p n_p P(1−P) + 1/s²)``); the games of one undo-greedy
game read at three patiences are not independent, so the intervals are somewhat narrow.
Held-out deals get their difficulties with the abilities and spread held fixed.

**The readable scale.**  ``σ(θ_ref − b_d)``: the chance that the reference player (the fair
player at 16 layouts a decision, without undo) wins deal ``d``.

**The predictor** (:mod:`halfmoon.batch.difficulty`): a ridge regression of the fitted
difficulty on the cheap signals of the training deals, its residual spread kept for the
interval.  :func:`calibration` checks it on held-out deals by predicted level: the deals, the
predicted chance, and the reference player's games won there with their Wilson interval;
:func:`spearman` the rank correlation of predicted and measured difficulty.

``python -m halfmoon.research.difficulty_fit --train FILE... --heldout FILE... [--write]``
prints the players' abilities, the calibration table and the rank correlation, and with
``--write`` writes the package's model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from halfmoon.batch.difficulty import (
    LEVEL_NAMES,
    MODEL_FILE,
    SIGNALS,
    Model,
    estimates,
    signals,
)
from solver import SOLVER_VERSION

from .difficulty import MEASURE, REFERENCE, read_header, read_measure
from .stats import wilson_interval

PLAYERS = tuple(name for name, _ in MEASURE)
GAMES = np.array([n for _, n in MEASURE], np.float64)
RIDGE = 1.0  # the ridge penalty of the predictor, on standardized signals


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def wins_matrix(rows: Sequence[dict]) -> np.ndarray:
    """The games won by each player (a column of :data:`PLAYERS`) on each won deal of
    ``rows`` (a row a deal, those the solver wins only, in order)."""
    return np.array([[r["wins"][p] for p in PLAYERS] for r in rows if r["verdict"] == "win"],
                    np.float64).reshape(-1, len(PLAYERS))


def _deal_step(W, theta, b, s2, steps: int = 50):
    for _ in range(steps):
        P = _sig(theta[None, :] - b[:, None])
        g = -(W - GAMES * P).sum(1) - b / s2
        h = (GAMES * P * (1 - P)).sum(1) + 1 / s2
        b = b + np.clip(g / h, -1, 1)
    P = _sig(theta[None, :] - b[:, None])
    se = 1 / np.sqrt((GAMES * P * (1 - P)).sum(1) + 1 / s2)
    return b, se


def rasch_fit(W: np.ndarray, iterations: int = 200) -> dict:
    """Abilities ``theta`` (a player), difficulties ``b`` with standard errors ``se`` (a
    deal) and the prior's spread ``s`` fitted to the wins ``W`` (:func:`wins_matrix`)."""
    D = W.shape[0]
    theta = np.zeros(len(PLAYERS))
    b = np.zeros(D)
    s2 = 4.0
    for _ in range(iterations):
        P = _sig(theta[None, :] - b[:, None])
        g = (W - GAMES * P).sum(0)
        h = (GAMES * P * (1 - P)).sum(0) + 1e-6
        theta = theta + np.clip(g / h, -1, 1)
        b, se = _deal_step(W, theta, b, s2, steps=3)
        s2 = float(np.mean(b ** 2 + se ** 2))
    b, se = _deal_step(W, theta, b, s2)
    return {"theta": theta, "b": b, "se": se, "s": float(np.sqrt(s2))}


def deal_difficulty(W: np.ndarray, theta: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    """The difficulties (and standard errors) of held-out deals, abilities held fixed."""
    return _deal_step(W, theta, np.zeros(W.shape[0]), s * s)


def fit_predictor(X: np.ndarray, b: np.ndarray, theta_ref: float, made_from: dict,
                  ridge: float = RIDGE) -> Model:
    """The ridge regression of ``b`` on the signals ``X`` (a row a deal), as a
    :class:`~halfmoon.batch.difficulty.Model`."""
    mean = X.mean(0)
    scale = X.std(0)
    scale[scale == 0] = 1.0
    Z = (X - mean) / scale
    intercept = float(b.mean())
    coef = np.linalg.solve(Z.T @ Z + ridge * np.eye(Z.shape[1]), Z.T @ (b - intercept))
    rmse = float(np.sqrt(np.mean((Z @ coef + intercept - b) ** 2)))
    return Model(SIGNALS, mean, scale, coef, intercept, float(theta_ref), rmse,
                 str(SOLVER_VERSION), made_from)


def write_model(m: Model, path=MODEL_FILE, check: Optional[dict] = None) -> None:
    """The model as JSON, with ``check`` (its figures on held-out deals) if given."""
    raw = {"made_from": m.made_from, "solver_version": m.solver_version,
           "signals": list(m.signals), "mean": m.mean.tolist(), "scale": m.scale.tolist(),
           "coef": m.coef.tolist(), "intercept": m.intercept, "theta_ref": m.theta_ref,
           "rmse": m.rmse}
    if check is not None:
        raw["check"] = check
    Path(path).write_text(json.dumps(raw, indent=1) + "\n")


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x))
    r[order] = np.arange(len(x))
    xs = x[order]
    i = 0
    while i < len(xs):  # ties get their mean rank
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[i]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2
        i = j + 1
    return r


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (ties at their mean rank)."""
    rx, ry = _ranks(np.asarray(x, np.float64)), _ranks(np.asarray(y, np.float64))
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = np.sqrt((rx ** 2).sum() * (ry ** 2).sum())
    return float((rx * ry).sum() / den) if den else float("nan")


def calibration(levels: Sequence[str], chances: Sequence[float], ref_wins: Sequence[float],
                measured: Sequence[float], games: int) -> list[dict]:
    """By predicted level: the deals, the mean predicted chance, the reference player's games
    won (of ``games`` a deal) as a rate with its Wilson interval, and the mean measured
    chance (the Rasch difficulty of the deal's own games)."""
    out = []
    lv = np.asarray(levels)
    for name in LEVEL_NAMES:
        sel = lv == name
        n = int(sel.sum())
        won = int(np.asarray(ref_wins)[sel].sum())
        lo, hi = wilson_interval(won, n * games) if n else (float("nan"), float("nan"))
        out.append({"level": name, "deals": n,
                    "predicted": float(np.mean(np.asarray(chances)[sel])) if n else float("nan"),
                    "won": won, "games": n * games, "rate": won / (n * games) if n else
                    float("nan"), "low": lo, "high": hi,
                    "measured": float(np.mean(np.asarray(measured)[sel])) if n else float("nan")})
    return out


def calibration_markdown(table: list[dict]) -> str:
    lines = ["| predicted level | deals | predicted chance (mean) | reference player's games "
             "won | win rate | 95 % interval | measured chance (mean) |",
             "|---|---|---|---|---|---|---|"]
    for r in table:
        if not r["deals"]:
            lines.append(f"| {r['level']} | 0 | | | | | |")
            continue
        lines.append(f"| {r['level']} | {r['deals']} | {100 * r['predicted']:.1f} % | "
                     f"{r['won']} of {r['games']} | {100 * r['rate']:.1f} % | "
                     f"{100 * r['low']:.1f} – {100 * r['high']:.1f} % | "
                     f"{100 * r['measured']:.1f} % |")
    return "\n".join(lines)


def _load(files: Sequence[str]) -> list[dict]:
    rows: list[dict] = []
    for f in files:
        rows.extend(read_measure(f))
    return sorted(rows, key=lambda r: int(r["number"]))


def evaluate(train: Sequence[dict], heldout: Sequence[dict], made_from: Optional[dict] = None,
             out=sys.stdout) -> tuple[Model, dict]:
    """Fit the Rasch model and the predictor on ``train`` and check it on ``heldout``
    (rows of measure files); prints the figures on ``out``.  Returns the model and the
    figures."""
    W = wins_matrix(train)
    fit = rasch_fit(W)
    iref = PLAYERS.index(REFERENCE)
    won_train = [int(r["number"]) for r in train if r["verdict"] == "win"]
    m = fit_predictor(signals(won_train), fit["b"], fit["theta"][iref], made_from or {})
    Wh = wins_matrix(heldout)
    bh, _ = deal_difficulty(Wh, fit["theta"], fit["s"])
    won_h = [int(r["number"]) for r in heldout if r["verdict"] == "win"]
    est = estimates(["win"] * len(won_h), signals(won_h), m)
    pred = np.array([e.rating for e in est])
    measured = _sig(fit["theta"][iref] - bh)
    table = calibration([e.level for e in est], [e.chance for e in est], Wh[:, iref],
                        measured, int(GAMES[iref]))
    figures = {
        "abilities": dict(zip(PLAYERS, fit["theta"].round(3).tolist())), "spread": fit["s"],
        "train_deals": len(train), "train_won": len(won_train), "heldout_deals": len(heldout),
        "heldout_won": len(won_h), "rmse": m.rmse,
        "spearman_rating": spearman(pred, bh),
        "spearman_reference_wins": spearman(-pred, Wh[:, iref]),
        "calibration": table,
        "measured_levels": {n: int(sum(1 for c in measured if _level(c) == n))
                            for n in LEVEL_NAMES},
    }
    if out is not None:
        print("abilities (logits): " + ", ".join(f"{p} {t:+.2f}" for p, t in
                                                 figures["abilities"].items()), file=out)
        print(f"spread of the deals' difficulties s = {fit['s']:.2f}; predictor rmse = "
              f"{m.rmse:.2f} logits", file=out)
        print(f"training: {len(train)} deals, {len(won_train)} won by the solver; held out: "
              f"{len(heldout)} deals, {len(won_h)} won", file=out)
        print(calibration_markdown(table), file=out)
        print(f"Spearman (predicted vs measured difficulty, held-out deals): "
              f"{figures['spearman_rating']:.3f}", file=out)
        print(f"Spearman (predicted chance vs reference player's games won): "
              f"{figures['spearman_reference_wins']:.3f}", file=out)
        print("measured levels of the held-out deals: " + ", ".join(
            f"{n} {k}" for n, k in figures["measured_levels"].items()), file=out)
    return m, figures


def _level(chance: float) -> str:
    from halfmoon.batch.difficulty import level_of
    return level_of(float(chance))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m halfmoon.research.difficulty_fit",
                                 description="fit deals' difficulty and its cheap predictor")
    ap.add_argument("--train", nargs="+", required=True, metavar="FILE")
    ap.add_argument("--heldout", nargs="+", required=True, metavar="FILE")
    ap.add_argument("--write", action="store_true", help="write the package's model")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = ap.parse_args(argv)
    train, heldout = _load(args.train), _load(args.heldout)
    made_from = {"train": [Path(f).name for f in args.train],
                 "heldout": [Path(f).name for f in args.heldout],
                 "train_deals": len(train), "heldout_deals": len(heldout),
                 "seeds": {Path(f).name: read_header(f).get("seed")
                           for f in (*args.train, *args.heldout)},
                 "measured_under": sorted({str(read_header(f).get("solver_version"))
                                           for f in (*args.train, *args.heldout)}),
                 "players": [list(p) for p in MEASURE],
                 "reference": REFERENCE, "ridge": RIDGE,
                 "command": "python -m halfmoon.research.difficulty_fit " + " ".join(
                     argv if argv is not None else sys.argv[1:])}
    m, figures = evaluate(train, heldout, made_from)
    if args.write:
        write_model(m, check={k: figures[k] for k in (
            "calibration", "spearman_rating", "spearman_reference_wins", "heldout_deals",
            "heldout_won", "train_deals", "abilities", "spread")})
        print(f"wrote {MODEL_FILE.name}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
