"""What the benchmark's tests share: rows of made-up deals and a made-up result."""

from __future__ import annotations

from halfmoon.bench.lanes import Row


def rows(times, verdicts=None, by="quick"):
    """A row a time: deal k, the verdict given (a win by default), 100 (k + 1) positions,
    solving 90 % of its whole time."""
    verdicts = verdicts or ["win"] * len(times)
    return [Row(k, v, 100 * (k + 1), t * 0.9, t, None if v == "unresolved" else by)
            for k, (t, v) in enumerate(zip(times, verdicts))]


def fake_result(busy=False):
    from halfmoon.bench.figures import part_figures

    fig = part_figures(rows([0.001, 0.002, 0.05]), 0.06, 1)
    fig.update(about="three deals", engine="solver")
    return {"schema": 1, "suite": "quick", "about": "x", "command": "halfmoon bench",
            "created": "2026-12-06T00:00:00+00:00", "solver_version": "15", "commit": "a" * 40,
            "dirty": False, "budget": 5_000_000, "workers": 1, "pinned": True,
            "machine": {"cpu": "a cpu", "cores": 2, "usable_cores": 2, "system": "Linux",
                        "python": "3.11.7", "numba": "0.6", "numpy": "2.0"},
            "load_before": 0.1, "load_after": 0.2, "other_processes_cores": 0.0,
            "other_processes_cores_before": 0.0,
            "reference_ns": {"before": 60.0, "after": 61.0}, "reference_spread": 1.02,
            "busy": busy, "parts": {"random": fig},
            "busy_reasons": ["other processes used 3.0 cores in the second before it started"]
            if busy else []}


