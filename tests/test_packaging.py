"""The package as a user gets it: the sdist and the wheel built in a fresh environment with
every warning an error (a deprecation today is a failed build tomorrow), the wheel built from
the unpacked sdist (so the sdist is complete), installed (not editable) in another fresh
environment, and run from there: ``halfmoon solve 3``, ``halfmoon bench``'s deal sets
exported, and the board's static files served from the installed package.

The cheap way that still proves the wheel: the second environment sees the dependencies
already installed for the tests (a path file naming their site-packages, whose own path
files, such as this checkout's editable install, are not read), and the wheel goes in with
``--no-deps``; setuptools comes from pip's cache.  Its cost is the installed solver compiling
its kernels (its files are new to numba's cache).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STATIC = sorted(p.name for p in (ROOT / "halfmoon" / "board" / "static").iterdir())
pytestmark = pytest.mark.packaging

BUILD = """
import sys
from setuptools import build_meta
out = sys.argv[1]
name = build_meta.build_sdist(out) if sys.argv[2] == "sdist" else build_meta.build_wheel(out)
print(name)
"""

SERVED = """
import sys
from pathlib import Path
import halfmoon
from halfmoon.board import server
from starlette.testclient import TestClient

client = TestClient(server.create_app())  # no lifespan: no solver process is started
for name in sys.argv[1:]:
    r = client.get(f"/static/{name}")
    assert r.status_code == 200, (name, r.status_code)
    assert r.content == (server.STATIC / name).read_bytes()
print(Path(halfmoon.__file__).parent)
print(server.STATIC)
"""


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert result.returncode == 0, f"{cmd}:\n{result.stdout}\n{result.stderr}"
    return result


def _venv(path: Path) -> Path:
    """A fresh environment without pip (pip of this one installs into it): its python."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(path)])
    return path / "bin" / "python"


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "pip", "--python", str(python), *args])


def _sources(dest: Path) -> Path:
    """The checkout's files (tracked, or new and not ignored) copied to ``dest``."""
    names = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                 cwd=ROOT).stdout.split("\0")
    for name in filter(None, names):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes(src.read_bytes())
    return dest


def _build(python: Path, where: Path, kind: str, out: Path) -> tuple[str, str]:
    # every warning an error; byte-compiling as a user's build does it (else setuptools says
    # that it skips it, a warning of this environment's, not of the package's)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONWARNINGS"] = "error"
    result = _run([str(python), "-c", BUILD, str(out), kind], cwd=where, env=env)
    return result.stdout.strip().splitlines()[-1], result.stdout + result.stderr


def test_the_wheel_built_in_a_fresh_environment_without_warnings_runs_installed(tmp_path):
    build = _venv(tmp_path / "build-env")
    _pip(build, "install", "--quiet", "setuptools>=77")
    dist = tmp_path / "dist"
    dist.mkdir()
    sdist, log = _build(build, _sources(tmp_path / "src"), "sdist", dist)
    assert "warning" not in log.lower(), log
    with tarfile.open(dist / sdist) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
        names = tar.getnames()
    top = sdist.removesuffix(".tar.gz")
    assert f"{top}/LICENSE" in names
    assert all(f"{top}/halfmoon/board/static/{n}" in names for n in STATIC)
    wheel, log = _build(build, tmp_path / "unpacked" / top, "wheel", dist)
    assert "warning" not in log.lower(), log
    print(f"built with every warning an error, none seen: {sdist}, {wheel}")  # pytest -s
    with zipfile.ZipFile(dist / wheel) as z:
        names = z.namelist()
        meta = z.read(f"{top}.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in meta.splitlines()
    assert f"{top}.dist-info/licenses/LICENSE" in names
    assert all(f"halfmoon/board/static/{n}" in names for n in STATIC)
    assert "halfmoon/batch/tail_model.json" in names
    assert {"halfmoon/bench/sets/quick.csv", "halfmoon/bench/sets/hard.csv",
            "halfmoon/bench/worker.py"} <= set(names)

    run = _venv(tmp_path / "run-env")
    site = Path(_run([str(run), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
                     ).stdout.strip())
    (site / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _pip(run, "install", "--quiet", "--no-deps", "--no-index", str(dist / wheel))
    home = tmp_path / "elsewhere"  # not the checkout: nothing imported from its sources
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    solved = _run([str(run.parent / "halfmoon"), "solve", "3"], cwd=home, env=env)
    assert solved.stdout.startswith("HM1-N-AAAAAAD: win in "), solved.stdout
    assert "Traceback" not in solved.stderr
    exported = _run([str(run.parent / "halfmoon"), "bench", "--export", "hard", "--out",
                     "hard-set"], cwd=home, env=env)
    assert "500 layout files" in exported.stdout and len(list((home / "hard-set").glob(
        "HM1-*.txt"))) == 500
    served = _run([str(run), "-c", SERVED, *STATIC], cwd=home, env=env).stdout.split()
    assert [Path(p).is_relative_to(site) for p in served] == [True, True], served
    print(f"installed: {served[0]}\n{solved.stdout.splitlines()[0]}\n"
          f"served from {served[1]}: {', '.join(STATIC)}")
