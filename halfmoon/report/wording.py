"""How the pages say what their data support: the rules each sentence about a run keeps.

- a count agrees with its noun in number (:func:`count`: ``1 deal``, ``2 deals``);
- a signed figure that rounds to zero is written without a sign (:func:`signed`: never
  ``-0.00``);
- a difference of two shares is in points, the unit named, with its interval (:func:`points`);
- a difference is claimed (a gain, a loss, a best, an "early") only when its interval excludes
  0 (:func:`told_apart`); else the sentence says the two are not told apart;
- a sample is called a sample only when one was drawn (:func:`sample_words`): a stage that
  took every deal of the run says "all N deals of the run", and an option asking for more than
  the run holds is said to be capped by it;
- the best of several only when told apart from each of the others (the fair ladder's
  standings, :func:`halfmoon.research.findings_data.standings`, every player of its table a
  candidate), and a share called the largest only when told apart from each other share of
  the same games (:func:`largest_share`).

Imports nothing of the project but :mod:`halfmoon.research.stats`, so every page can use it.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np


def count(n: int, one: str, many: Optional[str] = None) -> str:
    """``n`` and its noun, agreeing in number: ``count(1, "deal") == "1 deal"``,
    ``count(2_000, "loss", "losses") == "2,000 losses"``."""
    return f"{int(n):,} {one if int(n) == 1 else (many or one + 's')}"


def signed(x: float, digits: int = 2) -> str:
    """``x`` with its sign (``+0.47``, ``-1.20``); a figure that rounds to zero has none
    (``0.00``, never ``-0.00`` or ``+0.00``); ``n/a`` for NaN."""
    if x is None or x != x:
        return "n/a"
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def points(d: float, low: float, high: float, digits: int = 2) -> str:
    """A difference of two shares (fractions) in points, with its 95 % interval:
    ``+0.47 points (0.00 to +0.94)``."""
    return (f"{signed(100 * d, digits)} points ({signed(100 * low, digits)} to "
            f"{signed(100 * high, digits)})")


def told_apart(low: float, high: float) -> bool:
    """Whether an interval of a difference excludes 0 (a NaN bound: not told apart)."""
    if low is None or high is None or low != low or high != high:
        return False
    return low > 0 or high < 0


def sample_words(used: int, population: int, asked: Optional[int] = None,
                 noun: str = "deal", many: Optional[str] = None, of: str = "the run",
                 option: Optional[str] = None, given: bool = True) -> str:
    """The deals a stage took, in words true of them: every one of ``population`` ("all 3,000
    deals of the run"), or a sample of them ("a seeded random sample of 200 of the run's
    3,000 deals"); where ``asked`` (the option, named ``option``; ``given``: typed, else its
    default) exceeds what the run holds, that it was capped by the run's size."""
    used, population = int(used), int(population)
    if used >= population:
        text = (f"the one {noun} of {of}" if population == 1
                else f"all {count(population, noun, many)} of {of}")
        if asked is not None and int(asked) > population:
            if option and not given:
                text += (f" (`{option}` defaults to {int(asked):,}, more than the run "
                         "holds)")
            else:
                what = (f"`{option} {int(asked):,}`" if option
                        else f"the {int(asked):,} asked for")
                text += f" ({what} asks for more than the run holds)"
        return text
    owner = f"{of}'s" if of.startswith("the ") else f"the {of}'s"
    return (f"a seeded random sample of {used:,} of {owner} "
            f"{count(population, noun, many)}")


def name_list(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _indicators(k: int, before: int, n: int) -> np.ndarray:
    a = np.zeros(n)
    a[before: before + k] = 1.0
    return a


def largest_share(counts: dict, total: int) -> tuple[Optional[str], dict]:
    """Of shares of the same ``total`` games (``counts``: label -> games, each game in one
    label at most), the label whose share is larger than each other's by more than the 95 %
    interval of the paired difference; None when none is told apart.  Also each other
    label's difference from the largest, ``(d, low, high)``."""
    from halfmoon.research.stats import paired_difference

    if total <= 0 or not counts:
        return None, {}
    top = max(counts, key=lambda k: counts[k])
    starts, at = {}, 0
    for label, k in counts.items():
        starts[label], at = at, at + int(k)
    a = _indicators(int(counts[top]), starts[top], int(total))
    diffs = {label: paired_difference(a, _indicators(int(k), starts[label], int(total)))
             for label, k in counts.items() if label != top}
    apart = all(told_apart(lo, hi) and d > 0 for d, lo, hi in diffs.values())
    return (top if apart else None), diffs
