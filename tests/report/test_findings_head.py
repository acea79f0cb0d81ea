"""The head of a findings page: the run it is of, its state, its versions, its commands."""

from __future__ import annotations

from halfmoon.report.findings_head import _findings_command, _now_line, head_lines
from solver import SOLVER_VERSION


def test_the_reproduce_line_keeps_the_options_and_the_page_names_the_versions():
    s = {"seed": 7, "players_deals": 500, "forgiveness_deals": 50, "fair_deals": 20,
         "recheck_deals": 30, "deals": 3000, "recheck_limit": 5.0, "solver_versions": ["1"]}
    # findings made before their options and folder were kept: the shipped page's
    assert _findings_command("c", s) == ("halfmoon findings c --out docs --seed 7"
                                         " --players-deals 500 --forgiveness-deals 50"
                                         " --fair-deals 20 --recheck 0.01 --limit 5")
    assert f"now version {SOLVER_VERSION}" in _now_line(s)
    assert "no figure was measured again" in _now_line(s)
    assert _now_line(dict(s, solver_versions=[SOLVER_VERSION])) == ", the solver's version now."


def _summary(**more) -> dict:
    s = {"deals": 2500, "planned": 2500, "wins": 2400, "losses": 100, "unresolved": 0,
         "budget": 1000, "created": "2026-11-30T10:00:00", "solver_versions": ["13"],
         "command": "halfmoon batch --random 20000 --seed 9 --out run --chunk-size 500",
         "run": {"source": {"kind": "random", "count": 20000, "seed": 9}},
         "options": {"seed": 4, "players_deals": 10, "forgiveness_deals": 2, "fair_deals": 0,
                     "recheck": 0.05, "limit": 2.5, "partial": False},
         "out": "pages", "solver_version_now": "13"}
    s.update(more)
    return s


def test_the_commands_are_those_the_page_was_made_with_and_where_it_was_written():
    text = "\n".join(head_lines(_summary()))
    assert ("```\nhalfmoon batch --random 20000 --seed 9 --out run --chunk-size 500\n"
            "halfmoon findings run --out pages --seed 4 --players-deals 10 --forgiveness-deals 2"
            " --fair-deals 0 --recheck 0.05 --limit 2.5\n```") in text
    text = "\n".join(head_lines(_summary(out=None)))
    assert "halfmoon findings run --seed 4" in text  # beside the run: no --out
    assert "made 2026-11-30" in text


def test_an_unfinished_run_is_said_so_before_any_figure():
    s = _summary(planned=20000, partial=True, options={**_summary()["options"], "partial": True})
    text = "\n".join(head_lines(s))
    assert "2,500 of the 20,000 deals drawn uniformly at random" in text
    assert "**The run is not finished: 2,500 of 20,000 planned deals.**" in text
    assert text.index("not finished") < text.index("Reproduce")
    assert "--limit 2.5 --partial\n```" in text
    # the batch command quoted is the whole run's (it finishes it): the part written is said
    assert "--chunk-size 500` (the part of it written so far), each deal" in text
    assert "written so far" not in "\n".join(head_lines(_summary()))
    live = "\n".join(head_lines(dict(s, writer=321)))
    assert "they are provisional" in live


def test_mixed_solver_versions_are_said_as_such():
    s = _summary(solver_versions=["12", "13"], version_rows={"12": 500, "13": 2000})
    text = "\n".join(head_lines(s))
    assert ("The run's rows were solved by mixed solver versions (500 by version 12, 2,000 by "
            "version 13)") in text
    assert "Every figure on this page is of solver version" not in text
    one = "\n".join(head_lines(_summary(solver_versions=["12"], solver_version_now="13")))
    assert "The run's rows were solved by solver version 12; the stages derived from it ran " \
        "with version 13" in one


def test_findings_made_before_the_run_was_kept_name_it_from_the_batch_command():
    s = _summary(out="docs")
    del s["run"], s["options"]
    s.update(seed=4, players_deals=10, forgiveness_deals=2, recheck_deals=125,
             recheck_limit=2.5)
    text = "\n".join(head_lines(s))
    assert ("a run of 2,500 of the 20,000 deals drawn uniformly at random from all "
            "8,031,810,176 deal codes (seed 9)") in text
    assert "and `make findings` runs both" in text
