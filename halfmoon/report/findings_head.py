"""The head of a findings page: which run it is of (its deals, from the manifest; whether it
is finished; the solver versions of its rows) and how to make it again (the commands, with
the options the stages were given and the folder the page was written to)."""

from __future__ import annotations

from halfmoon.research.stats import confidence_words


def versions(s: dict) -> str:
    return ", ".join(s["solver_versions"])


def _population(s: dict) -> str:
    """The run's deals in words, from its manifest (findings made before it was kept: from the
    batch command)."""
    import re

    from halfmoon.batch.sources import population

    run = s.get("run")
    if run:
        return population(run.get("source", {}), int(s["deals"]))
    cmd = s["command"]
    rnd = re.search(r"--random (\d+) --seed (\d+)", cmd)
    rng = re.search(r"--range (\d+):(\d+)", cmd)
    if rnd:
        source = {"kind": "random", "count": int(rnd[1]), "seed": int(rnd[2])}
    elif rng:
        source = {"kind": "range", "start": int(rng[1]), "stop": int(rng[2])}
    else:
        source = {"kind": "codes", "file": "FILE"}
    return population(source, int(s["deals"]))


def _versions_sentence(s: dict) -> str:
    rows = s.get("version_rows")
    if rows and len(rows) > 1:
        parts = ", ".join(f"{n:,} by version {v}" for v, n in rows.items())
        return (f"**Solver versions.** The run's rows were solved by mixed solver versions "
                f"({parts}): its figures mix them. The stages derived from it ran with version "
                f"{s.get('solver_version_now', '?')}{_now_line(s)}")
    stage = s.get("solver_version_now")
    one = versions(s)
    if stage is not None and str(stage) != one:
        return (f"**Solver versions.** The run's rows were solved by solver version {one}; the "
                f"stages derived from it ran with version {stage}{_now_line(s)}")
    return (f"**Solver versions.** Every figure on this page is of solver version {one}: the "
            f"run and every stage derived from it were made with it{_now_line(s)}")


def _state_lines(s: dict) -> list[str]:
    """An unfinished (or live) run, said before any figure."""
    planned = int(s.get("planned") or 0)
    if not s.get("partial") and not s.get("writer"):
        return []
    who = ""
    if s.get("writer") is not None:
        who = (" A batch process was writing it while these findings were derived: they are "
               "provisional.")
    return [f"**The run is not finished: {s['deals']:,} of {planned:,} planned deals.** Every "
            f"figure below is of those {s['deals']:,} deals (derived with `--partial`); rerun "
            f"the batch to go on, then these findings.{who}", ""]


def _scaled_lines(s: dict) -> list[str]:
    """The samples not given, scaled to the run (research.costs.default_samples), said with
    what the census takes and the option that sets each."""
    from halfmoon.research.costs import SAMPLES

    scaled = s.get("scaled") or {}
    what = {"forgiveness_deals": ("winnable deals walked", "--forgiveness-deals"),
            "fair_deals": ("fair-play deals", "--fair-deals")}
    parts = [f"{int(scaled[k]):,} {words} (`{option}`; {SAMPLES[k][0]:,} for a census of "
             "1,000,000 deals)"
             for k, (words, option) in what.items()
             if k in scaled and int(scaled[k]) != SAMPLES[k][0]]
    if not parts:
        return []
    return [f"**Samples sized to the run.** Options not given were scaled to its "
            f"{int(scaled.get('planned', 0)):,} planned deals, so that its findings take "
            f"minutes: {'; '.join(parts)}. Each option given sets its own.", ""]


def head_lines(s: dict) -> list[str]:
    """The title, what the run is and how to make it again."""
    pooled = s.get("pooled_from")
    census = (" ".join(pooled) if pooled else s["command"].split("--out ")[1].split()[0])
    made = (f"by the {len(pooled)} batch runs of the first commands below" if pooled
            else f"by `{s['command']}`")
    return ["# Half Moon, measured", "",
            f"Figures on Half Moon from {'runs' if pooled else 'a run'} of {_population(s)}, "
            f"made {s.get('created', '?')[:10]} {made}"
            # an unfinished run was made by a part of that command (stopped, or given --chunks)
            + (" (the part of it written so far)" if s.get("partial") else "")
            + ", each deal settled by the solver "
            f"(budget {s['budget']:,} positions a deal): **{s['unresolved']:,} unresolved**. "
            f"Every interval is a {confidence_words(s.get('confidence', 0.95))} interval; every "
            "figure says how it was measured.", "",
            *_state_lines(s),
            *_scaled_lines(s),
            _versions_sentence(s), "",
            ("Reproduce (each run is resumable; the last command pools them and derives "
             "everything below from them with the options it was made with" if pooled else
             "Reproduce (the run is resumable; the second command derives everything below "
             "from it with the options it was made with")
            + (", and `make findings` runs both" if s.get("out", "docs") == "docs" else "")
            + "):", "",
            "```", s["command"], _findings_command(census, s), "```", ""]


def _now_line(s: dict) -> str:
    """What the solver is now, against the figures' version."""
    from solver import SOLVER_VERSION

    if [str(SOLVER_VERSION)] == [str(v) for v in s["solver_versions"]]:
        return ", the solver's version now."
    return (f". The solver is now version {SOLVER_VERSION}; this page was redrawn with it from"
            " the same data, and no figure was measured again (the commands below, run now,"
            f" would give version {SOLVER_VERSION}'s).")


def _findings_command(census: str, s: dict) -> str:
    """``halfmoon findings`` with every option the data were made with, and where it wrote."""
    o = s.get("options")
    out = s.get("out")
    words = [f"halfmoon findings {census}" + (f" --out {out}" if out else "")]
    if o:  # the options as asked
        words.append(f"--seed {o['seed']} --players-deals {o['players_deals']} "
                     f"--forgiveness-deals {o['forgiveness_deals']} --fair-deals "
                     f"{o['fair_deals']} --recheck {o['recheck']:g} --limit {o['limit']:g}")
        if o.get("partial"):
            words.append("--partial")
        if float(o.get("confidence", 0.95)) != 0.95:
            words.append(f"--confidence {float(o['confidence']):g}")
        return " ".join(words)
    if out is None:  # findings made before their options were kept
        words[0] += " --out docs"
    words.append(f"--seed {s['seed']}")
    for option, key in (("--players-deals", "players_deals"),
                        ("--forgiveness-deals", "forgiveness_deals"),
                        ("--fair-deals", "fair_deals")):
        if key in s:
            words.append(f"{option} {int(s[key])}")
    if "recheck_deals" in s and s.get("deals"):
        words.append(f"--recheck {s['recheck_deals'] / s['deals']:g}")
    if "recheck_limit" in s:
        words.append(f"--limit {s['recheck_limit']:g}")
    return " ".join(words)
