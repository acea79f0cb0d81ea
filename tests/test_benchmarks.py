"""The benchmark scripts leave a clone as they found it: what a script writes by default goes
under a path git ignores (``benchmarks/results/new/``), never into a tracked file; writing
into ``benchmarks/results/`` itself is for a user who names it.

Read from the source with ``ast`` (each output option's default evaluated from the script's
own ``ROOT``, ``HERE`` and ``RESULTS``), and one cheap script run on a made-up input."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_layers import ROOT

BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.rglob("*.py")
                 if "results" not in p.relative_to(BENCHMARKS).parts)
OUTPUT_OPTIONS = {"--out", "--json", "--dir"}  # the options that name where a script writes
PLACES = {"ROOT", "HERE", "RESULTS"}  # the module-level paths a default is made from

pytestmark = pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")


def _ignored(path: Path) -> bool:
    """Whether git ignores ``path`` (a file, or anything in a folder: a path with no suffix)
    and does not keep it."""
    probe = path if path.suffix else path / "probe"
    rel = str(probe.relative_to(ROOT))
    kept = subprocess.run(["git", "ls-files", "--error-unmatch", rel], cwd=ROOT,
                          capture_output=True).returncode == 0
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", rel],
                             cwd=ROOT).returncode == 0
    return ignored and not kept


def _defaults(path: Path) -> dict[str, Path]:
    """``OPTION -> default path`` for each output option of the script that has a default."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    space = {"Path": Path, "__file__": str(path)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id in PLACES
                                                for t in node.targets):
            exec(compile(ast.Module([node], []), str(path), "exec"), space)
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        names = {a.value for a in node.args if isinstance(a, ast.Constant)}
        default = next((k.value for k in node.keywords if k.arg == "default"), None)
        for name in names & OUTPUT_OPTIONS:
            if default is not None and not (isinstance(default, ast.Constant)
                                            and default.value is None):
                value = eval(compile(ast.Expression(default), str(path), "eval"), space)
                out[name] = Path(value).resolve()
    return out


def test_the_ignore_check_tells_a_kept_folder_from_an_ignored_one():
    assert not _ignored(BENCHMARKS / "results")
    assert not _ignored(BENCHMARKS / "results" / "batch.json")
    assert _ignored(BENCHMARKS / "results" / "new")
    assert _ignored(BENCHMARKS / "results" / "new" / "batch.json")


def test_the_defaults_are_read_from_the_scripts():
    found = {p.relative_to(ROOT).as_posix(): d for p in SCRIPTS if (d := _defaults(p))}
    assert found["benchmarks/bench_tail.py"] == \
        {"--out": BENCHMARKS / "results" / "new"}
    assert found["benchmarks/bench_batch.py"] == \
        {"--json": BENCHMARKS / "results" / "new" / "batch.json"}
    assert "benchmarks/lab/bench_why.py" in found


@pytest.mark.parametrize("script", [p.relative_to(ROOT).as_posix() for p in SCRIPTS])
def test_a_benchmark_writes_by_default_only_where_git_ignores(script):
    bad = {name: str(path) for name, path in _defaults(ROOT / script).items()
           if path.is_relative_to(ROOT) and not _ignored(path)}
    assert not bad, f"{script} writes by default into a place git keeps: {bad}"


def test_a_check_of_a_tail_run_is_written_where_git_ignores(tmp_path):
    # check_tail.py on a tail result of no deals: nothing solved, the check written by default
    tail = tmp_path / "tail-test-of-the-default-output.json"
    tail.write_text(json.dumps({"budget": 1000, "slowest": []}))
    run = subprocess.run([sys.executable, str(BENCHMARKS / "check_tail.py"), str(tail),
                          "--deals", "0"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    written = Path(re.search(r"written: (.+)", run.stdout).group(1).strip())
    try:
        assert written.resolve().is_relative_to(ROOT) and _ignored(written.resolve())
    finally:
        written.unlink(missing_ok=True)
