"""The findings' stages priced before they start, and the samples a run gets untold."""

from __future__ import annotations

import pytest

from halfmoon.cli.main import main
from halfmoon.research.costs import (
    UNIT_SECONDS,
    default_samples,
    estimate,
    plan_lines,
    seconds_words,
)
from halfmoon.research.findings import derive
from halfmoon.research.stats import make_sample


def test_the_census_keeps_its_samples_and_a_small_run_gets_smaller_ones():
    assert default_samples(1_000_000) == {"players_deals": 100_000, "forgiveness_deals": 10_000,
                                          "fair_deals": 2_000}
    assert default_samples(5_000_000)["fair_deals"] == 2_000  # never more than the census's
    assert default_samples(3_000) == {"players_deals": 100_000, "forgiveness_deals": 200,
                                      "fair_deals": 20}
    assert default_samples(400_000)["fair_deals"] == 800


def test_a_small_runs_fair_stage_is_priced_in_minutes_not_hours():
    fair = default_samples(3_000)["fair_deals"]
    cost = estimate("fair", fair, fair, workers=2)
    assert cost.seconds < 10 * 60
    # the old default, 2,000 deals on a 3,000-deal run: the hours it must not start for
    old = estimate("fair", 2_000, 2_000, workers=2)
    assert old.seconds > 3 * 3600 and "hours" in old.line()
    # every stage of a 3,000-deal run at its defaults: minutes (90 losses, 2,910 wins)
    stages = [estimate("deadlocks", 90, 90, 2), estimate("players", 3_000, 3_000, 2), cost,
              estimate("forgiveness", 200, 200, 2),
              estimate("recheck", 30, 30, 2, losses=1, limit=60.0),
              estimate("hardest", 20, 20, 1, seconds=4.0)]
    assert sum(c.seconds for c in stages) < 10 * 60


def test_the_estimate_says_what_is_kept_and_the_recheck_its_limit():
    # fewer pieces than workers: the workers without a piece do not share the work
    one = estimate("fair", 4, 4, workers=2, piece=25)
    assert one.seconds == pytest.approx(4 * UNIT_SECONDS["fair"] + 40 * UNIT_SECONDS["players"])
    assert estimate("fair", 50, 50, workers=2, piece=25).seconds == pytest.approx(
        25 * UNIT_SECONDS["fair"] + 250 * UNIT_SECONDS["players"])
    assert "kept from before, nothing to do" in estimate("players", 0, 500, 2).line()
    assert "(100 to do, the rest kept)" in estimate("players", 100, 500, 2).line()
    r = estimate("recheck", 10, 10, 1, losses=2, limit=1.0)
    assert r.seconds == pytest.approx(8 * UNIT_SECONDS["recheck_win"] + 2 * 1.0)
    assert "2 to CP-SAT, up to 1 s each" in r.line()
    assert seconds_words(30) == "30 s" and seconds_words(150) == "2.5 min"
    assert seconds_words(0.2) == "under a second"
    assert seconds_words(3.2 * 3600) == "3.2 hours"
    lines = plan_lines([estimate("players", 1, 1, 1)], 1)
    assert lines[0].endswith("on 1 worker (see --help):") and "1 deal:" in lines[1]


def test_a_busy_machine_is_said_with_how_much_longer_the_stages_may_take():
    from halfmoon.research.costs import busy_line

    # two workers on two idle cores: the estimates stand, nothing more is said
    assert busy_line(2, load=0.3, cores=2) == ""
    assert plan_lines([estimate("players", 1, 1, 2)], 2, load=0.0, cores=2)[-1].startswith(
        "  in all")
    # load 10 on two cores: each of the two workers may get a sixth of a core
    line = plan_lines([estimate("players", 1, 1, 2)], 2, load=10.0, cores=2)[-1]
    assert line == ("  the machine is busy (load 10.0 on 2 cores, and 2 workers): it may take "
                    "up to 6.0 times as long")
    # more workers than cores share the cores among themselves, even on an idle machine
    assert "up to 2.0 times" in busy_line(8, load=0.0, cores=4)
    assert "up to 1.5 times" in busy_line(1, load=2.0, cores=2)


def test_help_says_what_each_stage_costs(capsys):
    with pytest.raises(SystemExit):
        main(["findings", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "What each stage costs" in text
    for words in (f"fair play about {UNIT_SECONDS['fair']:g} s a deal",
                  f"forgiveness about {UNIT_SECONDS['forgiveness']:g} s a winnable deal",
                  f"deadlocks about {UNIT_SECONDS['deadlocks']:g} s a loss",
                  "prints each stage's estimate"):
        assert words in text, words


def test_findings_print_each_stages_cost_before_the_first_starts(tmp_path, capsys,
                                                                 monkeypatch):
    import halfmoon.research.findings as findings

    make_sample(tmp_path / "run", range(2000, 2060), budget=5_000_000)
    options = dict(seed=1, workers=1, players_deals=30, forgiveness_deals=2, recheck_share=0.05,
                   recheck_limit=5.0, fair_deals=2, fair_samples=2,
                   fair_players=("greedy", "lookahead"))
    said: list = []  # what was printed before each stage started
    run_pieces = findings.run_pieces

    def spy(work, stage, *args):
        said.append((stage, capsys.readouterr().err))
        return run_pieces(work, stage, *args)

    monkeypatch.setattr(findings, "run_pieces", spy)
    d = derive(tmp_path / "run", progress=True, **options)
    assert [stage for stage, _ in said][:2] == ["deadlocks", "players"]
    err = said[0][1]
    assert "each stage estimated from the run's size, on 1 worker" in err
    assert "  in all       " in err
    assert "deadlocks    0 losses: nothing to do" in err  # deals 2000-2059: no loss
    assert "players      30 deals: under a second" in err  # 30 deals at 5 ms
    assert "fair         2 deals: " in err
    assert "levels       30 deals: under a second" in err  # 30 deals at 4 ms
    # what the stages were asked, with no sample scaled: nothing said scaled
    assert d["summary"]["scaled"] is None
    # the same findings again: every stage is kept, and said to cost nothing
    monkeypatch.setattr(findings, "run_pieces", run_pieces)
    capsys.readouterr()
    derive(tmp_path / "run", progress=True, **options)
    err = capsys.readouterr().err
    assert err.count("kept from before, nothing to do") == 6  # levels too


def test_samples_not_given_are_scaled_to_the_run_and_said_so(tmp_path):
    from halfmoon.report.findings_head import head_lines

    make_sample(tmp_path / "run", range(2100, 2140), budget=5_000_000)
    d = derive(tmp_path / "run", seed=1, workers=1, recheck_share=0.05, recheck_limit=5.0,
               progress=False, fair_players=("greedy",), forgiveness_deals=2)
    s = d["summary"]
    assert s["scaled"] == {"planned": 40, "players_deals": 100_000, "fair_deals": 20}
    assert s["options"]["fair_deals"] == 20 and s["fair_deals"] == 20
    assert s["options"]["forgiveness_deals"] == 2  # given: its own
    text = "\n".join(head_lines(dict(s, solver_version_now=s["solver_versions"][0])))
    assert ("**Samples sized to the run.** Options not given were scaled to its 40 planned "
            "deals") in text
    assert "20 fair-play deals (`--fair-deals`; 2,000 for a census of 1,000,000 deals)" in text
    assert "winnable deals walked" not in text  # --forgiveness-deals was given
