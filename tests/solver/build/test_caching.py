"""numba's caches are dropped when any solver source changes, and only then."""

from __future__ import annotations

from pathlib import Path

import solver
from solver.build.caching import STAMP, drop_stale_caches, sources_hash


def fake_package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "b.py").write_text("y = 2\n")
    return pkg


def caches(pkg: Path) -> list[str]:
    for name in ("a.f-1.py311.nbi", "a.f-1.py311.1.nbc"):
        (pkg / "__pycache__" / name).write_bytes(b"compiled")
    (pkg / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"bytecode")
    return sorted(p.name for p in (pkg / "__pycache__").iterdir())


def test_caches_survive_while_the_sources_are_the_same(tmp_path):
    pkg = fake_package(tmp_path)
    assert drop_stale_caches(pkg)  # no stamp yet: whatever is there is of unknown sources
    before = caches(pkg)
    assert not drop_stale_caches(pkg)
    assert sorted(p.name for p in (pkg / "__pycache__").iterdir()) == before


def test_a_change_to_any_source_drops_every_kernel_cache(tmp_path):
    pkg = fake_package(tmp_path)
    drop_stale_caches(pkg)
    caches(pkg)
    (pkg / "b.py").write_text("y = 3\n")  # another module than the cached kernel's
    assert drop_stale_caches(pkg)
    left = sorted(p.name for p in (pkg / "__pycache__").iterdir())
    assert left == ["a.cpython-311.pyc", STAMP]
    assert (pkg / "__pycache__" / STAMP).read_text().strip() == sources_hash(pkg)


def test_the_solver_package_is_stamped_with_its_sources():
    pkg = Path(solver.__file__).resolve().parent
    assert (pkg / "__pycache__" / STAMP).read_text().strip() == sources_hash(pkg)


def test_a_change_in_a_subpackage_drops_the_caches_of_every_folder(tmp_path):
    pkg = fake_package(tmp_path)
    sub = pkg / "rooms" / "inner"
    (sub / "__pycache__").mkdir(parents=True)
    (sub / "__init__.py").write_text("")
    (sub / "k.py").write_text("z = 1\n")
    drop_stale_caches(pkg)
    before = sources_hash(pkg)
    caches(pkg)
    (sub / "__pycache__" / "k.g-1.py311.nbi").write_bytes(b"compiled")
    assert not drop_stale_caches(pkg)  # nothing changed: the caches stay
    (sub / "k.py").write_text("z = 2\n")  # a subpackage's file, two folders down
    assert sources_hash(pkg) != before
    assert drop_stale_caches(pkg)
    assert not list(sub.joinpath("__pycache__").glob("*.nbi"))
    assert not list(pkg.joinpath("__pycache__").glob("*.nb[ic]"))


def test_the_solver_hash_covers_every_subpackage_file():
    pkg = Path(solver.__file__).resolve().parent
    sources = {f.relative_to(pkg).as_posix() for f in pkg.rglob("*.py")
               if "__pycache__" not in f.parts}
    assert any("/" in s for s in sources)  # the solver has subpackages
    import hashlib
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + (pkg / name).read_bytes() + b"\0")
    assert h.hexdigest() == sources_hash(pkg)
