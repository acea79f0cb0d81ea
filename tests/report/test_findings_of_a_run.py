"""The findings page states nothing that is false of the run it was made from.

Two runs, made here once for the module: deals 0 to 2,999 (``--range``) with the fair-play
stage, and 2,000 random deals (``--random``, seed 77) with other options (another seed, a
2 % recheck with a 5 s limit, no fair-play stage, the page written to a folder named).
Every number on each page is parsed and found in that run's data files, its options or
its manifest (or is one of the method's constants, named below); the population sentence,
the "Reproduce" block and the recheck's share are checked word for word.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from halfmoon.batch import deals_from_random, deals_from_range, run_batch
from halfmoon.batch.sources import population
from halfmoon.report.findings import load_data
from halfmoon.report.findings_out import write_findings

RANGE = dict(seed=3, players_deals=150, forgiveness_deals=4, recheck_share=0.01,
             recheck_limit=10.0, fair_deals=6, fair_samples=2)
RANDOM = dict(seed=11, players_deals=200, forgiveness_deals=5, recheck_share=0.02,
              recheck_limit=5.0, fair_deals=0)
# numbers of the method, not of a run: 95 % intervals, 104 cards of which a player sees 20,
# the deal codes, the fatal move's thresholds (80+ cards left, 79–32, 31 or fewer), charts
# pooled to 30 deals, the decade below 10
CONSTANTS = {95, 104, 20, 8_031_810_176, 80, 79, 32, 31, 30, 10}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both runs and their pages (a few minutes on two cores: made once)."""
    root = tmp_path_factory.mktemp("runs")
    ranged, rnd = root / "range-run", root / "random-run"
    run_batch(deals_from_range(0, 3000), ranged, workers=2, progress=False)
    run_batch(deals_from_random(2000, 77), rnd, workers=2, progress=False)
    pages = {"range": write_findings(ranged, workers=2, progress=False, **RANGE),
             "random": write_findings(rnd, root / "pages", workers=2, progress=False, **RANDOM)}
    return {"range": (ranged, pages["range"], RANGE, None),
            "random": (rnd, pages["random"], RANDOM, str(root / "pages"))}


def _manifest(run: Path) -> dict:
    return json.loads((run / "_manifest.json").read_text(encoding="utf-8"))


def _numbers_of(value, out: list) -> None:
    """Every number in a JSON-like value or a string (e.g. a bucket label "104–96")."""
    if isinstance(value, dict):
        for v in value.values():
            _numbers_of(v, out)
    elif isinstance(value, (list, tuple, np.ndarray)):
        for v in value:
            _numbers_of(v, out)
    elif isinstance(value, (bool, np.bool_)):
        out.append(float(value))
    elif isinstance(value, (int, float, np.integer, np.floating)):
        if not (isinstance(value, float) and math.isnan(value)):
            out.append(float(value))
    elif isinstance(value, str):
        out.extend(float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", value))


def _candidates(run: Path, page: Path, options: dict) -> np.ndarray:
    """The run's numbers: its data files, the tables the page's functions derive from them,
    its options and its manifest."""
    from halfmoon.report.fairplay import fatal_summary
    from halfmoon.research.deadlocks import class_table, kind_table
    from halfmoon.research.forgiveness import fatal_points
    from solver import SOLVER_VERSION

    data = load_data(page.parent / "findings")
    s = data["summary"]
    out: list = []
    _numbers_of(s, out)
    frames = [v for v in data.values() if isinstance(v, pd.DataFrame)]
    frames += [kind_table(data["losses"]).reset_index(), class_table(data["losses"]),
               fatal_points(data["forgiveness-games"].assign(start="win"))]
    if "fair-fatal" in data:
        frames.append(fatal_summary(data["fair-fatal"]))
    for f in frames:
        for col in f.columns:
            _numbers_of(f[col].tolist(), out)
    _numbers_of(data["difficulty"]["nodes_below"].to_numpy() - 1, out)  # "10 – 99"
    out += [s["deals"] / s["seconds"], len(data["hardest"]), int(SOLVER_VERSION)]
    if "fair-ladder" in data:  # the share of the gap the best fair player wins back
        t = data["fair-ladder"]
        gap = float(t.loc[t.player == "solver", "win_rate"].iloc[0]
                    - t.loc[t.player == "lookahead", "win_rate"].iloc[0])
        others = t[~t.player.isin(["solver", "lookahead"])]
        best = others.loc[others.win_rate.idxmax()]
        out += [gap, best.vs_lookahead / gap]
    from halfmoon.report.findings_levels import section_numbers

    out += section_numbers(page.parent / "findings")  # section 4c: its data, check, constants
    _numbers_of(options, out)
    m = _manifest(run)
    _numbers_of(m, out)
    if m["source"]["kind"] == "range":  # "numbered 0 to 2,999"
        out.append(m["source"]["stop"] - 1)
    return np.array(out, dtype=float)


def _page_numbers(text: str) -> list[str]:
    """The numbers the page states about the data: code blocks (the commands, checked word for
    word, and the deadlock layouts), deal codes, class names and headings' numbers set aside."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<details>.*?</details>", " ", text, flags=re.S)
    text = re.sub(r"!\[[^]]*\]\([^)]*\)", " ", text)  # images
    text = re.sub(r"HM1-[A-Z]-[A-Z]+", " ", text)
    text = re.sub(r"(?<![\w+])(?:J\+Q\+K|A\+10|[2-5]\+[6-9])(?![\w+])", " ", text)
    text = re.sub(r"^##+ \d+[bc]?\.", "##", text, flags=re.M)
    text = re.sub(r"\d{4}-\d{2}-\d{2}", " ", text)  # the run's date, checked apart
    return re.findall(r"(?<![\w@.+\-])[+\-]?\d[\d,]*(?:\.\d+)?(?![\w@])(?: ms\b)?", text)


def _found(token: str, pool: np.ndarray) -> bool:
    """Whether a number of the page is one of the run's, as shown: rounded to its digits,
    as it is or in % (or points), a time in ms as the seconds it is."""
    if token.endswith(" ms"):
        token = token[:-3]
        pool = pool * 1000
    value = float(token.replace(",", "").lstrip("+"))
    decimals = len(token.split(".")[1]) if "." in token else 0
    tol = 0.5 * 10 ** -decimals + 1e-9
    if decimals == 0 and abs(value) in CONSTANTS:
        return True
    return bool(np.any(np.abs(pool - value) <= tol) or np.any(np.abs(100 * pool - value) <= tol))


@pytest.mark.parametrize("kind", ["range", "random"])
def test_every_number_on_the_page_is_of_its_run(runs, kind):
    run, page, options, _ = runs[kind]
    text = page.read_text(encoding="utf-8")
    pool = _candidates(run, page, options)
    tokens = _page_numbers(text)
    assert len(tokens) > 150  # the page says a lot: every word of it is checked
    assert [t for t in tokens if not _found(t, pool)] == []
    created = _manifest(run)["created"][:10]
    assert re.findall(r"\d{4}-\d{2}-\d{2}", text) == [created]


@pytest.mark.parametrize("kind", ["range", "random"])
def test_the_population_the_commands_and_the_recheck_are_the_runs(runs, kind):
    run, page, o, out = runs[kind]
    text = page.read_text(encoding="utf-8")
    m = _manifest(run)
    deals = m["deals"]["count"]
    assert f"Figures on Half Moon from a run of {population(m['source'], deals)}, made" in text
    src = m["source"]
    what = (f"--range {src['start']}:{src['stop']}" if kind == "range"
            else f"--random {src['count']} --seed {src['seed']}")
    batch = f"halfmoon batch {what} --out {run}"  # the chunk size chosen for it: not typed
    findings = (f"halfmoon findings {run}" + (f" --out {out}" if out else "")
                + f" --seed {o['seed']} --players-deals {o['players_deals']} --forgiveness-deals"
                f" {o['forgiveness_deals']} --fair-deals {o['fair_deals']} --recheck"
                f" {o['recheck_share']:g} --limit {o['recheck_limit']:g}")
    assert f"```\n{batch}\n{findings}\n```" in text
    k = round(o["recheck_share"] * deals)
    assert (f"A seeded random sample of {k:,} of the run's {deals:,} deals "
            f"({100 * o['recheck_share']:g} % asked for with `--recheck {o['recheck_share']:g}`)"
            ) in text
    assert f"a time limit of {o['recheck_limit']:g} s each" in text
    assert "Every figure on this page is of solver version" in text
    # nothing of the shipped census
    for census_figure in ("1,000,000 deals", "971,373", "2026-12-01", "97.137", "5.2 %"):
        assert census_figure not in text


def test_a_range_is_not_called_a_random_sample(runs):
    text = runs["range"][1].read_text(encoding="utf-8")
    assert "the 3,000 deals numbered 0 to 2,999 (a range of deal numbers, not a random sample)" \
        in text
    assert "drawn uniformly" not in text
    random = runs["random"][1].read_text(encoding="utf-8")
    assert "2,000 deals drawn uniformly at random from all 8,031,810,176 deal codes (seed 77)" \
        in random


def test_a_stage_that_did_not_run_is_said_not_measured(runs):
    text = runs["random"][1].read_text(encoding="utf-8")
    section = text.split("## 4b.")[1].split("## 5.")[0]
    assert "Not measured in this run" in section and "--fair-deals 0" in section
    assert "fair-ladder.png" not in text and "bandit" not in text
    ranged = runs["range"][1].read_text(encoding="utf-8")
    assert "not measured in this run" in ranged.split("## 4b.")[1].split("## 5.")[0]
    # the bandit's figures were measured elsewhere: referred to, never quoted
    assert "`docs/fair-play.md`" in ranged


def test_without_out_the_page_lies_beside_its_run(runs):
    run, page, _, _ = runs["range"]
    assert page == run / "_findings" / "findings.md"
    assert (run / "_findings" / "findings" / "summary.json").exists()
    summary = json.loads((run / "_findings" / "findings" / "summary.json").read_text())
    assert summary["run"]["deals"] == _manifest(run)["deals"]  # which run the page is of
