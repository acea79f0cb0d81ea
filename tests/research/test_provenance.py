"""What made a derived figure: the package's version and commit, the solver's version."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd

from halfmoon.research.provenance import (
    provenance,
    provenance_words,
    read_provenance,
    write_parquet,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_provenance_names_the_package_its_commit_and_the_solver():
    from importlib.metadata import version

    from solver import SOLVER_VERSION

    p = provenance()
    assert p["package"] == "halfmoon" and p["version"] == version("halfmoon")
    assert p["solver_version"] == str(SOLVER_VERSION)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    if head.returncode == 0:  # a checkout: the commit it is at
        assert p["commit"] == head.stdout.strip() and isinstance(p["changed"], bool)
    else:  # an installed copy: no commit claimed
        assert p["commit"] is None


def test_the_provenance_in_words():
    p = {"package": "halfmoon", "version": "1.2.0", "commit": "0123456789abcdef0123",
         "changed": True, "solver_version": "15"}
    assert provenance_words(p) == ("halfmoon 1.2.0 (commit 0123456789ab, with changes not "
                                   "committed), solver version 15")
    assert provenance_words({**p, "changed": False}) == \
        "halfmoon 1.2.0 (commit 0123456789ab), solver version 15"
    assert "no commit known" in provenance_words({**p, "commit": None})


def test_a_data_file_carries_its_provenance(tmp_path):
    write_parquet(pd.DataFrame({"a": [1, 2]}), tmp_path / "x.parquet")
    assert read_provenance(tmp_path / "x.parquet") == provenance()
    assert pd.read_parquet(tmp_path / "x.parquet")["a"].tolist() == [1, 2]
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "y.parquet")
    assert read_provenance(tmp_path / "y.parquet") == {}
