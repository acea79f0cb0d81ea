"""What the solver compiles on a cold cache: which kernels, how long each, what a run needs.

    python benchmarks/bench_compile.py [--run warm-up|batch|all|groups] [--range 0:2000]
                                       [--cache DIR] [--as-is] [--json FILE]

Runs the chosen work in a fresh Python process whose numba cache is an empty directory
(``--cache DIR`` to use another, e.g. a warm one) and prints one row per compiled kernel
signature: its module and name, the seconds spent compiling it alone (its callees'
compilations subtracted) and with them, and the kernels it compiled as callees.  Then the
process's totals: import, compiling, loading from the cache, and the rest.

- ``warm-up``: :func:`solver.warm_up`, everything a batch worker or the board loads
  (the groups of :data:`solver.SOLVING`);
- ``batch``: :func:`solver.solve_numbers` on the deals of ``--range`` only (what a run of
  those deals really needs, with nothing warmed up);
- ``all``: every group of :data:`solver.KERNEL_GROUPS` (the players too);
- ``groups``: each group of :data:`solver.KERNEL_GROUPS` alone, in a fresh process on an empty
  cache of its own, one after another: a row a group (what it compiles, whether solving a
  deal needs it, wall and CPU seconds, compilations), the table of what a run needs.

``--as-is`` compiles as numba does without :mod:`solver.build.compiling` (its changes to the
inliner and to calls between kernels switched off), to compare.

numba reports each compilation as a ``numba:compile`` event (start and end, nested for
callees compiled on the way); loading from the cache raises no event and is counted from
each dispatcher's cache hits.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = ("warm-up", "batch", "all", "groups")


def _child(run: str, lo: int, hi: int) -> dict:
    """In the fresh process: do ``run`` with a listener on numba's compile events."""
    t0 = time.perf_counter()
    from numba.core import event

    rows: list[dict] = []
    stack: list[dict] = []

    class Listener(event.Listener):
        def on_start(self, ev):
            disp = ev.data["dispatcher"]
            f = disp.py_func
            stack.append({"kernel": f"{f.__module__}.{f.__qualname__}",
                          "args": str(tuple(ev.data["args"]))[:120], "start": time.perf_counter(),
                          "children": 0.0, "callees": []})

        def on_end(self, ev):
            r = stack.pop()
            r["total"] = time.perf_counter() - r.pop("start")
            r["self"] = r["total"] - r.pop("children")
            if stack:
                stack[-1]["children"] += r["total"]
                stack[-1]["callees"].append(r["kernel"])
            rows.append(r)

    event.register("numba:compile", Listener())
    import solver  # noqa: F401  (drops stale caches, imports the kernels)

    t_import = time.perf_counter() - t0
    t1 = time.perf_counter()
    if run.startswith("group:"):
        solver.warm_up([run.split(":", 1)[1]], out=None)
    elif run == "warm-up":
        solver.warm_up(out=None)
    elif run == "batch":
        solver.solve_numbers(list(range(lo, hi)), solver.DEFAULT_BUDGET)
    else:
        solver.warm_up(solver.KERNEL_GROUPS, out=None)
    t_work = time.perf_counter() - t1
    hits = 0
    for mod in list(sys.modules):
        if mod == "solver" or mod.startswith("solver."):
            for v in vars(sys.modules[mod]).values():
                h = getattr(v, "_cache_hits", None)
                if h is not None and hasattr(v, "py_func"):
                    hits += sum(h.values())
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"run": run, "import": t_import, "work": t_work, "rows": rows, "cache_hits": hits,
            "compiled": sum(r["self"] for r in rows), "pid": os.getpid(),
            "cpu": usage.ru_utime + usage.ru_stime}


def measure(run: str, lo: int, hi: int, cache: str | None, as_is: bool = False) -> dict:
    """Run ``run`` in a fresh process on ``cache`` (an empty directory if None)."""
    env = dict(os.environ, HALFMOON_NUMBA_AS_IS="1" if as_is else "")
    tmp = None
    if cache is None:
        tmp = tempfile.TemporaryDirectory(prefix="halfmoon-cold-")
        cache = tmp.name
    env["NUMBA_CACHE_DIR"] = cache
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", run, "--range", f"{lo}:{hi}"],
                         env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"error: the measured process failed (exit {out.returncode})")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["wall"] = wall
    if tmp is not None:
        tmp.cleanup()
    return res


def table(res: dict) -> str:
    rows = sorted(res["rows"], key=lambda r: -r["self"])
    lines = [f"## {res['run']}: {len(rows)} compilations, {res['compiled']:.1f} s compiling, "
             f"{res['cache_hits']} loaded from the cache",
             "", "| kernel | alone s | with callees s | callees compiled |", "|---|---|---|---|"]
    for r in rows:
        callees = ", ".join(sorted({c.split('.')[-1] for c in r["callees"]})) or "-"
        lines.append(f"| {r['kernel']} | {r['self']:.2f} | {r['total']:.2f} | {callees} |")
    lines += ["", f"process wall {res['wall']:.1f} s: import {res['import']:.1f} s, "
              f"the work {res['work']:.1f} s of which compiling {res['compiled']:.1f} s", ""]
    return "\n".join(lines)


def groups_table(lo: int, hi: int, as_is: bool) -> tuple[str, list[dict]]:
    """Each kernel group compiled alone on an empty cache: the table and the measurements."""
    sys.path.insert(0, str(ROOT))
    import solver

    results = [measure(f"group:{g}", lo, hi, None, as_is) for g in solver.KERNEL_GROUPS]
    lines = ["| group | what | solving needs it | wall s | CPU s | compilations |",
             "|---|---|---|---|---|---|"]
    for g, res in zip(solver.KERNEL_GROUPS, results):
        lines.append(f"| {g} | {solver.KERNEL_GROUPS[g]} | {'yes' if g in solver.SOLVING else 'no'}"
                     f" | {res['wall']:.1f} | {res['cpu']:.1f} | {len(res['rows'])} |")
    need = [r for g, r in zip(solver.KERNEL_GROUPS, results) if g in solver.SOLVING]
    lines += ["", f"what solving needs ({', '.join(solver.SOLVING)}): "
              f"{sum(r['cpu'] for r in need):.1f} s of CPU, the longest group "
              f"{max(r['wall'] for r in need):.1f} s"
              f"{' (numba as is)' if as_is else ''}", ""]
    return "\n".join(lines), results


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", choices=RUNS, default="warm-up")
    p.add_argument("--range", default="0:2000", help="deals of --run batch (LO:HI)")
    p.add_argument("--cache", help="numba cache directory (default: a fresh empty one)")
    p.add_argument("--as-is", action="store_true",
                   help="compile as numba does, without solver.build.compiling's changes")
    p.add_argument("--json", help="also write the measurements here")
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    try:
        lo, hi = (int(x) for x in a.range.split(":"))
        if not 0 <= lo < hi:
            raise ValueError
    except ValueError:
        p.error(f"--range must be LO:HI with 0 <= LO < HI, got {a.range!r}")
    if a.child:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(_child(a.child, lo, hi)))
        return 0
    if a.run == "groups":
        text, res = groups_table(lo, hi, a.as_is)
        print(text)
    else:
        res = measure(a.run, lo, hi, a.cache, a.as_is)
        print(table(res))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
