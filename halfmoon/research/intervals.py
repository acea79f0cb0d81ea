"""Intervals of shares, light to import (numpy and the standard library only): the Wilson
score interval of one share, Newcombe's interval of a paired difference, the interval of a
win rate with unresolved deals, and the confidence they are taken at.

:mod:`halfmoon.research.stats` gives them too, beside what needs pandas; the board imports
them from here, in its own thread, where pandas' half second of import would hold up a
page.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Iterator, Optional

import numpy as np

Z95 = 1.96  # the 97.5 % quantile of the normal law, rounded as usual
# the confidence of the intervals a z left out (None) gives: 0.95 unless a caller asks another
# for what it computes (:func:`at_confidence`: the findings, their page, charts and data)
_CONFIDENCE = [0.95]


@contextmanager
def at_confidence(confidence: float) -> Iterator[float]:
    """Within it, every interval whose z is left out is at ``confidence`` (a share in (0, 1),
    a ValueError outside); its z is given."""
    z = z_of(confidence)
    _CONFIDENCE.append(float(confidence))
    try:
        yield z
    finally:
        _CONFIDENCE.pop()


def current_confidence() -> float:
    """The confidence of the intervals now (0.95 outside :func:`at_confidence`)."""
    return _CONFIDENCE[-1]


def current_z(z: Optional[float] = None) -> float:
    """``z`` where given, else the z of :func:`current_confidence`."""
    return z_of(_CONFIDENCE[-1]) if z is None else z


def confidence_words(confidence: Optional[float] = None) -> str:
    """A confidence as a page says it: ``95 %``, ``99 %``, ``99.9 %`` (default: the current)."""
    c = current_confidence() if confidence is None else float(confidence)
    return f"{round(100 * c, 4):g} %"


# --- intervals ---------------------------------------------------------------------
def wilson_bounds(k, n, z: Optional[float] = None):
    """Vectorised Wilson score interval of ``k`` successes in ``n`` trials (arrays or numbers).

    Where ``n`` is 0 the interval is (0, 1).
    """
    z = current_z(z)
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        z2n = z * z / n
        denom = 1.0 + z2n
        centre = (p + z2n / 2.0) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / denom
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    # the bounds are exact at the ends of the range, whatever the rounding
    low = np.where(k <= 0, 0.0, low)
    high = np.where((k >= n) & (n > 0), 1.0, high)
    return low, high


def wilson_interval(k: int, n: int, z: Optional[float] = None) -> tuple[float, float]:
    """The Wilson score interval (low, high) of ``k`` successes in ``n`` trials.

    ``z`` = 1.96 gives the 95 % interval; left out, the current confidence's
    (:func:`at_confidence`).  (0, 1) when ``n`` is 0.
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    # wilson_bounds' steps on one pair of numbers, in its order (the same floats), without
    # its arrays (a board's opinion asks for some dozens at each look)
    z = current_z(z)
    p = k / n
    z2n = z * z / n
    denom = 1.0 + z2n
    centre = (p + z2n / 2.0) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / denom
    low = 0.0 if k <= 0 else min(max(centre - half, 0.0), 1.0)
    high = 1.0 if k >= n else min(max(centre + half, 0.0), 1.0)
    return float(low), float(high)


def paired_difference(a: np.ndarray, b: np.ndarray,
                      z: Optional[float] = None) -> tuple[float, float, float]:
    """The difference of two win rates over paired games (``a``, ``b``: 1 a win, 0 a loss, on
    the same deals), with Newcombe's interval for paired proportions (method 10, 1998): each
    rate's Wilson interval, joined with the correlation of the pairs.  Unlike the normal
    interval of the mean difference it stays within -1..1 and is not a single point when
    every pair agrees on few deals.  (mean, low, high); nan bounds on no pairs."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if a.shape != b.shape:
        raise ValueError(f"paired results must be as many, got {a.size} and {b.size}")
    if not (np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all()):
        raise ValueError("paired results must be wins (1) and losses (0)")
    n = a.size
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    both = int(np.sum((a == 1) & (b == 1)))
    only_a = int(np.sum((a == 1) & (b == 0)))
    only_b = int(np.sum((a == 0) & (b == 1)))
    neither = n - both - only_a - only_b
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = wilson_interval(both + only_a, n, z)
    l2, u2 = wilson_interval(both + only_b, n, z)
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    cross = both * neither - only_a * only_b
    # the correlation, shrunk toward 0 by n/2 when positive (Newcombe's correction)
    cross = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
    phi = cross / np.sqrt(float(margins)) if margins > 0 else 0.0
    d = p1 - p2
    low = d - np.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    high = d + np.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    return float(d), float(max(-1.0, low)), float(min(1.0, high))


def win_interval(wins: int, losses: int, unresolved: int,
                 z: Optional[float] = None) -> tuple[float, float]:
    """Interval of the win rate: unresolved deals as losses for the low end, as wins for the
    high."""
    n = wins + losses + unresolved
    low = wilson_interval(wins, n, z)[0]
    high = wilson_interval(wins + unresolved, n, z)[1]
    return low, high


def z_of(confidence: float) -> float:
    """The z of a two-sided interval of ``confidence`` (0.95 -> 1.96, to the usual two
    decimals: :data:`Z95` itself, so that 95 % intervals are the ones every page gives);
    a ValueError outside (0, 1)."""
    from statistics import NormalDist

    if not 0 < confidence < 1:
        raise ValueError(f"a confidence is a share in (0, 1), got {confidence}")
    if round(confidence, 6) == 0.95:
        return Z95
    return NormalDist().inv_cdf(0.5 + confidence / 2)
