"""A run not finished, or being written, is said so by stats, report and findings; findings
writes beside its run unless told where, and never over another run's page unasked."""

from __future__ import annotations

import fcntl
import json
import subprocess

from cli_helpers import ROOT, run

from halfmoon.batch.state import run_state

FINDINGS = ["--seed", "5", "--players-deals", "40", "--forgiveness-deals", "2",
            "--fair-deals", "0", "--recheck", "0.01", "--limit", "5", "--workers", "1",
            "--quiet"]


def test_stats_of_an_interrupted_run_says_how_far_it_got(capsys, unfinished):
    status, out, _ = run(capsys, "stats", str(unfinished))
    assert status == 0
    assert ("NOTE        200 of 600 planned deals — the run is not finished (rerun the batch to "
            "go on)") in out
    assert "provisional" not in out  # nobody is writing it
    status, out, _ = run(capsys, "stats", str(unfinished), "--json")
    got = json.loads(out)["run"]
    assert got["planned"] == 600 and got["finished"] is False and got["writer"] is None


def test_a_finished_run_has_no_note_and_times_are_in_a_persons_units(capsys, finished):
    status, out, _ = run(capsys, "stats", str(finished))
    assert status == 0 and "NOTE" not in out
    line = next(x for x in out.splitlines() if x.startswith("time a deal"))
    assert " ms" in line and "e-0" not in line


def _hold_lock(run_dir, pid: int):
    """The lock a batch holds while it writes, taken here (as another process would)."""
    f = open(run_dir / ".lock", "a+")
    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    f.seek(0)
    f.truncate()
    f.write(json.dumps({"pid": pid}))
    f.flush()
    return f


def test_a_run_being_written_is_named_and_its_figures_provisional(capsys, unfinished):
    f = _hold_lock(unfinished, 4242)
    try:
        assert run_state(unfinished).writer == 4242
        status, out, _ = run(capsys, "stats", str(unfinished))
        assert "a batch (process 4242) is writing this run now: these statistics are " \
               "provisional" in out
        assert "200 of 600 planned deals so far" in out
    finally:
        f.close()
    # the lock goes with its process, however it ends: a crashed run is not live
    assert (unfinished / ".lock").read_text().startswith('{"pid": 4242')
    assert run_state(unfinished).writer is None


def test_report_says_the_run_is_not_finished(capsys, unfinished, tmp_path):
    status, out, _ = run(capsys, "report", str(unfinished), "--out", str(tmp_path / "r"),
                         "--no-players")
    assert status == 0
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "200 of the 600 deals numbered 0 to 599 (a range" in text
    assert "**200 of 600 planned deals — the run is not finished (rerun the batch to go on).**" \
        in text


def test_findings_refuses_an_unfinished_run_unless_partial(capsys, unfinished):
    status, out, err = run(capsys, "findings", str(unfinished), *FINDINGS)
    assert status == 2 and "200 of 600 planned deals — the run is not finished" in err
    assert "--partial" in err and not (unfinished / "_findings" / "findings.md").exists()
    status, out, err = run(capsys, "findings", str(unfinished), "--partial", *FINDINGS)
    assert status == 0, err
    text = (unfinished / "_findings" / "findings.md").read_text(encoding="utf-8")
    assert "**The run is not finished: 200 of 600 planned deals.**" in text
    assert "--partial\n```" in text  # in the Reproduce block


def test_findings_writes_beside_its_run_and_not_over_another_runs_page(capsys, finished,
                                                                        unfinished, tmp_path):
    docs = ROOT / "docs"
    before = {p: p.stat().st_mtime_ns for p in docs.rglob("*")}
    status, out, err = run(capsys, "findings", str(finished), *FINDINGS)
    assert status == 0, err
    page = finished / "_findings" / "findings.md"
    assert out.strip() == f"findings written to {page}"
    assert {p: p.stat().st_mtime_ns for p in docs.rglob("*")} == before  # docs/ untouched
    # the same run's page again: no question asked
    assert run(capsys, "findings", str(finished), *FINDINGS)[0] == 0
    # another run's page is not replaced unasked
    target = finished / "_findings"
    status, out, err = run(capsys, "findings", str(unfinished), "--partial", "--out",
                           str(target), *FINDINGS)
    assert status == 2 and out == ""
    assert err.startswith(f"halfmoon: error: {target} holds the page of another run "
                          f"(halfmoon batch --range 600:800 --out {finished}")
    assert "--force replaces it" in err and len(err.splitlines()) == 1
    assert "deals numbered 600 to 799" in page.read_text(encoding="utf-8")
    status, out, err = run(capsys, "findings", str(unfinished), "--partial", "--out",
                           str(target), "--force", *FINDINGS)
    assert status == 0
    assert err.startswith("halfmoon: --force: replacing the page of another run "
                          "(halfmoon batch --range 600:800")
    assert "200 of the 600 deals numbered 0 to 599" in page.read_text(encoding="utf-8")


def test_findings_of_a_run_in_the_repository_leave_git_status_clean(tmp_path):
    """``results/`` (make run's) is ignored: its page, beside it, changes nothing git sees."""
    ignored = subprocess.run(["git", "check-ignore", "-q", "results/_findings/findings.md"],
                             cwd=ROOT)
    assert ignored.returncode == 0


def test_findings_of_two_runs_pooled_are_those_of_one_run_over_the_union(capsys, tmp_path):
    """Two runs made separately, sharing 20 deals, pooled by findings: every figure of the
    data equals that of one run over the union of their deals (the times of solves apart)."""
    import pandas as pd

    from halfmoon.batch import deals_from_range, run_batch

    for name, (lo, hi) in {"a": (900, 960), "b": (940, 1000), "union": (900, 1000)}.items():
        run_batch(deals_from_range(lo, hi), tmp_path / name, workers=1, progress=False)
    runs = [str(tmp_path / "a"), str(tmp_path / "b")]
    status, out, err = run(capsys, "findings", *runs, *FINDINGS)
    assert status == 2 and err == ("halfmoon: error: findings of 2 runs pooled need --out DIR: "
                                   "the pooled run and its page are written there\n")
    pooled, one = tmp_path / "pooled", tmp_path / "one"
    status, out, err = run(capsys, "findings", *runs, "--out", str(pooled), *FINDINGS)
    assert status == 0, err
    assert err == (f"halfmoon: 2 runs pooled: 100 deals, each once (20 held by more than one "
                   f"run) in {pooled / '_pooled'}\n")
    assert run(capsys, "findings", str(tmp_path / "union"), "--out", str(one), *FINDINGS)[0] == 0
    a, b = (json.loads((d / "findings" / "summary.json").read_text()) for d in (pooled, one))
    for key in ("deals", "wins", "losses", "unresolved", "win_rate", "win_low", "win_high",
                "doa_rate", "nodes", "players_deals", "forgiveness_deals", "recheck_deals"):
        assert a[key] == b[key], key
    for name in ("win-rate", "features", "losses", "players", "forgiveness", "difficulty"):
        x, y = (pd.read_parquet(d / "findings" / f"{name}.parquet") for d in (pooled, one))
        pd.testing.assert_frame_equal(x, y, obj=name)
    page = (pooled / "findings.md").read_text(encoding="utf-8")
    assert "100 deals pooled from 2 runs, each deal counted once (20 held by more than one run)" \
        in page
    assert (f"halfmoon batch --range 900:960 --out {runs[0]}\nhalfmoon batch --range 940:1000 "
            f"--out {runs[1]}\nhalfmoon findings {runs[0]} {runs[1]} --out {pooled} ") in page
    # the same runs again: their page, nothing pooled anew, nothing asked
    status, out, err = run(capsys, "findings", *runs, "--out", str(pooled), *FINDINGS)
    assert status == 0 and "as before in" in err
    # other runs into that folder: refused, its pooled run untouched
    before = (pooled / "_pooled" / "_manifest.json").read_text()
    status, out, err = run(capsys, "findings", runs[0], str(tmp_path / "union"), "--out",
                           str(pooled), *FINDINGS)
    assert status == 2 and "holds the page of another run" in err
    assert (pooled / "_pooled" / "_manifest.json").read_text() == before
