"""What a benchmark writes: ``bench.json`` (every figure and what it was measured on),
``bench.md`` (the tables), ``deals.parquet`` (every deal's row of every round, for a later
comparison),
and the charts: ``cactus.png`` (deals settled against the time a deal is allowed, the solver
against its baselines, as solver competitions draw it) and ``times.png`` (the distribution of
a deal's time).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import numpy as np

from .figures import settled_within
from .lanes import Row

FILES = ("bench.json", "bench.md", "deals.parquet", "cactus.png", "times.png")


def write(out: Path, result: dict, rows_of: dict) -> list[Path]:
    """Write the result's files into ``out`` (made if missing): the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "bench.json", out / "bench.md", out / "deals.parquet"]
    paths[0].write_text(json.dumps(result, indent=1) + "\n")
    paths[1].write_text(markdown(result))
    _parquet(paths[2], rows_of)
    paths += _charts(out, result, rows_of)
    return paths


def _parquet(path: Path, rows_of: dict) -> None:
    import pandas as pd

    frames = []
    rounds = rows_of.get("rounds", {})
    for part, rows in rows_of.items():
        if part == "rounds":
            continue
        sides = rows if isinstance(rows, dict) else {"this": rows}
        for version, rs in sides.items():
            for k, rs in enumerate(rounds.get(part, [rs]) if version == "this" else [rs]):
                frames.append(_frame(part, version, k + 1, rs))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["part", "version", "round", "number", "verdict", "nodes", "solve", "whole",
                 "settled_by"])
    df.to_parquet(path, index=False, compression="zstd")


def _frame(part: str, version: str, round_: int, rs: list[Row]):
    import pandas as pd

    return pd.DataFrame({
        "part": part, "version": version, "round": round_,
        "number": np.array([r.number for r in rs], np.int64),
        "verdict": [r.verdict for r in rs],
        "nodes": np.array([r.nodes for r in rs], np.int64),
        "solve": np.array([r.solve for r in rs], np.float64),
        "whole": np.array([r.whole for r in rs], np.float64),
        "settled_by": [r.settled_by for r in rs]})


def speed_sentence(r: dict, link: str = "benchmarks/results/standard") -> str:
    """README.md's sentence on the solver's speed, from a standard result (the release step
    writes it between README's ``bench:standard`` markers; a test holds the two together)."""
    random, plain, cpsat = (r["parts"][k] for k in ("random", "plain", "cpsat"))
    q = random["per_deal_seconds"]
    m = r["machine"]
    floor = "at least " if plain.get("solver_speedup_is_a_floor") else ""
    state = "marked busy" if r.get("busy") else "quiet by its own checks"
    unresolved = random["counts"]["unresolved"]
    settles = ("it settles every one" if not unresolved
               else f"it settles all but {unresolved:,}")
    return (f"On {random['deals']:,} random deals drawn from the whole code space {settles}: "
            f"{random['deals_per_second_per_core']:,.0f} deals a second per core with "
            f"{r['workers']} workers (median {q['p50'] * 1e3:.2f} ms, 99.9 % within "
            f"{q['p99.9']:.2f} s, the slowest {q['max']:.1f} s), {floor}"
            f"{plain['solver_speedup']:,.0f} times as fast as the plain memoized search and "
            f"{cpsat['solver_speedup']:,.0f} times as fast as CP-SAT on the same deals, solved "
            f"block by block beside it, with the same verdicts (`halfmoon bench --suite "
            f"standard`, solver version {r['solver_version']}, on {m['cores']} cores of an "
            f"{m['cpu']} machine, {state}: the committed result, [{link}/bench.md]({link}/"
            f"bench.md), and its [cactus plot]({link}/cactus.png)).")


def _ms(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return f"{x * 1e3:.2f} ms" if x < 1 else f"{x:.2f} s"


def _rate(x: Optional[float]) -> str:
    return "—" if x is None else (f"{x:,.0f}" if x >= 100 else f"{x:,.2f}")


def markdown(r: dict) -> str:
    m = r["machine"]
    lines = [f"# halfmoon bench: suite {r['suite']} (solver version {r['solver_version']})", ""]
    if r.get("busy"):
        lines += ["**Busy machine: these figures are not to be trusted.** "
                  + "; ".join(r["busy_reasons"]) + ".", ""]
    against = r.get("against")
    lines += [
        f"Command: `{r['command']}`  ",
        f"Made {r['created']} from commit {(r['commit'] or 'unknown')[:12]}"
        + (" with changes not committed" if r.get("dirty") else "") + ".  ",
        f"Machine: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable); "
        f"{m['system']}; Python {m['python']}, numba {m['numba']}, numpy {m['numpy']}.  ",
        (f"Workers: {r['workers']} pair{'s' if r['workers'] > 1 else ''} (one of each version)"
         if against else f"Workers: {r['workers']}")
        + ((", pinned to a core each" if r["workers"] > 1 or against else ", pinned to a core")
           if r.get("pinned") else "")
        + f"; budget {r['budget']:,} positions a deal.  ",
        f"Load {r['load_before']} before, {r['load_after']} after; other processes used "
        f"{r.get('other_processes_cores_before')} cores in the second before, "
        f"{r['other_processes_cores']} on average during the run; the reference workload "
        + ", ".join(f"{k} {v:.1f}" for k, v in r["reference_ns"].items())
        + f" ns (spread {r['reference_spread']}).", ""]
    lines += rounds_lines(r)
    if against:
        lines += _against_lines(r)
    else:
        lines += _suite_lines(r)
    if r.get("versus_saved"):
        lines += _saved_lines(r["versus_saved"])
    return "\n".join(lines) + "\n"


def rounds_lines(r: dict) -> list[str]:
    """The warm-up and each part's rounds in a line (the table's rates are the median
    round's): what says whether the figures hold together."""
    from .figures import stability_line

    parts = [(name, f["rounds"]) for name, f in r["parts"].items() if "rounds" in f]
    if not parts:
        return []
    w = r.get("warmup") or {}
    lines = [f"Warm-up: {w.get('deals', 0)} deals a worker, not counted "
             f"({w.get('seconds', 0):.2f} s); then {r.get('rounds', 1)} round"
             f"{'s' if r.get('rounds', 1) > 1 else ''} of each part, its figures those of "
             "its median round.", ""]
    lines += [f"- {stability_line(name, rounds)}" for name, rounds in parts]
    return lines + [""]


def _suite_lines(r: dict) -> list[str]:
    lines = ["| part | deals | win | loss | unresolved | deals/s per core | wall deals/s "
             "| p50 | p90 | p99 | p99.9 | max | positions/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, f in r["parts"].items():
        if name == "workers":
            continue
        q, c = f["per_deal_seconds"], f["counts"]
        lines.append(
            f"| {name} | {f['deals']:,} | {c['win']:,} | {c['loss']:,} | {c['unresolved']:,} "
            f"| {_rate(f['deals_per_second_per_core'])} | {_rate(f['wall_deals_per_second'])} "
            f"| {_ms(q['p50'])} | {_ms(q['p90'])} | {_ms(q['p99'])} | {_ms(q['p99.9'])} "
            f"| {_ms(q['max'])} | {_rate(f['positions_per_second'])} |")
    lines.append("")
    for name, f in r["parts"].items():
        lines.append(f"- **{name}**: {f['about']}.")
    lines.append("")
    for name, f in r["parts"].items():
        if f.get("engine") != "solver" or name == "workers":
            continue
        lines += [f"Settled by, in **{name}** (deals, share of the time): "
                  + ", ".join(f"{k} {v['deals']:,} ({100 * v['share_of_time']:.1f} %)"
                              for k, v in f["settled_by"].items()) + ".", ""]
    base = [(n, f) for n, f in r["parts"].items() if f.get("engine") in ("plain", "cpsat")]
    if base:
        lines += ["## Baselines, on the same deals as the solver", "",
                  "Each block of deals is solved by the baseline, then at once by the solver "
                  "on the same core; a baseline's deals left unresolved at its limit count "
                  "with the time they took, so the solver's lead over it is then a floor.", "",
                  "| engine | deals | settled | limit | deals/s per core | the solver's | "
                  "the solver is | verdicts differ |", "|---|---|---|---|---|---|---|---|"]
        for name, f in base:
            s = f["solver_on_the_same_deals"]
            lines.append(f"| {name} | {f['deals']:,} | {f['settled']:,} | {f['limit']} "
                         f"| {_rate(f['deals_per_second_per_core'])} "
                         f"| {_rate(s['deals_per_second_per_core'])} "
                         f"| {'at least ' if f['solver_speedup_is_a_floor'] else ''}"
                         f"{f['solver_speedup']:,}x as fast | {len(f['verdicts_differ'])} |")
        lines.append("")
    if "workers" in r["parts"]:
        w = r["parts"]["workers"]
        lines += [f"## Workers: the first {w['deals']:,} random deals", "",
                  "| workers | wall deals/s | deals/s per core of solving | against one worker "
                  "× workers |", "|---|---|---|---|"]
        lines += [f"| {s['workers']} | {_rate(s['wall_deals_per_second'])} "
                  f"| {_rate(s['deals_per_second_per_core'])} | {100 * s['efficiency']:.0f} % |"
                  for s in w["steps"]]
        lines.append("")
    for name, f in r["parts"].items():
        if f.get("engine") != "solver" or name == "workers":
            continue
        lines += [f"## The slowest deals of {name}", "",
                  "| deal | code | verdict | seconds | positions | settled by |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {s['deal']} | {s['code']} | {s['verdict']} | {s['seconds']:.3f} "
                  f"| {s['positions']:,} | {s['settled_by'] or '—'} |" for s in f["slowest"]]
        lines.append("")
    return lines


def _against_lines(r: dict) -> list[str]:
    a = r["against"]
    lines = [f"Against revision `{a['revision']}` ({a['commit'][:12]}, solver version "
             f"{a['solver_version']}), the two taking each block of 250 deals in turn on the "
             "same cores.", "",
             "| part | deals | base deals/s per core | this version's | this version is "
             "| 95 % interval | verdicts differ |", "|---|---|---|---|---|---|---|"]
    for name, f in r["parts"].items():
        s = f["speedup"]
        lines.append(f"| {name} | {f['this']['deals']:,} "
                     f"| {_rate(f['base']['deals_per_second_per_core'])} "
                     f"| {_rate(f['this']['deals_per_second_per_core'])} "
                     f"| {s['ratio']:.3f}x ({s['verdict']}) | {s['low']:.3f} – {s['high']:.3f} "
                     f"| {len(f['verdicts_differ'])} |")
    lines.append("")
    for name, f in r["parts"].items():
        for side in ("base", "this"):
            q = f[side]["per_deal_seconds"]
            lines.append(f"- {name}, {side}: p50 {_ms(q['p50'])}, p99 {_ms(q['p99'])}, "
                         f"max {_ms(q['max'])}; {f[side]['positions']:,} positions; settled by "
                         + ", ".join(f"{k} {v['deals']:,}"
                                     for k, v in f[side]["settled_by"].items()))
    lines.append("")
    return lines


def _saved_lines(v: dict) -> list[str]:
    from .compare import compare_lines

    return ([f"## Against the saved result {v['a']['name']}", "",
             "A is the saved result, B this run; a saved result was measured at another "
             "time, so the interval holds each run's rounds and the machine's drift between "
             "the two (`halfmoon bench compare`).", "", "```"]
            + compare_lines(v) + ["```", ""])


def _charts(out: Path, result: dict, rows_of: dict) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from halfmoon.report.style import BLUE, BROWN, GREEN, GREY, ORANGE

    colours = {"random": BLUE, "hard": BROWN, "plain": ORANGE, "cpsat": GREEN}
    lines: list[tuple[str, list[Row], str]] = []
    for part, rows in rows_of.items():
        if part == "rounds":  # every round's rows: the charts draw the median round's
            continue
        if isinstance(rows, dict):  # against a revision: both sides
            lines.append((f"{part}, this version", rows["this"], colours.get(part, BLUE)))
            lines.append((f"{part}, {result['against']['commit'][:8]}", rows["base"], GREY))
        elif part.startswith("solver on"):
            lines.append((part, rows, BLUE))
        else:
            lines.append((part, rows, colours.get(part, BLUE)))
    tag = f"suite {result['suite']}, solver version {result['solver_version']}" + (
        " (busy machine)" if result.get("busy") else "")
    paths = []
    fig, ax = plt.subplots(figsize=(7.2, 4.2), dpi=110)
    for label, rows, colour in lines:
        t = settled_within(rows)
        if not len(t):
            continue
        share = 100 * np.arange(1, len(t) + 1) / len(rows)
        style = "--" if label.startswith("solver on") else "-"
        ax.step(np.maximum(t, 1e-5), share, where="post", color=colour, linestyle=style,
                label=f"{label} ({len(t):,} of {len(rows):,})")
    ax.set_xscale("log")
    ax.set_xlabel("time a deal is allowed (s, log scale)")
    ax.set_ylabel("deals settled (%)")
    ax.set_ylim(0, 101)
    ax.grid(alpha=0.3)
    ax.set_title(f"Deals settled within a time: {tag}", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    paths.append(out / "cactus.png")
    fig.savefig(paths[-1])
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7.2, 4.2), dpi=110)
    shown = [(lab, rows, c) for lab, rows, c in lines if not lab.startswith("solver on")
             and lab.split(",")[0] not in ("plain", "cpsat")]
    for label, rows, colour in shown:
        t = np.maximum(np.array([r.whole for r in rows]), 1e-5)
        bins = np.logspace(-5, max(1.0, np.log10(t.max()) + 0.1), 60)
        ax.hist(t, bins=bins, histtype="step", color=colour,
                label=f"{label}: share of the deals ({len(t):,})",
                weights=np.full(len(t), 100 / len(t)))
        ax.hist(t, bins=bins, histtype="step", color=colour, linestyle=":",
                label=f"{label}: share of the time", weights=100 * t / t.sum())
    ax.set_xscale("log")
    ax.set_xlabel("a deal's time (s, log scale)")
    ax.set_ylabel("share of the deals, of the time (%)")
    ax.grid(alpha=0.3)
    ax.set_title(f"A deal's time: {tag}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    paths.append(out / "times.png")
    fig.savefig(paths[-1])
    plt.close(fig)
    return paths
