"""Fitting the tuned player's weights: the cross-entropy method over a fair player's features.

The tuned player (:mod:`solver.players.features`) plays the move with the largest weighted sum of
18 features a fair player can compute.  Its weights are fitted here on training deals
drawn at random from the whole code space, by the cross-entropy method (Rubinstein; as
Szita and Lőrincz used it for Tetris): each iteration draws ``population`` weight vectors
from a normal law around the current mean, plays each on every training deal (the same
deals for all: paired), and refits the law's mean and spread to the best fifth.  The
current mean is always one of the candidates, so the best score never falls; greedy's
weights (scaled) are the start.  The spreads start at ``0.4 / scale`` per feature
(``scale``: the feature's usual size) and never fall under ``0.01 / scale``.

``python -m halfmoon.research.tuning`` runs the fit with the defaults that gave
:data:`solver.players.features.TUNED_WEIGHTS` and prints each iteration and the weights;
the player is judged on other deals (``halfmoon players``), never on its training set.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Optional

import numpy as np

from halfmoon.game.codes import random_numbers

TRAIN_SEED = 777001
TRAIN_DEALS = 20_000
POPULATION = 40
ITERATIONS = 40
FIT_SEED = 5
# the usual size of each move feature (what one unit of weight is worth)
SCALE = np.array([1, 1, 1, 8, 40, 1, 3, 1, 4, 3, 8, 1, 8, 60, 8, 4, 1, 6], np.float64)


@dataclass
class Fit:
    """The result of :func:`fit`: the final mean of the weights, the best candidate seen
    and its wins, and per iteration (best wins, mean wins, the mean's wins)."""

    mean: np.ndarray
    best: np.ndarray
    best_wins: int
    history: list[tuple[int, float, int]]
    deals: int


def wins(batch, weights: np.ndarray, threads: int = 0) -> np.ndarray:
    """Whether the weighted player with ``weights`` wins each deal of ``batch`` (a
    :func:`solver.deal_batch`, or deal numbers), on ``threads`` threads (0: all cores)."""
    from solver import weighted_wins

    return weighted_wins(batch, weights, threads)


def fit(numbers, population: int = POPULATION, iterations: int = ITERATIONS, seed: int = FIT_SEED,
        start: Optional[np.ndarray] = None, report=None) -> Fit:
    """Fit the weights on the deals ``numbers`` (see the module); ``report(i, fit)`` after
    each iteration if given."""
    from solver import GREEDY_WEIGHTS, NMOVE_FEATURES, deal_batch

    if population < 2 or iterations < 1:
        raise ValueError("the fit needs a population of at least 2 and at least one iteration")
    batch = deal_batch(list(numbers))
    rng = np.random.default_rng(seed)
    mean = (GREEDY_WEIGHTS / GREEDY_WEIGHTS[0] if start is None
            else np.asarray(start, np.float64)).copy()
    spread = 0.4 / SCALE
    elite = max(2, population // 5)
    out = Fit(mean, mean.copy(), int(wins(batch, mean).sum()), [], len(batch))
    for i in range(iterations):
        cands = mean + spread * rng.standard_normal((population, NMOVE_FEATURES))
        cands[0] = mean
        scores = np.array([int(wins(batch, w).sum()) for w in cands])
        order = np.argsort(-scores, kind="stable")
        if scores[order[0]] > out.best_wins:
            out.best, out.best_wins = cands[order[0]].copy(), int(scores[order[0]])
        top = cands[order[:elite]]
        mean = top.mean(axis=0)
        spread = top.std(axis=0) + 0.01 / SCALE
        out.mean = mean
        out.history.append((int(scores[order[0]]), float(scores.mean()), int(scores[0])))
        if report is not None:
            report(i, out)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m halfmoon.research.tuning",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=TRAIN_DEALS)
    parser.add_argument("--seed", type=int, default=TRAIN_SEED, help="seed of the training deals")
    parser.add_argument("--population", type=int, default=POPULATION)
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--fit-seed", type=int, default=FIT_SEED)
    args = parser.parse_args(argv)

    def report(i, f):
        best, mean, at_mean = f.history[-1]
        print(f"iteration {i + 1:3d}: best {best / f.deals:.4f}, population {mean / f.deals:.4f}, "
              f"previous mean {at_mean / f.deals:.4f}", flush=True)

    f = fit(random_numbers(args.deals, args.seed), args.population, args.iterations, args.fit_seed,
            report=report)
    print("mean weights:", ", ".join(f"{w:.6g}" for w in f.mean))
    print(f"best candidate ({f.best_wins / f.deals:.4f}):", ", ".join(f"{w:.6g}" for w in f.best))
    return 0


if __name__ == "__main__":
    sys.exit(main())
